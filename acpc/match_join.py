"""``MATCH:<id>``: an ACPC connection as the remote participant of a batch match
created elsewhere (the web page, ``POST /api/v1/matches/``; docs/acpc.md, "Batch
matches").

Such a match is played by its runner (:func:`research.services.run_match`, in the
process that started it), which talks to its remote bots only through the channel
layer (:mod:`research.remote`). This session stands where the bot's websocket
consumer would (:mod:`research.consumers`):

* it joins the group :func:`research.remote.bot_group` of (match, bot) and the token's
  revocation groups (:class:`accounts.credentials.Credential`);
* ``match.probe`` is answered with a ``match.reply`` ``hello``, the client going away
  with ``bye``;
* of the ``match.message`` messages, ``match_turn`` (its ``events`` and ``view``)
  becomes the client's ``MATCHSTATE`` line and each valid answer a ``match.reply``
  ``action`` with the turn's ``request_id``; ``hand_over`` sends the hand's final
  state; ``match_over`` ends the connection with ``# DONE match ...``. The events and
  answers go through :class:`botkit.acpc.AcpcMatchBot`, as in the listener's own
  batch matches (``OPPONENT:``), so lines are read and refused the same way.

The runner and the listener are different processes: this needs the Redis channel
layer (``bin/scaleout``). With the in-memory layer of plain ``bin/serve`` the
connection is refused with ``# ERROR not_supported``.

One event loop per listener process (a daemon thread) carries the layer calls of
every ``MATCH`` session; each session has its own channel and a thread that reads the
socket, both feeding one queue that the session's thread works through.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import queue
import threading
import time
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from botkit import acpc

if TYPE_CHECKING:
    from accounts.models import Player

    from .server import LineSocket

Json = dict[str, Any]
log = logging.getLogger(__name__)
IDLE_CHECK_SECONDS = 5.0  # with nothing from the runner: is the match still on?
RECHECK_SECONDS = 1.0  # an answer re-checks the bot token at most this often
NOT_SUPPORTED = ("MATCH needs the Redis channel layer (bin/scaleout): with the in-memory "
                 "layer the listener cannot reach the match runner (docs/acpc.md).")


class Layer:
    """The listener process's channel layer on an event loop of its own (one for all
    ``MATCH`` sessions): Redis only."""

    _lock = threading.Lock()
    _shared: Layer | None = None

    def __init__(self, layer: Any) -> None:
        self.layer = layer
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, name="acpc-layer", daemon=True).start()

    @classmethod
    def get(cls) -> Layer | None:
        """The shared layer, or ``None`` when the channel layer is not shared between
        processes (the in-memory layer, or none)."""
        from channels import DEFAULT_CHANNEL_LAYER
        from channels.layers import InMemoryChannelLayer, channel_layers, get_channel_layer

        layer = get_channel_layer()
        if layer is None or isinstance(layer, InMemoryChannelLayer):
            return None
        with cls._lock:
            if cls._shared is None:
                # An instance of our own: channels_redis binds its state to one loop.
                cls._shared = cls(channel_layers.make_backend(DEFAULT_CHANNEL_LAYER))
            return cls._shared

    def call(self, factory: Callable[[], Coroutine[Any, Any, Any]], timeout: float = 10.0) -> Any:
        return asyncio.run_coroutine_threadsafe(factory(), self.loop).result(timeout)


def check_match(match_id: int, bot: Player) -> Json:
    """The match's settings if ``bot`` may join it as its remote participant; else
    :class:`~acpc.server.Refused` with the websocket's codes (docs/protocol.md)."""
    from research.models import MatchRun, MatchStatus

    from .server import Refused

    match = MatchRun.objects.filter(pk=match_id).first()
    if match is None:
        raise Refused("match_not_found", f"There is no match {match_id}.")
    participants = match.settings.get("participants") or []
    if not any(p.get("kind") == "remote" and p.get("player_id") == bot.pk
               for p in participants):
        raise Refused("not_a_participant",
                      f"{bot.name} is not a remote participant of match {match_id}.")
    if match.status in (MatchStatus.DONE, MatchStatus.FAILED):
        raise Refused("match_over", f"Match {match_id} is over ({match.status}).")
    settings: Json = match.settings
    return settings


