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

**The match itself runs on that loop** (:meth:`Link.run`): ``play_match`` is plain
synchronous code, so it runs in a greenlet that the loop switches into, and a
remote bot's turn switches back out while the bot thinks (:func:`await_only`, the
way SQLAlchemy's asyncio layer runs its synchronous core).  A decision then costs no
thread hop: the turn goes to the consumer's queue and its answer wakes the match in
the same thread (in-memory layer: without the layer's copies either).  The match
thread only waits and stores the progress (the database is not used on the loop).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import queue
import secrets
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any

import greenlet
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


_consumers: dict[str, set[Any]] = {}
"""The match consumers of each bot group in this process, to which a runner of this
process hands its messages directly (:meth:`Link.send`, :meth:`Link.send_local`)."""


def attach(group: str, consumer: Any) -> None:
    """A match consumer of this process joined ``group``."""
    _consumers.setdefault(group, set()).add(consumer)


def detach(group: str, consumer: Any) -> None:
    members = _consumers.get(group)
    if members is not None:
        members.discard(consumer)
        if not members:
            del _consumers[group]


_local_links: dict[str, Link] = {}
"""The runner channels of this process's links (:func:`reply`)."""


def reply(channel: str, message: Json) -> bool:
    """Put a consumer's reply straight into the inbox of a link of this process,
    skipping the layer (in-memory: its copy and the link's pump; Redis: a round trip
    through the Redis server); ``False`` if the runner is in another process (then it
    goes through the layer). Called on the server's loop."""
    link = _local_links.get(channel)
    if link is None:
        return False
    if link.on_loop():
        link.arrived(message)
    else:  # the Redis layer: the link's loop is a thread of its own
        link.loop.call_soon_threadsafe(link.arrived, message)
    return True


def await_only(awaitable: Any) -> Any:
    """Inside :meth:`Link.run`'s greenlet: wait for ``awaitable`` on the loop, letting
    the loop run meanwhile, and return its result (or raise its exception)."""
    parent = greenlet.getcurrent().parent
    if parent is None:
        raise RuntimeError("await_only outside a match greenlet")
    return parent.switch(awaitable)


async def _in_greenlet(call: Callable[[], Any]) -> Any:
    """Run ``call`` in a greenlet, awaiting for it what it hands over (``await_only``)."""
    runner = greenlet.greenlet(call)
    request = runner.switch()
    while not runner.dead:
        try:
            value = await request
        except BaseException as error:  # handed to the match, which decides
            request = runner.throw(error)
        else:
            request = runner.switch(value)
    return request


def _settle(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


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
        self.waiters: list[asyncio.Future[None]] = []  # the match's greenlets (its lanes)
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
        _local_links[self.channel] = self

    def call(self, factory: Callable[[], Coroutine[Any, Any, Any]],
             timeout: float = 10.0) -> Any:
        """Run a layer coroutine on the link's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(factory(), self.loop).result(timeout)

    async def _pump(self) -> None:
        while True:
            self.arrived(await self.layer.receive(self.channel))

    def arrived(self, message: Json) -> None:
        """A reply (on the loop): into the inbox, waking the match greenlet if it waits."""
        self.inbox.put(message)
        for waiter in self.waiters:  # each lane looks (the hub hands the answer to its own)
            _settle(waiter)

    def on_loop(self) -> bool:
        """Whether this is the link's loop (the match greenlet), not another thread."""
        try:
            return asyncio.get_running_loop() is self.loop
        except RuntimeError:
            return False

    def get(self, timeout: float) -> Json | None:
        """The next reply, waiting at most ``timeout`` seconds (None: none came)."""
        if not self.on_loop():
            try:
                return self.inbox.get(timeout=max(0.0, timeout))
            except queue.Empty:
                return None
        if self.inbox.empty() and timeout > 0:
            waiter = self.loop.create_future()
            self.waiters.append(waiter)
            timer = self.loop.call_later(timeout, _settle, waiter)
            try:
                await_only(waiter)
            finally:
                timer.cancel()
                self.waiters.remove(waiter)
        try:
            return self.inbox.get_nowait()
        except queue.Empty:
            return None

    def run(self, call: Callable[[], Any]) -> concurrent.futures.Future[Any]:
        """Start ``call`` (the match) in a greenlet on the link's loop; its future."""
        return asyncio.run_coroutine_threadsafe(_in_greenlet(call), self.loop)

    @staticmethod
    def parallel(calls: list[Callable[[], None]]) -> None:
        """In the match greenlet: run ``calls`` (a match's lanes) in greenlets of their
        own, concurrently, until all are done (the first error cancels the others)."""

        async def together() -> None:
            tasks = [asyncio.ensure_future(_in_greenlet(call)) for call in calls]
            try:
                await asyncio.gather(*tasks)
            except BaseException:
                for task in tasks:
                    task.cancel()
                raise

        await_only(together())

    def send(self, group: str, message: Json) -> None:
        event = {**message, "reply_to": self.channel}
        if self.own_loop is None:  # the in-memory layer: every consumer is in this process
            if self.on_loop():
                members = _consumers.get(group)
                if members:  # straight to the consumers: no queue, no dispatch, no task
                    for consumer in list(members):
                        if consumer.pushed:  # behind what a thread handed it (match_started)
                            consumer.push(event)
                        else:
                            await_only(consumer.deliver(event))
                else:
                    self._deliver(group, event)
            else:
                self.loop.call_soon_threadsafe(self._hand_over, group, event)
        elif self.on_loop():
            await_only(self.layer.group_send(group, event))
        else:
            self.call(lambda: self.layer.group_send(group, event))

    def send_local(self, group: str, message: Json, connections: set[str]) -> bool:
        """The Redis layer: hand ``message`` to the group's consumers without Redis when
        every connection of the bot (``connections``, from their hellos) is a consumer
        of this process; ``False`` (nothing sent) if one is elsewhere."""
        members = _consumers.get(group)
        loop = _main_loop
        if (self.own_loop is None or not members or loop is None
                or {m.channel_name for m in members} != connections):
            return False
        event = {**message, "reply_to": self.channel}
        for consumer in list(members):  # in order: each consumer's own queue (push)
            loop.call_soon_threadsafe(consumer.push, event)
        return True

    def _hand_over(self, group: str, event: Json) -> None:
        """On the server's loop, a message the runner's thread sent (the in-memory layer):
        into each consumer's own queue, so that what the match then sends from the loop
        comes after it (a ``match_turn`` never overtakes the ``match_started``)."""
        members = _consumers.get(group)
        if members:
            for consumer in list(members):
                consumer.push(event)
        else:
            self._deliver(group, event)

    def _deliver(self, group: str, event: Json) -> None:
        """The in-memory layer's ``group_send`` without its cost, on the server's loop.

        ``group_send`` deep-copies every message for every member and the runner waited
        for it to finish: a thread hop there and back per message, most of a remote
        decision's server time (docs/benchmarks.md, "Remote matches"). Here the runner
        does not wait, and the message (built for this send, never changed after) goes
        to each member's queue as it is; messages keep their order (one loop, FIFO).
        """
        layer = self.layer
        assert isinstance(layer, InMemoryChannelLayer)
        expires = time.time() + layer.expiry
        for channel in list(layer.groups.get(group, ())):
            inbox = layer.channels.setdefault(
                channel, asyncio.Queue(maxsize=layer.get_capacity(channel)))
            with contextlib.suppress(asyncio.QueueFull):  # as group_send: a full one misses it
                inbox.put_nowait((expires, event))

    def close(self) -> None:
        _local_links.pop(self.channel, None)
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
            request_id = str(reply.get("request_id"))
            if request_id in bot.asked:  # else late (its turn timed out) or never asked
                bot.answers[request_id] = (reply.get("action"), reply.get("policy"))

    def pump(self, timeout: float) -> None:
        """Handle the replies that arrive within ``timeout`` seconds (at least one wait)."""
        message = self.link.get(timeout)
        if message is None:
            return
        self.handle(message)
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

    A match with lanes (several deals at once) plays the bot in each lane through
    :meth:`lane`: the same connections, answers and counts, the lane's own events,
    and ``"lane"`` in every message so that the SDK keeps one bot per lane.
    """

    def __init__(self, hub: Hub, player_id: int, name: str, *, turn_seconds: float,
                 reconnect_seconds: float, stack: int) -> None:
        self.hub, self.player_id, self.name = hub, player_id, name
        self.group = bot_group(hub.match_id, player_id)
        self.turn_seconds, self.reconnect_seconds = turn_seconds, reconnect_seconds
        self.stack = stack
        self.connections: set[str] = set()
        self.asked: set[str] = set()  # the request ids of the turns waiting for an answer
        self.answers: dict[str, Any] = {}
        self.events: list[Json] = []
        self.started: Json | None = None
        self.turns = self.timeouts = self.hands = self.series = 0
        self.invalid_policies = 0
        self.net = 0
        self.waited = 0.0

    def lane(self, number: int) -> LaneBot:
        """The bot in lane ``number`` of a match with lanes."""
        return LaneBot(self, number)

    def tell(self, message: Json) -> None:
        event = {"type": "match.message", "message": message}
        if not self.hub.link.send_local(self.group, event, self.connections):
            self.hub.link.send(self.group, event)

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
    def new_match(self, lane: dict[str, int] | None = None) -> None:
        if not lane or lane["lane"] == 0:
            self.series += 1
        self.tell({"type": "new_match", "series": self.series, **(lane or {})})

    def observe(self, event: Json) -> None:
        self.events.append(event)

    def act(self, view: Json, lane: dict[str, int] | None = None,
            events: list[Json] | None = None) -> Json:
        self._await_connection()
        self.turns += 1
        request_id = f"{self.turns}-{secrets.token_hex(4)}"
        self.asked.add(request_id)
        self.tell({"type": "match_turn", "request_id": request_id, "hand": self.hands + 1,
                   "time_left": self.turn_seconds,
                   "events": self._take_events() if events is None else events,
                   "view": {**view, "time_left": self.turn_seconds}, **(lane or {})})
        started = time.monotonic()
        deadline = started + self.turn_seconds
        reply: Any = None
        try:
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
        finally:
            self.asked.discard(request_id)  # a late answer is dropped by the hub
        self.waited += time.monotonic() - started
        if reply is None:
            self.timeouts += 1
            return {"kind": "timeout"}  # malformed on purpose: counted, default action played
        answer, policy = reply
        if not isinstance(answer, dict):
            return {"kind": "malformed"}
        if policy is not None and "policy" not in answer:
            return {**answer, "policy": policy}
        return answer

    def hand_over(self, result: Json, lane: dict[str, int] | None = None,
                  events: list[Json] | None = None) -> None:
        self.hands += 1
        seat = result.get("seat")
        seats = result.get("seats") or []
        row = seats[seat] if isinstance(seat, int) and 0 <= seat < len(seats) else None
        net = (row["stack"] - self.stack) if row else 0
        self.net += net
        self.tell({"type": "hand_over", "hand": self.hands, "net": net, "total": self.net,
                   "events": self._take_events() if events is None else events,
                   "view": result, **(lane or {})})

    def summary(self) -> Json:
        return {"player_id": self.player_id, "turns": self.turns, "timeouts": self.timeouts,
                "invalid_policies": self.invalid_policies,
                "seconds_waiting": round(self.waited, 3)}


class LaneBot:
    """:class:`RemoteBot` in one lane of a match: its own events, ``lane`` in messages."""

    def __init__(self, bot: RemoteBot, number: int) -> None:
        self.bot, self.tag = bot, {"lane": number}
        self.events: list[Json] = []

    def _take_events(self) -> list[Json]:
        events, self.events = self.events, []
        return events

    def new_match(self) -> None:
        self.bot.new_match(self.tag)

    def observe(self, event: Json) -> None:
        self.events.append(event)

    def act(self, view: Json) -> Json:
        return self.bot.act(view, self.tag, self._take_events())

    def hand_over(self, result: Json) -> None:
        self.bot.hand_over(result, self.tag, self._take_events())


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
