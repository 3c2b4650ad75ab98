"""The Tuppi simulator: two agents, two instances each as partners, until N tuppis.

As in the assignment's ``tuppisim``: agent A's two instances sit opposite each
other against agent B's two; they play whole games (to a tuppi, 52 points) until
``--tuppis`` games are done, and the report gives the tuppis won per agent with a
95 % Wilson interval, the average rounds per tuppi, illegal moves and the speed.

The game is driven through the game contract only, as the server drives it
(``create``, ``seat``, ``draw_chance`` with a seeded ``random.Random``,
``start_round``, ``to_act``, ``decision_view``, ``apply``; every event projected
for each seat and passed to the agents' ``observe``). An illegal move — an
exception from the agent, or a move the game refuses — **loses that game** for
the agent's team (the assignment's rule); it is counted.

Seating: A's team sits in seats 0 and 2 in even games and 1 and 3 in odd games
(the first dealer is always seat 0). With ``--duplicate`` games come in pairs that
replay the same sequence of decks with the teams swapped: A gets the cards B had.
Every game's chance and agents' random numbers come from ``--seed`` and the game's
number alone, so ``--jobs`` does not change the results.

Command line::

    python -m botkit.tuppi.simulate greedy random --tuppis 400 --seed 1 --duplicate
    python -m botkit.tuppi.simulate strong greedy --tuppis 200 --duplicate --jobs 4

>>> result = simulate("greedy", "random", tuppis=2, seed=1, duplicate=True)
>>> result.games, result.wins["greedy"] + result.wins["random"] + result.unfinished
(2, 2)
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

from botkit.bot import Bot, overrides
from botkit.tuppi import AGENTS
from engine.errors import EngineError
from engine.game import Json, Viewer, decision_view
from engine.tuppi import TuppiGame

__all__ = ["AGENTS", "GameResult", "SimulationResult", "main", "play_game", "simulate",
           "wilson"]

MAX_ROUNDS = 2000
"""A game still going after this many rounds is stopped and counted as unfinished."""


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``wins / n`` (95 % by default).

    >>> [round(x, 3) for x in wilson(60, 100)]
    [0.502, 0.691]
    """
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return centre - half, centre + half


@dataclass(slots=True)
class GameResult:
    """One game: ``winner`` the winning team's agent name (None: unfinished or a
    draw), ``rounds``, illegal moves per agent, decision counts and seconds per agent."""

    winner: str | None
    rounds: int
    reason: str
    illegal: dict[str, int]
    decisions: dict[str, int]
    seconds: dict[str, float]
    slowest: dict[str, float]
    rami: int = 0
    cpu: float = 0.0  # processor seconds of the whole game (game and agents)


@dataclass(slots=True)
class SimulationResult:
    agents: tuple[str, str]
    games: int
    wins: dict[str, int]
    draws: int
    unfinished: int
    rounds: int
    rami_rounds: int
    illegal: dict[str, int]
    decisions: dict[str, int]
    seconds_per_decision: dict[str, float]
    slowest_decision: dict[str, float]
    seconds: float
    cpu_seconds: float
    seed: int
    duplicate: bool
    round_limit: int
    interval: dict[str, tuple[float, float]] = field(default_factory=dict)

    @property
    def games_per_second(self) -> float:
        """Games per second of wall-clock time (all ``--jobs`` together)."""
        return self.games / self.seconds if self.seconds else 0.0

    @property
    def games_per_cpu_second(self) -> float:
        """Games per second of processor time: the speed of one core, whatever the
        machine's other load."""
        return self.games / self.cpu_seconds if self.cpu_seconds else 0.0

    def report(self) -> str:
        a, b = self.agents
        lines = [f"Tuppi: {a} (team A) vs {b} (team B), {self.games} games"
                 f"{' (duplicate pairs)' if self.duplicate else ''}, seed {self.seed}"
                 f"{f', {self.round_limit}-round limit' if self.round_limit else ''}"]
        decided = self.games - self.draws - self.unfinished
        for name in self.agents:
            low, high = (max(0.0, x) for x in self.interval[name])
            share = self.wins[name] / decided if decided else 0.0
            lines.append(f"  {name:<8} tuppis won {self.wins[name]:>6}  share {share:6.1%}  "
                         f"95% CI [{low:.1%}, {high:.1%}]  illegal moves {self.illegal[name]}  "
                         f"{1000 * self.seconds_per_decision[name]:.2f} ms/decision "
                         f"(slowest {1000 * self.slowest_decision[name]:.1f} ms)")
        if self.draws or self.unfinished:
            lines.append(f"  draws {self.draws}, unfinished {self.unfinished}")
        per = self.rounds / self.games if self.games else 0.0
        rami = self.rami_rounds / self.rounds if self.rounds else 0.0
        lines.append(f"  rounds per tuppi {per:.2f}  (rami {rami:.0%} of rounds)")
        lines.append(f"  {self.seconds:.1f} s: {self.games_per_second:.2f} games/s, "
                     f"{self.rounds / self.seconds if self.seconds else 0:.1f} rounds/s; "
                     f"one core: {self.games_per_cpu_second:.2f} games/s "
                     f"({self.cpu_seconds:.1f} processor seconds)")
        return "\n".join(lines)


