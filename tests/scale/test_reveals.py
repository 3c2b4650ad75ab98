"""The load generator's privacy check, without servers: hole cards a spectator saw
in a snapshot but not in a ``CardsShown`` event (bench/load_clients.py) go to
``manage.py loadtest_check --reveals``, which confirms them against the stored
hand or the engine state; anything the database does not confirm is a leak."""

from __future__ import annotations

import importlib
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from engine.cards import format_cards
from engine.registry import get_game
from tables import services
from tables.management.commands.loadtest_check import judge_reveals, shown_cards
from tables.models import HandPlayer
from tests.tables.helpers import turn

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
load_clients = importlib.import_module("load_clients")


def reveal(table: int, hand: int, seat: int, cards: str) -> dict[str, Any]:
    return {"table": table, "hand": hand, "seat": seat, "cards": cards, "version": 9}


def test_a_reveal_is_confirmed_only_by_the_same_cards_shown() -> None:
    shown = {(1, 5, 0): "AsKd"}
    result = judge_reveals([reveal(1, 5, 0, "AsKd"), reveal(1, 5, 1, "QhQd"),
                            reveal(1, 5, 0, "2c2d"), reveal(1, 6, 0, "AsKd")], shown)
    assert (result["checked"], result["confirmed"]) == (4, 1)
    assert result["leaks"] == [
        "table 1 v9: snapshot showed seat 1's cards QhQd in hand 5; database: never shown",
        "table 1 v9: snapshot showed seat 0's cards 2c2d in hand 5; database: shown as AsKd",
        "table 1 v9: snapshot showed seat 0's cards AsKd in hand 6; database: never shown",
    ]


def _snapshot(version: int, hand: int, cards: list[str]) -> dict[str, Any]:
    players = [{"player": seat, "cards": c, "stack": 100} for seat, c in enumerate(cards)]
    return {"type": "snapshot", "version": version, "state": {
        "hand_number": hand, "seats": [{"seat": s, "stack": 100} for s in range(len(cards))],
        "hand": {"players": players, "pots": [], "is_over": True}}}


def test_the_spectator_sends_what_its_events_do_not_explain_to_the_database() -> None:
    stats, window = load_clients.Stats(), load_clients.Window()
    table = load_clients.TableClients({"id": 7, "bots": [{}, {}]}, stats, window)
    net = load_clients.Net([1], "spread", None, [0.0, 0.0, 0.0, 0.0], 5)
    spectator = load_clients.Spectator(table, {}, net, stats, window, [0])
    spectator.handle({"type": "events", "version": 1, "events": [
        {"type": "HandStarted", "number": 3},
        {"type": "HoleCardsDealt", "player": 0, "cards": "????"},
        {"type": "CardsShown", "player": 0, "cards": "AsKd"}]}, 0.0)
    spectator.handle(_snapshot(2, 3, ["AsKd", "QhQd"]), 0.0)  # seat 1: its event was missed
    spectator.handle(_snapshot(3, 3, ["AsKd", "QhQd"]), 0.0)  # the same reveal again
    spectator.handle(_snapshot(4, 4, ["AsKd", "????"]), 0.0)  # hand 4: never seen shown
    assert stats.leaks == [] and stats.reveals == []
    spectator.finish()
    assert stats.reveals == [reveal(7, 3, 1, "QhQd") | {"version": 2},
                             reveal(7, 4, 0, "AsKd") | {"version": 4}]
    # Events the spectator did see are still checked at once.
    spectator.handle({"type": "events", "version": 5, "events": [
        {"type": "HoleCardsDealt", "player": 1, "cards": "7c7d"}]}, 0.0)
    assert len(stats.leaks) == 1 and "7c7d" in stats.leaks[0]


def test_each_table_keeps_its_own_pace_when_turns_come_late() -> None:
    """``--pacing grid``: a table acts on its own schedule from a random phase; a late
    turn is answered at once and the schedule stays, so two tables whose late turns
    came in the same moment (one group commit) still act a phase apart afterwards.
    ``reset`` (the generator before) starts both schedules from that moment."""
    import random

    stats, window = load_clients.Stats(), load_clients.Window()
    rng = random.Random(5)

    def slots(pacing: str) -> list[list[float]]:
        tables = [load_clients.TableClients({"id": n, "bots": [{}, {}]}, stats, window)
                  for n in (1, 2)]
        first = [t.next_slot(100.0, 1.0, pacing, rng) for t in tables]
        # Both tables' turns come 1.5 s late, together; then on time for a while.
        late = [t.next_slot(max(first) + 2.5, 1.0, pacing, rng) for t in tables]
        after = [[t.next_slot(v + 0.01, 1.0, pacing, rng) for t, v in zip(tables, late,
                                                                          strict=True)]]
        for _ in range(3):
            after.append([t.next_slot(v - 0.5, 1.0, pacing, rng)
                          for t, v in zip(tables, after[-1], strict=True)])
        return [first, late, *after]

    grid = slots("grid")
    assert all(100.0 <= s < 101.0 for s in grid[0])  # a random phase each
    phases = [round(s % 1.0, 6) for s in grid[0]]
    assert grid[0][0] != grid[0][1]
    assert grid[1] == [max(grid[0]) + 2.5] * 2  # late: at once (a slot skipped)
    for row in grid[2:]:  # then on each table's own grid again: a phase apart
        assert [round(s % 1.0, 6) for s in row] == phases
        assert all(b - a == pytest.approx(1.0) for a, b in zip(grid[2], grid[3], strict=True))
    reset = slots("reset")
    assert reset[2][0] == reset[2][1]  # together ever after
    assert reset[-1][0] == reset[-1][1]


