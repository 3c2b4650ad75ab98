"""AIVAT in server batch matches: stored estimates and the match page; a remote bot's
policy over the match websocket (a malformed one refused with ``invalid_policy``, a
good one used by the estimator)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.core.management import call_command

from accounts.services import create_bot
from research import services
from research.models import MatchRun, MatchStatus
from research.remote import check_policy
from tests.research.test_remote_matches import connect, receive


@pytest.mark.django_db
def test_a_house_match_stores_raw_duplicate_and_aivat_and_the_page_shows_them(
        bob: Any, client: Any) -> None:
    call_command("run_match", "--bots", "rule_based,random", "--hands", "120", "--seed", "1",
                 "--duplicate", stdout=None)
    match = MatchRun.objects.get()
    assert match.status == MatchStatus.DONE and match.settings["aivat"] is True
    row = match.results["bots"]["rule_based"]
    assert set(row["estimates"]) == {"raw", "duplicate", "aivat", "aivat_duplicate"}
    assert row["aivat_mbb_per_hand"] == row["estimates"]["aivat_duplicate"]["mbb_per_hand"]
    assert match.results["aivat"]["decisions"] > 0  # random's and rule_based's policies
    client.force_login(bob)
    page = client.get(f"/research/matches/{match.pk}/").content.decode()
    assert "Variance reduction" in page and "AIVAT + duplicate" in page


@pytest.mark.django_db
def test_aivat_can_be_switched_off_and_is_checked() -> None:
    checked = services.validate_match({"bots": ["random", "random"], "aivat": False})
    assert checked["aivat"] is False
    with pytest.raises(ValueError, match="aivat"):
        services.validate_match({"bots": ["random", "random"], "aivat": "yes"})
    assert services.validate_match({"bots": ["random", "random"]})["aivat"] is True


def test_check_policy_refuses_a_malformed_policy_for_a_legal_action() -> None:
    view = {"moves": [{"kind": "fold", "label": "Fold"}, {"kind": "call", "label": "Call 1"}]}
    good = [{"move": {"kind": "call"}, "p": 0.75}, {"move": {"kind": "fold"}, "p": 0.25}]
    assert check_policy(view, {"kind": "call"}, good) == ""
    assert check_policy(view, {"kind": "call"}, None) == ""
    assert "from 0 to 1" in check_policy(view, {"kind": "call"},
                                         [{"move": {"kind": "call"}, "p": 2}])
    assert "no positive probability" in check_policy(
        view, {"kind": "call"}, [{"move": {"kind": "fold"}, "p": 1}])
    # An illegal action is counted and replaced as always; its policy is not the error.
    assert check_policy(view, {"kind": "check"}, good) == ""


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_remote_bot_sends_policies_over_the_match_websocket(bob: Any) -> None:
    _, token = await database_sync_to_async(create_bot)(owner=bob, name="Skynet")
    match = await database_sync_to_async(MatchRun.objects.create)(
        created_by=bob, settings=await database_sync_to_async(services.validate_match)(
            {"bots": ["calling_station", {"remote": "Skynet"}], "hands": 12, "seed": 4,
             "duplicate": True, "turn_seconds": 5, "connect_seconds": 20}))
    communicator = await connect(match.pk, token)
    assert (await receive(communicator))["type"] == "match_joined"
    await database_sync_to_async(services.launch)(match.pk)
    refused = answered = 0
    over = None
    while over is None:
        message = await receive(communicator, timeout=20)
        if message["type"] == "match_turn":
            legal = message["view"]["legal"]
            kind = "check" if legal["can_check"] else "call" if legal["call_amount"] else "muck"
            action = {"kind": kind}
            if refused == 0:  # the first answer's probabilities sum to 2: refused
                await communicator.send_to(text_data=json.dumps({
                    "type": "match_action", "request_id": message["request_id"],
                    "action": action, "policy": [{"move": action, "p": 2}]}))
                error = await receive(communicator)
                assert error["type"] == "error" and error["code"] == "invalid_policy"
                assert error["request_id"] == message["request_id"]
                refused += 1
            policy = [{"move": action, "p": 1.0}]
            if legal["can_fold"]:
                policy = [{"move": action, "p": 0.8}, {"move": {"kind": "fold"}, "p": 0.2}]
            await communicator.send_to(text_data=json.dumps({
                "type": "match_action", "request_id": message["request_id"],
                "action": action, "policy": policy}))
            answered += 1
        elif message["type"] == "match_over":
            over = message
    assert over["status"] == "done", over
    stored = await database_sync_to_async(MatchRun.objects.get)(pk=match.pk)
    skynet = stored.results["bots"]["Skynet"]
    assert skynet["invalid_policies"] == 1 and skynet["timeouts"] == 0
    assert skynet["illegal"] == 0 and skynet["policy_errors"] == 0
    assert stored.results["aivat"]["decisions"] == answered
    assert "aivat" in skynet["estimates"]
