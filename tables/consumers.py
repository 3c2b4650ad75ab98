"""The table websocket (docs/protocol.md): a thin adapter.

Authenticate, check size and rate, decode, call one service, forward what the
fan-out sends. No rules, no game state, no timers here.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import time
from collections.abc import Callable
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib.auth.models import AnonymousUser

from accounts.credentials import Credential
from accounts.models import Player

from . import fanout, limits, owner, presence, selectors, services, wire
from .errors import TableError
from .models import Table, TableStatus
from .outage import TRY_AGAIN_LATER, LayerGuard
from .wire import LoopDispatch, TokenBucket, WireError, decode, reads_in_own_thread

PROTOCOL = 2
log = logging.getLogger(__name__)
CLOSE_CODES = {"not_authenticated": 4401, "session_ended": 4401, "table_not_found": 4404,
               "table_closed": 4410, "too_many_connections": 4429,
               "server_busy": 4503, "unavailable": TRY_AGAIN_LATER}
RECHECK_SECONDS = 1.0  # the credential is re-read at most this often (guard)
# Messages read but not yet worked on, per connection (beyond: rate_limited). The
# rate buckets keep a client well below it; a server slow to work them off does not.
BACKLOG = 32
ENDED = "Your session or bot token has ended (logged out, password changed, token " \
        "regenerated, bot deleted or account deactivated); connect again."


def _parallel() -> bool:
    """``TABLES["DB_PARALLEL"]``: run database calls in asgiref's thread pool instead
    of Channels' one shared thread (off by default: see docs/benchmarks.md, "Scale")."""
    return bool(settings.TABLES.get("DB_PARALLEL", False))


def _collected(call: Callable[..., Any], kwargs: dict[str, Any],
               guard: Credential | None) -> tuple[Any, list[Any]]:
    if guard is not None and not guard.valid():
        raise TableError("session_ended", ENDED)
    with fanout.collecting() as batches:
        return call(**kwargs), batches


async def db(call: Callable[..., Any], *, read_only: bool = False, beside: bool = False,
             guard: Credential | None = None, **kwargs: Any) -> Any:
    """Call a service in a database thread; its fan-out (after the commit) is sent from
    here, on the event loop, before this returns (so before any ``ack``). Read-only
    calls may run beside the commands (:func:`tables.wire.reads_in_own_thread`).
    ``guard``: first check, in the same thread call, that the connection's credential
    still holds (:mod:`accounts.credentials`); else ``session_ended``."""
    shared = not _parallel() and not ((read_only or beside) and reads_in_own_thread())
    result, batches = await database_sync_to_async(
        _collected, thread_sensitive=shared)(call, kwargs, guard)
    if batches:  # committed: a failed fan-out only loses delivery (clients resync), so
        try:     # it never turns the command into an error (logged, rate-limited)
            await fanout.apublish(batches)
        except Exception:
            log.warning("publishing after a commit failed", exc_info=True)
    return result


def _nothing() -> None:
    """(A database call that only checks the connection's credential.)"""


def _committed_version(table_id: int) -> int | None:
    """The table's committed version: one primary-key read (for ``pong``)."""
    version = Table.objects.filter(pk=table_id).values_list("version", flat=True).first()
    return None if version is None else int(version)


GUEST_MESSAGE = "Guests only watch: log in to play or chat."
GUEST_READS = ("ping", "snapshot")  # all a guest may send; anything else: not_authenticated


class Guest(AnonymousUser):
    """The viewer of an anonymous spectator (``settings.PUBLIC_SPECTATING``): no user,
    so it controls no seat. Its ``pk`` is 0, not None, so that a player without an
    owner (a deleted account's) is never taken for its own."""

    id = 0
    pk = 0


def _table_status(table_id: int) -> str | None:
    return Table.objects.filter(pk=table_id).values_list("status", flat=True).first()


def _player_ids(user: Any, bot: Player | None) -> list[int]:
    if bot is not None:
        return [bot.pk]
    return list(Player.objects.live().filter(owner=user).values_list("pk", flat=True))


