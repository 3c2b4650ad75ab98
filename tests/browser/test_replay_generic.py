"""The replay shell (static/js/replay.js) and its game modules.

* ``?board=generic`` replays a finished Hold'em hand on the generic replay
  (static/games/_generic/replay.js): every stored event is a step, its JSON shown;
  the controls, the clickable log and the keyboard move through the steps.
* Without it the Hold'em replay module is loaded (#replay-page[data-replay]).
"""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import expect

from .conftest import shot
from .helpers import finished_hand, make_table


def _finished(server: Any, page: Any, name: str) -> int:
    table_id = make_table(server, name, [(0, "Station-A"), (2, "Station-B")])
    for _ in range(80):
        hand_id = finished_hand(server, table_id)
        if hand_id:
            return hand_id
        page.wait_for_timeout(250)
    raise AssertionError("no hand finished")


def _modules(page: Any) -> list[str]:
    urls: list[str] = []
    page.on("request", lambda r: urls.append(r.url) if "/static/games/" in r.url else None)
    return urls


def test_generic_replay_of_a_holdem_hand(server: Any, open_page: Any) -> None:
    page = open_page("alice")
    hand_id = _finished(server, page, "Generic replay")
    modules = _modules(page)
    page.goto(f"/hands/{hand_id}/?board=generic")
    expect(page.locator("#replay-page")).to_have_attribute("data-replay", "_generic")
    assert page.evaluate("window.__replay") == "_generic"
    assert any(url.endswith("/static/games/_generic/replay.js") for url in modules), modules
    assert not any("/holdem/" in url for url in modules), modules
    expect(page.locator("#felt")).to_have_count(0)
    assert re.match(r"Hand #\d+ at Generic replay", page.title())

    config = json.loads(page.locator("#replay-config").text_content() or "{}")
    events = config["hand"]["events"]
    total = len(events)
    assert total > 5
    step = page.locator("#rp-step")
    lines = page.locator(".replay-log li")
    event = page.locator("#gr-event")
    expect(step).to_have_text(f"Step 0 of {total}")
    expect(lines).to_have_count(total)
    expect(page.locator("#gr-line")).to_contain_text(f"{total} events")
    assert event.inner_text() == ""
    # The players panel: one row per player, name, starting stack, net.
    expect(page.locator("#rp-players tr")).to_have_count(len(config["hand"]["players"]))

    def at(n: int) -> None:
        expect(step).to_have_text(f"Step {n} of {total}")
        expect(page.locator(".replay-log li.current")).to_have_attribute("data-step", str(n))
        assert json.loads(event.inner_text()) == events[n - 1]
        expect(page.locator("#gr-line")).to_contain_text(lines.nth(n - 1).inner_text())

    page.click("#rp-next")
    at(1)
    assert lines.first.inner_text().startswith(events[0]["type"])  # HandStarted {...}
    page.click("#rp-next")
    at(2)
    page.click("#rp-back")
    at(1)
    lines.nth(4).click()  # the log is clickable
    at(5)
    concerned = events[4].get("player")
    if isinstance(concerned, int):
        expect(page.locator(f".gr-seat.acting[data-seat='{concerned}']")).to_have_count(1)
    page.keyboard.press("ArrowRight")
    at(6)
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    at(4)
    page.click("#rp-end")
    at(total)
    assert any(e["type"] == "HandEnded" for e in events)
    shot(page, "replay-generic")
    page.click("#rp-start")
    expect(step).to_have_text(f"Step 0 of {total}")
    expect(page.locator(".replay-log li.current")).to_have_count(0)

    # Play runs by itself; space pauses it.
    page.click("#rp-play")
    expect(page.locator("#rp-play")).to_have_attribute("aria-label", "Pause")
    expect(step).to_have_text(f"Step 2 of {total}", timeout=5000)
    page.keyboard.press(" ")
    expect(page.locator("#rp-play")).to_have_attribute("aria-label", "Play")
    paused = step.inner_text()
    page.wait_for_timeout(1200)
    assert step.inner_text() == paused
    assert page.js_errors == []


def test_holdem_replay_loads_its_module(server: Any, open_page: Any) -> None:
    page = open_page("alice")
    hand_id = _finished(server, page, "Generic replay")
    modules = _modules(page)
    page.goto(f"/hands/{hand_id}/")
    expect(page.locator("#replay-page")).to_have_attribute("data-replay", "holdem")
    assert page.evaluate("window.__replay") == "holdem"
    assert any(url.endswith("/static/games/holdem/replay.js") for url in modules), modules
    assert not any("/_generic/" in url for url in modules), modules
    expect(page.locator("#felt .seat.taken")).to_have_count(2)
    expect(page.locator("#rp-note")).to_contain_text("the cards you may see")
    expect(page.get_by_role("link", name="Download PHH")).to_be_visible()
    page.click("#rp-end")
    expect(page.locator(".banner")).to_contain_text("wins")
    assert page.js_errors == []


def test_a_broken_replay_module_falls_back_to_the_generic_one(server: Any,
                                                               open_page: Any) -> None:
    page = open_page("alice")
    hand_id = _finished(server, page, "Generic replay")
    page.route("**/static/games/holdem/replay.js", lambda route: route.fulfill(
        status=200, content_type="text/javascript",
        body="export function createReplay() { throw new Error('broken'); }"))
    page.goto(f"/hands/{hand_id}/")
    expect(page.locator("#replay-page")).to_have_attribute("data-replay", "_generic")
    total = len(json.loads(page.locator("#replay-config").text_content() or "{}")
                ["hand"]["events"])
    expect(page.locator("#rp-step")).to_have_text(f"Step 0 of {total}")
    page.click("#rp-next")
    expect(page.locator("#rp-step")).to_have_text(f"Step 1 of {total}")
    assert page.js_errors == []