def _observers(bots: Sequence[Bot]) -> list[tuple[Bot, Viewer]]:
    return [(bot, Viewer.of(seat)) for seat, bot in enumerate(bots)
            if overrides(bot, "observe")]


def play_game(game: TuppiGame, settings: Json, names: Sequence[str], bots: Sequence[Bot],
              chance: random.Random, max_rounds: int = MAX_ROUNDS) -> GameResult:
    """One game to its end; ``names[seat]`` is the agent (name) in ``seat``, ``bots``
    its instance. ``chance`` draws every deck."""
    state = game.create(settings)
    for seat, name in enumerate(names):
        game.seat(state, seat, f"{name}-{seat}", {})
    agents = sorted(set(names))
    illegal = dict.fromkeys(agents, 0)
    decisions = dict.fromkeys(agents, 0)
    seconds = dict.fromkeys(agents, 0.0)
    slowest = dict.fromkeys(agents, 0.0)
    observers = _observers(bots)
    for bot in bots:
        bot.new_match()
    rounds = rami = 0

    def tell(events: Sequence[Any]) -> None:
        for bot, viewer in observers:
            for event in events:
                data = game.project_event(event, viewer)
                if data is not None:
                    bot.observe(data)

    def lost(seat: int) -> GameResult:
        illegal[names[seat]] += 1
        winner = names[(seat + 1) % 4]
        return GameResult(winner, rounds, "illegal", illegal, decisions, seconds, slowest, rami)

    while not state["over"]:
        if rounds >= max_rounds:
            return GameResult(None, rounds, "unfinished", illegal, decisions, seconds,
                              slowest, rami)
        tell(game.start_round(state, game.draw_chance(state, chance)))
        rounds += 1
        while to_act := game.to_act(state):
            seat = to_act[0]
            view = decision_view(game, state, seat)
            started = time.perf_counter()
            try:
                action = bots[seat].act(view)
            except Exception:  # an agent that crashes loses, as an illegal move
                return lost(seat)
            spent = time.perf_counter() - started
            name = names[seat]
            decisions[name] += 1
            seconds[name] += spent
            slowest[name] = max(slowest[name], spent)
            try:
                events = game.apply(state, seat, action)
            except EngineError:
                return lost(seat)
            tell(events)
        record = state["last"]
        rami += record["mode"] == "rami"
        for seat, bot in enumerate(bots):
            if overrides(bot, "hand_over"):
                bot.hand_over(game.view(state, Viewer.of(seat)))
    winner = state["result"]["winner"]
    return GameResult(None if winner is None else names[winner], rounds,
                      state["result"]["reason"], illegal, decisions, seconds, slowest, rami)


