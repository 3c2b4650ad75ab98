"""Websocket test clients against the real ASGI application."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from pokersite.asgi import application


def _session_cookie(user: Any) -> bytes:
    from django.test import Client

    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


class Client:
    """One websocket connection that records every message it receives."""

    def __init__(self, communicator: WebsocketCommunicator, name: str) -> None:
        self.communicator = communicator
        self.name = name
        self.received: list[dict[str, Any]] = []
        self.connected = False
        self.close_code: int | None = None

    async def send(self, data: dict[str, Any] | str) -> None:
        text = data if isinstance(data, str) else json.dumps(data)
        await self.communicator.send_to(text_data=text)

    async def drain(self, quiet: float = 0.15) -> list[dict[str, Any]]:
        """Every message until the connection has been quiet for ``quiet`` seconds."""
        out = []
        while not await self.communicator.receive_nothing(timeout=quiet, interval=0.005):
            message = await self.communicator.receive_output(timeout=1)
            if message["type"] == "websocket.close":
                self.close_code = message.get("code")
                break
            data = json.loads(message["text"])
            out.append(data)
        self.received += out
        return out

    async def request(self, data: dict[str, Any], quiet: float = 0.15) -> list[dict[str, Any]]:
        await self.send(data)
        return await self.drain(quiet)

    async def answer(self, data: dict[str, Any], timeout: float = 20.0) -> list[dict[str, Any]]:
        """Send a command with a request id; every message until its ``ack`` or
        ``error`` (not until a quiet moment: on a loaded machine the answer can come
        more than :meth:`drain`'s pause after the events before it)."""
        rid = f"r{id(data)}-{len(self.received)}"
        await self.send({**data, "request_id": rid})
        out: list[dict[str, Any]] = []
        deadline = asyncio.get_running_loop().time() + timeout
        while self.close_code is None and asyncio.get_running_loop().time() < deadline:
            out += await self.drain()
            if any(m.get("request_id") == rid and m["type"] in ("ack", "error") for m in out):
                break
        return out

    async def close(self) -> None:
        await self.communicator.disconnect()


async def open_client(table_id: int, *, user: Any = None, token: str | None = None,
                      origin: bytes | None = b"http://localhost", name: str = "") -> Client:
    headers = []
    if user is not None:
        headers.append((b"cookie", await database_sync_to_async(_session_cookie)(user)))
    if token is not None:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    if origin is not None:
        headers.append((b"origin", origin))
    headers.append((b"host", b"localhost"))  # a browser always sends it (the Origin check)
    communicator = WebsocketCommunicator(application, f"/ws/tables/{table_id}/", headers=headers)
    client = Client(communicator, name or getattr(user, "username", "bot"))
    connected, code = await communicator.connect()
    client.connected = connected
    if not connected:
        client.close_code = code
        return client
    await client.drain()
    return client
