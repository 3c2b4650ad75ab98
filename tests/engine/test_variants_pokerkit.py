"""Every variant against pokerkit 0.7.7: random hands mirrored move by move.

Modelled on ``test_pokerkit.py`` (hold'em, which it does not repeat): for every
variant pokerkit can express — Omaha, Omaha hi-lo, short deck, five-card draw,
2-7 single and triple draw, badugi (each NL, PL and FL), seven-card stud, stud
hi-lo, razz and five-card stud — pokerkit's state is built with its generic
``State`` constructor from our :class:`~engine.poker.variants.Variant` entry
(its ``Street``/``Opening`` objects, its hand types), and pokerkit is dealt
exactly the cards the engine dealt (no burns, draws' replacements included).
Tables of 2 to 10 players (at most what one deck deals to), short stacks (some
below the ante or the bring-in), antes, straddles, bring-ins and completions,
all-ins. At every decision the actor, the call amount, the raise bounds, the
bring-in (its availability and amount) and whose draw it is are compared; at
the end the order of the showdown (who shows or mucks first: the last
aggressor of the last street, else whoever would act first there — in stud
the best visible hand, in razz the lowest) and the finishing stacks.

The showdown order is not compared after an all-in before the first street's
betting ends in a blind game with no raise (every hand is tabled anyway):
pokerkit tables from the first player after the big blind, the engine from the
small blind, as it always did in hold'em.

Sökö is not compared: pokerkit has no sökö hand type, no ace-high "high card"
opening (its ``HIGH_CARD`` is razz's, ace low) and no four-flush/four-straight
openers.

Allowances, as in ``test_pokerkit.py`` (see its docstring):

* odd chips: pokerkit gives all odd chips of a split to its first winner, the
  engine one each to the first winners clockwise; compared within the odd
  chips of each split (per pot and per high/low half). pokerkit also merges
  the pots whose contenders end up the same before splitting them high/low,
  the engine halves each pot (the rules): the odd chip of an odd pot halved
  high/low may then fall differently;
* pokerkit's raise-size quirk (a short all-in bet or raise reopens the betting
  there, not in the engine): the engine's raise range must then be within
  pokerkit's or empty;
* a series of short all-ins that together reach a full raise reopens the betting
  for a player who already acted (TDA; docs/engine.md, "Reopening"); pokerkit judges
  each raise alone and keeps it closed (``cumulative_reopening``): the engine then
  offers a raise where pokerkit offers none, and the test calls or folds;
* big-blind or button antes are only dealt with ``ante_trimming_status = false``.

One more, for the hi-lo games (``pokerkit_low_quirk``): pokerkit 0.7.7 splits
*every* pot into a high and a low half as soon as anyone's shown hand has a
qualifying low, even a side pot none of whose contenders has a low; that half
then goes to the side pot's contenders as if they tied with no low. The
engine (and the rules) give such a pot wholly to the best high hand. Each of
its contenders' stacks may then differ by up to half of that pot.

A fold when a check is possible is played as a check: when the last players
who put chips into a side pot all fold like that, pokerkit 0.7.7 fails on the
side pot nobody contends (``assert len(pot.player_indices) == 1`` in
``push_chips``); the engine gives it to the players of the pots below.
``test_pokerkit.py`` keeps such folds for hold'em.

The bring-in is always below the small bet: pokerkit 0.7.7 rejects a bring-in
of a whole small bet (the engine takes it as the completed opening bet).
"""

from __future__ import annotations

import os
import random
import warnings
from collections import Counter
from typing import Any

import pokerkit
import pytest
from pokerkit import Automation, BettingStructure, Opening, State, Street

