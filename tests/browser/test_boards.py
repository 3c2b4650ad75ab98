"""The table shell and its game boards (static/js/table.js, static/games/<game>/board.js),
and the create-table form generated from a game's settings schema.

* A Hold'em table loads the holdem board with a dynamic ``import()``; BuyIn events
  (the platform's) add no second line to the hand log.
* The generic board (``?board=generic``, or any game without a board) shows the
  game's view as JSON, seats a player through the game's seat options and plays
  from the generic move descriptors of ``your_turn.moves``.
* Its move controls, on a static fixture of every descriptor type.
* The lobby's settings fields (server-rendered) match what the browser renders from
  the same schema, and an engine refusal shows next to its field (no 500).
"""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import expect

from .conftest import shot
from .helpers import make_table

GENERIC = "/static/games/_generic/board.js"


def test_holdem_table_loads_its_board_module(server: Any, open_page: Any) -> None:
    table_id = make_table(server, "Board NL", [(0, "Station-A"), (2, "Station-B")])
    page = open_page("carol")
    modules: list[str] = []
    page.on("request", lambda r: modules.append(r.url) if "/static/games/" in r.url else None)
    page.goto(f"/tables/{table_id}/")
    expect(page.locator("#table-page")).to_have_attribute("data-board", "holdem")
    assert page.evaluate("window.__board") == "holdem"
    assert any(url.endswith("/static/games/holdem/board.js") for url in modules), modules
    assert not any("/_generic/" in url for url in modules)
    expect(page.locator("#conn")).to_have_attribute("data-state", "connected")
    expect(page.locator("#felt .seat.taken")).to_have_count(2)

    # Sitting down: the buy-in is a platform BuyIn event besides PlayerSeated; the
    # log says it once.
    page.locator("button.seat.free[data-seat='4']").click()
    page.fill("#sit-amount", "150")
    page.click("#sit-ok")
    expect(page.locator(".seat.mine[data-seat='4']")).to_be_visible()
    log = page.locator("#hand-log")
    expect(log.locator("li", has_text="carol sits down with 150")).to_have_count(1)
    assert "buys in" not in log.inner_text()
    page.locator(".my-seat button", has_text="Leave").click()
    page.wait_for_timeout(300)
    assert page.js_errors == []


def test_generic_board_seats_and_plays_from_move_descriptors(server: Any,
                                                             open_page: Any) -> None:
    table_id = make_table(server, "Generic view", [(0, "Station-A")])
    page = open_page("dave")
    sent: list[dict[str, Any]] = []
    page.on("websocket", lambda ws: ws.on(
        "framesent", lambda p: sent.append(json.loads(p)) if isinstance(p, str) else None))
    page.goto(f"/tables/{table_id}/?board=generic")
    expect(page.locator("#table-page")).to_have_attribute("data-board", "_generic")
    assert page.evaluate("window.__board") == "_generic"
    expect(page.locator("#conn")).to_have_attribute("data-state", "connected")
    view = page.locator("#gb-view")
    expect(view).to_contain_text('"seats"')
    json.loads(view.inner_text())  # the game's view, pretty-printed JSON
    expect(page.locator(".gb-seat.taken")).to_contain_text("Station-A")

    # Sit through the dialog built from the game's seat options (poker: buy_in).
    page.get_by_role("button", name="Sit in seat 2").click()
    dialog = page.locator("#gb-sit-dialog")
    expect(dialog).to_be_visible()
    dialog.locator("input[name=buy_in]").fill("120")
    page.click("#gb-sit-ok")
    expect(dialog).to_be_hidden()
    expect(page.locator(".gb-seat.mine[data-seat='1']")).to_be_visible()
    expect(page.locator(".my-seat[data-seat='1']")).to_contain_text("dave")

    # A turn: the descriptors become controls; a sized move sends its parameter.
    moves = page.locator("#gb-turn .gb-move")
    expect(moves.first).to_be_visible(timeout=30000)
    shot(page, "table-generic-board")
    sized = page.locator("#gb-turn .gb-move.with-params")
    before = len(sent)
    low = None
    if sized.count():
        number = sized.first.locator("input[type=number]").first
        low = int(number.get_attribute("min") or "0")
        number.fill(str(low))
        sized.first.locator("button").click()
    else:
        moves.first.locator("button").click()
    acts: list[dict[str, Any]] = []
    for _ in range(50):
        acts = [m for m in sent[before:] if m.get("type") == "act"]
        if acts:
            break
        page.wait_for_timeout(100)
    assert acts, sent[before:]
    act = acts[0]
    assert {"hand", "version", "action"} <= set(act) and act["seat"] == 1
    assert isinstance(act["action"]["kind"], str)
    if low is not None:
        assert act["action"]["amount"] == low
    expect(page.locator("#hand-log li").first).to_be_visible()
    page.locator(".my-seat button", has_text="Leave").click()
    page.wait_for_timeout(300)
    assert page.js_errors == []


FIXTURE = [
    {"kind": "pass", "label": "Pass"},
    {"kind": "bid", "label": "Bid", "params": {"amount": {"type": "number", "min": 4, "max": 20}}},
    {"kind": "trump", "label": "Choose trump",
     "params": {"suit": {"type": "choice", "options": ["s", "h", {"joker": 1}]}}},
    {"kind": "discard", "label": "Discard",
     "params": {"cards": {"type": "subset", "items": ["As", "Kd", "7c"], "min": 1, "max": 2}}},
]


