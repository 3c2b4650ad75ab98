"""Table level: seating, button, joining, missed blinds, buy-ins, timeouts, names."""

from __future__ import annotations

import pytest

from engine.actions import Action
from engine.cards import seeded_deck
from engine.errors import IllegalAction, MalformedAction
from engine.events import CashOut, ChipsAdded, Event, PlayerLeft, PlayerSatOut, PlayerTimedOut
from engine.projection import Viewer
from engine.table import SITTING_OUT, TableSettings, TableState


def table(*seats: int, structure: str = "NL", size: int = 6, ante: int = 0) -> TableState:
    t = TableState(TableSettings(structure=structure, small_blind=1, big_blind=2, seats=size,
                                 ante=ante))
    for seat in seats:
        t.sit(seat, f"p{seat}", 200)
    return t


def finish(t: TableState) -> None:
    """Play the hand out with check/fold/muck (as the players, not as timeouts)."""
    assert t.hand is not None
    while t.to_act_seat is not None:
        t.act(t.to_act_seat, t.hand.default_action())


def deal(t: TableState, seed: int = 0) -> tuple[list[int], tuple[int, ...], tuple[int, ...]]:
    t.start_hand(seeded_deck(seed))
    assert t.hand is not None
    return t.positions, t.hand.setup.blinds, t.hand.setup.dead_blinds


def test_game_names() -> None:
    assert table().name == "Texas Hold'em NL200 (1/2)"
    assert table(structure="PL", ante=1).name == "Texas Hold'em PL200 (1/2) ante 1"
    assert table(structure="FL").name == "Texas Hold'em FL 2/4"


def test_buy_in_limits_and_add_chips() -> None:
    t = table()
    with pytest.raises(IllegalAction) as error:
        t.sit(0, "a", 39)
    assert error.value.code == "below_min_buy_in"
    with pytest.raises(IllegalAction) as error:
        t.sit(0, "a", 201)
    assert error.value.code == "above_max_buy_in"
    with pytest.raises(MalformedAction):
        t.sit(0, "a", -5)
    t.sit(0, "a", 150)
    with pytest.raises(IllegalAction) as error:
        t.sit(1, "a", 150)
    assert error.value.code == "already_seated"
    with pytest.raises(IllegalAction):
        t.add_chips(0, 51)
    t.add_chips(0, 50)
    fl = table(structure="FL")
    assert fl.settings.max_buy_in is None and fl.settings.min_buy_in == 40
    fl.sit(0, "rich", 10_000)


def test_chips_added_during_own_hand_arrive_when_it_ends() -> None:
    t = table(0, 1, 2)
    t.seats[0].stack = 100  # type: ignore[union-attr]
    deal(t)
    assert t.in_hand(0)
    with pytest.raises(IllegalAction) as error:  # never above the maximum in total
        t.add_chips(0, 101)
    assert error.value.code == "above_max_buy_in"
    assert [e.type for e in t.add_chips(0, 10)] == ["ChipsPending"]
    stack_before = t.seats[0].stack  # type: ignore[union-attr]
    assert stack_before <= 100  # nothing reaches the stack during the hand
    events: list[Event] = []
    while t.to_act_seat is not None:
        assert t.hand is not None
        events += t.act(t.to_act_seat, t.hand.default_action())
    added = [e for e in events if isinstance(e, ChipsAdded)]
    assert [(e.player, e.amount) for e in added] == [(0, 10)]
    assert t.seats[0].pending_chips == 0  # type: ignore[union-attr]


def test_pending_chips_are_capped_by_the_maximum_when_the_hand_ends() -> None:
    t = table(0, 1, 2)
    t.seats[0].stack = 190  # type: ignore[union-attr]
    deal(t)
    t.add_chips(0, 10)  # 190 + 10 is the maximum now
    events: list[Event] = []
    while t.to_act_seat is not None:  # everybody else folds: seat 0 wins the blinds
        assert t.hand is not None
        seat = t.to_act_seat
        legal = t.legal_actions(seat)
        if seat != 0 and legal.can_fold:
            action = Action.fold()
        elif legal.call_amount:
            action = Action.call()
        else:
            action = t.hand.default_action()
        events += t.act(seat, action)
    won = t.hand.results[t.positions.index(0)].net  # type: ignore[union-attr]
    assert won > 0
    added = sum(e.amount for e in events if isinstance(e, ChipsAdded))
    assert added == max(0, 10 - won) and t.seats[0].stack == 190 + won + added  # type: ignore[union-attr]


