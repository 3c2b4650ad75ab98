"""The poker board (static/games/holdem/) drawing the variants, live and replayed.

Two human players play one hand each with the buttons in two browser pages while a
third page watches:

* seven-card stud: the bring-in and "Complete to" buttons, the up cards in front of
  each seat; the spectator sees the up cards and none of the down cards;
* five-card draw: the discard picker (click two cards, "Draw 2"; "Stand pat"), the
  drawer's new hand, the public count of cards drawn;
* Omaha hi-lo: a pot split between a high and a low hand, shown on the felt, in the
  log and in the replay.

The deals are fixed: these tests run their own server (the same Daphne as the
session's, on its own database) whose process replaces the variants' ``draw_chance``
with a fixed deck before it starts (engine.registry.GAMES; the table runtime asks it
for every hand's chance input). Screenshots (desktop and a 390 px phone) go to
``artifacts/screenshots/variant-*.png``.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import Server, page_opener, serving, shot

CARD_ORDER = [r + s for s in "cdhs" for r in "23456789TJQKA"]


def _deck(prefix: str) -> str:
    """``prefix`` (the cards dealt, in dealing order) then the rest of the 52 cards."""
    first = [prefix[i:i + 2] for i in range(0, len(prefix), 2)]
    assert len(set(first)) == len(first)
    return "".join(first + [c for c in CARD_ORDER if c not in first])


# Heads-up, position 0 (the first player after the button) is dealt first.
DECKS = {
    # Third street: two down and one up each; the 3d brings in. Queens win.
    "stud": _deck("AhKd9c" "QsQh3d" "9h5s" "Jc7d" "2s8h" "4cTc"),
    # Five cards each; the replacements come from the top of the rest: Ac, 8d.
    "five_card_draw": _deck("AsAd7c4h2s" "KcKhQd9s3c" "Ac8d"),
    # Kings (no low) take the high half, A-2 the low half (7-4-3-2-A).
    "omaha8": _deck("KhKsJhJs" "Ac2d9s9h" "3c4d7h" "Kd" "Qc"),
}

# Run in the server process before Daphne starts: every hand of these games is dealt
# from its fixed deck (the draw games' discards, if ever reshuffled, in deck order).
PATCH = """
import sys
from engine.registry import GAMES
DECKS = {decks!r}
for key, deck in DECKS.items():
    game = GAMES[key]
    def fixed(state, rng, _deck=deck, _game=game):
        chance = {{"deck": _deck}}
        if _game.variant.draws:
            chance["reshuffle"] = _deck
        return chance
    game.draw_chance = fixed
sys.argv = ["serve", "-b", "127.0.0.1", "-p", "{port}", "pokersite.asgi:application"]
from pokersite.serve import main
main()
"""


class DealingServer(Server):
    """The session's server, started with the fixed decks."""

    def command(self) -> list[str]:
        return [sys.executable, "-c", PATCH.format(decks=DECKS, port=self.port)]


@pytest.fixture(scope="module")
def dealer() -> Iterator[Server]:
    yield from serving(DealingServer())


@pytest.fixture
def open_at(dealer: Server, browser: Any, offsite: Any,
            csp_guard: Any) -> Iterator[Callable[..., Any]]:
    """``open_at(username=None, width=1440, height=900, touch=False)``: a page on the
    dealing server (conftest's ``page_opener``)."""
    with page_opener(browser, dealer.url, offsite, csp_guard) as make:
        yield make


# ------------------------------------------------------------------ helpers
SUITS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}


def _glyph(code: str) -> str:
    """A card as the hand log writes it: ``Th`` → ``10♥``."""
    return ("10" if code[0] == "T" else code[0]) + SUITS[code[1]]


RANK_NAMES = {"A": "ace", "K": "king", "Q": "queen", "J": "jack", "T": "ten"}
SUIT_NAMES = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}


def _name(code: str) -> str:
    """A card as the board names it for screen readers: ``Th`` → ``ten of hearts``."""
    return f"{RANK_NAMES.get(code[0], code[0])} of {SUIT_NAMES[code[1]]}"


def _codes(text: str) -> list[str]:
    return [text[i:i + 2] for i in range(0, len(text), 2)]


def _create(dealer: Any, name: str, game: str, **settings: Any) -> int:
    code = ("from accounts.models import User\nfrom tables import services\n"
            f"t = services.create_table(creator=User.objects.get(username='bob'), name={name!r}, "
            f"game={game!r}, settings={settings!r}, turn_seconds=120)\n"
            "print(json.dumps(t.pk))")
    return int(dealer.python(code))


