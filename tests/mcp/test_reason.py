"""An act's ``reason`` (docs/mcp.md, "The reason of an act"), in process: stored with the
hand next to the move, alone or with a policy; shown in the hand history to the seat's
owner and superusers only; a bad one is refused and changes nothing. Played through
agents.core as two MCP bots of two testers would."""

from __future__ import annotations

import json
from typing import Any

import pytest

from accounts.models import Role, User
from accounts.services import create_bot
from agents import core
from tables import selectors, services
from tables.errors import TableError
from tables.models import Hand, Table

pytestmark = pytest.mark.django_db


@pytest.fixture
def duel(root: Any) -> tuple[Any, Any, int]:
    bots = []
    for name in ("ann", "ben"):
        owner = User.objects.create_user(name, role=Role.TESTER)
        bots.append(create_bot(owner=owner, name=f"{name.title()}Bot")[0])
    table = core.create_table(bots[0], "Reasons", "holdem", {
        "structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 2}, 60)["table"]
    for bot in bots:
        core.sit(bot, table, buy_in=200)
    return bots[0], bots[1], table


def to_act(bots: tuple[Any, Any], table: int) -> tuple[Any, Any, dict[str, Any]]:
    for bot in bots:
        view = core.state(table, bot)
        if view["your_turn"]:
            return bot, bots[1 - bots.index(bot)], view
    raise AssertionError("nobody's turn")


def test_reasons_are_kept_and_shown_only_to_the_owner(duel: Any, root: Any) -> None:
    first, second, table = duel
    actor, _, view = to_act((first, second), table)
    hand_id = view["hand"]
    core.act(actor, table, "call", None, "  Priced in: pot odds 3 to 1.\nCalling.  ")
    actor, _, view = to_act((first, second), table)
    policy = [{"move": {"kind": "fold"}, "p": 1}]
    services.execute(table_id=table, user=actor.owner, bot=actor, command={
        "type": "act", "hand": view["hand"], "version": view["version"], "seat":
            view["seats_mine"][0], "action": {"kind": "fold"}, "policy": policy,
        "reason": "Nothing."})
    hand = Hand.objects.get(pk=hand_id)
    assert [e.get("reason") for e in hand.policies] == ["Priced in: pot odds 3 to 1.\nCalling.",
                                                        "Nothing."]
    assert hand.policies[0]["policy"] is None and hand.policies[1]["policy"]
    for bot in (first, second):
        mine = selectors.hand_history(hand_id, bot.owner)["policies"]
        seat = Table.objects.get(pk=table).seats.get(player=bot).number
        assert [p["seat"] for p in mine] == [seat]  # its own reason, not the other's
    everything = selectors.hand_history(hand_id, root)["policies"]
    assert [p["reason"] for p in everything] == ["Priced in: pot odds 3 to 1.\nCalling.",
                                                 "Nothing."]
    assert everything[0]["action"] == {"kind": "call"}
    spectator = User.objects.create_user("carl", role=Role.PLAYER)
    history = selectors.hand_history(hand_id, spectator)
    assert history["policies"] == [] and "Priced in" not in json.dumps(history)


@pytest.mark.parametrize(("reason", "code"), [
    ("x" * 2001, "reason_too_long"),
    ("a\x00b", "invalid_text"),
    ("bell\x07", "invalid_text"),
    (42, "malformed_message"),
    (["why"], "malformed_message"),
])
def test_a_bad_reason_is_refused_and_changes_nothing(duel: Any, reason: Any,
                                                     code: str) -> None:
    first, second, table = duel
    actor, _, view = to_act((first, second), table)
    before = Table.objects.get(pk=table)
    with pytest.raises(TableError) as error:
        core.act(actor, table, "call", None, reason)
    assert error.value.code == code
    after = Table.objects.get(pk=table)
    assert (after.version, after.state) == (before.version, before.state)
    assert Hand.objects.get(pk=view["hand"]).policies == []
    core.act(actor, table, "call", None, "x" * 2000)  # the longest reason is kept
    assert Hand.objects.get(pk=view["hand"]).policies[0]["reason"] == "x" * 2000


def test_a_blank_reason_is_none(duel: Any) -> None:
    first, second, table = duel
    actor, _, view = to_act((first, second), table)
    core.act(actor, table, "call", None, "   ")
    assert Hand.objects.get(pk=view["hand"]).policies == []
