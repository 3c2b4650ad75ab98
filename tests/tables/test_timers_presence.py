"""Turn timers, house bots, presence (disconnect, reconnect, grace period), V8 closing."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from accounts.models import LedgerEntry, Player, PlayerKind
from tables import services
from tables.models import Connection, Hand, Seat, Table, TableStatus

from .helpers import act, assert_chips_conserved, sit, turn

pytestmark = pytest.mark.django_db


def later(table_id: int, seconds: float = 1) -> Any:
    return Table.objects.get(pk=table_id).deadline + timedelta(seconds=seconds)


def test_timer_checks_or_folds_and_two_timeouts_sit_out(table: Any, alice: Any, bob: Any) -> None:
    sit(table, alice, 0)
    sit(table, bob, 1)
    seat, _hand, _version, _ = turn(table.pk)
    assert services.fire_due_timers(later(table.pk, -1)) == 0  # not yet
    assert services.fire_due_timers(later(table.pk)) == 1
    events = Table.objects.get(pk=table.pk).current_hand
    assert events is not None
    # The first timeout at the button (SB) pre-flop folds: check impossible.
    hand_row = Table.objects.get(pk=table.pk)
    assert hand_row.version == 3
    # Timed out twice in a row: sat out.
    for _ in range(12):
        if Seat.objects.get(table=table, number=seat).state == "sitting_out":
            break
        if turn(table.pk)[0] is None:
            break
        if turn(table.pk)[0] == seat:
            services.fire_due_timers(later(table.pk))
        else:
            legal = turn(table.pk)[3]
            action = ("muck" if legal["can_muck"] else "check" if legal["can_check"]
                      else "call")
            act(table.pk, {0: alice, 1: bob}[1 - seat], {"kind": action})
    assert Seat.objects.get(table=table, number=seat).state == "sitting_out"
    assert_chips_conserved()


def test_stale_version_after_a_timeout(table: Any, alice: Any, bob: Any) -> None:
    sit(table, alice, 0)
    sit(table, bob, 1)
    seat, hand, version, _ = turn(table.pk)
    services.fire_due_timers(later(table.pk))
    with pytest.raises(services.TableError) as error:
        services.execute(table_id=table.pk, user={0: alice, 1: bob}[seat], command={
            "type": "act", "hand": hand, "version": version, "action": {"kind": "call"}})
    assert error.value.code in {"stale_version", "not_your_turn", "wrong_hand"}


def test_timer_fires_once_from_stored_deadline(table: Any, alice: Any, bob: Any) -> None:
    """A fresh process (nothing in memory) fires the stored deadline exactly once."""
    sit(table, alice, 0)
    sit(table, bob, 1)
    when = later(table.pk)
    from tables import house  # a "restart": forget every in-process cache

    house._bots.clear()
    assert services.fire_due_timers(when) == 1
    version = Table.objects.get(pk=table.pk).version
    assert services.fire_due_timers(when) == 0  # the new deadline lies ahead
    assert Table.objects.get(pk=table.pk).version == version


def test_house_bots_play_and_a_broken_one_times_out(table: Any, bob: Any, alice: Any) -> None:
    station = Player.objects.create(owner=bob, name="Station", kind=PlayerKind.BOT,
                                    house_strategy="calling_station")
    broken = Player.objects.create(owner=bob, name="Broken", kind=PlayerKind.BOT,
                                   house_strategy="broken")
    services.execute(table_id=table.pk, user=bob, command={
        "type": "sit", "seat": 0, "buy_in": 200, "player": station.pk})
    services.execute(table_id=table.pk, user=bob, command={
        "type": "sit", "seat": 1, "buy_in": 200, "player": broken.pk})
    acted = 0
    for _ in range(40):
        acted += services.run_house_bots()
    assert acted >= 4  # until Broken, timed out twice, sits out and play stops
    table.refresh_from_db()
    assert table.hands.filter(ended_at__isnull=False).exists()
    assert Seat.objects.get(table=table, number=1).state == "sitting_out"  # 2 bad moves
    assert_chips_conserved()


def test_busted_house_bots_buy_in_again_and_play_on(table: Any, bob: Any) -> None:
    shover = Player.objects.create(owner=bob, name="Shover", kind=PlayerKind.BOT,
                                   house_strategy="shove")
    caller = Player.objects.create(owner=bob, name="Caller", kind=PlayerKind.BOT,
                                   house_strategy="calling_station")
    for seat, bot in enumerate((shover, caller)):
        services.execute(table_id=table.pk, user=bob, command={
            "type": "sit", "seat": seat, "buy_in": 200, "player": bot.pk})
    for _ in range(200):
        services.run_house_bots()
    rebuys = LedgerEntry.objects.filter(note__startswith="House bot rebuy")
    assert rebuys.exists()  # all-in every hand: somebody busted, and bought in again
    finished = table.hands.filter(ended_at__isnull=False).count()
    assert finished > rebuys.count()  # play went on after the rebuys
    assert all(row.state == "playing" and row.stack > 0 for row in Seat.objects.filter(table=table))
    assert_chips_conserved()


def test_house_bot_view_is_botkits_view(table: Any, bob: Any, alice: Any) -> None:
    from botkit.view import make_view
    from engine.registry import get_game

    from . import conftest

    seen: list[Any] = []

    class Spy(conftest.CheckCallBot):
        def act(self, view: Any) -> Any:
            seen.append(view)
            return super().act(view)

    station = Player.objects.create(owner=bob, name="Spy", kind=PlayerKind.BOT,
                                    house_strategy="spy")
    from tables import house

    factory = house.settings.TABLES["HOUSE_BOT_FACTORY"]
    house._bots[(factory, station.pk, "spy", "holdem")] = Spy("spy")
    services.execute(table_id=table.pk, user=bob, command={
        "type": "sit", "seat": 0, "buy_in": 200, "player": station.pk})
    sit(table, alice, 1)
    state_before = Table.objects.get(pk=table.pk)
    services.run_house_bots()
    state = get_game("holdem").load(state_before.state)
    expected = make_view(state, 0, seen[0]["time_left"])
    assert seen[0] == expected


def test_disconnect_sits_out_and_reconnect_resumes(table: Any, alice: Any, bob: Any) -> None:
    sit(table, alice, 0)
    sit(table, bob, 1)
    services.connect(table_id=table.pk, channel_name="a1", user=alice)
    services.disconnect(channel_name="a1")
    row = Seat.objects.get(table=table, number=0)
    assert row.state == "disconnected" and row.sat_out_by_disconnect
    state = Table.objects.get(pk=table.pk).state
    assert state["seats"][0]["status"] == "sitting_out"
    hand = Hand.objects.filter(table=table).latest("pk")
    assert {"type": "PlayerSatOut", "player": 0, "reason": "disconnected"} in [
        {k: e.get(k) for k in ("type", "player", "reason")} for e in hand.events]
    # The hand goes on under the turn timer; alice comes back in time and plays on.
    services.connect(table_id=table.pk, channel_name="a2", user=alice)
    row.refresh_from_db()
    assert row.state == "playing" and row.disconnected_at is None
    assert Table.objects.get(pk=table.pk).state["seats"][0]["status"] == "playing"
    assert_chips_conserved()


def test_two_tabs_one_closes_player_stays(table: Any, alice: Any, bob: Any) -> None:
    sit(table, alice, 0)
    services.connect(table_id=table.pk, channel_name="t1", user=alice)
    services.connect(table_id=table.pk, channel_name="t2", user=alice)
    services.disconnect(channel_name="t1")
    assert Seat.objects.get(table=table, number=0).disconnected_at is None


def test_silent_connection_swept_then_seat_released_after_grace(
        table: Any, alice: Any, bob: Any, settings: Any) -> None:
    sit(table, alice, 0)
    sit(table, bob, 1)
    start = Table.objects.get(pk=table.pk).deadline - timedelta(seconds=table.turn_seconds)
    services.connect(table_id=table.pk, channel_name="a1", user=alice, now=start)
    services.sweep_presence(start + timedelta(seconds=5))
    assert Connection.objects.filter(channel_name="a1").exists()
    services.sweep_presence(start + timedelta(seconds=settings.TABLES["PRESENCE_TIMEOUT"] + 1))
    assert not Connection.objects.exists()
    assert Seat.objects.get(table=table, number=0).state == "disconnected"
    # Grace period over: stood up (folded in the hand) and cashed out.
    gone = start + timedelta(seconds=settings.TABLES["SEAT_GRACE_SECONDS"] + 60)
    for _ in range(5):
        services.sweep_presence(gone)
        services.fire_due_timers(gone + timedelta(hours=1))
    assert not Seat.objects.filter(table=table, player__owner=alice).exists()
    assert_chips_conserved()
    assert Player.objects.get(name="alice").balance == -Player.objects.get(name="bob").balance - \
        sum(s.stack for s in Seat.objects.filter(table=table))


def test_the_sweep_spares_a_connection_heard_from_after_it_was_listed(
        table: Any, alice: Any, bob: Any, settings: Any) -> None:
    """The sweep lists silent connections, then disconnects them one by one; under load
    that takes a while, and a heartbeat written meanwhile must win (a live player was
    sat out and, at 1,000 tables, stood up 10 minutes later)."""
    sit(table, alice, 0)
    sit(table, bob, 1)
    start = Table.objects.get(pk=table.pk).deadline - timedelta(seconds=table.turn_seconds)
    services.connect(table_id=table.pk, channel_name="a1", user=alice, now=start)
    listed_silent = start + timedelta(seconds=1)  # the sweep's cut-off when it listed a1
    services.heartbeat(channel_name="a1", now=start + timedelta(seconds=2))
    services.disconnect(channel_name="a1", silent_since=listed_silent)
    assert Connection.objects.filter(channel_name="a1").exists()
    assert Seat.objects.get(table=table, number=0).state != "disconnected"
    services.disconnect(channel_name="a1", silent_since=start + timedelta(seconds=3))
    assert not Connection.objects.exists()
    assert Seat.objects.get(table=table, number=0).state == "disconnected"


def test_abandoned_table_is_closed_but_history_stays(table: Any, alice: Any, bob: Any) -> None:
    sit(table, alice, 0)
    sit(table, bob, 1)
    services.connect(table_id=table.pk, channel_name="w", user=bob)
    services.execute(table_id=table.pk, user=alice, command={"type": "leave"})
    services.execute(table_id=table.pk, user=bob, command={"type": "leave"})
    services.fire_due_timers(later(table.pk, 100) if Table.objects.get(pk=table.pk).deadline
                             else None)
    assert services.close_abandoned_tables() == 0  # bob still watches
    services.disconnect(channel_name="w")
    assert services.close_abandoned_tables() == 1
    table.refresh_from_db()
    assert table.status == TableStatus.CLOSED and table.hands.exists()
    with pytest.raises(services.TableError) as error:
        services.execute(table_id=table.pk, user=alice, command={
            "type": "sit", "seat": 0, "buy_in": 200})
    assert error.value.code == "table_closed"
    assert_chips_conserved()
