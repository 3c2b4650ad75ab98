"""Network client of the poker server for bots: REST (``urllib``) and websocket.

Pure Python: the standard library and ``websockets`` only (no Django).

>>> client = RestClient("http://127.0.0.1:8000", token="...")  # doctest: +SKIP
>>> client.me()["bot"]                                          # doctest: +SKIP
{'id': 7, 'name': 'Skynet'}

Every refusal raises :class:`ServerError` with the API's stable ``code``
(docs/api.md); a dropped connection raises :class:`ConnectionLost`, after which
the caller reconnects and resyncs from a snapshot.
"""

from __future__ import annotations

import contextlib
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any

from botkit.bot import Json

__all__ = ["ConnectionLost", "RestClient", "ServerError", "TurnWatch", "WebsocketClient",
           "act_command"]


def act_command(hand: int, version: int, action: Json, policy: list[Json] | None = None
                ) -> Json:
    """The ``act`` command of a turn (docs/protocol.md), for the websocket (``send``) or
    REST (``command``); ``policy`` — the probability of every move the bot might have
    made (docs/aivat.md) — goes beside the action when given.

    >>> act_command(17, 42, {"kind": "call"}, [{"move": {"kind": "call"}, "p": 0.7},
    ...                                        {"move": {"kind": "fold"}, "p": 0.3}])
    ... # doctest: +NORMALIZE_WHITESPACE
    {'type': 'act', 'hand': 17, 'version': 42, 'action': {'kind': 'call'},
     'policy': [{'move': {'kind': 'call'}, 'p': 0.7}, {'move': {'kind': 'fold'}, 'p': 0.3}]}
    """
    command: Json = {"type": "act", "hand": hand, "version": version, "action": action}
    if policy is not None:
        command["policy"] = policy
    return command


class ServerError(Exception):
    """The server refused a request: ``code`` is stable, ``message`` is for humans."""

    def __init__(self, code: str, message: str, status: int = 0,
                 details: Json | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message, self.status, self.details = code, message, status, details or {}


class ConnectionLost(Exception):
    """The server cannot be reached (restarting, network down): reconnect later."""


class RestClient:
    """The REST API (``/api/v1/``) with a bot token; waits out 429 responses by itself."""

    def __init__(self, server: str, token: str, *, timeout: float = 40.0) -> None:
        self.server = server.rstrip("/")
        self.token = token
        self.timeout = timeout

    def request(self, method: str, path: str, body: Json | None = None, *,
                params: dict[str, Any] | None = None, headers: dict[str, str] | None = None,
                raw: bool = False) -> Any:
        url = f"{self.server}/api/v1/{path.lstrip('/')}"
        if params:
            url += "?" + urllib.parse.urlencode({k: v for k, v in params.items()
                                                 if v is not None})
        data = None if body is None else json.dumps(body).encode()
        all_headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json",
                       **(headers or {})}
        if data is not None:
            all_headers["Content-Type"] = "application/json"
        for _attempt in range(20):
            request = urllib.request.Request(url, data=data, method=method, headers=all_headers)
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    payload = response.read()
                    if raw:
                        return payload.decode()
                    return json.loads(payload) if payload else None
            except urllib.error.HTTPError as error:
                payload = error.read()
                try:
                    info = json.loads(payload)["error"]
                except (ValueError, KeyError, TypeError):
                    if error.code >= 500:
                        raise ConnectionLost(f"server error {error.code}") from None
                    raise ServerError("http_error", f"HTTP {error.code}", error.code) from None
                wait = (info.get("details") or {}).get("wait_seconds")
                if error.code == 429 or (error.code == 503 and wait is not None):
                    # throttled, or the server is at capacity (server_busy): nothing was
                    # done; it says when to try again
                    time.sleep(float(wait or 1))
                    continue
                raise ServerError(info["code"], info["message"], error.code,
                                  info.get("details")) from None
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError) as error:
                raise ConnectionLost(str(error)) from None
        raise ServerError("throttled", "Still throttled or busy after many retries.", 429)

    def json(self, method: str, path: str, body: Json | None = None, **options: Any) -> Json:
        """:meth:`request` for endpoints that answer a JSON object."""
        answer = self.request(method, path, body, **options)
        if not isinstance(answer, dict):
            raise ServerError("bad_response", f"Expected a JSON object from {path}.", 0)
        return answer

    # ------------------------------------------------------------ endpoints
    def me(self) -> Json:
        return self.json("GET", "me/")

    def tables(self, **filters: Any) -> Json:
        return self.json("GET", "tables/", params=filters)

    def create_table(self, **settings: Any) -> Json:
        return self.json("POST", "tables/", settings)

    def table(self, table_id: int) -> Json:
        """The snapshot of the table as this bot sees it (``your_turn`` included)."""
        return self.json("GET", f"tables/{table_id}/")

    def command(self, table_id: int, command: Json, *, key: str | None = None) -> Json:
        headers = {"Idempotency-Key": key} if key else None
        return self.json("POST", f"tables/{table_id}/commands/", command, headers=headers)

    def wait(self, table_id: int, since: int, timeout: float = 25.0) -> Json:
        """Long-poll until the table version exceeds ``since``."""
        return self.json("GET", f"tables/{table_id}/wait/",
                            params={"since": since, "timeout": timeout})

    def hands(self, **filters: Any) -> Json:
        return self.json("GET", "hands/", params=filters)

    def match(self, match_id: int) -> Json:
        """A batch match: status, participants, results."""
        return self.json("GET", f"matches/{match_id}/")

    def create_match(self, **settings: Any) -> Json:
        """Start a batch match (``bots`` may name remote bots: ``{"remote": "<name>"}``)."""
        return self.json("POST", "matches/", settings)

    def stats(self, player: str) -> Json:
        return self.json("GET", f"players/{urllib.parse.quote(player)}/stats/")


