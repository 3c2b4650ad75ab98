"""Hand-level rules: order of play, sizing, pots, showdown."""

from __future__ import annotations

import pytest

from engine.actions import Action
from engine.cards import format_cards, standard_deck
from engine.errors import IllegalAction, MalformedAction
from engine.events import CardsMucked, CardsShown, PotAwarded, UncalledBetReturned
from engine.poker.hand import Hand, HandSetup

from .helpers import deck_with


def pots(hand: Hand) -> list[tuple[int, tuple[int, ...]]]:
    return [(p.amount, p.eligible) for p in hand.pots]


def play(hand: Hand, *texts: str) -> None:
    for text in texts:
        hand.apply(Action.parse(text))


def test_worked_side_pot_example() -> None:
    deck = deck_with("KsKd", "7c2d", "8h3h", "AhAd", board="2c9dJs4h5s")
    setup = HandSetup(structure="NL", stacks=(30, 200, 200, 20), blinds=(1, 2, 0, 0))
    hand, _ = Hand.start(setup, deck)
    play(hand, "raise 5", "call", "call", "call")  # pre-flop: 5 each, pot 20
    assert hand.street == "flop" and pots(hand) == [(20, (0, 1, 2, 3))]
    play(hand, "bet 10", "raise 30", "call", "call")  # P4 calls all-in with 15
    assert pots(hand) == [(75, (0, 1, 2, 3)), (30, (0, 1, 2))]  # P1 may still call
    play(hand, "call")  # P1 calls all-in for 25 in total
    assert pots(hand) == [(80, (0, 1, 2, 3)), (30, (0, 1, 2)), (10, (1, 2))]
    assert hand.street == "turn" and hand.actor == 1
    hand.apply(Action.bet(50))
    events = hand.apply(Action.fold())
    assert UncalledBetReturned(1, 50) in events
    assert hand.is_over and hand.board == tuple(deck[8:13])
    assert [p.amount for p in hand.pots] == [80, 30, 10]
    assert [p.eligible for p in hand.pots] == [(0, 1, 3), (0, 1), (1,)]
    awarded = [(e.pot, e.player, e.amount) for e in events if isinstance(e, PotAwarded)]
    assert awarded == [(0, 3, 80), (1, 0, 30), (2, 1, 10)]
    assert hand.finishing_stacks == (30, 200 - 35 + 10, 200 - 35, 80)
    assert sum(hand.finishing_stacks) == 450


def test_heads_up_button_posts_small_blind_and_acts_first() -> None:
    hand, _ = Hand.start(HandSetup(stacks=(100, 100), blinds=(1, 2)), standard_deck())
    assert hand.bets == (2, 1) and hand.actor == 1
    play(hand, "call")
    assert hand.actor == 0 and hand.legal_actions().can_check  # BB option
    play(hand, "check")
    assert hand.street == "flop" and hand.actor == 0  # BB acts first after the flop


def test_heads_up_antes_are_reversed_too() -> None:
    setup = HandSetup(stacks=(100, 100), blinds=(1, 2), antes=(0, 2))  # BB ante
    hand, _ = Hand.start(setup, standard_deck())
    assert hand.stacks == (96, 99)


def fl(n: int, **kw: object) -> Hand:
    setup = HandSetup(structure="FL", stacks=(1000,) * n, blinds=(1, 2) + (0,) * (n - 2),
                      min_bet=2, big_bet=4, **kw)  # type: ignore[arg-type]
    return Hand.start(setup, standard_deck())[0]


@pytest.mark.parametrize("n", [2, 3, 6])
def test_fixed_limit_cap_counts_the_blind(n: int) -> None:
    hand = fl(n)
    for to in (4, 6, 8):
        legal = hand.legal_actions()
        assert (legal.min_raise_to, legal.max_raise_to) == (to, to)
        hand.apply(Action.raise_to(to))
    legal = hand.legal_actions()
    assert legal.min_raise_to is None and legal.call_amount is not None
    with pytest.raises(IllegalAction) as error:
        hand.apply(Action.raise_to(10))
    assert error.value.code == "raise_not_allowed"


def test_fixed_limit_cap_pokerkit_convention_allows_one_more_raise() -> None:
    hand = fl(3, cap_counts_blind=False)
    for to in (4, 6, 8, 10):
        hand.apply(Action.raise_to(to))
    assert hand.legal_actions().min_raise_to is None


