"""The SDK runner in its own process against a real Daphne (with the in-process table
worker) in another: 400 hands over websocket and 150 over REST long-poll against a
house bot, the server killed with SIGKILL and restarted in the middle of each run.

The server uses its own SQLite file (in /dev/shm when there is one: the speed of
these runs is bounded by the database's fsyncs), never the test database.
"""

from __future__ import annotations

import json
import re
import subprocess
import time

from tests.sdk.conftest import PYTHON, ROOT, Server


def run_with_restart(server: Server, token: str, table: int, transport: str, hands: int,
                     kill_after: int) -> tuple[str, float]:
    """Run the SDK runner; kill -9 the server once ``kill_after`` hands are done."""
    started = time.monotonic()
    runner = subprocess.Popen(
        [PYTHON, "-m", "botkit.runner", "--server", f"http://127.0.0.1:{server.port}",
         "--token", token, "--table", str(table), "--bot", "house:rule_based",
         "--hands", str(hands), "--transport", transport, "--buy-in", "200"],
        cwd=ROOT, env={**server.env, "PYTHONUNBUFFERED": "1"}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    assert runner.stderr is not None
    # The progress bar goes to stderr: wait for "kill_after/hands" to kill the server.
    progress = re.compile(rf"\b(\d+)/{hands}\b")
    buffer = ""
    while runner.poll() is None:
        buffer += runner.stderr.read(64)
        done = [int(m) for m in progress.findall(buffer[-400:])]
        if done and max(done) >= kill_after:
            break
    server.kill()
    time.sleep(1.0)
    server.start()
    out, err = runner.communicate(timeout=240)
    assert runner.returncode == 0, buffer + err
    return out, time.monotonic() - started


def test_sdk_runner_survives_server_restart_ws_and_rest(server: Server) -> None:
    setup = json.loads(server.manage("-m", "tests.sdk.server", "setup"))
    token, tables = setup["token"], setup["tables"]

    out, seconds = run_with_restart(server, token, tables["ws"], "ws", 400, kill_after=150)
    assert re.search(r"Summary: 400 hands", out), out
    assert "reconnects" in out and "mbb/hand (95 % CI)" in out
    print(f"\nwebsocket: 400 hands in {seconds:.1f} s\n{out}")

    out, seconds = run_with_restart(server, token, tables["rest"], "rest", 150, kill_after=60)
    assert re.search(r"Summary: 150 hands", out), out
    print(f"REST long-poll: 150 hands in {seconds:.1f} s\n{out}")

    # Every chip is accounted for: the ledger balances and what is on the tables.
    assert server.manage("-m", "tests.sdk.server", "chips").strip() == "0"
