"""Tuppi behind the game contract (:mod:`engine.game`): seats, rounds, privacy, records.

Four seats, partners opposite (team 0: seats 0 and 2; team 1: seats 1 and 3).
Each round: the chance input is a shuffled deck, dealt 13 cards each; all four
bid at once (``rami`` or ``nolo``, hidden); the bids are revealed from the
player after the dealer until the first rami (its bidder declares; the rest stay
hidden); then 13 tricks, no trumps, follow suit; the round may end early once its
effect on the game is decided; the up/down board goes on until a team reaches 52
(a tuppi). Every rule choice is in docs/tuppi.md.

>>> import random
>>> game = TuppiGame()
>>> state = game.create(game.validate_settings({}))
>>> for seat, name in enumerate("abcd"):
...     _ = game.seat(state, seat, name, {})
>>> events = game.start_round(state, game.draw_chance(state, random.Random(1)))
>>> [e.type for e in events][:3], game.status(state).to_act  # everyone bids at once
(['RoundStarted', 'Dealt', 'CardsDealt'], (1, 2, 3, 0))
>>> [m["kind"] for m in game.legal_moves(state, 0)]
['rami', 'nolo']
>>> for seat in (0, 1, 3):
...     _ = game.apply(state, seat, {"kind": "nolo"})
>>> [e.type for e in game.apply(state, 2, {"kind": "rami"})]
['BidPlaced', 'BidRevealed', 'BidRevealed', 'ContractSet']
>>> view = game.view(state, Viewer.spectator())["round"]
>>> view["mode"], view["declarer"], view["leader"], [p["bid"] for p in view["players"]]
('rami', 2, 1, [None, 'nolo', 'rami', None])
>>> game.legal_moves(state, 1)[0]["params"]["card"]["options"][:3]
['3c', '5c', '9c']
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass

from engine.cards import CARDS, Card, format_cards, parse_cards, standard_deck
from engine.errors import IllegalAction, MalformedAction
from engine.game import (
    CameBack,
    Event,
    Game,
    GameEnded,
    GameInfo,
    Json,
    Listing,
    RoundEnded,
    RoundStarted,
    SeatFreed,
    SeatInfo,
    SeatResult,
    SeatTaken,
    Standing,
    Status,
    TimedOut,
    Viewer,
    WentAway,
    check_move,
    move,
    options,
)
from engine.tuppi.rules import (
    SEATS,
    TRICKS,
    deal,
    decided,
    left_of,
    legal_cards,
    lowest,
    right_of,
    round_points,
    settle,
    sort_hand,
    team_of,
    trick_winner,
)

__all__ = [
    "LIMITS", "AutoPlayed", "BidPlaced", "BidRevealed", "CardPlayed", "CardsDealt",
    "ContractSet", "Dealt", "RoundScored", "TrickWon", "TuppiGame", "chance_of", "replay",
]

LIMITS = (0, 15, 24)
"""Allowed ``round_limit`` settings: 0 = play to a tuppi, else a tournament limit."""
RECORD_FORMAT = "tuppi-round/1"
TEAMS = ((0, 2), (1, 3))


# ------------------------------------------------------------------ events


@dataclass(frozen=True, slots=True)
class Dealt(Event):
    """The dealer dealt 13 cards to each player (who they are: :class:`CardsDealt`)."""

    dealer: int


@dataclass(frozen=True, slots=True)
class CardsDealt(Event):
    """A player's 13 cards: for that player only (others see only the count)."""

    player: int
    cards: tuple[Card, ...]

    @property
    def audience(self) -> int | None:
        return self.player


@dataclass(frozen=True, slots=True)
class BidPlaced(Event):
    """A player chose rami or nolo: the choice is theirs alone (others see that they bid)."""

    player: int
    bid: str

    @property
    def audience(self) -> int | None:
        return self.player


@dataclass(frozen=True, slots=True)
class BidRevealed(Event):
    """A bid turned face up (from the player after the dealer, until the first rami)."""

    player: int
    bid: str


