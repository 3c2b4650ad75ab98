"""Kuhn poker: a toy game that exists only in the tests, to prove the platform.

Two players, a deck of three cards (J < Q < K), an ante of ``ante`` chips each, one
private card each, one betting round with one bet size (``ante`` chips): check or
bet; facing a bet, fold or call. A leaver forfeits the round at once. The whole
game is this module plus one registry entry (tests/conftest.py): the server,
the lobby, the API, the websocket and the bots play it through the contract only.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from engine.errors import IllegalAction, MalformedAction
from engine.game import (
    BuyIn,
    CameBack,
    CashOut,
    Event,
    Game,
    GameInfo,
    Json,
    Listing,
    RoundEnded,
    RoundStarted,
    SeatFreed,
    SeatInfo,
    SeatResult,
    SeatTaken,
    Status,
    TimedOut,
    Viewer,
    WentAway,
    check_move,
    move,
)

RANK = {"J": 0, "Q": 1, "K": 2}
HIDDEN = "?"


@dataclass(frozen=True, slots=True)
class CardDealt(Event):
    """A private card: only its player sees which."""

    player: int
    card: str

    @property
    def audience(self) -> int | None:
        return self.player


@dataclass(frozen=True, slots=True)
class Moved(Event):
    player: int
    kind: str


@dataclass(frozen=True, slots=True)
class Revealed(Event):
    """At a showdown both cards are shown."""

    player: int
    card: str


class KuhnGame(Game):
    info = GameInfo(key="kuhn", title="Kuhn poker", min_players=2, max_players=2,
                    economy=True, ends=False,
                    seat_options={"type": "object", "required": ["buy_in"],
                                  "properties": {"buy_in": {"type": "integer", "minimum": 1}}},
                    export_format="json")

    def settings_schema(self) -> Json:
        return {"type": "object", "properties": {
            "ante": {"type": "integer", "minimum": 1, "maximum": 100, "default": 1}}}

    def validate_settings(self, data: Json) -> Json:
        if not isinstance(data, dict) or set(data) - {"ante"}:
            raise MalformedAction("bad_settings", "Kuhn poker has one setting, ante.")
        ante = data.get("ante", 1)
        if type(ante) is not int or not 1 <= ante <= 100:
            raise MalformedAction("bad_settings", "ante is 1 to 100.")
        return {"ante": ante}

    def settings_json(self, settings: Json) -> Json:
        return dict(settings)

    def listing(self, settings: Json) -> Listing:
        return Listing(name=f"Kuhn poker ante {settings['ante']}", seats=2,
                       facts={"ante": settings["ante"]})

    def create(self, settings: Json) -> Json:
        return {"ante": settings["ante"], "seats": [None, None], "number": 0, "round": None}

    def seats(self, state: Json) -> list[SeatInfo | None]:
        return [None if s is None else SeatInfo(
            player_id=s["id"], status="away" if s["away"] else "playing", away=s["away"],
            chips=s["chips"]) for s in state["seats"]]

    def _occupant(self, state: Json, seat: Any) -> Json:
        if type(seat) is not int or not 0 <= seat < 2:
            raise MalformedAction("bad_seat", f"There is no seat {seat!r}.")
        if state["seats"][seat] is None:
            raise IllegalAction("seat_empty", f"Seat {seat} is empty.")
        occupant: Json = state["seats"][seat]
        return occupant

    def seat(self, state: Json, seat: int, player_id: str, options: Json) -> list[Event]:
        if type(seat) is not int or not 0 <= seat < 2:
            raise MalformedAction("bad_seat", f"There is no seat {seat!r}.")
        buy_in = options.get("buy_in")
        if type(buy_in) is not int or buy_in < 2 * state["ante"] or buy_in > 1000:
            raise IllegalAction("bad_amount", "Buy in with 2 antes to 1000 chips.")
        if state["seats"][seat] is not None:
            raise IllegalAction("seat_taken", f"Seat {seat} is taken.")
        if any(s and s["id"] == player_id for s in state["seats"]):
            raise IllegalAction("already_seated", "You already have a seat.")
        state["seats"][seat] = {"id": player_id, "chips": buy_in, "away": False}
        return [SeatTaken(seat, player_id), BuyIn(seat, player_id, buy_in)]

    def default_seat_options(self, state: Json) -> Json:
        return {"buy_in": 20 * state["ante"]}

    def unseat(self, state: Json, seat: int) -> list[Event]:
        occupant = self._occupant(state, seat)
        events: list[Event] = []
        hand = state["round"]
        if hand is not None and seat in hand["seats"]:  # forfeit: the other one wins
            events += [Moved(seat, "fold"), *self._end(state, winner=1 - hand["seats"].index(seat))]
        state["seats"][seat] = None
        return [*events, SeatFreed(seat, occupant["id"]),
                CashOut(seat, occupant["id"], occupant["chips"])]

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
        if occupant["chips"] < 2 * state["ante"]:
            raise IllegalAction("no_chips", "Not enough chips to play.")
        occupant["away"] = False
        return [CameBack(seat)]

    def refill(self, state: Json, seat: int) -> list[Event]:
        occupant = state["seats"][seat]
        if occupant is None or occupant["chips"] >= 2 * state["ante"]:
            return []
        amount = 20 * state["ante"]
        occupant["chips"] += amount
        occupant["away"] = False
        return [BuyIn(seat, occupant["id"], amount)]

    def _ready(self, state: Json) -> list[int]:
        return [i for i, s in enumerate(state["seats"])
                if s and not s["away"] and s["chips"] >= 2 * state["ante"]]

    def can_start(self, state: Json) -> bool:
        return state["round"] is None and len(self._ready(state)) == 2

    def draw_chance(self, state: Json, rng: random.Random) -> Json:
        return {"cards": rng.sample(["J", "Q", "K"], 2)}

    def start_round(self, state: Json, chance: Json) -> list[Event]:
        if not self.can_start(state):
            raise IllegalAction("not_enough_players", "Two players are needed.")
        cards = chance.get("cards") if isinstance(chance, dict) else None
        if not isinstance(cards, list) or len(cards) != 2 or not set(cards) <= set(RANK):
            raise MalformedAction("bad_chance", 'Expected {"cards": [c0, c1]}.')
        state["number"] += 1
        first = state["number"] % 2  # the opener alternates
        seats = [first, 1 - first]
        ante = state["ante"]
        for seat in seats:
            state["seats"][seat]["chips"] -= ante
        state["round"] = {"seats": seats, "cards": list(cards), "pot": 2 * ante,
                          "history": "", "start": [state["seats"][s]["chips"] + ante
                                                   for s in seats]}
        ids = tuple(state["seats"][s]["id"] for s in seats)
        return [RoundStarted(state["number"], tuple(seats), ids),
                *(CardDealt(seat, card) for seat, card in zip(seats, cards, strict=True))]

    def _actor(self, hand: Json) -> int:
        return hand["seats"][len(hand["history"]) % 2]

    def status(self, state: Json) -> Status:
        hand = state["round"]
        if hand is None:
            return Status()
        return Status(round=state["number"], to_act=(self._actor(hand),),
                      decision=f"{state['number']}:{hand['history']}")

    def legal_moves(self, state: Json, seat: int) -> list[Json]:
        hand = state["round"]
        if hand is None or seat != self._actor(hand):
            return []
        if hand["history"].endswith("b"):
            return [move("fold"), move("call")]
        return [move("check"), move("bet")]

    def apply(self, state: Json, seat: int, action: Json) -> list[Event]:
        hand = state["round"]
        if hand is None or seat != self._actor(hand):
            raise IllegalAction("not_your_turn", "It is not your turn.")
        check_move(self.legal_moves(state, seat), action)
        kind = action["kind"]
        events: list[Event] = [Moved(seat, kind)]
        me = hand["seats"].index(seat)
        if kind in ("bet", "call"):
            state["seats"][seat]["chips"] -= state["ante"]
            hand["pot"] += state["ante"]
        hand["history"] += kind[0]
        history = hand["history"]
        if history.endswith("f"):
            events += self._end(state, winner=1 - me)
        elif history in ("cc", "bc", "cbc"):
            high = max((0, 1), key=lambda i: RANK[hand["cards"][i]])
            events += [Revealed(s, c) for s, c in zip(hand["seats"], hand["cards"], strict=True)]
            events += self._end(state, winner=high)
        return events

    def _end(self, state: Json, winner: int) -> list[Event]:
        hand = state["round"]
        seats = hand["seats"]
        state["seats"][seats[winner]]["chips"] += hand["pot"]
        results = tuple(SeatResult(
            seat=s, player_id=state["seats"][s]["id"],
            net=state["seats"][s]["chips"] - hand["start"][i],
            detail={"won": i == winner}, secret={"card": hand["cards"][i]})
            for i, s in enumerate(seats))
        state["last"] = {"seats": seats, "cards": hand["cards"], "history": hand["history"]}
        state["round"] = None
        return [RoundEnded(results)]

    def timeout(self, state: Json) -> list[Event]:
        hand = state["round"]
        if hand is None:
            raise IllegalAction("nobody_to_act", "Nobody is to act.")
        seat = self._actor(hand)
        kind = "fold" if hand["history"].endswith("b") else "check"
        return [TimedOut(seat, kind), *self.apply(state, seat, {"kind": kind})]

    def view(self, state: Json, viewer: Viewer) -> Json:
        hand = state["round"]
        out: Json = {"ante": state["ante"], "number": state["number"], "round": None,
                     "seats": [None if s is None else {"player": i, "chips": s["chips"]}
                               for i, s in enumerate(state["seats"])]}
        if hand is not None:
            out["round"] = {"pot": hand["pot"], "history": hand["history"],
                            "players": [{"player": s, "card": c if viewer.can_see(s) else HIDDEN}
                                        for s, c in zip(hand["seats"], hand["cards"],
                                                        strict=True)]}
        return out

    def project_event(self, event: Event, viewer: Viewer) -> Json | None:
        if viewer.can_see(event.audience):
            return event.to_json()
        if isinstance(event, CardDealt):
            return {"type": "CardDealt", "player": event.player, "card": HIDDEN}
        return None

    def round_record(self, state: Json) -> Json:
        return dict(state.get("last") or {})

    def export_round(self, record: Json, viewer: Viewer, meta: Json) -> str:
        shown = len(record.get("history", "")) >= 2 and not record["history"].endswith("f")
        cards = [c if shown or viewer.can_see(s) else HIDDEN
                 for s, c in zip(record.get("seats", []), record.get("cards", []), strict=True)]
        return json.dumps({"names": meta.get("names"), "cards": cards,
                           "history": record.get("history", "")})

    def dump(self, state: Json) -> Json:
        return json.loads(json.dumps(state))

    def load(self, data: Json) -> Json:
        return json.loads(json.dumps(data))