from engine.actions import Action
from engine.cards import Card, seeded_deck
from engine.events import (
    BetPlaced,
    BoardDealt,
    BringInPosted,
    CardsMucked,
    CardsShown,
    PlayerDrew,
    PotAwarded,
    RaisePlaced,
)
from engine.phh.policy import choose
from engine.poker.hand import Hand, HandSetup, max_hand_players
from engine.poker.variants import VARIANTS, Variant
from tests.engine.test_pokerkit import cumulative_reopening

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)
BETTING = {
    "NL": BettingStructure.NO_LIMIT,
    "PL": BettingStructure.POT_LIMIT,
    "FL": BettingStructure.FIXED_LIMIT,
}
HAND_TYPES: dict[str, type[pokerkit.Hand]] = {
    "high": pokerkit.StandardHighHand,
    "omaha": pokerkit.OmahaHoldemHand,
    "omaha_low_8": pokerkit.OmahaEightOrBetterLowHand,
    "short_deck": pokerkit.ShortDeckHoldemHand,
    "low_8": pokerkit.EightOrBetterLowHand,
    "low_a5": pokerkit.RegularLowHand,
    "low_27": pokerkit.StandardLowHand,
    "badugi": pokerkit.BadugiHand,
}
OPENINGS = {
    "position": Opening.POSITION,
    "low_card": Opening.LOW_CARD,
    "high_card_low": Opening.HIGH_CARD,  # pokerkit's high card is ace low (razz)
    "high_hand": Opening.HIGH_HAND,
    "low_hand": Opening.LOW_HAND,
}
DECKS = {"standard": pokerkit.Deck.STANDARD, "short": pokerkit.Deck.SHORT_DECK_HOLDEM}


def pokerkit_supports(variant: Variant) -> bool:
    """True if pokerkit can express the variant (every one but sökö)."""
    return (all(kind in HAND_TYPES for kind in variant.evaluators)
            and all(street.opening in OPENINGS for street in variant.streets))


def pokerkit_state(setup: HandSetup, automations: tuple[Automation, ...] = AUTOMATIONS,
                   **options: Any) -> State:
    """A pokerkit state for ``setup`` of any variant, with the generic ``State`` constructor."""
    variant = setup.game
    fixed = setup.structure == "FL"
    limit = setup.bet_cap if fixed else None
    small = setup.min_bet
    big = (setup.big_bet or 2 * small) if fixed else small
    streets = tuple(
        Street(
            k > 0,  # pokerkit burns before every later street (the engine does not)
            tuple(letter == "u" for letter in street.hole),
            street.board,
            street.draw,
            OPENINGS[street.opening],
            big if fixed and street.big_bet else small,
            limit,
        )
        for k, street in enumerate(variant.streets)
    )
    return State(
        automations,
        DECKS[variant.deck],
        tuple(HAND_TYPES[kind] for kind in variant.evaluators),
        streets,
        BETTING[setup.structure],
        setup.ante_trimming,
        setup.antes,
        setup.blinds,
        setup.bring_in,
        setup.stacks,
        setup.n,
        mode=pokerkit.Mode.CASH_GAME,
        **options,
    )


def deal_pending(state: State, hand: Hand) -> None:
    """Do pokerkit's dealing with the engine's cards (one at a time, no burns).

    A player's next card is the engine's card at the length of pokerkit's hand:
    both keep the dealing order and drop discards in place, so after a draw the
    engine's replacements follow the kept cards.
    """
    holes = hand.hole_cards
    board = [str(card) for card in hand.board]
    while state.status:
        if state.can_deal_hole():
            player = state.hole_dealee_index
            assert player is not None
            state.deal_hole(str(holes[player][len(state.hole_cards[player])]), player)
        elif state.can_burn_card():
            state.burn_card("??")
        elif state.can_deal_board():
            dealt = sum(1 for _ in state.get_board_cards(0))
            count = state.board_dealing_count
            assert dealt + count <= len(board), (hand.history, board)
            state.deal_board("".join(board[dealt : dealt + count]))
        else:
            return


