"""The generic dice game behind the game contract (docs/dice.md).

1–4 score sheets (seats), a rule set (:mod:`engine.dice.rules`). The table starts
when every seat is taken and present; the **round is the whole game**: every
participant plays as many turns as the rule set has combinations, in seat order
(the original's *kierros*, one turn each, is a pass inside the round). A turn: the
dice are rolled at once (the first roll has no choice), then ``roll`` (holding any
dice, re-rolling the rest) while rolls remain, and ``score`` into one open box at any
time (the only move after the last roll). When every sheet is full the round and the
game end: ``RoundEnded`` (each participant's total) and ``GameEnded`` (standings).

The dice come from the round's chance, drawn before the round and stored with it:
per participant and turn a string of ``rolls × dice`` digits; digit
``roll * dice + i`` is what die ``i`` shows if it is rolled at roll ``roll``
(0 = the first). The module itself never draws anything.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from engine.dice.rules import (
    FAMILIES,
    MAX_COMBINATIONS,
    SHIPPED,
    Rules,
    counts_of,
    shipped_rules,
    validate_rules,
)
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
    subset,
)

__all__ = ["BoxScored", "DiceGame", "DiceRolled", "PlayerRetired"]

MAX_SEATS = 4
DEFAULT_SEATS = 3
DEFAULT_RULES = "yatzy"


@dataclass(frozen=True, slots=True)
class DiceRolled(Event):
    """``player`` rolled: ``dice`` now show these faces; ``held`` are the indices of the
    dice kept (the first roll of a turn holds none); ``roll`` counts from 1."""

    player: int
    dice: tuple[int, ...]
    held: tuple[int, ...]
    roll: int
    rolls_left: int


@dataclass(frozen=True, slots=True)
class BoxScored(Event):
    """``player`` wrote ``points`` into ``box``; ``bonus`` is the bonus this earned (0
    mostly); ``total`` the sheet's total now."""

    player: int
    box: str
    points: int
    bonus: int
    total: int


@dataclass(frozen=True, slots=True)
class PlayerRetired(Event):
    """``player`` left in the middle of the game: their sheet is final as it stands."""

    player: int


def _param(name: str, kind: str, title: str, help_text: str, *,
           required: bool = True, low: int = 1, high: int = 9) -> Json:
    return {"name": name, "type": kind, "title": title, "help": help_text,
            "required": required, "min": low, "max": high}


RULE_LIMITS = {"dice": [1, 9], "faces": [2, 9], "rolls": [1, 9],
               "combinations": [1, MAX_COMBINATIONS], "points": [0, 1000]}
# The editor's families: parameters as in rules.FAMILIES (type "int": a whole number,
# "faces": a list of faces, "face": one face 1..faces), with the seed's constraints
# in words (validate_rules checks them).
EDITOR_FAMILIES: list[Json] = [
    {"family": "face", "title": "x:s (one face)", "rule": "at least one die shows x; "
     "scores the sum of those dice", "params": [
         _param("face", "face", "Face x", "x ≤ faces")]},
    {"family": "run", "title": "Run of m", "rule": "m consecutive faces; scores their sum",
     "params": [_param("length", "int", "Length m", "2 ≤ m ≤ dice, m ≤ faces", low=2),
                _param("start", "face", "Starting face", "optional: s..s+m−1 exactly",
                       required=False)]},
    {"family": "kind", "title": "t of a kind", "rule": "at least t dice alike; scores t × "
     "the face", "params": [
         _param("count", "int", "Count t", "2 ≤ t ≤ dice", low=2),
         _param("face", "face", "Face", "optional: only this face", required=False)]},
    {"family": "groups", "title": "h groups of t", "rule": "h different faces, t dice each; "
     "scores t × their sum", "params": [
         _param("groups", "int", "Groups h", "h ≥ 2, h × t ≤ dice, h × t ≤ faces", low=2),
         _param("count", "int", "Count t", "dice per group", low=1),
         _param("faces", "faces", "Faces", "optional: h different faces",
                required=False)]},
    {"family": "divisible", "title": "All divisible by k", "rule": "every die divisible "
     "by k; scores the sum", "params": [
         _param("divisor", "int", "Divisor k", "2 or 3", low=2, high=3)]},
    {"family": "indivisible", "title": "None divisible by k", "rule": "no die divisible "
     "by k; scores the sum", "params": [
         _param("divisor", "int", "Divisor k", "2 or 3", low=2, high=3)]},
    {"family": "yatzy", "title": "Yatzy", "rule": "all dice alike; scores 50", "params": [
        _param("face", "face", "Face", "optional: only this face", required=False)]},
    {"family": "fair_split", "title": "Fair split", "rule": "every face an even number of "
     "times (even number of dice); scores the sum", "params": []},
    {"family": "greedy_split", "title": "Greedy split", "rule": "exactly one face an odd "
     "number of times (odd dice, at least 3); scores the split dice", "params": []},
    {"family": "full_house", "title": "Full house", "rule": "(n−1)/2 of one face and "
     "(n+1)/2 of another (odd dice, at least 3); scores the sum", "params": [
         _param("faces", "faces", "Faces", "optional: [smaller group, larger group]",
                required=False)]},
    {"family": "chance", "title": "Chance", "rule": "anything; scores the sum",
     "params": []},
]
assert [f["family"] for f in EDITOR_FAMILIES] == list(FAMILIES)


