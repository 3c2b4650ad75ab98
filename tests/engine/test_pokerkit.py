"""The engine against pokerkit 0.7.7: differential random play, and our PHH files in pokerkit.

Conventions that legitimately differ, and how the comparison treats them:

* Fixed-limit cap: pokerkit allows four bets/raises per street *besides* the
  blind (``cap_counts_blind=False`` in the engine).  With the house rule
  (``cap_counts_blind=True``, the blind counts) the engine allows one raise fewer
  pre-flop; there the engine's "no raise" is accepted where pokerkit would
  still allow one, and everything else must agree.
* Odd chips: pokerkit gives the odd chip of a split pot to the lowest player
  index, all of them to that one player (``divmod``); the engine gives them one
  each to the first winners clockwise from the button (lowest positions).
  Stacks are compared exactly, except that a player who took part in a split
  with odd chips may differ by up to that split's odd chips.
* Raise sizes (see ``pokerkit_raise_size_quirk``): after an all-in bet or
  raise smaller than a full one, pokerkit allows raises the house rules do not;
  there the engine's raise range must be within pokerkit's (or empty).
* A big-blind (or button) ante with ``ante_trimming_status = true`` is not
  compared: the spec advises against it; pokerkit then hands the part of the
  ante nobody matched back to its poster at once (so a pot-limit maximum is
  smaller, and a fold does not lose it), the engine keeps it in a pot layer
  only the poster can win.
"""

from __future__ import annotations

import random
import tomllib
import warnings
from collections import Counter
from pathlib import Path

import pokerkit
import pytest
from pokerkit import Automation, BettingStructure, Opening, State, Street

from engine.actions import Action
from engine.cards import seeded_deck
from engine.events import PotAwarded
from engine.phh import loads, replay
from engine.phh.policy import choose
from engine.phh.simulate import simulate
from engine.poker.hand import Hand, HandSetup

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


def pokerkit_state(setup: HandSetup) -> State:
    """A pokerkit hold'em state for ``setup``, built with the generic ``State`` constructor."""
    limit = 4 if setup.structure == "FL" else None
    small, big = setup.min_bet, setup.big_bet or setup.min_bet

    def street(dealt: int, size: int, first: bool = False) -> Street:
        hole = (False, False) if first else ()
        return Street(not first, hole, dealt, False, Opening.POSITION, size, limit)

    streets = (street(0, small, first=True), street(3, small), street(1, big), street(1, big))
    return State(
        AUTOMATIONS,
        pokerkit.Deck.STANDARD,
        (pokerkit.StandardHighHand,),
        streets,
        BETTING[setup.structure],
        setup.ante_trimming,
        setup.antes,
        setup.blinds,
        0,
        setup.stacks,
        setup.n,
        mode=pokerkit.Mode.CASH_GAME,
    )


def deal_pending(state: State, hand: Hand) -> None:
    """Do pokerkit's dealing with the engine's cards (hole cards one at a time, no burns)."""
    holes = hand.hole_cards
    board = [str(card) for card in hand.deck[2 * hand.n : 2 * hand.n + 5]]
    while state.status:
        if state.can_deal_hole():
            player = state.hole_dealee_index
            state.deal_hole(str(holes[player][len(state.hole_cards[player])]))
        elif state.can_burn_card():
            state.burn_card("??")
        elif state.can_deal_board():
            dealt = sum(1 for _ in state.get_board_cards(0))
            count = state.board_dealing_count
            state.deal_board("".join(board[dealt : dealt + count]))
        else:
            return


