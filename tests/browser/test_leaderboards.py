"""Leaderboards and finished tables in the browser: a finished table leaves the lobby
and shows its final standings in the shell, linked to its rule set's leaderboard; the
lobby's game filter, games list and fact columns (any game's, drawn from the server's
column list)."""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import expect

from .conftest import shot
from .helpers import make_table

# Finish a table as tables.runtime does when a game ends: Standing rows (the
# leaderboards), the standings JSON, status "finished". Hold'em never ends by itself:
# this writes what a game that ends would.
FINISH = """
from django.utils import timezone
from accounts.models import Player
from tables.models import Standing, Table
t = Table.objects.get(pk={table_id})
now = timezone.now()
standings = []
for rank, (seat, name, score) in enumerate({places!r}, start=1):
    p = Player.objects.get(name=name)
    Standing.objects.create(table=t, game=t.game, rules=t.rules, player=p, name=name,
                            seat=seat, rank=rank, score=score, finished_at=now)
    standings.append({{"seat": seat, "player_id": str(p.pk), "rank": rank, "score": score,
                       "name": name}})
t.standings, t.status, t.closed_at = standings, "finished", now
t.save(update_fields=["standings", "status", "closed_at"])
print(json.dumps(t.rules))
"""


def finish(server: Any, table_id: int, places: list[tuple[int, str, int]]) -> str:
    return str(server.python(FINISH.format(table_id=table_id, places=places)))


def test_finished_table_standings_and_leaderboard(server: Any, open_page: Any) -> None:
    table_id = make_table(server, "Final 3/6", [], small_blind=3, big_blind=6)
    rules = finish(server, table_id, [(2, "erin", 900), (0, "frank", 450), (4, "dave", 10)])
    page = open_page("erin")
    with page.expect_response(re.compile(r".*/lobby/tables\.json\?.*")) as listed:
        page.goto("/lobby/")
    names = [t["name"] for t in listed.value.json()["tables"]]
    assert "Final 3/6" not in names  # finished tables leave the lobby
    expect(page.locator("#games-list")).to_contain_text("Texas Hold'em")

    page.goto(f"/tables/{table_id}/")
    expect(page.locator("#conn")).to_have_attribute("data-state", "connected")
    expect(page.locator("#finished-badge")).to_be_visible()
    standings = page.locator("#standings")
    expect(standings).to_be_visible()
    expect(standings.locator("li")).to_have_count(3)
    assert standings.locator(".pname").all_inner_texts() == ["erin", "frank", "dave"]
    assert standings.locator(".score").all_inner_texts() == ["900", "450", "10"]
    shot(page, "table-finished")

    page.click("#standings-leaderboard")
    page.wait_for_url(re.compile(rf".*/games/holdem/leaderboard/\?rules={rules}$"))
    settings = page.locator("#rule-settings")
    expect(settings).to_contain_text("Big blind")
    assert "6" in settings.locator("dd").all_inner_texts()
    rows = page.locator("#leaderboard-rows tbody tr")
    expect(rows).to_have_count(3)
    assert rows.locator(".pname").all_inner_texts() == ["erin", "frank", "dave"]
    expect(rows.first.get_by_role("link", name="Final 3/6")).to_be_visible()
    shot(page, "leaderboard-rules")
    page.click("#all-rule-sets")
    expect(page.locator("#rule-sets")).to_contain_text("Texas Hold'em")
    expect(page.locator("#leaderboard-rows tbody tr").first).to_contain_text("erin")
    assert page.js_errors == []


def test_lobby_game_filter_and_fact_columns_of_any_game(server: Any, open_page: Any) -> None:
    make_table(server, "Columns NL", [])
    page = open_page("carol")
    head = page.locator("#table-head th")
    rows = page.locator("#table-rows tr")

    # Another game's table, as the server would list it: its own fact column.
    def with_another_game(route: Any) -> None:
        response = route.fetch()
        data = response.json()
        data["tables"].append({
            **data["tables"][0], "id": 999999, "name": "Dice to 20", "game": "dice",
            "game_name": "Dice race to 20", "facts": {"target": 20},
            "cells": {"target": "20"}, "players": [], "taken": 0, "free": 2,
            "seat_count": 2, "turn_seconds": 30, "url": "/tables/999999/"})
        data["columns"] = [*data["columns"], {"key": "target", "label": "Target",
                                              "sort": "target", "num": True}]
        route.fulfill(response=response, body=json.dumps(data))

    page.route(re.compile(r".*/lobby/tables\.json\?.*"), with_another_game)
    page.goto("/lobby/")
    expect(rows.filter(has_text="Dice to 20")).to_have_count(1)
    # (the server's fact columns come first: other tests' tables, e.g. a tournament's
    # limit, may add one before the script's)
    texts = head.all_inner_texts()
    assert texts[:4] == ["TABLE", "GAME", "LIMIT", "STAKES"] and "TARGET" in texts[4:], texts
    dice_row = rows.filter(has_text="Dice to 20")
    expect(dice_row.locator("td[data-column=target]")).to_have_text("20")
    expect(dice_row.locator("td[data-column=stakes]")).to_have_text("")
    holdem_row = rows.filter(has_text="Columns NL")
    expect(holdem_row.locator("td[data-column=stakes]")).to_have_text("1/2")
    expect(holdem_row.locator("td[data-column=target]")).to_have_text("")
    # A fact column added by the script sorts like the others (the server sorts).
    with page.expect_request(re.compile(r".*sort=target&dir=asc.*")):
        page.click("#table-head [data-sort=target]")
    expect(page.locator("th[aria-sort=ascending] [data-sort=target]")).to_be_visible()
    dice_row.click()
    expect(page.locator("#sel-game")).to_have_text("Dice race to 20 · 30s per action")
    shot(page, "lobby-fact-columns")
    page.unroute(re.compile(r".*/lobby/tables\.json\?.*"))

    # The game filter: Hold'em only (its columns only, as before).
    with page.expect_request(re.compile(r".*game=holdem.*")):
        page.select_option("select[name=game]", "holdem")
    expect(rows.filter(has_text="Dice to 20")).to_have_count(0)
    expect(rows.filter(has_text="Columns NL")).to_have_count(1)
    expect(head).to_have_count(9)
    assert head.all_inner_texts()[2:4] == ["LIMIT", "STAKES"]
    assert page.js_errors == []
