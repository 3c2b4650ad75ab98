"""Three tiny games behind the game contract, to run botkit's generic match runner on.

* :class:`Throw` (``toy_throw``) — rock-paper-scissors: a score game with a
  simultaneous decision and no chance; +1 / -1 / 0 per round.
* :class:`Race` (``toy_race``) — a game that ends: in turn each player advances 1–3
  steps (a ``number``); a step count equal to the round's trap (the chance) scores
  nothing; the first to 10 points wins.
* :class:`Coin` (``toy_coin``) — an economy game with a buy-in: both ante 1 and
  call the coin in turn (a ``choice``); the right calls share the antes.

They use only :mod:`engine.game` and keep their state in plain dicts.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from engine.errors import IllegalAction, MalformedAction
from engine.game import (
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
    check_move,
    move,
    number,
    options,
)
from engine.registry import GAMES, register


@dataclass(frozen=True, slots=True)
class Moved(Event):
    """A player's move; private (``audience``) until the round ends."""

    player: int
    move: str

    @property
    def audience(self) -> int | None:
        return self.player


class _Toy(Game):
    """Seats, settings and storage shared by the toys: state is a plain dict."""

    def settings_schema(self) -> Json:
        return {"type": "object", "properties": {
            "seats": {"type": "integer", "minimum": self.info.min_players,
                      "maximum": self.info.max_players, "default": 2}}}

    def validate_settings(self, data: Json) -> Json:
        seats = data.get("seats", 2)
        if type(seats) is not int or not self.info.min_players <= seats <= self.info.max_players:
            raise MalformedAction("bad_settings", "Bad number of seats.")
        return {"seats": seats}

    def settings_json(self, settings: Json) -> Json:
        return dict(settings)

    def listing(self, settings: Json) -> Listing:
        return Listing(self.info.title, settings["seats"])

    def create(self, settings: Json) -> Json:
        return {"settings": dict(settings), "seats": [None] * settings["seats"], "round": 0,
                "running": False, "moves": {}, "chance": {}, "turn": 0, "over": False}

    def seats(self, state: Json) -> list[SeatInfo | None]:
        return [None if s is None else SeatInfo(s["id"], away=s["away"], chips=s["chips"])
                for s in state["seats"]]

    def seat(self, state: Json, seat: int, player_id: str, options: Json) -> list[Event]:
        if state["seats"][seat] is not None:
            raise IllegalAction("seat_taken", "Taken.")
        state["seats"][seat] = {"id": player_id, "away": False,
                                "chips": int(options.get("buy_in", 0)), "points": 0}
        return [SeatTaken(seat, player_id)]

    def unseat(self, state: Json, seat: int) -> list[Event]:
        if state["running"]:
            raise IllegalAction("in_round", "Not during a round.")
        occupant = state["seats"][seat]
        state["seats"][seat] = None
        return [SeatFreed(seat, occupant["id"])]

    def away(self, state: Json, seat: int, reason: str = "request") -> list[Event]:
        state["seats"][seat]["away"] = True
        return []

    def back(self, state: Json, seat: int) -> list[Event]:
        state["seats"][seat]["away"] = False
        return []

    def can_start(self, state: Json) -> bool:
        return (not state["running"] and not state["over"]
                and all(s is not None and not s["away"] for s in state["seats"]))

    def draw_chance(self, state: Json, rng: random.Random) -> Json:
        return {}

    def start_round(self, state: Json, chance: Json) -> list[Event]:
        if not self.can_start(state):
            raise IllegalAction("cannot_start", "Cannot start.")
        state["round"] += 1
        state["running"], state["moves"], state["chance"] = True, {}, dict(chance)
        state["turn"] = 0
        seats = tuple(range(len(state["seats"])))
        return [RoundStarted(state["round"], seats,
                             tuple(state["seats"][i]["id"] for i in seats))]

    def to_act_now(self, state: Json) -> tuple[int, ...]:
        """Sequential by default: seat ``turn``."""
        return (state["turn"],)

    def status(self, state: Json) -> Status:
        if not state["running"]:
            return Status(over=state["over"])
        to_act = self.to_act_now(state)
        return Status(round=state["round"], to_act=to_act,
                      decision=f"{state['round']}:{len(state['moves'])}")

    def legal_moves(self, state: Json, seat: int) -> list[Json]:
        if not state["running"] or seat not in self.to_act_now(state):
            return []
        return self.moves_for(state, seat)

    def moves_for(self, state: Json, seat: int) -> list[Json]:
        raise NotImplementedError

    def default(self, state: Json, seat: int) -> Json:
        raise NotImplementedError

    def apply(self, state: Json, seat: int, action: Json) -> list[Event]:
        check_move(self.legal_moves(state, seat), action)
        state["moves"][str(seat)] = action
        events: list[Event] = [Moved(seat, str(action))]
        state["turn"] += 1
        if len(state["moves"]) == len(state["seats"]):
            events += self.finish(state)
        return events

    def timeout(self, state: Json) -> list[Event]:
        events: list[Event] = []
        for seat in self.status(state).to_act:
            default = self.default(state, seat)
            events.append(TimedOut(seat, default["kind"]))
            events += self.apply(state, seat, default)
        return events

    def finish(self, state: Json) -> list[Event]:
        state["running"] = False
        results = self.results(state)
        return [RoundEnded(tuple(results))]

    def results(self, state: Json) -> list[SeatResult]:
        raise NotImplementedError

    def view(self, state: Json, viewer: Viewer) -> Json:
        moves = {seat: (m if viewer.can_see(int(seat)) else "hidden")
                 for seat, m in state["moves"].items()}
        return {"round": state["round"], "running": state["running"], "moves": moves,
                "seats": [None if s is None else {"id": s["id"], "chips": s["chips"],
                                                  "points": s["points"]}
                          for s in state["seats"]]}

    def dump(self, state: Json) -> Json:
        return state

    def load(self, data: Json) -> Json:
        return data


