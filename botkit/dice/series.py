"""Solitaire series of a dice bot: ``python -m botkit.dice.series BOT --games N``.

Every game is played through the game contract (``DiceGame``: ``draw_chance`` from a
seeded ``random.Random``, ``start_round``, the bot's ``act`` on the view maker's
decision views, ``apply``) and scored by its ``GameEnded`` standing. Game *i* of a
series uses the *i*-th seed drawn from ``random.Random(--seed)``, for its dice and for
the bot, so a series gives the same scores whatever ``--jobs``. Prints the mean score
with its 95 % interval (1.96 standard errors) and games per second.

>>> result = run_series("greedy", games=3, seed=1, rules="mini")
>>> len(result.scores), result.scores == run_series("greedy", 3, 1, "mini").scores
(3, True)
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

from botkit.dice import BOTS
from botkit.dice.bots import OptimalBot
from engine.dice import DiceGame, Rules, shipped_rules, validate_rules
from engine.game import GameEnded, Json

__all__ = ["Series", "play_game", "run_series"]


@dataclass
class Series:
    """The scores of a series and how long it took."""

    bot: str
    rules: Json
    scores: list[int]
    bonuses: int
    seconds: float
    jobs: int

    @property
    def mean(self) -> float:
        return sum(self.scores) / len(self.scores)

    @property
    def sd(self) -> float:
        n = len(self.scores)
        if n < 2:
            return 0.0
        mean = self.mean
        return math.sqrt(sum((s - mean) ** 2 for s in self.scores) / (n - 1))

    @property
    def half_width(self) -> float:
        """Half the 95 % confidence interval of the mean."""
        return 1.96 * self.sd / math.sqrt(len(self.scores))

    def report(self) -> str:
        n = len(self.scores)
        rate = n / self.seconds if self.seconds else float("inf")
        lines = [
            f"{self.bot} on {self.rules['name']} (rules {self.rules['id']}), {n} solitaire "
            f"games:",
            f"  mean score {self.mean:.2f} ± {self.half_width:.2f} (95 %), sd {self.sd:.1f}, "
            f"min {min(self.scores)}, max {max(self.scores)}",
            f"  {rate:.1f} games/s ({self.jobs} process{'es' if self.jobs > 1 else ''}, "
            f"{self.seconds:.1f} s)"]
        if self.rules.get("bonus"):
            lines.insert(2, f"  upper bonus in {100 * self.bonuses / n:.1f} % of the games")
        return "\n".join(lines)


def _rules(rules: str | Json) -> Json:
    if isinstance(rules, dict):
        return validate_rules(rules)
    try:
        return shipped_rules(rules)
    except KeyError:
        return validate_rules(json.loads(Path(rules).read_text()))


def play_game(game: DiceGame, settings: Json, bot_name: str, seed: int,
              bots: dict[str, object]) -> tuple[int, bool]:
    """One solitaire game from ``seed``: (final score, bonus earned)."""
    bot = bots.get(bot_name)
    if bot is None:
        bot = bots[bot_name] = BOTS[bot_name](random.Random(seed))
    rng = getattr(bot, "rng", None)
    if isinstance(rng, random.Random):
        rng.seed(seed + 1)
    state = game.create(settings)
    game.seat(state, 0, "bot", {})
    events = game.start_round(state, game.draw_chance(state, random.Random(seed)))
    view = game.view_maker(state)
    act = getattr(bot, "act")  # noqa: B009
    while True:
        to_act = game.to_act(state)
        if not to_act:
            break
        events = game.apply(state, to_act[0], act(view(state, to_act[0])))
    ended = next(e for e in events if isinstance(e, GameEnded))
    bonus = bool(Rules(state["rules"]).bonus(state["last"]["sheets"][0]))
    return ended.standings[0].score, bonus


def _chunk(args: tuple[str, Json, Sequence[int]]) -> list[tuple[int, bool]]:
    bot_name, rules, seeds = args
    game = DiceGame()
    settings = game.validate_settings({"seats": 1, "rules": rules})
    bots: dict[str, object] = {}
    return [play_game(game, settings, bot_name, seed, bots) for seed in seeds]


def run_series(bot: str, games: int, seed: int = 0, rules: str | Json = "yatzy",
               jobs: int = 1) -> Series:
    """Play ``games`` solitaire games of ``bot`` (a name of :data:`botkit.dice.BOTS`)."""
    if bot not in BOTS:
        raise KeyError(f"No dice bot called {bot!r} (known: {', '.join(sorted(BOTS))}).")
    data = _rules(rules)
    master = random.Random(seed)
    seeds = [master.getrandbits(62) for _ in range(games)]
    jobs = max(1, min(jobs, games))
    started = time.perf_counter()
    if jobs == 1:
        results = _chunk((bot, data, seeds))
    else:
        parts = [(bot, data, seeds[i::jobs]) for i in range(jobs)]
        with get_context("fork").Pool(jobs) as pool:
            chunks = pool.map(_chunk, parts)
        results = [None] * games  # type: ignore[list-item]
        for i, chunk in enumerate(chunks):
            results[i::jobs] = chunk
    seconds = time.perf_counter() - started
    return Series(bot, data, [s for s, _ in results], sum(b for _, b in results), seconds,
                  jobs)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m botkit.dice.series",
        description="Solitaire series of a dice bot: mean score ± 95 % interval, games/s.")
    parser.add_argument("bot", choices=sorted(BOTS))
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rules", default="yatzy",
                        help="a shipped rule set (yatzy, maxi, mini, nines) or a JSON file")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games is at least 1")
    series = run_series(args.bot, args.games, args.seed, args.rules, args.jobs)
    print(series.report())
    if args.bot == "optimal":
        solver = OptimalBot.solver(Rules(series.rules))
        if solver is None:
            print("  (too large for the exact solver: played by the ev bot)")
        else:
            print(f"  exact optimal expected score {solver.expected_score():.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
