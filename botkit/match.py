"""Batch matches: bots play each other directly on a game of the engine (no sockets).

>>> from botkit.house import make_bot
>>> bots = {"rule_based": make_bot("rule_based", random.Random(1)),
...         "random": make_bot("random", random.Random(2))}
>>> result = play_match(bots, MatchSettings(structure="NL"), hands=200, seed=1, duplicate=True)
>>> result.hands, result.deals, sum(r.net for r in result.bots.values())
(200, 100, 0)

The runner drives any registered game (``game=``, default ``"holdem"``) through
the game contract of :mod:`engine.game` only: ``create``/``seat`` once, then per
round ``prepare_round`` (who sits where, the chips, the dealer), ``draw_chance``
(one ``random.Random(seed)`` for the whole match), ``start_round``, and while
``to_act`` names somebody, ``act(view)`` (views from ``view_maker``) → ``apply``
(an illegal answer is counted and replaced by the game's ``timeout`` default);
each seat's result comes from the round's :class:`~engine.game.RoundEnded`, the
record from ``round_summary`` and the files from ``export_round``:

* **economy** games (poker): chips won or lost per hand; every hand starts from
  the same stacks (default 200 BB) unless ``reset_stacks=False``;
* **score** games: the round's ``score`` (``net`` when it has none);
* games that **end** (``info.ends``): a "hand" is a whole game, from a fresh table
  until ``status().over``; its result is the sum of its rounds'.

In **duplicate** mode each deal (the chance drawn for it: a deck; for games that
end, the chance of each of the game's rounds) is played once per seat rotation, so
every bot holds every seat's cards with the button in the same place; the bots'
memories are reset (``new_match()``) before every series of deals.  ``hands``
counts hands played in total, so a duplicate match of ``hands`` has ``hands //
players`` deals.  Hold'em through this runner gives exactly the results of the
poker-only runner it replaced (same decks from the same seed; tested).

Command line (``python -m botkit.match --help``)::

    python -m botkit.match --bots rule_based,random --hands 20000 --seed 1 --duplicate
    python -m botkit.match --game GAME --settings '{"...": 1}' --bots uniform,uniform
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from botkit.aivat import MatchTracker, ValueModel, split_policy, supported
from botkit.bot import BotLike, Json, overrides
from botkit.results import BotResult, MatchResult, estimates, per_hand_ci
from botkit.stats import StatsAccumulator
from engine.errors import EngineError
from engine.game import Event, Game, RoundEnded, RoundStarted, Viewer, ViewFn
from engine.registry import get_game

__all__ = ["MatchSettings", "learn_value_model", "main", "play_match"]


@dataclass(frozen=True, slots=True)
class MatchSettings:
    """Hold'em table settings of a match; ``seats`` defaults to the number of bots,
    ``stack`` to 200 BB. ``reset_stacks`` applies to every economy game."""

    structure: str = "NL"
    small_blind: int = 1
    big_blind: int = 2
    ante: int = 0
    seats: int | None = None
    stack: int | None = None
    reset_stacks: bool = True

    def resolved(self, n_bots: int) -> MatchSettings:
        """Defaults filled in."""
        return MatchSettings(self.structure, self.small_blind, self.big_blind, self.ante,
                             self.seats or n_bots, self.stack or 200 * self.big_blind,
                             self.reset_stacks)

    def table_settings(self) -> Json:
        """The Hold'em table settings (JSON) of these resolved match settings."""
        assert self.seats is not None and self.stack is not None
        return {"structure": self.structure, "small_blind": self.small_blind,
                "big_blind": self.big_blind, "ante": self.ante, "seats": self.seats,
                "min_buy_in": min(self.stack, 20 * self.big_blind), "max_buy_in": self.stack}


@dataclass(slots=True)
class _Setup:
    """Everything fixed for one match."""

    game: Game
    settings: Any  # the game's validated settings
    summary: Json  # MatchResult.settings
    seat_options: Json
    unit: str
    factor: int  # results are factor * chips / divisor per hand (poker: 1000 / big blind)
    divisor: int


