"""The test's MCP client: the SDK's own (Streamable HTTP + ClientSession)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


class Agent:
    """One MCP session; :meth:`call` returns ``(is_error, structured result)``."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session
        self.calls: list[tuple[str, dict[str, Any], Any]] = []  # for docs/mcp.md's example

    async def call(self, tool: str, **arguments: Any) -> tuple[bool, dict[str, Any]]:
        result = await self.session.call_tool(tool, arguments)
        data = result.structured_content
        if data is None:  # every tool of ours answers JSON as its last text block
            data = json.loads(result.content[-1].text)  # type: ignore[union-attr]
        if len(result.content) > 1:  # the view as text for the model comes first
            data = {**data, "text": result.content[0].text}  # type: ignore[union-attr]
        self.calls.append((tool, arguments, result))
        return bool(result.is_error), data

    async def ok(self, tool: str, **arguments: Any) -> dict[str, Any]:
        error, data = await self.call(tool, **arguments)
        assert not error, (tool, arguments, data)
        return data

    async def refused(self, tool: str, **arguments: Any) -> str:
        """The stable code of a refusal (the call must be refused)."""
        error, data = await self.call(tool, **arguments)
        assert error, (tool, arguments, data)
        return str(data["error"]["code"])


@contextlib.asynccontextmanager
async def connect(url: str, token: str) -> AsyncIterator[Agent]:
    headers = {"Authorization": f"Bearer {token}"}
    timeout = httpx2.Timeout(30, read=120)  # wait_for_my_turn may take 60 s
    async with httpx2.AsyncClient(headers=headers, timeout=timeout) as http, \
            streamable_http_client(url, http_client=http) as streams, \
            ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        yield Agent(session)
