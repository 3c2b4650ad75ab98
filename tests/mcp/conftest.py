"""Fixtures of the MCP end-to-end tests: the SDK tests' real Daphne (tests/sdk/conftest.py,
``Server``), started once for this directory, with the users and the Hold'em table of
tests/mcp/setup.py."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.sdk.conftest import Server


class McpServer(Server):
    """The server, its setup (tokens, table ids) and the MCP endpoint's URL."""

    setup: dict[str, Any]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp/"

    def chips(self) -> int:
        """Every balance plus every chip on a table: constant while chips are conserved."""
        return int(self.manage("-m", "tests.sdk.server", "chips").strip().splitlines()[-1])

    def inspect(self, table: int) -> dict[str, Any]:
        out = self.manage("-m", "tests.mcp.setup", "inspect", str(table))
        return json.loads(out.strip().splitlines()[-1])  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def mcp_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpServer]:
    tmp = tmp_path_factory.mktemp("mcp")
    directory = tmp
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        directory = shm / f"poker-mcp-{os.getpid()}-{tmp.name}"
        directory.mkdir()
    instance = McpServer(directory)
    instance.manage("manage.py", "migrate", "-v0")
    out = instance.manage("-m", "tests.mcp.setup", "setup")
    instance.setup = json.loads(out.strip().splitlines()[-1])
    instance.start()
    yield instance
    instance.stop()
    if directory != tmp:
        for path in sorted(directory.rglob("*"), reverse=True):
            path.unlink() if path.is_file() else path.rmdir()
        directory.rmdir()
