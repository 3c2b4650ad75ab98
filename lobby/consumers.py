"""``/ws/lobby/``: a thin consumer that forwards ``lobby`` group messages.

Authenticated by session (the websocket router checks the Origin); it only
listens, clients then refresh the table list over HTTP.
"""

from __future__ import annotations

import json
from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer

from tables.fanout import LOBBY_GROUP as GROUP
from tables.wire import LoopDispatch


class LobbyConsumer(LoopDispatch, AsyncWebsocketConsumer):
    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=4401)
            return
        await self.channel_layer.group_add(GROUP, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(GROUP, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if text_data and '"ping"' in text_data[:40]:
            await self.send(text_data=json.dumps({"type": "pong"}))

    async def lobby_message(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["text"])
