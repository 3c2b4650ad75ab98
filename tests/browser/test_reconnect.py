"""The table shell's reconnect overlay (static/js/table.js, every board).

When the server goes away, a "Reconnecting…" notice covers the playing area within
10 s: the felt is dimmed and its controls are inert (no click, no focus, no keyboard
shortcut). When the server is back and the table resynced, the overlay goes and the
controls work again. Runs its own server (it is stopped and started again), so the
session's server is never interrupted. Screenshots: artifacts/screenshots/reconnect-*.png.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import Server, page_opener, serving, shot
from .helpers import make_table


@pytest.fixture(scope="module")
def own_server() -> Iterator[Server]:
    yield from serving(Server())


@pytest.fixture
def open_own(own_server: Server, browser: Any, offsite: Any,
             csp_guard: Any) -> Iterator[Callable[..., Any]]:
    with page_opener(browser, own_server.url, offsite, csp_guard) as make:
        yield make


INERT = """() => ['board-main', 'my-seats', 'board-foot']
  .map((id) => document.getElementById(id).inert)"""


def _focusable(page: Any, selector: str) -> bool:
    return bool(page.evaluate(
        "s => { const n = document.querySelector(s); n.focus();"
        " return document.activeElement === n; }",
        selector))


@pytest.mark.parametrize("size", [(1366, 768), (390, 844)], ids=["desktop", "phone"])
def test_reconnect_overlay_covers_the_table_until_the_resync(
        own_server: Server, open_own: Any, size: tuple[int, int]) -> None:
    name = f"Reconnect overlay {size[0]}"
    table_id = make_table(own_server, name, [(0, "Station-A"), (3, "Station-B")])
    page = open_own("carol", width=size[0], height=size[1], touch=size[0] < 600)
    page.goto(f"/tables/{table_id}/")
    expect(page.locator("#conn")).to_have_attribute("data-state", "connected")
    overlay = page.locator("#conn-overlay")
    free = "button.seat.free[data-seat='1']"
    expect(page.locator(free)).to_be_visible()
    expect(overlay).to_be_hidden()
    assert page.evaluate(INERT) == [False, False, False]
    assert _focusable(page, free)
    page.evaluate("window.notReloaded = true")

    own_server.stop()
    expect(overlay).to_be_visible(timeout=10000)
    expect(overlay).to_contain_text("Reconnecting…")
    expect(overlay).to_have_attribute("role", "alert")
    # The playing area is dimmed and inert: nothing in it takes focus or a click.
    assert page.evaluate(INERT) == [True, True, True]
    expect(page.locator(".table-area")).to_have_attribute("aria-busy", "true")
    page.evaluate("document.activeElement && document.activeElement.blur()")
    assert not _focusable(page, free)
    box = page.locator(free).bounding_box()
    assert box is not None
    hit = page.evaluate("([x, y]) => document.elementFromPoint(x, y)"
                        ".closest('#conn-overlay') !== null",
                        [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2])
    assert hit, "a click on the felt does not land on the overlay"
    shot(page, f"reconnect-overlay-{'phone' if size[0] < 600 else 'desktop'}")

    own_server.start()
    expect(page.locator("#conn")).to_have_attribute("data-state", "connected", timeout=20000)
    expect(overlay).to_be_hidden(timeout=15000)
    assert page.evaluate(INERT) == [False, False, False]
    expect(page.locator(".table-area")).to_have_attribute("aria-busy", "false")
    assert page.evaluate("window.notReloaded") is True
    expect(page.locator(".seat.taken")).to_have_count(2)
    # The controls work again: the free seat opens the sit-down dialog.
    page.locator(free).click()
    expect(page.locator("#sit-dialog")).to_be_visible()
    page.click("#sit-cancel")
    assert page.js_errors == []
