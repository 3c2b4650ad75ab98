"""Engine benchmark: random-play hands/s against pokerkit, 7-card evaluations/s, variants.

Run from the repository root::

    .venv/bin/python bench/engine.py --seconds 5

Both engines play the same random policy (``engine.phh.policy.choose``): folds,
checks, calls, minimum raises, random raises and all-ins.  Each hand starts from
a fresh deck shuffle in both engines (ours: ``random.shuffle`` of a card list
passed in; pokerkit: its own automatic dealing, which shuffles).  Ratios are
measured in the same run, so they do not depend on the machine much.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import eval7
import phevaluator
import pokerkit
import treys

from engine.actions import Action
from engine.cards import standard_deck
from engine.evaluation import evaluate
from engine.phh.policy import choose
from engine.poker.hand import Hand, HandSetup


@dataclass(frozen=True)
class Table:
    """One benchmark table: betting structure, players, blinds 1/2, equal stacks."""

    structure: str
    players: int
    stack: int
    blinds: tuple[int, int] = (1, 2)


SIX_MAX_NL = Table("NL", 6, 400)
HEADS_UP_FL = Table("FL", 2, 400)
POKERKIT_AUTOMATIONS = (
    pokerkit.Automation.ANTE_POSTING,
    pokerkit.Automation.BET_COLLECTION,
    pokerkit.Automation.BLIND_OR_STRADDLE_POSTING,
    pokerkit.Automation.CARD_BURNING,
    pokerkit.Automation.RUNOUT_COUNT_SELECTION,
    pokerkit.Automation.HOLE_DEALING,
    pokerkit.Automation.BOARD_DEALING,
    pokerkit.Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    pokerkit.Automation.HAND_KILLING,
    pokerkit.Automation.CHIPS_PUSHING,
    pokerkit.Automation.CHIPS_PULLING,
)


def timed(run_batch: Callable[[], int], seconds: float) -> float:
    """Call ``run_batch`` (returns how many items it did) until ``seconds`` pass: items/s."""
    done = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        done += run_batch()
    return done / elapsed


def engine_hands(table: Table, rng: random.Random) -> Callable[[], int]:
    """A batch of 20 random hands in the engine."""
    big_blind = table.blinds[1]
    setup = HandSetup(
        structure=table.structure,
        stacks=(table.stack,) * table.players,
        blinds=table.blinds + (0,) * (table.players - 2),
        min_bet=big_blind,
        big_bet=2 * big_blind if table.structure == "FL" else 0,
        cap_counts_blind=False,
    )
    deck = standard_deck()
    fold, check, call = Action.fold(), Action.check(), Action.call()

    def batch() -> int:
        for _ in range(20):
            rng.shuffle(deck)
            hand, _events = Hand.start(setup, deck)
            while hand.actor is not None:
                legal = hand.legal_actions()
                if legal.can_show or legal.can_muck:
                    hand.apply(Action.show() if legal.can_show else Action.muck())
                    continue
                kind, amount = choose(
                    rng,
                    can_check=legal.can_check,
                    call_amount=legal.call_amount or 0,
                    min_to=legal.min_raise_to,
                    max_to=legal.max_raise_to,
                )
                if kind == "fold":
                    hand.apply(fold)
                elif kind == "check":
                    hand.apply(check)
                elif kind == "call":
                    hand.apply(call)
                else:
                    assert amount is not None
                    hand.apply(Action.bet(amount) if legal.can_bet else Action.raise_to(amount))
        return 20

    return batch


def pokerkit_hands(table: Table, rng: random.Random) -> Callable[[], int]:
    """A batch of 5 random hands in pokerkit."""
    players, blinds, stack = table.players, table.blinds, table.stack
    if table.structure == "FL":
        game: pokerkit.Poker = pokerkit.FixedLimitTexasHoldem(
            POKERKIT_AUTOMATIONS, True, 0, blinds, blinds[1], 2 * blinds[1],
            mode=pokerkit.Mode.CASH_GAME,
        )
    else:
        game = pokerkit.NoLimitTexasHoldem(
            POKERKIT_AUTOMATIONS, True, 0, blinds, blinds[1], mode=pokerkit.Mode.CASH_GAME
        )

    def batch() -> int:
        for _ in range(5):
            state = game((stack,) * players, players)
            while state.status:
                if state.actor_index is None:  # pragma: no cover - all automated
                    raise AssertionError("pokerkit waits for a non-player operation")
                call_amount = state.checking_or_calling_amount
                kind, amount = choose(
                    rng,
                    can_check=call_amount == 0,
                    call_amount=call_amount or 0,
                    min_to=state.min_completion_betting_or_raising_to_amount,
                    max_to=state.max_completion_betting_or_raising_to_amount,
                )
                if kind == "fold":
                    state.fold()
                elif kind == "raise":
                    state.complete_bet_or_raise_to(amount)
                else:
                    state.check_or_call()
        return 5

    return batch


def random_sevens(count: int, rng: random.Random) -> list[list[int]]:
    """``count`` random 7-card hands as card numbers 0..51."""
    return [rng.sample(range(52), 7) for _ in range(count)]


def evaluators(sevens: list[list[int]]) -> dict[str, Callable[[], int]]:
    """One batch function per evaluator, each over the same hands."""
    text = [[str(standard_deck()[c]) for c in hand] for hand in sevens]
    ours = [[standard_deck()[c] for c in hand] for hand in sevens]
    e7 = [[eval7.Card(c) for c in hand] for hand in text]
    ph = [tuple(hand) for hand in sevens]
    tr = [[treys.Card.new(c) for c in hand] for hand in text]
    treys_evaluator = treys.Evaluator()

    def run_ours() -> int:
        for hand in ours:
            evaluate(hand)
        return len(ours)

    def run_eval7() -> int:
        evaluate = eval7.evaluate
        for hand in e7:
            evaluate(hand)
        return len(e7)

    def run_phevaluator() -> int:
        evaluate = phevaluator.evaluate_cards
        for hand in ph:
            evaluate(*hand)
        return len(ph)

    def run_treys() -> int:
        evaluate = treys_evaluator.evaluate
        for hand in tr:
            evaluate(hand[:2], hand[2:])
        return len(tr)

    return {"engine": run_ours, "eval7": run_eval7, "phevaluator": run_phevaluator,
            "treys": run_treys}


def main(argv: list[str] | None = None) -> None:
    """Print the table; ``--seconds`` sets the time per measurement."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-variants", dest="variants", action="store_false",
                        help="skip the table of every poker variant (bench/variants.py)")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    # pokerkit warns on a fold that could have been a check; the warnings are noise here.
    warnings.simplefilter("ignore")

    print(f"{'benchmark':<34}{'per second':>14}{'ratio':>10}")
    for label, table in (("random play, 6-max NL 200 BB", SIX_MAX_NL),
                         ("random play, heads-up FL", HEADS_UP_FL)):
        reference = timed(pokerkit_hands(table, rng), args.seconds)
        ours = timed(engine_hands(table, rng), args.seconds)
        print(f"{label + ' (pokerkit)':<34}{reference:>14,.0f}{1.0:>9.1f}x")
        print(f"{label + ' (engine)':<34}{ours:>14,.0f}{ours / reference:>9.1f}x")
    rates = {name: timed(run, args.seconds) for name, run in evaluators(
        random_sevens(20_000, rng)).items()}
    for name, rate in rates.items():
        print(f"{'7-card evaluations (' + name + ')':<34}{rate:>14,.0f}"
              f"{rate / rates['treys']:>9.1f}x")
    if args.variants:  # every poker variant against pokerkit (bench/variants.py)
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import variants

        print()
        variants.main(["--seconds", str(args.seconds), "--seed", str(args.seed)])


if __name__ == "__main__":
    main()
