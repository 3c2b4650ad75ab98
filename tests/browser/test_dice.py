"""The dice game in the browser (docs/dice.md): a user writes a rule set in the editor
(live validation shows the engine's sentence), saves it, creates a solitaire table
with it from the lobby, plays the whole game on the dice board — holds with the keys
1–9 on a desktop and with taps on a 390 px phone (the same user, two devices),
re-rolls, scores — and finds the finished game in that rule set's top 10 (on the
board at the end, on the rule set's page, on the leaderboard). Screenshots at desktop
and 390 px."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import PASSWORD, page_opener, shot

USER = "dicer"
RIVAL = "rival"


@pytest.fixture
def open_device(server: Any, browser: Any, offsite: Any,
                csp_guard: Any) -> Iterator[Callable[..., Any]]:
    """``open_device(width, height, touch, user)``: a logged-in page (as
    conftest's ``open_page``: offsite requests refused, CSP watched, JS errors kept)."""
    for name in (USER, RIVAL):
        server.python(
            "from accounts.models import Role, User\nfrom accounts.services import "
            f"register_user\nu = User.objects.filter(username={name!r}).first() or "
            f"register_user(username={name!r}, password={PASSWORD!r})\nu.role = Role.PLAYER\n"
            "u.save()\nprint(json.dumps(u.pk))")
    with page_opener(browser, server.url, offsite, csp_guard) as open_page:

        def make(width: int = 1440, height: int = 900, touch: bool = False,
                 user: str = USER) -> Any:
            return open_page(user, width, height, touch)

        yield make


def _no_sideways_scroll(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]


def _written(page: Any) -> int:
    return int(page.locator("#dd-sheet td.dd-written").count())


def _wait(check: Callable[[], bool], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def _dice(page: Any) -> list[int]:
    return [int(f) for f in page.locator("#dd-dice .dd-die").evaluate_all(
        "dice => dice.map(d => d.dataset.face)")]


def _play_turn(page: Any, touch: bool, holds: list[int]) -> dict[str, Any]:
    """One turn: hold ``holds`` (keys or taps), re-roll while rolls are left, then score
    the open box worth most now. Returns what was seen."""
    roll = page.locator("#dd-roll")
    expect(page.locator("#dd-status")).to_contain_text("Your turn", timeout=20000)
    expect(page.locator("#dd-sheet .dd-score").first).to_be_visible()
    seen: dict[str, Any] = {"rolls": 0, "held": []}
    for left in (2, 1):  # three rolls a turn: the first is made for you
        expect(roll).to_have_text(f"Roll ({left} left)")
        expect(roll).to_be_enabled()
        status = page.locator("#dd-status").inner_text()
        for index in holds:
            die = page.locator(f"#dd-dice .dd-die[data-die='{index}']")
            if die.get_attribute("aria-pressed") == "true":
                continue  # held at the last roll: still held
            if touch:
                die.tap()
            else:
                page.keyboard.press(str(index + 1))
            expect(die).to_have_attribute("aria-pressed", "true")
        held_faces = [_dice(page)[i] for i in holds]
        page.wait_for_timeout(300)  # a person's pace (the account's message budget)
        roll.tap() if touch else roll.click()
        try:
            expect(page.locator("#dd-status")).to_contain_text(f"Your turn · roll {4 - left} of 3")
        except AssertionError:
            print("toast:", page.locator("#toast").inner_text(), "was:", status)
            raise
        # The held dice kept their faces, and stay held for the next roll.
        assert [_dice(page)[i] for i in holds] == held_faces
        for index in holds:
            expect(page.locator(f"#dd-dice .dd-die[data-die='{index}']")).to_have_attribute(
                "aria-pressed", "true")
        seen["rolls"] += 1
        seen["held"].append(held_faces)
    expect(roll).to_have_text("No rolls left")
    buttons = page.locator("#dd-sheet .dd-score")
    values = [int(v) for v in buttons.all_inner_texts()]
    best = buttons.nth(values.index(max(values)))
    box = best.get_attribute("data-box")
    before = _written(page)
    page.wait_for_timeout(300)
    best.tap() if touch else best.click()
    try:
        _wait(lambda: _written(page) == before + 1)
    except AssertionError:
        print("toast:", page.locator("#toast").inner_text(), box, values, before)
        raise
    seen["box"], seen["points"] = box, max(values)
    return seen


def test_rule_set_editor_solitaire_game_and_top10(server: Any, open_device: Any) -> None:
    desk = open_device()
    # ------------------------------------------------------------ the editor
    desk.goto("/lobby/")
    desk.locator("#games-list li[data-game=dice] .rule-sets-link").click()
    expect(desk.locator("#shipped-rule-sets")).to_contain_text("Yatzy")
    desk.locator("#shipped-rule-sets li", has_text="Mini (4 dice)").get_by_role(
        "link", name="Copy & edit").click()
    status = desk.locator("#rs-status")
    expect(status).to_contain_text("Valid", timeout=10000)
    desk.fill("#rs-name", "Browser trio")
    # Five dice: the fair split (even dice only) is refused with the engine's sentence.
    desk.fill("#rs-dice", "5")
    expect(status).to_contain_text("Not valid")
    expect(desk.locator("#rs-error")).to_contain_text("a fair split needs an even number of dice")
    expect(desk.locator("#rs-error-code")).to_have_text("rules_fair_split")
    expect(desk.locator(".rs-combo.has-error")).to_have_attribute("data-family", "fair_split")
    expect(desk.locator("#rs-save")).to_be_disabled()
    desk.locator(".rs-combo[data-family=fair_split] .rs-remove").click()
    expect(status).to_contain_text("Valid")
    # Keep it short: three boxes of Mini, plus a full house (odd dice now).
    while desk.locator(".rs-combo").count() > 3:
        desk.locator(".rs-combo .rs-remove").first.click()
    desk.select_option("#rs-add-family", "full_house")
    desk.click("#rs-add")
    expect(desk.locator(".rs-combo")).to_have_count(4)
    desk.locator(".rs-combo[data-family=full_house] input[data-key=name]").fill("House")
    expect(status).to_contain_text("Valid")
    expect(status).to_contain_text("a new rule set")
    identity = desk.locator("#rs-identity").inner_text()
    assert re.fullmatch(r"[0-9a-f]{16}", identity)
    shot(desk, "dice-rule-set-editor")
    phone = open_device(390, 844, touch=True)
    phone.goto(desk.url)
    expect(phone.locator("#rs-status")).to_contain_text("Valid", timeout=10000)
    _no_sideways_scroll(phone)
    shot(phone, "dice-rule-set-editor-390")
    desk.click("#rs-save")
    desk.wait_for_url(re.compile(r"/games/dice/rule-sets/\d+/$"))
    expect(desk.locator("h1")).to_contain_text("Browser trio")
    expect(desk.locator("#rule-set-top10")).to_contain_text("No finished games")

    # ------------------------------------------------------------ a table with it
    desk.click("#rule-set-new-table")
    form = desk.locator("#create-form")
    expect(form.locator("select[name=game]")).to_have_value("dice")
    expect(form.locator("select[name=rules] option:checked")).to_have_text(
        "Browser trio (saved)")
    form.locator("input[name=name]").fill("Trio solitaire")
    form.locator("input[name=seats]").fill("1")
    form.get_by_role("button", name="Create table").click()
    desk.wait_for_url(re.compile(r"/tables/\d+/$"))
    table_url = desk.url
    table_id = int(table_url.rstrip("/").rsplit("/", 1)[1])
    expect(desk.locator("#table-page")).to_have_attribute("data-board", "dice")
    expect(desk.locator("#dd-rules")).to_contain_text("Browser trio · 5 dice, 6 faces, 3 rolls")
    expect(desk.locator("#dd-sheet tbody tr")).to_have_count(4)
    desk.get_by_role("button", name="Sit in seat 1").click()  # solitaire starts at once

    # ------------------------------------------------------------ the game
    phone.goto(table_url)
    expect(phone.locator("#table-page")).to_have_attribute("data-board", "dice")
    turns = []
    turns.append(_play_turn(desk, False, [0, 1]))  # keys 1 and 2 hold
    shot(desk, "dice-board")
    # What each open box would score with the current dice: the phone's sheet shows it.
    expect(phone.locator("#dd-sheet .dd-score").first).to_be_visible(timeout=20000)
    _no_sideways_scroll(phone)
    shot(phone, "dice-board-390")
    turns.append(_play_turn(phone, True, [2]))  # a tap holds the third die
    turns.append(_play_turn(desk, False, [4]))
    turns.append(_play_turn(phone, True, []))  # no holds: every die re-rolled
    assert [t["rolls"] for t in turns] == [2, 2, 2, 2]
    assert sorted(t["box"] for t in turns) == sorted(
        desk.locator("#dd-sheet tbody tr").evaluate_all("rows => rows.map(r => r.dataset.box)"))

    # ------------------------------------------------------------ the end and the top 10
    for page in (desk, phone):
        expect(page.locator("#dd-over")).to_be_visible(timeout=20000)
        expect(page.locator("#dd-status")).to_have_text("Game over")
    total = int(desk.locator("#dd-sheet .dd-total td").inner_text())
    assert total == sum(t["points"] for t in turns)
    mine = desk.locator(f"#dd-top10 li.here[data-table='{table_id}']")
    expect(mine).to_contain_text(f"{USER} {total}")
    expect(phone.locator("#dd-top10 li.here")).to_contain_text(str(total))
    _no_sideways_scroll(phone)
    shot(desk, "dice-game-over")
    shot(phone, "dice-game-over-390")

    desk.locator("#dd-top10-link").click()
    expect(desk.locator("#rule-set-identity")).to_contain_text("Browser trio")
    expect(desk.locator("#leaderboard-rows tbody tr")).to_have_count(1)
    expect(desk.locator("#leaderboard-rows tbody tr")).to_contain_text(str(total))
    desk.goto("/games/dice/rule-sets/")
    desk.locator("#my-rule-sets a.rs-name", has_text="Browser trio").click()
    expect(desk.locator("#rule-set-top10 li")).to_have_count(1)
    expect(desk.locator("#rule-set-top10")).to_contain_text(f"{USER} {total}")
    shot(desk, "dice-rule-set-top10")
    assert desk.js_errors == [] and phone.js_errors == []


DUEL = {"name": "Duel", "dice": 5, "faces": 6, "rolls": 2,
        "combinations": [{"id": "chance", "family": "chance"},
                         {"id": "pair", "name": "Pair", "family": "kind", "count": 2}]}


def test_two_players_whose_turn_and_only_the_winner_in_the_top10(server: Any,
                                                                 open_device: Any) -> None:
    table_id = int(server.python(
        "from accounts.models import User\nfrom tables import services\n"
        f"t = services.create_table(creator=User.objects.get(username={USER!r}), "
        f"name='Duel table', game='dice', settings={{'seats': 2, 'rules': {DUEL!r}}})\n"
        "print(json.dumps(t.pk))"))
    desk = open_device()
    phone = open_device(390, 844, touch=True, user=RIVAL)
    for page in (desk, phone):
        page.goto(f"/tables/{table_id}/")
        expect(page.locator("#table-page")).to_have_attribute("data-board", "dice")
    expect(desk.locator("#dd-status")).to_have_text("Waiting for 2 more players")
    desk.get_by_role("button", name="Sit in seat 1").click()
    expect(phone.locator("#dd-status")).to_have_text("Waiting for 1 more player")
    phone.get_by_role("button", name="Sit in seat 2").tap()
    pages = {USER: (desk, False), RIVAL: (phone, True)}
    for turn in range(4):  # two boxes each, in seat order
        player = (USER, RIVAL)[turn % 2]
        page, touch = pages[player]
        other = phone if page is desk else desk
        expect(page.locator("#dd-status")).to_contain_text("Your turn", timeout=20000)
        # The other player sees whose turn it is and what each open box would score,
        # without buttons.
        expect(other.locator("#dd-status")).to_contain_text(f"{player} is playing")
        expect(other.locator("#dd-sheet thead th.acting")).to_have_text(player)
        expect(other.locator("#dd-sheet td.dd-open.preview").first).to_be_visible()
        expect(other.locator("#dd-sheet .dd-score")).to_have_count(0)
        expect(other.locator("#dd-roll")).to_be_disabled()
        if turn == 1:
            _no_sideways_scroll(phone)
            shot(phone, "dice-duel-390")
            shot(desk, "dice-duel")
        roll = page.locator("#dd-roll")
        expect(roll).to_have_text("Roll (1 left)")
        die = page.locator("#dd-dice .dd-die[data-die='0']")
        die.tap() if touch else page.keyboard.press("1")
        expect(die).to_have_attribute("aria-pressed", "true")
        status = page.locator("#dd-status").inner_text()
        page.wait_for_timeout(300)  # a person's pace (the account's message budget)
        roll.tap() if touch else page.keyboard.press("r")
        expect(page.locator("#dd-status")).not_to_have_text(status)
        expect(roll).to_have_text("No rolls left")
        best = page.locator("#dd-sheet .dd-score").first
        page.wait_for_timeout(300)
        best.tap() if touch else best.click()
        expect(page.locator("#dd-status")).not_to_contain_text("Your turn")
    for page in (desk, phone):
        expect(page.locator("#dd-over")).to_be_visible(timeout=20000)
    totals = {name: int(desk.locator(f"#dd-sheet .dd-total td[data-seat='{seat}']").inner_text())
              for seat, name in enumerate((USER, RIVAL))}
    best = max(totals.values())
    winners = sorted(name for name, total in totals.items() if total == best)
    top = desk.locator("#dd-top10 li.here")
    expect(top).to_have_count(len(winners))
    assert sorted(t.split()[0] for t in top.all_inner_texts()) == winners
    _no_sideways_scroll(phone)
    shot(phone, "dice-duel-over-390")
    assert desk.js_errors == [] and phone.js_errors == []