def test_fixed_limit_big_bet_on_turn_and_cap_post_flop() -> None:
    hand = fl(2)
    play(hand, "call", "check", "check", "check")
    assert hand.street == "turn"
    assert hand.legal_actions().min_raise_to == 4
    play(hand, "bet 4", "raise 8", "raise 12", "raise 16")
    assert hand.legal_actions().min_raise_to is None


def nl(stacks: tuple[int, ...], **kw: object) -> Hand:
    blinds = (1, 2) + (0,) * (len(stacks) - 2)
    setup = HandSetup(structure="NL", stacks=stacks, blinds=blinds, **kw)  # type: ignore[arg-type]
    return Hand.start(setup, standard_deck())[0]


def test_no_limit_min_raise_is_last_full_increment() -> None:
    hand = nl((500, 500, 500, 500))
    assert hand.legal_actions().min_raise_to == 4
    play(hand, "raise 10")  # increment 8
    assert hand.legal_actions().min_raise_to == 18
    with pytest.raises(IllegalAction) as error:
        hand.apply(Action.raise_to(17))
    assert error.value.code == "bad_amount"
    play(hand, "raise 30")  # increment 20
    assert hand.legal_actions().min_raise_to == 50
    assert hand.legal_actions().max_raise_to == 500


def test_min_bet_post_flop_and_bet_versus_raise() -> None:
    hand = nl((100, 100, 100))
    play(hand, "call", "call", "check")
    legal = hand.legal_actions()
    assert legal.sized_kind == "bet" and legal.min_raise_to == 2
    with pytest.raises(IllegalAction):
        hand.apply(Action.raise_to(10))
    play(hand, "bet 7")
    assert hand.legal_actions().min_raise_to == 14


def test_short_all_in_does_not_reopen_for_players_who_acted() -> None:
    # positions: 0 SB, 1 BB, 2 UTG (short), 3 CO, 4 BTN
    hand = nl((500, 500, 500, 150, 500))
    play(hand, "raise 100")  # UTG raises to 100 (increment 98)
    play(hand, "raise 150")  # CO all-in for 150: short raise (increment 50)
    legal = hand.legal_actions()  # BTN has not acted: may raise normally
    assert hand.actor == 4 and legal.min_raise_to == 248
    play(hand, "fold", "fold", "fold")  # BTN, SB, BB fold
    legal = hand.legal_actions()  # UTG acted before the short all-in
    assert hand.actor == 2 and legal.call_amount == 50 and legal.min_raise_to is None
    with pytest.raises(IllegalAction):
        hand.apply(Action.raise_to(300))


def test_series_of_short_all_ins_reopens_when_cumulatively_a_full_raise() -> None:
    # UTG raises to 100; two short all-ins (150, 210) add 110 >= the full raise of 98.
    hand = nl((500, 500, 500, 150, 210, 500))
    play(hand, "raise 100", "raise 150", "raise 210")
    assert hand.legal_actions().min_raise_to == 308  # BTN had not acted
    play(hand, "call", "fold", "fold")
    legal = hand.legal_actions()
    assert hand.actor == 2 and legal.min_raise_to == 308  # 110 >= 98: reopened


def test_pot_limit_maximum_is_pot_after_call() -> None:
    hand = Hand.start(HandSetup(structure="PL", stacks=(500,) * 4, blinds=(1, 2, 0, 0)),
                      standard_deck())[0]
    assert hand.legal_actions().max_raise_to == 7  # 3 in pot + 2 call + 2
    play(hand, "raise 7")
    assert hand.legal_actions().max_raise_to == 7 + (10 + 7)  # call 7, pot 17
    play(hand, "call", "call", "call")
    assert hand.legal_actions().max_raise_to == 28  # post-flop: the pot


def test_uncontested_bet_returned_and_winner_may_show() -> None:
    hand = nl((100, 100, 100))
    play(hand, "raise 10", "fold")
    events = hand.apply(Action.fold())
    assert UncalledBetReturned(2, 8) in events
    assert hand.legal_actions().can_show and hand.default_action() == Action.muck()
    events = hand.apply(Action.show())
    assert isinstance(events[0], CardsShown) and hand.is_over
    assert hand.finishing_stacks == (99, 98, 103)


