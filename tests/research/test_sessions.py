"""Research sessions: which hands, the statistics, nets against the ledger, the exports.

Two kinds of histories:

* **hand-made**: the six hands of ``tests/botkit/test_stats.py`` (numbers worked out by
  hand there and in ``test_stats_actions.py``) stored as ``tables.Hand`` rows of two
  tables, one hour apart, with the players alice (A), bob (B), carol (C) and, heads-up
  at a second table, dave (D) and erin (E);
* **played**: hands dealt and played through the table service (a seeded deck), with
  the players' buy-ins and cash-outs in the accounts ledger.
"""

from __future__ import annotations

import contextlib
import csv
import io
import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from accounts.models import Player, Role
from research import sessions
from research.models import Session
from tables import services
from tables.errors import TableError
from tables.models import Hand, HandPlayer, Seat
from tests.botkit.test_stats import HAND_1, HAND_2, HAND_3, HAND_4, HAND_5, HAND_6
from tests.conftest import _make_user
from tests.tables.helpers import act, random_action, sit, turn

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
NL = {"structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 3, "max_buy_in": 1000}
# (events, seat -> net) of each hand-made hand at the first table; seats 0, 1, 2 = A, B, C.
HANDS = [
    (HAND_1, {0: -1, 1: -42, 2: 43}),
    (HAND_2, {0: 4, 1: -2, 2: -2}),
    (HAND_3, {0: -2, 1: -18, 2: 20}),
    (HAND_4, {0: 128, 1: -128, 2: 0}),
    (HAND_6, {0: -400, 1: -1, 2: 401}),
]


@pytest.fixture(autouse=True)
def _no_worker(settings: Any) -> None:
    settings.TABLES = {**settings.TABLES, "WORKER_IN_PROCESS": False}


def store_hand(table: Any, number: int, events: list[dict[str, Any]], players: list[Player],
               nets: dict[int, int], started: datetime) -> Hand:
    """A finished hand row as the table service stores one (no record: no PHH export)."""
    order = next((e["seats"] for e in events if e.get("type") == "HandStarted"),
                 list(range(len(players))))
    hand = Hand.objects.create(table=table, number=number, started_at=started,
                               ended_at=started + timedelta(minutes=1), seats=order,
                               participants=[str(players[s].pk) for s in order], events=events)
    for position, seat in enumerate(order):
        HandPlayer.objects.create(hand=hand, player=players[seat], name=players[seat].name,
                                  seat=seat, position=position, net=nets[seat])
    return hand


def make_people() -> dict[str, Any]:
    """Players alice, carol, dave, erin; testers bob and tess; the superuser root."""
    return {name: _make_user(name, role) for name, role in (
        ("alice", Role.PLAYER), ("bob", Role.TESTER), ("carol", Role.PLAYER),
        ("dave", Role.PLAYER), ("erin", Role.PLAYER), ("root", Role.SUPERUSER),
        ("tess", Role.TESTER))}


@pytest.fixture
def people(db: None) -> dict[str, Any]:
    return make_people()


def make_hand_made(people: dict[str, Any]) -> dict[str, Any]:
    """Hands 1-4 and 6 at "Hand-made" (12:00, 13:00, ... on 2026-11-20), hand 5 at
    "Heads-up" (17:00)."""
    creator = people["alice"]
    first = services.create_table(creator=creator, name="Hand-made", settings=NL)
    second = services.create_table(creator=creator, name="Heads-up",
                                   settings={**NL, "seats": 2})
    abc = [Player.objects.get(name=n) for n in ("alice", "bob", "carol")]
    de = [Player.objects.get(name=n) for n in ("dave", "erin")]
    for number, (events, nets) in enumerate(HANDS, start=1):
        store_hand(first, number, events, abc, nets, T0 + timedelta(hours=number - 1))
    store_hand(second, 1, HAND_5, de, {0: 4, 1: -4}, T0 + timedelta(hours=5))
    return {"first": first, "second": second, "users": people}


@pytest.fixture
def hand_made(people: dict[str, Any]) -> dict[str, Any]:
    return make_hand_made(people)


def new_session(user: Any, **data: Any) -> Session:
    return sessions.save_session(user=user, data={"name": "s", **data})


def by_name(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["name"]: row for row in data["players"]}


# ------------------------------------------------------------ hand-made hands


def test_session_of_a_table_has_the_hand_made_numbers(hand_made: dict[str, Any]) -> None:
    bob = hand_made["users"]["bob"]
    session = new_session(bob, tables=[hand_made["first"].pk])
    assert list(sessions.session_hands(session).values_list("number", flat=True)) == \
        [1, 2, 3, 4, 5]
    data = sessions.compute(sessions.session_hands(session))
    rows = by_name(data)
    assert data["hands"] == 5 and list(rows) == ["carol", "bob", "alice"]  # best net first
    assert {n: r["net"] for n, r in rows.items()} == {"alice": -271, "bob": -191, "carol": 462}
    a, b, c = rows["alice"]["stats"], rows["bob"]["stats"], rows["carol"]["stats"]
    assert (a["vpip"], a["pfr"], a["wtsd"], a["wsd"]) == (3 / 5, 2 / 5, 2 / 3, 1 / 2)
    assert (b["vpip"], b["af"], b["wtsd"]) == (4 / 5, 2 / 4, 2 / 4)
    assert c["wsd"] == 1.0 and c["af"] is None
    assert a["bb_per_100"] == pytest.approx(100 * -271 / 2 / 5)
    # The new counters (tests/botkit/test_stats_actions.py, worked out by hand).
    assert (b["fold_to_flop_bet"], b["fold_to_turn_bet"], b["fold_to_river_bet"]) == \
        (2 / 4, 0.0, 0.0)
    assert (b["three_bet"], b["fold_to_three_bet"], b["cbet"]) == (1 / 3, 0.0, 1.0)
    assert (c["three_bet"], c["cbet"], c["fold_to_three_bet"]) == (1 / 2, 1.0, None)
    assert (a["three_bet"], a["fold_to_three_bet"], a["cbet"]) == (0.0, 0.0, None)
    assert a["positions"]["sb"]["hands"] == 2 and a["positions"]["button"]["vpip"] == 1.0
    # The cumulative winnings after each hand of the session, per player.
    assert data["cumulative"]["hands"] == [1, 2, 3, 4, 5]
    assert data["cumulative"]["series"]["alice"] == [-1, 3, 1, 129, -271]
    assert data["cumulative"]["series"]["carol"] == [43, 41, 61, 61, 462]


def test_time_window_players_and_every_table(hand_made: dict[str, Any]) -> None:
    bob = hand_made["users"]["bob"]
    # Hands 2-4 (13:00, 14:00, 15:00): the end is exclusive.
    window = new_session(bob, start=(T0 + timedelta(hours=1)).isoformat(),
                         end=(T0 + timedelta(hours=4)).isoformat())
    rows = by_name(sessions.compute(sessions.session_hands(window)))
    assert {n: r["net"] for n, r in rows.items()} == {"alice": 130, "bob": -148, "carol": 18}
    # No table chosen: every table; dave's hands only (the heads-up one).
    dave = new_session(bob, players=["DAVE"])
    data = sessions.compute(sessions.session_hands(dave), chosen=[
        Player.objects.get(name="dave").pk])
    assert data["hands"] == 1
    assert {r["name"]: (r["net"], r["chosen"]) for r in data["players"]} == {
        "dave": (4, True), "erin": (-4, False)}
    assert by_name(data)["erin"]["stats"]["fold_to_turn_bet"] == 1.0
    everything = new_session(bob)
    assert sessions.compute(sessions.session_hands(everything))["hands"] == 6
    # A date as the end means the whole day; a window before any hand is empty.
    day = new_session(bob, start="2026-11-19", end="2026-11-19")
    assert sessions.session_hands(day).count() == 0
    whole_day = new_session(bob, start="2026-11-20", end="2026-11-20")
    assert sessions.session_hands(whole_day).count() == 6


def test_csv_rows_of_the_hand_made_hands(hand_made: dict[str, Any]) -> None:
    session = new_session(hand_made["users"]["bob"], tables=[hand_made["first"].pk])
    text = sessions.csv_text(sessions.csv_chunks(sessions.session_hands(session)))
    rows = list(csv.DictReader(io.StringIO(text)))
    assert tuple(rows[0]) == sessions.CSV_COLUMNS
    assert len(rows) == 15
    totals: dict[str, int] = {}
    for row in rows:
        totals[row["player"]] = totals.get(row["player"], 0) + int(row["net"])
    assert totals == {"alice": -271, "bob": -191, "carol": 462}
    first = {r["player"]: r for r in rows if r["hand_number"] == "1"}
    assert {n: r["position"] for n, r in first.items()} == {
        "alice": "sb", "bob": "bb", "carol": "button"}
    assert (first["carol"]["vpip"], first["carol"]["pfr"], first["carol"]["cbet"]) == \
        ("1", "1", "1")
    assert (first["alice"]["vpip"], first["alice"]["won"]) == ("0", "0")
    assert first["carol"]["net_bb"] == "21.5" and first["carol"]["won"] == "1"
    assert first["bob"]["showdown"] == "1" and first["bob"]["won_at_showdown"] == "0"
    third = {r["player"]: r for r in rows if r["hand_number"] == "3"}
    assert third["carol"]["three_bet"] == "1" and third["bob"]["three_bet"] == "0"
    assert all(r["table"] == "Hand-made" and r["started_at"].startswith("2026-11-20")
               for r in rows)


def test_csv_is_streamed_in_chunks(hand_made: dict[str, Any],
                                   django_assert_max_num_queries: Any) -> None:
    session = new_session(hand_made["users"]["bob"])
    hands = sessions.session_hands(session)
    chunks = sessions.csv_chunks(hands)
    assert next(chunks).startswith("hand_id,")  # the header before any hand is read
    with django_assert_max_num_queries(6):  # one chunk of hands and its players
        rest = list(chunks)
    assert len(rest) == 17


def test_player_stats_filtered_by_period_and_table(hand_made: dict[str, Any]) -> None:
    from research.selectors import player_stats

    data = player_stats("alice", table=hand_made["first"].pk,
                        since=T0 + timedelta(hours=3))
    assert data is not None and data["filters"]["table"] == hand_made["first"].pk
    assert (data["stats"]["hands"], data["stats"]["net"]) == (2, -272)
    assert data["cumulative"]["net"] == [128, -272]
    assert player_stats("alice", until=T0)["stats"]["hands"] == 0  # type: ignore[index]
    assert player_stats("dave", table=hand_made["first"].pk)["stats"]["net"] == 0  # type: ignore[index]


def test_player_stats_page_filters(hand_made: dict[str, Any], client: Any) -> None:
    client.force_login(hand_made["users"]["bob"])
    alice = Player.objects.get(name="alice")
    url = f"/players/{alice.pk}/stats/"
    page = client.get(url, {"table": hand_made["first"].pk, "since": "2026-11-20",
                            "until": "2026-11-20"})
    assert page.status_code == 200
    text = page.content.decode()
    assert 'id="st-hands">5<' in text and 'id="st-net">-271<' in text
    assert "Computed from the hands" in text and 'id="st-3bet">0%<' in text
    assert client.get(url, {"since": "yesterday"}).status_code == 400
    assert client.get(url, {"table": "999999"}).status_code == 400
    bad = client.get(url, {"since": "2026-11-21", "until": "2026-11-20"})
    assert bad.status_code == 400 and "before" in bad.content.decode()
    assert "Lifetime statistics" in client.get(url).content.decode()


# ------------------------------------------------------------- played hands


def play(table: Any, users: dict[int, Any], hands: int, seed: int) -> None:
    rng = random.Random(seed)
    start = Hand.objects.filter(table=table, ended_at__isnull=False).count()
    for _ in range(hands * 40):
        if Hand.objects.filter(table=table, ended_at__isnull=False).count() >= start + hands:
            return
        seat, _hand, _version, legal = turn(table.pk)
        if seat is None:
            return
        act(table.pk, users[seat], random_action(legal, rng))


def leave_all(table: Any, users: list[Any]) -> None:
    from django.utils import timezone

    now = timezone.now()
    for _ in range(50):
        if not Seat.objects.filter(table=table).exists():
            return
        for user in users:
            with contextlib.suppress(TableError):  # not seated (any more)
                services.execute(table_id=table.pk, user=user, now=now,
                                 command={"type": "leave"})
        now += timedelta(seconds=60)
        services.fire_due_timers(now)


@pytest.fixture
def played(people: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    return make_played(people, monkeypatch)


def make_played(people: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Ten hands of alice, bob and carol at "Played" (a seeded deck), still seated."""
    import tables.runtime

    rng = random.Random(5)
    monkeypatch.setattr(tables.runtime, "chance_rng", lambda: rng)
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    table = services.create_table(creator=alice, name="Played", settings=NL)
    for seat, user in enumerate((alice, bob, carol)):
        sit(table, user, seat, buy_in=300)
    play(table, {0: alice, 1: bob, 2: carol}, 10, seed=9)
    return {"table": table, "users": people, "seated": [alice, bob, carol]}


def test_nets_agree_with_the_ledger(played: dict[str, Any]) -> None:
    table, bob = played["table"], played["users"]["bob"]
    alice, bob_user, carol = played["seated"]
    session = new_session(bob, tables=[table.pk])
    # alice and bob leave (at the end of the running hand); carol stays alone, no hand
    # runs: her buy-in plus the chips in front of her equal her net.
    leave_all(table, [alice, bob_user])
    assert list(Seat.objects.filter(table=table).values_list("player__name", flat=True)) == \
        ["carol"]
    assert not Hand.objects.filter(table=table, ended_at__isnull=True).exists()
    data = sessions.session_stats(session)
    assert data["hands"] >= 10 and data["ledger_checked"]
    assert sum(r["net"] for r in data["players"]) == 0
    for row in data["players"]:
        assert row["ledger"] == row["net"], row
    leave_all(table, [carol])  # she cashes out too
    assert not Seat.objects.filter(table=table).exists()
    data = sessions.session_stats(session)
    for row in data["players"]:
        player = Player.objects.get(pk=row["id"])
        assert row["ledger"] == row["net"] == player.balance, row  # balances started at 0
        assert row["hands"] == HandPlayer.objects.filter(player=player).count()
    # The ledger is read only for whole tables: a time window makes it unknown.
    windowed = new_session(bob, tables=[table.pk], start="2000-01-01")
    assert sessions.session_stats(windowed)["ledger_checked"] is False
    # Chosen players: the ledger of those players only.
    chosen = new_session(bob, tables=[table.pk], players=["carol"])
    rows = by_name(sessions.session_stats(chosen))
    assert rows["carol"]["ledger"] == rows["carol"]["net"] and rows["alice"]["ledger"] is None


def test_phh_export_parses_back_and_replays_to_the_stored_nets(played: dict[str, Any]) -> None:
    from engine.phh import loads_all, replay

    table, users = played["table"], played["users"]
    session = new_session(users["bob"], tables=[table.pk])
    hands = list(sessions.session_hands(session))
    for viewer in (users["root"], users["tess"]):
        text = sessions.csv_text(sessions.phh_chunks(sessions.session_hands(session), viewer))
        parsed = loads_all(text)
        assert [name for name, _ in parsed] == [str(h.pk) for h in hands]
        for (_name, history), hand in zip(parsed, hands, strict=True):
            assert not isinstance(history, Exception), history
            nets = {p.name: p.net for p in hand.players.all()}
            names = history.fields["players"]
            if viewer is users["root"]:  # sees every card: the hand replays exactly
                done = replay(history)
                got = [int(end) - int(start) for start, end in  # type: ignore[arg-type]
                       zip(history.starting_stacks, done.finishing_stacks, strict=True)]
                assert dict(zip(names, got, strict=True)) == nets
            finishing = [int(x) for x in history.finishing_stacks or []]
            assert {n: f - s for n, s, f in zip(names, history.starting_stacks, finishing,
                                                strict=True)} == nets
        # root sees every card; another tester sees no hole card that was not shown.
        assert ("????" in text) == (viewer is users["tess"])
    total = sum(len(h.players.all()) for h in hands)
    rows = list(csv.DictReader(io.StringIO(
        sessions.csv_text(sessions.csv_chunks(sessions.session_hands(session))))))
    assert len(rows) == total


# ------------------------------------------------------------ the records


def test_save_session_refusals(hand_made: dict[str, Any]) -> None:
    bob = hand_made["users"]["bob"]
    cases = [
        ({"name": ""}, "invalid_name"),
        ({"name": "x" * 121}, "invalid_name"),
        ({"name": "a\x00b"}, "invalid_text"),
        ({"name": "ok", "tables": [999999]}, "unknown_table"),
        ({"name": "ok", "tables": [{"id": 1}]}, "unknown_table"),
        ({"name": "ok", "tables": list(range(1, 200))}, "too_many_tables"),
        ({"name": "ok", "players": ["nobody-here"]}, "unknown_player"),
        ({"name": "ok", "players": ["alice"] * 101}, "too_many_players"),
        ({"name": "ok", "start": "soon"}, "bad_time"),
        ({"name": "ok", "start": "2026-02-30"}, "bad_time"),
        ({"name": "ok", "start": 12}, "bad_time"),
        ({"name": "ok", "start": "2026-11-21", "end": "2026-11-20"}, "bad_time_window"),
        ({"name": "ok", "notes": "x" * 6000}, "invalid_notes"),
    ]
    for data, code in cases:
        with pytest.raises(sessions.SessionError) as refused:
            sessions.save_session(user=bob, data=data)
        assert refused.value.code == code, data
    assert not Session.objects.exists()
    session = sessions.save_session(user=bob, data={
        "name": " Evening ", "tables": ["Hand-made", str(hand_made["second"].pk)],
        "players": ["Alice", Player.objects.get(name="dave").pk], "start": "2026-11-20T12:00",
        "notes": "two tables\nthree players"})
    assert session.name == "Evening"
    assert set(session.tables.values_list("name", flat=True)) == {"Hand-made", "Heads-up"}
    assert set(session.players.values_list("name", flat=True)) == {"alice", "dave"}
    assert sessions.session_hands(session).count() == 6
    changed = sessions.save_session(user=bob, data={"end": "2026-11-20T13:30"},
                                    session=session)
    assert changed.name == "Evening" and sessions.session_hands(changed).count() == 2
    with pytest.raises(sessions.SessionError):  # the stored start is after this end
        sessions.save_session(user=bob, data={"end": "2026-11-19"}, session=session)


def test_who_sees_which_session(hand_made: dict[str, Any]) -> None:
    users = hand_made["users"]
    mine = new_session(users["bob"])
    theirs = new_session(users["tess"])
    assert list(sessions.sessions_of(users["bob"])) == [mine]
    assert set(sessions.sessions_of(users["root"])) == {mine, theirs}
    assert not sessions.sessions_of(users["alice"]).exists()


def test_admin_lists_sessions(hand_made: dict[str, Any], client: Any) -> None:
    from django.urls import reverse

    session = new_session(hand_made["users"]["bob"], tables=[hand_made["first"].pk])
    client.force_login(hand_made["users"]["root"])
    assert client.get(reverse("admin:research_session_changelist")).status_code == 200
    page = client.get(reverse("admin:research_session_change", args=[session.pk]))
    assert page.status_code == 200 and "Hand-made" in page.content.decode()


def test_small_chunks_give_the_same_answers(hand_made: dict[str, Any],
                                            monkeypatch: pytest.MonkeyPatch,
                                            django_assert_max_num_queries: Any) -> None:
    """Hands are read a chunk at a time (``CHUNK``): two per chunk gives the same
    statistics, CSV and PHH as one chunk, in more, smaller queries."""
    session = new_session(hand_made["users"]["bob"])
    whole = sessions.compute(sessions.session_hands(session))
    text = sessions.csv_text(sessions.csv_chunks(sessions.session_hands(session)))
    monkeypatch.setattr(sessions, "CHUNK", 2)
    with django_assert_max_num_queries(20) as queries:
        assert sessions.compute(sessions.session_hands(session)) == whole
    assert len(queries.captured_queries) >= 4  # count, then three chunks of hands (6 hands)
    assert sessions.csv_text(sessions.csv_chunks(sessions.session_hands(session))) == text
