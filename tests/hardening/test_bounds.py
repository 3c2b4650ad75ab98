"""Input bounds (docs/security.md, "Input bounds"): bad input gets a clear error with a
stable code and changes nothing; never a 500, never a closed websocket.

Each test names the failure an outside test found (or the bound it pins down). These
run on SQLite and on PostgreSQL; the PostgreSQL-only cases (integer columns, NUL in
text) are in ``test_bounds_postgres.py``.
"""

from __future__ import annotations

import io
import json
import random
import tomllib
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from rest_framework.test import APIClient

from accounts import services as accounts_services
from accounts.errors import BalanceLimit, InvalidAmount, InvalidText
from accounts.forms import AdjustBalanceForm, RegistrationForm
from accounts.models import LedgerEntry, Player
from accounts.services import MAX_BALANCE
from engine.errors import EngineError
from engine.game import MAX_CHIPS, Viewer, check_move, move, number
from engine.registry import get_game
from tables import selectors, services
from tables.errors import TableError
from tables.models import ChatMessage, Table
from tables.wire import (
    MAX_JSON_DEPTH,
    JsonTooDeep,
    UnstorableText,
    WireError,
    decode,
    dumps,
    load_json,
)
from tests.cache import clear_cache
from tests.tables.helpers import assert_chips_conserved, sit, turn
from tests.tables.ws import Client as WsClient
from tests.tables.ws import _session_cookie

DEEP = "[" * 20_000 + "]" * 20_000  # what closed the websocket and gave the REST 500


def nested(depth: int, inner: str = "1") -> str:
    """JSON nested ``depth`` levels deep."""
    return "[" * depth + inner + "]" * depth


@pytest.fixture(autouse=True)
def _fast_tables(settings: Any) -> None:
    settings.TABLES = {**settings.TABLES, "HOUSE_BOT_DELAY": 0.0, "WORKER_IN_PROCESS": False}
    clear_cache()  # the API's throttle counters (this process's keys only)


