"""The Tuppi board (static/games/tuppi/) in the browser.

A human (alice, on a 390 px touch screen) takes the free seat of a Tuppi table where
three house agents (greedy, strong, random) sit, and plays a whole round with the
board's buttons: the secret bid (Rami / Nolo), then a highlighted playable card
each turn, until the round is scored. The table is in its 15th round of a 15-round
tournament with team 0 (alice's) up 48–0, so this round ends the game whatever
happens — a tuppi at 52, or a reset to 0–0 after the limit — and the game-over
banner and the final standings show.

A spectator (dave, on a desktop) watches all along: at several moments their page
is scanned for every card still in any hand (card elements, screen-reader names,
the glyphs in any text) right after the server says which cards those are: none is
there. Screenshots: ``artifacts/screenshots/tuppi-*.png``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import page_opener, shot

RANK_NAMES = {"A": "ace", "K": "king", "Q": "queen", "J": "jack", "T": "ten"}
SUIT_NAMES = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}
GLYPHS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
BOTS = [(1, "Tuppi-Greedy", "greedy"), (2, "Tuppi-Strong", "strong"), (3, "Tuppi-Random", "random")]

SETUP = """
from accounts.models import User
from accounts.services import create_house_bot
from engine.registry import get_game
from tables import services
from tables.models import Table
bob = User.objects.get(username='bob')
t = services.create_table(creator=bob, name='Tuppi in the browser', game='tuppi',
                          settings={'round_limit': 15}, turn_seconds=120)
game = get_game('tuppi')
state = game.load(t.state)
# Round 15 of 15 is next, team 0 up 48-0: this round ends the game (a tuppi, or the
# reset to 0-0 after the limit).
state.update(number=14, score=[48, 0], rising=[48, 0])
Table.objects.filter(pk=t.pk).update(state=game.dump(state))
for seat, name, strategy in BOTS:
    bot = create_house_bot(name=name, strategy=strategy)
    services.execute(table_id=t.pk, user=bob, command={'type': 'sit', 'seat': seat,
                                                        'player': bot.pk})
print(json.dumps(t.pk))
"""

# Every card still in a hand (unplayed), from the server's state: while a round runs,
# its hands; after it, the dealt hands less the cards played (an early end).
UNPLAYED = """
from engine.cards import CARDS
from tables.models import Table
state = Table.objects.get(pk={table}).state
r = state['round']
if r is not None:
    cards = [str(CARDS[c]) for hand in r['hands'] for c in hand]
elif state['last']:
    last = state['last']
    played = {{c for t in last['tricks'] for c in t['cards']}}
    cards = [h[i:i + 2] for h in last['hands'] for i in range(0, 26, 2)]
    cards = [c for c in cards if c not in played]
else:
    cards = []