def test_generic_move_controls_on_a_fixture(server: Any, open_page: Any) -> None:
    table_id = make_table(server, "Fixture host", [])
    page = open_page("erin")
    page.goto(f"/tables/{table_id}/")
    page.evaluate("""async ([url, moves]) => {
        const { renderMoves } = await import(url);
        window.__sent = [];
        const box = renderMoves(moves, (action) => window.__sent.push(action));
        box.id = "fixture";
        document.body.append(box);
    }""", [GENERIC, FIXTURE])
    box = page.locator("#fixture")
    sent = lambda: page.evaluate("window.__sent")  # noqa: E731
    expect(box.locator("form.gb-move")).to_have_count(4)
    for move in FIXTURE:
        expect(box.locator(f"form[data-kind={move['kind']}] button")).to_have_text(move["label"])

    box.get_by_role("button", name="Pass").click()
    assert sent() == [{"kind": "pass"}]

    bid = box.locator("form[data-kind=bid]")
    amount = bid.locator("input[type=number]")
    assert (amount.get_attribute("min"), amount.get_attribute("max")) == ("4", "20")
    amount.fill("25")
    bid.locator("button").click()
    expect(bid.locator(".error")).to_contain_text("4 to 20")
    amount.fill("7")
    bid.locator("button").click()
    assert sent()[-1] == {"kind": "bid", "amount": 7}
    expect(bid.locator(".error")).to_have_text("")

    trump = box.locator("form[data-kind=trump]")
    assert trump.locator("option").all_inner_texts() == ["s", "h", '{"joker":1}']
    trump.locator("select").select_option(index=2)
    trump.locator("button").click()
    assert sent()[-1] == {"kind": "trump", "suit": {"joker": 1}}

    discard = box.locator("form[data-kind=discard]")
    expect(discard.locator("legend")).to_contain_text("1 to 2")
    count = len(sent())
    discard.locator("button").click()  # none chosen: refused in the browser
    expect(discard.locator(".error")).to_contain_text("choose 1 to 2")
    for label in ("As", "Kd", "7c"):
        discard.get_by_label(label).check()
    discard.locator("button").click()  # three: too many
    assert len(sent()) == count
    discard.get_by_label("Kd").uncheck()
    discard.locator("button").click()
    assert sent()[-1] == {"kind": "discard", "cards": ["As", "7c"]}
    assert page.js_errors == []


def _fields(page: Any, selector: str) -> list[list[str]]:
    return page.eval_on_selector_all(
        f"{selector} [name]",
        "nodes => nodes.map(n => [n.name, n.tagName.toLowerCase(), n.type || ''])")


def test_create_form_comes_from_the_settings_schema(server: Any, open_page: Any) -> None:
    page = open_page("carol")
    page.goto("/lobby/")
    games = json.loads(page.locator("#games-data").text_content() or "[]")
    assert games and games[0]["key"] == "holdem"
    schema = games[0]["settings_schema"]
    page.click("#open-create")
    form = page.locator("#create-form")
    expect(form.locator("select[name=game]")).to_have_value("holdem")
    server_side = _fields(page, "#settings-fields")
    assert [name for name, *_ in server_side] == list(schema["properties"])
    # The browser renders the same inputs from the same schema (another game's form).
    page.evaluate("""async (schema) => {
        const { schemaFields } = await import("/static/js/schemaform.js");
        const box = document.createElement("div");
        box.id = "client-fields";
        box.hidden = true;
        box.append(...schemaFields(schema));
        document.body.append(box);
    }""", schema)
    assert _fields(page, "#client-fields") == server_side
    structure = form.locator("select[name=structure] option")
    assert structure.all_inner_texts() == [schema["properties"]["structure"]["enumTitles"][k]
                                           for k in schema["properties"]["structure"]["enum"]]

    # The engine refuses (the maximum buy-in, by default 100 big blinds, is below the
    # minimum): its sentence shows next to the field it names, the values stay.
    form.locator("input[name=name]").fill("Refused by the engine")
    form.locator("input[name=min_buy_in]").fill("500")
    with page.expect_response(re.compile(r".*/lobby/create/$")) as response:
        form.locator("button[type=submit]").click()
    assert response.value.status == 400
    error = page.locator("#create-form .field[data-field=max_buy_in] .error")
    expect(error).to_contain_text("min_buy_in")
    expect(page.locator("#create-form input[name=min_buy_in]")).to_have_value("500")
    expect(page.locator("#create-panel")).to_be_visible()
    shot(page, "lobby-create-refused")
    assert page.js_errors == []


def test_create_form_without_javascript(server: Any, browser: Any, offsite: Any) -> None:
    from .conftest import PASSWORD

    context = browser.new_context(java_script_enabled=False, base_url=server.url)
    context.route("**/*", offsite.route)
    try:
        page = context.new_page()
        page.goto("/accounts/login/")
        page.fill("input[name=username]", "frank")
        page.fill("input[name=password]", PASSWORD)
        page.click("form button[type=submit]")
        page.goto("/lobby/")
        expect(page.locator("#create-panel")).to_be_hidden()
        page.click("#open-create")  # a link: ?create=1 opens the panel
        expect(page.locator("#create-panel")).to_be_visible()
        form = page.locator("#create-form")
        expect(form.locator("select[name=structure]")).to_have_value("NL")
        form.locator("input[name=name]").fill("No script PL")
        form.locator("select[name=structure]").select_option("PL")
        form.locator("input[name=big_blind]").fill("4")
        form.locator("input[name=small_blind]").fill("2")
        form.locator("button[type=submit]").click()
        page.wait_for_url(re.compile(r".*/tables/\d+/$"))
        expect(page.locator(".table-top .muted")).to_contain_text("PL")
    finally:
        context.close()
