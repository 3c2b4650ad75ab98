"""Finding one's way as a new user: the header and the account page lead to one's hands
and statistics (and, for testers, the batch matches and research sessions); a tester
starts a batch match from the web and reaches its results, whose chart's labels are
all inside the chart, at least 10 px high on screen (on a phone too), and read negative
numbers with a real minus; no page scrolls sideways on a phone or a laptop; the replay
draws the viewer's own seat at the bottom and its final banner stands out; with
PUBLIC_SPECTATING=1 a visitor who is not logged in sees the lobby and watches a table."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import Server, page_opener, serving, shot
from .helpers import finished_hand, make_table

MINUS = "\u2212"
SIZES = ((390, 844), (1366, 768))
# The chart shown: the wide layout or, on a phone, the narrow one (static/css/site.css).
CHART = "svg.chart:visible, svg.chart-narrow:visible"


def no_sideways_scroll(page: Any, what: str) -> None:
    width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"{what}: the page is {width[0]}px wide in {width[1]}px"


def test_account_leads_to_my_hands_and_statistics(server: Any, open_page: Any) -> None:
    page = open_page("carol")
    page.goto("/account/")
    expect(page.locator("#nav-hands")).to_be_visible()
    expect(page.locator("#nav-matches")).to_have_count(0)  # players: no research links
    page.click("#account-hands")
    expect(page.locator("h1")).to_have_text("Hands of carol")
    page.goto("/account/")
    page.click("#account-stats")
    expect(page.locator("h1")).to_contain_text("Statistics: carol")
    page.click("#nav-hands")
    expect(page.locator("h1")).to_have_text("Hands of carol")
    page.click("#nav-stats")
    expect(page.locator("h1")).to_contain_text("Statistics: carol")
    page.goto("/account/")
    page.locator("#players .player-stats-link").first.click()
    expect(page.locator("h1")).to_contain_text("Statistics: carol")
    assert page.request.get("/favicon.ico").status == 200


def test_tester_starts_a_batch_match_and_reads_its_chart(server: Any, open_page: Any) -> None:
    page = open_page("bob", width=1366, height=768)
    page.goto("/account/")
    expect(page.locator("#nav-sessions")).to_be_visible()
    page.click("#nav-matches")
    expect(page.locator("h1")).to_have_text("Batch matches")
    page.click("#match-new-link")
    expect(page.locator("h1")).to_have_text("New batch match")
    page.select_option("select[name=seat_1]", "rule_based")
    page.select_option("select[name=seat_2]", "calling_station")
    page.fill("input[name=hands]", "0")
    page.click("#match-start")
    expect(page.locator('[data-field="hands"] .error')).to_contain_text(
        "greater than or equal to 1")
    shot(page, "findability-match-form-error")
    page.fill("input[name=hands]", "50")
    page.fill("input[name=seed]", "4")
    page.click("#match-start")
    expect(page).to_have_url(re.compile(r"/research/matches/\d+/progress/$"))
    expect(page.locator("#match-bar")).to_be_visible()
    expect(page.locator("#match-results")).to_be_visible(timeout=120_000)
    expect(page.locator("#match-status")).to_have_text("Done")
    expect(page.locator("#match-hands")).to_have_text("50 / 50 hands")
    shot(page, "findability-match-progress-done")
    page.click("#match-results")
    expect(page.locator("h1")).to_have_text(re.compile(r"Match \d+"))
    chart_is_readable(page)
    page.locator(CHART).first.scroll_into_view_if_needed()
    shot(page, "findability-match-chart")
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        no_sideways_scroll(page, f"match page at {width}")
        chart_is_readable(page)
    page.set_viewport_size({"width": 390, "height": 844})
    page.locator(CHART).first.scroll_into_view_if_needed()
    shot(page, "findability-match-chart-phone")


def chart_is_readable(page: Any) -> None:
    """Every label of the chart lies inside the svg and is at least 10 px high on screen
    (an svg scales its text with itself: squeezed onto a phone, the wide layout's were
    5 px); negative numbers have a real minus sign; the legend is below the plot area.
    The geometry is read in one look (one script in the page): a layout change between
    reading the svg's box and its labels (the page still settling) once put every label
    20 px "outside"."""
    svg = page.locator(CHART)
    expect(svg).to_have_count(1)
    shape = svg.evaluate("""(svg) => {
      const box = (e) => { const b = e.getBoundingClientRect();
                           return {x: b.x, y: b.y, width: b.width, height: b.height}; };
      const legend = svg.querySelector("g.legend text");
      const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      const px = (t) => parseFloat(getComputedStyle(t).fontSize) * scale;
      return {box: box(svg),
              texts: [...svg.querySelectorAll("text")].map((t) => ({text: t.textContent,
                                                                   font: px(t), ...box(t)})),
              lines: svg.querySelectorAll("line").length,
              polylines: [...svg.querySelectorAll("polyline")].map(box),
              legend: legend ? box(legend) : null};
    }""")
    box, texts = shape["box"], shape["texts"]
    assert len(texts) >= 5
    for label in texts:
        inside = (label["x"] >= box["x"] - 0.5 and label["y"] >= box["y"] - 0.5
                  and label["x"] + label["width"] <= box["x"] + box["width"] + 0.5
                  and label["y"] + label["height"] <= box["y"] + box["height"] + 0.5)
        assert inside, f"{label['text']!r} at {label} outside {box}"
        assert label["font"] >= 10 and label["height"] >= 10, \
            f"{label['text']!r} is {label['font']:.1f} px high on screen: {label}"
    y_labels = [t.strip() for t in svg.locator("text.y-label").all_text_contents()]
    assert any(t.startswith(MINUS) for t in y_labels), y_labels
    assert not any(t.startswith("-") for t in y_labels), y_labels
    assert shape["lines"] > 0 and shape["polylines"], shape  # (the axes, the lines)
    plot_bottom = max(b["y"] + b["height"] for b in shape["polylines"])
    legend = shape["legend"]
    assert legend is not None
    assert legend["y"] >= plot_bottom, (legend, plot_bottom)


def test_pages_do_not_scroll_sideways(server: Any, open_page: Any) -> None:
    table_id = make_table(server, "Findability replay", [(0, "Station-D"), (2, "Station-E")])
    hand_id = 0
    page = open_page("dave")
    for _ in range(120):
        hand_id = finished_hand(server, table_id)
        if hand_id:
            break
        page.wait_for_timeout(250)
    assert hand_id, "no hand finished"
    # dave's own player took seat 2 of that hand (as if he had played it).
    player = server.python(
        "from accounts.models import Player\nfrom tables.models import HandPlayer\n"
        "p = Player.objects.get(name='dave')\n"
        f"HandPlayer.objects.filter(hand_id={hand_id}, seat=2).update(player=p)\n"
        "print(json.dumps(p.pk))")
    pages = {"account": "/account/", "stats": f"/players/{player}/stats/",
             "hands": f"/players/{player}/hands/", "replay": f"/hands/{hand_id}/",
             "matches": "/research/matches/"}
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        for name, url in pages.items():
            page.goto(url)
            no_sideways_scroll(page, f"{name} at {width}")
            if name == "replay":
                replay_puts_me_at_the_bottom(page)
            shot(page, f"findability-{name}-{width}")
    assert page.js_errors == []


def replay_puts_me_at_the_bottom(page: Any) -> None:
    expect(page.locator("#replay-page")).to_have_attribute("data-replay", "holdem")
    seats = page.locator("#felt .seat.taken")
    expect(seats).to_have_count(2)
    mine = page.locator('#felt .seat[data-seat="2"]')
    expect(mine).to_have_class(re.compile(r"\bmine\b"))
    other = page.locator('#felt .seat[data-seat="0"]').bounding_box()
    own = mine.bounding_box()
    assert own is not None and other is not None
    assert own["y"] > other["y"], (own, other)
    page.click("#rp-end")
    banner = page.locator('[data-testid="banner"]')
    expect(banner).to_be_visible()
    expect(banner).to_have_css("opacity", "1")
    box = banner.bounding_box()
    assert box is not None and box["height"] >= 18 and box["width"] >= 60
    # Nothing covers its middle: it is the element found there.
    assert page.evaluate("""() => {
      const b = document.querySelector('[data-testid="banner"]').getBoundingClientRect();
      const hit = document.elementFromPoint(b.x + b.width / 2, b.y + b.height / 2);
      return Boolean(hit && hit.closest('[data-testid="banner"]'));
    }""")


@pytest.fixture(scope="module")
def public_server() -> Iterator[Server]:
    srv = Server()
    srv.env["PUBLIC_SPECTATING"] = "1"
    yield from serving(srv)


def test_anonymous_lobby_and_watching_when_public(public_server: Server, browser: Any,
                                                  offsite: Any, csp_guard: Any) -> None:
    table_id = make_table(public_server, "Public watch", [(0, "Station-A"), (1, "Station-B")])
    with page_opener(browser, public_server.url, offsite, csp_guard) as make:
        page = make(None, width=390, height=844)
        page.goto("/")
        page.goto("/lobby/")
        expect(page).to_have_url(re.compile(r"/lobby/$"))
        expect(page.locator("#guest-note")).to_be_visible()
        expect(page.locator("#table-rows tr", has_text="Public watch")).to_have_count(1)
        expect(page.locator("#open-create")).to_have_count(0)
        no_sideways_scroll(page, "public lobby")
        shot(page, "findability-public-lobby")
        page.goto(f"/tables/{table_id}/")
        expect(page.locator("#conn")).to_have_attribute("data-state", "connected")
        expect(page.locator("#felt .seat.taken")).to_have_count(2)
        expect(page.locator("#chat-form")).to_be_hidden()
        expect(page.locator("#guest-note")).to_be_visible()
        # Only backs of the bots' cards, never their faces, while a hand runs.
        page.wait_for_timeout(500)
        shot(page, "findability-public-table")
        assert page.js_errors == []
