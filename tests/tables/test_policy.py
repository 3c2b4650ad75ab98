"""An act's optional ``policy`` at a live table (docs/protocol.md, Policies): checked,
kept with the hand for the acting seat, shown only to that seat's owner and superusers;
a bad one is refused with ``invalid_policy`` and changes nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tables import selectors, services
from tables.errors import TableError
from tables.models import Hand, Table

from .helpers import assert_chips_conserved, sit, turn

pytestmark = pytest.mark.django_db


def act(table: Any, user: Any, action: dict[str, Any], policy: Any) -> int:
    _, hand, version, _ = turn(table.pk)
    command = {"type": "act", "hand": hand, "version": version, "action": action,
               "policy": policy}
    return services.execute(table_id=table.pk, user=user, command=command).version


def test_a_policy_is_kept_with_the_hand_and_shown_only_to_its_owner(
        table: Any, alice: Any, bob: Any, carol: Any, root: Any) -> None:
    sit(table, alice, 0)
    sit(table, bob, 1)
    users = {0: alice, 1: bob}
    seat, hand_id, _, legal = turn(table.pk)
    assert seat is not None and legal["call_amount"]
    policy = [{"move": {"kind": "fold"}, "p": 0.25}, {"move": {"kind": "call"}, "p": 0.5},
              {"move": {"kind": "raise"}, "p": 0.25,
               "range": {"amount": [legal["min_raise_to"], legal["max_raise_to"]]}}]
    act(table, users[seat], {"kind": "fold"}, policy)
    hand = Hand.objects.get(pk=hand_id)
    assert len(hand.policies) == 1
    entry = hand.policies[0]
    assert entry["seat"] == seat and hand.calls[entry["call"]] == ["apply", seat, {"kind": "fold"}]
    assert sum(e["p"] for e in entry["policy"]) == pytest.approx(1)
    owner = selectors.hand_history(hand_id, users[seat])["policies"]
    assert owner == [{"seat": seat, "action": {"kind": "fold"}, "policy": entry["policy"]}]
    assert selectors.hand_history(hand_id, root)["policies"] == owner
    for other in (users[1 - seat], carol):  # the opponent and a spectator: nothing
        history = selectors.hand_history(hand_id, other)
        assert history["policies"] == [] and '"p"' not in json.dumps(history)
    assert_chips_conserved()


@pytest.mark.parametrize(("policy", "code"), [
    ("fold", "invalid_policy"),
    ([], "invalid_policy"),
    ([{"move": {"kind": "fold"}, "p": 0.5}], "invalid_policy"),  # sums to 0.5
    ([{"move": {"kind": "check"}, "p": 1}], "invalid_policy"),  # not legal now
    ([{"move": {"kind": "call"}, "p": 1}], "invalid_policy"),  # the fold has p 0
    ([{"move": {"kind": "fold"}, "p": True}], "invalid_policy"),
    ([{"move": {"kind": "fold"}, "p": 1}] * 65, "invalid_policy"),
    ([[[[[]]]]], "invalid_policy"),
])
def test_a_bad_policy_is_refused_and_changes_nothing(table: Any, alice: Any, bob: Any,
                                                     policy: Any, code: str) -> None:
    sit(table, alice, 0)
    sit(table, bob, 1)
    seat, hand_id, _, _ = turn(table.pk)
    before = Table.objects.get(pk=table.pk)
    with pytest.raises(TableError) as error:
        act(table, {0: alice, 1: bob}[seat], {"kind": "fold"}, policy)
    assert error.value.code == code
    after = Table.objects.get(pk=table.pk)
    assert (after.version, after.state) == (before.version, before.state)
    assert Hand.objects.get(pk=hand_id).policies == []


def test_an_illegal_move_with_a_policy_is_refused_as_illegal(table: Any, alice: Any,
                                                             bob: Any) -> None:
    sit(table, alice, 0)
    sit(table, bob, 1)
    seat, *_ = turn(table.pk)
    with pytest.raises(TableError) as error:
        act(table, {0: alice, 1: bob}[seat], {"kind": "check"},
            [{"move": {"kind": "check"}, "p": 1}])
    assert error.value.code == "illegal_action"
