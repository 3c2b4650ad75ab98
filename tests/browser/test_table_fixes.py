"""The poker table's readability fixes (static/games/holdem/, static/js/table.js).

* the dealer button, the blinds and the bet chips sit beside their seat and never
  cover a seat plate, at 1366×768 and on a 390×844 phone, over several hands; long
  names keep their bot badge; a full table tells a watcher so;
* an all-in seat carries an "All-in" tag; a call of a whole stack says all-in;
* a player out of chips is offered to add chips at once (prompt and dialog);
* at pot limit the largest quick size is the pot ("Pot", not "Max");
* the keyboard: Tab reaches the action buttons, which have accessible names, and
  the acting seat says "Your turn" in words.

Screenshots: artifacts/screenshots/fixes-*.png.
"""

from __future__ import annotations

import contextlib
import re
import time
from typing import Any

from playwright.sync_api import expect

from .conftest import PASSWORD, shot
from .helpers import SETUP

DESKTOP = (1366, 768)
PHONE = (390, 844)
LONG_BOTS = ["Calling-Station-Longname", "Second-Station-Longname", "Station-Number-Three",
             "Fourth-Long-Named-Bot", "Fifth-Long-Named-Bot"]


def _people(server: Any, *names: str) -> None:
    """Users of their own (each a human player named after them) for these tests."""
    server.python(
        "from accounts.models import User\nfrom accounts.services import register_user\n"
        f"for n in {list(names)!r}:\n"
        "    if not User.objects.filter(username=n).exists():\n"
        f"        register_user(username=n, password={PASSWORD!r})\n"
        "print('1')")


def _house_bots(server: Any, *names: str) -> None:
    server.python(
        "from accounts.services import create_house_bot\n"
        f"for n in {list(names)!r}:\n"
        "    create_house_bot(name=n, strategy='calling_station')\n"
        "print('1')")


def _table(server: Any, name: str, seated: list[tuple[int, str]], turn_seconds: int = 90,
           **settings: Any) -> int:
    """helpers.make_table with a turn time of its own (a test must never race the clock)."""
    code = SETUP + (
        f"name, seated, settings, turn = {name!r}, {seated!r}, {settings!r}, {turn_seconds!r}\n"
        "user = User.objects.get(username='bob')\n"
        "t = services.create_table(creator=user, name=name, turn_seconds=turn, settings={\n"
        "    'structure': 'NL', 'small_blind': 1, 'big_blind': 2, 'seats': 6, **settings})\n"
        "for seat, name_ in seated:\n"
        "    p = player(name_)\n"
        "    owner = user if p.house_strategy else p.owner\n"
        "    services.execute(table_id=t.pk, user=owner, command={'type': 'sit', 'seat': seat,\n"
        "        'buy_in': t.max_buy_in or 40 * t.big_blind, 'player': p.pk})\n"
        "print(json.dumps(t.pk))")
    return int(server.python(code))


def _at_table(page: Any, table_id: int) -> None:
    page.goto(f"/tables/{table_id}/")
    expect(page.locator("#conn")).to_have_attribute("data-state", "connected")
    expect(page.locator("#table-page")).to_have_attribute("data-board", "holdem")


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


# Every mark (dealer button, blind, bet) and every plate of the felt, with its seat,
# read in one go so that a redraw cannot come between them.
BOXES = """() => {
  const box = (n) => {
    const r = n.getBoundingClientRect();
    return {x: r.x, y: r.y, width: r.width, height: r.height};
  };
  const seatOf = (n) => n.closest('.seat').dataset.seat;
  return {
    plates: [...document.querySelectorAll('#felt .seat.taken')].map((s) => ({seat: s.dataset.seat,
      plate: box(s.querySelector('.plate')),
      cards: [...s.querySelectorAll('.hole .card')].map(box)})),
    marks: [...document.querySelectorAll('#felt .dealer, #felt .bet, #felt .blind')].map((n) => ({
      seat: seatOf(n), kind: n.className, text: n.textContent, box: box(n)})),
    you: [...document.querySelectorAll('#felt .seat .you')].map((n) => ({inside: (() => {
      const p = n.closest('.plate').getBoundingClientRect(), r = n.getBoundingClientRect();
      return r.left >= p.left - 1 && r.right <= p.right + 1
        && r.top >= p.top - 1 && r.bottom <= p.bottom + 1; })()})),
  };
}"""


def _check_marks(page: Any, label: str) -> int:
    """No mark overlaps any plate (nor any seat's cards); the "You" label stays in its
    plate. Returns how many marks there were."""
    found = page.evaluate(BOXES)
    for mark in found["marks"]:
        for seat in found["plates"]:
            assert not _overlap(mark["box"], seat["plate"]), \
                f"{label}: {mark['kind']} {mark['text']!r} of seat {mark['seat']} " \
                f"covers the plate of seat {seat['seat']}"
            for card in seat["cards"]:
                assert not _overlap(mark["box"], card), \
                    f"{label}: {mark['kind']} of seat {mark['seat']} " \
                    f"covers a card of seat {seat['seat']}"
    marks = found["marks"]
    for i, a in enumerate(marks):
        for b in marks[i + 1:]:
            assert not _overlap(a["box"], b["box"]), \
                f"{label}: {a['kind']} of seat {a['seat']} overlaps {b['kind']} of seat {b['seat']}"
    assert all(y["inside"] for y in found["you"]), f"{label}: the You label leaves its plate"
    return len(found["marks"])


