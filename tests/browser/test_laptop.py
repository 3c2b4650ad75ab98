"""A laptop screen (1366×768): the table mid-hand and the lobby fit without overlaps,
and the action bar is reachable without scrolling the table away.
Screenshots: artifacts/screenshots/laptop-*.png."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from .conftest import shot
from .helpers import make_table

W, H = 1366, 768


def _box(locator: Any) -> dict[str, float]:
    box = locator.bounding_box()
    assert box is not None
    return box


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def _no_overlaps(boxes: list[tuple[str, dict[str, float]]]) -> None:
    for i, (name_a, a) in enumerate(boxes):
        for name_b, b in boxes[i + 1:]:
            assert not _overlap(a, b), f"{name_a} overlaps {name_b}: {a} {b}"


def test_laptop_table_mid_hand_and_lobby(server: Any, open_page: Any) -> None:
    table_id = make_table(server, "Laptop", [(0, "Station-D"), (2, "Station-E"),
                                             (3, "dave"), (4, "Station-F")])
    page = open_page("dave", width=W, height=H)
    page.goto(f"/tables/{table_id}/")
    expect(page.locator("#conn")).to_have_attribute("data-state", "connected")
    # Play on (check / call) to a turn after the flop: a full table for the picture.
    board = page.locator(".board .card:not(.slot)")
    for _ in range(12):
        expect(page.locator("#act-buttons")).to_be_visible(timeout=30000)
        if board.count() >= 3:
            break
        turn = page.locator("#act-for").get_attribute("data-turn")
        button = page.locator("#btn-check")
        (button if button.is_visible() else page.locator("#btn-call")).click()
        page.wait_for_function(
            "t => document.getElementById('act-for').dataset.turn !== t", arg=turn)
    assert board.count() >= 3
    shot(page, "laptop-table")
    assert page.evaluate("window.scrollY") == 0
    # Everything needed to act is on the first screen, below the felt's seats.
    for sel in ("#btn-fold", "#act-label", ".my-seat"):
        box = _box(page.locator(sel).first)
        assert box["y"] + box["height"] <= H, f"{sel} is below the fold: {box}"
    seats = page.locator(".seat")
    boxes = [(f"seat {i}", _box(seats.nth(i))) for i in range(seats.count())]
    boxes.append(("centre", _box(page.locator(".centre"))))
    _no_overlaps(boxes)
    bar = _box(page.locator("#action-bar"))
    for name, box in boxes:
        assert box["y"] + box["height"] <= bar["y"], f"{name} runs into the action bar"
    side = _box(page.locator(".table-side"))
    felt = _box(page.locator("#felt"))
    assert felt["x"] + felt["width"] <= side["x"], "the felt runs under the side panels"
    page.locator("#btn-fold").click()

    page.goto("/lobby/")
    page.get_by_role("cell", name="Laptop", exact=True).click()
    expect(page.locator("#sel-players li").first).to_be_visible()
    shot(page, "laptop-lobby")
    assert page.evaluate("document.documentElement.scrollWidth") <= W
    assert page.js_errors == []
