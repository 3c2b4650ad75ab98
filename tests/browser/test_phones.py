"""Phones and laptops (the responsive layout): the lobby and a live table of each
game fit a 390×844 touch phone and a 1366×768 laptop without sideways scrolling; a
whole hold'em hand is played with taps alone on a phone, on touch-sized buttons; on
narrow screens the hand log and the chat are two tabs below the felt.

Screenshots: artifacts/screenshots/phones-*.png.
"""

from __future__ import annotations

import re
import time
from typing import Any

from playwright.sync_api import expect

from .conftest import PASSWORD, shot

PHONE = (390, 844)
LAPTOP = (1366, 768)
SIZES = {"390x844": (PHONE, True), "1366x768": (LAPTOP, False)}
TOUCH = 44  # the smallest comfortable touch target, CSS px (WCAG 2.5.5)

# A table of ``game`` with house bots in ``bots`` [(seat, name, strategy)]: it plays
# on its own. Poker seats buy in for the table's maximum.
TABLE = """
from accounts.models import User
from accounts.services import create_house_bot
from tables import services
bob = User.objects.get(username='bob')
name, game, settings, bots = {name!r}, {game!r}, {settings!r}, {bots!r}
t = services.create_table(creator=bob, name=name, game=game, settings=settings,
                          turn_seconds=120)
poker = game not in ('tuppi', 'dice')
for seat, bot_name, strategy in bots:
    bot = create_house_bot(name=bot_name, strategy=strategy)
    command = {{'type': 'sit', 'seat': seat, 'player': bot.pk}}
    if poker:
        command['buy_in'] = t.max_buy_in or 40 * t.big_blind
    services.execute(table_id=t.pk, user=bob, command=command)
print(json.dumps(t.pk))
"""

GAMES = {
    "holdem": ("holdem", {"structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 6},
               [(0, "Phone-Hold-1", "calling_station"), (2, "Phone-Hold-2", "calling_station"),
                (4, "Phone-Hold-3", "calling_station")]),
    "omaha": ("omaha", {},
              [(0, "Phone-Omaha-1", "calling_station"), (3, "Phone-Omaha-2", "calling_station")]),
    "tuppi": ("tuppi", {},
              [(0, "Phone-Tuppi-1", "greedy"), (1, "Phone-Tuppi-2", "strong"),
               (2, "Phone-Tuppi-3", "random"), (3, "Phone-Tuppi-4", "greedy")]),
    "dice": ("dice", {"seats": 2},
             [(0, "Phone-Dice-1", "greedy"), (1, "Phone-Dice-2", "greedy")]),
}


def _person(server: Any, name: str) -> None:
    server.python(
        "from accounts.models import User\nfrom accounts.services import register_user\n"
        f"if not User.objects.filter(username={name!r}).exists():\n"
        f"    register_user(username={name!r}, password={PASSWORD!r})\n"
        "print('1')")


def _table(server: Any, name: str, game: str, settings: dict[str, Any],
           bots: list[tuple[int, str, str]]) -> int:
    return int(server.python(TABLE.format(name=name, game=game, settings=settings, bots=bots)))


# The board's visible, enabled controls smaller than ``min`` CSS px either way.
SMALL_CONTROLS = """(min) => [...document.querySelectorAll(
    '#board-main button, #board-foot button, #board-main [role=button], #my-seats button,'
    + ' #action-bar button, #action-bar input')]
  .filter((b) => !b.disabled && b.getClientRects().length)
  .map((b) => ({what: b.getAttribute('aria-label') || b.textContent.trim(),
                box: b.getBoundingClientRect()}))
  .filter((c) => c.box.width < min - 0.5 || c.box.height < min - 0.5)
  .map((c) => `${c.what} ${Math.round(c.box.width)}x${Math.round(c.box.height)}`)"""


def _fits(page: Any, label: str) -> None:
    widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], f"{label} scrolls sideways: {widths}"


