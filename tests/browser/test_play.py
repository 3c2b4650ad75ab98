"""Acceptance: register, create a table, a tester seats house bots, play with the
buttons (fold, call, raise via the slider), pot to the winner, chat, leave,
balance equals the ledger."""

from __future__ import annotations

import re
import time
from typing import Any

from playwright.sync_api import expect

from .conftest import PASSWORD, shot
from .helpers import ledger_sum


def _register(page: Any, name: str) -> None:
    page.goto("/accounts/register/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_url("**/account/")


def _sit(page: Any, seat: int, who: str | None = None) -> None:
    page.locator(f"button.seat.free[data-seat='{seat}']").click()
    dialog = page.locator("#sit-dialog")
    expect(dialog).to_be_visible()
    if who:
        page.select_option("#sit-player", label=who)
    page.click("#sit-ok")
    expect(page.locator(f".seat.taken[data-seat='{seat}']")).to_be_visible()


def test_new_user_plays_against_house_bots(server: Any, open_page: Any) -> None:
    user = open_page()
    _register(user, "newbie")
    user.goto("/lobby/")
    user.click("#open-create")
    form = user.locator("#create-form")
    # A validation error first: clear sentences next to the fields.
    form.locator("input[name=name]").fill("Newbie NL")
    form.locator("input[name=small_blind]").fill("5")
    form.locator("input[name=big_blind]").fill("2")
    form.locator("button[type=submit]").click()
    expect(user.locator(".error", has_text="small blind must be less than")).to_be_visible()
    form = user.locator("#create-form")
    form.locator("input[name=small_blind]").fill("1")
    form.locator("input[name=turn_seconds]").fill("60")
    form.locator("button[type=submit]").click()
    user.wait_for_url(re.compile(r".*/tables/\d+/$"))
    table_url = user.url
    expect(user.locator("#conn")).to_have_attribute("data-state", "connected")

    tester = open_page("bob")
    tester.goto(table_url)
    expect(tester.locator("#conn")).to_have_attribute("data-state", "connected")
    _sit(tester, 1, "Station-A (house bot)")
    _sit(tester, 3, "Station-B (house bot)")
    expect(tester.get_by_role("button", name="Remove Station-A")).to_be_visible()

    expect(user.locator(".seat.taken")).to_have_count(2)
    _sit(user, 5)
    expect(user.locator(".seat.mine")).to_have_count(1)

    done = {"raise": False, "call": False, "fold": False}
    saw_win = False
    deadline = time.monotonic() + 100
    shots = set()
    while time.monotonic() < deadline and not (all(done.values()) and saw_win):
        if user.locator(".seat.winner").count():
            saw_win = True
            if "showdown" not in shots and user.locator(".seat.taken .card:not(.back)").count() > 2:
                shot(user, "showdown")
                shots.add("showdown")
        if user.locator("#act-buttons").is_hidden():
            user.wait_for_timeout(100)
            continue
        fold, check = user.locator("#btn-fold"), user.locator("#btn-check")
        call, raise_ = user.locator("#btn-call"), user.locator("#btn-raise")
        if "mid-hand" not in shots:
            shot(user, "table-mid-hand")
            shots.add("mid-hand")
        if not done["raise"] and raise_.is_visible() and user.locator("#amount-range").is_visible():
            slider = user.locator("#amount-range")
            low = int(slider.get_attribute("min"))
            slider.focus()
            for _ in range(3):
                user.keyboard.press("ArrowRight")
            amount = int(user.locator("#amount-input").input_value())
            assert amount > low
            expect(raise_).to_contain_text(str(amount))
            raise_.click()
            done["raise"] = True
        elif not done["call"] and call.is_visible():
            call.click()
            done["call"] = True
        elif done["raise"] and done["call"] and not done["fold"] and fold.is_visible() \
                and user.locator(".board .card:not(.slot)").count() == 0:
            user.keyboard.press("f")  # the shortcut
            done["fold"] = True
        elif check.is_visible():
            check.click()
        elif call.is_visible():
            call.click()
        elif user.locator("#btn-muck").is_visible():
            user.locator("#btn-muck").click()
        else:
            fold.click()
        user.wait_for_timeout(150)
    assert all(done.values()), done
    assert saw_win, "no pot went to a winner"
    expect(user.locator("#hand-log")).to_contain_text("wins")

    user.fill("#chat-input", "<b>gg</b> all")
    user.press("#chat-input", "Enter")
    expect(tester.locator("#chat-list li", has_text="<b>gg</b> all")).to_be_visible()
    assert tester.locator("#chat-list b", has_text="gg").count() == 0  # text, never HTML

    # Leave between hands (a leave during a hand takes effect when it ends).
    # Leaving during a hand takes effect when it ends: fold whatever comes meanwhile.
    user.locator(".my-seat button", has_text="Leave").click()
    deadline = time.monotonic() + 30
    while user.locator(".seat.mine").count() and time.monotonic() < deadline:
        if user.locator("#btn-fold").is_visible():
            user.locator("#btn-fold").click()
        elif user.locator("#btn-muck").is_visible():
            user.locator("#btn-muck").click()
        user.wait_for_timeout(200)
    expect(user.locator(".seat.mine")).to_have_count(0)
    user.locator("#account-panel summary").click()
    expect(user.locator("#account-balance")).to_be_visible()
    user.wait_for_timeout(300)
    shown = int(user.locator("#account-balance").inner_text().replace(",", ""))
    assert shown == ledger_sum(server, "newbie")
    assert user.js_errors == []