def test_marks_never_cover_a_plate_and_long_names_keep_their_badge(server: Any,
                                                                   open_page: Any) -> None:
    _people(server, "tessa", "ulla")
    _house_bots(server, *LONG_BOTS)
    seated = [(0, LONG_BOTS[0]), (1, LONG_BOTS[1]), (2, LONG_BOTS[2]), (3, "tessa"),
              (4, LONG_BOTS[3]), (5, LONG_BOTS[4])]
    table_id = _table(server, "Marks and plates", seated)
    desk = open_page("tessa", width=DESKTOP[0], height=DESKTOP[1])
    _at_table(desk, table_id)
    phone = open_page("tessa", width=PHONE[0], height=PHONE[1], touch=True)
    _at_table(phone, table_id)

    # A watcher of the full table is told it is full (no "click a free seat").
    watcher = open_page("ulla", width=DESKTOP[0], height=DESKTOP[1])
    _at_table(watcher, table_id)
    expect(watcher.locator("#my-seats")).to_contain_text("The table is full")
    expect(watcher.locator("#my-seats")).not_to_contain_text("free seat")

    # Long names: cut with an ellipsis at most, the bot badge always shown.
    for page in (desk, phone):
        for seat in (0, 1, 2, 4, 5):
            expect(page.locator(f".seat[data-seat='{seat}'] .name .badge.bot")).to_be_visible()
        inside = page.evaluate("""() => [...document.querySelectorAll('#felt .seat.taken')]
          .map((s) => {
          const badge = s.querySelector('.name .badge.bot');
          if (!badge) return true;
          const p = s.querySelector('.plate').getBoundingClientRect();
          const b = badge.getBoundingClientRect();
          return b.width > 0 && b.left >= p.left - 1 && b.right <= p.right + 1; })""")
        assert all(inside), f"a bot badge runs out of its plate: {inside}"

    log = desk.locator("#hand-log li", has_text=re.compile(r"^Hand #"))
    first = log.count()
    marks_seen = {"desk": 0, "phone": 0}
    shots: set[str] = set()
    deadline = time.monotonic() + 300  # a shared, busy machine: hands may come slowly
    while log.count() < first + 3 or min(marks_seen.values()) < 10:
        assert time.monotonic() < deadline, f"too few hands or marks: {marks_seen}"
        marks_seen["desk"] += _check_marks(desk, "1366x768")
        marks_seen["phone"] += _check_marks(phone, "390x844")
        if desk.locator("#act-buttons").is_visible():
            # Whose turn it is, in words on the seat (not only its colour).
            if "turn" not in shots:
                expect(desk.locator(".seat[data-seat='3'] .to-act")) \
                    .to_have_text(re.compile("Your turn"))
                shot(desk, "fixes-table-desktop")
                shot(phone, "fixes-table-phone")
                shots.add("turn")
            for selector in ("#btn-check", "#btn-call", "#btn-muck", "#btn-fold"):
                button = desk.locator(selector)
                if button.is_visible():
                    with contextlib.suppress(Exception):  # the turn went meanwhile
                        button.click(timeout=2000)
                    break
        desk.wait_for_timeout(150)
    assert desk.js_errors == [] and phone.js_errors == []