def _finished_hand(dealer: Any, table_id: int) -> int:
    return int(dealer.python(
        "from tables.models import Hand\n"
        f"h = Hand.objects.filter(table_id={table_id}, ended_at__isnull=False)"
        ".order_by('id').first()\nprint(json.dumps(h.pk if h else 0))"))


def _at_table(page: Any, table_id: int) -> None:
    page.goto(f"/tables/{table_id}/")
    expect(page.locator("#conn")).to_have_attribute("data-state", "connected")
    expect(page.locator("#table-page")).to_have_attribute("data-board", "holdem")


def _sit(page: Any, seat: int, touch: bool = False) -> None:
    free = page.locator(f"button.seat.free[data-seat='{seat}']")
    free.tap() if touch else free.click()
    expect(page.locator("#sit-dialog")).to_be_visible()
    ok = page.locator("#sit-ok")
    ok.tap() if touch else ok.click()
    expect(page.locator(f".seat.mine[data-seat='{seat}']")).to_be_visible()


def _press(page: Any, selector: str, touch: bool = False) -> bool:
    """Click (or tap) a button if it is visible; False if the turn went meanwhile."""
    button = page.locator(selector)
    if not button.is_visible():
        return False
    try:
        button.tap(timeout=2000) if touch else button.click(timeout=2000)
    except Exception:  # the turn ended between the look and the click
        return False
    return True


def _check_or_call(page: Any, touch: bool = False) -> bool:
    return any(_press(page, selector, touch)
               for selector in ("#btn-check", "#btn-call", "#btn-show", "#btn-muck"))


def _play(players: list[tuple[Any, bool]], until: Callable[[], bool],
          step: Callable[[Any, bool], bool] = _check_or_call, timeout: float = 60) -> None:
    """Answer the players' turns with ``step(page, touch)`` until ``until()``; ``until``
    is asked before every action, so the game waits where it becomes true."""
    deadline = time.monotonic() + timeout
    while not until():
        assert time.monotonic() < deadline, "timed out while playing"
        pressed = False
        for page, touch in players:
            if page.locator("#act-buttons").is_visible():
                turn = page.locator("#act-for").get_attribute("data-turn")
                pressed = step(page, touch)
                if pressed:  # wait for this turn to be answered before looking again
                    page.wait_for_function(
                        "t => document.getElementById('act-for').dataset.turn !== t"
                        " || document.getElementById('act-buttons').hidden", arg=turn,
                        timeout=5000)
                    break
        if not pressed:
            players[0][0].wait_for_timeout(100)


def _felt_cards(page: Any, selector: str = "#felt [data-card]") -> list[str]:
    return page.eval_on_selector_all(selector, "ns => ns.map(n => n.dataset.card)")


def _hand_over(page: Any) -> Callable[[], bool]:
    return lambda: page.locator("#hand-log li", has_text="Hand over").count() > 0


def _assert_hidden_from(page: Any, down: list[str], log: bool = True) -> None:
    """None of ``down`` is visible on this page: no card element, label or (``log``)
    log line."""
    html = page.locator("#felt").inner_html()
    text = page.locator("#hand-log").inner_text() if log else ""
    for code in down:
        assert f'data-card="{code}"' not in html, code
        assert _glyph(code) not in text, code
    labels = page.eval_on_selector_all("#felt [aria-label]",
                                       "ns => ns.map(n => n.getAttribute('aria-label'))")
    for code in down:
        assert not any(label.startswith(_name(code)) for label in labels), (code, labels)


def _no_sideways_scroll(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]


