"""The wire rules every websocket of the server shares (docs/protocol.md, "Limits").

A message is one JSON object in one text frame, at most ``MAX_MESSAGE_BYTES``,
with a string ``type`` and an optional ``request_id`` (string or number, at most
64 characters). :func:`decode` checks all of it and raises :class:`WireError`
with the stable code the client gets back; :class:`TokenBucket` is the flood limit.
"""

from __future__ import annotations

import json
import time
from typing import Any

from channels.consumer import get_handler_name
from django.conf import settings


class WireError(Exception):
    """A message refused before it reaches any service; nothing changes."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def decode(text_data: str | None) -> tuple[dict[str, Any], Any]:
    """``(message, request_id)`` from one frame, or :class:`WireError`.

    >>> decode('{"type": "ping", "request_id": 7}')
    ({'type': 'ping', 'request_id': 7}, 7)
    """
    limit = settings.TABLES["MAX_MESSAGE_BYTES"]
    if text_data is None:
        raise WireError("malformed_message", "Send JSON text frames, not binary ones.")
    if len(text_data) > limit or len(text_data.encode()) > limit:
        raise WireError("message_too_large", f"A message is at most {limit} bytes.")
    try:
        data = json.loads(text_data)
    except ValueError:
        raise WireError("malformed_message", "The message is not valid JSON.") from None
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise WireError("malformed_message", "A message is a JSON object with a “type”.")
    request_id = data.get("request_id")
    if request_id is not None and (isinstance(request_id, bool)
                                   or not isinstance(request_id, str | int)
                                   or len(str(request_id)) > 64):
        raise WireError("malformed_message", "request_id is a string or number (<= 64).")
    return data, request_id


class TokenBucket:
    """``rate`` messages per second on average, bursts up to ``burst``."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, float(burst)
        self.tokens, self.stamp = float(burst), time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class LoopDispatch:
    """Mixin for the server's websocket consumers: dispatch every message on the event loop.

    Channels' ``AsyncConsumer.dispatch`` first runs ``close_old_connections`` through
    ``sync_to_async`` for *every* message, outgoing group messages included: one hop
    into the process's single database thread per event per connection, queued behind
    the table services. These consumers never touch the database on the event loop;
    their database work goes through ``database_sync_to_async``, which closes stale
    connections in the database thread itself, before and after each call.
    """

    async def dispatch(self, message: dict[str, Any]) -> None:
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)


def reads_in_own_thread() -> bool:
    """Whether read-only database work of a websocket (authenticating a token, the
    snapshot, presence writes) may run in asgiref's thread pool instead of the
    process's one shared database thread, where it would queue behind every pending
    table command: under overload a bot's handshake then outlived Daphne's accept
    timeout and the reconnects fed the queue (docs/benchmarks.md, "Scale"). Not on
    SQLite, which has one writer at a time."""
    return "sqlite" not in settings.DATABASES["default"]["ENGINE"]
