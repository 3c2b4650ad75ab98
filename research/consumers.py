"""The batch-match websocket ``/ws/matches/<id>/`` (docs/protocol.md, "Batch matches").

A thin adapter between a remote SDK bot and the match runner
(:mod:`research.remote`): authenticate (bot token only), check size and rate,
forward the runner's messages to the socket and the bot's answers to the
runner's channel.  The same limits as the table websocket (``settings.TABLES``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import deque
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from accounts.credentials import Credential
from accounts.models import Player
from tables.outage import LayerGuard
from tables.wire import LoopDispatch, TokenBucket, WireError, decode

from . import remote
from .models import MatchRun, MatchStatus

log = logging.getLogger(__name__)
RECHECK_SECONDS = 1.0  # how often an action re-checks the bot token (accounts.credentials)
MAX_PENDING = 64  # turns remembered as waiting for an answer (lanes: up to 16 at once)
HOLD_HAND_ENDS = 16  # with ?batch=1: at most this many hand ends wait for the next message
CLOSE_CODES = {"not_authenticated": 4401, "session_ended": 4401, "not_a_participant": 4403,
               "match_not_found": 4404, "match_over": 4410}


def _check(match_id: int, bot: Player) -> tuple[str, str, dict[str, Any]]:
    """``("", "", info)`` if ``bot`` may join match ``match_id``, else an error code and text."""
    match = MatchRun.objects.filter(pk=match_id).first()
    if match is None:
        return "match_not_found", f"There is no match {match_id}.", {}
    remotes = [p for p in match.settings.get("participants", []) if p.get("kind") == "remote"]
    if not any(p.get("player_id") == bot.pk for p in remotes):
        return ("not_a_participant",
                f"{bot.name} is not a remote participant of match {match_id}.", {})
    if match.status in (MatchStatus.DONE, MatchStatus.FAILED):
        return "match_over", f"Match {match_id} is over ({match.status}).", {}
    return "", "", {"match": match.pk, "bot": bot.name, "status": match.status,
                    "settings": match.settings}


class MatchConsumer(LayerGuard, LoopDispatch, AsyncWebsocketConsumer):
    async def connect(self) -> None:
        remote.remember_loop()
        conf = settings.TABLES
        self.match_id = int(self.scope["url_route"]["kwargs"]["match_id"])
        self.bot: Player | None = self.scope.get("bot")
        self.bucket = TokenBucket(conf["RATE_PER_SECOND"], conf["RATE_BURST"])
        self.group = ""
        self.reply_to = ""
        # The request ids of the turns sent and not yet answered (one, or one per lane):
        # their answers are never throttled.
        self.pending: dict[str, None] = {}
        self.batching = b"batch=1" in self.scope.get("query_string", b"").split(b"&")
        self.held: list[dict[str, Any]] = []  # hand ends waiting for the next message
        self.pushed: deque[dict[str, Any]] = deque()  # runner messages to deliver in order
        await self.accept()
        if self.bot is None:
            await self.refuse("not_authenticated",
                              "Connect with “Authorization: Bearer <bot token>”.")
            return
        code, message, info = await database_sync_to_async(_check)(self.match_id, self.bot)
        if code:
            await self.refuse(code, message)
            return
        self.credential = Credential.of(self.bot.owner, self.bot)
        self.checked = time.monotonic()
        group = remote.bot_group(self.match_id, self.bot.pk)
        auth_groups = self.credential.groups if self.credential else []
        # (auth_groups: auth_revoked closes the connection at once)
        if not await self.join_groups([group, *auth_groups], accepted=True):
            return  # the channel layer is down: refused with "unavailable", 1013
        self.group, self.auth_groups = group, auth_groups
        remote.attach(group, self)  # a runner of this process calls deliver() or push()
        await self.send_json({"type": "match_joined", **info})

    async def refuse(self, code: str, message: str) -> None:
        await self.send_json({"type": "error", "code": code, "message": message})
        await self.close(code=CLOSE_CODES.get(code, 4400))

    async def disconnect(self, code: int) -> None:
        for group in getattr(self, "auth_groups", []):
            await self.channel_layer.group_discard(group, self.channel_name)
        if getattr(self, "group", ""):
            remote.detach(self.group, self)
            await self.channel_layer.group_discard(self.group, self.channel_name)
            await self.reply("bye")

    async def auth_revoked(self, event: dict[str, Any]) -> None:
        await self.ended()

    async def ended(self) -> None:
        await self.refuse("session_ended", "This bot token has ended (regenerated, bot "
                          "deleted or owner deactivated); connect with the new token.")
        if self.group:  # the runner treats the bot as gone
            remote.detach(self.group, self)
            await self.channel_layer.group_discard(self.group, self.channel_name)
            await self.reply("bye")
            self.group = ""

    async def still_valid(self) -> bool:
        """Re-check the token at most every ``RECHECK_SECONDS`` (the announcement that
        closes the socket at once may be lost when the channel layer is down)."""
        if time.monotonic() - self.checked < RECHECK_SECONDS:
            return True
        self.checked = time.monotonic()
        credential = self.credential
        if credential is None or not await database_sync_to_async(credential.valid)():
            await self.ended()
            return False
        return True

    async def send_json(self, data: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(data, separators=(",", ":")))

    async def reply(self, kind: str, **fields: Any) -> None:
        if self.reply_to and self.bot is not None:
            message = {"type": "match.reply", "bot": self.bot.pk,
                       "channel": self.channel_name, "kind": kind, **fields}
            if not remote.reply(self.reply_to, message):  # the runner is in another process
                await self.channel_layer.send(self.reply_to, message)

    # ------------------------------------------------------ from the runner
    def push(self, event: dict[str, Any]) -> None:
        """A runner message from a runner thread of this process (the Redis layer, when
        all the bot's connections are here), delivered in order on this loop."""
        self.pushed.append(event)
        if len(self.pushed) == 1:
            self.drainer = asyncio.ensure_future(self._drain())

    async def _drain(self) -> None:
        while self.pushed:
            await self.deliver(self.pushed[0])
            self.pushed.popleft()

    async def deliver(self, event: dict[str, Any]) -> None:
        """A runner message handed over directly (same process: research/remote.py)."""
        handler = self.match_probe if event["type"] == "match.probe" else self.match_message
        try:
            await handler(event)
        except Exception:  # a connection going away must not stop the match
            log.exception("match %s: could not deliver to %s", self.match_id,
                          self.channel_name)

    async def match_probe(self, event: dict[str, Any]) -> None:
        self.reply_to = event["reply_to"]
        await self.reply("hello")

    async def match_message(self, event: dict[str, Any]) -> None:
        self.reply_to = event["reply_to"]
        message = event["message"]
        kind = message.get("type")
        if kind == "match_turn":
            self.pending[str(message["request_id"])] = None
            if len(self.pending) > MAX_PENDING:  # turns that were never answered
                del self.pending[next(iter(self.pending))]
        if self.batching:
            # ``?batch=1``: a hand's end waits for the next message (a turn, most often)
            # and goes in one frame with it; a hand's end is seldom urgent, a frame costs.
            if kind == "hand_over" and len(self.held) < HOLD_HAND_ENDS:
                self.held.append(message)
                return
            if self.held:
                message, self.held = {"type": "batch", "messages": [*self.held, message]}, []
        await self.send_json(message)
        if kind == "match_over":
            await self.close(code=1000)
        elif kind == "going_away":
            # The runner drops this connection on purpose (the conformance suite's
            # reconnect check): 1012 "service restart", so the bot connects again.
            await self.close(code=1012)

    # ------------------------------------------------------ from the bot
    async def error(self, code: str, message: str, request_id: Any = None) -> None:
        data = {"type": "error", "code": code, "message": message}
        if request_id is not None:
            data["request_id"] = request_id
        await self.send_json(data)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not self.group:
            return
        try:
            data, request_id = decode(text_data)
            refused = None
        except WireError as error:
            data, request_id, refused = None, None, error
        # The server sets the pace of a match: the answer to a turn it sent (and not yet
        # answered) is never throttled, every other message goes through the token bucket.
        answers_turn = (data is not None and data["type"] == "match_action"
                        and str(request_id) in self.pending)
        if answers_turn:
            del self.pending[str(request_id)]
        elif not self.bucket.take():
            await self.error("rate_limited", "Too many messages; slow down.")
            return
        if data is None:
            assert refused is not None
            await self.error(refused.code, refused.message)
            return
        kind = data["type"]
        if kind == "ping":
            await self.send_json({"type": "pong"})
        elif kind == "match_action":
            if not await self.still_valid():
                return
            if request_id is None:
                await self.error("malformed_message", "match_action needs the turn's request_id.")
            elif not self.reply_to:
                await self.error("not_your_turn", "The match has not asked for an action.",
                                 request_id)
            else:
                # The policy (docs/aivat.md) is checked by the runner, which knows the
                # turn's moves; a malformed one refuses the answer (``invalid_policy``).
                await self.reply("action", request_id=str(request_id),
                                 action=data.get("action"), policy=data.get("policy"))
        else:
            await self.error("unknown_type", f"Unknown message type {kind!r}.", request_id)