print(json.dumps(cards))
"""


def _name(code: str) -> str:
    return f"{RANK_NAMES.get(code[0], code[0])} of {SUIT_NAMES[code[1]]}"


def _glyph(code: str) -> str:
    return ("10" if code[0] == "T" else code[0]) + GLYPHS[code[1]]


def _assert_no_hand(server: Any, spectator: Any, table: int) -> int:
    """The spectator's page shows no card that is still in someone's hand. The page is
    read first, then the server's state: a card unplayed then was unplayed when the
    page was read. Returns how many cards were looked for."""
    html = spectator.content()
    text = spectator.locator("body").inner_text()
    unplayed = server.python(UNPLAYED.format(table=table))
    for code in unplayed:
        assert f'data-card="{code}"' not in html, f"the spectator sees {code}"
        assert _name(code) not in html.lower(), f"the spectator sees {_name(code)}"
        assert _glyph(code) not in text, f"the spectator sees {_glyph(code)}"
    return len(unplayed)


def _no_sideways_scroll(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), \
        "the page scrolls sideways"


@pytest.fixture
def open_phone(server: Any, browser: Any, offsite: Any,
               csp_guard: Any) -> Iterator[Callable[[str], Any]]:
    """``open_phone(username)``: a 390 x 844 touch screen, logged in (conftest's
    ``page_opener``)."""
    with page_opener(browser, server.url, offsite, csp_guard) as open_page:
        yield lambda username: open_page(username, 390, 844, touch=True)


def test_a_human_plays_a_round_of_tuppi_with_three_house_agents(
        server: Any, open_page: Any, open_phone: Any) -> None:
    table = int(server.python(f"BOTS = {BOTS!r}\n" + SETUP))

    spectator = open_page("dave")
    spectator.goto(f"/tables/{table}/")
    expect(spectator.locator("#table-page")).to_have_attribute("data-board", "tuppi")
    expect(spectator.locator("#conn")).to_have_attribute("data-state", "connected")
    expect(spectator.locator("#tp-scores")).to_contain_text("48")

    alice = open_phone("alice")
    alice.goto(f"/tables/{table}/")
    expect(alice.locator("#conn")).to_have_attribute("data-state", "connected")
    expect(alice.locator("#table-page")).to_have_attribute("data-board", "tuppi")
    sit = alice.locator(".tp-seat[data-seat='0'] button", has_text="Sit here")
    sit.tap()
    expect(alice.locator("#tp-sit-dialog")).to_be_visible()
    alice.locator("#tp-sit-ok").tap()
    expect(alice.locator(".tp-seat.mine.pos-bottom[data-seat='0']")).to_be_visible()

    # The secret bid.
    expect(alice.locator("#tp-bid")).to_be_visible()
    expect(alice.locator("#tp-hand button.tp-card")).to_have_count(13)
    _no_sideways_scroll(alice)
    shot(alice, "tuppi-phone-bid")
    checked = _assert_no_hand(server, spectator, table)
    expect(spectator.locator("#tp-hand button")).to_have_count(0)
    expect(spectator.locator("#tp-bid")).to_be_hidden()
    alice.locator("#tp-rami").tap()
    expect(alice.locator("#tp-bid")).to_be_hidden()

    # The cards, until the round (and with it the game) is over.
    played, scans, shots, held = 0, 0, 0, False
    deadline = time.monotonic() + 150
    while not alice.locator("#tp-over").is_visible():
        assert time.monotonic() < deadline, "the round did not end"
        playable = alice.locator("#tp-hand button.tp-card.playable")
        if playable.count():
            total = alice.locator("#tp-hand button.tp-card").count()
            if shots == 0 and played == 2:
                shot(alice, "tuppi-phone-play")
                shot(spectator, "tuppi-desktop-spectator")
                shots += 1
            # Only legal cards are highlighted, and only they can be pressed: read in
            # one look at the page (the board may redraw between two locator calls).
            assert alice.locator("#tp-hand button.tp-card").evaluate_all(
                "cards => cards.every(c => c.classList.contains('playable') || c.disabled)")
            card = playable.first.get_attribute("data-card")
            try:
                playable.first.tap(timeout=2000)
            except Exception:  # the turn went meanwhile (the board redrew)
                continue
            expect(alice.locator(f"#tp-hand [data-card='{card}']")).to_have_count(0)
            assert alice.locator("#tp-hand button.tp-card").count() in (total - 1, 0)  # 0: over
            played += 1
            if played % 3 == 1:
                checked += _assert_no_hand(server, spectator, table)
                scans += 1
        else:
            if not held and "takes the last trick" in alice.locator("#tp-caption").inner_text():
                held = True
                shot(spectator, "tuppi-desktop-last-trick")
            alice.wait_for_timeout(100)
    assert played >= 4, f"alice played {played} cards"
    assert held  # the round's last trick and result stayed on the table for a moment
    assert scans >= 2

    # Game over: the banner, the final standings, the last round's line.
    expect(alice.locator("#tp-over")).to_contain_text("win")
    expect(spectator.locator("#tp-over")).to_be_visible()
    expect(alice.locator("#standings")).to_be_visible()
    expect(alice.locator("#tp-last")).to_contain_text("Round 15")
    checked += _assert_no_hand(server, spectator, table)
    assert checked > 0
    _no_sideways_scroll(alice)
    shot(alice, "tuppi-phone-over")
    shot(spectator, "tuppi-desktop-over")

    # Every move of alice's came from the buttons: none was the timer's.
    moves = server.python(
        "from tables.models import Hand\n"
        f"h = Hand.objects.get(table_id={table}, ended_at__isnull=False)\n"
        "print(json.dumps([e for e in h.events if e['type'] in "
        "('TimedOut', 'AutoPlayed', 'CardPlayed', 'BidPlaced') and e['player'] == 0]))")
    assert not [e for e in moves if e["type"] in ("TimedOut", "AutoPlayed")], moves
    assert [e["bid"] for e in moves if e["type"] == "BidPlaced"] == ["rami"]
    assert sum(e["type"] == "CardPlayed" for e in moves) == played

    # The replay: alice sees her own hand, the spectator only the cards played.
    hand = server.python("from tables.models import Hand\n"
                         f"print(json.dumps(Hand.objects.get(table_id={table}).pk))")
    mine = server.python("from tables.models import Hand\n"
                         f"h = Hand.objects.get(table_id={table})\n"
                         "print(json.dumps(h.record['hands'][0]))")
    for page in (alice, spectator):
        page.goto(f"/hands/{hand}/")
        expect(page.locator("#replay-page")).to_have_attribute("data-replay", "tuppi")
        step = "alice chooses rami" if page is alice else "has chosen"  # a step after the deal
        page.locator(".replay-log li", has_text=step).first.click()
    own = alice.eval_on_selector_all(".tp-seat[data-seat='0'] [data-card]",
                                     "ns => ns.map(n => n.dataset.card)")
    assert sorted(own) == sorted(mine[i:i + 2] for i in range(0, 26, 2))
    expect(spectator.locator(".tp-seat[data-seat='0'] [data-card]")).to_have_count(0)
    _no_sideways_scroll(alice)
    alice.locator("#tuppi").scroll_into_view_if_needed()
    shot(alice, "tuppi-phone-replay")
    spectator.click("#rp-end")
    expect(spectator.locator("#tp-result")).to_contain_text("board")
    shot(spectator, "tuppi-desktop-replay")
    html = spectator.content()
    unplayed = server.python(UNPLAYED.format(table=table))
    for code in unplayed:  # an early end: the cards never played stay hidden
        assert f'data-card="{code}"' not in html and _name(code) not in html.lower()
    assert alice.js_errors == [] and spectator.js_errors == []
