"""Batch-match benchmark: hands/s of bot matches, with engine-only random play as reference.

Run from the repository root::

    .venv/bin/python bench/batch.py --seconds 5

All in one process and one run, heads-up NL 1/2 with 200-BB stacks reset every
hand (``botkit.match.play_match``, plain mode):

* engine only: ``Hand.start`` + ``Hand.apply`` with the engine benchmark's random
  policy (``engine.phh.policy.choose``), no table, no views, no bots — the ceiling;
* ``random`` vs ``random``, ``rule_based`` vs ``rule_based``, ``ehs`` vs ``rule_based``:
  full matches through the game contract only (``get_game("holdem")``:
  ``prepare_round``, ``draw_chance``, ``start_round``, ``to_act``, ``apply``, views
  from ``view_maker``, equal to ``decision_view``) and the bots;
* ``uniform`` vs ``uniform``: the game-agnostic random bot (``random_move`` over
  ``view["moves"]``) on the same road.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from botkit.house import make_bot
from botkit.match import MatchSettings, play_match
from engine.actions import Action
from engine.cards import standard_deck
from engine.phh.policy import choose
from engine.poker.hand import Hand, HandSetup


def engine_only(seconds: float, players: int = 2) -> float:
    """Random-play hands/s on the bare engine (NL 1/2, 200-BB stacks)."""
    rng = random.Random(1)
    setup = HandSetup(structure="NL", stacks=(400,) * players,
                      blinds=(1, 2) + (0,) * (players - 2), min_bet=2)
    deck = standard_deck()
    done = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(50):
            rng.shuffle(deck)
            hand, _ = Hand.start(setup, deck)
            while hand.actor is not None:
                legal = hand.legal_actions()
                if legal.can_show or legal.can_muck:
                    hand.apply(Action.muck())
                    continue
                kind, amount = choose(rng, can_check=legal.can_check,
                                      call_amount=legal.call_amount or 0,
                                      min_to=legal.min_raise_to, max_to=legal.max_raise_to)
                if kind in ("fold", "check", "call"):
                    hand.apply(Action.from_json({"kind": kind}))
                else:
                    assert amount is not None
                    hand.apply(Action.bet(amount) if legal.can_bet else Action.raise_to(amount))
        done += 50
    return done / elapsed


def match_rate(first: str, second: str, seconds: float) -> float:
    """Hands/s of a heads-up match, growing the hand count until it lasts ``seconds``."""
    hands = 200
    while True:
        bots = {f"{first}#1": make_bot(first, random.Random(1)),
                f"{second}#2": make_bot(second, random.Random(2))}
        result = play_match(bots, MatchSettings(structure="NL"), hands=hands, seed=1,
                            record=False)
        if result.seconds >= seconds:
            return result.hands_per_second
        hands = int(hands * max(2.0, 1.2 * seconds / max(result.seconds, 1e-3)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per measurement")
    args = parser.parse_args()
    rows = [
        ("engine only, random policy, heads-up", engine_only(args.seconds, 2)),
        ("engine only, random policy, 6-max", engine_only(args.seconds, 6)),
        ("random vs random", match_rate("random", "random", args.seconds)),
        ("rule_based vs rule_based", match_rate("rule_based", "rule_based", args.seconds)),
        ("ehs vs rule_based", match_rate("ehs", "rule_based", args.seconds)),
        ("uniform vs uniform", match_rate("uniform", "uniform", args.seconds)),
    ]
    reference = rows[0][1]
    print(f"{'heads-up NL 1/2, 200 BB (unless noted)':<40} {'hands/s':>9} {'of engine':>10}")
    for name, rate in rows:
        print(f"{name:<40} {rate:>9,.0f} {rate / reference:>9.0%}")


if __name__ == "__main__":
    main()