def random_setup(rng: random.Random, key: str, structure: str) -> HandSetup:
    """2 to 10 players (at most one deck's worth), antes, short stacks, straddles."""
    variant = VARIANTS[key]
    players = rng.randint(2, min(10, max_hand_players(variant)))
    small, big = rng.choice([(1, 2), (5, 10), (25, 50)])
    stacks = [rng.randint(20 * big, 250 * big) for _ in range(players)]
    for i in range(players):
        if rng.random() < 0.3:
            stacks[i] = rng.randint(1, 15 * big)
    antes = [0] * players
    trimming = rng.random() < 0.5
    blinds = [0] * players
    bring_in = 0
    if variant.forced == "blinds":
        blinds = [small, big] + [0] * (players - 2)
        if players >= 4 and structure == "NL" and rng.random() < 0.1:
            blinds[2] = 2 * big  # an UTG straddle
        kind = rng.random()
        if kind < 0.3:
            antes = [rng.randint(1, big)] * players
        elif kind < 0.45:
            antes[1 if rng.random() < 0.8 else -1] = big  # big-blind ante, or button ante
            trimming = False
    else:
        if rng.random() < 0.9:
            antes = [rng.randint(1, big)] * players
        if variant.forced == "bring_in":
            bring_in = rng.randint(1, big - 1)
    return HandSetup(
        variant=key,
        structure=structure,
        stacks=tuple(stacks),
        blinds=tuple(blinds),
        antes=tuple(antes),
        min_bet=big,
        big_bet=2 * big if structure == "FL" else 0,
        cap_counts_blind=False,  # pokerkit's cap; the house rule is tested with hold'em
        ante_trimming=trimming,
        bring_in=bring_in,
    )


def odd_split_allowance(hand: Hand) -> Counter[int]:
    """Per player, the odd chips of the splits they took part in.

    Per pot and high/low half (the tied winners), and per pot halved high/low
    (its odd chip goes high in both engines, but pokerkit first merges the pots
    whose contenders end up the same, so the odd chips fall differently).
    """
    winners: dict[tuple[int, str], list[int]] = {}
    amounts: Counter[tuple[int, str]] = Counter()
    for event in hand.events:
        if isinstance(event, PotAwarded):
            winners.setdefault((event.pot, event.side), []).append(event.player)
            amounts[event.pot, event.side] += event.amount
    allowance: Counter[int] = Counter()
    for share, players in winners.items():
        odd = amounts[share] % len(players)
        for player in players:
            allowance[player] += odd  # pokerkit gives all odd chips to one player
        pot, side = share
        if side and (amounts[pot, "high"] + amounts[pot, "low"]) % 2:
            for player in players:
                allowance[player] += 1
    return allowance


def pokerkit_low_quirk(hand: Hand) -> Counter[int]:
    """Per player, the chips pokerkit's hi-lo split of a pot without a low may move.

    When some pot has a low winner, every pot without one is halved by pokerkit
    too, its low half shared among its contenders: up to half of the pot (and
    its odd chip) for each of them.
    """
    sides: dict[int, set[str]] = {}
    for event in hand.events:
        if isinstance(event, PotAwarded):
            sides.setdefault(event.pot, set()).add(event.side)
    allowance: Counter[int] = Counter()
    if any("low" in kinds for kinds in sides.values()):
        for k, pot in enumerate(hand.pots):
            if "low" not in sides.get(k, {"low"}):
                for player in pot.eligible:
                    allowance[player] += pot.amount // 2 + 1
    return allowance


def pokerkit_raise_size_quirk(state: State, hand: Hand) -> bool:
    """pokerkit's last-raise size starts at 0 on every street (see ``test_pokerkit.py``)."""
    return 0 < state.completion_betting_or_raising_amount < hand.raise_size


