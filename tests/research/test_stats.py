"""Stored statistics: incremental equals one go, idempotent, known numbers from real hands."""

from __future__ import annotations

import random
from typing import Any

import pytest
from rest_framework.test import APIClient

from botkit.stats import StatsAccumulator
from research import selectors, services
from research.models import PlayerStats
from tables.models import Hand
from tests.tables.helpers import act, random_action, sit, turn

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_worker(settings: Any) -> None:
    settings.TABLES = {**settings.TABLES, "WORKER_IN_PROCESS": False}


@pytest.fixture
def table(alice: Any) -> Any:
    from tables.services import create_table

    return create_table(creator=alice, name="Stats NL", settings={
        "structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 3,
        "max_buy_in": 1000})


def play_random_hands(table: Any, users: dict[int, Any], hands: int, seed: int) -> None:
    rng = random.Random(seed)
    start = Hand.objects.filter(ended_at__isnull=False).count()
    for _ in range(hands * 40):
        if Hand.objects.filter(ended_at__isnull=False).count() >= start + hands:
            return
        seat, _hand, _version, legal = turn(table.pk)
        if seat is None:
            break
        act(table.pk, users[seat], random_action(legal, rng))


def one_go() -> StatsAccumulator:
    acc = StatsAccumulator()
    for hand in Hand.objects.filter(ended_at__isnull=False).order_by("pk"):
        seats = {p.seat: str(p.player_id) for p in hand.players.all()}
        acc.add_hand(hand.events, seats, big_blind=hand.table.big_blind)
    return acc


QUERIES_PER_BATCH = 11


def test_incremental_equals_one_go_and_is_idempotent(
        table: Any, alice: Any, bob: Any, carol: Any,
        django_assert_max_num_queries: Any) -> None:
    for seat, user in enumerate((alice, bob, carol)):
        sit(table, user, seat, buy_in=1000)
    users = {0: alice, 1: bob, 2: carol}
    play_random_hands(table, users, 8, seed=1)
    assert services.update_stats(limit=3) == 3  # a part, then the rest later
    play_random_hands(table, users, 8, seed=2)
    with django_assert_max_num_queries(QUERIES_PER_BATCH):  # (nothing read per hand)
        assert services.update_stats(limit=5) >= 1  # (a running hand may hold some back)
    services.update_all_stats(batch=5)
    assert services.update_stats() == 0  # nothing new: counting again changes nothing
    expected = one_go()
    for row in PlayerStats.objects.all():
        counters = expected.players[str(row.player_id)]
        assert row.counters == counters.to_json()
        assert row.hands == counters.hands and row.net == counters.net
    assert sum(r.net for r in PlayerStats.objects.all()) == 0


