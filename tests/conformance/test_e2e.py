"""``pokerbot conformance`` end to end: a real Daphne in a subprocess (tests/sdk), the
command in another, the bot over the real match websocket.

* ``--bot house:rule_based`` (the SDK's MatchRunner in the command's process) passes
  every check, the reconnect included (the server closes its socket with 1012);
* ``--bot-cmd`` runs a raw websocket bot (tests/conformance/raw_bot.py, no SDK
  runner): it passes; made to exit when a turn comes twice, the report names
  ``duplicate_turn`` and the exit code is 1;
* a command that exits before joining, and a bad token: no report, exit code 2.
"""

from __future__ import annotations

import json
import subprocess
import time

from tests.sdk.conftest import PYTHON, ROOT, Server


def conformance(server: Server, token: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHON, "-m", "botkit.cli", "conformance", "--server",
         f"http://127.0.0.1:{server.port}", "--token", token, *args],
        cwd=ROOT, env=server.env, capture_output=True, text=True, timeout=120)


def test_conformance_over_the_websocket(server: Server) -> None:
    """One server for both runs (starting one costs more than a run)."""
    tokens = json.loads(server.manage("-m", "tests.sdk.server", "match_setup"))
    house_bot_passes(server, tokens["Skynet"])
    raw_bot_passes(server, tokens["Skynet"])
    raw_bot_that_crashes_on_a_duplicate_turn_fails(server, tokens["Skynet"])
    # A command that never joins: no report, exit code 2, without waiting it out.
    started = time.monotonic()
    done = conformance(server, tokens["Skynet"], "--bot-cmd", "false")
    assert done.returncode == 2 and "exited (code 1) before it joined" in done.stderr
    assert time.monotonic() - started < 20
    refused = conformance(server, "not-a-token", "--bot", "house:random")
    assert refused.returncode == 2 and "The server refused" in refused.stderr


def house_bot_passes(server: Server, token: str) -> None:
    started = time.monotonic()
    done = conformance(server, token, "--bot", "house:rule_based")
    seconds = time.monotonic() - started
    assert done.returncode == 0, done.stdout + done.stderr
    lines = {line.split()[0]: line for line in done.stdout.splitlines() if line.strip()}
    for check in ("fold_call_raise", "raise_edges", "pl_raise_edges", "side_pots",
                  "side_pots_flop", "show_or_muck",
                  "duplicate_turn", "stale_turn", "timeout", "reconnect",
                  "one_answer_per_turn"):
        assert " PASS " in lines[check], lines[check]
    assert "reconnected after" in lines["reconnect"]
    assert "Skynet: PASSED" in done.stdout
    print(f"\nconformance over the websocket: {seconds:.1f} s\n{done.stdout}")


def raw_bot_passes(server: Server, token: str) -> None:
    """A program of its own (no SDK runner) passes too, reconnecting by itself."""
    done = conformance(server, token, "--json", "--bot-cmd",
                       f"{PYTHON} -m tests.conformance.raw_bot {{ws}}")
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {row["check"]: row for row in json.loads(done.stdout)["checks"]}
    assert rows["reconnect"]["status"] == "pass" and rows["duplicate_turn"]["status"] == "pass"
    assert rows["show_or_muck_showdown"]["answer"] == '{"kind": "muck"}'


def raw_bot_that_crashes_on_a_duplicate_turn_fails(server: Server, token: str) -> None:
    command = f"{PYTHON} -m tests.conformance.raw_bot {{ws}} --crash-on-duplicate"
    started = time.monotonic()
    done = conformance(server, token, "--json", "--bot-cmd", command)
    seconds = time.monotonic() - started
    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads(done.stdout)
    rows = {row["check"]: row for row in report["checks"]}
    assert not report["passed"] and "duplicate_turn" in report["failed"]
    duplicate = rows["duplicate_turn"]
    assert duplicate["status"] == "fail"
    assert "went away" in duplicate["detail"], duplicate
    assert duplicate["answer"] == '{"kind": "call"}'  # its answer to the first copy
    for check in ("fold_call_raise", "raise_edges", "call_only", "show_or_muck"):
        assert rows[check]["status"] == "pass", rows[check]  # it played well until then
    assert rows["stale_turn"]["status"] == "fail"  # gone: nobody answers any more
    print(f"\nthe crashing raw bot: {seconds:.1f} s")