def play_both(setup: HandSetup, rng: random.Random, stats: Counter[str]) -> tuple[Hand, State]:
    """Random play mirrored move by move; legal actions are compared on the way."""
    cards = set(setup.game.cards)
    deck = [card for card in seeded_deck(rng.getrandbits(32)) if card in cards]
    reshuffle: list[Card] = []
    if setup.game.draws:
        reshuffle = [card for card in seeded_deck(rng.getrandbits(32)) if card in cards]
    hand, _ = Hand.start(setup, deck, reshuffle)
    state = pokerkit_state(setup)
    where = (setup, hand.history)
    while True:
        deal_pending(state, hand)
        if hand.actor is None:
            break
        legal = hand.legal_actions()
        if legal.can_show or legal.can_muck:
            # pokerkit shows or mucks on its own (shows when the hand can still win).
            hand.apply(Action.show() if rng.random() < 0.5 else Action.muck())
            continue
        if legal.draw is not None:
            assert state.stand_patter_or_discarder_index == hand.actor, where
            assert state.actor_index is None, where
            hole = hand.hole_cards[hand.actor]
            discards = tuple(card for card in hole if rng.random() < 0.4)
            stats["discards"] += len(discards)
            hand.apply(Action.draw(discards))
            state.stand_pat_or_discard("".join(map(str, discards)))
            continue
        assert state.stand_patter_or_discarder_index is None, where
        assert state.actor_index == hand.actor, where
        assert state.can_post_bring_in() == (legal.bring_in is not None), where
        if legal.bring_in is not None:
            assert state.effective_bring_in_amount == legal.bring_in, where
        assert (state.checking_or_calling_amount or None) == legal.call_amount, where
        pk_min = state.min_completion_betting_or_raising_to_amount
        pk_max = state.max_completion_betting_or_raising_to_amount
        ours = (legal.min_raise_to, legal.max_raise_to)
        if ours != (pk_min, pk_max) and (pk_min, pk_max) == (None, None) and \
                cumulative_reopening(hand):
            stats["cumulative reopening"] += 1
            ours = (None, None)  # both engines call or fold here
        elif ours != (pk_min, pk_max):
            assert pokerkit_raise_size_quirk(state, hand), (*where, ours, (pk_min, pk_max))
            assert ours == (None, None) or (pk_min is not None and pk_min <= ours[0]), (
                *where, ours, (pk_min, pk_max))
            stats["raise quirk"] += 1
        if legal.bring_in is not None:
            stats["bring-in decisions"] += 1
            if ours[0] is None or rng.random() < 0.7:
                hand.apply(Action.bring_in())
                state.post_bring_in()
            else:
                assert ours[0] is not None and ours[1] is not None
                stats["completions"] += 1
                hand.apply(Action.bet(ours[1]))
                state.complete_bet_or_raise_to(ours[1])
            continue
        kind, amount = choose(
            rng,
            can_check=legal.can_check,
            call_amount=legal.call_amount or 0,
            min_to=ours[0],
            max_to=ours[1],
        )
        if kind == "fold" and legal.can_check:
            kind = "check"  # see the module docstring: pokerkit may crash on the dead pot
        if kind == "fold":
            hand.apply(Action.fold())
            state.fold()
        elif kind in ("check", "call"):
            hand.apply(Action.check() if kind == "check" else Action.call())
            state.check_or_call()
        else:
            assert amount is not None
            hand.apply(Action.bet(amount) if legal.can_bet else Action.raise_to(amount))
            state.complete_bet_or_raise_to(amount)
    return hand, state


def showdown_order(hand: Hand) -> list[int]:
    """The players in the order they showed or mucked at the showdown."""
    return [e.player for e in hand.events if isinstance(e, CardsShown | CardsMucked)]


def unraised_first_street_showdown(hand: Hand) -> bool:
    """An all-in showdown in a blind game before a board, a draw or a raise.

    Nobody is the last aggressor: pokerkit tables from the first player after the
    big blind, the engine (as it always did in hold'em) from the small blind.
    """
    if hand.variant.forced != "blinds":
        return False
    for event in hand.events:
        if isinstance(event, CardsShown | CardsMucked):
            return True
        if isinstance(event, BoardDealt | PlayerDrew | BetPlaced | RaisePlaced):
            return False
    return False


def pokerkit_showdown_order(state: State) -> list[int]:
    """pokerkit's showing order (each player once: stud all-ins show twice there)."""
    order: list[int] = []
    for operation in state.operations:
        if (isinstance(operation, pokerkit.HoleCardsShowingOrMucking)
                and operation.player_index not in order):
            order.append(operation.player_index)
    return order


PAIRS = [(key, structure) for key, variant in VARIANTS.items()
         if key != "holdem" and pokerkit_supports(variant) for structure in variant.structures]
HANDS = {"omaha": 150, "omaha8": 150, "five_card_stud": 500, "stud": 500, "stud8": 500,
         "razz": 500}