def test_all_in_tag_all_in_call_and_rebuy_prompt(server: Any, open_page: Any) -> None:
    _people(server, "ursula", "victor")
    table_id = _table(server, "All in", [(1, "ursula"), (4, "victor")])
    pages = {}
    for name in ("ursula", "victor"):
        pages[name] = open_page(name, width=DESKTOP[0], height=DESKTOP[1])
        _at_table(pages[name], table_id)
    seat_of = {"ursula": 1, "victor": 4}

    busted = None
    deadline = time.monotonic() + 120
    hands = 0
    while busted is None:
        assert time.monotonic() < deadline, "nobody went bust"
        hands += 1
        # The first to act shoves with the "All-in" quick size.
        first = _whose([pages["ursula"], pages["victor"]], "#act-buttons")
        name = next(n for n, p in pages.items() if p is first)
        other = "victor" if name == "ursula" else "ursula"
        first.locator(".quick-size", has_text="All-in").click()
        expect(first.locator("#btn-raise")).to_contain_text("(all-in)")
        first.locator("#btn-raise").click()
        # Both pages tag the shover's seat all-in.
        for page in pages.values():
            expect(page.locator(f".seat[data-seat='{seat_of[name]}'] .tag.allin")) \
                .to_contain_text(re.compile("all-in", re.I))
        # The other's call takes the whole stack: the button says all-in.
        call = pages[other].locator("#btn-call")
        expect(call).to_be_visible()
        expect(call).to_contain_text("(all-in)")
        expect(call).to_have_accessible_name(re.compile(r"^Call [\d,]+, all-in$"))
        if hands == 1:
            shot(pages[other], "fixes-all-in-call")
        call.click()
        # The hand runs out; whoever lost everything is out of chips (a split: again).
        for who, page in pages.items():
            stack = page.locator(f".seat[data-seat='{seat_of[who]}'] [data-testid=stack]")
            try:
                expect(page.locator("#rebuy")).to_be_visible(timeout=12000)
            except AssertionError:
                continue
            expect(stack).to_have_text("0")
            busted = who
            break
    page = pages[busted]
    prompt = page.locator("#rebuy")
    expect(prompt).to_contain_text(f"{busted} is out of chips.")
    # The add-chips dialog opens at once; the prompt offers it again once closed.
    dialog = page.locator("#chips-dialog")
    expect(dialog).to_be_visible()
    expect(page.locator("#chips-limit")).to_contain_text("Stack 0")
    shot(page, "fixes-rebuy")
    page.click("#chips-cancel")
    expect(dialog).to_be_hidden()
    page.get_by_role("button", name=f"Add chips for {busted}").first.click()
    expect(dialog).to_be_visible()
    page.fill("#chips-amount", "150")
    page.click("#chips-ok")
    expect(dialog).to_be_hidden()
    expect(prompt).to_be_hidden()
    expect(page.locator("#hand-log")).to_contain_text(f"{busted} adds 150 chips")
    # Sat out by the bust, the seat plays on with its new chips.
    expect(page.locator(f".my-seat[data-seat='{seat_of[busted]}'] [data-testid=seat-state]")) \
        .not_to_have_text("Sitting out", timeout=15000)
    expect(page.locator(f".seat[data-seat='{seat_of[busted]}'] [data-testid=stack]")) \
        .to_have_text(re.compile(r"^1(50|49|48)$"))
    for p in pages.values():
        assert p.js_errors == []


def _whose(pages: list[Any], selector: str, timeout: float = 45) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for page in pages:
            if page.locator(selector).is_visible():
                return page
        pages[0].wait_for_timeout(100)
    raise AssertionError(f"{selector} never showed")


def test_pot_limit_pot_preset_and_keyboard(server: Any, open_page: Any) -> None:
    _people(server, "wanda")
    _house_bots(server, "PL-Station-One", "PL-Station-Two")
    table_id = _table(server, "Pot limit keys", [(0, "PL-Station-One"), (2, "wanda"),
                                                 (4, "PL-Station-Two")], structure="PL")
    page = open_page("wanda", width=DESKTOP[0], height=DESKTOP[1])
    _at_table(page, table_id)
    buttons = page.locator("#act-buttons")
    expect(buttons).to_be_visible(timeout=45000)
    expect(page.locator("#sizer")).to_be_visible()

    # Pot limit: the largest size is the pot, named so; no "Max".
    quick = page.locator("#quick .quick-size")
    expect(quick.last).to_have_text("Pot")
    assert "Max" not in quick.all_inner_texts()
    top = int(page.locator("#amount-range").get_attribute("max"))
    expect(quick.last).to_have_accessible_name(f"Pot: {top}")
    quick.last.click()
    expect(page.locator("#btn-raise")).to_have_text(f"Raise to {top}")
    expect(page.locator(".seat[data-seat='2'] .to-act")).to_have_text(re.compile("Your turn"))
    expect(page.locator(".seat[data-seat='2']")).to_have_attribute("aria-label",
                                                                   re.compile("to act"))

    # Every visible control of the action bar has an accessible name.
    for control in page.locator("#action-bar button:visible, #action-bar input:visible").all():
        expect(control).to_have_accessible_name(re.compile(r"\w"))

    # Tab from the top of the page reaches the action buttons (then Enter plays one).
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.locator("body").focus()
    reached = None
    for _ in range(60):
        page.keyboard.press("Tab")
        focused = page.evaluate("document.activeElement && document.activeElement.id")
        if focused in ("btn-fold", "btn-check", "btn-call", "btn-raise"):
            reached = focused
            break
    assert reached, "Tab never reached the action buttons"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('#action-bar') !== null")
    focused = page.evaluate("document.activeElement.id")
    if focused not in ("btn-check", "btn-call"):
        page.locator("#btn-check:visible, #btn-call:visible").first.focus()
    turn = page.locator("#act-for").get_attribute("data-turn")
    page.keyboard.press("Enter")
    page.wait_for_function("t => document.getElementById('act-for').dataset.turn !== t"
                           " || document.getElementById('act-buttons').hidden", arg=turn)
    assert page.js_errors == []
