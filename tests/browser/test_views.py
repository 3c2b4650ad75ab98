"""Acceptance: hole-card privacy per viewer, the lobby (filter, sort, search, live),
replay and statistics pages, and losing / regaining the server (last: it restarts it)."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from .conftest import shot
from .helpers import finished_hand, make_table

FACE_UP = ".seat .hole .card:not(.back)"


def _at_table(page: Any, table_id: int) -> None:
    page.goto(f"/tables/{table_id}/")
    expect(page.locator("#conn")).to_have_attribute("data-state", "connected")
    expect(page.locator(".seat .hole .card").first).to_be_visible()


def test_each_viewer_sees_only_the_cards_they_may(server: Any, open_page: Any) -> None:
    table_id = make_table(server, "Privacy", [(0, "alice"), (2, "carol")])
    alice, carol = open_page("alice"), open_page("carol")
    dave, root = open_page("dave"), open_page("root")
    for page in (alice, carol, dave, root):
        _at_table(page, table_id)
    for page, seat in ((alice, 0), (carol, 2)):
        expect(page.locator(f".seat[data-seat='{seat}'] .hole .card:not(.back)")).to_have_count(2)
        assert page.locator(FACE_UP).count() == 2  # only their own
    assert dave.locator(".seat .hole .card.back").count() == 4
    assert dave.locator(FACE_UP).count() == 0  # a spectator sees none
    expect(root.locator(FACE_UP)).to_have_count(4)  # a superuser sees all
    shot(root, "table-superuser")


def test_lobby_filter_sort_search_and_live_updates(server: Any, open_page: Any) -> None:
    make_table(server, "Lobby FL", [(1, "Station-A")], structure="FL", small_blind=2,
               big_blind=4)
    make_table(server, "Lobby NL 5/10", [(0, "Station-C")], small_blind=5, big_blind=10)
    page = open_page("alice")
    page.goto("/lobby/")
    rows = page.locator("#table-rows tr")
    expect(rows.filter(has_text="Lobby FL")).to_have_count(1)

    page.select_option("select[name=structure]", "FL")
    expect(rows.filter(has_text="Lobby NL 5/10")).to_have_count(0)
    for text in rows.locator("td:nth-child(3)").all_inner_texts():
        assert text == "FL"
    page.click("button[type=reset]")
    expect(rows.filter(has_text="Lobby NL 5/10")).to_have_count(1)

    page.click("[data-sort=big_blind]")
    page.click("[data-sort=big_blind]")  # descending
    expect(page.locator("th[aria-sort=descending] [data-sort=big_blind]")).to_be_visible()
    expect(rows.first).to_contain_text("5/10")
    # (tables of games without stakes — Tuppi, dice — list no blinds and are not compared)
    stakes = [int(t.split("/")[1].split()[0]) for t in
              rows.locator("td:nth-child(4)").all_inner_texts() if "/" in t]
    assert len(stakes) >= 2
    assert stakes == sorted(stakes, reverse=True)

    page.fill("input[name=player]", "station-c")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Lobby NL 5/10")
    expect(rows.first.locator(".badge.found")).to_contain_text("Station-C")
    rows.first.click()
    expect(page.locator("#sel-players")).to_contain_text("Station-C")
    shot(page, "lobby-search")
    page.fill("input[name=player]", "")

    other = open_page("bob")
    other.goto("/lobby/")
    other.click("#open-create")
    other.fill("#create-form input[name=name]", "Made elsewhere")
    other.click("#create-form button[type=submit]")
    other.wait_for_url(re.compile(r".*/tables/\d+/$"))
    expect(rows.filter(has_text="Made elsewhere")).to_have_count(1, timeout=3500)
    expect(page.locator("#lobby-live")).to_have_class(re.compile("on"))
    page.get_by_role("cell", name="Made elsewhere").click()
    page.click("#sel-open")
    page.wait_for_url(re.compile(r".*/tables/\d+/$"))
    shot(page.context.pages[0], "lobby-after")
    assert page.js_errors == []


def test_replay_steps_through_every_action(server: Any, open_page: Any) -> None:
    table_id = make_table(server, "Replay bots", [(0, "Station-A"), (2, "Station-B")])
    page = open_page("alice")
    page.goto(f"/tables/{table_id}/hands/")
    for _ in range(40):
        hand_id = finished_hand(server, table_id)
        if hand_id:
            break
        page.wait_for_timeout(250)
    assert hand_id
    page.goto(f"/hands/{hand_id}/")
    step = page.locator("#rp-step")
    total = int(re.search(r"of (\d+)", step.inner_text()).group(1))  # type: ignore[union-attr]
    lines = page.locator(".replay-log li")
    assert lines.count() == total and total > 5
    for n in range(1, total + 1):
        page.click("#rp-next")
        expect(step).to_have_text(f"Step {n} of {total}")
        expect(page.locator(".replay-log li.current")).to_have_attribute("data-step", str(n))
        if lines.nth(n - 1).inner_text().startswith("Flop"):
            expect(page.locator(".board .card:not(.slot)")).to_have_count(3)
            shot(page, "replay")
    expect(page.locator(".banner")).to_contain_text("wins")
    page.click("#rp-back")
    expect(step).to_have_text(f"Step {total - 1} of {total}")
    page.click("#rp-start")
    expect(step).to_have_text(f"Step 0 of {total}")
    phh = page.request.get(f"/hands/{hand_id}/phh/")
    assert phh.ok and "actions" in phh.text()
    page.goto(f"/tables/{table_id}/hands/")
    expect(page.get_by_role("link", name="Replay").first).to_be_visible()
    page.get_by_role("link", name="Station-A").first.click()
    expect(page.locator("#st-hands")).not_to_have_text("0")
    expect(page.locator("svg.chart polyline")).to_have_count(1)
    shot(page, "statistics")
    assert page.js_errors == []


def test_zz_connection_lost_and_resync(server: Any, open_page: Any) -> None:
    table_id = make_table(server, "Reconnect", [(0, "Station-A"), (3, "Station-B")])
    page = open_page("alice")
    _at_table(page, table_id)
    page.evaluate("window.notReloaded = true")
    server.stop()
    expect(page.locator("#conn")).to_have_text(re.compile("Connection lost"), timeout=10000)
    expect(page.locator("#conn")).to_have_attribute("data-state", "lost")
    shot(page, "connection-lost")
    server.start()
    expect(page.locator("#conn")).to_have_attribute("data-state", "connected", timeout=15000)
    before = page.locator("#hand-log li").count()
    expect(page.locator("#hand-log li")).not_to_have_count(before, timeout=10000)  # live again
    assert page.evaluate("window.notReloaded") is True
    expect(page.locator(".seat.taken")).to_have_count(2)