def _setup(game_key: str, names: list[str], settings: MatchSettings | None,
           game_settings: Json | None, seat_options: Json | None) -> _Setup:
    game = get_game(game_key)
    info = game.info
    n = len(names)
    if game_key == "holdem" or info.client == "holdem":  # every poker variant
        config = (settings or MatchSettings()).resolved(n)
        assert config.seats is not None and config.stack is not None
        if n != config.seats:
            raise ValueError(f"{n} bots for {config.seats} seats: give exactly one bot per "
                             "seat.")
        if not info.min_players <= n <= info.max_players:
            raise ValueError(f"A match needs {info.min_players} to {info.max_players} players.")
        known = game.settings_schema().get("properties", {})
        chosen = {k: v for k, v in config.table_settings().items() if k in known}
        if settings is None and game_key != "holdem":
            del chosen["structure"]  # the variant's own betting (stud: fixed limit)
        table_settings = game.validate_settings({**chosen, **(game_settings or {})})
        return _Setup(game, table_settings, {**asdict(config), "bots": names},
                      {"buy_in": config.stack, **(seat_options or {})}, "mbb/hand", 1000,
                      config.big_blind)
    if not info.min_players <= n <= info.max_players:
        raise ValueError(f"A match of {info.title} needs {info.min_players} to "
                         f"{info.max_players} players.")
    data = dict(game_settings or {})
    if "seats" in game.settings_schema().get("properties", {}):
        data.setdefault("seats", n)
    validated = game.validate_settings(data)
    unit = f"{'chips' if info.economy else 'points'}/{info.round_name if not info.ends else 'game'}"
    reset = settings.reset_stacks if settings is not None else True
    summary = {"game": info.key, **game.settings_json(validated), "reset_stacks": reset,
               "bots": names}
    return _Setup(game, validated, summary, dict(seat_options or {}), unit, 1, 1)


class _Seating:
    """Which bot sits where in one rotation, and the hooks each bot wants called."""

    __slots__ = ("bots", "enders", "names", "observers")

    def __init__(self, at_seat: list[str], bots: Mapping[str, BotLike]) -> None:
        self.names = at_seat
        self.bots = [bots[name] for name in at_seat]
        # Hooks are called in the order of ``bots`` (not of the seats), as always.
        self.observers = [(getattr(bot, "observe"), Viewer.of(at_seat.index(name)))  # noqa: B009
                          for name, bot in bots.items() if overrides(bot, "observe")]
        self.enders = [(getattr(bot, "hand_over"), at_seat.index(name))  # noqa: B009
                       for name, bot in bots.items() if overrides(bot, "hand_over")]


class _Chance:
    """The chance of every deal, drawn in deal order from one ``random.Random(seed)``.

    A round-based game draws one chance per deal; a game that ends draws, per deal,
    a seed for the chance of each of its rounds, so every replay of a deal sees the
    same sequence whatever the number of rounds. With ``keep`` (duplicate mode) a
    block's chance is kept for its replays.
    """

    def __init__(self, game: Game, seed: int, keep: bool) -> None:
        self.game, self.rng, self.keep = game, random.Random(seed), keep
        self.deals: dict[int, Json] = {}
        self.games: dict[int, tuple[random.Random, list[Json]]] = {}

    def deal(self, deal: int, state: Any) -> Json:
        chance = self.deals.get(deal)
        if chance is None:
            chance = self.game.draw_chance(state, self.rng)
            if self.keep:
                self.deals[deal] = chance
        return chance

    def round(self, deal: int, number: int, state: Any) -> Json:
        entry = self.games.get(deal)
        if entry is None:
            if not self.keep:  # plain mode: only the game being played is needed
                self.games.clear()
            entry = self.games[deal] = (random.Random(self.rng.getrandbits(64)), [])
        rng, chances = entry
        while len(chances) <= number:
            chances.append(self.game.draw_chance(state, rng))
        return chances[number]

    def forget(self) -> None:
        """A block of deals is done: its chance is no longer needed."""
        self.deals.clear()
        self.games.clear()


