"""The contract's promise on errors (engine/game.py, :class:`~engine.game.Game`): a call
that fails raises MalformedAction / IllegalAction with a stable ``code`` and changes
nothing. The runtime relies on it: it keeps the state of a refused call as it is
(``TableRun.engine``), with no rollback.

Every registered game (the poker variants, the dice game, Tuppi, and the test-only
Kuhn poker and tic-tac-toe of tests/games) and the toy games of botkit's tests
(tests/botkit/toy_games.py) is played at random, offline, through the contract only:
seats taken with the game's default options, rounds started from ``draw_chance``
with a seeded ``random.Random``, random legal moves from the generic descriptors,
now and then a timeout, a player stepping away (or sitting out) and coming back, a
player leaving and a newcomer sitting down. Before each step a sample of bad calls is
tried, each on a copy of the state (``game.load(game.dump(state))``):

* ``apply`` with malformed moves (not a dict, no or an unknown kind, a missing or an
  extra parameter, numbers that are huge, negative, floats, strings or booleans, a
  choice that is not an option, a selection that is not a list, repeats an item or
  holds too many), amounts just outside a ``number``'s bounds, and well-formed moves
  for a seat that is not to act (or an empty seat, or between rounds);
* each of ``info.seat_commands`` with bad options and at bad moments (``sit_in`` when
  playing, ``sit_out`` twice...), and commands that do not exist;
* ``away`` and ``back`` twice, ``unseat`` twice, ``seat`` on a taken seat, by a player
  who has a seat already, or with bad options, ``unseat``/``away``/``back`` of an empty
  seat, ``timeout`` with nobody to act, ``start_round`` during a round or with a bad
  chance.

A call that raises :class:`~engine.errors.EngineError` must leave ``game.dump`` of its
copy exactly as it was, and carry a ``snake_case`` code; a call that does not raise
may be legal (its copy is dropped); any other exception fails the test.
"""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from engine.errors import EngineError
from engine.game import MAX_CHIPS, Game, Json, random_move
from engine.registry import GAMES
from tests.botkit.toy_games import Coin, Race, Throw

SETTINGS: dict[str, Json] = {"tuppi": {"round_limit": 15}}
"""Table settings per game (default: the game's defaults), as in
tests/platform/test_contract.py: Tuppi's round limit ends every game."""

ROUNDS, MIN_STEPS, MAX_STEPS, MIN_ROUNDS = 30, 150, 300, 2
"""A game is played for ``ROUNDS`` rounds and at least ``MIN_STEPS`` decisions (each
with its probes), at most ``MAX_STEPS`` decisions (but ``MIN_ROUNDS`` rounds): about
30 poker hands (24 of triple draw), 7 deals of Tuppi, 6 games of dice, 10 of
tic-tac-toe; some 1,500 to 2,500 refused calls per game."""

PROBES_PER_STEP = 8
CODE = re.compile(r"[a-z][a-z0-9_]*")

Call = tuple[str, tuple[Any, ...]]
"""A game method's name and its arguments after the state: ``("away", (2,))``."""


class _Copies(Game):
    """A toy's ``dump`` and ``load`` return the very dict they are given (the runtime
    stores a dump as JSON, a copy): these copy it, so that a probe never touches the
    state it was made from."""

    def dump(self, state: Any) -> Json:
        return copy.deepcopy(super().dump(state))

    def load(self, data: Json) -> Any:
        return super().load(copy.deepcopy(data))


class _Throw(_Copies, Throw):
    pass


class _Race(_Copies, Race):
    pass


class _Coin(_Copies, Coin):
    def default_seat_options(self, state: Any) -> Json:
        return {"buy_in": 20}


TOYS: dict[str, Game] = {game.info.key: game for game in (_Throw(), _Race(), _Coin())}
"""The toys are test doubles that do not guard their seats (``unseat`` of an empty seat
is a TypeError): they get every probe but those on empty seats and junk seat options."""


def _game(key: str) -> Game:
    return TOYS[key] if key in TOYS else GAMES[key]


# ------------------------------------------------------------------ bad values

