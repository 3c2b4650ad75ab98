"""Quick look: the lobby and a table with house bots render without script errors."""

from __future__ import annotations

from typing import Any

from .conftest import shot
from .helpers import make_table


def test_lobby_and_table_render(server: Any, open_page: Any) -> None:
    table_id = make_table(server, "Bots 1/2", [(0, "Station-A"), (3, "Station-B")])
    page = open_page("alice")
    page.goto("/lobby/")
    page.get_by_role("cell", name="Bots 1/2").click()
    page.wait_for_selector("#sel-players li")
    shot(page, "lobby")
    page.goto(f"/tables/{table_id}/")
    page.wait_for_selector("#conn[data-state=connected]")
    page.wait_for_selector(".seat.taken .card")
    page.wait_for_timeout(1500)
    shot(page, "table-watch")
    assert page.js_errors == []