class Throw(_Toy):
    info = GameInfo(key="toy_throw", title="Throw", min_players=2, max_players=2,
                    economy=False, ends=False, house_bots=("random",))

    SIGNS = ("rock", "paper", "scissors")

    def to_act_now(self, state: Json) -> tuple[int, ...]:
        return tuple(i for i in range(2) if str(i) not in state["moves"])

    def moves_for(self, state: Json, seat: int) -> list[Json]:
        return [move("throw", sign=options(self.SIGNS))]

    def default(self, state: Json, seat: int) -> Json:
        return {"kind": "throw", "sign": "rock"}

    def results(self, state: Json) -> list[SeatResult]:
        a, b = (self.SIGNS.index(state["moves"][str(i)]["sign"]) for i in range(2))
        score = 0 if a == b else (1 if (a - b) % 3 == 1 else -1)
        return [SeatResult(0, state["seats"][0]["id"], score=score),
                SeatResult(1, state["seats"][1]["id"], score=-score)]


class Race(_Toy):
    info = GameInfo(key="toy_race", title="Race", min_players=2, max_players=4,
                    economy=False, ends=True, round_name="leg")

    GOAL = 10

    def draw_chance(self, state: Json, rng: random.Random) -> Json:
        return {"trap": rng.randint(1, 3)}

    def moves_for(self, state: Json, seat: int) -> list[Json]:
        return [move("run", steps=number(1, 3))]

    def default(self, state: Json, seat: int) -> Json:
        return {"kind": "run", "steps": 1}

    def results(self, state: Json) -> list[SeatResult]:
        out = []
        for seat, occupant in enumerate(state["seats"]):
            steps = state["moves"][str(seat)]["steps"]
            points = 0 if steps == state["chance"]["trap"] else steps
            occupant["points"] += points
            out.append(SeatResult(seat, occupant["id"], score=points))
        return out

    def finish(self, state: Json) -> list[Event]:
        events = super().finish(state)
        seats = state["seats"]
        if max(s["points"] for s in seats) >= self.GOAL:
            state["over"] = True
            order = sorted(range(len(seats)), key=lambda i: -seats[i]["points"])
            events.append(GameEnded(tuple(
                Standing(i, seats[i]["id"], rank, seats[i]["points"])
                for rank, i in enumerate(order, 1))))
        return events


class Coin(_Toy):
    info = GameInfo(key="toy_coin", title="Coin", min_players=2, max_players=3,
                    economy=True, ends=False,
                    seat_options={"type": "object", "required": ["buy_in"],
                                  "properties": {"buy_in": {"type": "integer", "minimum": 1}}})

    def can_start(self, state: Json) -> bool:
        return super().can_start(state) and all(s["chips"] > 0 for s in state["seats"])

    def draw_chance(self, state: Json, rng: random.Random) -> Json:
        return {"coin": rng.choice(["heads", "tails"])}

    def start_round(self, state: Json, chance: Json) -> list[Event]:
        events = super().start_round(state, chance)
        for occupant in state["seats"]:
            occupant["chips"] -= 1
        return events

    def moves_for(self, state: Json, seat: int) -> list[Json]:
        return [move("call", side=options(["heads", "tails"])), move("pass")]

    def default(self, state: Json, seat: int) -> Json:
        return {"kind": "pass"}

    def results(self, state: Json) -> list[SeatResult]:
        seats = state["seats"]
        right = [i for i in range(len(seats))
                 if state["moves"][str(i)].get("side") == state["chance"]["coin"]]
        winners = right if right and len(right) < len(seats) else list(range(len(seats)))
        pot = len(seats)
        share, rest = divmod(pot, len(winners))
        out = []
        for i, occupant in enumerate(seats):
            won = share + (rest if i == winners[0] else 0) if i in winners else 0
            occupant["chips"] += won
            out.append(SeatResult(i, occupant["id"], net=won - 1))
        return out


TOYS: tuple[Game, ...] = (Throw(), Race(), Coin())


@contextmanager
def registered() -> Iterator[None]:
    """The toys in :data:`engine.registry.GAMES` for the duration."""
    for game in TOYS:
        register(game)
    try:
        yield
    finally:
        for game in TOYS:
            GAMES.pop(game.info.key, None)


def state_of(game: Game, players: int = 2, buy_in: int = 0) -> Any:
    """A table of ``game`` with ``players`` seated."""
    state = game.create(game.validate_settings({"seats": players}))
    for seat in range(players):
        game.seat(state, seat, f"p{seat}", {"buy_in": buy_in} if buy_in else {})
    return state