@pytest.mark.django_db
def test_the_database_knows_what_was_shown_in_finished_and_running_hands(
        alice: Any, bob: Any, tmp_path: Path) -> None:
    from accounts.services import create_bot

    table = services.create_table(creator=alice, name="rv-t00000", settings={
        "structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 2})
    bots = [create_bot(owner=bob, name=f"Reveal{i}")[0] for i in range(2)]
    for seat, bot in enumerate(bots):
        services.execute(table_id=table.pk, user=bob, bot=bot,
                         command={"type": "sit", "seat": seat, "buy_in": 200})
    finished = HandPlayer.objects.filter(hand__table=table)
    first_hand = turn(table.pk)[1]
    # Hand 1 is folded (nothing shown); later hands are checked down: the first
    # show-or-muck decision is answered "show", the next one is left pending.
    for _ in range(1000):
        seat, hand, version, legal = turn(table.pk)
        assert seat is not None
        decision = legal["can_muck"] and not legal["can_fold"]
        if hand == first_hand:
            kind = "muck" if decision else "fold"
        elif decision and any(p.detail.get("shown") for p in finished.all()):  # fresh query
            break
        elif decision:
            kind = "show"
        else:
            kind = "check" if legal["can_check"] else "call"
        services.execute(table_id=table.pk, user=bob, bot=bots[seat], command={
            "type": "act", "hand": hand, "version": version, "action": {"kind": kind}})
    else:
        raise AssertionError("no showdown decision in 1000 actions")

    table.refresh_from_db()
    state = get_game(table.game).load(table.state)
    running = [(seat, format_cards(state.hand.hole_cards[position]),
                state.hand.shown[position]) for position, seat in enumerate(state.positions)]
    assert sorted(shown for _, _, shown in running) == [False, True]
    assert not any(p.detail.get("shown") for p in finished.filter(hand__number=1))
    reveals = [reveal(table.pk, p.hand.number, p.seat, p.secret["cards"]) for p in finished]
    reveals += [reveal(table.pk, state.hand_number, seat, cards) for seat, cards, _ in running]
    expected = sum(1 for p in finished if p.detail.get("shown")) + 1
    seat, cards = next((s, c) for s, c, shown in running if shown)
    wrong = "2c2d" if cards != "2c2d" else "3c3d"
    reveals.append(reveal(table.pk, state.hand_number, seat, wrong))
    result = judge_reveals(reveals, shown_cards("rv", reveals))
    assert result["confirmed"] == expected
    assert len(result["leaks"]) == len(reveals) - expected
    assert shown_cards("other", reveals) == {}  # only the prefix's tables count
    # As bench/load.py asks for it: a JSON file in, the verdict in the JSON out.
    (tmp_path / "reveals.json").write_text(json.dumps(reveals))
    out = io.StringIO()
    call_command("loadtest_check", "--prefix", "rv", "--reveals", str(tmp_path / "reveals.json"),
                 stdout=out)
    assert json.loads(out.getvalue())["reveals"] == result


@pytest.mark.django_db
def test_cards_shown_in_a_running_hands_steps_are_known(alice: Any) -> None:
    """A live table's running hand keeps what its logs gained in steps
    (tables.handlog): the check reads them too."""
    from django.utils import timezone

    from tables.models import Hand, HandStep

    table = services.create_table(creator=alice, name="rs-t00000", settings={
        "structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 2})
    hand = Hand.objects.create(table=table, number=4, started_at=timezone.now(),
                               seats=[0, 1], events=[{"type": "HandStarted"}])
    HandStep.objects.create(hand=hand, part={"at": {"events": 1}, "events": [
        {"type": "CardsShown", "player": 1, "cards": "QhQd"}]})
    reveals = [reveal(table.pk, 4, 1, "QhQd")]
    assert judge_reveals(reveals, shown_cards("rs", reveals))["leaks"] == []


def test_a_stuck_tables_silence_lasts_until_its_first_event_after_it() -> None:
    """The report's "silent from S s for D s": D ends at the first event after the
    silence began, not at the table's last event of the run (a table that went on
    after a takeover was reported silent until the end of the window)."""
    stats, window = load_clients.Stats(), load_clients.Window()
    window.start = 0.0  # (inside the window: its clock is the epoch)
    table = load_clients.TableClients({"id": 7, "bots": [{}, {}]}, stats, window)
    table.arrived(5, 100.0)
    load_clients._note_silence(stats, table, window, now=120.0, opened=90.0)
    assert table.silence(130.0) == (30.0, False)  # still silent
    table.arrived(6, 118.0 + 100.0)  # 118 s after it began, then play goes on
    table.arrived(7, 300.0)
    assert table.silence(400.0) == (118.0, True)
