"""The ACPC listener in a subprocess (tests/acpc/server.py), one per test module."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class AcpcServer:
    def __init__(self, directory: Path) -> None:
        self.port = _free_port()
        self.env = {**os.environ, "POKER_VAR_DIR": str(directory), "HOUSE_BOT_DELAY": "0",
                    "DJANGO_SETTINGS_MODULE": "pokersite.settings", "PYTHONUNBUFFERED": "1"}
        for name in ("DATABASE_URL", "REDIS_URL"):
            self.env.pop(name, None)
        self.log = directory / "server.log"
        self.run("manage.py", "migrate", "-v0")
        self.setup: dict[str, Any] = json.loads(self.run("-m", "tests.acpc.server", "setup"))
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "tests.acpc.server", "serve", str(self.port)], cwd=ROOT,
                env=self.env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)
        raise AssertionError("the ACPC server did not start:\n" + self.log.read_text()[-3000:])

    def run(self, *args: str) -> str:
        return subprocess.run([sys.executable, *args], cwd=ROOT, env=self.env, check=True,
                              capture_output=True, text=True, timeout=120).stdout

    def hands(self, table: int) -> dict[str, int]:
        return json.loads(self.run("-m", "tests.acpc.server", "hands", str(table)))

    def chips(self) -> int:
        return int(self.run("-m", "tests.acpc.server", "chips"))

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


@pytest.fixture(scope="module")
def acpc_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AcpcServer]:
    shm = Path("/dev/shm")
    directory = tmp_path_factory.mktemp("acpc")
    if shm.is_dir() and os.access(shm, os.W_OK):
        directory = shm / f"poker-acpc-{os.getpid()}-{directory.name}"
        directory.mkdir()
    server = AcpcServer(directory)
    yield server
    server.stop()
