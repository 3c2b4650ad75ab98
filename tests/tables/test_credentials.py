"""Open websockets end with their credentials (docs/security.md, "Sessions and tokens").

Each case twice: the announcement closes the socket at once, and, when the
announcement is lost (channel layer down), the backstop check (at most a second old)
refuses the next command. Either way the socket's last word is ``session_ended`` and close 4401.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client as HttpClient

from pokersite.asgi import application
from tables.consumers import RECHECK_SECONDS
from tests.conftest import PASSWORD
from tests.tables.ws import Client, open_client

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture(params=["announced", "announcement_lost"])
def delivery(request: pytest.FixtureRequest) -> Iterator[str]:
    """``announcement_lost``: the revocation message never arrives (as with Redis down)."""
    if request.param == "announced":
        yield request.param
        return
    with mock.patch("accounts.credentials.announce"):
        yield request.param


def codes(messages: list[dict[str, Any]]) -> list[str]:
    return [m.get("code", "") for m in messages if m["type"] == "error"]


async def session_socket(table_id: int, http: HttpClient) -> Client:
    cookie = f"sessionid={http.cookies['sessionid'].value}".encode()
    communicator = WebsocketCommunicator(
        application, f"/ws/tables/{table_id}/",
        headers=[(b"cookie", cookie), (b"origin", b"http://localhost"),
                 (b"host", b"localhost")])
    client = Client(communicator, "session")
    client.connected, code = await communicator.connect()
    assert client.connected, code
    await client.drain()
    return client


async def assert_ended(client: Client, delivery: str) -> None:
    """Announced: the socket is already closed. Lost: its next command is refused."""
    got = await client.drain(0.3)
    if delivery == "announcement_lost":
        assert client.close_code is None, "closed although nobody told it"
        await asyncio.sleep(RECHECK_SECONDS)  # the backstop re-reads at most this often
        got = await client.request({"type": "chat", "text": "still here?", "request_id": 1})
    assert "session_ended" in codes(got), got
    assert not any(m["type"] == "ack" for m in got), got
    assert client.close_code == 4401


async def test_rotated_bot_token_ends_the_open_socket(table: Any, bob: Any,
                                                      delivery: str) -> None:
    from accounts.services import create_bot, regenerate_bot_token

    bot, token = await database_sync_to_async(create_bot)(owner=bob, name="Rotated")
    client = await open_client(table.pk, token=token, origin=None)
    got = await client.request({"type": "sit", "seat": 2, "buy_in": 200, "request_id": "s"})
    assert any(m["type"] == "ack" for m in got)
    fresh = await database_sync_to_async(regenerate_bot_token)(bot)
    await assert_ended(client, delivery)
    again = await open_client(table.pk, token=fresh, origin=None)  # the new token works
    assert not codes(again.received)
    got = await again.request({"type": "leave", "request_id": "l"})
    assert any(m["type"] == "ack" for m in got), got
    await again.close()


async def test_deleted_bot_socket_is_refused_not_crashed(table: Any, bob: Any,
                                                         delivery: str) -> None:
    from accounts.services import create_bot, delete_player

    bot, token = await database_sync_to_async(create_bot)(owner=bob, name="Doomed")
    client = await open_client(table.pk, token=token, origin=None)
    await database_sync_to_async(delete_player)(bot)
    await assert_ended(client, delivery)
    assert client.close_code != 1011


async def test_logout_ends_that_sessions_sockets(table: Any, alice: Any, bob: Any,
                                                 delivery: str) -> None:
    http = HttpClient()
    await database_sync_to_async(http.force_login)(alice)
    client = await session_socket(table.pk, http)
    other = await open_client(table.pk, user=alice)  # another session of the same user
    response = await database_sync_to_async(http.post)("/accounts/logout/")
    assert response.status_code == 302
    await assert_ended(client, delivery)
    got = await other.request({"type": "chat", "text": "other tab", "request_id": 2})
    assert any(m["type"] == "ack" for m in got), f"logout ended another session: {got}"
    await other.close()


async def test_password_change_ends_session_sockets(table: Any, alice: Any,
                                                    delivery: str) -> None:
    http = HttpClient()
    await database_sync_to_async(http.login)(username="alice", password=PASSWORD)
    client = await session_socket(table.pk, http)
    response = await database_sync_to_async(http.post)("/accounts/password/", {
        "old_password": PASSWORD, "new_password1": "a-new-horse-staple-77",
        "new_password2": "a-new-horse-staple-77"})
    assert response.status_code == 302
    await assert_ended(client, delivery)
    # The browser that changed it keeps its (updated) session and reconnects.
    again = await session_socket(table.pk, http)
    got = await again.request({"type": "chat", "text": "back", "request_id": 3})
    assert any(m["type"] == "ack" for m in got), got
    await again.close()


async def test_deactivation_ends_session_and_bot_sockets(table: Any, bob: Any,
                                                         delivery: str) -> None:
    from accounts.services import create_bot

    _, token = await database_sync_to_async(create_bot)(owner=bob, name="Orphan")
    http = HttpClient()
    await database_sync_to_async(http.force_login)(bob)
    person = await session_socket(table.pk, http)
    robot = await open_client(table.pk, token=token, origin=None)

    def deactivate() -> None:
        bob.is_active = False
        bob.save()

    await database_sync_to_async(deactivate)()
    await assert_ended(person, delivery)
    await assert_ended(robot, delivery)


async def test_credential_check_is_one_query(table: Any, bob: Any) -> None:
    """The per-command check costs one indexed query (measured in bench/, see
    docs/benchmarks.md): for a bot and for a session."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from accounts.credentials import Credential
    from accounts.services import create_bot

    def count() -> list[int]:
        bot, _ = create_bot(owner=bob, name="Counted")
        http = HttpClient()
        http.force_login(bob)
        from django.contrib.sessions.backends.db import SessionStore

        session = SessionStore(http.cookies["sessionid"].value)
        counts = []
        for credential in (Credential.of(bob, bot), Credential.of(bob, None, session)):
            assert credential is not None
            with CaptureQueriesContext(connection) as queries:
                assert credential.valid()
            counts.append(len(queries))
        return counts

    assert await database_sync_to_async(count)() == [1, 1]


async def test_revocation_messages_carry_no_secret() -> None:
    from accounts.credentials import session_group

    group = session_group("abcdef0123456789abcdef0123456789")
    assert "abcdef0123456789" not in group and len(group) < 100
    json.dumps({"group": group})
