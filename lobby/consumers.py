"""``/ws/lobby/``: a thin consumer that forwards ``lobby`` group messages.

Authenticated by session (the websocket router checks the Origin), or a guest when
``settings.PUBLIC_SPECTATING`` is on; it only
listens, clients then refresh the table list over HTTP. The only message it
answers is ``ping``, rate-limited like every websocket (docs/protocol.md, "Limits");
a client that keeps flooding after being told is disconnected (4429). It closes at
once when its session ends (:mod:`accounts.credentials`); it carries nothing private.
"""

from __future__ import annotations

import json
from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from accounts.credentials import Credential
from tables.fanout import LOBBY_GROUP as GROUP
from tables.outage import LayerGuard
from tables.wire import LoopDispatch, TokenBucket

FLOOD_CLOSE_AFTER = 50  # refused messages in a row before the connection is closed


class LobbyConsumer(LayerGuard, LoopDispatch, AsyncWebsocketConsumer):
    async def connect(self) -> None:
        user = self.scope.get("user")
        credential = Credential.of(user, None, self.scope.get("session"))
        # Guests listen too when public spectating is on (nothing here is private).
        guest = (credential is None and "bot" not in self.scope
                 and getattr(settings, "PUBLIC_SPECTATING", False))
        if credential is None and not guest:
            await self.close(code=4401)
            return
        conf = settings.TABLES
        self.bucket = TokenBucket(conf["RATE_PER_SECOND"], conf["RATE_BURST"])
        self.refused = 0
        self.groups_joined: list[str] = []
        groups = [GROUP, *(credential.groups if credential is not None else [])]
        if not await self.join_groups(groups, self.groups_joined,
                                      accepted=False):
            return  # the channel layer is down: refused with "unavailable", 1013
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.leave_groups(getattr(self, "groups_joined", []))  # best effort

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not self.bucket.take():
            self.refused += 1
            if self.refused == 1:  # said once; the rest of a flood is dropped unanswered
                await self.send_json({"type": "error", "code": "rate_limited",
                                      "message": "Too many messages; slow down."})
            elif self.refused >= FLOOD_CLOSE_AFTER:
                await self.close(code=4429)
            return
        self.refused = 0
        if text_data and len(text_data) <= 200 and '"ping"' in text_data:
            await self.send_json({"type": "pong"})

    async def send_json(self, data: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(data, separators=(",", ":")))

    async def lobby_message(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["text"])

    async def auth_revoked(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "error", "code": "session_ended",
                              "message": "Your session has ended; log in again."})
        await self.close(code=4401)
