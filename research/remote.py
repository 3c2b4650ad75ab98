"""Remote SDK bots in batch matches: the runner's side of ``/ws/matches/<id>/``.

The match runner (a background thread, :func:`research.services.run_match`) owns
one channel of the channel layer (``layer.new_channel()``) and talks to the
remote bots' websocket consumers (:mod:`research.consumers`) only through the
layer, so the runner and the consumer may live in different server processes
(Redis layer).  Messages on the layer:

* runner → group :func:`bot_group` (one per match and bot):
  ``{"type": "match.probe", "reply_to": ch}`` (are you there?) and
  ``{"type": "match.message", "reply_to": ch, "message": {...}}`` (forwarded to the
  websocket as is: ``match_started``, ``new_match``, ``match_turn``, ``hand_over``,
  ``match_over``);
* consumer → ``reply_to``: ``{"type": "match.reply", "bot": player id,
  "channel": consumer channel, "kind": "hello" | "bye" | "action", ...}`` with
  ``request_id`` and ``action`` for an action.  ``bot`` is set by the consumer
  from the authenticated token, never by the client.  An action may carry the
  bot's ``policy`` (docs/aivat.md), checked here against the turn's moves.

With the in-memory layer (one process) every layer call runs on the server's
event loop (remembered by the consumer, :func:`remember_loop`): that layer's
queues belong to one loop.  With Redis the runner runs its own event loop in a
helper thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import secrets
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any

from channels import DEFAULT_CHANNEL_LAYER
from channels.layers import InMemoryChannelLayer, channel_layers, get_channel_layer
from channels_redis.pubsub import RedisPubSubChannelLayer

Json = dict[str, Any]

_main_loop: asyncio.AbstractEventLoop | None = None


class MatchAborted(Exception):
    """The match cannot go on; ``code`` is stored as the match's ``error_code``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def remember_loop() -> None:
    """Called by the consumer: the server's event loop (needed by the in-memory layer)."""
    global _main_loop
    _main_loop = asyncio.get_running_loop()


def bot_group(match_id: int, player_id: int) -> str:
    return f"match.{match_id}.bot.{player_id}"