def _play_one(args: tuple[str, str, int, int, bool, int]) -> GameResult:
    a, b, seed, number, duplicate, limit = args
    game = TuppiGame()
    settings = game.validate_settings({"round_limit": limit})
    deal_number = number // 2 if duplicate else number
    a_team = number % 2  # A in seats 0 and 2 in even games
    names = [a if seat % 2 == a_team else b for seat in range(4)]
    bots = [AGENTS[name](random.Random(f"{seed}:{number}:agent:{seat}"))
            for seat, name in enumerate(names)]
    chance = random.Random(f"{seed}:{deal_number}:chance")
    started = time.process_time()
    result = play_game(game, settings, names, bots, chance)
    result.cpu = time.process_time() - started
    return result


def simulate(a: str, b: str, tuppis: int = 100, seed: int = 0, duplicate: bool = False,
             round_limit: int = 0, jobs: int = 1) -> SimulationResult:
    """Play ``tuppis`` games of agent ``a`` against agent ``b`` (names in
    :data:`botkit.tuppi.AGENTS`; duplicate mode plays an even number)."""
    for name in (a, b):
        if name not in AGENTS:
            raise ValueError(f"No agent called {name!r} (known: {', '.join(sorted(AGENTS))}).")
    if a == b:
        raise ValueError("Give two different agents (the teams are told apart by name).")
    games = tuppis + (tuppis % 2 if duplicate else 0)
    tasks = [(a, b, seed, number, duplicate, round_limit) for number in range(games)]
    started = time.perf_counter()
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            results = list(pool.map(_play_one, tasks, chunksize=max(1, games // (8 * jobs))))
    else:
        results = [_play_one(task) for task in tasks]
    seconds = time.perf_counter() - started
    names = (a, b)
    wins = dict.fromkeys(names, 0)
    illegal = dict.fromkeys(names, 0)
    decisions = dict.fromkeys(names, 0)
    spent = dict.fromkeys(names, 0.0)
    slowest = dict.fromkeys(names, 0.0)
    draws = unfinished = rounds = rami = 0
    cpu = 0.0
    for result in results:
        cpu += result.cpu
        if result.winner is not None:
            wins[result.winner] += 1
        elif result.reason == "unfinished":
            unfinished += 1
        else:
            draws += 1
        rounds += result.rounds
        rami += result.rami
        for name in names:
            illegal[name] += result.illegal.get(name, 0)
            decisions[name] += result.decisions.get(name, 0)
            spent[name] += result.seconds.get(name, 0.0)
            slowest[name] = max(slowest[name], result.slowest.get(name, 0.0))
    decided = wins[a] + wins[b]
    return SimulationResult(
        agents=names, games=games, wins=wins, draws=draws, unfinished=unfinished,
        rounds=rounds, rami_rounds=rami, illegal=illegal, decisions=decisions,
        seconds_per_decision={n: spent[n] / decisions[n] if decisions[n] else 0.0
                              for n in names},
        slowest_decision=slowest, seconds=seconds, cpu_seconds=cpu, seed=seed,
        duplicate=duplicate,
        round_limit=round_limit, interval={n: wilson(wins[n], decided) for n in names})


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m botkit.tuppi.simulate",
        description="Play two Tuppi agents (two instances each, partners) until N tuppis.")
    parser.add_argument("a", choices=sorted(AGENTS), help="team A's agent")
    parser.add_argument("b", choices=sorted(AGENTS), help="team B's agent")
    parser.add_argument("--tuppis", type=int, default=100, help="games to play (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the decks and agents")
    parser.add_argument("--duplicate", action="store_true",
                        help="play every sequence of decks twice, the teams swapped")
    parser.add_argument("--limit", type=int, default=0, choices=(0, 15, 24),
                        help="tournament limit in rounds (default 0: play to tuppi)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    if args.tuppis < 1:
        parser.error("--tuppis must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse(argv)
    try:
        result = simulate(args.a, args.b, args.tuppis, args.seed, args.duplicate, args.limit,
                          args.jobs)
    except ValueError as error:
        print(error, file=sys.stderr)
        return 2
    if args.json:
        data = asdict(result)
        data["games_per_second"] = result.games_per_second
        data["games_per_cpu_second"] = result.games_per_cpu_second
        print(json.dumps(data, indent=2))
    else:
        print(result.report())
    return 0


if __name__ == "__main__":
    sys.exit(main())
