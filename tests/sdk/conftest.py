"""Fixtures of the SDK end-to-end tests: a real Daphne in a subprocess (tests/sdk/server.py)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    def __init__(self, directory: Path) -> None:
        self.port = free_port()
        self.env = {**os.environ, "POKER_VAR_DIR": str(directory), "HOUSE_BOT_DELAY": "0",
                    "DJANGO_SETTINGS_MODULE": "pokersite.settings", "PYTHONUNBUFFERED": "1"}
        for name in ("DATABASE_URL", "REDIS_URL"):
            self.env.pop(name, None)
        self.log = directory / "server.log"
        self.process: subprocess.Popen[bytes] | None = None

    def manage(self, *args: str) -> str:
        return subprocess.run([PYTHON, *args], cwd=ROOT, env=self.env, check=True,
                              capture_output=True, text=True, timeout=120).stdout

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [PYTHON, "-m", "tests.sdk.server", "serve", str(self.port)], cwd=ROOT,
                env=self.env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)
        raise AssertionError("the server did not start:\n" + self.log.read_text()[-3000:])

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    shm = Path("/dev/shm")
    directory = tmp_path
    if shm.is_dir() and os.access(shm, os.W_OK):
        directory = shm / f"poker-sdk-{os.getpid()}-{tmp_path.name}"
        directory.mkdir()
    instance = Server(directory)
    instance.manage("manage.py", "migrate", "-v0")
    instance.start()
    yield instance
    instance.stop()
    if directory != tmp_path:
        for path in sorted(directory.rglob("*"), reverse=True):
            path.unlink() if path.is_file() else path.rmdir()
        directory.rmdir()