class MatchJoin:
    """One ACPC client as a match's remote participant, until ``match_over`` or until
    the client goes away."""

    def __init__(self, io: LineSocket, bot: Player, match_id: int, layer: Layer) -> None:
        from accounts.credentials import Credential
        from research.remote import bot_group

        self.io, self.bot, self.match_id, self.layer = io, bot, match_id, layer
        self.credential = Credential.of(bot.owner, bot)
        self.groups = [bot_group(match_id, bot.pk),
                       *(self.credential.groups if self.credential else [])]
        self.inbox: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.channel = ""
        self.reply_to = ""
        self.hands = self.net = 0
        self.checked = time.monotonic()
        self.limit, self.stack, self.lanes = False, 0, 1
        # Per lane (a match with lanes plays several deals at once, docs/protocol.md):
        # the hand's conversion and the request id of the turn waiting for an answer.
        self.adapters: dict[int, acpc.AcpcMatchBot] = {}
        self.requests: dict[int, str] = {}

    # ---------------------------------------------------------------- set-up
    def run(self) -> None:
        settings = check_match(self.match_id, self.bot)
        structure = settings.get("structure", "NL")
        stack = int(settings["stack_bb"]) * int(settings["big_blind"])
        self.limit, self.stack = structure == "FL", stack
        self.lanes = max(1, int(settings.get("lanes") or 1))
        layer = self.layer.layer
        try:
            self.channel = self.layer.call(layer.new_channel)
        except Exception as error:
            raise _unavailable(error) from None
        pump = asyncio.run_coroutine_threadsafe(self._pump(), self.layer.loop)
        try:
            for group in self.groups:
                try:
                    self.layer.call(functools.partial(layer.group_add, group, self.channel))
                except Exception as error:
                    raise _unavailable(error) from None
            threading.Thread(target=self._read, name="acpc-match-reader", daemon=True).start()
            self.io.send(f"# JOINED match {self.match_id} as {self.bot.name}: {structure} "
                         f"{settings['small_blind']}/{settings['big_blind']}, stack {stack}, "
                         f"{settings['hands']} hands" + (" (duplicate)" if settings.get(
                             "duplicate") else "") + "; waiting for the match")
            self._loop()
        finally:
            for group in self.groups:
                with contextlib.suppress(Exception):
                    self.layer.call(functools.partial(layer.group_discard, group,
                                                      self.channel), timeout=5)
            self._reply("bye")
            pump.cancel()

    async def _pump(self) -> None:
        try:
            while True:
                message = await self.layer.layer.receive(self.channel)
                self.inbox.put(("layer", message))
        except Exception as error:  # the session ends: it would hear nothing more
            self.inbox.put(("layer_error", error))

    def _read(self) -> None:
        from .server import Closed, Refused

        try:
            while True:
                line = self.io.read_line(None)
                if line is not None:
                    self.inbox.put(("line", line))
        except (Closed, Refused, OSError):
            self.inbox.put(("closed", None))

    def _reply(self, kind: str, **fields: Any) -> None:
        if not self.reply_to:
            return
        message = {"type": "match.reply", "bot": self.bot.pk, "channel": self.channel,
                   "kind": kind, **fields}
        try:
            self.layer.call(lambda: self.layer.layer.send(self.reply_to, message), timeout=5)
        except Exception:
            log.exception("ACPC MATCH:%s: could not reply %s to the runner", self.match_id, kind)

    # ---------------------------------------------------------------- the session
    def _loop(self) -> None:
        from .server import Refused

        while True:
            try:
                source, item = self.inbox.get(timeout=IDLE_CHECK_SECONDS)
            except queue.Empty:
                self._idle_check()
                continue
            if source == "closed":
                return
            if source == "layer_error":
                raise _unavailable(item)
            if source == "line":
                self._line(item)
                continue
            kind = item.get("type")
            if kind == "auth.revoked":
                raise Refused("session_ended", "This bot token has ended (regenerated, bot "
                                               "deleted or owner deactivated).")
            if "reply_to" in item:
                first = not self.reply_to
                self.reply_to = item["reply_to"]
                if first and kind != "match.probe":
                    # Joined a running match (a reconnect): say hello at once, so that the
                    # runner counts this connection and tells it the match is on, even
                    # if it never learns that the old one went away.
                    self._reply("hello")
            if kind == "match.probe":
                self._reply("hello")
            elif kind == "match.message" and self._message(item.get("message") or {}):
                return

    def _idle_check(self) -> None:
        """A match that ended while its ``match_over`` was lost (the layer was down)."""
        from research.models import MatchRun, MatchStatus

        from .server import Refused

        status = MatchRun.objects.filter(pk=self.match_id).values_list("status", flat=True) \
            .first()
        if status in (None, MatchStatus.DONE, MatchStatus.FAILED):
            raise Refused("match_over", f"Match {self.match_id} is over ({status}).")
        self._token_valid(force=True)

    def _token_valid(self, force: bool = False) -> None:
        from .server import Refused

        if not force and time.monotonic() - self.checked < RECHECK_SECONDS:
            return
        self.checked = time.monotonic()
        if self.credential is None or not self.credential.valid():
            raise Refused("session_ended", "This bot token has ended (regenerated, bot "
                                           "deleted or owner deactivated).")

    def _adapter(self, lane: int) -> acpc.AcpcMatchBot:
        if lane not in self.adapters:
            self.adapters[lane] = acpc.AcpcMatchBot(self.io.send, limit=self.limit,
                                                    stack=self.stack)
        return self.adapters[lane]

    def _message(self, message: Json) -> bool:
        """A message of the runner; True at the end of the match."""
        kind = message.get("type")
        lane = message.get("lane", 0)
        lane = lane if isinstance(lane, int) else 0
        if kind == "match_started":
            others = [n for n in message.get("bots") or [] if n != message.get("bot")]
            settings = message.get("settings") or {}
            self.io.send(f"# MATCH {self.match_id}: {message.get('bot')} against "
                         f"{', '.join(others)}, {message.get('hands')} hands"
                         + (" (duplicate)" if settings.get("duplicate") else ""))
        elif kind == "match_turn":
            adapter = self._adapter(lane)
            for event in message.get("events") or []:
                adapter.observe(self._numbered(event, lane))
            self.requests.pop(lane, None)
            move = adapter.start_turn(message.get("view") or {})
            if move is not None:  # not asked (a muck)
                self._reply("action", request_id=str(message.get("request_id")), action=move)
            else:
                self.requests[lane] = str(message.get("request_id"))
        elif kind == "hand_over":
            adapter = self._adapter(lane)
            self.requests.pop(lane, None)
            adapter.turn = None  # a turn not answered in time is over
            for event in message.get("events") or []:
                adapter.observe(self._numbered(event, lane))
            self.hands = int(message.get("hand") or 0)
            self.net = int(message.get("total") or 0)
        elif kind == "match_over":
            error = message.get("error") or {}
            if message.get("status") == "done":
                self.io.send(f"# DONE match {self.match_id}: {self.hands} hands, "
                             f"{self.net} chips")
            else:
                self.io.send(f"# ERROR match_failed: Match {self.match_id} failed: "
                             f"{error.get('code', '')}: {error.get('message', '')}")
            return True
        elif kind == "going_away":
            return True  # the runner drops this connection on purpose
        elif kind == "error":
            self.io.send(f"# ERROR {message.get('code')}: {message.get('message')}")
        return False

    def _numbered(self, event: Json, lane: int) -> Json:
        """With lanes every lane's table numbers its own hands: the states get
        ``number × lanes + lane``, one number per hand of the match."""
        if self.lanes == 1 or event.get("type") != "HandStarted":
            return event
        return {**event, "number": int(event.get("number") or 0) * self.lanes + lane}

    def _line(self, line: str) -> None:
        """A line of the client: to the turn whose state it echoes (with lanes several
        turns may wait, one per lane), else to any waiting turn, which refuses it."""
        waiting = [lane for lane in self.requests if self.adapters[lane].waiting]
        if not waiting:
            self._adapter(0).answer(line)  # "not your turn" (comments ignored)
            return
        lane = waiting[0]
        if len(waiting) > 1:
            with contextlib.suppress(acpc.AcpcError):
                echo = acpc.parse_match_state(line)
                lane = next((n for n in waiting
                             if acpc.same_state(echo, self.adapters[n].turn_state,
                                               self.limit)),
                            lane)
        move = self.adapters[lane].answer(line)
        if move is None:
            return
        self._token_valid()
        self._reply("action", request_id=self.requests.pop(lane), action=move)


def _unavailable(error: BaseException) -> Exception:
    from .server import Refused

    log.warning("ACPC MATCH: the channel layer failed: %r", error)
    return Refused("unavailable", "The channel layer (Redis) cannot be reached; connect "
                                  "again in a moment.")


def join(io: LineSocket, bot: Player, match_id: int) -> None:
    """Serve ``MATCH:<id>`` (see the module doc); refusals raise
    :class:`~acpc.server.Refused`."""
    from .server import Refused

    layer = Layer.get()
    if layer is None:
        raise Refused("not_supported", NOT_SUPPORTED)
    MatchJoin(io, bot, match_id, layer).run()