def _whose(pages: list[Any], selector: str, timeout: float = 30) -> Any:
    """The first of ``pages`` on which ``selector`` becomes visible."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for page in pages:
            if page.locator(selector).is_visible():
                return page
        pages[0].wait_for_timeout(100)
    raise AssertionError(f"{selector} never showed")


def _replay(page: Any, hand_id: int) -> None:
    page.goto(f"/hands/{hand_id}/")
    expect(page.locator("#replay-page")).to_have_attribute("data-replay", "holdem")
    expect(page.locator("#felt")).to_be_visible()


# -------------------------------------------------------------------- tests
STUD_UP = ["9c", "3d", "9h", "5s", "Jc", "7d", "2s", "8h"]
STUD_DOWN = ["Ah", "Kd", "4c", "Qs", "Qh", "Tc"]


def test_seven_card_stud_bring_in_completion_and_up_cards(dealer: Any, open_at: Any) -> None:
    # A table of any variant from the lobby: the form follows the game's settings.
    alice = open_at("alice")
    alice.goto("/lobby/")
    alice.click("#open-create")
    form = alice.locator("#create-form")
    form.locator("input[name=name]").fill("Stud live")
    form.locator("select[name=game]").select_option("stud")
    expect(form.locator("input[name=bring_in]")).to_be_visible()
    form.locator("input[name=turn_seconds]").fill("120")
    form.locator("button[type=submit]").click()
    alice.wait_for_url(re.compile(r".*/tables/\d+/$"))
    table_id = int(re.findall(r"/tables/(\d+)/", alice.url)[0])
    carol = open_at("carol")
    spect = open_at("dave", width=390, height=844, touch=True)  # a phone, watching
    for page in (alice, carol, spect):
        _at_table(page, table_id)
    _sit(alice, 0)
    _sit(carol, 3)
    players = [(alice, False), (carol, False)]

    # Third street: two down, one up each; the lowest up card (3d) brings in or completes.
    bring = _whose([alice, carol], "#btn-bringin")
    other = carol if bring is alice else alice
    expect(bring.locator("#btn-bringin")).to_have_text("Bring in 1")
    expect(bring.locator("#btn-raise")).to_have_text("Complete to 2")
    assert bring.locator("#btn-fold").is_hidden() and bring.locator("#btn-check").is_hidden()
    mine = bring.locator(".seat.mine .hole")
    expect(mine.locator(".card.down:not(.back)")).to_have_count(2)
    assert _felt_cards(bring, ".seat.mine .card.up") == ["3d"]
    assert sorted(_felt_cards(bring, ".seat.mine .card.down")) == ["Qh", "Qs"]
    expect(bring.locator(".seat:not(.mine) .card.back")).to_have_count(2)
    assert _felt_cards(bring, ".seat:not(.mine) [data-card]") == ["9c"]
    expect(bring.locator(".board")).to_have_count(0)  # no community cards in stud
    expect(bring.locator(".dealer")).to_have_count(0)  # nor a dealer button
    shot(bring, "variant-stud-bring-in")

    expect(spect.locator(".seat .card.up")).to_have_count(2)
    expect(spect.locator(".seat .card.back")).to_have_count(4)
    assert sorted(_felt_cards(spect)) == ["3d", "9c"]
    _assert_hidden_from(spect, STUD_DOWN)
    _no_sideways_scroll(spect)

    bring.locator("#btn-bringin").click()
    expect(other.locator("#btn-call")).to_have_text("Call 1")
    expect(other.locator("#btn-raise")).to_have_text("Complete to 2")
    other.locator("#btn-raise").click()
    expect(bring.locator("#btn-call")).to_have_text("Call 1")
    expect(bring.locator("#btn-raise")).to_have_text("Raise to 4")
    bring.locator("#btn-call").click()
    for page in (alice, carol, spect):
        log = page.locator("#hand-log")
        expect(log).to_contain_text("brings in for 1")
        expect(log).to_contain_text("completes to 2")
        expect(log).to_contain_text("calls 1")

    # Check it down to seventh street (its card face down): the game waits there.
    _play(players, until=lambda: any(
        p.locator(".seat.mine .card").count() == 7 for p, _ in players))
    expect(spect.locator(".seat .card.up")).to_have_count(8)
    expect(spect.locator(".seat .card.back")).to_have_count(6)
    assert sorted(_felt_cards(spect)) == sorted(STUD_UP)
    _assert_hidden_from(spect, STUD_DOWN)
    face_up = spect.locator("#hand-log li", has_text="Dealt face up to")
    expect(face_up).to_have_count(8)
    expect(face_up.filter(has_text=_glyph("Jc"))).to_have_count(1)
    _no_sideways_scroll(spect)
    shot(spect, "variant-stud-spectator-390")
    shot(alice, "variant-stud-seventh")

    _play(players, until=_hand_over(spect))
    expect(spect.locator(".banner")).to_contain_text("wins 6")
    expect(spect.locator(".seat .tag.win")).to_have_text("Wins 6 · Pair of Queens")
    expect(spect.locator("#hand-log")).to_contain_text("wins 6 with Pair of Queens")

    # The replay, watched: up cards only until the showdown, then every card shown.
    hand_id = _finished_hand(dealer, table_id)
    _replay(spect, hand_id)
    # Fifth street: the 7d is its last card.
    spect.locator(".replay-log li", has_text="Dealt face up").filter(has_text=_glyph("7d")).click()
    expect(spect.locator("#felt .card.up")).to_have_count(6)
    assert set(_felt_cards(spect)) == set(STUD_UP[:6])
    _assert_hidden_from(spect, STUD_DOWN, log=False)  # the replay's log lists the showdown
    spect.evaluate("window.scrollTo(0, 0)")
    shot(spect, "variant-stud-replay-390")
    spect.click("#rp-end")
    expect(spect.locator("#felt .tag.win")).to_have_text("Wins 6 · Pair of Queens")
    assert set(_felt_cards(spect)) == set(STUD_UP + STUD_DOWN)
    for page in (alice, carol, spect):
        assert page.js_errors == []


DRAW_DEALT = ["As", "Ad", "7c", "4h", "2s", "Kc", "Kh", "Qd", "9s", "3c"]


def test_five_card_draw_discard_picker(dealer: Any, open_at: Any) -> None:
    table_id = _create(dealer, "Draw live", "five_card_draw")
    alice = open_at("alice")
    carol = open_at("carol", width=390, height=844, touch=True)  # on a phone: taps
    spect = open_at("dave")
    for page in (alice, carol, spect):
        _at_table(page, table_id)
    _sit(alice, 0)
    _sit(carol, 3, touch=True)
    players = [(alice, False), (carol, True)]
    _play(players, until=lambda: any(p.locator("#draw-picker").is_visible() for p, _ in players))
    _assert_hidden_from(spect, DRAW_DEALT)
    expect(spect.locator(".seat .hole .card.back")).to_have_count(10)
    expect(spect.locator("#act-label")).to_contain_text("is drawing")

    def stand_pat() -> None:
        picker = alice.locator("#draw-picker")
        expect(picker).to_be_visible()
        expect(picker.locator(".pick")).to_have_count(5)
        expect(alice.locator("#btn-pat")).to_be_visible()
        expect(alice.locator("#btn-draw")).to_be_hidden()
        shot(alice, "variant-draw-picker")
        alice.locator("#btn-pat").click()

    discarded: list[str] = []

    def discard_two() -> None:
        picks = carol.locator("#draw-cards .pick")
        expect(picks).to_have_count(5)
        items = [picks.nth(i).get_attribute("data-card") for i in range(5)]
        expect(carol.locator("#btn-pat")).to_have_text("Stand pat")
        picks.nth(0).tap()  # picked, then put back
        expect(picks.nth(0)).to_have_attribute("aria-pressed", "true")
        expect(carol.locator("#btn-draw")).to_have_text("Draw 1")
        picks.nth(0).tap()
        expect(picks.nth(0)).to_have_attribute("aria-pressed", "false")
        expect(carol.locator("#btn-draw")).to_be_hidden()
        picks.nth(3).tap()
        picks.nth(4).tap()
        expect(carol.locator("#btn-draw")).to_have_text("Draw 2")
        expect(carol.locator("#draw-hint")).to_contain_text("Discarding 2")
        _no_sideways_scroll(carol)
        shot(carol, "variant-draw-picker-390")
        discarded.extend(items[3:])
        carol.locator("#btn-draw").tap()
        kept.extend(items[:3])

    kept: list[str] = []
    first = _whose([alice, carol], "#draw-picker")
    (stand_pat if first is alice else discard_two)()
    _whose([alice if first is carol else carol], "#draw-picker")
    (discard_two if first is alice else stand_pat)()

    # The drawer's new hand: the three kept and the two from the top of the deck.
    expect(carol.locator(".seat.mine .card")).to_have_count(5)
    carol.wait_for_function("() => document.querySelectorAll('.seat.mine [data-card=Ac]').length")
    assert sorted(_felt_cards(carol, ".seat.mine .card")) == sorted([*kept, "Ac", "8d"])
    expect(carol.locator("#hand-log")).to_contain_text(
        f"carol discards {_glyph(discarded[0])} {_glyph(discarded[1])}")
    # Everyone sees how many cards each drew, and none of them.
    expect(spect.locator(".seat[data-seat='3'] .tag")).to_have_text("Draws 2")
    expect(spect.locator(".seat[data-seat='0'] .tag")).to_have_text("Stands pat")
    expect(spect.locator("#hand-log")).to_contain_text("carol draws 2 cards")
    expect(spect.locator("#hand-log")).to_contain_text("alice stands pat")
    expect(spect.locator(".seat .hole .card.back")).to_have_count(10)
    _assert_hidden_from(spect, [*DRAW_DEALT, "Ac", "8d"])
    assert "discards" not in spect.locator("#hand-log").inner_text()
    shot(spect, "variant-draw-after")
    shot(carol, "variant-draw-after-390")

    # Once a player acts again, the count stays under the stack.
    _play(players, until=lambda: spect.locator(".seat .drew").count() > 0)
    drew = spect.eval_on_selector_all(
        ".seat .drew", "ns => ns.map(n => [n.closest('.seat').dataset.seat, n.textContent])")
    assert drew and all({"3": "Drew 2", "0": "Stood pat"}[seat] == text
                        for seat, text in drew), drew
    _play(players, until=_hand_over(spect))
    expect(spect.locator("#hand-log")).to_contain_text("wins 4")
    hand_id = _finished_hand(dealer, table_id)
    _replay(carol, hand_id)
    carol.locator(".replay-log li", has_text="carol discards").first.tap()
    expect(carol.locator("#felt .seat[data-seat='3'] .card")).to_have_count(3)
    carol.locator(".replay-log li", has_text=f"Dealt to carol: {_glyph('Ac')}").first.tap()
    drawn = _felt_cards(carol, "#felt .seat[data-seat='3'] .card")
    assert sorted(drawn) == sorted([*kept, "Ac", "8d"])
    _no_sideways_scroll(carol)
    carol.evaluate("window.scrollTo(0, 0)")
    shot(carol, "variant-draw-replay-390")
    for page in (alice, carol, spect):
        assert page.js_errors == []


OMAHA_HOLES = ["Kh", "Ks", "Jh", "Js", "Ac", "2d", "9s", "9h"]


def test_omaha_hi_lo_split_pot(dealer: Any, open_at: Any) -> None:
    table_id = _create(dealer, "Omaha hi-lo live", "omaha8")
    alice, carol, spect = open_at("alice"), open_at("carol"), open_at("dave")
    for page in (alice, carol, spect):
        _at_table(page, table_id)
    _sit(alice, 0)
    _sit(carol, 3)
    players = [(alice, False), (carol, False)]
    expect(alice.locator(".seat.mine .hole .card:not(.back)")).to_have_count(4)
    expect(alice.locator(".board .card.slot")).to_have_count(5)
    _play(players, until=lambda: alice.locator(".board .card:not(.slot)").count() == 5)
    expect(spect.locator(".board .card:not(.slot)")).to_have_count(5)
    expect(spect.locator(".seat .hole .card.back")).to_have_count(8)
    _assert_hidden_from(spect, OMAHA_HOLES)
    shot(spect, "variant-omaha8-river")

    _play(players, until=_hand_over(spect))
    # The split: the kings take the high half, A-2 the low half; on the felt and in the log.
    banner = spect.locator(".banner")
    expect(banner).to_contain_text("wins 2 (high)")
    expect(banner).to_contain_text("wins 2 (low)")
    tags = spect.locator(".seat .tag.win")
    expect(tags).to_have_count(2)
    expect(tags.filter(has_text="High 2 · Three of a kind, Kings")).to_have_count(1)
    expect(tags.filter(has_text="Low 2 · 7-4-3-2-A low")).to_have_count(1)
    shot(spect, "variant-omaha8-split")
    log = spect.locator("#hand-log")
    expect(log).to_contain_text("wins 2 (high) with Three of a kind, Kings")
    expect(log).to_contain_text("wins 2 (low) with 7-4-3-2-A low")

    hand_id = _finished_hand(dealer, table_id)
    for page, name in ((spect, "variant-omaha8-replay"), (carol, "variant-omaha8-replay-390")):
        if page is carol:
            page.set_viewport_size({"width": 390, "height": 844})
        _replay(page, hand_id)
        page.click("#rp-end")
        expect(page.locator("#felt .banner")).to_contain_text("(high)")
        expect(page.locator("#felt .banner")).to_contain_text("(low)")
        expect(page.locator("#felt .tag.win")).to_have_count(2)
        _no_sideways_scroll(page)
        page.evaluate("window.scrollTo(0, 0)")
        shot(page, name)
    for page in (alice, carol, spect):
        assert page.js_errors == []
