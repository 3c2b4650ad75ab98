"""Server-side set-up for the browser tests (run in the server's environment)."""

from __future__ import annotations

from typing import Any

SETUP = """
from accounts.models import Player, User
from tables import services
from tables.models import Table
def player(name):
    return Player.objects.get(name=name)
def table(name, seated, **settings):
    t = Table.objects.filter(name=name).first()
    if t is None:
        user = User.objects.get(username='bob')
        t = services.create_table(creator=user, name=name,
            settings={'structure': 'NL', 'small_blind': 1, 'big_blind': 2, 'seats': 6, **settings})
        for seat, name_ in seated:
            p = player(name_)
            # House bots belong to the system account: a tester (bob) seats them.
            owner = user if p.house_strategy else p.owner
            services.execute(table_id=t.pk, user=owner, command={
                'type': 'sit', 'seat': seat, 'buy_in': t.max_buy_in or 40 * t.big_blind,
                'player': p.pk})
    return t.pk
"""


def make_table(server: Any, name: str, seated: list[tuple[int, str]], **settings: Any) -> int:
    code = SETUP + f"print(json.dumps(table({name!r}, {seated!r}, **{settings!r})))"
    return int(server.python(code))


def ledger_sum(server: Any, username: str) -> int:
    return int(server.python(
        "from django.db.models import Sum\nfrom accounts.models import LedgerEntry\n"
        f"print(json.dumps(LedgerEntry.objects.filter(player__owner__username={username!r})"
        ".aggregate(s=Sum('amount'))['s'] or 0))"))


def finished_hand(server: Any, table_id: int) -> int:
    return int(server.python(
        "from tables.models import Hand\n"
        f"h = Hand.objects.filter(table_id={table_id}, ended_at__isnull=False)"
        ".order_by('-id').first()\nprint(json.dumps(h.pk if h else 0))"))


def play_until(page: Any, done: Any, timeout: float = 60.0) -> None:
    """Answer every turn of ``page`` (fold, else check, else muck) until ``done()``.

    Folding keeps the player's stack from growing, so the add-chips room stays known.
    """
    import contextlib
    import time

    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, "timed out while playing"
        for button in ("#btn-fold", "#btn-muck", "#btn-check"):
            if page.locator(button).is_visible():
                with contextlib.suppress(Exception):  # the turn may end meanwhile
                    page.locator(button).click(timeout=1000)
                break
        page.wait_for_timeout(100)