def random_setup(rng: random.Random, structure: str) -> HandSetup:
    """Tables of 2–10 players, antes, straddles, short stacks (some below the blinds)."""
    players = rng.randint(2, 10)
    small, big = rng.choice([(1, 2), (5, 10), (25, 50)])
    stacks = [rng.randint(20 * big, 250 * big) for _ in range(players)]
    for i in range(players):
        if rng.random() < 0.3:
            stacks[i] = rng.randint(1, 15 * big)
    blinds = [small, big] + [0] * (players - 2)
    if players >= 4 and structure == "NL" and rng.random() < 0.1:
        blinds[2] = 2 * big  # an UTG straddle
    antes = [0] * players
    trimming = rng.random() < 0.5
    kind = rng.random()
    if kind < 0.3:
        antes = [rng.randint(1, big)] * players
    elif kind < 0.45:
        antes[1 if rng.random() < 0.8 else -1] = big  # big-blind ante, or button ante
        trimming = False
    return HandSetup(
        structure=structure,
        stacks=tuple(stacks),
        blinds=tuple(blinds),
        antes=tuple(antes),
        min_bet=big,
        big_bet=2 * big if structure == "FL" else 0,
        cap_counts_blind=structure == "FL" and rng.random() < 0.3,
        ante_trimming=trimming,
    )


def odd_split_allowance(hand: Hand) -> Counter[int]:
    """Per player, how many chips odd-chip rules may move: the odd chips of their splits."""
    winners: dict[int, list[int]] = {}
    amounts: Counter[int] = Counter()
    for event in hand.events:
        if isinstance(event, PotAwarded):
            winners.setdefault(event.pot, []).append(event.player)
            amounts[event.pot] += event.amount
    allowance: Counter[int] = Counter()
    for pot, players in winners.items():
        odd = amounts[pot] % len(players)
        for player in players:
            allowance[player] += odd  # pokerkit gives all odd chips to one player
    return allowance


def pokerkit_raise_size_quirk(state: State, hand: Hand) -> bool:
    """pokerkit's last-raise size starts at 0 on every street.

    So for pokerkit an all-in bet or raise smaller than a full one (while no full
    one was made on the street) is a full raise that reopens the betting; the
    house rule says it does not.  The engine's legal set is then a subset.
    """
    return 0 < state.completion_betting_or_raising_amount < hand.raise_size


def cumulative_reopening(hand: Hand) -> bool:
    """The actor already acted on this street and, through short all-ins after that,
    now faces at least a full raise: reopened for the engine (TDA; docs/engine.md,
    "Reopening"), not for pokerkit, which compares each raise with the last full one
    on its own. The engine then offers a raise where pokerkit offers none."""
    acted = hand.acted_at[hand.actor] if hand.actor is not None else -1
    return acted >= 0 and hand.current_bet - acted >= hand.raise_size


def play_both(setup: HandSetup, deck_seed: int, rng: random.Random) -> tuple[Hand, State]:
    """Random play mirrored move by move; legal actions are compared on the way."""
    hand, _ = Hand.start(setup, seeded_deck(deck_seed))
    state = pokerkit_state(setup)
    while True:
        deal_pending(state, hand)
        if hand.actor is None:
            break
        legal = hand.legal_actions()
        if legal.can_show or legal.can_muck:
            # pokerkit shows or mucks on its own (shows when the hand can still win).
            hand.apply(Action.show() if rng.random() < 0.5 else Action.muck())
            continue
        assert state.actor_index == hand.actor, (setup, hand.history)
        assert (state.checking_or_calling_amount or None) == legal.call_amount
        pk_min = state.min_completion_betting_or_raising_to_amount
        pk_max = state.max_completion_betting_or_raising_to_amount
        ours = (legal.min_raise_to, legal.max_raise_to)
        if (pk_min, pk_max) == (None, None) != ours and cumulative_reopening(hand):
            ours = (None, None)  # both engines call or fold here
        capped = setup.structure == "FL" and setup.cap_counts_blind and hand.street_index == 0
        if (capped and ours == (None, None)) or pokerkit_raise_size_quirk(state, hand):
            assert ours == (None, None) or (pk_min is not None and pk_min <= ours[0]), (
                setup, hand.history, ours, (pk_min, pk_max))
        else:
            assert ours == (pk_min, pk_max), (setup, hand.history, ours, (pk_min, pk_max))
        kind, amount = choose(
            rng,
            can_check=legal.can_check,
            call_amount=legal.call_amount or 0,
            min_to=ours[0],
            max_to=ours[1],
        )
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


