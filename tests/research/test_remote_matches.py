"""Remote bots in batch matches, in-process: participants in the API, the match websocket's
refusals, a not-connected remote bot, and a whole match answered over the websocket by a
test client (in-memory channel layer on SQLite, Redis in the PostgreSQL pass)."""

from __future__ import annotations

import asyncio
import json
from collections import deque
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer
from channels.testing import WebsocketCommunicator
from rest_framework.test import APIClient

from accounts.models import Player, PlayerKind
from accounts.services import create_bot
from pokersite.asgi import application
from research import remote, services
from research.consumers import MatchConsumer
from research.models import MatchRun


def post(user: Any, body: dict[str, Any]) -> Any:
    client = APIClient()
    client.force_login(user)
    return client.post("/api/v1/matches/", body, format="json")


@pytest.mark.django_db
def test_participants_are_checked(bob: Any, alice: Any, settings: Any,
                                  django_capture_on_commit_callbacks: Any) -> None:
    settings.RESEARCH = {**settings.RESEARCH, "MATCHES_IN_THREAD": False}
    create_bot(owner=bob, name="Skynet")
    Player.objects.create(owner=bob, name="House-X", kind=PlayerKind.BOT,
                          house_strategy="random")
    for bots in (["random", {"remote": "Nobody"}], ["random", {"remote": "House-X"}],
                 ["random", {"remote": "alice"}], [{"remote": "Skynet"}, "remote:skynet"],
                 ["random", {"bot": "Skynet"}]):
        answer = post(bob, {"bots": bots})
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "bad_match", bots
    answer = post(bob, {"bots": ["random", "remote:Skynet"], "turn_seconds": 99})
    assert answer.status_code == 400 and "turn_seconds" in answer.json()["error"]["message"]
    with django_capture_on_commit_callbacks(execute=True):
        answer = post(bob, {"bots": ["random", {"remote": "skynet"}], "hands": 10,
                            "connect_seconds": 0.5})
    assert answer.status_code == 202, answer.content
    assert answer.json()["participants"][1] == {
        "name": "Skynet", "kind": "remote", "player_id": Player.objects.get(name="Skynet").pk}
    # nobody connected Skynet: the match failed after its wait, with a stable code
    client = APIClient()
    client.force_login(alice)
    match = client.get(f"/api/v1/matches/{answer.json()['id']}/").json()
    assert match["status"] == "failed" and match["error_code"] == "remote_bots_not_connected"
    assert "Skynet" in match["error"]
    page = client.get(f"/research/matches/{match['id']}/").content.decode()
    assert "remote_bots_not_connected" in page


async def connect(match_id: int, token: str | None) -> WebsocketCommunicator:
    headers = [(b"authorization", f"Bearer {token}".encode())] if token else []
    communicator = WebsocketCommunicator(application, f"/ws/matches/{match_id}/",
                                         headers=headers)
    connected, _ = await communicator.connect()
    assert connected
    return communicator


async def receive(communicator: WebsocketCommunicator, timeout: float = 5) -> Any:
    output = await communicator.receive_output(timeout=timeout)
    if output["type"] == "websocket.close":
        return {"type": "closed", "code": output.get("code")}
    return json.loads(output["text"])


