"""Random-play hands/s of every poker variant against pokerkit, in the same run.

Run from the repository root (``bench/engine.py`` runs it too)::

    .venv/bin/python bench/variants.py --seconds 3

Each variant is played 6-handed (stud: 6 of 8 seats), 200 big blinds (small bets)
deep, in its default betting structure, by the same random policy in both engines
(``engine.phh.policy.choose`` for the betting; bring-in or completion at random;
each card discarded with probability one half in a draw). Ours deals from a
shuffled list passed in; pokerkit deals itself (its automations), through its
generic ``State`` built from the same street table (no burn cards). pokerkit has no
sökö: its line is measured against pokerkit's five-card stud built the same way
(the same streets, the standard high ranking), and says so.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pokerkit
from pokerkit import Automation, BettingStructure, Opening, State, Street

from engine.actions import Action
from engine.phh.policy import choose
from engine.poker.hand import Hand, HandSetup
from engine.poker.variants import VARIANTS, Variant

PLAYERS = 6
BIG = 2
AUTOMATIONS = (
    Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING, Automation.RUNOUT_COUNT_SELECTION, Automation.HOLE_DEALING,
    Automation.BOARD_DEALING, Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING, Automation.CHIPS_PUSHING, Automation.CHIPS_PULLING,
)
OPENINGS = {"position": Opening.POSITION, "low_card": Opening.LOW_CARD,
            "high_card_low": Opening.HIGH_CARD, "high_card": Opening.HIGH_CARD,
            "high_hand": Opening.HIGH_HAND, "low_hand": Opening.LOW_HAND}
HANDS = {"high": (pokerkit.StandardHighHand,), "soko": (pokerkit.StandardHighHand,),
         "omaha": (pokerkit.OmahaHoldemHand,), "short_deck": (pokerkit.ShortDeckHoldemHand,),
         "low_27": (pokerkit.StandardLowHand,), "low_a5": (pokerkit.RegularLowHand,),
         "badugi": (pokerkit.BadugiHand,), "low_8": (pokerkit.EightOrBetterLowHand,),
         "omaha_low_8": (pokerkit.OmahaEightOrBetterLowHand,)}
BETTING = {"NL": BettingStructure.NO_LIMIT, "PL": BettingStructure.POT_LIMIT,
           "FL": BettingStructure.FIXED_LIMIT}


def timed(run_batch: Callable[[], int], seconds: float) -> float:
    """Call ``run_batch`` (returns how many items it did) until ``seconds`` pass: items/s."""
    done = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        done += run_batch()
    return done / elapsed


def setup_for(variant: Variant) -> HandSetup:
    """The benchmark table of ``variant``."""
    structure = variant.default_structure
    blinds = (BIG // 2, BIG) + (0,) * (PLAYERS - 2) if variant.forced == "blinds" else ()
    return HandSetup(variant=variant.key, structure=structure, stacks=(200 * BIG,) * PLAYERS,
                     blinds=blinds, antes=() if variant.forced == "blinds" else (1,) * PLAYERS,
                     bring_in=1 if variant.forced == "bring_in" else 0, min_bet=BIG,
                     big_bet=2 * BIG if structure == "FL" else 0, cap_counts_blind=False)


def engine_hands(variant: Variant, rng: random.Random) -> Callable[[], int]:
    """A batch of 10 random hands of ``variant`` in the engine."""
    setup = setup_for(variant)
    deck = list(variant.cards)

    def batch() -> int:
        for _ in range(10):
            rng.shuffle(deck)  # (draws: the discards go back in deck order if it runs out)
            hand, _ = Hand.start(setup, deck)
            while hand.actor is not None:
                legal = hand.legal_actions()
                if legal.draw is not None:
                    hole = hand.holes[hand.actor]
                    hand.apply(Action.draw(tuple(c for c in hole if rng.random() < 0.5)))
                    continue
                if legal.can_show or legal.can_muck:
                    hand.apply(Action.show() if legal.can_show else Action.muck())
                    continue
                if legal.bring_in is not None:
                    hand.apply(Action.bring_in() if rng.random() < 0.5
                               else Action.bet(legal.min_raise_to or 0))
                    continue
                kind, amount = choose(rng, can_check=legal.can_check,
                                      call_amount=legal.call_amount or 0,
                                      min_to=legal.min_raise_to, max_to=legal.max_raise_to)
                if kind == "fold":
                    hand.apply(Action.fold())
                elif kind == "check":
                    hand.apply(Action.check())
                elif kind == "call":
                    hand.apply(Action.call())
                else:
                    assert amount is not None
                    hand.apply(Action.bet(amount) if legal.can_bet else Action.raise_to(amount))
        return 10

    return batch


def pokerkit_state(variant: Variant) -> Callable[[], State]:
    """A maker of pokerkit states for ``variant`` (sökö: its five-card stud stand-in)."""
    setup = setup_for(variant)
    limit = 4 if setup.structure == "FL" else None
    streets = []
    for k, street in enumerate(variant.streets):
        size = (setup.big_bet or 2 * BIG) if street.big_bet and setup.structure == "FL" else BIG
        streets.append(Street(False, tuple(c == "u" for c in street.hole), street.board,
                              street.draw, OPENINGS[street.opening], size, limit))
        del k
    hands = tuple(t for kind in variant.evaluators for t in HANDS[kind])
    deck = pokerkit.Deck.SHORT_DECK_HOLDEM if variant.deck == "short" else pokerkit.Deck.STANDARD

    def make() -> State:
        return State(AUTOMATIONS, deck, hands, tuple(streets), BETTING[setup.structure], True,
                     setup.antes, setup.blinds, setup.bring_in, setup.stacks, PLAYERS,
                     mode=pokerkit.Mode.CASH_GAME)

    return make


def pokerkit_hands(variant: Variant, rng: random.Random) -> Callable[[], int]:
    """A batch of 3 random hands of ``variant`` in pokerkit."""
    make = pokerkit_state(variant)

    def batch() -> int:
        for _ in range(3):
            state = make()
            while state.status:
                if state.can_stand_pat_or_discard():
                    player = state.stand_patter_or_discarder_index
                    assert player is not None
                    state.stand_pat_or_discard(
                        [c for c in state.hole_cards[player] if rng.random() < 0.5])
                    continue
                if state.can_post_bring_in():
                    if rng.random() < 0.5:
                        state.post_bring_in()
                    else:
                        state.complete_bet_or_raise_to()
                    continue
                if state.actor_index is None:  # pragma: no cover - all automated
                    raise AssertionError("pokerkit waits for a non-player operation")
                call_amount = state.checking_or_calling_amount
                kind, amount = choose(
                    rng, can_check=call_amount == 0, call_amount=call_amount or 0,
                    min_to=state.min_completion_betting_or_raising_to_amount,
                    max_to=state.max_completion_betting_or_raising_to_amount)
                if kind == "fold":
                    state.fold()
                elif kind == "raise":
                    state.complete_bet_or_raise_to(amount)
                else:
                    state.check_or_call()
        return 3

    return batch


def run(seconds: float, seed: int, rounds: int = 3) -> list[tuple[str, float, float]]:
    """(variant title, pokerkit hands/s, engine hands/s) for every variant.

    The two engines take turns, ``rounds`` times ``seconds / rounds`` each, so that a
    change in the machine's load during the run affects both alike.
    """
    rng = random.Random(seed)
    warnings.simplefilter("ignore")  # pokerkit warns on folds that could be checks
    rows = []
    for variant in VARIANTS.values():
        ours, reference = engine_hands(variant, rng), pokerkit_hands(variant, rng)
        slice_ = seconds / rounds
        theirs = mine = 0.0
        for _ in range(rounds):
            theirs += timed(reference, slice_) / rounds
            mine += timed(ours, slice_) / rounds
        title = f"{variant.title} {variant.default_structure}"
        if variant.key == "soko":
            title += " (vs pokerkit five-card stud)"
        rows.append((title, theirs, mine))
    return rows


def main(argv: list[str] | None = None) -> None:
    """Print one line per variant: pokerkit, the engine, the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print(f"{'variant, 6 players, random play':<52}{'pokerkit/s':>12}{'engine/s':>12}"
          f"{'ratio':>8}")
    for title, reference, ours in run(args.seconds, args.seed):
        print(f"{title:<52}{reference:>12,.0f}{ours:>12,.0f}{ours / reference:>7.1f}x")


if __name__ == "__main__":
    main()