def test_button_moves_and_blinds() -> None:
    t = table(0, 2, 4)
    positions, blinds, _ = deal(t)
    assert t.button == 0 and positions == [2, 4, 0] and blinds == (1, 2, 0)
    finish(t)
    positions, blinds, _ = deal(t)
    assert t.button == 2 and positions == [4, 0, 2]


def test_new_player_posts_big_blind_and_may_check() -> None:
    t = table(0, 1, 2, 3)
    deal(t)
    finish(t)  # button 0
    t.sit(5, "newbie", 200)
    positions, blinds, _ = deal(t)
    assert t.button == 1 and positions == [2, 3, 5, 0, 1] and blinds == (1, 2, 2, 0, 0)
    assert t.to_act_seat == 5 and t.legal_actions(5).can_check


def test_new_player_not_dealt_as_small_blind_or_button() -> None:
    t = table(0, 2, 4)
    deal(t)
    finish(t)  # button 0; next hand: button 2, SB would be seat 3
    t.sit(3, "newbie", 200)
    positions, _, _ = deal(t)
    assert 3 not in positions and positions == [4, 0, 2]
    finish(t)  # next: button 4, SB 0, BB 2, then 3 posts a BB to join
    positions, blinds, _ = deal(t)
    assert positions == [0, 2, 3, 4] and blinds == (1, 2, 2, 0)


def test_wait_for_big_blind() -> None:
    t = table(0, 1, 2, 3)
    deal(t)
    finish(t)  # button 0
    t.sit(5, "patient", 200, wait_for_bb=True)
    positions, _, _ = deal(t)  # button 1, SB 2, BB 3: seat 5 keeps waiting
    assert 5 not in positions
    finish(t)
    positions, blinds, _ = deal(t)  # button 2, SB 3, BB 5
    assert positions[:2] == [3, 5] and blinds[:3] == (1, 2, 0)


def test_missed_blinds_posted_on_return() -> None:
    t = table(0, 1, 2, 3)
    deal(t)
    finish(t)  # button 0, SB 1, BB 2
    t.sit_out(3)
    deal(t)  # button 1, SB 2, BB 0: seat 3 missed the BB
    finish(t)
    assert t.seats[3].missed_bb and not t.seats[3].missed_sb  # type: ignore[union-attr]
    deal(t)  # button 2, SB 0, BB 1: seat 3 missed the SB too
    finish(t)
    assert t.seats[3].missed_sb  # type: ignore[union-attr]
    t.sit_in(3)
    positions, blinds, dead = deal(t)  # button 3? no: button moves to 0
    assert t.button == 0 and positions == [1, 2, 3, 0]
    assert blinds == (1, 2, 2, 0) and dead == (0, 0, 1, 0)  # BB live, SB dead
    assert t.hand is not None and t.hand.bets == (1, 2, 2, 0)


def test_return_in_big_blind_costs_nothing_extra() -> None:
    t = table(0, 1, 2, 3)
    deal(t)
    finish(t)  # button 0
    seat = t.seats[3]
    assert seat is not None
    seat.missed_sb = seat.missed_bb = True  # as if back from a break
    positions, blinds, dead = deal(t)  # button 1, SB 2, BB 3
    assert positions == [2, 3, 0, 1] and blinds == (1, 2, 0, 0) and dead == (0, 0, 0, 0)
    assert not seat.missed_sb and not seat.missed_bb


def test_returning_player_is_not_dealt_as_small_blind() -> None:
    t = table(0, 1, 2, 3)
    deal(t)
    finish(t)  # button 0
    t.sit_out(3)
    deal(t)  # button 1, SB 2, BB 0 (3 missed the BB)
    finish(t)
    t.sit_in(3)
    positions, _, _ = deal(t)  # button 2: seat 3 would be the SB, so waits
    assert positions == [0, 1, 2]
    finish(t)
    positions, blinds, dead = deal(t)  # button 0, SB 1, BB 2, seat 3 posts the missed BB
    assert positions == [1, 2, 3, 0] and blinds == (1, 2, 2, 0) and dead == (0, 0, 0, 0)


