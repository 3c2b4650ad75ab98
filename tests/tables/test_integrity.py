"""Research-integrity defects, each kept fixed: a leaver's round keeps its player, a
bot owned by a superuser plays with its seat's eyes only."""

from __future__ import annotations

from typing import Any

from accounts.models import Player
from accounts.services import create_bot
from research.selectors import player_stats
from research.services import update_all_stats
from tables import selectors, services
from tables.models import HandPlayer

from .helpers import act, sit, turn


def test_a_round_left_midway_stays_in_the_leavers_history_stats_and_ledger(
        table: Any, alice: Any, bob: Any, carol: Any) -> None:
    sit(table, alice, 0)
    sit(table, bob, 1)
    sit(table, carol, 2)
    users = {0: alice, 1: bob, 2: carol}
    seat, *_ = turn(table.pk)
    act(table.pk, users[seat], {"kind": "call"})  # the first actor puts chips in
    leaver = users[seat]
    services.execute(table_id=table.pk, user=leaver, command={"type": "leave"})
    for _ in range(50):  # the others play the hand out
        seat, _, _, legal = turn(table.pk)
        if seat is None or users[seat] is leaver:
            break
        act(table.pk, users[seat], {"kind": "check" if legal["can_check"] else
                                    ("muck" if legal["can_muck"] else "call")})
        if HandPlayer.objects.filter(player__name=leaver.username).exists():
            break
    rows = HandPlayer.objects.filter(player__name=leaver.username)
    assert rows.count() == 1 and rows.get().name == leaver.username
    assert rows.get().net < 0  # the called chips are lost, and recorded as such
    player = Player.objects.get(name=leaver.username)
    # Stats == ledger: they left (cashed out) after their only hand.
    assert player.balance == rows.get().net
    update_all_stats()
    stats = player_stats(leaver.username)
    assert stats is not None and stats["stats"]["hands"] == 1
    assert stats["stats"]["net"] == player.balance
    history = selectors.hand_history(rows.get().hand_id, leaver)
    assert leaver.username in history["phh"]
    assert any(p["name"] == leaver.username for p in history["players"])


def test_a_bot_owned_by_a_superuser_sees_only_its_own_cards(table: Any, root: Any,
                                                           alice: Any) -> None:
    bot, _token = create_bot(owner=root, name="RootBot")
    services.execute(table_id=table.pk, user=root, bot=bot,
                     command={"type": "sit", "seat": 0, "buy_in": 200})
    sit(table, alice, 1)
    as_bot = selectors.snapshot(table.pk, root, bot)
    cards = {p["player"]: p["cards"] for p in as_bot["state"]["hand"]["players"]}
    assert "?" not in cards[0] and cards[1] == "????"
    assert as_bot["you"]["sees_all_cards"] is False
    as_root = selectors.snapshot(table.pk, root)  # the superuser's own viewing
    assert "?" not in {p["player"]: p["cards"]
                       for p in as_root["state"]["hand"]["players"]}[1]