@dataclass(frozen=True, slots=True)
class ContractSet(Event):
    """The round's game: ``mode`` rami (``declarer`` = the first rami revealed) or
    nolo (``declarer`` None); ``leader`` leads the first trick."""

    mode: str
    declarer: int | None
    leader: int


@dataclass(frozen=True, slots=True)
class CardPlayed(Event):
    player: int
    card: Card


@dataclass(frozen=True, slots=True)
class TrickWon(Event):
    """Trick ``number`` (1..13) went to ``player``; ``tricks``: per team so far."""

    player: int
    number: int
    cards: tuple[Card, ...]
    tricks: tuple[int, int]


@dataclass(frozen=True, slots=True)
class AutoPlayed(Event):
    """The game moved for a player who is leaving (the default move, at once)."""

    player: int
    action: str


@dataclass(frozen=True, slots=True)
class RoundScored(Event):
    """The round's effect: ``team`` scored ``points``; ``outcome`` ``rise`` (added to
    the board), ``reset`` (the other team was up: back to 0–0) or ``tuppi``; ``early``:
    the round stopped before the 13th trick (its effect was decided)."""

    mode: str
    declarer: int | None
    tricks: tuple[int, int]
    team: int
    points: int
    outcome: str
    score: tuple[int, int]
    rising: tuple[int, int]
    early: bool


# ------------------------------------------------------------------ helpers


def _text(card: int) -> str:
    return str(CARDS[card])


def _hand_text(cards: Sequence[int]) -> str:
    return format_cards(CARDS[c] for c in cards)