def test_lobby_and_a_table_of_each_game_fit_both_sizes(server: Any, open_page: Any) -> None:
    tables = {key: _table(server, f"Phones {key}", *spec) for key, spec in GAMES.items()}
    boards = {"holdem": "holdem", "omaha": "holdem", "tuppi": "tuppi", "dice": "dice"}
    for size, ((width, height), touch) in SIZES.items():
        page = open_page("alice", width=width, height=height, touch=touch)
        page.goto("/lobby/")
        expect(page.locator("#games-list")).to_be_visible()
        page.wait_for_load_state("networkidle")
        _fits(page, f"the lobby at {size}")
        shot(page, f"phones-lobby-{size}")
        for key, table_id in tables.items():
            page.goto(f"/tables/{table_id}/")
            expect(page.locator("#conn")).to_have_attribute("data-state", "connected",
                                                            timeout=30000)
            expect(page.locator("#table-page")).to_have_attribute("data-board", boards[key])
            # Running: the bots have played something into the log.
            expect(page.locator("#hand-log li").first).to_be_attached(timeout=60000)
            page.wait_for_timeout(500)
            _fits(page, f"the {key} table at {size}")
            if touch:  # every control of the board a thumb may tap is touch-sized
                small = page.evaluate(SMALL_CONTROLS, TOUCH)
                assert small == [], f"the {key} board has small controls at {size}: {small}"
            shot(page, f"phones-{key}-{size}")
        assert page.js_errors == []


def _stakes(server: Any, table_id: int, username: str, bot: str) -> int:
    """The person's and the bot's balances plus every stack at the table: what a hand
    may move around but never create or destroy."""
    return int(server.python(
        "from django.db.models import Q, Sum\nfrom accounts.models import LedgerEntry\n"
        "from tables.models import Seat\n"
        f"led = LedgerEntry.objects.filter(Q(player__owner__username={username!r}) | "
        f"Q(player__name={bot!r})).aggregate(s=Sum('amount'))['s'] or 0\n"
        f"st = Seat.objects.filter(table_id={table_id}).aggregate(s=Sum('stack'))['s'] or 0\n"
        "print(json.dumps(led + st))"))


def _tap(page: Any, locator: Any) -> None:
    """Tap ``locator`` after checking it is touch-sized."""
    box = locator.bounding_box()
    assert box is not None, f"{locator} is not on screen"
    assert box["width"] >= TOUCH and box["height"] >= TOUCH, \
        f"{locator} is {box['width']:.0f}×{box['height']:.0f} px, below {TOUCH}×{TOUCH}"
    locator.tap()