async def refused(match_id: int, token: str | None) -> tuple[str, Any]:
    communicator = await connect(match_id, token)
    error = await receive(communicator)
    closed = await receive(communicator)
    await communicator.disconnect()
    return error["code"], closed["code"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_match_played_over_the_match_websocket(bob: Any, carol: Any,
                                                       settings: Any) -> None:
    settings.TABLES = {**settings.TABLES, "RATE_PER_SECOND": 1, "RATE_BURST": 2}
    _, token = await database_sync_to_async(create_bot)(owner=bob, name="Skynet")
    _, other = await database_sync_to_async(create_bot)(owner=bob, name="Other")
    match = await database_sync_to_async(MatchRun.objects.create)(
        created_by=bob, settings=await database_sync_to_async(services.validate_match)(
            {"bots": ["calling_station", {"remote": "Skynet"}], "hands": 30, "seed": 2,
             "duplicate": True, "turn_seconds": 5, "connect_seconds": 20}))

    # Refusals: no token (a session needs a matching Origin, then a bot token), a
    # non-participant bot's token, no such match.
    anonymous = WebsocketCommunicator(application, f"/ws/matches/{match.pk}/")
    assert (await anonymous.connect())[0] is False
    session = WebsocketCommunicator(application, f"/ws/matches/{match.pk}/",
                                    headers=[(b"origin", b"http://localhost"),
                                             (b"host", b"localhost")])
    assert (await session.connect())[0] is True
    assert (await receive(session))["code"] == "not_authenticated"
    assert (await receive(session))["code"] == 4401
    assert await refused(match.pk, "not-a-token") == ("not_authenticated", 4401)
    assert await refused(match.pk, other) == ("not_a_participant", 4403)
    assert await refused(match.pk + 100, token) == ("match_not_found", 4404)

    communicator = await connect(match.pk, token)
    joined = await receive(communicator)
    assert joined["type"] == "match_joined" and joined["bot"] == "Skynet"
    await database_sync_to_async(services.launch)(match.pk)  # the background thread
    seen: dict[str, int] = {}
    over = None
    while over is None:
        message = await receive(communicator, timeout=20)
        seen[message["type"]] = seen.get(message["type"], 0) + 1
        if message["type"] == "match_turn":
            legal = message["view"]["legal"]
            kind = "check" if legal["can_check"] else "call" if legal["call_amount"] else "muck"
            # Far more answers than the (tiny) rate limit: answers to the turn are exempt.
            await communicator.send_to(text_data=json.dumps({
                "type": "match_action", "request_id": message["request_id"],
                "action": {"kind": kind}}))
        elif message["type"] == "match_over":
            over = message
    assert over["status"] == "done", over
    assert seen["match_started"] == 1 and seen["new_match"] == 2 and seen["hand_over"] == 30
    assert seen["match_turn"] > 30 and "error" not in seen
    assert "batch" not in seen  # one message per frame unless the bot asks (?batch=1)
    stored = await database_sync_to_async(MatchRun.objects.get)(pk=match.pk)
    skynet = stored.results["bots"]["Skynet"]
    assert skynet["kind"] == "remote" and skynet["hands"] == 30 and skynet["timeouts"] == 0
    assert skynet["illegal"] == 0 and skynet["turns"] == seen["match_turn"]
    await asyncio.sleep(0)
    assert await refused(match.pk, token) == ("match_over", 4410)


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_lanes_and_batched_frames(bob: Any) -> None:
    """``lanes``: several deals at once, each message names its lane; ``?batch=1``: hand
    ends come in ``batch`` frames with the next message; the duplicate deals still pair."""
    _, token = await database_sync_to_async(create_bot)(owner=bob, name="Skynet")
    match = await database_sync_to_async(MatchRun.objects.create)(
        created_by=bob, settings=await database_sync_to_async(services.validate_match)(
            {"bots": ["calling_station", {"remote": "Skynet"}], "hands": 40, "seed": 3,
             "duplicate": True, "lanes": 3, "turn_seconds": 5, "connect_seconds": 20}))
    assert match.settings["lanes"] == 3 and match.settings["aivat"] is False
    communicator = WebsocketCommunicator(application, f"/ws/matches/{match.pk}/?batch=1",
                                         headers=[(b"authorization", f"Bearer {token}".encode())])
    assert (await communicator.connect())[0]
    assert (await receive(communicator))["type"] == "match_joined"
    await database_sync_to_async(services.launch)(match.pk)
    seen: dict[str, int] = {}
    lanes: dict[str, set[int]] = {}
    over = None
    while over is None:
        frame = await receive(communicator, timeout=20)
        seen["frames"] = seen.get("frames", 0) + 1
        if frame["type"] == "batch":
            seen["batch"] = seen.get("batch", 0) + 1
        for message in frame["messages"] if frame["type"] == "batch" else [frame]:
            kind = message["type"]
            seen[kind] = seen.get(kind, 0) + 1
            if "lane" in message:
                lanes.setdefault(kind, set()).add(message["lane"])
            if kind == "match_turn":
                legal = message["view"]["legal"]
                await communicator.send_to(text_data=json.dumps({
                    "type": "match_action", "request_id": message["request_id"],
                    "action": {"kind": "check" if legal["can_check"] else "call"}}))
            elif kind == "match_over":
                over = message
    assert over["status"] == "done", over
    assert seen["hand_over"] == 40 and seen["batch"] > 10
    assert seen["frames"] < sum(seen[k] for k in seen if k not in ("frames", "batch"))
    assert lanes["match_turn"] == lanes["hand_over"] == lanes["new_match"] == {0, 1, 2}
    assert seen["new_match"] == 2 * 3  # each series, in every lane
    stored = await database_sync_to_async(MatchRun.objects.get)(pk=match.pk)
    skynet = stored.results["bots"]["Skynet"]
    assert skynet["hands"] == 40 and skynet["turns"] == seen["match_turn"]
    assert skynet["net"] + stored.results["bots"]["calling_station"]["net"] == 0
    # every deal was played twice, seats swapped: each hole-card pair dealt twice
    from engine.phh.notation import loads_all

    dealt: dict[str, int] = {}
    for _, history in loads_all(stored.phh):
        assert not isinstance(history, Exception)
        for line in history.fields["actions"]:
            parts = line.split()
            if parts[:2] == ["d", "dh"]:
                dealt[parts[3]] = dealt.get(parts[3], 0) + 1
    assert len(dealt) == 40 and set(dealt.values()) == {2}


@pytest.mark.django_db
def test_lanes_are_checked(bob: Any) -> None:
    create_bot(owner=bob, name="Skynet")
    remote = ["random", {"remote": "Skynet"}]
    for body, words in (({"bots": remote, "lanes": 0}, "lanes is 1 to 16"),
                        ({"bots": remote, "lanes": 17}, "lanes is 1 to 16"),
                        ({"bots": ["random", "random"], "lanes": 2}, "remote bots"),
                        ({"bots": remote, "lanes": 2, "aivat": True}, "aivat false")):
        answer = post(bob, body)
        assert answer.status_code == 400, body
        error = answer.json()["error"]
        assert error["code"] == "bad_match" and words in error["message"], (body, error)
    with pytest.raises(ValueError, match="lanes is 1 to 16"):
        services.validate_match({"bots": remote, "lanes": "2"})
    checked = services.validate_match({"bots": remote, "lanes": 4})
    assert checked["lanes"] == 4 and checked["aivat"] is False
    assert "lanes" not in services.validate_match({"bots": remote})
    assert services.validate_match({"bots": remote})["aivat"] is True


class _Consumer:
    """A match consumer's delivery side (research/consumers.py), recording what it gets."""

    push = MatchConsumer.push
    _drain = MatchConsumer._drain

    def __init__(self) -> None:
        self.pushed: deque[dict[str, Any]] = deque()
        self.got: list[int] = []

    async def deliver(self, event: dict[str, Any]) -> None:
        self.got.append(event["message"]["n"])


@pytest.mark.asyncio
async def test_what_the_runners_thread_sends_is_not_overtaken_by_the_match(
        monkeypatch: Any) -> None:
    """In-memory layer: the runner's thread tells ``match_started``, then the match, on the
    server's loop, sends its first ``match_turn``: the bot gets them in that order."""
    monkeypatch.setattr(remote, "get_channel_layer", InMemoryChannelLayer)
    remote.remember_loop()
    consumer = _Consumer()
    remote.attach("bot-order", consumer)
    link = await asyncio.to_thread(remote.Link)
    try:
        def runner() -> None:
            link.send("bot-order", {"type": "match.message", "message": {"n": 1}})
            link.run(lambda: link.send(
                "bot-order", {"type": "match.message", "message": {"n": 2}})).result(5)

        for _ in range(3):
            consumer.got.clear()
            await asyncio.to_thread(runner)
            for _ in range(100):
                if len(consumer.got) == 2:
                    break
                await asyncio.sleep(0.01)
            assert consumer.got == [1, 2]
    finally:
        link.close()
        remote.detach("bot-order", consumer)