def test_only_missed_small_blind_posts_live_small_blind() -> None:
    t = table(0, 1, 2, 3, 4)
    deal(t)
    finish(t)  # button 0, SB 1, BB 2
    t.sit_out(2)
    deal(t)  # button 1; SB would be 2: seat 2 misses the SB, SB 3, BB 4
    finish(t)
    assert t.seats[2].missed_sb and not t.seats[2].missed_bb  # type: ignore[union-attr]
    t.sit_in(2)
    positions, blinds, dead = deal(t)  # button 2?? button moves to 3
    assert positions == [4, 0, 1, 2, 3] and blinds == (1, 2, 0, 1, 0) and not any(dead)


def test_two_timeouts_sit_the_player_out() -> None:
    t = table(0, 1, 2)
    deal(t)  # button 0, SB 1, BB 2; seat 0 acts first
    events = t.timeout()
    assert PlayerTimedOut(0, "fold") in events and t.seats[0].timeouts == 1  # type: ignore[union-attr]
    finish(t)
    deal(t)  # button 1, SB 2, BB 0; seat 1 acts first
    finish(t)
    deal(t)  # button 2: seat 2 first? button 2, SB 0, BB 1 -> seat 2 acts first
    assert t.to_act_seat == 2
    t.act(2, Action.call())
    events = t.timeout()  # seat 0 (SB) times out: second in a row? no: reset by acting
    assert t.seats[0].status != SITTING_OUT  # type: ignore[union-attr]
    while t.to_act_seat is not None and t.to_act_seat != 0:
        t.act(t.to_act_seat, t.hand.default_action())  # type: ignore[union-attr]
    if t.to_act_seat == 0:
        events = t.timeout()
        assert PlayerSatOut(0, "timeouts") in events


def test_letting_the_optional_show_or_muck_run_out_is_not_a_timeout_that_counts() -> None:
    """The show/muck prompt after an uncontested win (and a losing hand's at showdown)
    is a formality: its timer running out mucks, but never sits the player out."""
    t = table(0, 1)
    for hand in range(3):
        deal(t, seed=hand)
        while t.hand is not None and not t.hand.formality:  # everyone folds to one player
            t.act(t.to_act_seat, Action.fold())  # type: ignore[arg-type]
        assert t.hand is not None and t.hand.formality
        winner = t.to_act_seat
        assert winner is not None
        events = t.timeout()
        assert any(isinstance(e, PlayerTimedOut) for e in events)
        assert PlayerSatOut(winner, "timeouts") not in events
        assert t.seats[winner].timeouts == 0  # type: ignore[union-attr]
        assert t.seats[winner].status != SITTING_OUT  # type: ignore[union-attr]
    # A real decision's timeouts still count.
    deal(t, seed=9)
    seat = t.to_act_seat
    t.timeout()
    assert t.seats[seat].timeouts == 1  # type: ignore[index, union-attr]


def test_leave_during_hand_folds_and_frees_seat_at_end() -> None:
    t = table(0, 1, 2)
    deal(t)
    events = t.leave(0)  # seat 0 is the actor: folded right away
    assert t.seats[0] is not None and t.to_act_seat == 1
    finish(t)
    assert t.seats[0] is None
    assert any(isinstance(e, PlayerLeft) for e in t.hand.events) is False  # type: ignore[union-attr]
    assert events


def test_leave_between_hands_cashes_out() -> None:
    t = table(0, 1)
    assert t.leave(1) == [PlayerLeft(1, "p1", 200), CashOut(1, "p1", 200)]


def test_table_json_round_trip_after_every_action() -> None:
    t = table(0, 1, 2)
    for seed in range(5):
        deal(t, seed)
        while t.to_act_seat is not None:
            again = TableState.from_json(t.to_json())
            assert again.to_json() == t.to_json()
            assert again.view(Viewer.of(0)) == t.view(Viewer.of(0))
            legal = t.legal_actions(t.to_act_seat)
            action = Action.call() if legal.call_amount is not None else t.hand.default_action()  # type: ignore[union-attr]
            t.act(t.to_act_seat, action)
        assert TableState.from_json(t.to_json()).to_json() == t.to_json()