NOT_MOVES: tuple[Any, ...] = (
    None, "fold", 7, 1.5, [], ["fold"], {}, {"kind": None}, {"kind": 3}, {"kind": ""},
    {"kind": ["fold"]}, {"kind": "no_such_move"}, {"kind": "FOLD"}, {"amount": 5},
    {"kind": "fold", "kind2": "call"},
)
"""Not a move of any game."""

BAD_NUMBERS: tuple[Any, ...] = (
    -1, -(MAX_CHIPS + 1), MAX_CHIPS + 1, 10**30, -(10**30), 0.5, float("nan"),
    float("inf"), True, False, None, "5", [5], {"amount": 5},
)
"""Never a valid amount (0 and small counts may be: they are tried at the bounds)."""

BAD_OPTIONS: tuple[Any, ...] = (None, 10**30, -1, 1.5, True, "no_such_option", [], {})

BAD_COMMAND_OPTIONS: tuple[Json, ...] = (
    {"amount": -1}, {"amount": 0}, {"amount": MAX_CHIPS + 1}, {"amount": 10**30},
    {"amount": "50"}, {"amount": 1.5}, {"amount": None}, {"amount": True}, {"amount": [50]},
    {"bogus": 1},
)

UNKNOWN_COMMANDS = ("no_such_command", "", "SIT_OUT", "apply", "seat", "__init__", "dump")


def _bad_seat_options(defaults: Json) -> list[Json]:
    """Options nobody may sit down with (a game without options refuses any)."""
    out: list[Json] = [{**defaults, "bogus": 1}, {**defaults, "wait_for_bb": "yes"}]
    if "buy_in" in defaults:
        out += [{k: v for k, v in defaults.items() if k != "buy_in"}]
        out += [{**defaults, "buy_in": value} for value in (
            0, -5, MAX_CHIPS + 1, 10**30, "100", 1.5, None, True, [100])]
    return out


def _bad_arguments(spec: Json, rng: random.Random) -> Iterator[Json]:
    """Moves of ``spec``'s kind that break it: a parameter missing, one too many, or a
    parameter's value out of bounds or of the wrong type."""
    good = random_move([spec], rng)
    params: Json = spec.get("params", {})
    yield {**good, "bogus": 1}
    yield {**good, "kind": spec["kind"] + "_"}
    for name, param in params.items():
        yield {k: v for k, v in good.items() if k != name}
        kind = param["type"]
        if kind == "number":
            low, high = param["min"], param["max"]
            for value in (low - 1, high + 1, *BAD_NUMBERS, float(good[name]), str(good[name])):
                yield {**good, name: value}
        elif kind == "choice":
            for value in BAD_OPTIONS:
                if value not in param["options"]:
                    yield {**good, name: value}
            yield {**good, name: list(param["options"])}
        elif kind == "subset":
            items = list(param["items"])
            for value in (None, "x", 3, {}, ["??"], [None], [[]]):
                yield {**good, name: value}
            if items:
                yield {**good, name: [items[0], items[0]]}  # the same item twice
                yield {**good, name: [*items, items[0]]}
            if param["max"] < len(items):
                yield {**good, name: rng.sample(items, param["max"] + 1)}
            if param["min"] > 0:
                yield {**good, name: rng.sample(items, param["min"] - 1)}


# ------------------------------------------------------------------ the checker