def test_odd_chip_goes_first_clockwise_from_button() -> None:
    # three-way split of 5 chips? use a board that plays for everybody
    deck = deck_with("2c3d", "2d3c", "2h3h", board="AsKsQsJsTs")
    setup = HandSetup(stacks=(100, 100, 100), blinds=(1, 2, 0), antes=(1, 1, 0))
    hand = Hand.start(setup, deck)[0]
    play(hand, "call", "call", "check")
    for _ in range(3):
        play(hand, "check", "check", "check")
    won = [e.amount for e in hand.events if isinstance(e, PotAwarded)]
    assert won == [3, 3, 2]  # pot 8: odd chips to positions 0 and 1


def test_heads_up_odd_chip_goes_to_big_blind() -> None:
    deck = deck_with("2c3d", "2d3c", board="AsKsQsJsTs")
    setup = HandSetup(stacks=(100, 100), blinds=(1, 2), dead_blinds=(1, 0))
    hand = Hand.start(setup, deck)[0]
    play(hand, "call", "check", *["check"] * 6)
    assert hand.finishing_stacks == (100, 100)  # pot 5 (dead SB): odd chip to the BB


def test_showdown_order_and_show_or_muck() -> None:
    # position 1 bets the river and shows first; 2 loses and may muck; 0 wins and shows.
    deck = deck_with("AhAd", "KhKd", "7c2d", board="Qs9s5c4h3d")
    hand = nl((100, 100, 100))
    hand = Hand.start(hand.setup, deck)[0]
    play(hand, "call", "call", "check")  # pre-flop
    play(hand, "check", "check", "check", "check", "check", "check")  # flop, turn
    events = hand.apply(Action.check())
    events += hand.apply(Action.bet(10))
    events += hand.apply(Action.call())
    events += hand.apply(Action.call())
    assert isinstance(events[-1], CardsShown) and events[-1].player == 1
    assert hand.actor == 2 and hand.legal_actions().can_muck
    with pytest.raises(IllegalAction):
        hand.apply(Action.fold())
    events = hand.apply(Action.muck())
    assert events[0] == CardsMucked(2)
    assert isinstance(events[1], CardsShown) and events[1].player == 0
    assert hand.is_over and hand.finishing_stacks == (100 + 24, 100 - 12, 100 - 12)
    results = hand.results
    assert results is not None and results[0].hand == "Pair of Aces"
    assert results[2].shown is None and format_cards(results[1].shown or ()) == "KhKd"


def test_all_in_showdown_reveals_everybody_then_runs_out() -> None:
    deck = deck_with("AhAd", "KhKd", board="Qs9s5c4h3d")
    hand = Hand.start(HandSetup(stacks=(50, 50), blinds=(1, 2)), deck)[0]
    play(hand, "raise 50")
    events = hand.apply(Action.call())
    assert [type(e).__name__ for e in events][:3] == ["PlayerCalled", "CardsShown", "CardsShown"]
    assert hand.is_over and hand.finishing_stacks == (100, 0)


def test_errors_do_not_change_state() -> None:
    hand = nl((100, 100, 100))
    before = hand.to_json()
    for bad in ("check", "bet 10", "raise 3", "raise 101", "show"):
        with pytest.raises(IllegalAction):
            hand.apply(Action.parse(bad))
    with pytest.raises(MalformedAction):
        hand.apply("fold")  # type: ignore[arg-type]
    with pytest.raises(IllegalAction) as error:
        hand.apply_for(0, Action.fold())
    assert error.value.code == "not_your_turn"
    assert hand.to_json() == before


def test_short_stacks_post_what_they_have() -> None:
    hand = Hand.start(HandSetup(stacks=(1, 1, 100), blinds=(1, 2, 0), antes=(1, 1, 1)),
                      standard_deck())[0]
    assert [type(e).__name__ for e in hand.events[:3]] == ["AntePosted"] * 3
    # Nobody is left to bet against the button: no decision, run out and award at once.
    assert hand.actor is None and hand.is_over
    assert sum(hand.stacks) == 102


def test_json_round_trip_and_copy() -> None:
    hand = nl((100, 100, 100))
    play(hand, "raise 6", "call")
    again = Hand.from_json(hand.to_json())
    assert again == hand and again.to_json() == hand.to_json()
    other = hand.copy()
    other.apply(Action.fold())
    assert hand.actor == 1 and other.actor != 1