class TableConsumer(LayerGuard, LoopDispatch, AsyncWebsocketConsumer):
    def needs_channel(self) -> bool:
        # Live tables: the process's host delivers the table's events and credential
        # announcements to its connections (join_table_groups).
        return not owner.enabled()

    async def connect(self) -> None:
        conf = settings.TABLES
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.user = self.scope.get("user")
        self.bot: Player | None = self.scope.get("bot")
        self.version = 0
        self.joined: list[str] = []
        self.registered = False
        self.bucket = TokenBucket(conf["RATE_PER_SECOND"], conf["RATE_BURST"])
        self.backlog: collections.deque[tuple[Any, Callable[[], None] | None]] = \
            collections.deque()
        self.worker: asyncio.Task[None] | None = None
        self.account = ""
        await self.accept()
        self.spectator = False
        self.credential = Credential.of(self.user, self.bot, self.scope.get("session"))
        if self.credential is None and "bot" not in self.scope \
                and getattr(settings, "PUBLIC_SPECTATING", False):
            await self.watch_as_guest()  # a browser without a session (no bearer token)
            return
        if self.credential is None:
            await self.refuse(TableError("not_authenticated",
                                         "Log in, or send “Authorization: Bearer <bot token>”."))
            return
        try:  # running late, a new table is refused before any database call
            if owner.enabled():
                await owner.host().screen(self.table_id)
        except TableError as error:
            await self.refuse(error)
            return
        self.account = limits.account_key(self.user, self.bot)
        self.shared_bucket = limits.join(self.account, bot=self.bot is not None)
        # A superuser's own viewing connection sees everything; a bot (whoever owns it)
        # sees what its seat may see.
        omniscient = selectors.sees_all(self.user, self.bot)
        groups = [fanout.omniscient_group(self.table_id) if omniscient
                  else fanout.public_group(self.table_id)]
        # (a bot is its one player: no database call, which after a takeover queued a
        # reconnecting crowd's handshakes behind each other)
        players = [self.bot.pk] if self.bot is not None else await db(
            _player_ids, read_only=True, user=self.user, bot=self.bot)
        groups += [fanout.player_group(self.table_id, p) for p in players]
        # auth_revoked closes the connection at once
        if not await self.join_table_groups(groups, self.credential.groups):
            return  # the channel layer is down: refused with "unavailable", 1013
        try:
            if owner.enabled():  # this process owns the table from now, if nobody does
                await owner.host().live(self.table_id)
            await self.table_call(services.connect, guard=self.credential,
                                  table_id=self.table_id, channel_name=self.channel_name,
                                  user=self.user, bot=self.bot)
            self.registered = True
            presence.writer().add(self)
            await self.send_snapshot()
        except TableError as error:
            await self.refuse(error)

    async def watch_as_guest(self) -> None:
        """An anonymous spectator: the public projection only (the public group, a
        viewer controlling no seat), no presence, no registered connection; ``ping`` and
        ``snapshot`` only, every other message refused with ``not_authenticated``.
        Its messages count against its address (one shared bucket per address and
        process), and an address has at most ``MAX_CONNECTIONS_PER_USER`` of them."""
        self.spectator = True
        self.user = Guest()
        client = self.scope.get("client") or ("unknown", 0)
        self.account = f"guest:{client[0]}"
        self.shared_bucket = limits.join(self.account, bot=False)
        if self.shared_bucket.users > settings.TABLES["MAX_CONNECTIONS_PER_USER"]:
            await self.refuse(TableError("too_many_connections", "Too many open table "
                                         "connections from your address; close some."))
            return
        status = await db(_table_status, read_only=True, table_id=self.table_id)
        if status is None:
            await self.refuse(TableError("table_not_found", f"There is no table {self.table_id}."))
            return
        if status == TableStatus.CLOSED:
            await self.refuse(TableError("table_closed", "This table is closed."))
            return
        if not await self.join_table_groups([fanout.public_group(self.table_id)], []):
            return
        try:
            await self.send_snapshot()
        except TableError as error:
            await self.refuse(error)

    async def join_table_groups(self, groups: list[str], others: list[str]) -> bool:
        """Receive the table's ``groups`` (and the ``others``): through the channel
        layer, or with live tables (tables.owner) from this process's host."""
        if not owner.enabled():
            return bool(await self.join_groups(groups + others, self.joined, accepted=True))
        host = owner.host()
        await host.start()
        if others and not await host.join_credentials(self, others):
            await self.unavailable(accepted=True)
            return False
        host.attach(self.table_id, self, groups)
        self.attached = True
        return True

    async def refuse(self, error: TableError) -> None:
        self.refused = True  # nothing more is read from this connection
        await self.send_json({"type": "error", "version": self.version, **error.to_json()})
        await self.close(code=CLOSE_CODES.get(error.code, 4400))

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            # The server kills a connection's task whose disconnect is not handled in
            # time (a command still waiting on an overloaded server): what this
            # process holds for it goes all the same (else its table stays loaded
            # with a dead watcher), and the presence sweep stands its player up.
            self.forget()

    def forget(self) -> None:
        """Let go of what this process holds for the connection (at once, once)."""
        self.drop_backlog()
        worker = getattr(self, "worker", None)
        if worker is not None and not worker.done():
            worker.cancel()
        if getattr(self, "account", ""):
            limits.leave(self.account)
            self.account = ""
        if getattr(self, "attached", False):
            self.attached = False
            owner.host().detach(self.table_id, self)
            owner.host().leave_credentials(self, self.credential.groups if self.credential else [])
        if getattr(self, "registered", False):
            presence.writer().remove(self)

    async def disconnect(self, code: int) -> None:
        # Presence first: it is what the table needs (the player is sat out). Leaving
        # the groups is best effort: a failure there (Redis busy when many sockets
        # close at once) must not skip it, and a stale member only expires.
        registered = getattr(self, "registered", False)
        self.drop_backlog()  # (what was not begun is not done for a closed socket)
        worker = getattr(self, "worker", None)
        if worker is not None:
            await asyncio.wait([worker])  # the message in hand first, as before
        self.forget()
        if registered:
            self.registered = False
            await self.table_call(services.disconnect, channel_name=self.channel_name)
        for group in getattr(self, "joined", []):
            try:
                await self.channel_layer.group_discard(group, self.channel_name)
            except Exception:
                log.warning("group_discard %s failed", group, exc_info=True)

    # ------------------------------------------------------------ sending
    async def send_json(self, data: dict[str, Any]) -> None:
        await self.send(text_data=wire.dumps(data))

    async def send_snapshot(self, request_id: Any = None) -> None:
        guard = self.guard()  # (the same check for every read: guard() is once)
        for _ in range(3):
            data = None
            if owner.enabled():  # from the live copy, if this process owns the table
                data = await owner.host().snapshot(self.table_id, self.user, self.bot,
                                                   guard=guard)
            if data is None:
                data = await db(selectors.snapshot, read_only=True, guard=guard,
                                table_id=self.table_id, user=self.user, bot=self.bot)
            # Events sent to this connection while the snapshot was read are newer
            # than it (the owner delivers them meanwhile): a snapshot sent after them
            # would take the client back. Read it again (the commit is done by then).
            if data["version"] >= self.version:
                break
        self.version = max(self.version, data["version"])
        turn = data.pop("your_turn")
        if request_id is not None:
            data["request_id"] = request_id
        await self.send_json(data)
        if turn is not None:
            await self.send_json(turn)

    async def table_message(self, event: dict[str, Any]) -> None:
        """Forward what the fan-out sent to one of this connection's groups (encoded
        once by :func:`tables.fanout.layer_message`)."""
        self.version = max(self.version, event["version"])
        await self.send(text_data=event["text"])

    async def error(self, code: str, message: str, request_id: Any = None,
                    wait_seconds: int | None = None) -> None:
        data = {"type": "error", "version": self.version, "code": code, "message": message}
        if request_id is not None:
            data["request_id"] = request_id
        if wait_seconds is not None:  # server_busy: when to try again
            data["wait_seconds"] = wait_seconds
        await self.send_json(data)

    # ---------------------------------------------------------- receiving
    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Read at once, work on in order. A message waits behind the connection's
        earlier ones here, not unread in the socket: an ``act`` among them holds its
        turn at the table's owner (:meth:`tables.owner.Host.hold_turn`), so a player
        whose act came in time is not timed out because the server is still on the
        player's earlier messages (measured: acts queued 1–6 s behind a sit in a
        seating storm; docs/scale.md, "Timers")."""
        if not (self.registered or getattr(self, "spectator", False)) \
                or getattr(self, "refused", False):
            return
        if not self.bucket.take() or len(self.backlog) >= BACKLOG:
            await self.error("rate_limited", "Too many messages; slow down.")
            return
        try:
            item: Any = decode(text_data)
        except WireError as error:
            item = error
        self.backlog.append((item, self.hold_turn(item)))
        if self.worker is None:
            self.worker = asyncio.ensure_future(self.work())

    def hold_turn(self, item: Any) -> Callable[[], None] | None:
        if not isinstance(item, tuple) or item[0]["type"] != "act" or not owner.enabled():
            return None
        return owner.host().hold_turn(self.table_id, self.user, self.bot, item[0])

    def drop_backlog(self) -> None:
        """Forget the messages not begun yet (closed, refused), releasing their holds."""
        backlog = getattr(self, "backlog", None)
        while backlog:
            _item, release = backlog.popleft()
            if release is not None:
                release()

    async def work(self) -> None:
        """Work off the backlog, one message after the other."""
        try:
            while self.backlog and not getattr(self, "refused", False):
                item, release = self.backlog.popleft()
                try:
                    with presence.writer().working_on(self):  # heard from, now and when done
                        await self._receive(item)
                finally:
                    if release is not None:
                        release()
        except Exception:  # (a bug: the socket closes, as Daphne closes it for a handler's)
            log.exception("a table message failed")
            await self.close(code=1011)
        finally:
            self.worker = None
            if getattr(self, "refused", False):
                self.drop_backlog()

    async def _receive(self, item: Any) -> None:
        if isinstance(item, WireError):
            await self.error(item.code, item.message)
            return
        data, request_id = item
        if not self.shared_bucket.take(limits.cost(data["type"])):
            await self.error("rate_limited", "Too many messages from your account (all its "
                             "connections together); slow down.", request_id)
            return
        try:
            await self.dispatch_message(data["type"], data, request_id)
        except TableError as error:
            if error.code == "session_ended":
                await self.refuse(error)
                return
            await self.error(error.code, error.message, request_id, error.wait_seconds)

    def guard(self) -> Credential | None:
        """The credential to re-check before this command, at most every
        ``RECHECK_SECONDS``: the announcement (:meth:`auth_revoked`) closes the socket at
        once; this backstop catches a lost one within a second without a query on
        every command of a fast bot (docs/security.md, "Sessions and tokens")."""
        now = time.monotonic()
        if now - getattr(self, "checked_at", 0.0) < RECHECK_SECONDS:
            return None
        self.checked_at = now
        return self.credential

    async def auth_revoked(self, event: dict[str, Any]) -> None:
        """The credential ended (:func:`accounts.credentials.announce`): close at once."""
        await self.refuse(TableError("session_ended", ENDED))

    async def register_again(self) -> None:
        """Swept while silent, but heard from again: the player is back (tables.presence)."""
        try:
            await self.table_call(services.connect, guard=self.credential,
                                  table_id=self.table_id, channel_name=self.channel_name,
                                  user=self.user, bot=self.bot)
        except TableError as error:
            await self.refuse(error)

    async def dispatch_message(self, kind: str, data: dict[str, Any], request_id: Any) -> None:
        if self.spectator and kind not in GUEST_READS:
            raise TableError("not_authenticated", GUEST_MESSAGE)
        if kind == "ping":
            # The table's committed version, not what this connection forwarded: a
            # client behind it missed messages (Redis away) and asks for a snapshot.
            # (A live table owned here: the last version sent, which is committed.)
            live = owner.host().lives.get(self.table_id) if owner.enabled() else None
            committed = live.published if live is not None else await db(
                _committed_version, read_only=True, table_id=self.table_id)
            reply = {"type": "pong", "version": self.version if committed is None else committed}
            if request_id is not None:
                reply["request_id"] = request_id
            await self.send_json(reply)
        elif kind == "snapshot":
            await self.send_snapshot(request_id)
        elif kind == "chat":
            await db(services.chat, guard=self.guard(), table_id=self.table_id,
                     user=self.user, bot=self.bot, text=data.get("text"))
            await self.ack(request_id, self.version)
        elif owner.enabled():  # at the table's owner (tables.owner), maybe forwarded
            # The host re-checks every connection's credential each second at once;
            # if that has stalled, this connection checks its own.
            guard = None if owner.host().credentials_checked() else self.guard()
            if guard is not None:
                await db(_nothing, read_only=True, guard=guard)
            version = await owner.host().command(self.table_id, self.user, self.bot, data)
            await self.ack(request_id, version)
        else:  # a table command: the service knows the game's commands (else unknown_type)
            result = await db(services.execute, guard=self.guard(), table_id=self.table_id,
                              user=self.user, bot=self.bot, command=data)
            await self.ack(request_id, result.version)

    async def table_call(self, call: Callable[..., Any], **kwargs: Any) -> Any:
        """Presence (connect, disconnect) in its own transaction; with live tables
        through :meth:`tables.owner.Host.presence`."""
        if owner.enabled():
            return await owner.host().presence(self.table_id, call, **kwargs)
        return await db(call, **kwargs)

    async def ack(self, request_id: Any, version: int) -> None:
        reply: dict[str, Any] = {"type": "ack", "version": version}
        if request_id is not None:
            reply["request_id"] = request_id
        await self.send_json(reply)