def _diff(before: Any, after: Any, path: str = "") -> Iterator[str]:
    """Where two dumps differ, as ``path: old -> new`` lines."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after), key=str):
            where = f"{path}/{key}"
            if key not in after:
                yield f"{where}: removed (was {before[key]!r})"
            elif key not in before:
                yield f"{where}: added {after[key]!r}"
            else:
                yield from _diff(before[key], after[key], where)
    elif (isinstance(before, list) and isinstance(after, list)
          and len(before) == len(after)):
        for index, (old, new) in enumerate(zip(before, after, strict=True)):
            yield from _diff(old, new, f"{path}[{index}]")
    elif before != after or type(before) is not type(after):
        yield f"{path or '/'}: {before!r} -> {after!r}"


@dataclass
class Checker:
    """Runs bad calls on copies of states of one game and keeps what went wrong."""

    game: Game
    key: str
    violations: list[str] = field(default_factory=list)
    raised: dict[str, int] = field(default_factory=dict)  # per method: refused calls
    passed: dict[str, int] = field(default_factory=dict)  # per method: calls that worked
    rounds: int = 0  # rounds started
    tables: int = 0  # fresh tables (a game that ends: one per game played)

    def call(self, state: Any, name: str, args: tuple[Any, ...], where: str,
             before: Json | None = None) -> bool:
        """``name(state, *args)``; True if it worked, False if it raised EngineError
        (then ``game.dump(state)`` must still be ``before``: by default a copy of the
        dump of ``state`` as it is now)."""
        if before is None:  # a dump that shares nothing with ``state``
            before = self.game.dump(self.game.load(self.game.dump(state)))
        try:
            getattr(self.game, name)(state, *args)
        except EngineError as error:
            self._refused(name, args, where, error, before, self.game.dump(state))
            return False
        except Exception as error:
            raise AssertionError(f"{self.key} {where}: {name}{args!r} raised "
                                 f"{type(error).__name__}: {error}") from error
        self.passed[name] = self.passed.get(name, 0) + 1
        return True

    def probe(self, state: Any, calls: Sequence[Call], where: str, before: Json) -> None:
        """Make ``calls`` one after the other, each on a copy of the state the one before
        left (``state`` itself, whose dump is ``before``, is never touched), until one
        raises: that one must have changed nothing."""
        for index, (name, args) in enumerate(calls):
            if index:  # the dump of the state the copy is made from, which the call
                before = self.game.dump(state)  # cannot reach (a dump may share lists)
            copied = self.game.load(self.game.dump(state))
            after = f"{where}, after {list(calls[:index])!r}" if index else where
            if not self.call(copied, name, args, after, before):
                return
            state = copied

    def _refused(self, name: str, args: tuple[Any, ...], where: str, error: EngineError,
                 before: Json, after: Json) -> None:
        self.raised[name] = self.raised.get(name, 0) + 1
        code = getattr(error, "code", None)
        if not isinstance(code, str) or not CODE.fullmatch(code):
            self.violations.append(f"{where}: {name}{args!r} raised "
                                   f"{type(error).__name__} with code {code!r}")
        if after != before:
            changes = list(_diff(before, after)) or ["(equal paths, unequal dumps)"]
            self.violations.append(
                f"{where}: {name}{args!r} raised {type(error).__name__}({code!r}: {error}) "
                f"but changed the state:\n    " + "\n    ".join(changes[:12]))


# ------------------------------------------------------------------ the probes


def _probes(game: Game, state: Any, rng: random.Random, guarded: bool,
            seen: list[Json], players: Sequence[str]) -> tuple[list[Call], list[list[Call]]]:
    """The bad calls worth trying on ``state``: moves (``apply``), and the other calls
    (some are sequences ending in a bad call, e.g. ``away`` twice)."""
    infos = game.seats(state)
    occupied = [i for i, s in enumerate(infos) if s is not None]
    empty = [i for i, s in enumerate(infos) if s is None]
    to_act = game.to_act(state)
    idle = [i for i in occupied if i not in to_act]
    moves: list[Call] = []
    out: list[list[Call]] = []
    if to_act:
        seat = rng.choice(to_act)
        moves += [("apply", (seat, bad)) for bad in NOT_MOVES]
        legal = game.legal_moves(state, seat)
        for spec in legal:
            moves += [("apply", (seat, bad)) for bad in _bad_arguments(spec, rng)]
        if legal:  # a well-formed move, for a seat that is not to act
            good = random_move(legal, rng)
            seen[:] = [*seen[-30:], good]
            moves += [("apply", (other, good)) for other in idle + (empty if guarded else [])]
        out.append([("start_round", (game.draw_chance(state, random.Random(1)),))])
    else:  # between rounds (or the game is over): no move is legal for anybody
        moves += [("apply", (other, move)) for other in occupied
                  for move in rng.sample(seen, min(4, len(seen)))]
        moves += [("apply", (other, bad)) for other in occupied for bad in NOT_MOVES[:4]]
        out.append([("timeout", ())])
    out += [[("start_round", (chance,))] for chance in (
        {}, {"deck": "XxYy"}, {"deck": 5}, {"dice": "6"}, {"cards": [1]}, {"first": 7})]
    defaults = game.default_seat_options(state)
    for seat in occupied:
        info = infos[seat]
        assert info is not None
        out += [[("away", (seat,)), ("away", (seat,))], [("back", (seat,)), ("back", (seat,))],
                [("away", (seat,)), ("back", (seat,)), ("back", (seat,))],
                [("seat", (seat, "newcomer", defaults))]]
        if guarded:  # (the toys do not guard an empty seat, which a leaver's may be)
            out.append([("unseat", (seat,)), ("unseat", (seat,))])
        if empty:
            out.append([("seat", (rng.choice(empty), info.player_id, defaults))])
        for name in game.info.seat_commands:
            out.append([("seat_command", (seat, name, {})), ("seat_command", (seat, name, {}))])
            out += [[("seat_command", (seat, name, options))] for options in BAD_COMMAND_OPTIONS]
            out += [[("seat_command", (seat, first, {})), ("seat_command", (seat, name, {}))]
                    for first in game.info.seat_commands if first != name]
        out += [[("seat_command", (seat, name, {}))] for name in UNKNOWN_COMMANDS]
    if guarded:
        present = {s.player_id for s in infos if s is not None}
        newcomer = next(p for p in players if p not in present)
        for seat in empty:
            out += [[("unseat", (seat,))], [("away", (seat,))], [("back", (seat,))]]
            out += [[("seat_command", (seat, name, {}))] for name in game.info.seat_commands]
            out += [[("seat", (seat, newcomer, options))]
                    for options in _bad_seat_options(defaults)]
    return moves, out


# ------------------------------------------------------------------ random play


def _table(game: Game, key: str) -> Any:
    """A fresh table: the first seats taken (at least as many as a round needs)."""
    settings = dict(SETTINGS.get(key, {}))
    state = game.create(game.validate_settings(settings))
    wanted = max(game.info.min_players, min(3, game.info.max_players))
    options = game.default_seat_options(state)
    for seat in range(len(game.seats(state))):
        if seat >= wanted and game.can_start(state):
            break
        game.seat(state, seat, f"p{seat}", options)
    return state


def _restore(checker: Checker, state: Any, players: Sequence[str]) -> None:
    """Between rounds, when no round can start: everyone back, chips for the busted,
    newcomers in the empty seats."""
    game = checker.game
    for seat, info in enumerate(game.seats(state)):
        if info is None:
            present = {s.player_id for s in game.seats(state) if s is not None}
            newcomer = next(p for p in players if p not in present)
            checker.call(state, "seat", (seat, newcomer, game.default_seat_options(state)),
                         "restoring")
            continue
        game.refill(state, seat)
        now = game.seats(state)[seat]
        if (game.info.economy and now is not None and not now.chips  # busted, no refill
                and checker.call(state, "unseat", (seat,), "restoring")):
            _restore(checker, state, players)  # a newcomer takes the seat
            return
        if info.away:
            if "sit_in" in game.info.seat_commands:
                checker.call(state, "seat_command", (seat, "sit_in", {}), "restoring")
            else:
                checker.call(state, "back", (seat,), "restoring")


def _stir(checker: Checker, state: Any, rng: random.Random, step: int,
          returns: dict[int, int], players: Sequence[str]) -> None:
    """Now and then, on the real state: a player steps away (or sits out) and comes back
    a few steps later, or leaves (a newcomer takes the seat later)."""
    game = checker.game
    infos = game.seats(state)
    for seat, due in list(returns.items()):
        if step >= due:
            del returns[seat]
            info = infos[seat]
            if info is None:
                present = {s.player_id for s in infos if s is not None}
                newcomer = rng.choice([p for p in players if p not in present])
                checker.call(state, "seat", (seat, newcomer, game.default_seat_options(state)),
                             "coming back")
            elif info.away:
                game.refill(state, seat)
                if "sit_in" in game.info.seat_commands and rng.random() < 0.5:
                    checker.call(state, "seat_command", (seat, "sit_in", {}), "coming back")
                else:
                    checker.call(state, "back", (seat,), "coming back")
    occupied = [i for i, s in enumerate(infos) if s is not None and i not in returns]
    roll = rng.random()
    if not occupied or roll > 0.08:
        return
    seat = rng.choice(occupied)
    if roll < 0.01:
        if checker.call(state, "unseat", (seat,), "leaving"):
            returns[seat] = step + rng.randint(3, 12)
    elif roll < 0.04 and "sit_out" in game.info.seat_commands:
        if checker.call(state, "seat_command", (seat, "sit_out", {}), "sitting out"):
            returns[seat] = step + rng.randint(1, 12)
    elif checker.call(state, "away", (seat,), "stepping away"):
        returns[seat] = step + rng.randint(1, 12)


def _play(key: str) -> Checker:
    game = _game(key)
    checker = Checker(game, key)
    guarded = key not in TOYS
    rng = random.Random(f"contract-errors-{key}")
    players = [f"p{i}" for i in range(24)]
    seen: list[Json] = []
    returns: dict[int, int] = {}
    state = _table(game, key)
    checker.tables = 1
    step = stuck = 0
    while (checker.rounds < MIN_ROUNDS
           or ((step < MIN_STEPS or checker.rounds < ROUNDS) and step < MAX_STEPS)):
        before = game.dump(state)
        assert game.dump(game.load(game.dump(state))) == before, "dump/load is not exact"
        moves, others = _probes(game, state, rng, guarded, seen, players)
        where = f"step {step} (round {checker.rounds})"
        for bad in rng.sample(moves, min(PROBES_PER_STEP // 2, len(moves))):
            checker.probe(state, [bad], where, before)
        for calls in rng.sample(others, min(PROBES_PER_STEP // 2, len(others))):
            checker.probe(state, calls, where, before)
        assert game.dump(state) == before, f"{key}: a probe on a copy changed the state"
        _stir(checker, state, rng, step, returns, players)
        to_act = game.to_act(state)
        if to_act:
            step += 1
            seat = rng.choice(to_act)
            if rng.random() < 0.06:
                call: Call = ("timeout", ())
            else:
                legal = game.legal_moves(state, seat)
                assert legal, f"{key}: seat {seat} is to act but has no legal move"
                call = ("apply", (seat, random_move(legal, rng)))
            assert checker.call(state, *call, f"step {step}"), (
                f"{key} refused {call!r}: {checker.violations}")
            continue
        status = game.status(state)
        if status.over:
            state, returns = _table(game, key), {}
            checker.tables += 1
            continue
        if not game.can_start(state):
            _restore(checker, state, players)
        if game.can_start(state):
            stuck = 0
            game.start_round(state, game.draw_chance(state, rng))
            checker.rounds += 1
        else:
            stuck += 1
            assert stuck < 50, f"{key}: no round can start: {game.seats(state)}"
            step += 1
    return checker


@pytest.mark.parametrize("key", [*sorted(GAMES), *sorted(TOYS)])
def test_a_refused_call_changes_nothing(key: str) -> None:
    checker = _play(key)
    assert not checker.violations, (
        f"{len(checker.violations)} refused call(s) of {key} broke the contract:\n"
        + "\n".join(checker.violations[:8]))
    # The probes were really refused (the test is not vacuous).
    assert checker.raised.get("apply", 0) > 100, checker.raised
    assert checker.raised.get("seat", 0) > 10, checker.raised
    if checker.game.info.seat_commands:
        assert checker.raised.get("seat_command", 0) > 10, checker.raised


class _Careless(_Throw):
    """Breaks the contract: keeps a move before checking it."""

    def apply(self, state: Any, seat: int, action: Json) -> list[Any]:
        state["moves"]["careless"] = repr(action)
        return super().apply(state, seat, action)


def test_the_check_sees_a_change() -> None:
    game = _Careless()
    checker = Checker(game, "careless")
    state = _table(game, "toy_throw")
    game.start_round(state, {})
    checker.probe(state, [("apply", (0, {"kind": "dance"}))], "here", game.dump(state))
    assert checker.raised == {"apply": 1}
    assert checker.violations == [
        "here: apply(0, {'kind': 'dance'}) raised IllegalAction('illegal_action': "
        "'dance' is not a legal move now.) but changed the state:\n"
        "    /moves/careless: added \"{'kind': 'dance'}\""]
