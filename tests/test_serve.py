"""The server's launcher runs Daphne on uvloop's event loop (pokersite/serve.py).

Each case runs in a fresh interpreter: Twisted's reactor is installed once per process.
The launcher serving real pages and websockets is shown by every test that starts it
(tests/test_site.py, tests/tables/test_multiprocess.py, tests/scale/, tests/browser/).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# What the launcher does before Daphne's CLI, then the loop Daphne's reactor runs on.
PROBE = """
from pokersite.serve import choose_loop
choose_loop()
import daphne.server
from twisted.internet import reactor
loop = reactor._asyncioEventloop
print(type(loop).__module__ + "." + type(loop).__name__)
"""


def reactor_loop(**env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "ASYNC_LOOP"}
    return subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env={**environ, **env},
                          capture_output=True, text=True, timeout=60)


def test_daphne_runs_on_uvloop_by_default() -> None:
    done = reactor_loop()
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "uvloop.Loop"


def test_async_loop_asyncio_keeps_the_standard_library_loop() -> None:
    done = reactor_loop(ASYNC_LOOP="asyncio")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "asyncio.unix_events._UnixSelectorEventLoop"


def test_an_unknown_loop_is_refused_before_anything_starts() -> None:
    done = reactor_loop(ASYNC_LOOP="tokio")
    assert done.returncode != 0
    assert "ASYNC_LOOP='tokio': expected one of uvloop, asyncio" in done.stderr
    assert done.stdout == ""


def test_the_launcher_passes_daphnes_arguments_through() -> None:
    done = subprocess.run([sys.executable, "-m", "pokersite.serve", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "--websocket-max-message-size" in done.stdout  # Daphne's own option