_COMPILED: dict[str, Rules] = {}


def _copy(data: Any) -> Any:
    """A deep copy of plain JSON."""
    return json.loads(json.dumps(data))


def _rules_of(state: Json) -> Rules:
    """The table's rules, compiled once per rule-set identity (only the scoring parts
    are read from it, which the identity fixes)."""
    data = state["rules"]
    rules = _COMPILED.get(data["id"])
    if rules is None:
        if len(_COMPILED) >= 256:
            _COMPILED.clear()
        rules = _COMPILED[data["id"]] = Rules(data)
    return rules


class DiceGame(Game):
    """Yatzy and its relatives: any rule set of :mod:`engine.dice.rules`."""

    info = GameInfo(key="dice", title="Dice (Yatzy and rule sets)", min_players=1,
                    max_players=MAX_SEATS, economy=False, ends=True, round_name="game",
                    house_bots=("random", "greedy", "ev"), export_format="json")

    # ------------------------------------------------------------ settings

    def settings_schema(self) -> Json:
        keys = list(SHIPPED)
        return {
            "type": "object", "additionalProperties": False,
            "properties": {
                "seats": {"type": "integer", "minimum": 1, "maximum": MAX_SEATS,
                          "default": DEFAULT_SEATS, "title": "Players",
                          "description": "Score sheets; the game starts when every seat "
                                         "is taken (1 = solitaire)."},
                "rules": {"type": "string", "enum": keys, "default": DEFAULT_RULES,
                          "title": "Rule set",
                          "enumTitles": {k: SHIPPED[k]["name"] for k in keys},
                          "description": "A shipped rule set, or (API) a rule-set object: "
                                         "see docs/dice.md."},
            },
        }

    def validate_settings(self, data: Json) -> Json:
        if not isinstance(data, dict) or set(data) - {"seats", "rules"}:
            raise MalformedAction("bad_settings", "The dice game's settings are seats and "
                                                  "rules.")
        seats = data.get("seats", DEFAULT_SEATS)
        if type(seats) is not int or not 1 <= seats <= MAX_SEATS:
            raise MalformedAction("bad_settings", f"seats is 1 to {MAX_SEATS}.")
        rules = data.get("rules", DEFAULT_RULES)
        if isinstance(rules, str):
            if rules not in SHIPPED:
                raise MalformedAction("unknown_rules", f"No shipped rule set called {rules!r} "
                                      f"(shipped: {', '.join(SHIPPED)}).")
            checked = shipped_rules(rules)
        else:
            checked = validate_rules(rules)
        return {"seats": seats, "rules": checked}

    def settings_json(self, settings: Json) -> Json:
        out: Json = _copy(settings)
        return out

    def listing(self, settings: Json) -> Listing:
        rules = settings["rules"]
        seats = settings["seats"]
        who = "solitaire" if seats == 1 else f"{seats} players"
        return Listing(name=f"{rules['name']}, {who}", seats=seats, facts={
            "rules": rules["name"], "rules_id": rules["id"], "dice": rules["dice"],
            "faces": rules["faces"], "rolls": rules["rolls"],
            "boxes": len(rules["combinations"])})

    # ------------------------------------------------------------ rule sets

    def rule_sets(self) -> Json:
        """The rule-set editor's description: the families (seed, Liite 1) with their
        parameters, the limits and the shipped rule sets (docs/dice.md)."""
        return {"setting": "rules", "limits": dict(RULE_LIMITS),
                "families": _copy(EDITOR_FAMILIES),
                "shipped": {key: shipped_rules(key) for key in SHIPPED},
                "default": DEFAULT_RULES,
                "top10": "every solitaire game enters; of a game of several players, "
                         "only the winner"}

    def validate_rule_set(self, data: Any) -> Json:
        return validate_rules(data)

    def rule_set_id(self, settings_json: Json) -> str:
        rules = settings_json.get("rules") if isinstance(settings_json, dict) else None
        return str(rules.get("id", "")) if isinstance(rules, dict) else ""

    def on_leaderboard(self, settings_json: Json, seats: int, place: Standing) -> bool:
        """The seed's top-10 rule: every solitaire game, only the winner of a game of
        several players (equal winners all)."""
        return seats == 1 or place.rank == 1

    # ------------------------------------------------------------ seats

    def create(self, settings: Json) -> Json:
        return {"rules": _copy(settings["rules"]),
                "seats": [None] * settings["seats"], "number": 0, "round": None,
                "over": False, "standings": None, "last": None}

    def seats(self, state: Json) -> list[SeatInfo | None]:
        return [None if s is None else SeatInfo(player_id=s["id"], away=s["away"],
                                                status="away" if s["away"] else "playing")
                for s in state["seats"]]

    def _seat_number(self, state: Json, seat: Any) -> int:
        if type(seat) is not int or not 0 <= seat < len(state["seats"]):
            raise MalformedAction("bad_seat", f"There is no seat {seat!r}.")
        return seat

    def _occupant(self, state: Json, seat: Any) -> Json:
        occupant: Json | None = state["seats"][self._seat_number(state, seat)]
        if occupant is None:
            raise IllegalAction("seat_empty", f"Seat {seat} is empty.")
        return occupant

    def seat(self, state: Json, seat: int, player_id: str, options: Json) -> list[Event]:
        self._seat_number(state, seat)
        if options:
            raise MalformedAction("malformed_message", "The dice game has no sit options.")
        if state["over"]:
            raise IllegalAction("game_over", "This game is over.")
        if state["round"] is not None:
            raise IllegalAction("game_started", "This game has started: its players are "
                                                "fixed.")
        if state["seats"][seat] is not None:
            raise IllegalAction("seat_taken", f"Seat {seat} is taken.")
        if any(s and s["id"] == player_id for s in state["seats"]):
            raise IllegalAction("already_seated", "You already have a seat.")
        state["seats"][seat] = {"id": player_id, "away": False}
        return [SeatTaken(seat, player_id)]

    def unseat(self, state: Json, seat: int) -> list[Event]:
        occupant = self._occupant(state, seat)
        events: list[Event] = []
        game = state["round"]
        if game is not None and seat in game["seats"]:
            events += self._retire(state, game["seats"].index(seat))
        state["seats"][seat] = None
        return [*events, SeatFreed(seat, occupant["id"])]

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

    # ------------------------------------------------------------ rounds

    def can_start(self, state: Json) -> bool:
        return (not state["over"] and state["round"] is None
                and all(s is not None and not s["away"] for s in state["seats"]))

    def draw_chance(self, state: Json, rng: random.Random) -> Json:
        rules = state["rules"]
        faces, length = rules["faces"], rules["rolls"] * rules["dice"]
        turns = len(rules["combinations"])
        return {"dice": [["".join(str(rng.randrange(faces) + 1) for _ in range(length))
                          for _ in range(turns)] for _ in state["seats"]]}

    def _check_chance(self, state: Json, chance: Any) -> list[list[str]]:
        rules = state["rules"]
        faces, length = rules["faces"], rules["rolls"] * rules["dice"]
        turns = len(rules["combinations"])
        grid = chance.get("dice") if isinstance(chance, dict) else None
        allowed = set("123456789"[:faces])
        if (not isinstance(grid, list) or len(grid) != len(state["seats"])
                or any(not isinstance(row, list) or len(row) != turns
                       or any(not isinstance(t, str) or len(t) != length or set(t) - allowed
                              for t in row) for row in grid)):
            raise MalformedAction("bad_chance", f"Expected {{\"dice\": [[{turns} strings of "
                                  f"{length} digits 1..{faces}] per seat]}}.")
        return grid

    def start_round(self, state: Json, chance: Json) -> list[Event]:
        if not self.can_start(state):
            raise IllegalAction("not_enough_players", "Every seat must be taken (and "
                                                      "present) to start.")
        grid = self._check_chance(state, chance)
        state["number"] += 1
        seats = list(range(len(state["seats"])))
        ids = [state["seats"][s]["id"] for s in seats]
        state["round"] = {
            "seats": seats, "ids": ids, "chance": grid, "step": 0,
            "sheets": [[None] * len(state["rules"]["combinations"]) for _ in seats],
            "retired": [False] * len(seats), "turn": None, "log": []}
        events: list[Event] = [RoundStarted(state["number"], tuple(seats), tuple(ids))]
        return events + self._next_turn(state)

    # -- turns

    def _next_turn(self, state: Json) -> list[Event]:
        """The next participant's turn begins with its first roll; or the game ends."""
        game = state["round"]
        boxes = len(state["rules"]["combinations"])
        waiting = [(self._filled(sheet), i) for i, sheet in enumerate(game["sheets"])
                   if not game["retired"][i] and self._filled(sheet) < boxes]
        if not waiting:
            return self._end(state)
        _, index = min(waiting)
        return self._roll(state, index, held=[], first=True)

    @staticmethod
    def _filled(sheet: list[int | None]) -> int:
        return sum(value is not None for value in sheet)

    def _roll(self, state: Json, index: int, held: list[int], first: bool) -> list[Event]:
        game = state["round"]
        rules = state["rules"]
        n = rules["dice"]
        if first:
            turn = {"index": index, "number": self._filled(game["sheets"][index]),
                    "rolls": 0, "dice": [0] * n}
            game["turn"] = turn
            game["log"].append({"seat": game["seats"][index], "rolls": [], "holds": [],
                                "box": None, "points": None})
        turn = game["turn"]
        faces = game["chance"][index][turn["number"]]
        base = turn["rolls"] * n
        keep = set(held)
        turn["dice"] = [die if i in keep else int(faces[base + i])
                        for i, die in enumerate(turn["dice"])]
        turn["rolls"] += 1
        game["step"] += 1
        record = game["log"][-1]
        record["holds"].append(sorted(keep))
        record["rolls"].append(list(turn["dice"]))
        return [DiceRolled(game["seats"][index], tuple(turn["dice"]), tuple(sorted(keep)),
                           turn["rolls"], rules["rolls"] - turn["rolls"])]

    def _score(self, state: Json, box: str) -> list[Event]:
        game = state["round"]
        turn = game["turn"]
        index = turn["index"]
        rules = _rules_of(state)
        sheet = game["sheets"][index]
        before = rules.bonus(sheet)
        points = rules.by_id[box].score(counts_of(turn["dice"], rules.faces))
        sheet[rules.index[box]] = points
        bonus = rules.bonus(sheet) - before
        record = game["log"][-1]
        record["box"], record["points"] = box, points
        game["turn"] = None
        game["step"] += 1
        events: list[Event] = [BoxScored(game["seats"][index], box, points, bonus,
                                         rules.total(sheet))]
        return events + self._next_turn(state)

    def _retire(self, state: Json, index: int) -> list[Event]:
        game = state["round"]
        game["retired"][index] = True
        events: list[Event] = [PlayerRetired(game["seats"][index])]
        turn = game["turn"]
        if turn is not None and turn["index"] == index:
            game["turn"] = None
            game["step"] += 1
            events += self._next_turn(state)
        return events

    def _end(self, state: Json) -> list[Event]:
        game = state["round"]
        rules = _rules_of(state)
        totals = [rules.total(sheet) for sheet in game["sheets"]]
        results = tuple(SeatResult(
            seat=seat, player_id=game["ids"][i], score=totals[i],
            detail={"sheet": list(game["sheets"][i]), "bonus": rules.bonus(game["sheets"][i]),
                    "retired": game["retired"][i]})
            for i, seat in enumerate(game["seats"]))
        # Players who finished rank above those who left; equal totals share a rank.
        order = sorted(range(len(totals)), key=lambda i: (game["retired"][i], -totals[i], i))
        standings = tuple(Standing(
            seat=game["seats"][i], player_id=game["ids"][i], score=totals[i],
            rank=1 + sum(1 for j in order if (game["retired"][j], -totals[j])
                         < (game["retired"][i], -totals[i])))
            for i in order)
        state["last"] = {"rules_id": state["rules"]["id"], "seats": game["seats"],
                         "ids": game["ids"], "sheets": game["sheets"], "totals": totals,
                         "retired": game["retired"], "log": game["log"]}
        state["round"] = None
        state["over"] = True
        state["standings"] = [s.to_json() for s in standings]
        return [RoundEnded(results), GameEnded(standings)]

    # -- decisions

    def _actor(self, state: Json) -> int | None:
        game = state["round"]
        if game is None or game["turn"] is None:
            return None
        seat: int = game["seats"][game["turn"]["index"]]
        return seat

    def status(self, state: Json) -> Status:
        seat = self._actor(state)
        if seat is None:
            return Status(over=state["over"])
        return Status(round=state["number"], to_act=(seat,),
                      decision=f"{state['number']}:{state['round']['step']}")

    def to_act(self, state: Json) -> tuple[int, ...]:
        seat = self._actor(state)
        return () if seat is None else (seat,)

    def legal_moves(self, state: Json, seat: int) -> list[Json]:
        if seat != self._actor(state):
            return []
        game = state["round"]
        turn = game["turn"]
        rules = state["rules"]
        n = rules["dice"]
        sheet = game["sheets"][turn["index"]]
        moves = []
        if turn["rolls"] < rules["rolls"]:
            moves.append(move("roll", "Roll (holding some dice)",
                              hold=subset(list(range(n)), 0, n - 1)))
        moves.append(move("score", "Score", box=options([c["id"] for c, v in zip(
            rules["combinations"], sheet, strict=True) if v is None])))
        return moves

    def apply(self, state: Json, seat: int, action: Json) -> list[Event]:
        if seat != self._actor(state):
            raise IllegalAction("not_your_turn", "It is not your turn.")
        check_move(self.legal_moves(state, seat), action)
        if action["kind"] == "roll":
            return self._roll(state, state["round"]["turn"]["index"], action["hold"],
                              first=False)
        return self._score(state, action["box"])

    def best_box(self, state: Json) -> str:
        """The open box that scores most with the dice now (the first such box in
        sheet order): the timeout's move."""
        game = state["round"]
        turn = game["turn"]
        rules = _rules_of(state)
        counts = counts_of(turn["dice"], rules.faces)
        open_boxes = [c for c in rules.combinations
                      if game["sheets"][turn["index"]][rules.index[c.id]] is None]
        best = max(open_boxes, key=lambda c: c.score(counts))  # max keeps the first
        return best.id

    def timeout(self, state: Json) -> list[Event]:
        seat = self._actor(state)
        if seat is None:
            raise IllegalAction("nobody_to_act", "Nobody is to act.")
        box = self.best_box(state)
        return [TimedOut(seat, f"score {box}"),
                *self.apply(state, seat, {"kind": "score", "box": box})]

    # ------------------------------------------------------------ views

    def view(self, state: Json, viewer: Viewer) -> Json:
        """Everything is public except the chance (the dice not yet rolled).

        ``rules`` (the rule set's JSON), ``sheets`` (per participant: ``boxes``, the
        points per combination in the rule set's order, ``None`` while open;
        ``upper``, ``bonus``, ``total``, ``retired``), ``turn`` (``seat``, ``dice``,
        ``roll``, ``rolls_left`` and ``scores``: what each combination would score
        with these dice, ``None`` for a box already written). A box id is never a
        JSON key (a rule set may call a box anything)."""
        rules = _rules_of(state)
        game = state["round"]
        out: Json = {"rules": _copy(state["rules"]),
                     "seats": len(state["seats"]), "number": state["number"],
                     "over": state["over"], "sheets": [], "turn": None,
                     "standings": _copy(state["standings"])}
        source = game if game is not None else state["last"]
        if source is not None:
            for i, seat in enumerate(source["seats"]):
                sheet = source["sheets"][i]
                out["sheets"].append({
                    "seat": seat, "player_id": source["ids"][i], "boxes": list(sheet),
                    "upper": rules.upper(sheet), "bonus": rules.bonus(sheet),
                    "total": rules.total(sheet),
                    "retired": source["retired"][i]})
        if game is not None and game["turn"] is not None:
            turn = game["turn"]
            sheet = game["sheets"][turn["index"]]
            counts = counts_of(turn["dice"], rules.faces)
            out["turn"] = {
                "seat": game["seats"][turn["index"]], "dice": list(turn["dice"]),
                "roll": turn["rolls"], "rolls_left": rules.rolls - turn["rolls"],
                "scores": [None if done is not None else c.score(counts)
                           for c, done in zip(rules.combinations, sheet, strict=True)]}
        return out

    # ------------------------------------------------------------ history and storage

    def round_record(self, state: Json) -> Json:
        out: Json = _copy(state.get("last") or {})
        return out

    def export_round(self, record: Json, viewer: Viewer, meta: Json) -> str:
        return json.dumps({"names": meta.get("names"), **record})

    def dump(self, state: Json) -> Json:
        out: Json = _copy(state)
        return out

    def load(self, data: Json) -> Json:
        out: Json = _copy(data)
        return out