def test_a_whole_holdem_hand_played_by_taps_on_a_phone(server: Any, open_page: Any) -> None:
    _person(server, "thumb")
    table_id = _table(server, "Phones heads-up", "holdem",
                      {"structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 2},
                      [(0, "Phone-Heads-Up", "calling_station")])
    before = _stakes(server, table_id, "thumb", "Phone-Heads-Up")
    page = open_page("thumb", width=PHONE[0], height=PHONE[1], touch=True)
    page.goto(f"/tables/{table_id}/")
    expect(page.locator("#conn")).to_have_attribute("data-state", "connected", timeout=30000)
    expect(page.locator("#table-page")).to_have_attribute("data-board", "holdem")

    # The free seat, then the buy-in dialog's "Sit down", by taps.
    _tap(page, page.locator("button.seat.free[data-seat='1']"))
    expect(page.locator("#sit-dialog")).to_be_visible()
    _tap(page, page.locator("#sit-ok"))
    expect(page.locator(".seat.mine")).to_have_count(1, timeout=15000)

    # Play the first hand dealt to us by taps: check, else call (the bot calls along).
    log = page.locator("#hand-log li")
    expect(page.locator("#act-buttons")).to_be_visible(timeout=60000)
    hand_line = page.locator("#hand-log li", has_text=re.compile(r"^Hand #")).last
    hand = hand_line.inner_text()
    # At our turn every control in sight (the action bar, our seat's) is touch-sized.
    small = page.evaluate(SMALL_CONTROLS, TOUCH)
    assert small == [], f"small controls at our turn: {small}"
    tapped: list[str] = []
    deadline = time.monotonic() + 180
    while not page.locator("#hand-log li", has_text=re.compile(r"\bwins\b")).count():
        assert time.monotonic() < deadline, f"the hand never ended; tapped {tapped}"
        if page.locator("#act-buttons").is_visible():
            for selector in ("#btn-check", "#btn-call", "#btn-muck", "#btn-fold"):
                button = page.locator(selector)
                if button.is_visible():
                    turn = page.locator("#act-for").get_attribute("data-turn")
                    _tap(page, button)
                    tapped.append(selector)
                    page.wait_for_function(
                        "t => document.getElementById('act-for').dataset.turn !== t"
                        " || document.getElementById('act-buttons').hidden", arg=turn,
                        timeout=30000)
                    break
        page.wait_for_timeout(150)
    assert tapped, "no action was tapped"
    assert hand in log.all_inner_texts()
    shot(page, "phones-holdem-hand-by-taps-390x844")

    # Chips are conserved once the table has settled the hand.
    deadline = time.monotonic() + 60
    while _stakes(server, table_id, "thumb", "Phone-Heads-Up") != before:
        assert time.monotonic() < deadline, "chips were created or lost"
        time.sleep(0.5)
    assert page.js_errors == []


def test_hand_log_and_chat_are_tabs_on_a_phone(server: Any, open_page: Any) -> None:
    table_id = _table(server, "Phones tabs", "holdem",
                      {"structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 6},
                      [(0, "Phone-Tabs-1", "calling_station"),
                       (3, "Phone-Tabs-2", "calling_station")])
    phone = open_page("alice", width=PHONE[0], height=PHONE[1], touch=True)
    phone.goto(f"/tables/{table_id}/")
    expect(phone.locator("#conn")).to_have_attribute("data-state", "connected", timeout=30000)
    tabs = phone.get_by_role("tablist", name="Hand log and chat")
    expect(tabs).to_be_visible()
    log_tab = tabs.get_by_role("tab", name="Hand log")
    chat_tab = tabs.get_by_role("tab", name="Chat")
    log_panel = phone.get_by_role("tabpanel", name="Hand log")
    expect(log_tab).to_have_attribute("aria-selected", "true")
    expect(chat_tab).to_have_attribute("aria-selected", "false")
    expect(phone.locator("#hand-log li").first).to_be_visible(timeout=60000)
    expect(phone.locator("#chat-input")).to_be_hidden()
    # Below the playing area, touch-sized.
    felt = phone.locator(".table-area").bounding_box()
    for tab in (log_tab, chat_tab):
        box = tab.bounding_box()
        assert box["y"] >= felt["y"] + felt["height"] - 1
        assert box["height"] >= TOUCH
    expect(log_panel).to_have_attribute("aria-labelledby", "tab-log")

    chat_tab.tap()
    expect(chat_tab).to_have_attribute("aria-selected", "true")
    expect(log_tab).to_have_attribute("aria-selected", "false")
    expect(phone.locator("#chat-input")).to_be_visible()
    expect(phone.locator("#hand-log")).to_be_hidden()
    expect(phone.get_by_role("tabpanel", name="Chat")).to_be_visible()
    phone.locator("#chat-input").fill("hello from a phone")
    phone.locator("#chat-input").press("Enter")
    expect(phone.locator("#chat-list li", has_text="hello from a phone")).to_be_visible()
    _fits(phone, "the table with the chat tab")
    shot(phone, "phones-chat-tab-390x844")

    log_tab.tap()
    expect(log_tab).to_have_attribute("aria-selected", "true")
    expect(phone.locator("#hand-log")).to_be_visible()
    expect(phone.locator("#chat-input")).to_be_hidden()

    # The keyboard: arrows move the selection and the focus, with a roving tabindex.
    log_tab.focus()
    phone.keyboard.press("ArrowRight")
    expect(chat_tab).to_be_focused()
    expect(chat_tab).to_have_attribute("aria-selected", "true")
    expect(chat_tab).to_have_attribute("tabindex", "0")
    expect(log_tab).to_have_attribute("tabindex", "-1")
    phone.keyboard.press("ArrowRight")  # wraps around
    expect(log_tab).to_be_focused()
    expect(phone.locator("#hand-log")).to_be_visible()

    # At desktop width there are no tabs: the log and the chat show side by side.
    desk = open_page("alice", width=LAPTOP[0], height=LAPTOP[1])
    desk.goto(f"/tables/{table_id}/")
    expect(desk.locator("#conn")).to_have_attribute("data-state", "connected", timeout=30000)
    expect(desk.locator("#side-tabs")).to_be_hidden()
    expect(desk.get_by_role("tab")).to_have_count(0)
    expect(desk.locator("#hand-log")).to_be_visible()
    expect(desk.locator("#chat-input")).to_be_visible()

    # A line said while the phone shows the log puts a mark on the Chat tab until seen.
    expect(chat_tab).not_to_have_attribute("data-unread", "1")
    desk.locator("#chat-input").fill("hi phone")
    desk.locator("#chat-input").press("Enter")
    expect(chat_tab).to_have_attribute("data-unread", "1")
    chat_tab.tap()
    expect(phone.locator("#chat-list li", has_text="hi phone")).to_be_visible()
    expect(chat_tab).not_to_have_attribute("data-unread", "1")
    assert phone.js_errors == [] and desk.js_errors == []