class Link:
    """The runner's channel and a thread-safe inbox of the replies sent to it."""

    def __init__(self, *, wait_for_loop: float = 0.0, waiting_for: str = "") -> None:
        self.layer = get_channel_layer()
        if self.layer is None:
            raise MatchAborted("no_channel_layer", "The server has no channel layer.")
        if not isinstance(self.layer, InMemoryChannelLayer):
            # A layer instance of our own: channels_redis keeps the receive state of a
            # process's channels (locks, buffers) per instance, bound to one event loop.
            self.layer = channel_layers.make_backend(DEFAULT_CHANNEL_LAYER)
        self.inbox: queue.Queue[Json] = queue.Queue()
        self.own_loop: asyncio.AbstractEventLoop | None = None
        if isinstance(self.layer, InMemoryChannelLayer):
            deadline = time.monotonic() + wait_for_loop
            while _main_loop is None or not _main_loop.is_running():
                if time.monotonic() >= deadline:
                    raise MatchAborted(
                        "remote_bots_not_connected",
                        f"Not connected within {wait_for_loop:g} s: {waiting_for} "
                        "(no remote bot has connected to this server process yet).")
                time.sleep(0.05)
            self.loop = _main_loop
        else:
            self.own_loop = self.loop = asyncio.new_event_loop()
            threading.Thread(target=self.loop.run_forever, name="match-link",
                             daemon=True).start()
        self.channel: str = self.call(self.layer.new_channel)
        self.pump = asyncio.run_coroutine_threadsafe(self._pump(), self.loop)

    def call(self, factory: Callable[[], Coroutine[Any, Any, Any]],
             timeout: float = 10.0) -> Any:
        """Run a layer coroutine on the link's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(factory(), self.loop).result(timeout)

    async def _pump(self) -> None:
        while True:
            message = await self.layer.receive(self.channel)
            self.inbox.put(message)

    def send(self, group: str, message: Json) -> None:
        self.call(lambda: self.layer.group_send(group, {**message, "reply_to": self.channel}))

    def close(self) -> None:
        self.pump.cancel()
        if self.own_loop is not None:
            loop = self.own_loop
            # The link's own layer instance lets go of its Redis connections: the
            # pubsub layer's flush() only closes its own connections (the core
            # layer's flush() would delete every key of the prefix: close_pools()).
            if isinstance(self.layer, RedisPubSubChannelLayer):
                close = self.layer.flush
            else:
                close = getattr(self.layer, "close_pools", None)
            if close is not None:
                with contextlib.suppress(Exception):
                    self.call(close, timeout=5)
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(loop.stop)


class Hub:
    """Every remote bot of one match: connections, probes and replies."""

    def __init__(self, match_id: int, link: Link) -> None:
        self.match_id, self.link = match_id, link
        self.bots: dict[int, RemoteBot] = {}

    def add(self, bot: RemoteBot) -> None:
        self.bots[bot.player_id] = bot

    def probe(self) -> None:
        for bot in self.bots.values():
            self.link.send(bot.group, {"type": "match.probe"})

    def broadcast(self, message: Json) -> None:
        for bot in self.bots.values():
            bot.tell(message)

    def handle(self, reply: Json) -> None:
        bot = self.bots.get(reply.get("bot"))  # type: ignore[arg-type]
        if bot is None:
            return
        kind, channel = reply.get("kind"), str(reply.get("channel", ""))
        if kind == "hello":
            if channel not in bot.connections and bot.started is not None:
                bot.tell(bot.started)  # a reconnect: tell the new connection what this is
            bot.connections.add(channel)
        elif kind == "bye":
            bot.connections.discard(channel)
        elif kind == "action":
            bot.answers[str(reply.get("request_id"))] = (reply.get("action"),
                                                         reply.get("policy"))

    def pump(self, timeout: float) -> None:
        """Handle the replies that arrive within ``timeout`` seconds (at least one wait)."""
        try:
            self.handle(self.link.inbox.get(timeout=max(0.0, timeout)))
        except queue.Empty:
            return
        while True:
            try:
                self.handle(self.link.inbox.get_nowait())
            except queue.Empty:
                return

    def wait_connected(self, seconds: float) -> None:
        """Until every remote bot has a connection; else ``remote_bots_not_connected``."""
        deadline = time.monotonic() + seconds
        next_probe = 0.0
        while True:
            missing = [b.name for b in self.bots.values() if not b.connections]
            if not missing:
                return
            now = time.monotonic()
            if now >= deadline:
                raise MatchAborted(
                    "remote_bots_not_connected",
                    f"Not connected within {seconds:g} s: {', '.join(missing)}. "
                    "Each remote bot's owner runs it with the SDK "
                    "(python -m botkit.runner --match ID).")
            if now >= next_probe:
                self.probe()
                next_probe = now + 0.5
            self.pump(min(0.1, deadline - now))


class RemoteBot:
    """A match participant played by an SDK bot over ``/ws/matches/<id>/``.

    ``act`` sends ``match_turn`` and waits for the ``match_action`` with the same
    request id for at most ``turn_seconds``; on a timeout it answers a malformed
    action, so :func:`botkit.match.play_match` counts it as illegal and plays the
    default action (check, else fold).  An answer with a ``policy`` is checked
    (:func:`check_policy`): a malformed one refuses the whole answer with an
    ``error`` ``invalid_policy`` (same ``request_id``), and the turn waits on for a
    valid answer; a good one goes with the action to the match (``"policy"``).
    Events the seat may see are buffered by ``observe`` and sent with the next turn
    or ``hand_over`` (one message, not one per event).
    """

    def __init__(self, hub: Hub, player_id: int, name: str, *, turn_seconds: float,
                 reconnect_seconds: float, stack: int) -> None:
        self.hub, self.player_id, self.name = hub, player_id, name
        self.group = bot_group(hub.match_id, player_id)
        self.turn_seconds, self.reconnect_seconds = turn_seconds, reconnect_seconds
        self.stack = stack
        self.connections: set[str] = set()
        self.answers: dict[str, Any] = {}
        self.events: list[Json] = []
        self.started: Json | None = None
        self.turns = self.timeouts = self.hands = self.series = 0
        self.invalid_policies = 0
        self.net = 0
        self.waited = 0.0

    def tell(self, message: Json) -> None:
        self.hub.link.send(self.group, {"type": "match.message", "message": message})

    def _take_events(self) -> list[Json]:
        events, self.events = self.events, []
        return events

    def _await_connection(self) -> None:
        deadline = time.monotonic() + self.reconnect_seconds
        while not self.connections:
            if time.monotonic() >= deadline:
                raise MatchAborted(
                    "remote_bot_disconnected",
                    f"{self.name} lost its connection and did not come back within "
                    f"{self.reconnect_seconds:g} s.")
            self.hub.probe()
            self.hub.pump(0.5)

    # ------------------------------------------------------- the Bot interface
    def new_match(self) -> None:
        self.series += 1
        self.tell({"type": "new_match", "series": self.series})

    def observe(self, event: Json) -> None:
        self.events.append(event)

    def act(self, view: Json) -> Json:
        self._await_connection()
        self.turns += 1
        request_id = f"{self.turns}-{secrets.token_hex(4)}"
        self.tell({"type": "match_turn", "request_id": request_id, "hand": self.hands + 1,
                   "time_left": self.turn_seconds, "events": self._take_events(),
                   "view": {**view, "time_left": self.turn_seconds}})
        started = time.monotonic()
        deadline = started + self.turn_seconds
        reply: Any = None
        while True:
            while request_id not in self.answers:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.hub.pump(left)
            reply = self.answers.pop(request_id, None)
            if reply is None:
                break
            refused = check_policy(view, *reply)
            if not refused:
                break
            self.invalid_policies += 1
            self.tell({"type": "error", "code": "invalid_policy", "message": refused,
                       "request_id": request_id})
            reply = None
        self.waited += time.monotonic() - started
        self.answers.clear()  # late answers to earlier turns
        if reply is None:
            self.timeouts += 1
            return {"kind": "timeout"}  # malformed on purpose: counted, default action played
        answer, policy = reply
        if not isinstance(answer, dict):
            return {"kind": "malformed"}
        if policy is not None and "policy" not in answer:
            return {**answer, "policy": policy}
        return answer

    def hand_over(self, result: Json) -> None:
        self.hands += 1
        seat = result.get("seat")
        seats = result.get("seats") or []
        row = seats[seat] if isinstance(seat, int) and 0 <= seat < len(seats) else None
        net = (row["stack"] - self.stack) if row else 0
        self.net += net
        self.tell({"type": "hand_over", "hand": self.hands, "net": net, "total": self.net,
                   "events": self._take_events(), "view": result})

    def summary(self) -> Json:
        return {"player_id": self.player_id, "turns": self.turns, "timeouts": self.timeouts,
                "invalid_policies": self.invalid_policies,
                "seconds_waiting": round(self.waited, 3)}


def check_policy(view: Json, action: Any, policy: Any) -> str:
    """Why a remote bot's answer is refused for its policy (``""``: it is not).

    A policy must fit :func:`botkit.aivat.validate_policy` for the turn's moves, and a
    legal action must have a positive probability in it (an illegal action is
    counted and replaced as always; its policy is then dropped by the match).
    """
    if policy is None:
        return ""
    from botkit.aivat import PolicyError, validate_policy
    from engine.errors import EngineError
    from engine.game import check_move

    moves = view.get("moves") or []
    try:
        check_move(moves, action)
        legal = True
    except EngineError:
        legal = False
    try:
        validate_policy(moves, policy, action if legal else None)
    except PolicyError as error:
        return str(error)
    return ""