@pytest.mark.parametrize("structure", ["NL", "PL", "FL"])
def test_random_hands_match_pokerkit(structure: str) -> None:
    rng = random.Random(f"differential-{structure}")
    hands = odd_splits = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(1500):
            setup = random_setup(rng, structure)
            hand, state = play_both(setup, rng.getrandbits(32), rng)
            assert hand.is_over and not state.status, (setup, hand.history)
            ours, theirs = hand.finishing_stacks, tuple(state.stacks)
            assert ours is not None
            allowance = odd_split_allowance(hand)
            odd_splits += bool(allowance)
            assert sum(ours) == sum(theirs) == sum(setup.stacks)
            for player, (a, b) in enumerate(zip(ours, theirs, strict=True)):
                assert abs(a - b) <= allowance[player], (setup, hand.history, ours, theirs)
            hands += 1
    assert hands == 1500


def _pokerkit_finishing_stacks(path: Path) -> list[int]:
    with path.open("rb") as file, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        states = list(pokerkit.HandHistory.load(file))
    state = states[-1]
    assert not state.status, path
    return [int(stack) for stack in state.stacks]


@pytest.mark.parametrize("variant", ["NT", "FT"])
def test_simulated_files_replay_in_pokerkit(variant: str, tmp_path: Path) -> None:
    paths = simulate(variant=variant, players=6, hands=150, seed=11, out=tmp_path,
                     antes=True, short_stacks=True)
    paths += simulate(variant=variant, players=2, hands=50, seed=12, out=tmp_path / "hu",
                      antes=True, short_stacks=True)
    for path in paths:
        raw = tomllib.loads(path.read_text())
        expected = raw["finishing_stacks"]
        ours = replay(loads(path.read_text()))
        theirs = _pokerkit_finishing_stacks(path)
        assert list(ours.finishing_stacks) == expected, path.read_text()
        allowance = odd_split_allowance(ours.hand)
        for player, (a, b) in enumerate(zip(theirs, expected, strict=True)):
            assert abs(a - b) <= allowance[player], path.read_text()


def test_no_raise_when_every_other_contender_is_covered() -> None:
    """Nobody left could answer a raise: pokerkit offers only call/fold, so should we."""
    setup = HandSetup(structure="NL", stacks=(100, 100, 500, 60), blinds=(1, 2, 0, 0))
    hand, _ = Hand.start(setup, seeded_deck(1))
    for action in (Action.raise_to(10), Action.call(), Action.raise_to(100), Action.fold()):
        hand.apply(action)
    # Position 2 faces an all-in of 100; position 3 can put in 60 at most: it is covered.
    assert hand.actor == 2
    state = pokerkit_state(setup)
    deal_pending(state, hand)
    state.complete_bet_or_raise_to(10)
    state.check_or_call()
    state.complete_bet_or_raise_to(100)
    state.fold()
    assert state.actor_index == 2
    assert state.max_completion_betting_or_raising_to_amount is None
    assert hand.legal_actions().min_raise_to is None


def test_lone_player_with_chips_is_not_asked_to_act() -> None:
    """Heads-up, the button is all-in posting the small blind: nobody can act."""
    setup = HandSetup(structure="NL", stacks=(500, 7), blinds=(25, 50), min_bet=50)
    hand, _ = Hand.start(setup, seeded_deck(1))
    state = pokerkit_state(setup)
    deal_pending(state, hand)
    assert not state.status  # pokerkit ran the board out and paid the pot
    assert hand.is_over and hand.finishing_stacks == tuple(state.stacks)
