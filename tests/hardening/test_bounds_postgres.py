"""Input bounds that only PostgreSQL shows (docs/security.md, "Input bounds"): 32-bit
integer columns ("integer out of range") and text that cannot hold NUL. Run with
``DATABASE_URL=postgres://...`` (``bin/services.py``); elsewhere they fail loudly."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.db import connection
from django.test import Client
from rest_framework.test import APIClient

from engine.game import MAX_CHIPS
from engine.registry import get_game
from tables import services
from tables.errors import TableError
from tables.models import ChatMessage, Table
from tests.cache import clear_cache
from tests.hardening.test_bounds import (
    api_error,
    error_code,
    first,
    open_client,
    still_open,
    table_facts,
)

INT32_MAX = 2**31 - 1


@pytest.fixture(autouse=True)
def _fast_tables(settings: Any) -> None:
    settings.TABLES = {**settings.TABLES, "HOUSE_BOT_DELAY": 0.0, "WORKER_IN_PROCESS": False}
    clear_cache()  # the API's throttle counters (this process's keys only)


def _column_type(table: str, column: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT data_type FROM information_schema.columns "
                       "WHERE table_name = %s AND column_name = %s", [table, column])
        return str(cursor.fetchone()[0])


@pytest.mark.postgres
@pytest.mark.django_db
def test_table_amount_columns_are_64_bit() -> None:
    for column in ("small_blind", "big_blind", "ante", "min_buy_in", "max_buy_in"):
        assert _column_type("tables_table", column) == "bigint", column


@pytest.mark.postgres
@pytest.mark.django_db
def test_settings_beyond_32_bits_create_a_table_not_a_500(alice: Any) -> None:
    """Was: ``integer out of range`` (500 from the lobby form; the API said
    bad_settings for a table it should have created)."""
    big = INT32_MAX + 1
    client = APIClient()
    client.force_login(alice)
    response = client.post("/api/v1/tables/", {"name": "Over 32 bits", "settings": {
        "structure": "FL", "small_blind": big, "big_blind": 2 * big, "min_buy_in": 20 * big,
        "max_buy_in": MAX_CHIPS}}, format="json")
    assert response.status_code == 201, response.content
    table = Table.objects.get(name="Over 32 bits")
    assert (table.small_blind, table.min_buy_in, table.max_buy_in) == (big, 20 * big, MAX_CHIPS)
    browser = Client(raise_request_exception=False)
    browser.force_login(alice)
    response = browser.post("/lobby/create/", {
        "name": "Form over 32 bits", "game": "holdem", "settings_for": "holdem",
        "structure": "NL", "small_blind": str(big), "big_blind": str(2 * big), "seats": "6",
        "min_buy_in": "0", "max_buy_in": "0", "turn_seconds": "30"})
    assert response.status_code == 302, response.content[:300]
    assert Table.objects.get(name="Form over 32 bits").max_buy_in == 100 * 2 * big
    # Beyond the bounds: refused before the database sees it.
    blind = get_game("holdem").settings_schema()["properties"]["big_blind"]["maximum"]
    response = browser.post("/lobby/create/", {
        "name": "Form too big", "game": "holdem", "settings_for": "holdem",
        "structure": "NL", "small_blind": str(blind + 1), "big_blind": str(blind + 1),
        "seats": "6", "turn_seconds": "30"})
    assert response.status_code == 400
    assert not Table.objects.filter(name="Form too big").exists()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_ws_nul_byte_in_chat_is_refused_and_the_socket_stays_open(
        alice: Any) -> None:
    """Was: PostgreSQL refused the text, the consumer raised, the socket closed."""
    table = await database_sync_to_async(services.create_table)(
        creator=alice, name="NUL chat", settings={})
    client = await open_client(table.pk, user=alice)
    before = await table_facts(table.pk)
    for raw in ('{"type": "chat", "text": "a\\u0000b"}', '{"type": "chat", "text": "\\u0000"}',
                '{"type": "chat", "text": "x\\ud800"}'):
        assert error_code(await client.request(raw)) == "invalid_text", raw
    # Stored in the round's log (jsonb) if it were let through: refused as well.
    raw = json.dumps({"type": "sit", "seat": 0, "buy_in": 200, "x": "\x00"})
    assert error_code(await client.request(raw)) == "invalid_text"
    await still_open(client)
    assert await table_facts(table.pk) == before
    got = await client.request({"type": "chat", "text": "still here ♠"})
    assert first(got, "chat")["text"] == "still here ♠"
    count = await database_sync_to_async(ChatMessage.objects.count)()
    assert count == 1
    await client.close()


@pytest.mark.postgres
@pytest.mark.django_db
def test_nul_in_names_and_urls_is_refused_not_a_500(alice: Any, bob: Any) -> None:
    with pytest.raises(TableError) as info:
        services.create_table(creator=alice, name="nul\x00name", settings={})
    assert info.value.code == "invalid_text"
    client = APIClient(raise_request_exception=False)
    client.force_login(alice)
    api_error(client.post("/api/v1/tables/", {"name": "nul\x00"}, format="json"), 400,
              "invalid_text")
    api_error(client.get("/api/v1/tables/?name=a%00b"), 400, "invalid_text")
    api_error(client.get("/api/v1/tables/?player=%00"), 400, "invalid_text")
    api_error(client.get("/api/v1/players/a%00b/stats/"), 400, "invalid_text")
    bots = APIClient(raise_request_exception=False)
    bots.force_login(bob)
    api_error(bots.post("/api/v1/bots/", '{"name": "Nul", "description": "a\\u0000b"}',
                        content_type="application/json"), 400, "invalid_text")
    assert not Table.objects.exists()
