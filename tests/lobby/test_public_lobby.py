"""Public spectating (settings.PUBLIC_SPECTATING, off by default): anonymous visitors
open the lobby and watch tables read-only; the websocket takes them as guests who see
the public projection only and whose every command is refused (not_authenticated)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_worker(settings: Any) -> None:
    settings.TABLES = {**settings.TABLES, "HOUSE_BOT_DELAY": 0.0, "WORKER_IN_PROCESS": False}


@pytest.fixture
def public(settings: Any) -> None:
    settings.PUBLIC_SPECTATING = True


@pytest.fixture
def carol(db: None) -> Any:
    from accounts.models import Role
    from tests.conftest import _make_user

    return _make_user("carol", Role.PLAYER)


@pytest.fixture
def table(alice: Any) -> Any:
    from tables.services import create_table

    return create_table(creator=alice, name="Public NL", settings={
        "structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 6}, turn_seconds=20)


def test_off_by_default_everything_needs_a_login(table: Any) -> None:
    from django.conf import settings

    assert settings.PUBLIC_SPECTATING is False
    anonymous = Client()
    for url in ("/lobby/", "/lobby/tables.json", f"/tables/{table.pk}/",
                f"/tables/{table.pk}/log.json"):
        response = anonymous.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"], url


def test_guests_see_the_lobby_and_the_tables(public: None, table: Any) -> None:
    anonymous = Client()
    page = anonymous.get("/lobby/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="guest-note"' in html and 'id="create-form"' not in html
    listed = anonymous.get("/lobby/tables.json").json()["tables"]
    assert [t["name"] for t in listed] == ["Public NL"]
    table_page = anonymous.get(f"/tables/{table.pk}/")
    assert table_page.status_code == 200
    html = table_page.content.decode()
    assert 'id="guest-note"' in html and 'id="account-panel"' not in html
    assert 'id="close-table-form"' not in html
    config = json.loads(html.split('id="table-config" type="application/json">')[1]
                        .split("</script>")[0])
    assert config["guest"] is True and config["seatable"] == [] and not config["can_manage_bots"]
    log = anonymous.get(f"/tables/{table.pk}/log.json")
    assert log.status_code == 200 and log.json()["seatable"] == []


def test_guests_still_change_nothing(public: None, table: Any) -> None:
    anonymous = Client()
    for url, body in (("/lobby/create/", {"name": "x"}),
                      (f"/tables/{table.pk}/house-bot/", {}),
                      (f"/tables/{table.pk}/close/", {})):
        response = anonymous.post(url, body)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"], url
    assert anonymous.get("/lobby/account.json").status_code == 302
    assert anonymous.get("/account/").status_code == 302
    assert anonymous.get("/research/matches/").status_code == 302


def test_a_guest_controls_no_ownerless_seat() -> None:
    """A seated player whose account was deleted has no owner: the guest's viewer
    (pk 0) is never its owner, as an AnonymousUser's pk (None) would be."""
    from accounts.models import Player
    from tables.consumers import Guest
    from tables.selectors import controlled_seats

    class Occupant:
        player_id = "5"

    orphan = Player(pk=5, name="Orphan", owner=None)
    assert controlled_seats([Occupant()], {"5": orphan}, Guest(), None) == []


# ------------------------------------------------------------- the websocket

async def _guest(table_id: int, **kwargs: Any) -> Any:
    """A guest's connection, once its first message has arrived (however slow)."""
    from tests.tables.ws import open_client

    client = await open_client(table_id, name="guest", **kwargs)
    await _until(client, lambda m: m["type"] in ("snapshot", "error"))
    return client


async def _until(client: Any, wanted: Any, tries: int = 100) -> list[dict[str, Any]]:
    """Drain ``client`` until a message ``wanted`` accepts has arrived (or it closed)."""
    for _ in range(tries):
        found = [m for m in client.received if wanted(m)]
        if found or client.close_code is not None:
            return found
        await client.drain(0.1)
    return []


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_websocket_refuses_guests_when_off(table: Any) -> None:
    guest = await _guest(table.pk)
    await _until(guest, lambda m: False)
    assert guest.received[0]["code"] == "not_authenticated" and guest.close_code == 4401


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_websocket_guest_watches_and_is_refused_every_command(
        public: None, table: Any) -> None:
    guest = await _guest(table.pk)
    snapshot = next(m for m in guest.received if m["type"] == "snapshot")
    assert snapshot["you"]["seats"] == [] and snapshot["you"]["sees_all_cards"] is False
    for command in ({"type": "chat", "text": "hi"}, {"type": "sit", "seat": 0, "buy_in": 200},
                    {"type": "act", "action": {"kind": "fold"}}, {"type": "leave"},
                    {"type": "dance"}):
        guest.received.clear()
        await guest.send({**command, "request_id": 7})
        replies = await _until(guest, lambda m: m.get("request_id") == 7)
        assert [(r["type"], r["code"]) for r in replies] == [("error", "not_authenticated")]
    assert guest.close_code is None  # refused, still watching
    await guest.send({"type": "snapshot", "request_id": 8})
    again = await _until(guest, lambda m: m.get("request_id") == 8)
    assert again[0]["type"] == "snapshot"
    await guest.send({"type": "ping", "request_id": 9})
    assert (await _until(guest, lambda m: m.get("request_id") == 9))[0]["type"] == "pong"
    await guest.close()
    # A bad bot token is a bot that failed, never a guest.
    bot = await _guest(table.pk, token="nope", origin=None)
    await _until(bot, lambda m: False)  # the close follows the error
    assert bot.received[0]["code"] == "not_authenticated" and bot.close_code == 4401


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_websocket_guest_never_sees_hidden_cards(public: None, alice: Any,
                                                       carol: Any) -> None:
    from tables.services import create_table
    from tests.tables.privacy import assert_private
    from tests.tables.test_ws_game import play
    from tests.tables.ws import open_client

    table = await database_sync_to_async(create_table)(
        creator=alice, name="Watched", settings={"structure": "NL", "small_blind": 1,
                                                 "big_blind": 2, "seats": 6})
    guest = await _guest(table.pk)
    players = {0: await open_client(table.pk, user=alice),
               1: await open_client(table.pk, user=carol)}
    for seat, client in players.items():
        await client.request({"type": "sit", "seat": seat, "buy_in": 200})
    assert await play(players, [guest], 4, random.Random(5)) >= 4
    assert assert_private(guest.received, set()) >= 4 * 2
    for client in [*players.values(), guest]:
        await client.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_lobby_websocket_takes_guests_only_when_on(settings: Any) -> None:
    from channels.testing import WebsocketCommunicator

    from pokersite.asgi import application

    async def connect() -> bool:
        communicator = WebsocketCommunicator(application, "/ws/lobby/", headers=[
            (b"origin", b"http://localhost"), (b"host", b"localhost")])
        connected, _ = await communicator.connect()
        if connected:
            await communicator.disconnect()
        return connected

    assert not await connect()
    settings.PUBLIC_SPECTATING = True
    assert await connect()


def test_home_page_says_whether_guests_may_watch(settings: Any) -> None:
    page = Client().get("/").content.decode()
    assert "Log in to open the lobby" in page and "once logged in" in page
    settings.PUBLIC_SPECTATING = True
    page = Client().get("/").content.decode()
    assert "Log in to open the lobby" not in page and "even without an account" in page
