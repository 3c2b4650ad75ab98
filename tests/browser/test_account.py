"""Acceptance (V32, holdem-rules "Joining", "Buy-in"): wait for the big blind, sit out
and back in (missed blinds posted), add chips between hands up to the table maximum,
and the game account panel (balance = ledger, players, recent entries) kept current.

frank sits at seat 4 of a table with three house bots at seats 0-2 (D, E, F) (blinds 1/2, buy-in
40-200). He only ever folds, so his stack never grows past what he bought.
"""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from .conftest import shot
from .helpers import ledger_sum, make_table, play_until

SEAT = 4


def _number(text: str) -> int:
    return int(re.sub(r"[^\d-]", "", text))


def test_wait_for_bb_sit_out_add_chips_and_account(server: Any, open_page: Any) -> None:
    table_id = make_table(server, "Joining rules",
                          [(0, "Station-D"), (1, "Station-E"), (2, "Station-F")])
    page = open_page("frank")
    page.goto(f"/tables/{table_id}/")
    expect(page.locator("#conn")).to_have_attribute("data-state", "connected")
    balance = page.locator("#account-balance")
    log = page.locator("#hand-log")
    seat = page.locator(f".seat[data-seat='{SEAT}']")
    state = page.locator(f".my-seat[data-seat='{SEAT}'] [data-testid=seat-state]")

    # The game account from the table: balance, players, ledger.
    page.locator("#account-panel summary").click()
    expect(balance).to_have_text(f"{ledger_sum(server, 'frank'):,}")
    expect(page.locator(".acct-players li", has_text="frank")).to_be_visible()
    start_balance = ledger_sum(server, "frank")

    # Sit with 100 (of 40-200), waiting for the big blind.
    page.locator(f"button.seat.free[data-seat='{SEAT}']").click()
    expect(page.locator("#sit-limits")).to_have_text("(40 – 200)")
    page.fill("#sit-amount", "100")
    page.check("#sit-wait")
    page.click("#sit-ok")
    expect(page.locator("#sit-dialog")).to_be_hidden()
    expect(seat.locator(".tag")).to_have_text("Waiting for BB")
    expect(state).to_have_text("Waiting for the big blind")
    assert seat.locator(".hole .card").count() == 0
    # The account panel follows the buy-in (debited from the balance).
    expect(balance).to_have_text(f"{start_balance - 100:,}")
    expect(page.locator("#account-ledger li").first).to_contain_text("-100")
    expect(page.locator(".acct-players li", has_text="frank")).to_contain_text("Joining rules")

    # Dealt in only when the big blind reaches him, posting just that blind.
    expect(log).to_contain_text("frank posts the big blind 2", timeout=45000)
    assert "frank posts 2 to come in" not in log.inner_text()
    expect(seat.locator(".hole .card")).to_have_count(2)
    shot(page, "table-joined-at-bb")

    # Auto-muck (on for people): off brings the show-or-muck prompts back; it is stored
    # with the seat, so a reload shows it off.
    page.get_by_role("button", name=re.compile("^Auto-muck for frank: on")).click()
    expect(page.get_by_role("button", name=re.compile("^Auto-muck for frank: off"))).to_be_visible()
    page.reload()
    expect(page.locator("#conn")).to_have_attribute("data-state", "connected")
    page.locator("#account-panel summary").click()
    off = page.get_by_role("button", name=re.compile("^Auto-muck for frank: off"))
    expect(off).to_be_visible()
    off.click()
    expect(page.get_by_role("button", name=re.compile("^Auto-muck for frank: on"))).to_be_visible()

    # Sit out: not dealt in from the next hand.
    page.get_by_role("button", name="Sit out frank").click()
    expect(state).to_have_text(re.compile("Sits out after this hand|Sitting out"))
    play_until(page, lambda: state.inner_text() == "Sitting out", timeout=45)
    expect(seat.locator(".tag")).to_have_text("Sitting out")

    # Add chips while not in a hand: the dialog shows the limit; above it, the
    # server's refusal is a sentence in the dialog; within it, the stack grows.
    stack = _number(seat.locator("[data-testid=stack]").inner_text())
    assert stack <= 100
    room = 200 - stack
    page.get_by_role("button", name="Add chips for frank").click()
    expect(page.locator("#chips-limit")).to_have_text(
        f"Stack {stack} · table maximum 200: you may add up to {room}.")
    page.fill("#chips-amount", str(room + 50))
    page.click("#chips-ok")
    expect(page.locator("#chips-error")).to_have_text(
        f"The most you may have at this table is 200. frank has {stack}: add at most {room}.")
    shot(page, "table-add-chips-refused")
    expect(page.locator("#chips-dialog")).to_be_visible()
    page.fill("#chips-amount", "60")
    page.click("#chips-ok")
    expect(page.locator("#chips-dialog")).to_be_hidden()
    expect(seat.locator("[data-testid=stack]")).to_have_text(str(stack + 60))
    expect(log).to_contain_text("frank adds 60 chips")
    expect(balance).to_have_text(f"{start_balance - 160:,}")
    assert ledger_sum(server, "frank") == start_balance - 160
    expect(page.locator("#account-ledger li").first).to_contain_text("Added chips")

    # Sit in during a hand with the button at seat 2 that started while he sat out
    # (so the small blind passed him): the next hand he posts what he missed.
    buttons_c = log.locator("li", has_text="button: Station-F")
    seen = buttons_c.count()
    expect(buttons_c).to_have_count(seen + 1, timeout=45000)
    page.get_by_role("button", name="Sit in frank").click()
    expect(log).to_contain_text(re.compile(r"frank posts the missed blind \d"), timeout=30000)
    expect(seat.locator(".hole .card")).to_have_count(2)

    # Leave: the stack goes back to the balance; the panel shows it at once.
    page.get_by_role("button", name="Leave with frank").click()
    play_until(page, lambda: page.locator(".seat.mine").count() == 0, timeout=45)
    final = ledger_sum(server, "frank")
    expect(balance).to_have_text(f"{final:,}")
    expect(page.locator("#account-ledger li").first).to_contain_text("Cash-out")
    expect(page.locator(".acct-players li", has_text="frank")).not_to_contain_text(
        "Joining rules")
    assert page.js_errors == []