def test_a_hand_still_played_holds_nobody_back_and_is_counted_when_it_ends(
        table: Any, alice: Any, bob: Any, carol: Any) -> None:
    """A long round at one table (people thinking, a Tuppi round) used to stop the
    counting at its id for everybody until it ended."""
    from datetime import timedelta

    from django.utils import timezone

    from accounts.models import Role
    from research.models import StatsCursor
    from tables.services import create_table
    from tests.conftest import _make_user

    sit(table, alice, 0)
    sit(table, bob, 1)  # a hand starts and is running: the lowest id
    (slow,) = Hand.objects.filter(ended_at__isnull=True)
    dave = _make_user("dave", Role.PLAYER)
    other = create_table(creator=carol, name="Stats other", settings={
        "structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 2})
    sit(other, carol, 0)
    sit(other, dave, 1)
    while Hand.objects.filter(table=other, ended_at__isnull=False).count() < 3:
        seat, _hand, _version, _legal = turn(other.pk)
        act(other.pk, carol if seat == 0 else dave, {"kind": "fold"})
    assert services.update_stats() == 3  # the later, finished hands of the other table
    assert PlayerStats.objects.get(player__name="carol").hands == 3
    assert not PlayerStats.objects.filter(player__name="alice").exists()
    assert slow.pk in StatsCursor.objects.get().open_hand_ids
    # The slow hand ends: counted then, once.
    while Hand.objects.get(pk=slow.pk).ended_at is None:
        seat, _hand, _version, _legal = turn(table.pk)
        act(table.pk, alice if seat == 0 else bob, {"kind": "fold"})
    assert services.update_stats() == 1
    assert services.update_stats() == 0
    assert slow.pk not in StatsCursor.objects.get().open_hand_ids
    expected = one_go()
    assert {r.player.name: r.hands for r in PlayerStats.objects.select_related("player")} \
        == {"alice": 1, "bob": 1, "carol": 3, "dave": 3}
    for row in PlayerStats.objects.all():
        assert row.counters == expected.players[str(row.player_id)].to_json()
    # A hand still running after STUCK_HAND is given up (a stuck table).
    running = Hand.objects.filter(ended_at__isnull=True).values_list("pk", flat=True)
    assert set(running) <= set(StatsCursor.objects.get().open_hand_ids) and running
    Hand.objects.filter(pk__in=running).update(
        started_at=timezone.now() - services.STUCK_HAND - timedelta(minutes=1))
    assert services.update_stats() == 0
    assert StatsCursor.objects.get().open_hand_ids == []


def test_known_vpip_pfr_af_from_hands_through_the_table_service(table: Any, alice: Any,
                                                                 bob: Any) -> None:
    """Heads-up: alice raises every pre-flop and bets every street; bob calls everything
    and then mucks or shows. alice: VPIP 1, PFR 1, AF = inf (no calls) -> None;
    bob: VPIP 1 (calls), PFR 0, AF 0 (calls only)."""
    sit(table, alice, 0)
    sit(table, bob, 1)
    users = {0: alice, 1: bob}
    for _ in range(400):
        if Hand.objects.filter(ended_at__isnull=False).count() >= 4:
            break
        seat, _hand, _version, legal = turn(table.pk)
        if seat is None:
            break
        if legal["can_show"]:
            action = {"kind": "show"}
        elif seat == 0 and legal["sized_kind"]:
            action = {"kind": legal["sized_kind"], "amount": legal["min_raise_to"]}
        elif legal["call_amount"]:
            action = {"kind": "call"}
        else:
            action = {"kind": "check"}
        act(table.pk, users[seat], action)
    hands = Hand.objects.filter(ended_at__isnull=False).count()
    assert hands >= 4
    services.update_all_stats()
    a, b = selectors.player_stats("alice"), selectors.player_stats("BOB")
    assert a is not None and b is not None
    assert a["stats"]["vpip"] == 1.0 and a["stats"]["pfr"] == 1.0
    assert a["stats"]["af"] is None  # bets and raises, never a call after the flop
    assert b["stats"]["vpip"] == 1.0 and b["stats"]["pfr"] == 0.0
    assert b["stats"]["af"] == 0.0
    assert a["stats"]["hands"] == b["stats"]["hands"] == hands
    assert a["stats"]["net"] == -b["stats"]["net"]
    assert a["cumulative"]["net"][-1] == a["stats"]["net"]
    # The API counts new hands before answering.
    client = APIClient()
    client.force_login(bob)
    data = client.get("/api/v1/players/alice/stats/").json()
    assert data["stats"]["vpip"] == 1.0 and data["stats"]["hands"] == hands
    assert client.get("/api/v1/players/nobody/stats/").status_code == 404


def test_statistics_page_shows_the_stored_statistics(table: Any, alice: Any, bob: Any,
                                                     client: Any) -> None:
    from accounts.models import Player

    sit(table, alice, 0, buy_in=1000)
    sit(table, bob, 1, buy_in=1000)
    play_random_hands(table, {0: alice, 1: bob}, 5, seed=3)
    player = Player.objects.get(name="alice")
    client.force_login(bob)
    page = client.get(f"/players/{player.pk}/stats/").content.decode()
    stored = PlayerStats.objects.get(player=player)  # the page brought them up to date
    assert stored.hands == Hand.objects.filter(ended_at__isnull=False).count() >= 1
    assert f">{stored.hands}<" in page.replace(" ", "") and "<svg" in page
