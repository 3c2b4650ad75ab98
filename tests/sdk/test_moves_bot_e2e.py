"""A bot that reads only ``view["moves"]`` plays any game through the SDK runner
(``--bot uniform``), end to end: Kuhn poker (the platform tests' toy game, registered
in the test server) over websocket and REST long-poll, and Hold'em over websocket,
each against a house bot, with no illegal move."""

from __future__ import annotations

import json
import re
import subprocess

from tests.sdk.conftest import PYTHON, ROOT, Server


def run(server: Server, token: str, table: int, hands: int, transport: str,
        *extra: str) -> str:
    done = subprocess.run(
        [PYTHON, "-m", "botkit.runner", "--server", f"http://127.0.0.1:{server.port}",
         "--token", token, "--table", str(table), "--bot", "uniform", "--hands", str(hands),
         "--transport", transport, "--no-progress", *extra],
        cwd=ROOT, env={**server.env, "PYTHONUNBUFFERED": "1"}, capture_output=True, text=True,
        timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    print(f"\n{transport}, table {table}:\n{done.stdout}")
    return done.stdout


def test_uniform_bot_plays_kuhn_and_holdem(server: Server) -> None:
    setup = json.loads(server.manage("-m", "tests.sdk.server", "moves_setup"))
    token, tables = setup["token"], setup["tables"]

    out = run(server, token, tables["kuhn"], 60, "ws", "--buy-in", "1000")
    assert re.search(r"Summary: 60 rounds .* 0 illegal actions replaced", out), out
    assert "chips/round (95 % CI)" in out
    out = run(server, token, tables["kuhn"], 20, "rest", "--buy-in", "1000")
    assert re.search(r"Summary: 20 rounds .* 0 illegal actions replaced", out), out

    out = run(server, token, tables["holdem"], 100, "ws", "--buy-in", "400")
    assert re.search(r"Summary: 100 hands .* 0 illegal actions replaced", out), out
    assert "mbb/hand (95 % CI)" in out

    assert server.manage("-m", "tests.sdk.server", "chips").strip() == "0"
