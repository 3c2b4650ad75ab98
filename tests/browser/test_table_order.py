"""The table shell when a snapshot and events cross on the way (static/js/table.js).

A snapshot is built while events are sent; either may arrive first. Both orders are
forced here by routing the table's websocket through the test:

* a snapshot that overtook events: the events' state is in it, but their log lines
  are not, so they are still logged (once);
* a snapshot older than events already applied: it would take the table back and
  name nobody who just sat down; the shell asks for a fresh one instead.

Either way the hand log says "carol sits down with 150", never "Seat 5 …".
"""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import expect

from .helpers import make_table


def _seated_at_4(text: str) -> bool:
    message = json.loads(text)
    return message.get("type") == "events" and any(
        e.get("type") == "PlayerSeated" and e.get("player") == 4 for e in message["events"])


def _sit_and_read_log(page: Any, table_id: int) -> Any:
    page.goto(f"/tables/{table_id}/")
    expect(page.locator("#conn")).to_have_attribute("data-state", "connected")
    page.locator("button.seat.free[data-seat='4']").click()
    page.fill("#sit-amount", "150")
    page.click("#sit-ok")
    expect(page.locator(".seat.mine[data-seat='4']")).to_be_visible()
    return page.locator("#hand-log")


def test_events_overtaken_by_a_snapshot_are_still_logged(server: Any, open_page: Any) -> None:
    table_id = make_table(server, "Order overtaken", [(0, "Station-A")])
    page = open_page("carol")
    held: list[str] = []

    def route(ws: Any) -> None:
        upstream = ws.connect_to_server()
        ws.on_message(upstream.send)

        def down(text: str) -> None:
            if not held and _seated_at_4(text):
                held.append(text)  # the events wait; a snapshot after them goes first
                upstream.send(json.dumps({"type": "snapshot", "request_id": "probe"}))
                return
            ws.send(text)
            if held and json.loads(text).get("request_id") == "probe":
                ws.send(held.pop())
                held.append("")  # (done)

        upstream.on_message(down)

    page.route_web_socket(re.compile(r"/ws/tables/"), route)
    log = _sit_and_read_log(page, table_id)
    expect(log.locator("li", has_text="carol sits down with 150")).to_have_count(1)
    assert held == [""]
    assert "Seat 5" not in log.inner_text()
    assert page.js_errors == []


def test_a_snapshot_older_than_the_events_is_replaced(server: Any, open_page: Any) -> None:
    table_id = make_table(server, "Order stale", [(0, "Station-A")])
    page = open_page("carol")
    snapshots: list[str] = []
    replayed: list[bool] = []

    def route(ws: Any) -> None:
        upstream = ws.connect_to_server()
        ws.on_message(upstream.send)

        def down(text: str) -> None:
            ws.send(text)
            if json.loads(text).get("type") == "snapshot":
                snapshots.append(text)
            elif not replayed and _seated_at_4(text):
                replayed.append(True)
                ws.send(snapshots[0])  # the connection's first snapshot, from before the sit

        upstream.on_message(down)

    page.route_web_socket(re.compile(r"/ws/tables/"), route)
    log = _sit_and_read_log(page, table_id)
    expect(log.locator("li", has_text="carol sits down with 150")).to_have_count(1)
    assert replayed == [True]
    assert "Seat 5" not in log.inner_text()
    assert page.js_errors == []
