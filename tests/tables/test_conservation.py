"""Chips are conserved over a long random multi-table run (V16): balances + stacks + pots == 0;
at the end, when everyone left, every player's statistics agree with the ledger."""

from __future__ import annotations

import contextlib
import random
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import Player
from research.selectors import player_stats
from research.services import update_all_stats
from tables import services
from tables.errors import TableError
from tables.models import Hand, HandPlayer, Seat, Table

from .helpers import assert_chips_conserved, random_action, turn

STEPS = 2500


@pytest.mark.django_db
def test_long_random_run_conserves_chips(alice: Any, bob: Any, carol: Any, dave: Any,
                                         root: Any) -> None:
    rng = random.Random(11)
    users = [alice, bob, carol, dave, root]
    tables = [services.create_table(creator=alice, name=f"T{i}", settings=settings)
              for i, settings in enumerate([
                  {"structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 6},
                  {"structure": "FL", "small_blind": 1, "big_blind": 2, "seats": 4, "ante": 1},
                  {"structure": "PL", "small_blind": 5, "big_blind": 10, "seats": 3}])]
    now = timezone.now()
    counts = {"accepted": 0, "refused": 0, "timeouts": 0}
    for step in range(STEPS):
        table = rng.choice(tables)
        user = rng.choice(users)
        roll = rng.random()
        seat, hand, version, legal = turn(table.pk)
        try:
            if roll < 0.55 and seat is not None:
                owner = Table.objects.get(pk=table.pk).seats.get(number=seat).player.owner
                services.execute(table_id=table.pk, user=owner, now=now, command={
                    "type": "act", "hand": hand, "version": version,
                    "action": random_action(legal, rng)})
            elif roll < 0.65:
                big = Table.objects.get(pk=table.pk).big_blind
                services.execute(table_id=table.pk, user=user, now=now, command={
                    "type": "sit", "seat": rng.randrange(6),
                    "buy_in": rng.choice([20, 50, 100]) * big,
                    "wait_for_bb": rng.random() < 0.3})
            elif roll < 0.70:
                services.execute(table_id=table.pk, user=user, now=now,
                                 command={"type": "leave"})
            elif roll < 0.76:
                kind = rng.choice(["sit_out", "sit_in", "wait_for_bb"])
                services.execute(table_id=table.pk, user=user, now=now, command={"type": kind})
            elif roll < 0.80:
                services.execute(table_id=table.pk, user=user, now=now,
                                 command={"type": "add_chips", "amount": rng.choice([10, 50])})
            elif roll < 0.86:
                name = f"c{rng.randrange(8)}"
                if rng.random() < 0.5:
                    services.connect(table_id=table.pk, channel_name=name, user=user, now=now)
                else:
                    services.disconnect(channel_name=name, now=now)
            elif roll < 0.95:
                now += timedelta(seconds=rng.choice([5, 40]))
                counts["timeouts"] += services.fire_due_timers(now)
            else:
                now += timedelta(minutes=rng.choice([1, 11]))
                services.sweep_presence(now)
            counts["accepted"] += 1
        except TableError:
            counts["refused"] += 1
        if step % 25 == 0:
            assert_chips_conserved()
    assert_chips_conserved()
    finished = Hand.objects.filter(ended_at__isnull=False).count()
    print("conservation run:", finished, "hands", counts)
    assert finished > 100 and counts["timeouts"] > 20, (finished, counts)
    # Everyone leaves (folded and stood up at the end of their hands), then stats ==
    # ledger for every player: no hand lost, the leavers' included.
    for _ in range(200):
        if not Seat.objects.exists():
            break
        for table in tables:
            for user in users:
                with contextlib.suppress(TableError):  # not seated there
                    services.execute(table_id=table.pk, user=user, now=now,
                                     command={"type": "leave"})
        now += timedelta(seconds=40)
        services.fire_due_timers(now)
    assert not Seat.objects.exists()
    assert_chips_conserved()
    update_all_stats()
    for player in Player.objects.filter(owner__in=users):
        nets = sum(HandPlayer.objects.filter(player=player).values_list("net", flat=True))
        stats = player_stats(player.name)
        assert player.balance == nets, player.name
        stats_net = 0 if stats is None else stats["stats"]["net"]
        assert stats_net == player.balance, player.name
