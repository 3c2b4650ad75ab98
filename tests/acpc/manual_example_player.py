"""Manual check (not collected by the suite, which has no C compiler to rely on): the
competition's own ``example_player`` (C) plays here, unmodified. Run it by name:
``ACPC_EXAMPLE_PLAYER=/path/to/example_player pytest tests/acpc/manual_example_player.py``.

Runs when ``ACPC_EXAMPLE_PLAYER`` names the built program (from ``project_acpc_server``:
``gcc -O2 -o example_player game.c rng.c example_player.c net.c -lm``); it connects
through ``python -m botkit.acpc relay`` (docs/acpc.md), with the large-stack game.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from botkit.acpc import GameDef
from tests.acpc.conftest import ROOT, AcpcServer, _free_port

PLAYER = os.environ.get("ACPC_EXAMPLE_PLAYER", "")


@pytest.fixture(autouse=True)
def _the_player() -> None:
    assert PLAYER and Path(PLAYER).is_file(), "set ACPC_EXAMPLE_PLAYER to a built example_player"


def test_example_player_plays_through_the_relay(acpc_server: AcpcServer,
                                                tmp_path: Path) -> None:
    game = tmp_path / "live.nolimit.2p.game"
    game.write_text(GameDef.holdem("NL", 50, 100, 2, 10**9).text() + "\n")
    table = acpc_server.setup["table"]
    before = acpc_server.hands(table)["hands"]
    port = _free_port()
    relay = subprocess.Popen(
        [sys.executable, "-m", "botkit.acpc", "relay", "--server",
         f"127.0.0.1:{acpc_server.port}", "--port", str(port), "--table", str(table),
         "--header", "BUYIN:20000", "--header", "HANDS:100", "--once"], cwd=ROOT,
        env={**os.environ, "ACPC_TOKEN": acpc_server.setup["token"]},
        stdout=subprocess.PIPE, text=True)
    try:
        assert relay.stdout is not None
        assert relay.stdout.readline().startswith("ACPC relay on")  # listening
        done = subprocess.run([PLAYER, str(game), "127.0.0.1", str(port)],
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
    finally:
        relay.wait(timeout=30)
    assert acpc_server.hands(table)["hands"] - before >= 100
