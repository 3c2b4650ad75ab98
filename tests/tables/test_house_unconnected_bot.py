"""A remote bot seated by its owner while the bot itself is not connected.

The defect: the owner's browser connection counted as controlling the bot
(``tables.services._controls``), so a bot seated from the table page while no
connection of the bot existed was dealt in, and the table waited for two full turn
timers before the engine sat it out. Now such a bot is treated as a disconnected
player at once: sat out before the next hand, back in when the bot connects, stood
up after the grace period like anyone disconnected.
"""

from __future__ import annotations

from typing import Any

import pytest

from accounts.services import create_bot
from tables import services
from tables.models import Seat, Table

from .helpers import assert_chips_conserved, sit

pytestmark = pytest.mark.django_db


def seat_bot(table: Any, owner: Any, bot: Any, seat: int) -> None:
    services.execute(table_id=table.pk, user=owner, command={
        "type": "sit", "seat": seat, "buy_in": 200, "player": bot.pk})


def test_an_unconnected_bot_seated_by_its_owner_is_sat_out_at_once(
        table: Any, alice: Any, bob: Any) -> None:
    bot, _token = create_bot(owner=bob, name="Skynet")
    sit(table, alice, 0)
    # bob watches the table in his browser and seats his bot, which is not connected.
    services.connect(table_id=table.pk, channel_name="bob-browser", user=bob)
    seat_bot(table, bob, bot, 1)
    row = Seat.objects.get(table=table, number=1)
    assert row.disconnected_at is not None and row.sat_out_by_disconnect
    assert row.state == "disconnected"
    stored = Table.objects.get(pk=table.pk)
    assert stored.state["seats"][1]["status"] == "sitting_out"
    assert stored.current_hand_id is None and stored.to_act_seat is None  # nobody waits
    # The bot connects: it is back in and the hand is dealt at once.
    services.connect(table_id=table.pk, channel_name="skynet-ws", user=bob, bot=bot)
    row.refresh_from_db()
    assert row.disconnected_at is None and not row.sat_out_by_disconnect
    stored = Table.objects.get(pk=table.pk)
    assert stored.state["seats"][1]["status"] == "playing"
    assert stored.current_hand_id is not None
    assert_chips_conserved()


def test_a_connected_bot_seated_by_its_owner_plays(table: Any, alice: Any, bob: Any) -> None:
    bot, _token = create_bot(owner=bob, name="Skynet")
    sit(table, alice, 0)
    services.connect(table_id=table.pk, channel_name="skynet-ws", user=bob, bot=bot)
    seat_bot(table, bob, bot, 1)
    row = Seat.objects.get(table=table, number=1)
    assert row.disconnected_at is None and row.state == "playing"
    assert Table.objects.get(pk=table.pk).current_hand_id is not None


def test_the_owners_browser_does_not_keep_a_disconnected_bot_seated_in(
        table: Any, alice: Any, bob: Any) -> None:
    bot, _token = create_bot(owner=bob, name="Skynet")
    sit(table, alice, 0)
    services.connect(table_id=table.pk, channel_name="bob-browser", user=bob)
    services.connect(table_id=table.pk, channel_name="skynet-ws", user=bob, bot=bot)
    seat_bot(table, bob, bot, 1)
    services.disconnect(channel_name="skynet-ws")  # the bot's own connection drops
    row = Seat.objects.get(table=table, number=1)
    assert row.disconnected_at is not None and row.sat_out_by_disconnect
    # ... and the owner's browser reconnecting does not bring the bot back.
    services.disconnect(channel_name="bob-browser")
    services.connect(table_id=table.pk, channel_name="bob-browser-2", user=bob)
    row.refresh_from_db()
    assert row.disconnected_at is not None


def test_a_bot_that_sits_itself_is_not_sat_out(table: Any, alice: Any, bob: Any) -> None:
    """A bot playing over REST (no websocket) sits with its own token: it is there."""
    bot, _token = create_bot(owner=bob, name="Skynet")
    sit(table, alice, 0)
    services.execute(table_id=table.pk, user=bob, bot=bot, command={
        "type": "sit", "seat": 1, "buy_in": 200})
    row = Seat.objects.get(table=table, number=1)
    assert row.disconnected_at is None and row.state == "playing"
