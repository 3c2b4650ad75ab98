"""Tic-tac-toe matches: a test-only game without chips that ends.

Two players play ``rounds`` games of tic-tac-toe (a round each); the opener of
each round is drawn (the chance input); a win scores 2, a draw 1 each. After the
last round the game is over and the standings (by points) are final. A player who
leaves forfeits the round in progress. It proves the platform for score games:
no ledger, standings, leaderboards, a table that finishes.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

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

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


@dataclass(frozen=True, slots=True)
class Marked(Event):
    player: int
    square: int


class TicTacToe(Game):
    info = GameInfo(key="tictactoe", title="Tic-tac-toe match", min_players=2, max_players=2,
                    economy=False, ends=True, round_name="game", export_format="json")

    def settings_schema(self) -> Json:
        return {"type": "object", "properties": {
            "rounds": {"type": "integer", "minimum": 1, "maximum": 9, "default": 3}}}

    def validate_settings(self, data: Json) -> Json:
        if not isinstance(data, dict) or set(data) - {"rounds"}:
            raise MalformedAction("bad_settings", "The one setting is rounds.")
        rounds = data.get("rounds", 3)
        if type(rounds) is not int or not 1 <= rounds <= 9:
            raise MalformedAction("bad_settings", "rounds is 1 to 9.")
        return {"rounds": rounds}

    def settings_json(self, settings: Json) -> Json:
        return dict(settings)

    def listing(self, settings: Json) -> Listing:
        return Listing(name=f"Tic-tac-toe, best of {settings['rounds']}", seats=2,
                       facts={"rounds": settings["rounds"]})

    def create(self, settings: Json) -> Json:
        return {"rounds": settings["rounds"], "number": 0, "seats": [None, None],
                "round": None, "over": False, "last": None}

    def seats(self, state: Json) -> list[SeatInfo | None]:
        return [None if s is None else SeatInfo(player_id=s["id"], away=s["away"],
                                                status="away" if s["away"] else "playing")
                for s in state["seats"]]

    def _occupant(self, state: Json, seat: object) -> Json:
        if type(seat) is not int or not 0 <= seat < 2:
            raise MalformedAction("bad_seat", f"There is no seat {seat!r}.")
        occupant: Json | None = state["seats"][seat]
        if occupant is None:
            raise IllegalAction("seat_empty", f"Seat {seat} is empty.")
        return occupant

    def seat(self, state: Json, seat: int, player_id: str, options: Json) -> list[Event]:
        if type(seat) is not int or not 0 <= seat < 2:
            raise MalformedAction("bad_seat", f"There is no seat {seat!r}.")
        if options:
            raise MalformedAction("malformed_message", "Tic-tac-toe has no sit options.")
        if state["over"]:
            raise IllegalAction("game_over", "This match is over.")
        if state["seats"][seat] is not None:
            raise IllegalAction("seat_taken", f"Seat {seat} is taken.")
        if any(s and s["id"] == player_id for s in state["seats"]):
            raise IllegalAction("already_seated", "You already have a seat.")
        # A returning player keeps their points.
        points = state.setdefault("points", {}).get(player_id, 0)
        state["points"][player_id] = points
        state["seats"][seat] = {"id": player_id, "away": False}
        return [SeatTaken(seat, player_id)]

    def unseat(self, state: Json, seat: int) -> list[Event]:
        occupant = self._occupant(state, seat)
        events: list[Event] = []
        game = state["round"]
        if game is not None and seat in game["seats"]:
            events += self._end(state, winner=1 - game["seats"].index(seat))
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

    def can_start(self, state: Json) -> bool:
        return (not state["over"] and state["round"] is None
                and all(s is not None and not s["away"] for s in state["seats"]))

    def draw_chance(self, state: Json, rng: random.Random) -> Json:
        return {"first": rng.randrange(2)}

    def start_round(self, state: Json, chance: Json) -> list[Event]:
        if not self.can_start(state):
            raise IllegalAction("not_enough_players", "Two players are needed.")
        first = chance.get("first") if isinstance(chance, dict) else None
        if first not in (0, 1):
            raise MalformedAction("bad_chance", 'Expected {"first": 0 or 1}.')
        state["number"] += 1
        seats = [first, 1 - first]
        state["round"] = {"seats": seats, "board": [None] * 9, "turn": 0}
        return [RoundStarted(state["number"], tuple(seats),
                             tuple(state["seats"][s]["id"] for s in seats))]

    def _actor(self, game: Json) -> int:
        return int(game["seats"][game["turn"] % 2])

    def status(self, state: Json) -> Status:
        game = state["round"]
        if game is None:
            return Status(over=state["over"])
        return Status(round=state["number"], to_act=(self._actor(game),),
                      decision=f"{state['number']}:{game['turn']}")

    def legal_moves(self, state: Json, seat: int) -> list[Json]:
        game = state["round"]
        if game is None or seat != self._actor(game):
            return []
        free = [i for i, mark in enumerate(game["board"]) if mark is None]
        return [move("mark", "Mark a square", square=options(free))]

    def apply(self, state: Json, seat: int, action: Json) -> list[Event]:
        game = state["round"]
        if game is None or seat != self._actor(game):
            raise IllegalAction("not_your_turn", "It is not your turn.")
        check_move(self.legal_moves(state, seat), action)
        square = action["square"]
        me = game["seats"].index(seat)
        game["board"][square] = me
        game["turn"] += 1
        events: list[Event] = [Marked(seat, square)]
        if any(all(game["board"][i] == me for i in line) for line in LINES):
            events += self._end(state, winner=me)
        elif all(mark is not None for mark in game["board"]):
            events += self._end(state, winner=None)
        return events

    def _end(self, state: Json, winner: int | None) -> list[Event]:
        game = state["round"]
        seats = game["seats"]
        results = []
        for i, seat in enumerate(seats):
            player_id = state["seats"][seat]["id"]
            score = 1 if winner is None else (2 if i == winner else 0)
            state["points"][player_id] = state["points"].get(player_id, 0) + score
            results.append(SeatResult(seat=seat, player_id=player_id, score=score,
                                      detail={"won": i == winner}))
        state["last"] = {"seats": seats, "board": game["board"]}
        state["round"] = None
        events: list[Event] = [RoundEnded(tuple(results))]
        if state["number"] >= state["rounds"]:
            state["over"] = True
            ranked = sorted(((state["points"][s["id"]], i, s["id"])
                             for i, s in enumerate(state["seats"]) if s is not None),
                            reverse=True)
            events.append(GameEnded(tuple(
                Standing(seat=i, player_id=pid, rank=1 + sum(p > points for p, _, _ in ranked),
                         score=points) for points, i, pid in ranked)))
        return events

    def timeout(self, state: Json) -> list[Event]:
        game = state["round"]
        if game is None:
            raise IllegalAction("nobody_to_act", "Nobody is to act.")
        seat = self._actor(game)
        square = game["board"].index(None)
        return [TimedOut(seat, f"mark {square}"),
                *self.apply(state, seat, {"kind": "mark", "square": square})]

    def view(self, state: Json, viewer: Viewer) -> Json:
        return {"number": state["number"], "rounds": state["rounds"], "over": state["over"],
                "points": dict(state.get("points", {})), "round": state["round"]}

    def round_record(self, state: Json) -> Json:
        return dict(state.get("last") or {})

    def export_round(self, record: Json, viewer: Viewer, meta: Json) -> str:
        return json.dumps({"names": meta.get("names"), **record})

    def dump(self, state: Json) -> Json:
        return json.loads(json.dumps(state))

    def load(self, data: Json) -> Json:
        return json.loads(json.dumps(data))
