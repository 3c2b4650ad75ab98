"""``pokerbot conformance --acpc-cmd``: the suite plays the ACPC dealer for a bot's command
(botkit.acpc_conformance, no server). A botkit house bot as an ACPC client (``python -m
botkit.acpc play``, which sends no header without ``$ACPC_TOKEN``) passes in NL and FL;
deliberately broken ACPC bots (tests/conformance/acpc_bots.py) fail with the check named
and their answer shown; a command that exits at once ends with exit code 2."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from botkit.acpc_conformance import run_acpc
from botkit.cli import main as pokerbot
from botkit.conformance_scenarios import format_report

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
PLAY = f"{PY} -m botkit.acpc play --server {{host}}:{{port}} --bot rule_based"


@pytest.fixture(autouse=True)
def _plain_dealer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ACPC_TOKEN", raising=False)  # play: no TOKEN header line
    monkeypatch.chdir(ROOT)  # python -m tests.conformance.acpc_bots


def rows(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["check"]: row for row in report["checks"]}


def broken(mode: str, structure: str = "NL", turn_seconds: float = 5.0,
           extra: str = "") -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    report, why = run_acpc(f"{PY} -m tests.conformance.acpc_bots {mode} {{game}} {{host}} "
                           f"{{port}} {extra}", structure=structure, turn_seconds=turn_seconds)
    assert report is not None, why
    assert not report["passed"] or mode == "folder", format_report(report)
    return report, rows(report)


@pytest.mark.parametrize("structure", ["NL", "FL"])
def test_a_house_bot_through_acpc_play_passes(structure: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    cmd = PLAY + (" --structure FL --blinds 5/10" if structure == "FL" else "")
    code = pokerbot(["conformance", "--acpc-cmd", cmd, "--structure", structure, "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0, format_report(report)
    by_check = rows(report)
    scripted = ({"fold_call_raise", "check_or_raise", "check_or_bet", "facing_bet"}
                | ({"raise_cap"} if structure == "FL" else {"raise_edges", "call_only"}))
    assert set(by_check) == scripted | {"showdown_next_hand", "exact_echo", "strict_actions",
                                        "answers_on_turn", "turn_time", "legal_throughout"}
    assert all(r["status"] == "pass" for r in by_check.values()), format_report(report)
    assert report["structure"] == structure and report["hands"] >= 5
    if structure == "NL":
        assert by_check["fold_call_raise"]["expected"] == "f | c | r200..r20000"
        assert by_check["check_or_raise"]["expected"] == "c | r200..r20000"
        assert by_check["raise_edges"]["expected"] == "f | c | r500..r20000"
        assert by_check["call_only"]["expected"] == "f | c"
    else:
        assert by_check["fold_call_raise"]["expected"] == "f | c | r (to 20)"
        assert by_check["raise_cap"]["expected"] == "f | c"
        assert by_check["raise_cap"]["answer"].startswith("MATCHSTATE:0:")
    assert "showdown seen" in by_check["showdown_next_hand"]["detail"]
    for row in by_check.values():  # the answer shown is the line the bot sent
        assert row["answer"].startswith("MATCHSTATE:") or row["answer"].endswith("answers")


def test_the_table_report(capsys: pytest.CaptureFixture[str]) -> None:
    code = pokerbot(["conformance", "--acpc-cmd", PLAY])
    out = capsys.readouterr().out
    assert code == 0 and "PASSED" in out and "(suite acpc-1)" in out
    assert out.splitlines()[0].split() == ["check", "result", "answer", "expected", "detail"]


def test_a_raise_below_the_minimum_fails_precisely() -> None:
    report, by_check = broken("below_min")
    row = by_check["raise_edges"]
    assert row["status"] == "fail"
    assert row["answer"] == "MATCHSTATE:0:2:r300:" + row["answer"].split(":")[4] + ":r499"
    assert row["detail"] == "r499 is below the minimum raise-to 500"
    assert by_check["fold_call_raise"]["detail"] == "r199 is below the minimum raise-to 200"
    assert by_check["legal_throughout"]["status"] == "fail"
    assert by_check["exact_echo"]["status"] == "pass"
    assert by_check["strict_actions"]["status"] == "pass"
    assert "raise_edges" in report["failed"]


def test_a_raise_above_the_stack_fails_precisely() -> None:
    report, by_check = broken("above_max")
    row = by_check["raise_edges"]
    assert row["status"] == "fail" and row["answer"].endswith(":r20100")
    assert row["detail"] == "r20100 is above the maximum raise-to 20000 (the stack)"
    assert "call_only" not in report["failed"]  # nothing to raise: it calls


def test_a_raise_after_the_fixed_limit_cap_fails() -> None:
    report, by_check = broken("after_cap", "FL")
    row = by_check["raise_cap"]
    assert row["status"] == "fail" and row["answer"].endswith(":rrr:AsAh|:r")
    assert row["expected"] == "f | c"
    assert "the raise cap is reached" in row["detail"]
    assert report["failed"] == ["raise_cap", "legal_throughout"]  # raising before it is fine


def test_a_wrong_echo_fails_with_the_line_shown() -> None:
    _, by_check = broken("wrong_echo")
    row = by_check["exact_echo"]
    assert row["status"] == "fail"
    assert row["answer"] == "MATCHSTATE:100:0:c:" + row["answer"].split(":")[4] + ":c"
    assert "the echo is not the state sent (MATCHSTATE:0:0:c:" in row["detail"]
    assert by_check["check_or_raise"]["status"] == "fail"


def test_an_answer_when_not_its_turn_fails() -> None:
    report, by_check = broken("unrequested")
    row = by_check["answers_on_turn"]
    assert row["status"] == "fail"
    assert row["answer"].startswith("MATCHSTATE:0:0::") and row["answer"].endswith(":c")
    assert "un-requested response: the opponent to act" in row["detail"]
    assert int(row["detail"].split()[0]) >= 10  # the hands' ends too, answered with c
    assert report["failed"] == ["answers_on_turn"]


def test_an_unsized_no_limit_raise_fails_strict() -> None:
    _, by_check = broken("no_size")
    row = by_check["strict_actions"]
    assert row["status"] == "fail" and row["answer"].endswith(":r")
    assert "unreadable action 'r'" in row["detail"]


def test_a_slow_answer_fails_the_turn_time() -> None:
    report, by_check = broken("sleeper", turn_seconds=1.0, extra="--sleep 1.5")
    row = by_check["turn_time"]
    assert row["status"] == "fail" and row["answer"] == "-"
    assert "no answer within 1 s" in row["detail"] and "1 late answer" in row["detail"]
    assert report["failed"] == ["check_or_raise", "turn_time", "legal_throughout"]


def test_a_fold_with_nothing_to_call_passes_with_a_note() -> None:
    report, by_check = broken("folder")
    assert report["passed"], format_report(report)
    assert "f with nothing to call" in by_check["check_or_raise"]["detail"]


def test_a_command_that_exits_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    code = pokerbot(["conformance", "--acpc-cmd", f"{PY} -c 'raise SystemExit(3)'"])
    assert code == 2
    assert "exited (code 3) before it connected" in capsys.readouterr().err
    assert pokerbot(["conformance", "--acpc-cmd", "/nonexistent/bot {port}"]) == 2
