"""The conformance suite in process (botkit.conformance_scenarios, no server): every
house bot passes; broken bots fail with a report naming the check and their answer.
Also the CLI's ``--local`` mode and exit codes, and ``POST /api/v1/conformance/``."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from botkit.cli import main as pokerbot
from botkit.conformance_scenarios import CHECKS, LoopbackWire, format_report, run_suite
from botkit.house import house_bots, make_bot
from tests.conformance import bots


def rows(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["check"]: row for row in report["checks"]}


@pytest.mark.parametrize("style", house_bots("holdem"))
def test_every_house_bot_passes(style: str) -> None:
    for seed in range(3):
        report = run_suite(LoopbackWire.for_bot(make_bot(style, random.Random(seed))),
                           name=style)
        assert report["passed"], format_report(report)
        by_check = rows(report)
        assert set(by_check) == {c.name for c in CHECKS} | {"legal_throughout",
                                                             "one_answer_per_turn"}
        # in process there is no socket to drop: checked over a server (test_e2e)
        assert by_check["reconnect"]["status"] == "n/a"
        # a beaten showdown needs the bot to check the river down: random and ehs often
        # bet or fold first (legal: then the check is n/a, never a failure)
        optional = {"reconnect"} if style in ("calling_station", "rule_based") else {
            "reconnect", "show_or_muck_showdown"}
        assert all(r["status"] == "pass" for name, r in by_check.items()
                   if name not in optional), format_report(report)
        assert all(r["status"] in ("pass", "n/a") for r in by_check.values())


def test_every_house_bot_passes_when_called_directly() -> None:
    """Without the SDK runner between (the house bot answers the wire itself)."""

    class Direct:
        def __init__(self, style: str) -> None:
            self.bot = make_bot(style, random.Random(5))
            self.answered: set[str] = set()

        def handle(self, socket: Any, message: dict[str, Any]) -> None:
            if message["type"] == "match_turn" and message["request_id"] not in self.answered:
                self.answered.add(message["request_id"])
                socket.send({"type": "match_action", "request_id": message["request_id"],
                             "action": self.bot.act(message["view"])})

    for style in house_bots("holdem"):
        report = run_suite(LoopbackWire(Direct(style)), name=style)
        assert report["passed"], format_report(report)


def test_a_raise_below_the_minimum_fails_with_the_answer() -> None:
    report = run_suite(LoopbackWire.for_bot(bots.BelowMinRaiser()), name="below")
    row = rows(report)["raise_edges"]
    assert row["status"] == "fail"
    assert row["answer"] == '{"kind": "raise", "amount": 11}'
    assert row["expected"] == "fold | call 5 | raise to 12..150"
    assert row["detail"] == "illegal: raise to 11 is below the minimum 12"
    assert "raise_edges" in report["failed"] and not report["passed"]
    assert rows(report)["legal_throughout"]["status"] == "fail"
    text = format_report(report)
    assert "raise_edges" in text and "FAIL" in text and "below the minimum 12" in text


def test_a_raise_above_the_maximum_fails() -> None:
    report = run_suite(LoopbackWire.for_bot(bots.AboveMaxRaiser()), name="above")
    row = rows(report)["raise_edges"]
    assert row["status"] == "fail" and row["answer"] == '{"kind": "raise", "amount": 200}'
    assert row["detail"] == "illegal: raise to 200 is above the maximum 150"
    pot_limit = rows(report)["pl_raise_edges"]
    assert pot_limit["status"] == "fail"
    assert pot_limit["expected"] == "fold | call 4 | raise to 10..18"
    assert pot_limit["detail"] == "illegal: raise to 200 is above the maximum 18"
    # at a full table stack the same answer is legal: those checks pass
    assert rows(report)["fold_call_raise"]["status"] == "pass"


def test_calling_when_it_can_check_fails() -> None:
    report = run_suite(LoopbackWire.for_bot(bots.CallsForFree()), name="caller")
    by_check = rows(report)
    assert by_check["check_or_raise"]["status"] == "fail"
    assert by_check["check_or_raise"]["answer"] == '{"kind": "call"}'
    assert "'call' is not a legal move now" in by_check["check_or_raise"]["detail"]
    assert by_check["call_only"]["status"] == "pass"


def test_a_fixed_limit_raise_of_the_wrong_size_fails() -> None:
    report = run_suite(LoopbackWire.for_bot(bots.DoubleLimitRaiser()), name="fl")
    row = rows(report)["fl_fixed_raise"]
    assert row["status"] == "fail" and row["expected"] == "fold | call 1 | raise to 4"
    assert row["detail"] == "illegal: raise to 8 is above the maximum 4"
    assert report["failed"][0] == "fl_fixed_raise"


def test_a_slow_answer_fails_its_check() -> None:
    report = run_suite(LoopbackWire.for_bot(bots.SlowShower()), name="slow",
                       turn_seconds=0.2, only=["show_or_muck", "fold_call_raise"])
    by_check = rows(report)
    assert by_check["show_or_muck"]["status"] == "fail"
    assert by_check["show_or_muck"]["detail"].startswith("answered after 0.3")
    assert by_check["fold_call_raise"]["status"] == "pass"


def test_a_bot_that_crashes_on_a_duplicate_turn_fails() -> None:
    report = run_suite(LoopbackWire(bots.RawHandler("crash")), name="crash")
    by_check = rows(report)
    duplicate = by_check["duplicate_turn"]
    assert duplicate["status"] == "fail"
    assert "went away" in duplicate["detail"] and duplicate["answer"] == '{"kind": "call"}'
    assert by_check["stale_turn"]["status"] == "fail"
    assert "the bot crashed: KeyError" in by_check["stale_turn"]["detail"]
    assert by_check["show_or_muck"]["status"] == "pass"  # before the duplicate


def test_a_bot_that_answers_a_turn_twice_fails() -> None:
    report = run_suite(LoopbackWire(bots.RawHandler("twice")), name="twice")
    by_check = rows(report)
    assert by_check["duplicate_turn"]["status"] == "fail"
    assert "answered 2 times" in by_check["duplicate_turn"]["detail"]
    assert by_check["stale_turn"]["status"] == "fail"
    assert "answered the stale turn" in by_check["stale_turn"]["detail"]
    assert by_check["one_answer_per_turn"]["status"] == "fail"
    assert by_check["timeout"]["status"] == "pass"


def test_the_command_line_local_mode(capsys: pytest.CaptureFixture[str]) -> None:
    assert pokerbot(["conformance", "--local", "--bot", "house:rule_based"]) == 0
    assert "house:rule_based: PASSED" in capsys.readouterr().out
    assert pokerbot(["conformance", "--local", "--json", "--bot",
                     "tests.conformance.bots:BelowMinRaiser"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert "raise_edges" in report["failed"]
    assert pokerbot(["conformance", "--local", "--bot", "nosuchmodule:Bot"]) == 2
    assert pokerbot(["conformance", "--bot", "house:random", "--server",
                     "http://127.0.0.1:9", "--token", "x"]) == 2


@pytest.mark.django_db
def test_the_api_creates_a_conformance_run(bob: Any, alice: Any) -> None:
    from accounts.services import create_bot
    from tests.api.conftest import client_for

    _, token = create_bot(owner=bob, name="Skynet")
    response = client_for(token=token).post("/api/v1/conformance/", {"turn_seconds": 2},
                                            format="json")
    assert response.status_code == 202, response.content
    data = response.json()
    assert data["status"] == "queued" and data["settings"]["conformance"] is True
    assert data["participants"] == [{"name": "Skynet", "kind": "remote",
                                     "player_id": data["participants"][0]["player_id"]}]
    assert data["settings"]["turn_seconds"] == 2
    refused = client_for(bob).post("/api/v1/conformance/", {}, format="json")
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "bad_conformance"
    unknown = client_for(bob).post("/api/v1/conformance/", {"bot": "Nobody"}, format="json")
    assert unknown.status_code == 400 and "No bot called" in unknown.json()["error"]["message"]
    slow = client_for(token=token).post("/api/v1/conformance/", {"turn_seconds": 0.1},
                                        format="json")
    assert slow.status_code == 400 and "turn_seconds" in slow.json()["error"]["message"]
    assert client_for(alice).post("/api/v1/conformance/", {"bot": "Skynet"},
                                  format="json").status_code == 403


def test_raising_when_only_calling_is_offered_fails() -> None:
    report = run_suite(LoopbackWire.for_bot(bots.RaisesRegardless()), name="raiser")
    by_check = rows(report)
    for check in ("call_only", "all_in_for_less", "side_pots_flop"):
        assert by_check[check]["status"] == "fail", by_check[check]
        assert by_check[check]["detail"].startswith("illegal: 'raise' is not a legal move now.")
    assert by_check["call_only"]["answer"] == '{"kind": "raise", "amount": 100}'
    # it raised to 4 before the flop: 56 left to call, two pots
    assert by_check["side_pots_flop"]["expected"] == "fold | call 56"
    assert "pots 64 (3 players) + 30 (2 players)" in by_check["side_pots_flop"]["detail"]


def test_a_situation_that_legal_play_never_reaches_is_not_a_failure() -> None:
    report = run_suite(LoopbackWire.for_bot(bots.Folder()), name="folder")
    by_check = rows(report)
    assert report["passed"], format_report(report)
    for check in ("check_or_bet", "fl_check_or_bet", "side_pots_flop",
                  "show_or_muck_showdown"):
        row = by_check[check]
        assert row["status"] == "n/a" and row["answer"].startswith('{"kind": "fold"}'), row
        assert row["detail"].startswith("never reached in 12 hands: the bot's own legal")
    assert by_check["check_or_raise"]["status"] == "pass"  # folding is legal, if silly
    assert by_check["show_or_muck"]["status"] == "pass"
    assert by_check["timeout"]["status"] == "pass"  # the server's check took it to the flop


@pytest.mark.django_db
def test_the_match_page_shows_the_report(bob: Any) -> None:
    from django.test import Client

    from accounts.services import create_bot
    from research.models import MatchRun, MatchStatus
    from research.services import validate_match

    create_bot(owner=bob, name="Skynet")
    report = run_suite(LoopbackWire.for_bot(bots.BelowMinRaiser()), name="Skynet")
    run = MatchRun.objects.create(
        created_by=bob, status=MatchStatus.DONE,
        settings=validate_match({"conformance": True, "remote": "Skynet"}),
        results={"conformance": report, "passed": report["passed"]})
    assert run.title == f"Conformance of Skynet: {len(CHECKS)} checks"
    client = Client()
    client.force_login(bob)
    page = client.get(f"/research/matches/{run.pk}/").content.decode()
    assert "Conformance: failed" in page and "Conformance of Skynet" in page
    edges = rows(report)["raise_edges"]
    assert edges["status"] == "fail"
    from django.utils.html import escape

    assert escape(edges["title"]) in page and "FAIL" in page
    assert escape(edges["answer"]) in page and escape(edges["detail"]) in page