class TurnWatch:
    """Notices a turn of one's own announced without its ``your_turn``.

    Every ``events`` message names whose turn it is now (``turn``: seat, hand,
    deadline); the ``your_turn`` of the same change goes to the player's connections
    right after it, with the same deadline. When the server loses its message broker
    between the two sends, the player has the change's version but not its turn, and
    ``pong`` shows no gap. So: when an ``events`` message names one of this
    connection's seats for a turn not seen before and no ``your_turn`` with that
    turn's deadline has arrived ``grace`` seconds later, the client should ask for a
    snapshot (which brings the pending ``your_turn``): :meth:`overdue` says when, once
    per turn. A client's seats are those of ``snapshot.you.seats`` and of the
    ``private`` and ``your_turn`` messages it got. Pure logic; ``clock`` is seconds.
    """

    def __init__(self, grace: float = 1.0, clock: Any = time.monotonic) -> None:
        self.grace = grace
        self.clock = clock
        self.seats: set[int] = set()
        self.turn: tuple[Any, Any, Any] | None = None  # the last public turn (seat, hand, deadline)
        self.answered: set[tuple[Any, Any, Any]] = set()  # turns whose your_turn arrived
        self.due: float | None = None  # when the current turn's your_turn is overdue

    def saw(self, message: Json) -> None:
        kind = message.get("type")
        if kind == "snapshot":
            you = message.get("you")
            seats = you.get("seats") if isinstance(you, dict) else None
            if isinstance(seats, list):
                self.seats = {s for s in seats if type(s) is int}
            self.public(message.get("turn"))
        elif kind == "events":
            self.public(message.get("turn"))
        elif kind == "private" and type(message.get("seat")) is int:
            self.seats.add(message["seat"])
        elif kind == "your_turn" and type(message.get("seat")) is int:
            self.seats.add(message["seat"])
            key = (message["seat"], message.get("hand"), message.get("deadline"))
            self.answered.add(key)
            if key == self.turn:
                self.due = None

    def public(self, turn: Any) -> None:
        key = ((turn.get("seat"), turn.get("hand"), turn.get("deadline"))
               if isinstance(turn, dict) else None)
        if key == self.turn:
            return  # the same turn goes on (someone sat down, a chat...)
        self.turn = key
        self.due = None
        if key is not None and key[0] in self.seats and key not in self.answered:
            self.due = self.clock() + self.grace
        if key is None:  # nobody to act: the turns answered so far are over
            self.answered.clear()
        elif len(self.answered) > 64:  # keep the running round's only
            self.answered = {k for k in self.answered if k[1] == key[1]}

    def wait(self) -> float | None:
        """Seconds until :meth:`overdue` may say yes (``None``: nothing awaited)."""
        return None if self.due is None else max(0.0, self.due - self.clock())

    def resynced(self) -> None:
        """A snapshot was asked for: it brings the pending ``your_turn`` too."""
        self.due = None

    def overdue(self) -> bool:
        """True once when the current turn's ``your_turn`` is late: ask for a snapshot."""
        if self.due is None or self.clock() < self.due:
            return False
        self.due = None
        return True


