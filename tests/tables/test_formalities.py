"""Formalities (poker: the optional show or muck) do not hold the table.

A person's seat skips them by default ("Auto-muck"): after an uncontested win the pot
is awarded and the next hand dealt at once, without the short show-or-muck timer.
Turning it off (``skip_formalities`` with ``on: false``) brings the prompt back;
turning it on while the prompt is pending answers it at once. Bots are asked as
before (they answer at once anyway).
"""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import Player, PlayerKind
from tables import selectors, services
from tables.errors import TableError
from tables.models import Hand, Seat, Table

from .helpers import act, assert_chips_conserved, sit, turn

pytestmark = pytest.mark.django_db


def skip(table: Any, user: Any, on: Any, **extra: Any) -> int:
    command = {"type": "skip_formalities", "on": on, **extra}
    return services.execute(table_id=table.pk, user=user, command=command).version


def fold_first(table: Any, users: dict[int, Any]) -> tuple[int, int]:
    """The first actor folds; returns (folder's seat, the hand's id)."""
    seat, hand, _, _ = turn(table.pk)
    assert seat is not None and hand is not None
    act(table.pk, users[seat], {"kind": "fold"})
    return seat, hand


def test_an_uncontested_win_deals_the_next_hand_at_once(table: Any, alice: Any,
                                                        bob: Any) -> None:
    sit(table, alice, 0)
    sit(table, bob, 1)
    assert all(s.skip_formalities for s in Seat.objects.filter(table=table))
    _, first = fold_first(table, {0: alice, 1: bob})
    table.refresh_from_db()
    # No show-or-muck decision: the first hand is over and the next one is running.
    assert table.current_hand_id != first
    ended = Hand.objects.get(pk=first)
    assert ended.ended_at is not None
    kinds = [e["type"] for e in ended.events]
    assert "CardsMucked" in kinds and "PlayerTimedOut" not in kinds
    status_seat, _, _, legal = turn(table.pk)
    assert status_seat is not None and not legal["can_show"]
    assert_chips_conserved()


def test_turning_it_off_brings_the_prompt_back_and_on_answers_it(table: Any, alice: Any,
                                                                 bob: Any) -> None:
    sit(table, alice, 0)
    sit(table, bob, 1)
    users = {0: alice, 1: bob}
    for user in users.values():
        skip(table, user, False)
    snapshot = selectors.snapshot(table.pk, alice)
    assert snapshot["you"]["skip_formalities"] == []
    _, first = fold_first(table, users)
    winner, hand, _, legal = turn(table.pk)
    assert hand == first and legal["can_show"] and legal["can_muck"]
    table.refresh_from_db()
    deadline = table.deadline
    assert deadline is not None
    # Turning it back on answers the pending prompt (muck) and deals on.
    assert winner is not None
    skip(table, users[winner], True)
    table.refresh_from_db()
    assert table.current_hand_id != first
    assert "CardsMucked" in [e["type"] for e in Hand.objects.get(pk=first).events]
    assert selectors.snapshot(table.pk, users[winner])["you"]["skip_formalities"] == [winner]
    assert_chips_conserved()


def test_bots_are_still_asked(table: Any, alice: Any, bob: Any) -> None:
    player = Player.objects.get(owner=bob, kind=PlayerKind.HUMAN)
    Player.objects.filter(pk=player.pk).update(kind=PlayerKind.BOT)
    sit(table, alice, 0)
    sit(table, bob, 1, player=player.pk)
    rows = {s.number: s.skip_formalities for s in Seat.objects.filter(table=table)}
    assert rows == {0: True, 1: False}


@pytest.mark.parametrize("on", [1, "yes", None, [True]])
def test_a_bad_value_is_refused_and_changes_nothing(table: Any, alice: Any, bob: Any,
                                                     on: Any) -> None:
    sit(table, alice, 0)
    before = Table.objects.get(pk=table.pk).version
    with pytest.raises(TableError) as error:
        skip(table, alice, on)
    assert error.value.code == "malformed_message"
    with pytest.raises(TableError) as error:
        skip(table, bob, True)  # not seated
    assert error.value.code == "not_seated"
    assert Table.objects.get(pk=table.pk).version == before
    assert Seat.objects.get(table=table, number=0).skip_formalities