def chance_of(hands: Sequence[str], dealer: int) -> Json:
    """A chance input (``{"deck": ...}``) that deals exactly ``hands`` (card texts by
    seat) with ``dealer`` dealing: used to replay a round from its record.

    >>> hands = [format_cards(h) for h in deal(standard_deck(), 0)]
    >>> chance_of(hands, 0)["deck"][:8]
    '2c2d2h2s'
    """
    parsed = [parse_cards(h) for h in hands]
    deck = [parsed[(dealer + 1 + k) % SEATS][k // SEATS] for k in range(SEATS * TRICKS)]
    return {"deck": format_cards(deck)}


class TuppiGame(Game):
    """Tuppi (docs/tuppi.md). The state is plain JSON (cards as ints ``0..51``)."""

    info = GameInfo(key="tuppi", title="Tuppi", min_players=4, max_players=4,
                    economy=False, ends=True, teams=2, round_name="round",
                    house_bots=("random", "greedy", "strong"), export_format="json")

    # -- settings
    def settings_schema(self) -> Json:
        return {"type": "object", "additionalProperties": False, "properties": {
            "round_limit": {
                "type": "integer", "enum": list(LIMITS), "default": 0,
                "title": "Tournament limit",
                "enumTitles": {"0": "none: play to tuppi", "15": "15 rounds",
                               "24": "24 rounds"},
                "description": "After this many rounds the rise in progress is played out; "
                               "then the team with more rising points wins."}}}

    def validate_settings(self, data: Json) -> Json:
        if not isinstance(data, dict) or set(data) - {"round_limit"}:
            raise MalformedAction("bad_settings", "Tuppi has one setting, round_limit.")
        limit = data.get("round_limit", 0)
        if type(limit) is not int or limit not in LIMITS:
            raise MalformedAction("bad_settings", "round_limit is 0 (none), 15 or 24.")
        return {"round_limit": limit}

    def settings_json(self, settings: Json) -> Json:
        return dict(settings)

    def listing(self, settings: Json) -> Listing:
        limit = settings["round_limit"]
        name = f"Tuppi, {limit}-round limit" if limit else "Tuppi"
        return Listing(name=name, seats=SEATS, facts={"round_limit": limit})

    # -- seats
    def create(self, settings: Json) -> Json:
        return {"round_limit": settings["round_limit"], "seats": [None] * SEATS, "number": 0,
                "dealer": 0, "score": [0, 0], "rising": [0, 0], "points": {},
                "over": False, "result": None, "round": None, "last": None}

    def seats(self, state: Json) -> list[SeatInfo | None]:
        out: list[SeatInfo | None] = []
        for s in state["seats"]:
            if s is None:
                out.append(None)
                continue
            status = "leaving" if s["leaving"] else "away" if s["away"] else "playing"
            out.append(SeatInfo(player_id=s["id"], status=status, away=s["away"],
                                leaving=s["leaving"]))
        return out

    def _occupant(self, state: Json, seat: object) -> Json:
        if type(seat) is not int or not 0 <= seat < SEATS:
            raise MalformedAction("bad_seat", f"There is no seat {seat!r}.")
        occupant: Json | None = state["seats"][seat]
        if occupant is None:
            raise IllegalAction("seat_empty", f"Seat {seat} is empty.")
        return occupant

    def seat(self, state: Json, seat: int, player_id: str, options: Json) -> list[Event]:
        if type(seat) is not int or not 0 <= seat < SEATS:
            raise MalformedAction("bad_seat", f"There is no seat {seat!r}.")
        if options:
            raise MalformedAction("malformed_message", "Tuppi has no sit options.")
        if state["over"]:
            raise IllegalAction("game_over", "This game of tuppi is over.")
        if state["seats"][seat] is not None:
            raise IllegalAction("seat_taken", f"Seat {seat} is taken.")
        if any(s and s["id"] == player_id for s in state["seats"]):
            raise IllegalAction("already_seated", "You already have a seat.")
        state["points"].setdefault(player_id, 0)  # a returning player keeps their points
        state["seats"][seat] = {"id": player_id, "away": False, "leaving": False}
        return [SeatTaken(seat, player_id)]

    def unseat(self, state: Json, seat: int) -> list[Event]:
        occupant = self._occupant(state, seat)
        if occupant["leaving"]:
            raise IllegalAction("already_leaving", "You are already leaving.")
        if state["round"] is None:
            state["seats"][seat] = None
            return [SeatFreed(seat, occupant["id"])]
        # In a round: the game plays the default moves for the leaver at once; the
        # seat is freed when the round ends.
        occupant["leaving"] = True
        events: list[Event] = []
        self._autoplay(state, events)
        return events

    def away(self, state: Json, seat: int, reason: str = "request") -> list[Event]:
        occupant = self._occupant(state, seat)
        if occupant["away"]:
            raise IllegalAction("already_away", "You are already away.")
        occupant["away"] = True
        return [WentAway(seat, reason)]

    def back(self, state: Json, seat: int) -> list[Event]:
        occupant = self._occupant(state, seat)
        if not occupant["away"]:
            raise IllegalAction("not_away", "You are not away.")
        occupant["away"] = False
        return [CameBack(seat)]

    def prepare_round(self, state: Json, players: Sequence[str],
                      chips: Sequence[int] | None = None, dealer: int | None = None,
                      options: Json | None = None) -> None:
        """Offline matches: ``players[i]`` in seat ``i``, everyone present, and
        ``dealer`` (if given) deals the next round. Scores stay as they are."""
        if state["round"] is not None:
            raise IllegalAction("round_running", "A round is being played.")
        for seat, name in enumerate(players):
            state["points"].setdefault(name, 0)
            state["seats"][seat] = {"id": name, "away": False, "leaving": False}
        if dealer is not None:
            state["dealer"] = dealer % SEATS

    # -- rounds
    def can_start(self, state: Json) -> bool:
        return (not state["over"] and state["round"] is None
                and all(s is not None and not s["away"] and not s["leaving"]
                        for s in state["seats"]))

    def draw_chance(self, state: Json, rng: random.Random) -> Json:
        deck = standard_deck()
        rng.shuffle(deck)
        return {"deck": format_cards(deck)}

    def start_round(self, state: Json, chance: Json) -> list[Event]:
        if not self.can_start(state):
            raise IllegalAction("not_enough_players", "Four players are needed.")
        text = chance.get("deck") if isinstance(chance, dict) else None
        try:
            deck = parse_cards(text) if isinstance(text, str) else ()
        except MalformedAction:
            deck = ()
        if len(deck) != 52 or len(set(deck)) != 52:
            raise MalformedAction("bad_chance", 'Expected {"deck": "<the 52 cards>"}.')
        dealer = state["dealer"]
        hands = [[int(c) for c in hand] for hand in deal(deck, dealer)]
        state["number"] += 1
        ids = [s["id"] for s in state["seats"]]
        state["round"] = {
            "dealer": dealer, "ids": ids, "dealt": [list(h) for h in hands], "hands": hands,
            "bids": [None] * SEATS, "revealed": [], "mode": None, "declarer": None,
            "leader": None, "turn": None, "trick": [], "tricks": [], "won": [0] * SEATS,
            "moves": [], "start_score": list(state["score"]),
            "start_rising": list(state["rising"])}
        events: list[Event] = [
            RoundStarted(state["number"], tuple(range(SEATS)), tuple(ids)), Dealt(dealer),
            *(CardsDealt(seat, tuple(CARDS[c] for c in hands[seat])) for seat in range(SEATS))]
        self._autoplay(state, events)
        return events

    def _bidders(self, rnd: Json) -> tuple[int, ...]:
        """Seats still to bid, in the order the bids will be revealed."""
        dealer = rnd["dealer"]
        order = ((dealer + i) % SEATS for i in range(1, SEATS + 1))
        return tuple(s for s in order if rnd["bids"][s] is None)

    def to_act(self, state: Json) -> tuple[int, ...]:
        rnd = state["round"]
        if rnd is None:
            return ()
        if rnd["mode"] is None:
            return self._bidders(rnd)
        return (rnd["turn"],)

    def status(self, state: Json) -> Status:
        rnd = state["round"]
        if rnd is None:
            return Status(over=state["over"])
        if rnd["mode"] is None:  # one simultaneous decision: the key stays while bids come in
            return Status(round=state["number"], to_act=self._bidders(rnd),
                          decision=f"{state['number']}:bid")
        played = len(rnd["tricks"]) * SEATS + len(rnd["trick"])
        return Status(round=state["number"], to_act=(rnd["turn"],),
                      decision=f"{state['number']}:{played}")

    def _legal(self, rnd: Json, seat: int) -> list[int]:
        hand: list[int] = rnd["hands"][seat]
        return sort_hand(legal_cards(hand, rnd["trick"]))

    def legal_moves(self, state: Json, seat: int) -> list[Json]:
        rnd = state["round"]
        if rnd is None:
            return []
        if rnd["mode"] is None:
            if seat not in self._bidders(rnd):
                return []
            return [move("rami", "Rami (we take 7 tricks)"), move("nolo", "Nolo")]
        if seat != rnd["turn"]:
            return []
        return [move("play", "Play a card",
                     card=options([_text(c) for c in self._legal(rnd, seat)]))]

    def apply(self, state: Json, seat: int, action: Json) -> list[Event]:
        rnd = state["round"]
        if rnd is None or type(seat) is not int or seat not in self.to_act(state):
            raise IllegalAction("not_your_turn", "It is not your turn.")
        check_move(self.legal_moves(state, seat), action)
        events: list[Event] = []
        self._move(state, seat, action, events)
        self._autoplay(state, events)
        return events

    def _default(self, rnd: Json, seat: int) -> Json:
        if rnd["mode"] is None:
            return {"kind": "nolo"}
        return {"kind": "play", "card": _text(lowest(self._legal(rnd, seat)))}

    @staticmethod
    def _label(action: Json) -> str:
        return f"play {action['card']}" if action["kind"] == "play" else action["kind"]

    def timeout(self, state: Json) -> list[Event]:
        rnd = state["round"]
        if rnd is None:
            raise IllegalAction("nobody_to_act", "Nobody is to act.")
        events: list[Event] = []
        for seat in self.to_act(state):
            action = self._default(rnd, seat)
            events.append(TimedOut(seat, self._label(action)))
            self._move(state, seat, action, events)
        self._autoplay(state, events)
        return events

    def _autoplay(self, state: Json, events: list[Event]) -> None:
        """Play at once for every leaving player whose move it is."""
        while (rnd := state["round"]) is not None:
            leaving = [s for s in self.to_act(state) if state["seats"][s]["leaving"]]
            if not leaving:
                return
            for seat in leaving:
                action = self._default(rnd, seat)
                events.append(AutoPlayed(seat, self._label(action)))
                self._move(state, seat, action, events)
                if state["round"] is not rnd:
                    break

    def _move(self, state: Json, seat: int, action: Json, events: list[Event]) -> None:
        rnd = state["round"]
        rnd["moves"].append([seat, dict(action)])
        if rnd["mode"] is None:
            rnd["bids"][seat] = action["kind"]
            events.append(BidPlaced(seat, action["kind"]))
            if not self._bidders(rnd):
                self._reveal(rnd, events)
            return
        card = int(Card.parse(action["card"]))
        rnd["hands"][seat].remove(card)
        rnd["trick"].append(card)
        events.append(CardPlayed(seat, CARDS[card]))
        if len(rnd["trick"]) < SEATS:
            rnd["turn"] = left_of(seat)
            return
        leader = rnd["leader"]
        cards = rnd["trick"]
        winner = trick_winner(leader, cards)
        rnd["won"][winner] += 1
        rnd["tricks"].append({"leader": leader, "cards": cards, "winner": winner})
        rnd["trick"] = []
        rnd["leader"] = rnd["turn"] = winner
        tricks = self._team_tricks(rnd)
        events.append(TrickWon(winner, len(rnd["tricks"]), tuple(CARDS[c] for c in cards),
                               tricks))
        declarer = rnd["declarer"]
        declarer_team = None if declarer is None else team_of(declarer)
        if decided(rnd["mode"], declarer_team, tricks, state["score"]):
            self._end(state, events)

    @staticmethod
    def _team_tricks(rnd: Json) -> tuple[int, int]:
        won = rnd["won"]
        return won[0] + won[2], won[1] + won[3]

    def _reveal(self, rnd: Json, events: list[Event]) -> None:
        dealer = rnd["dealer"]
        for i in range(1, SEATS + 1):
            seat = (dealer + i) % SEATS
            rnd["revealed"].append(seat)
            events.append(BidRevealed(seat, rnd["bids"][seat]))
            if rnd["bids"][seat] == "rami":
                rnd["declarer"] = seat
                break
        declarer = rnd["declarer"]
        rnd["mode"] = "nolo" if declarer is None else "rami"
        # Rami: the declarer's right-hand player leads; nolo: the dealer's left.
        leader = left_of(dealer) if declarer is None else right_of(declarer)
        rnd["leader"] = rnd["turn"] = leader
        events.append(ContractSet(rnd["mode"], declarer, leader))

    def _end(self, state: Json, events: list[Event]) -> None:
        rnd = state["round"]
        declarer = rnd["declarer"]
        declarer_team = None if declarer is None else team_of(declarer)
        tricks = self._team_tricks(rnd)
        got = round_points(rnd["mode"], declarer_team, tricks)
        assert got is not None  # decided() said so
        team, points = got
        score, outcome = settle(state["score"], team, points)
        state["score"] = list(score)
        rising = [0, 0]
        if outcome != "reset":
            rising[team] = points
            state["rising"][team] += points
        early = tricks[0] + tricks[1] < TRICKS
        events.append(RoundScored(rnd["mode"], declarer, tricks, team, points, outcome,
                                  score, (state["rising"][0], state["rising"][1]), early))
        results = []
        for seat in range(SEATS):
            player_id = rnd["ids"][seat]
            mine = rising[team_of(seat)]
            state["points"][player_id] = state["points"].get(player_id, 0) + mine
            results.append(SeatResult(
                seat=seat, player_id=player_id, score=mine,
                detail={"team": team_of(seat), "tricks": rnd["won"][seat],
                        "team_tricks": tricks[team_of(seat)], "mode": rnd["mode"],
                        "declarer": declarer, "scored": points if team == team_of(seat) else 0,
                        "outcome": outcome, "board": list(score)},
                secret={"cards": _hand_text(rnd["dealt"][seat]), "bid": rnd["bids"][seat]}))
        events.append(RoundEnded(tuple(results)))
        record = self._record(state, rnd, team, points, outcome, early)
        state["last"] = record
        state["round"] = None
        state["dealer"] = left_of(rnd["dealer"])
        self._maybe_over(state, outcome, team, events)
        record["game_over"] = state["over"]
        record["result"] = state["result"]
        for seat, occupant in enumerate(state["seats"]):
            if occupant is not None and occupant["leaving"]:
                state["seats"][seat] = None
                events.append(SeatFreed(seat, occupant["id"]))

    def _maybe_over(self, state: Json, outcome: str, team: int, events: list[Event]) -> None:
        limit = state["round_limit"]
        if outcome == "tuppi":
            winner: int | None = team
            reason = "tuppi"
        elif limit and state["number"] >= limit and state["score"] == [0, 0]:
            rising = state["rising"]
            winner = None if rising[0] == rising[1] else (0 if rising[0] > rising[1] else 1)
            reason = "limit"
        else:
            return
        state["over"] = True
        state["result"] = {"winner": winner, "reason": reason}
        standings = []
        for seat, occupant in enumerate(state["seats"]):
            if occupant is None:
                continue
            rank = 1 if winner is None or team_of(seat) == winner else 2
            standings.append(Standing(seat=seat, player_id=occupant["id"], rank=rank,
                                      score=state["points"].get(occupant["id"], 0)))
        standings.sort(key=lambda s: (s.rank, s.seat))
        events.append(GameEnded(tuple(standings)))

    # -- projections
    def view(self, state: Json, viewer: Viewer) -> Json:
        out: Json = {
            "round_limit": state["round_limit"], "number": state["number"],
            "dealer": state["dealer"], "score": list(state["score"]),
            "rising": list(state["rising"]), "over": state["over"],
            "result": state["result"], "teams": [list(t) for t in TEAMS],
            "seats": [None if s is None else {
                "player": i, "player_id": s["id"], "team": team_of(i), "away": s["away"],
                "leaving": s["leaving"]} for i, s in enumerate(state["seats"])],
            "round": None, "last": None}
        rnd = state["round"]
        if rnd is not None:
            out["round"] = self._round_view(rnd, viewer)
        last = state["last"]
        if last is not None:
            out["last"] = {key: last[key] for key in (
                "number", "dealer", "mode", "declarer", "team_tricks", "scorer", "points",
                "outcome", "early", "score_after")}
        return out

    def _round_view(self, rnd: Json, viewer: Viewer) -> Json:
        revealed = rnd["revealed"]
        players = []
        for seat in range(SEATS):
            visible = viewer.can_see(seat)
            bid = rnd["bids"][seat] if visible or seat in revealed else None
            players.append({
                "player": seat, "team": team_of(seat),
                "cards": _hand_text(rnd["hands"][seat]) if visible else None,
                "count": len(rnd["hands"][seat]), "bid": bid,
                "has_bid": rnd["bids"][seat] is not None, "tricks": rnd["won"][seat]})
        leader = rnd["leader"]
        return {
            "phase": "bid" if rnd["mode"] is None else "play", "dealer": rnd["dealer"],
            "mode": rnd["mode"], "declarer": rnd["declarer"], "leader": leader,
            "turn": rnd["turn"], "revealed": list(revealed), "players": players,
            "trick": [{"player": (leader + i) % SEATS, "card": _text(c)}
                      for i, c in enumerate(rnd["trick"])],
            "tricks": [{"leader": t["leader"], "cards": [_text(c) for c in t["cards"]],
                        "winner": t["winner"]} for t in rnd["tricks"]],
            "team_tricks": list(self._team_tricks(rnd))}

    def project_event(self, event: Event, viewer: Viewer) -> Json | None:
        if viewer.can_see(event.audience):
            return event.to_json()
        if isinstance(event, CardsDealt):
            return {"type": "CardsDealt", "player": event.player, "count": len(event.cards)}
        if isinstance(event, BidPlaced):
            return {"type": "BidPlaced", "player": event.player}
        return None

    # -- history
    def _record(self, state: Json, rnd: Json, team: int, points: int, outcome: str,
                early: bool) -> Json:
        return {
            "format": RECORD_FORMAT, "number": state["number"], "dealer": rnd["dealer"],
            "round_limit": state["round_limit"], "ids": list(rnd["ids"]),
            "score_before": list(rnd["start_score"]),
            "rising_before": list(rnd["start_rising"]),
            "hands": [_hand_text(h) for h in rnd["dealt"]], "bids": list(rnd["bids"]),
            "revealed": list(rnd["revealed"]), "mode": rnd["mode"],
            "declarer": rnd["declarer"],
            "leader": rnd["tricks"][0]["leader"] if rnd["tricks"] else rnd["leader"],
            "moves": [[s, dict(m)] for s, m in rnd["moves"]],
            "tricks": [{"leader": t["leader"], "cards": [_text(c) for c in t["cards"]],
                        "winner": t["winner"]} for t in rnd["tricks"]],
            "team_tricks": list(self._team_tricks(rnd)), "early": early, "scorer": team,
            "points": points, "outcome": outcome, "score_after": list(state["score"]),
            "rising_after": list(state["rising"]), "game_over": False, "result": None}

    def round_record(self, state: Json) -> Json:
        record: Json = json.loads(json.dumps(state["last"] or {}))
        return record

    def round_summary(self, state: Json, ended: RoundEnded) -> Json:
        record = state["last"] or {}
        return {key: record.get(key) for key in (
            "number", "dealer", "hands", "bids", "mode", "declarer", "team_tricks", "scorer",
            "points", "outcome", "early", "score_after")}

    def export_round(self, record: Json, viewer: Viewer, meta: Json) -> str:
        """The record as JSON for ``viewer``: a hand the viewer may not see shows only
        the cards it played (``??`` for the rest); a bid never revealed is ``null`` and
        its move ``{"kind": "bid"}``."""
        if not record:
            return ""
        out = json.loads(json.dumps(record))
        played: list[list[str]] = [[] for _ in range(SEATS)]
        for trick in record.get("tricks", []):
            for i, card in enumerate(trick["cards"]):
                played[(trick["leader"] + i) % SEATS].append(card)
        revealed = set(record.get("revealed", []))
        hidden_bids = set()
        for seat in range(SEATS):
            if viewer.can_see(seat):
                continue
            shown = format_cards(sort_hand(parse_cards("".join(played[seat]))))
            out["hands"][seat] = shown + "??" * (TRICKS - len(played[seat]))
            if seat not in revealed:
                out["bids"][seat] = None
                hidden_bids.add(seat)
        out["moves"] = [[s, {"kind": "bid"} if s in hidden_bids and m["kind"] != "play" else m]
                        for s, m in out["moves"]]
        return json.dumps({"names": meta.get("names"), "table": meta.get("table"),
                           "event": meta.get("event"), **out})

    # -- storage
    def dump(self, state: Json) -> Json:
        data: Json = json.loads(json.dumps(state))
        return data

    def load(self, data: Json) -> Json:
        state: Json = json.loads(json.dumps(data))
        return state


def replay(record: Json) -> Json:
    """Play a round again from its record (the dealt hands and the moves) on a fresh
    table with the record's players, dealer and scores; returns the new record,
    which equals ``record`` for every round the game recorded.

    >>> game = TuppiGame()
    >>> state = game.create(game.validate_settings({}))
    >>> for seat, name in enumerate("abcd"):
    ...     _ = game.seat(state, seat, name, {})
    >>> _ = game.start_round(state, game.draw_chance(state, random.Random(2)))
    >>> while game.to_act(state):
    ...     _ = game.timeout(state)
    >>> record = game.round_record(state)
    >>> replay(record) == record
    True
    """
    game = TuppiGame()
    state = game.create(game.validate_settings({"round_limit": record["round_limit"]}))
    for seat, name in enumerate(record["ids"]):
        game.seat(state, seat, name, {})
    state["number"] = record["number"] - 1
    state["dealer"] = record["dealer"]
    state["score"] = list(record["score_before"])
    state["rising"] = list(record["rising_before"])
    game.start_round(state, chance_of(record["hands"], record["dealer"]))
    for seat, action in record["moves"]:
        game.apply(state, seat, action)
    return game.round_record(state)