@pytest.fixture
def nl_table(alice: Any) -> Table:
    return services.create_table(creator=alice, name="Bounds NL", settings={
        "structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 6}, turn_seconds=20)


@pytest.fixture
def fl_table(alice: Any) -> Table:
    """Fixed limit: no maximum buy-in (``max_buy_in`` is None)."""
    table = services.create_table(creator=alice, name="Bounds FL", settings={
        "structure": "FL", "small_blind": 1, "big_blind": 2, "seats": 6}, turn_seconds=20)
    assert table.max_buy_in is None
    return table


async def open_client(table_id: int, *, user: Any) -> WsClient:
    """A browser's websocket (session cookie, same-origin ``Origin`` and ``Host``)."""
    from channels.testing import WebsocketCommunicator

    from pokersite.asgi import application

    headers = [(b"cookie", await database_sync_to_async(_session_cookie)(user)),
               (b"origin", b"http://localhost"), (b"host", b"localhost")]
    communicator = WebsocketCommunicator(application, f"/ws/tables/{table_id}/",
                                         headers=headers)
    client = WsClient(communicator, user.username)
    client.connected, client.close_code = await communicator.connect()
    assert client.connected, client.close_code
    client.close_code = None
    await client.drain()
    assert first(client.received, "snapshot")
    return client


def first(messages: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    return next(m for m in messages if m["type"] == kind)


def error_code(messages: list[dict[str, Any]]) -> str:
    return str(first(messages, "error")["code"])


async def still_open(client: Any) -> None:
    """The socket answered a ping after the refusal: it was not closed."""
    assert client.close_code is None
    assert first(await client.request({"type": "ping", "request_id": "alive"}), "pong")[
        "request_id"] == "alive"


@database_sync_to_async
def table_facts(table_id: int) -> tuple[int, int, int, int]:
    """(table version, ledger entries, chat lines, sum of balances)."""
    return (Table.objects.get(pk=table_id).version, LedgerEntry.objects.count(),
            ChatMessage.objects.count(), selectors.total_balances())


def api_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details"}
    assert body["error"]["code"] == code, body
    assert body["error"]["message"]
    return dict(body["error"])


# --------------------------------------------------------------- JSON depth


def test_load_json_bounds_the_depth_whatever_the_brackets_in_strings() -> None:
    assert load_json(nested(MAX_JSON_DEPTH)) is not None
    with pytest.raises(JsonTooDeep):
        load_json(nested(MAX_JSON_DEPTH + 1))
    with pytest.raises(JsonTooDeep):  # RecursionError inside json.loads
        load_json(DEEP)
    with pytest.raises(JsonTooDeep):
        load_json(json.dumps({"a": [{"b": json.loads(nested(MAX_JSON_DEPTH - 2))}]}))
    # Brackets inside strings are text, not nesting.
    text = json.dumps({"text": "[" * 5000 + "{" * 5000, "list": [[["\\\"]["]]]})
    assert load_json(text)["list"] == [[["\\\"]["]]]
    # Random shapes: the quick bracket check agrees with a plain recursive depth.
    rng = random.Random(7)

    def depth(value: Any) -> int:
        children = value.values() if isinstance(value, dict) else value
        if not isinstance(value, dict | list):
            return 0
        return 1 + max((depth(c) for c in children), default=0)

    def shape(level: int) -> Any:
        if level == 0 or rng.random() < 0.15:
            return rng.choice([1, "[{", None, "}]\\", 2.5])
        if rng.random() < 0.5:
            return [shape(level - 1) for _ in range(rng.randint(0, 3))]
        return {f"k{i}[": shape(level - 1) for i in range(rng.randint(0, 3))}

    for _ in range(500):
        value = shape(rng.randint(0, 12))
        text = json.dumps(value, indent=rng.choice([None, 1]))
        try:
            load_json(text, max_depth=6)
            refused = False
        except JsonTooDeep:
            refused = True
        assert refused == (depth(value) > 6), text


def test_dumps_is_json_for_every_value_the_server_sends() -> None:
    """tables.wire.dumps (orjson): the same JSON as the standard library, and the
    standard library's answer where orjson refuses (integers beyond 64 bits, lone
    surrogates), never an exception a frame would die of."""
    rng = random.Random(7)
    for _ in range(200):
        value = {"type": "events", "version": rng.randrange(10**6), 1: [None, True, 1.5],
                 "cards": ["As", "Kd"], "name": "Äö ♠ 😀", "nested": {"a": [{"b": 2}] * 3},
                 "chips": rng.randrange(-2**62, 2**62)}
        assert json.loads(dumps(value)) == json.loads(json.dumps(value))
    assert json.loads(dumps({"huge": 2**70})) == {"huge": 2**70}
    assert json.loads(dumps({"s": "\ud800"})) == {"s": "\ud800"}
    assert dumps({"a": [1, 2]}) == '{"a":[1,2]}'  # compact


def test_wire_decode_refuses_deep_json_as_malformed_message() -> None:
    for text in (DEEP, json.dumps({"type": "ping", "x": json.loads(nested(MAX_JSON_DEPTH))})):
        with pytest.raises(WireError) as info:
            decode(text)
        assert info.value.code == "malformed_message"
        assert "nested" in info.value.message
    data, _ = decode(json.dumps({"type": "ping", "x": json.loads(nested(MAX_JSON_DEPTH - 2))}))
    assert data["type"] == "ping"


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_ws_deeply_nested_json_is_refused_and_the_socket_stays_open(
        nl_table: Any, alice: Any) -> None:
    """Was: RecursionError in tables.wire.decode closed the socket with 1011."""
    client = await open_client(nl_table.pk, user=alice)
    before = await table_facts(nl_table.pk)
    assert error_code(await client.request(DEEP)) == "malformed_message"
    too_deep = json.dumps({"type": "chat", "text": "x", "x": json.loads(nested(40))})
    assert error_code(await client.request(too_deep)) == "malformed_message"
    await still_open(client)
    assert await table_facts(nl_table.pk) == before
    await client.close()


@pytest.mark.django_db
def test_rest_deeply_nested_json_is_a_json_400_not_a_500(alice: Any, nl_table: Any,
                                                          settings: Any) -> None:
    """Was: 500 (in DEBUG the whole traceback) from DRF's JSONParser."""
    settings.DEBUG = True
    client = APIClient()
    client.force_login(alice)
    tables = Table.objects.count()
    for body in (DEEP, json.dumps({"name": "Deep", "settings": {"x": json.loads(nested(40))}})):
        error = api_error(client.post("/api/v1/tables/", body, content_type="application/json"),
                          400, "malformed_request")
        assert "nested" in error["message"] or "JSON" in error["message"]
    api_error(client.post(f"/api/v1/tables/{nl_table.pk}/commands/", DEEP,
                          content_type="application/json"), 400, "malformed_request")
    assert Table.objects.count() == tables


@pytest.mark.django_db
def test_lobby_house_bot_endpoint_refuses_deep_json(bob: Any, nl_table: Any) -> None:
    """The lobby's small JSON endpoint reads with the same bounded reader (was a 500)."""
    client = Client()
    client.force_login(bob)
    response = client.post(f"/tables/{nl_table.pk}/house-bot/", DEEP,
                           content_type="application/json")
    assert response.status_code == 400 and response.json()["error"]["code"] == \
        "malformed_message"


# ------------------------------------------------------------------ chip amounts


def test_engine_settings_and_amounts_are_bounded() -> None:
    game = get_game("holdem")
    schema = game.settings_schema()["properties"]
    assert schema["max_buy_in"]["maximum"] == schema["min_buy_in"]["maximum"] == MAX_CHIPS
    assert game.info.seat_options["properties"]["buy_in"]["maximum"] == MAX_CHIPS
    blind = schema["big_blind"]["maximum"]
    assert blind * 100 <= MAX_CHIPS  # the default buy-ins (100 big blinds) stay in bounds
    ok = game.validate_settings({"structure": "NL", "small_blind": blind // 2,
                                 "big_blind": blind})
    assert game.settings_json(ok)["max_buy_in"] == 100 * blind <= MAX_CHIPS
    for settings in ({"small_blind": blind + 1, "big_blind": blind + 1},
                     {"ante": blind + 1}, {"min_buy_in": MAX_CHIPS + 1},
                     {"max_buy_in": MAX_CHIPS + 1}, {"big_blind": 2**62}):
        with pytest.raises(EngineError) as info:
            game.validate_settings(settings)
        assert info.value.code == "bad_settings", settings
    # A fixed-limit table (no maximum) still takes at most MAX_CHIPS, in one go or added.
    state = game.create(game.validate_settings({"structure": "FL"}))
    for buy_in in (2**62, 10**30, MAX_CHIPS + 1):
        with pytest.raises(EngineError) as info:
            game.seat(state, 0, "p1", {"buy_in": buy_in})
        assert info.value.code == "above_max_buy_in"
    game.seat(state, 0, "p1", {"buy_in": MAX_CHIPS})
    with pytest.raises(EngineError) as info:
        game.seat_command(state, 0, "add_chips", {"amount": 1})
    assert info.value.code == "above_max_buy_in"
    # A bet or raise, and any generic number move, is at most MAX_CHIPS.
    with pytest.raises(EngineError) as info:
        game.apply(state, 0, {"kind": "raise", "amount": 10**30})
    assert info.value.code == "bad_amount"
    with pytest.raises(EngineError) as info:
        check_move([move("bid", amount=number(0, 10**20))], {"kind": "bid", "amount": 10**15})
    assert info.value.code == "illegal_amount" and str(MAX_CHIPS) in info.value.reason


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_ws_huge_buy_in_on_a_fixed_limit_table_is_refused(
        fl_table: Any, alice: Any) -> None:
    """Was: a 2**62 buy-in accepted (the balance dropped by 4.6e18); 10**30 closed the
    socket (the ledger's 64-bit column overflowed)."""
    client = await open_client(fl_table.pk, user=alice)
    before = await table_facts(fl_table.pk)
    for buy_in in (2**62, 10**30, MAX_CHIPS + 1):
        got = await client.request({"type": "sit", "seat": 0, "buy_in": buy_in})
        assert error_code(got) == "bad_amount", buy_in
        assert str(MAX_CHIPS) in first(got, "error")["message"]
    await still_open(client)
    assert await table_facts(fl_table.pk) == before
    # MAX_CHIPS itself is allowed (the balance may go negative, V16); then nothing more.
    assert first(await client.request({"type": "sit", "seat": 0, "buy_in": MAX_CHIPS}), "ack")
    balance = await database_sync_to_async(lambda: Player.objects.get(name="alice").balance)()
    assert balance == -MAX_CHIPS
    seated = await table_facts(fl_table.pk)
    for amount in (1, 2**62, 10**30):
        got = await client.request({"type": "add_chips", "amount": amount})
        assert error_code(got) == "above_max_buy_in", amount
    await still_open(client)
    assert await table_facts(fl_table.pk) == seated
    await database_sync_to_async(assert_chips_conserved)()
    await client.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_ws_huge_numbers_anywhere_in_a_command_are_refused(
        nl_table: Any, alice: Any, bob: Any) -> None:
    """Ids and versions beyond 64 bits (a database overflow), raise amounts beyond
    MAX_CHIPS: a clear refusal, the hand goes on."""
    a = await open_client(nl_table.pk, user=alice)
    b = await open_client(nl_table.pk, user=bob)
    got = await a.request({"type": "sit", "seat": 0, "buy_in": 200, "player": 10**30})
    assert error_code(got) == "malformed_message"
    await a.request({"type": "sit", "seat": 0, "buy_in": 200})
    await b.request({"type": "sit", "seat": 1, "buy_in": 200})
    await a.drain()
    turn_message = next(m for m in a.received + b.received if m["type"] == "your_turn")
    actor = a if turn_message in a.received else b
    before = await table_facts(nl_table.pk)
    hand, version = turn_message["hand"], turn_message["version"]
    cases = [
        ({"hand": 10**30, "version": version, "action": {"kind": "fold"}}, "malformed_message"),
        ({"hand": hand, "version": -(10**30), "action": {"kind": "fold"}}, "malformed_message"),
        ({"hand": hand, "version": version, "action": {"kind": "raise", "amount": 10**30}},
         "bad_amount"),
        ({"hand": hand, "version": version, "action": {"kind": "raise", "amount": 2**62}},
         "bad_amount"),
        ({"hand": hand, "version": version, "action": {"kind": "call"}, "seat": 2**70},
         "malformed_message"),
    ]
    for fields, code in cases:
        assert error_code(await actor.request({"type": "act", **fields})) == code, fields
    await still_open(actor)
    assert await table_facts(nl_table.pk) == before
    assert first(await actor.request({"type": "act", "hand": hand, "version": version,
                                      "action": {"kind": "fold"}}), "ack")
    await database_sync_to_async(assert_chips_conserved)()
    await a.close()
    await b.close()


@pytest.mark.django_db
def test_table_settings_beyond_the_bounds_are_refused_everywhere(alice: Any) -> None:
    """Service, REST and the lobby form refuse settings a 32-bit column could not hold
    (and more than MAX_CHIPS) with bad_settings; nothing is created."""
    too_big = [{"small_blind": 10**11, "big_blind": 10**11}, {"min_buy_in": 10**13},
               {"max_buy_in": 2**62}, {"ante": 2**40}]
    for settings in too_big:
        with pytest.raises(TableError) as info:
            services.create_table(creator=alice, name="Too big", settings=settings)
        assert info.value.code == "bad_settings", settings
    client = APIClient()
    client.force_login(alice)
    for settings in too_big:
        response = client.post("/api/v1/tables/", {"name": "Too big", "settings": settings},
                               format="json")
        assert response.status_code == 400 and response.json()["error"]["code"] in {
            "bad_settings", "invalid_request"}, response.content
    browser = Client()
    browser.force_login(alice)
    response = browser.post("/lobby/create/", {
        "name": "Too big", "game": "holdem", "settings_for": "holdem", "structure": "NL",
        "small_blind": str(10**11), "big_blind": str(10**11), "seats": "6",
        "turn_seconds": "30"})
    assert response.status_code == 400
    assert not Table.objects.filter(name="Too big").exists()
    # Within the bounds (beyond 32 bits): created, every amount stored exactly.
    blind = get_game("holdem").settings_schema()["properties"]["big_blind"]["maximum"]
    response = client.post("/api/v1/tables/", {"name": "Huge stakes", "settings": {
        "structure": "NL", "small_blind": blind // 2, "big_blind": blind}}, format="json")
    assert response.status_code == 201, response.content
    table = Table.objects.get(name="Huge stakes")
    assert (table.small_blind, table.big_blind, table.max_buy_in) == (blind // 2, blind,
                                                                     100 * blind)
    assert table.settings["max_buy_in"] == 100 * blind <= MAX_CHIPS


@pytest.mark.django_db
def test_a_game_cannot_store_settings_beyond_the_bounds(alice: Any, monkeypatch: Any) -> None:
    """Whatever a game accepts, the table service stores no number beyond MAX_CHIPS."""
    game = get_game("holdem")
    real = game.settings_json
    monkeypatch.setattr(game, "settings_json", lambda s: {**real(s), "extra": 10**20})
    with pytest.raises(TableError) as info:
        services.create_table(creator=alice, name="Sneaky", settings={})
    assert info.value.code == "bad_settings"
    assert not Table.objects.filter(name="Sneaky").exists()


@pytest.mark.django_db
def test_api_filters_with_huge_numbers_are_refused_not_a_500(alice: Any, nl_table: Any) -> None:
    client = APIClient()
    client.force_login(alice)
    api_error(client.get("/api/v1/tables/?stakes=1/" + "9" * 40), 400, "invalid_request")
    api_error(client.get("/api/v1/tables/?small_blind=" + "9" * 40), 400, "invalid_request")
    assert client.get("/api/v1/tables/?stakes=1/2").status_code == 200


@pytest.mark.django_db
def test_ledger_amounts_and_balances_are_bounded(alice: Any, root: Any) -> None:
    player = Player.objects.get(name="alice")
    for amount in (MAX_CHIPS + 1, -(10**30)):
        with pytest.raises(InvalidAmount):
            accounts_services.adjust(player=player, amount=amount, created_by=root)
    with pytest.raises(InvalidAmount):
        accounts_services.buy_in(player=player, chips=2**62)
    for _ in range(MAX_BALANCE // MAX_CHIPS):
        accounts_services.adjust(player=player, amount=MAX_CHIPS, created_by=root)
    player.refresh_from_db()
    assert player.balance == MAX_BALANCE
    with pytest.raises(BalanceLimit) as info:
        accounts_services.adjust(player=player, amount=1, created_by=root)
    assert info.value.code == "balance_limit"
    player.refresh_from_db()
    assert player.balance == MAX_BALANCE  # nothing changed
    assert not AdjustBalanceForm({"amount": str(10**13), "note": "x"}).is_valid()
    assert AdjustBalanceForm({"amount": str(MAX_CHIPS), "note": "x"}).is_valid()


# ------------------------------------------------------------------ text


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_ws_chat_with_control_characters_is_refused(nl_table: Any, alice: Any) -> None:
    client = await open_client(nl_table.pk, user=alice)
    before = await table_facts(nl_table.pk)
    for text in ("a\x00b", "two\nlines", "bell\x07", "\x1b[31mred", "c1\x85c1", "tab\there"):
        assert error_code(await client.request({"type": "chat", "text": text})) == \
            "invalid_text", repr(text)
    for raw in ('{"type": "chat", "text": "a\\u0000b"}', '{"type": "chat", "text": "\\ud800"}',
                '{"type": "sit", "seat": 0, "buy_in": 200, "note": "\\u0000"}'):
        assert error_code(await client.request(raw)) == "invalid_text", raw
    await still_open(client)
    assert await table_facts(nl_table.pk) == before
    got = await client.request({"type": "chat", "text": "  gl hf ♠ 😀 \n"})
    assert first(got, "chat")["text"] == "gl hf ♠ 😀"
    await client.close()


@pytest.mark.django_db
def test_names_with_control_characters_are_refused(alice: Any, bob: Any) -> None:
    """Table names (service, REST, lobby form), player and bot names, bot descriptions,
    usernames: invalid_text (names also follow their own rules: invalid_name)."""
    for name in ("two\nlines", "nul\x00", "esc\x1b", "\u2028ok\x7f"):
        with pytest.raises(TableError) as info:
            services.create_table(creator=alice, name=name, settings={})
        assert info.value.code == "invalid_text", repr(name)
    client = APIClient()
    client.force_login(alice)
    for name in ("two\nlines", "nul\x00", "tab\tname"):
        api_error(client.post("/api/v1/tables/", {"name": name}, format="json"), 400,
                  "invalid_text")
    api_error(client.post("/api/v1/tables/", '{"name": "x\\ud800"}',
                          content_type="application/json"), 400, "invalid_text")
    browser = Client()
    browser.force_login(alice)
    response = browser.post("/lobby/create/", {"name": "new\nline", "game": "holdem",
                                               "settings_for": "holdem", "turn_seconds": "30"})
    assert response.status_code == 400
    assert not Table.objects.exists()
    with pytest.raises(InvalidText):
        accounts_services.create_human_player(owner=alice, name="al\nice")
    bots = APIClient()
    bots.force_login(bob)
    api_error(bots.post("/api/v1/bots/", {"name": "Bot\x00"}, format="json"), 400,
              "invalid_text")
    api_error(bots.post("/api/v1/bots/", {"name": "Botty", "description": "a\x1bb"},
                        format="json"), 400, "invalid_text")
    with pytest.raises(InvalidText):
        accounts_services.create_bot(owner=bob, name="Botty", description="nul\x00")
    assert bots.post("/api/v1/bots/", {"name": "Botty", "description": "two\nlines ok"},
                     format="json").status_code == 201
    form = RegistrationForm({"username": "eve\x00", "password1": "x-Long-pass-12",
                             "password2": "x-Long-pass-12"})
    assert not form.is_valid() and "username" in form.errors
    assert not Player.objects.filter(name__startswith="al\n").exists()


# ------------------------------------------------------------------ PHH export

AWKWARD = ['Qu"ote', "Back\\slash", "New\nline", "Tab\tand\rCR", "Ünï©ødé ♠ 😀",
           "Nul\x00Del\x7f", "\\u0041 not an escape", "'single' and \"double\""]


def test_phh_export_escapes_every_string() -> None:
    """Was: a newline in a table name made the PHH export invalid TOML."""
    game = get_game("holdem")
    state = game.create(game.validate_settings({"seats": 2}))
    game.prepare_round(state, ["p1", "p2"], [100, 100], dealer=0)
    game.start_round(state, game.draw_chance(state, random.Random(3)))
    game.apply(state, 0, {"kind": "fold"})
    while game.to_act(state):
        game.timeout(state)
    record = game.round_record(state)
    names = [AWKWARD[0] + AWKWARD[2], AWKWARD[4] + AWKWARD[5]]
    for order in (None, "match"):
        meta = {"names": names, "table": "Table\n[evil]\nx = 1", "number": 7,
                "event": "\"; ".join(AWKWARD), "order": order}
        text = game.export_round(record, Viewer.superuser(), meta)
        parsed = tomllib.loads(text)
        assert parsed["players"] == names
        assert parsed["table"] == meta["table"] and parsed["event"] == meta["event"]
        assert parsed["hand"] == 7 and "evil" not in parsed


@pytest.mark.django_db
def test_phh_download_of_a_hand_is_valid_toml(alice: Any, bob: Any, root: Any) -> None:
    """Through the server: a table name with quotes, a backslash and unicode (allowed),
    and one with a newline stored before the bounds existed (the writer escapes it)."""
    table = services.create_table(creator=alice, name='The "Shark\\Tank" ♠ Ünï',
                                  settings={"structure": "NL", "seats": 2})
    sit(table, alice, 0)
    sit(table, bob, 1)
    hand_id = Table.objects.get(pk=table.pk).current_hand_id
    while True:  # fold, then the winner mucks: the hand ends
        seat, hand, version, legal = turn(table.pk)
        if seat is None or hand != hand_id:
            break
        action = {"kind": "muck"} if legal["can_muck"] else {"kind": "fold"}
        services.execute(table_id=table.pk, user=alice if seat == 0 else bob, command={
            "type": "act", "hand": hand, "version": version, "action": action})
    for name in (table.name, "Old\nname with \x07 and \"quotes\""):
        Table.objects.filter(pk=table.pk).update(name=name)
        text = selectors.hand_export(hand_id, root)
        assert text, "the finished hand has an export"
        parsed = tomllib.loads(text)
        assert parsed["table"] == name and sorted(parsed["players"]) == ["alice", "bob"]
        client = APIClient()
        client.force_login(root)
        response = client.get(f"/api/v1/hands/{hand_id}/phh")
        assert response.status_code == 200
        assert tomllib.loads(response.content.decode())["table"] == name


# ------------------------------------------------------------- REST errors as JSON


@pytest.mark.django_db
def test_rest_body_over_the_limit_is_a_json_413(alice: Any, settings: Any) -> None:
    """Was: Django's HTML "400 Bad Request" (RequestDataTooBig)."""
    client = APIClient()
    client.force_login(alice)
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    body = json.dumps({"name": "x" * (limit + 10)})
    error = api_error(client.post("/api/v1/tables/", body, content_type="application/json"),
                      413, "request_too_large")
    assert error["details"]["max_bytes"] == limit
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    api_error(client.post("/api/v1/bots/", json.dumps({"name": "y" * 2000}),
                          content_type="application/json"), 413, "request_too_large")
    api_error(client.post("/api/v1/nowhere/", "z" * 2000, content_type="text/plain"), 413,
              "request_too_large")
    assert not Table.objects.exists()


def test_parser_bounds_a_body_without_content_length(settings: Any) -> None:
    """A chunked body (no Content-Length) is read only up to the limit."""
    from api.errors import ApiError
    from api.parsers import BoundedJSONParser

    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    parser = BoundedJSONParser()
    assert parser.parse(io.BytesIO(b'{"a": [1]}'), "application/json", {}) == {"a": [1]}
    with pytest.raises(ApiError) as info:
        parser.parse(io.BytesIO(b'{"a": "' + b"x" * 200 + b'"}'), "application/json", {})
    assert info.value.status_code == 413 and info.value.code == "request_too_large"


@pytest.mark.django_db
def test_every_api_error_path_answers_the_json_shape(alice: Any, settings: Any,
                                                     monkeypatch: Any) -> None:
    client = APIClient()
    client.force_login(alice)
    api_error(client.get("/api/v1/nowhere/"), 404, "not_found")
    api_error(client.get("/api/v2/tables/"), 404, "not_found")  # outside the API's URL map
    api_error(client.delete("/api/v1/me/"), 405, "method_not_allowed")
    api_error(client.post("/api/v1/tables/", "name=x", content_type="text/plain"), 415,
              "unsupported_media_type")
    api_error(client.post("/api/v1/tables/", "{not json", content_type="application/json"),
              400, "malformed_request")
    api_error(client.post("/api/v1/tables/", '{"name": "x", "turn_seconds": NaN}',
                          content_type="application/json"), 400, "malformed_request")
    api_error(APIClient().get("/api/v1/me/"), 401, "not_authenticated")
    api_error(client.post("/api/v1/bots/", {"name": "Nope"}, format="json"), 403,
              "permission_denied")
    csrf = APIClient(enforce_csrf_checks=True)
    csrf.force_login(alice)
    api_error(csrf.post("/api/v1/tables/", {"name": "x"}, format="json"), 403,
              "permission_denied")
    api_error(client.get("/api/v1/players/a%00b/stats/"), 400, "invalid_text")
    api_error(client.get("/api/v1/tables/?name=%00"), 400, "invalid_text")
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                               "DEFAULT_THROTTLE_RATES": {**rates, "default": "1/min"}}
    client.get("/api/v1/me/")
    api_error(client.get("/api/v1/me/"), 429, "throttled")
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    # An unexpected error: JSON without the traceback, also in DEBUG (it is logged).
    settings.DEBUG = True
    from api import views

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(views.MeView, "get", broken)
    loose = Client(raise_request_exception=False)
    loose.force_login(alice)
    response = loose.get("/api/v1/me/")
    error = api_error(response, 500, "server_error")
    assert "boom" not in response.content.decode() and "Traceback" not in error["message"]


def test_unstorable_strings_are_refused_by_the_one_json_reader() -> None:
    for text in ('{"a": "\\u0000"}', '["\\udc00"]', '{"\\ud800": 1}', '"x\\\\\\u0000"'):
        with pytest.raises(UnstorableText):
            load_json(text)
    assert load_json('["\\\\u0000", "\\ud83d\\ude00", "\\u00e9"]') == ["\\u0000", "😀", "é"]