"""Hands per structure (the whole file runs in about 60-70 s): pokerkit evaluates Omaha
slowly; the stud games have one structure, so they get more."""
DEFAULT_HANDS = 300
SCALE = int(os.environ.get("POKERKIT_HANDS_SCALE", "1"))
"""``POKERKIT_HANDS_SCALE=10`` plays ten times as many hands (thousands per variant: about
ten minutes); the suite runs the default."""


def test_every_variant_but_holdem_and_soko_is_compared() -> None:
    compared = {key for key, _ in PAIRS}
    assert compared == set(VARIANTS) - {"holdem", "soko"}
    assert not pokerkit_supports(VARIANTS["soko"])
    assert len(PAIRS) == 25


@pytest.mark.parametrize(("key", "structure"), PAIRS, ids=[f"{k}-{s}" for k, s in PAIRS])
def test_random_hands_match_pokerkit(key: str, structure: str) -> None:
    variant = VARIANTS[key]
    count = HANDS.get(key, DEFAULT_HANDS) * SCALE
    rng = random.Random(f"variants-{key}-{structure}")
    stats: Counter[str] = Counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(count):
            setup = random_setup(rng, key, structure)
            hand, state = play_both(setup, rng, stats)
            assert hand.is_over and not state.status, (setup, hand.history)
            ours, theirs = hand.finishing_stacks, tuple(state.stacks)
            assert ours is not None
            assert sum(ours) == sum(theirs) == sum(setup.stacks)
            if hand.folded.count(False) > 1 and not unraised_first_street_showdown(hand):
                assert showdown_order(hand) == pokerkit_showdown_order(state), (
                    setup, hand.history)
            stats["hands"] += 1
            stats["all-in"] += any(s == 0 for s in ours)
            stats["bring-ins"] += any(isinstance(e, BringInPosted) for e in hand.events)
            stats["community card"] += variant.stud and any(
                isinstance(e, BoardDealt) for e in hand.events)
            stats["reshuffles"] += hand.next_card > len(hand.deck)
            stats["low halves"] += any(
                isinstance(e, PotAwarded) and e.side == "low" for e in hand.events)
            allowance = odd_split_allowance(hand)
            quirk = pokerkit_low_quirk(hand) if variant.split else Counter()
            stats["low quirk"] += bool(quirk)
            allowance.update(quirk)
            for player, (a, b) in enumerate(zip(ours, theirs, strict=True)):
                assert abs(a - b) <= allowance[player], (setup, hand.history, ours, theirs)
    assert stats["hands"] == count
    assert stats["all-in"] > count // 20, stats
    if variant.forced == "bring_in":
        assert stats["bring-ins"] and stats["completions"], stats
    if variant.draws:
        assert stats["discards"], stats
    if key in ("triple_draw", "badugi"):
        assert stats["reshuffles"], stats  # the deck ran out and the discards came back
    if variant.split:
        assert stats["low halves"] > count // 10, stats
        assert stats["low quirk"] < count // 8, stats
    assert stats["raise quirk"] < count, stats


def test_a_bring_in_of_a_whole_small_bet_is_the_opening_bet() -> None:
    """Not comparable: pokerkit 0.7.7 wants a bring-in below the small bet.

    The engine accepts a bring-in of a whole small bet and treats it as the
    completed bet: the next player calls it or raises to two small bets (not a
    "completion" to the amount already bet).
    """
    setup = HandSetup(variant="stud", structure="FL", stacks=(100, 100, 100),
                      antes=(1, 1, 1), bring_in=2, min_bet=2, big_bet=4)
    with pytest.raises(ValueError, match="bring-in must be less than the min bet"):
        pokerkit_state(setup)
    hand, _ = Hand.start(setup, seeded_deck(3))
    hand.apply(Action.bring_in())
    legal = hand.legal_actions()
    assert (legal.call_amount, legal.min_raise_to, legal.max_raise_to) == (2, 4, 4)
    hand.apply(Action.raise_to(4))
    assert hand.legal_actions().min_raise_to == 6