def play_match(
    bots: Mapping[str, BotLike],
    settings: MatchSettings | None = None,
    hands: int = 1000,
    seed: int = 0,
    duplicate: bool = False,
    series_length: int | None = None,
    phh_out: Path | str | None = None,
    record: bool = True,
    *,
    game: str = "holdem",
    game_settings: Json | None = None,
    seat_options: Json | None = None,
    aivat: bool = False,
    aivat_samples: int | None = None,
    aivat_model: ValueModel | None = None,
    aivat_learn: bool = False,
    stats: bool = False,
    progress: Callable[[int, int], Any] | None = None,
    lanes: Sequence[Mapping[str, BotLike]] = (),
    parallel: Callable[[list[Callable[[], None]]], None] | None = None,
) -> MatchResult:
    """Play ``hands`` hands between ``bots`` (name -> bot, one per seat).

    ``game`` is a key of :data:`engine.registry.GAMES`. For Hold'em the table comes
    from ``settings`` (:class:`MatchSettings`; ``game_settings`` may override its
    table settings); any other game's table settings are ``game_settings`` (JSON
    for ``validate_settings``; ``seats`` defaults to the number of bots) and its
    players sit down with ``seat_options``. ``settings.reset_stacks`` applies to
    every economy game.

    ``series_length`` (duplicate mode) splits the deals into several shorter
    series, each replayed for every seat rotation with memories reset before each
    replay.  ``phh_out`` writes every hand to ``<dir>/match.phhs`` (games that
    export PHH; others: each round's export, or its record as JSON, to
    ``<dir>/match.txt``).  With ``record`` the result keeps per hand which bot sat
    where and what happened (Hold'em: the button, the cards, the board).

    ``aivat`` (Texas Hold'em) also corrects every hand with :mod:`botkit.aivat`
    (``aivat_samples`` fixes its Monte-Carlo boards per pre-flop equity): each bot's
    ``estimates`` then have ``aivat`` (and ``aivat_duplicate``) beside ``raw`` and
    ``duplicate``; ``aivat_model`` is a value model learnt from other matches
    (:class:`botkit.aivat.ValueModel`, :func:`learn_value_model`); ``aivat_learn``
    learns one from this match (``result.aivat["model"]``, for use on others).  Bots that
    can report their policy (a boolean ``send_policy`` attribute, e.g. the ``random``
    and ``rule_based`` house bots) are asked to; any bot's answer may carry
    ``"policy"`` (checked, then used; a malformed one is dropped and counted in
    ``policy_errors``).

    ``stats`` (poker) also counts every bot's tracker statistics over all the hands
    (:class:`botkit.stats.StatsAccumulator` fed the omniscient events, as the
    server's statistics are): ``result.stats`` is name -> ``summary()``.

    ``progress(done, total)`` is called after every hand (round, or game of a game
    that ends) with the number played so far and the number to play.

    ``lanes`` plays several deals at once: each entry is another set of the same bots
    (name -> bot) with a table of its own; ``parallel(calls)`` runs the lanes' calls
    concurrently and returns when all are done (the server's greenlets on its event
    loop, research/remote.py: while one lane waits for a remote bot, another plays).
    Every deal has the same cards as without lanes (chance is drawn in deal order);
    the hands' order in the results and exports is the order they finished. Lanes
    need stacks reset every hand and no AIVAT (its estimator follows one hand at a
    time).
    """
    if lanes and (parallel is None or aivat
                  or (settings is not None and not settings.reset_stacks)):
        raise ValueError("lanes need parallel, stacks reset every hand and no AIVAT.")
    names = list(bots)
    setup = _setup(game, names, settings, game_settings, seat_options)
    g, info = setup.game, setup.game.info
    if lanes and info.ends:
        raise ValueError(f"{info.title}: lanes play rounds, not games that end.")
    tracker: MatchTracker | None = None
    if aivat:
        if not supported(info.key):
            raise ValueError("AIVAT corrects Texas Hold'em matches only.")
        tracker = MatchTracker(setup.divisor, seed, aivat_samples, aivat_model, aivat_learn)
        for bot in bots.values():
            if isinstance(getattr(bot, "send_policy", None), bool):
                bot.send_policy = True  # type: ignore[attr-defined]
    n = len(names)
    counter = _StatsCounter(setup.divisor) if stats and info.stats else None
    reset = settings.reset_stacks if settings is not None else True
    state = _table(setup, names)
    started = time.perf_counter()
    rotations = n if duplicate else 1
    deals = max(1, hands // rotations)
    start_chips = [s.chips if s is not None else 0 for s in g.seats(state)][:n]
    make_view = g.view_maker(state)
    chance = _Chance(g, seed, duplicate)
    per_hand: dict[str, list[int]] = {name: [] for name in names}
    groups: dict[str, list[int]] = {name: [0] * deals for name in names}
    corrected: dict[str, list[float]] = {name: [] for name in names}
    corrected_groups: dict[str, list[float]] = {name: [0.0] * deals for name in names}
    cumulative: dict[str, list[int]] = {name: [] for name in names}
    totals = dict.fromkeys(names, 0)
    carried = dict(zip(names, start_chips, strict=True))
    illegal = dict.fromkeys(names, 0)
    both: dict[tuple[str, str], list[int]] = {}
    records: list[dict[str, Any]] = []
    exports: list[str] = []
    length = series_length or deals
    done, total = 0, deals * rotations
    bot_sets = [bots, *lanes]
    states = [state, *(_table(setup, names) for _ in lanes)]
    views = [make_view, *(g.view_maker(other) for other in states[1:])]

    def play_deal(deal: int, lane: int, at_seat: list[str], rotation: int,
                  seating: _Seating, drawn: Json | None) -> None:
        nonlocal done
        state, make_view = states[lane], views[lane]
        chips = None
        if info.ends:
            state = states[lane] = _table(setup, at_seat)
            nets, ended, opened, rounds = _play_game(setup, state, seating, make_view,
                                                     chance, deal, illegal)
        else:
            if info.economy:
                chips = [start_chips[seat] if reset or carried[name] == 0
                         else carried[name] for seat, name in enumerate(at_seat)]
            g.prepare_round(state, at_seat, chips, deal % n, setup.seat_options)
            nets, ended, opened = _play_round(setup, state, seating, make_view,
                                              chance.deal(deal, state) if drawn is None
                                              else drawn, illegal,
                                              tracker)
            rounds = 1
            if tracker is not None and not tracker.failed:
                try:
                    values = tracker.finish(state, nets)
                except Exception as error:  # never lose the match for its estimate
                    tracker.failed = f"{type(error).__name__}: {error}"
                else:
                    for seat, value in enumerate(values):
                        corrected[at_seat[seat]].append(value)
                        corrected_groups[at_seat[seat]][deal] += value
        for seat, name in enumerate(at_seat):
            net = nets[seat]
            per_hand[name].append(net)
            groups[name][deal] += net
            totals[name] += net
            if chips is not None:
                carried[name] = chips[seat] + net
            cumulative[name].append(totals[name])
        if n > 2:
            for a in range(n):
                for b in range(n):
                    if a != b:
                        both.setdefault((at_seat[a], at_seat[b]), []).append(
                            nets[a] - nets[b])
        if record:
            entry: dict[str, Any] = {"deal": deal, "rotation": rotation}
            entry.update(g.round_summary(state, ended))
            entry["seats"] = list(at_seat)
            entry["net"] = {at_seat[seat]: nets[seat] for seat in range(n)}
            if info.ends:
                entry["rounds"] = rounds
            records.append(entry)
        if phh_out is not None:
            exports.append(_export(g, state, len(exports) + 1, seed, opened))
        done += 1
        if progress is not None:
            progress(done, total)

    for first in range(0, deals, length):
        block = range(first, min(deals, first + length))
        for rotation in range(rotations):
            if duplicate or first == 0:
                for bot_set in bot_sets:
                    for bot in bot_set.values():
                        new_match = getattr(bot, "new_match", None)
                        if new_match is not None:
                            new_match()
            at_seat = [names[(seat + rotation) % n] for seat in range(n)]
            seatings = []
            for bot_set in bot_sets:
                seating = _Seating(at_seat, bot_set)
                if counter is not None:
                    seating.observers.append((counter.watch(at_seat), Viewer.superuser()))
                seatings.append(seating)
            if not lanes:
                for deal in block:
                    play_deal(deal, 0, at_seat, rotation, seatings[0], None)
                continue
            queue = iter(block)

            def lane(number: int, queue: Iterator[int] = queue, at_seat: list[str] = at_seat,
                     rotation: int = rotation, seatings: list[_Seating] = seatings) -> None:
                for deal in queue:  # the lanes take the next deal in turn
                    # drawn at once, so every deal's chance comes in deal order
                    drawn = None if info.ends else chance.deal(deal, states[number])
                    play_deal(deal, number, at_seat, rotation, seatings[number], drawn)

            assert parallel is not None
            parallel([functools.partial(lane, number) for number in range(len(bot_sets))])
        chance.forget()
    seconds = time.perf_counter() - started
    factor, divisor = setup.factor, setup.divisor
    results = {}
    corrects = tracker is not None and not tracker.failed  # else no AIVAT estimates
    for name in names:
        if duplicate:
            mean, half = per_hand_ci(groups[name], rotations)
        else:
            mean, half = per_hand_ci(per_hand[name], 1)
        results[name] = BotResult(
            name, len(per_hand[name]), totals[name], factor * mean / divisor,
            factor * half / divisor, illegal[name],
            estimates(per_hand[name], groups[name] if duplicate else None, rotations,
                      factor / divisor, corrected[name] if corrects else None,
                      corrected_groups[name] if corrects and duplicate else None),
            tracker.errors.get(name, 0) if tracker else 0)
    crosstable = None
    if n > 2:
        crosstable = {a: {b: factor * sum(both[a, b]) / (2 * len(both[a, b]) * divisor)
                          for b in names if b != a} for a in names}
    if phh_out is not None:
        directory = Path(phh_out)
        directory.mkdir(parents=True, exist_ok=True)
        filename = "match.phhs" if info.export_format == "phh" else "match.txt"
        (directory / filename).write_text("".join(exports))
    played = deals * rotations
    return MatchResult(
        settings=setup.summary, hands=played, deals=deals,
        duplicate=duplicate, seed=seed, seconds=seconds, bots=results, crosstable=crosstable,
        cumulative=cumulative, records=records, game=info.key, unit=setup.unit,
        stats=None if counter is None else {
            name: counter.accumulator.summary(name) for name in names},
        aivat=None if tracker is None else {
            "value_function": "all-in equity" + (
                f" + model learnt from {aivat_model.hands} other hands ({aivat_model.source})"
                if aivat_model is not None else ""),
            **({"model": tracker.estimator.fit().to_json()} if aivat_learn and corrects
               else {}),
            **({"error": tracker.failed} if tracker.failed else {}),
            "decisions": tracker.estimator.decisions,
            "samples": aivat_samples or "adaptive", "seconds": tracker.seconds,
            "policy_errors": sum(tracker.errors.values()), "last_policy_error":
                tracker.last_error},
    )


def learn_value_model(bots: Mapping[str, BotLike], settings: MatchSettings | None = None,
                      hands: int = 20000, seed: int = 1_000_001) -> ValueModel:
    """A :class:`botkit.aivat.ValueModel` (pre-flop table and betas) learnt from a
    plain match of ``bots`` on its own ``seed`` — never the evaluated match's: the
    value function must be fixed before the data it evaluates."""
    config = (settings or MatchSettings()).resolved(len(bots))
    result = play_match(bots, config, hands=hands, seed=seed, record=True, aivat=True,
                        aivat_learn=True)
    assert config.seats is not None and result.aivat is not None
    table = ValueModel.from_records(result.records, config.big_blind, config.seats,
                                    source=f"{','.join(bots)}, seed {seed}")
    table.betas = ValueModel.from_json(result.aivat["model"]).betas
    return table


class _StatsCounter:
    """Counts every hand's omniscient events into one StatsAccumulator (poker)."""

    def __init__(self, big_blind: int) -> None:
        self.accumulator = StatsAccumulator()
        self.big_blind = big_blind

    def watch(self, at_seat: list[str]) -> Callable[[Json], None]:
        """An ``observe`` for one seating: hands are added when they end."""
        players = dict(enumerate(at_seat))
        events: list[Json] = []

        def observe(event: Json) -> None:
            if event["type"] == "HandStarted":
                events.clear()
            events.append(event)
            if event["type"] == "HandEnded":
                self.accumulator.add_hand(events, players, self.big_blind)
                events.clear()

        return observe


def _table(setup: _Setup, players: Sequence[str]) -> Any:
    """A fresh table with ``players[i]`` in seat ``i``."""
    game = setup.game
    state = game.create(setup.settings)
    for seat, name in enumerate(players):
        game.seat(state, seat, name, setup.seat_options)
    return state


def _play_round(
    setup: _Setup,
    state: Any,
    seating: _Seating,
    make_view: ViewFn,
    chance: Json,
    illegal: dict[str, int],
    tracker: MatchTracker | None = None,
) -> tuple[list[int], RoundEnded, RoundStarted]:
    """Play one round from ``chance``; each seat's result, the round's RoundEnded and
    its RoundStarted. An answer's ``"policy"`` goes to ``tracker`` (else it is dropped)."""
    game = setup.game
    to_act = game.to_act
    apply = game.apply
    bots, names, observers = seating.bots, seating.names, seating.observers
    events = game.start_round(state, chance)
    opened = _round_started(events)
    if observers:
        _broadcast(game, observers, events)
    refused: set[int] | None = None  # seats whose answer was refused (a simultaneous move)
    while seats := to_act(state):
        seat = seats[0]
        if refused is not None:
            waiting = [s for s in seats if s not in refused]
            if not waiting:  # everyone else has moved: the defaults for the refused seats
                refused = None
                events = game.timeout(state)
                if observers:
                    _broadcast(game, observers, events)
                continue
            seat = waiting[0]
        view = make_view(state, seat)
        answer = bots[seat].act(view)
        pending = None
        if type(answer) is dict and "policy" in answer:
            answer, policy = split_policy(answer)
            if tracker is not None:
                pending = tracker.decided(names[seat], state, view, answer, policy)
        try:
            events = apply(state, seat, answer)
        except EngineError:
            illegal[names[seat]] += 1
            if len(seats) > 1:
                refused = (refused or set()) | {seat}
                continue
            events = game.timeout(state)
        else:
            if pending is not None:
                tracker.played(pending)  # type: ignore[union-attr]
        if observers:
            _broadcast(game, observers, events)
    ended = _round_ended(events)
    nets = [0] * len(names)
    if setup.game.info.economy:
        for result in ended.results:
            nets[result.seat] = result.net
    else:
        for result in ended.results:
            nets[result.seat] = result.net if result.score is None else result.score
    for hand_over, seat in seating.enders:
        hand_over(make_view(state, seat))
    return nets, ended, opened


def _play_game(
    setup: _Setup,
    state: Any,
    seating: _Seating,
    make_view: ViewFn,
    chance: _Chance,
    deal: int,
    illegal: dict[str, int],
) -> tuple[list[int], RoundEnded, RoundStarted, int]:
    """Play a game that ends, round after round; each seat's summed result, the last
    round's RoundEnded and RoundStarted, and the number of rounds."""
    game = setup.game
    totals = [0] * len(seating.names)
    ended, opened = RoundEnded(), RoundStarted(0, ())
    rounds = 0
    while not game.status(state).over:
        if not game.can_start(state):
            raise RuntimeError(f"{game.info.title}: the game is not over but no round can "
                               "start.")
        nets, ended, opened = _play_round(setup, state, seating, make_view,
                                          chance.round(deal, rounds, state), illegal)
        rounds += 1
        for seat, net in enumerate(nets):
            totals[seat] += net
    return totals, ended, opened, rounds


def _round_started(events: Sequence[Event]) -> RoundStarted:
    """The RoundStarted among the events of ``start_round``."""
    for event in events:
        if isinstance(event, RoundStarted):
            return event
    raise RuntimeError("start_round did not say which round started.")


def _round_ended(events: Sequence[Event]) -> RoundEnded:
    """The RoundEnded among the events of the round's last call."""
    for event in reversed(events):
        if isinstance(event, RoundEnded):
            return event
    raise RuntimeError("Nobody is to act but the round did not end.")


def _broadcast(game: Game, observers: list[tuple[Callable[[Json], Any], Viewer]],
               events: Sequence[Event]) -> None:
    project = game.project_event
    for observe, viewer in observers:
        for event in events:
            data = project(event, viewer)
            if data is not None:
                observe(data)


def _export(game: Game, state: Any, number: int, seed: int, opened: RoundStarted) -> str:
    """The finished round in the game's history format, numbered for a ``.phhs`` file:
    ``export_round`` for the superuser, with the participants' names, the number and
    the match as the event (PHH: in the order the poker-only runner wrote them); a
    game without an export gives its record as JSON."""
    record = game.round_record(state)
    text = game.export_round(record, Viewer.superuser(), {
        "names": list(opened.player_ids), "number": number,
        "event": f"botkit match, seed {seed}", "order": "match"})
    return f"[{number}]\n{text or json.dumps(record)}\n"


def cli_bot(spec: str, rng: random.Random, game: str = "holdem") -> BotLike:
    """The bot a ``--bots`` entry names: a house bot (``rule_based`` or
    ``house:rule_based``) or a user's bot as ``package.module:Class`` (importable, e.g.
    from the current directory). The class (or any callable) is called with
    ``rng=`` the match's seeded ``random.Random`` when it takes an ``rng`` parameter,
    else with no arguments. Raises ``ValueError`` with a sentence for a bad entry."""
    import importlib
    import inspect

    from botkit.house import make_bot
    from botkit.runner import house_name

    name = house_name(spec)
    if name is not None:
        try:
            return make_bot(name, rng, game=game)
        except KeyError as error:
            raise ValueError(error.args[0]) from None
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"{spec!r}: a bot is a house bot's name or module:Class "
                         "(e.g. mybot:MyBot).")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"{spec!r}: cannot import {module_name!r} ({error}).") from None
    factory = getattr(module, attribute, None)
    if factory is None:
        raise ValueError(f"{spec!r}: {module_name!r} has no {attribute!r}.")
    if callable(factory):
        try:
            takes_rng = "rng" in inspect.signature(factory).parameters
        except (TypeError, ValueError):  # a builtin without a signature
            takes_rng = False
        factory = factory(rng=rng) if takes_rng else factory()
    if not callable(getattr(factory, "act", None)):
        raise ValueError(f"{spec!r} is not a bot: it has no act(view) method.")
    return factory  # type: ignore[no-any-return]


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m botkit.match",
        description="Play house bots against each other on the engine and report results "
                    "per hand (poker: mbb/hand) with 95 % intervals.",
    )
    parser.add_argument("--game", default="holdem",
                        help="the game's key (default holdem; --list shows them)")
    parser.add_argument("--list", action="store_true",
                        help="list the games and their house bots, then exit")
    parser.add_argument("--bots", default=None,
                        help="comma-separated bots: house bot names (or house:<name>) and "
                             "your own as module:Class, e.g. mybot:MyBot (default: "
                             "rule_based,random for holdem, uniform,uniform otherwise)")
    parser.add_argument("--hands", type=int, default=1000,
                        help="hands (rounds; games for games that end) in total "
                             "(default 1000)")
    parser.add_argument("--settings", type=json.loads, default=None,
                        help="the table settings as JSON (games other than holdem; for "
                             "holdem it overrides the options below)")
    parser.add_argument("--structure", choices=("NL", "PL", "FL"), default=None,
                        help="poker betting (default: the game's own, NL for holdem)")
    parser.add_argument("--blinds", default="1/2", help="small/big blind (default 1/2)")
    parser.add_argument("--ante", type=int, default=0)
    parser.add_argument("--stack", type=int, default=200, help="starting stack in big blinds")
    parser.add_argument("--no-reset", action="store_true",
                        help="keep stacks between hands (a busted bot rebuys)")
    parser.add_argument("--players", type=int, default=0,
                        help="seats (default: one per bot; more seats repeat the bots)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--duplicate", action="store_true",
                        help="replay every deal once per seat rotation")
    parser.add_argument("--series", type=int, default=0,
                        help="duplicate series length in deals (default: one series)")
    parser.add_argument("--phh-out", type=Path,
                        help="write the hands to DIR/match.phhs (other games: DIR/match.txt)")
    parser.add_argument("--aivat", action="store_true",
                        help="Texas Hold'em: also report AIVAT-corrected results (variance "
                             "reduction, docs/aivat.md; costs about 1-3 ms per hand)")
    parser.add_argument("--aivat-samples", type=int, default=None,
                        help="Monte-Carlo boards per pre-flop equity (default: by the pot)")
    parser.add_argument("--aivat-train", type=int, default=0, metavar="HANDS",
                        help="first learn AIVAT's value model (pre-flop table, betas) from a "
                             "separate match of HANDS hands (seed + 1000003; fresh bots of the "
                             "same kinds)")
    parser.add_argument("--aivat-model", type=Path, metavar="FILE",
                        help="use a value model saved before (JSON; --aivat-save-model)")
    parser.add_argument("--aivat-save-model", type=Path, metavar="FILE",
                        help="write the model learnt with --aivat-train to FILE (JSON)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """The ``python -m botkit.match`` / ``pokerbot-match`` command."""
    from botkit.house import house_bots
    from engine.errors import MalformedAction
    from engine.registry import GAMES

    args = _parse(argv)
    # ``--bots mybot:MyBot`` finds ./mybot.py as with ``python -m``: the installed
    # ``pokerbot-match`` script has its own directory, not the current one, on the path.
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())
    if args.list:
        for key, each in GAMES.items():
            print(f"{key:<16} {each.info.title}: {', '.join(house_bots(key))}")
        return 0
    if args.game not in GAMES:
        print(f"No game called {args.game!r} (known: {', '.join(GAMES)}).", file=sys.stderr)
        return 2
    poker = args.game == "holdem" or GAMES[args.game].info.client == "holdem"
    default = "rule_based,random" if poker else "uniform,uniform"
    structure = args.structure or GAMES[args.game].settings_schema().get(
        "properties", {}).get("structure", {}).get("default", "NL")
    kinds = [k.strip() for k in (args.bots or default).split(",") if k.strip()]
    kinds = [k.removeprefix("house:") for k in kinds]  # named as house bots are
    players = args.players or len(kinds)
    small, _, big = args.blinds.partition("/")
    bots: dict[str, BotLike] = {}
    for i in range(players):
        kind = kinds[i % len(kinds)]
        copies = sum(1 for name in bots if name.split("#")[0] == kind)
        name = f"{kind}#{copies + 1}" if copies else kind
        try:
            bots[name] = cli_bot(kind, random.Random(args.seed * 1000 + i), game=args.game)
        except ValueError as error:
            print(error, file=sys.stderr)
            return 2
    settings = MatchSettings(structure=structure, small_blind=int(small),
                             big_blind=int(big), ante=args.ante, seats=players,
                             stack=args.stack * int(big), reset_stacks=not args.no_reset)
    table = None
    if args.aivat and args.aivat_model is not None:
        try:
            table = ValueModel.from_json(json.loads(args.aivat_model.read_text()))
        except (OSError, ValueError, KeyError, TypeError) as error:
            print(f"--aivat-model {args.aivat_model}: {error}", file=sys.stderr)
            return 2
    elif args.aivat and args.aivat_train and args.game == "holdem":
        # Fresh bots (their own generators): the evaluated match stays as without it.
        fresh = {name: cli_bot(kinds[i % len(kinds)], random.Random(args.seed * 1000 + 777 + i),
                               game=args.game) for i, name in enumerate(bots)}
        table = learn_value_model(fresh, settings, args.aivat_train, args.seed + 1_000_003)
        if args.aivat_save_model is not None:
            args.aivat_save_model.write_text(json.dumps(table.to_json()))
    try:
        result = play_match(bots, settings, hands=args.hands, seed=args.seed,
                            duplicate=args.duplicate, series_length=args.series or None,
                            phh_out=args.phh_out, record=False, game=args.game,
                            game_settings=args.settings, aivat=args.aivat,
                            aivat_samples=args.aivat_samples, aivat_model=table)
    except (ValueError, MalformedAction) as error:
        print(error, file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
    else:
        print(result.report())
    return 0


if __name__ == "__main__":
    sys.exit(main())
