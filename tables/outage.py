"""Degrading cleanly when Redis (the channel layer, the shared cache) is unreachable.

PostgreSQL is the source of truth; Redis only delivers (docs/architecture.md). So
an outage of Redis must cost live delivery, never a committed command, a turn or
a 500 (docs/security.md, "Outages: what each one does"). This module has the two
pieces every part of the server shares:

* :class:`RateLimitFilter` — a logging filter: one line per distinct error per
  ``seconds``, the next one after the window says how many were suppressed (and
  carries no traceback). :func:`quiet` installs it on the loggers that repeat
  themselves during an outage (the worker, the fan-out, the consumers and
  channels-redis' own receive loop, which logs a traceback every second).
* :class:`Outage` — the state of one outage as a process sees it: down since
  when, answering again since when, and whether it has answered long enough
  (``RESUME_GRACE_SECONDS``) for held timers to resume. The worker's pause
  (tables.worker) and the live tables' owners (tables.owner) both run on it.
* :class:`LayerGuard` — a mixin for the websocket consumers: a handshake while
  the channel layer is down is refused cleanly — accepted, told
  ``{"type": "error", "code": "unavailable"}`` and closed with 1013 ("try again
  later") — instead of crashing into Daphne's 500 / 1011
  (:func:`let_daphne_send_server_codes` lets Daphne send that code).
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import threading
import time
import uuid
from typing import Any

from channels.consumer import StopConsumer
from channels.layers import get_channel_layer
from channels.utils import await_many_dispatch

ERROR_LOG_SECONDS = 10.0  # one line per distinct error per this many seconds
LAYER_TIMEOUT = 3.0  # a channel-layer call that takes longer counts as a failure (s)
HANDSHAKE_LAYER_TIMEOUT = 10.0
"""The same for a websocket handshake's channel and groups: after an owner's kill a
thousand clients reconnect at once and their subscriptions queue at Redis for
seconds; refused after 3 s they came back a second later and queued again, and the
storm fed itself (tables stuck, docs/benchmarks.md "Scale"). A Redis that is down
refuses at once whatever this says."""
RESUME_GRACE_SECONDS = 2.0
"""After an outage, publishing works again this long before turn timers resume (time
for the processes to subscribe again): tables.worker, tables.owner."""
TRY_AGAIN_LATER = 1013  # websocket close code (RFC 6455 registry: "Try Again Later")
UNAVAILABLE = {"type": "error", "code": "unavailable",
               "message": "Live updates are unavailable for a moment (the server cannot "
                          "reach its message broker); try again in a few seconds."}


class RateLimitFilter(logging.Filter):
    """At most one record per distinct error per ``seconds``.

    A record's key is its logger, level, message template and exception type (not
    the arguments: "group_send to table.7 failed" and "… table.8 …" are the same
    error). The first record of a key passes with its traceback; the rest of the
    window is counted and dropped; the first one after the window passes as one
    line, without the traceback, saying how many were suppressed.
    """

    def __init__(self, seconds: float = ERROR_LOG_SECONDS) -> None:
        super().__init__()
        self.seconds = seconds
        self._lock = threading.Lock()
        self._seen: dict[tuple[Any, ...], list[float]] = {}  # key -> [last passed, count]

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return True
        error = record.exc_info[1] if record.exc_info else None
        key = (record.name, record.levelno, str(record.msg), type(error).__name__)
        now = time.monotonic()
        with self._lock:
            seen = self._seen.get(key)
            if seen is None:
                if len(self._seen) > 1000:  # many distinct errors: forget the old ones
                    self._seen.clear()
                self._seen[key] = [now, 0]
                return True
            if now - seen[0] < self.seconds:
                seen[1] += 1
                return False
            suppressed, seen[0], seen[1] = int(seen[1]), now, 0
        # Again after a quiet window: one line, no traceback, with the count.
        if error is not None:
            record.msg = f"{record.getMessage()} ({type(error).__name__}: {error})"
            record.args = None
        record.exc_info, record.exc_text = None, None
        if suppressed:
            record.msg = (f"{record.getMessage()} [{suppressed} more like this suppressed "
                          f"in the last {self.seconds:.0f} s]")
            record.args = None
        return True


_installed: set[str] = set()
# The loggers that repeat themselves while Redis is away.
NOISY = ("tables.worker", "tables.owner", "tables.fanout", "tables.consumers",
         "tables.presence", "tables.outage", "lobby.consumers", "research.consumers",
         "channels_redis.pubsub", "channels_redis.core")


def quiet(*names: str, seconds: float = ERROR_LOG_SECONDS) -> None:
    """Install :class:`RateLimitFilter` on these loggers (default :data:`NOISY`), once each."""
    for name in names or NOISY:
        if name not in _installed:
            logging.getLogger(name).addFilter(RateLimitFilter(seconds))
            _installed.add(name)


quiet()
log = logging.getLogger(__name__)
SERVER_CLOSE_CODES = (1012, 1013)  # "Service Restart", "Try Again Later" (IANA registry)


def let_daphne_send_server_codes() -> None:
    """Daphne closes a websocket through autobahn's ``sendClose``, which accepts only
    1000 and 3000–4999 from an application and raised on 1013. 1012 and 1013 are the
    registered codes a server sends when it is restarting or overloaded (RFC 6455
    section 7.4, IANA "WebSocket Close Code Number Registry"); they go out through the
    same frame writer ``sendClose`` itself ends in. Other codes are untouched."""
    try:
        from daphne.ws_protocol import WebSocketProtocol
    except ImportError:  # not served by Daphne
        return
    original = WebSocketProtocol.serverClose
    if getattr(original, "sends_server_codes", False):
        return

    def server_close(self: Any, code: int | None = None) -> None:
        if code in SERVER_CLOSE_CODES:
            self.sendCloseFrame(code=code, isReply=False)
        else:
            original(self, code)

    server_close.sends_server_codes = True  # type: ignore[attr-defined]
    WebSocketProtocol.serverClose = server_close


let_daphne_send_server_codes()


class Outage:
    """One process's view of an outage of ``what`` (a service it cannot do without).

    :meth:`fail` on every failed call (the first one logs that ``what`` is
    unreachable and ``meanwhile``, what the process holds until it is back);
    :meth:`answered` on every call that works again: True once ``what`` has answered
    for ``grace`` seconds without a failure in between — the caller gives the held
    turns their time back, then :meth:`end` closes the outage (the caller's own log
    line says what it gave back).
    """

    def __init__(self, what: str, meanwhile: str, grace: float | None = None, *,
                 logger: logging.Logger | None = None) -> None:
        self.what, self.meanwhile, self.log = what, meanwhile, logger or log
        self.grace = RESUME_GRACE_SECONDS if grace is None else grace
        self.started: float | None = None  # when the outage began (monotonic)
        self.up_at: float | None = None  # when ``what`` answered again
        self.resumed_at = -1e9  # when the last outage ended
        self.outages = 0

    @property
    def down(self) -> bool:
        return self.started is not None

    def fail(self) -> None:
        if self.started is None:
            self.started = time.monotonic()
            self.outages += 1
            self.log.warning("%s unreachable: %s", self.what, self.meanwhile)
        self.up_at = None

    def answered(self) -> bool:
        """Whether the outage is over (never while there is none)."""
        if self.started is None:
            return False
        now = time.monotonic()
        if self.up_at is None:
            self.up_at = now
        return now - self.up_at >= self.grace

    def end(self) -> float:
        """Close the outage; its length in seconds."""
        now = time.monotonic()
        length = 0.0 if self.started is None else now - self.started
        self.started, self.up_at, self.resumed_at = None, None, now
        return length


class LayerGuard:
    """Mixin for a websocket consumer (before ``AsyncWebsocketConsumer`` in the bases).

    Channels asks the channel layer for the connection's own channel before the
    handshake reaches :meth:`connect`; with Redis down that raises, and Daphne
    answers the handshake with a 500. Here that failure is caught: the consumer runs
    without a layer, and the handshake is refused cleanly (:meth:`unavailable`).
    :meth:`join_groups` does the same for the ``group_add`` calls in ``connect``.
    """

    layer_error: BaseException | None = None
    own_channel = True  # whether this connection has a channel of its own (see below)

    def needs_channel(self) -> bool:
        """Whether this connection receives through a channel-layer channel of its own
        (``new_channel`` and a receive task per connection; the default). A consumer
        whose messages reach it otherwise (a live table's connections, from the
        process's host: tables.owner) answers False and gets a local name."""
        return True

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        # AsyncConsumer.__call__ (channels 4), with the layer's new_channel guarded.
        self.scope = scope
        self.channel_layer = get_channel_layer(self.channel_layer_alias)  # type: ignore[attr-defined]
        self.own_channel = self.channel_layer is not None and self.needs_channel()
        if not self.own_channel:
            self.channel_name = f"local.{uuid.uuid4().hex}"
        else:
            try:
                self.channel_name = await asyncio.wait_for(
                    self.channel_layer.new_channel(), HANDSHAKE_LAYER_TIMEOUT)
            except Exception as error:
                log.warning("channel layer unavailable: refusing websocket handshakes: %s",
                            error)
                self.layer_error, self.channel_layer = error, None
                self.channel_name = f"unavailable.{uuid.uuid4().hex}"
        self.base_send = send
        try:
            if self.own_channel and self.channel_layer is not None:
                self.channel_receive = functools.partial(self.channel_layer.receive,
                                                         self.channel_name)
                await await_many_dispatch([receive, self.channel_receive],
                                          self.dispatch)  # type: ignore[attr-defined]
            else:  # one source: read it directly (await_many_dispatch makes a task and
                # takes several turns of the event loop per message; on a loaded loop
                # that was most of a message's wait behind the ones before it)
                while True:
                    await self.dispatch(await receive())  # type: ignore[attr-defined]
        except StopConsumer:
            pass

    async def websocket_connect(self, message: dict[str, Any]) -> None:
        if self.layer_error is not None:
            await self.unavailable(accepted=False)
            return
        await super().websocket_connect(message)  # type: ignore[misc]

    async def websocket_disconnect(self, message: dict[str, Any]) -> None:
        if self.layer_error is not None:  # nothing was joined, nothing to leave
            raise StopConsumer()
        await super().websocket_disconnect(message)  # type: ignore[misc]

    async def unavailable(self, *, accepted: bool) -> None:
        """Refuse for now: the client should retry in a few seconds (close 1013)."""
        self.layer_refused = True
        if not accepted:
            await self.accept()  # type: ignore[attr-defined]
        data = dict(UNAVAILABLE)
        if isinstance(getattr(self, "version", None), int):
            data["version"] = self.version  # type: ignore[attr-defined]
        await self.send(text_data=json.dumps(data, separators=(",", ":")))  # type: ignore[attr-defined]
        await self.close(code=TRY_AGAIN_LATER, reason="try again later")  # type: ignore[attr-defined]

    async def join_groups(self, groups: list[str], joined: list[str] | None = None, *,
                          accepted: bool) -> bool:
        """``group_add`` each group (appending it to ``joined``); if the channel layer
        fails, refuse the connection with :meth:`unavailable` and return False."""
        assert self.channel_layer is not None
        try:
            for group in groups:
                await asyncio.wait_for(self.channel_layer.group_add(group, self.channel_name),
                                       HANDSHAKE_LAYER_TIMEOUT)
                if joined is not None:
                    joined.append(group)
        except Exception as error:
            log.warning("channel layer unavailable: refusing a websocket: %s", error)
            await self.leave_groups(groups)  # (the layer may keep local state per group)
            if joined is not None:
                joined.clear()
            await self.unavailable(accepted=accepted)
            return False
        return True

    async def leave_groups(self, groups: list[str]) -> None:
        """``group_discard`` each group, best effort (a stale member only expires)."""
        if self.channel_layer is None:
            return
        for group in groups:
            try:
                await asyncio.wait_for(
                    self.channel_layer.group_discard(group, self.channel_name), 1.0)
            except Exception as error:
                log.warning("group_discard failed: %s", error)