class WebsocketClient:
    """The table websocket (docs/protocol.md) authenticated by the bot token.

    ``path`` picks another websocket of the server, e.g. a batch match's
    ``/ws/matches/<id>/`` (see :meth:`for_match`).

    ``version`` is the highest table version that arrived (``snapshot``, ``events``).
    A ``pong`` carries the table's committed version: when it is ahead, messages were
    lost on the way (the server could not deliver them), so the client asks for a
    snapshot by itself (counted in ``resyncs``) and the caller gets it as usual; so
    it does when an ``events`` message names one of its seats to act and that turn's
    ``your_turn`` does not follow within a second (:class:`TurnWatch`).
    """

    def __init__(self, server: str, token: str, table_id: int | None = None, *,
                 path: str | None = None) -> None:
        parts = urllib.parse.urlsplit(server)
        scheme = "wss" if parts.scheme == "https" else "ws"
        self.url = f"{scheme}://{parts.netloc}{path or f'/ws/tables/{table_id}/'}"
        self.token = token
        self.connection: Any = None
        self._closing = contextlib.ExitStack()
        self.sent = 0
        self.version = 0
        self.resyncs = 0
        self.turns = TurnWatch()

    @classmethod
    def for_match(cls, server: str, token: str, match_id: int,
                  batch: bool = False) -> WebsocketClient:
        """The websocket of batch match ``match_id`` (docs/protocol.md, "Batch matches");
        ``batch``: hand ends may come in one ``batch`` frame with the next message."""
        return cls(server, token,
                   path=f"/ws/matches/{match_id}/" + ("?batch=1" if batch else ""))

    def connect(self) -> None:
        from websockets.sync.client import connect

        try:
            self.connection = self._closing.enter_context(connect(
                self.url, additional_headers={"Authorization": f"Bearer {self.token}"},
                open_timeout=10, close_timeout=2, max_size=2**22))
        except (OSError, TimeoutError) as error:
            raise ConnectionLost(str(error)) from None
        except Exception as error:  # handshake refused (server starting, 5xx)
            raise ConnectionLost(f"{type(error).__name__}: {error}") from None

    def send(self, message: Json) -> None:
        from websockets.exceptions import ConnectionClosed

        self.sent += 1
        message = {"request_id": self.sent, **message}  # a caller's request_id wins
        try:
            self.connection.send(json.dumps(message))
        except (ConnectionClosed, OSError) as error:
            raise ConnectionLost(str(error)) from None

    def messages(self, idle: float = 5.0) -> Iterator[Json | None]:
        """Incoming messages; ``None`` after ``idle`` quiet seconds (then a ping goes out)."""
        from websockets.exceptions import ConnectionClosed

        while True:
            wait = self.turns.wait()
            try:
                text = self.connection.recv(timeout=idle if wait is None else min(idle, wait))
            except TimeoutError:
                if self.turns.overdue():
                    self.resync()
                    continue
                self.send({"type": "ping"})
                yield None
                continue
            except (ConnectionClosed, OSError) as error:
                raise ConnectionLost(str(error)) from None
            message = json.loads(text)
            if isinstance(message, dict):
                self.noticed(message)
            yield message

    def noticed(self, message: Json) -> None:
        """Track the version; a ``pong`` ahead of it asks for a snapshot (a silent gap),
        and so does a turn of ours announced without its ``your_turn``."""
        self.turns.saw(message)
        version = message.get("version")
        if type(version) is not int:
            return
        kind = message.get("type")
        if kind in ("snapshot", "events"):
            self.version = max(self.version, version)
        elif kind == "pong" and version > self.version:
            self.resync()
            return
        if self.turns.overdue():
            self.resync()

    def resync(self) -> None:
        self.turns.resynced()
        self.resyncs += 1
        self.send({"type": "snapshot"})

    def close(self) -> None:
        if self.connection is not None:
            with contextlib.suppress(Exception):  # closing a dead socket is fine
                self._closing.close()
            self.connection = None
