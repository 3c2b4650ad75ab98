"""The wire rules every websocket of the server shares (docs/protocol.md, "Limits").

A message is one JSON object in one text frame, at most ``MAX_MESSAGE_BYTES``,
nested at most :data:`MAX_JSON_DEPTH` deep, with a string ``type`` and an optional
``request_id`` (string or number, at most 64 characters). :func:`decode` checks all
of it and raises :class:`WireError` with the stable code the client gets back;
:class:`TokenBucket` is the flood limit. :func:`load_json` is the one JSON reader
for client input (the websockets, the REST API's parser ``api.parsers``, the lobby's
small JSON endpoints): see docs/security.md, "Input bounds".
"""

from __future__ import annotations

import json
import logging
import re
import time
from typing import Any

import orjson
from channels.consumer import get_handler_name
from django.conf import settings

try:  # what Daphne raises on a send to a socket the client has just closed
    from autobahn.exception import Disconnected as _SocketClosed
except ImportError:  # pragma: no cover (another ASGI server)
    _SocketClosed = ConnectionError  # type: ignore[assignment,misc]

log = logging.getLogger(__name__)

MAX_JSON_DEPTH = 32
"""The deepest nesting of arrays and objects in any JSON a client sends (``[[1]]`` is
2 deep). No command needs more than a few levels; far deeper input made Python's
JSON reader raise ``RecursionError`` (a closed websocket, a REST 500)."""


def dumps_bytes(data: Any) -> bytes:
    """Compact JSON of server data, UTF-8 (orjson, several times the standard library's
    speed; the standard library for what orjson refuses: integers beyond 64 bits, lone
    surrogates, types it does not know)."""
    try:
        return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(data, separators=(",", ":")).encode()


def dumps(data: Any) -> str:
    """:func:`dumps_bytes` as text (a websocket text frame)."""
    return dumps_bytes(data).decode()


class JsonTooDeep(ValueError):
    """JSON nested deeper than :data:`MAX_JSON_DEPTH` (a ``ValueError``, like bad JSON)."""

    def __init__(self, max_depth: int = MAX_JSON_DEPTH) -> None:
        super().__init__(f"JSON may be nested at most {max_depth} levels deep.")


class UnstorableText(ValueError):
    """A JSON string with NUL (``\\u0000``) or a lone surrogate (``\\ud800``): no text
    column can hold it (PostgreSQL refuses both, in text and in jsonb)."""

    def __init__(self) -> None:
        super().__init__("Text may not contain NUL characters or lone surrogates.")


# A real \u escape (after an even number of backslashes, which are escaped backslashes)
# of NUL, or of a surrogate (paired ones are fine: an emoji; checked on the values).
_NUL_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\u0000")
_SURROGATE_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\u[dD][89a-fA-F]")


def _unstorable(text: str, data: Any) -> bool:
    """True if a string in ``data`` (parsed from ``text``) holds NUL or a lone surrogate.
    Only escapes can put them there (the parser refuses raw control characters, UTF-8
    cannot carry surrogates), so ordinary text costs one ``in``."""
    if "\\u" not in text:
        return False
    if _NUL_ESCAPE.search(text):
        return True
    if _SURROGATE_ESCAPE.search(text):
        try:  # the parser paired what pairs; a lone one cannot be encoded
            json.dumps(data, ensure_ascii=False).encode()
        except UnicodeEncodeError:
            return True
    return False


# Outside its strings, JSON text is ASCII: keep only the brackets, all made square (the
# text was valid JSON, so they nest properly whatever their kind).
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKETS_ONLY = str.maketrans({**{i: None for i in range(128) if chr(i) not in "[]{}"},
                                "{": "[", "}": "]"})


def _too_deep(text: str, max_depth: int) -> bool:
    """True if the (valid) JSON ``text`` nests deeper than ``max_depth``: its brackets,
    with every innermost pair removed once per level. Each step is one pass of C code
    over the text (at most ``max_depth`` of them); no Python loop over the values."""
    skeleton = _JSON_STRING.sub("", text).translate(_BRACKETS_ONLY)
    for _ in range(max_depth):
        if not skeleton:
            return False
        skeleton = skeleton.replace("[]", "")
    return bool(skeleton)


def load_json(text: str, max_depth: int = MAX_JSON_DEPTH, **options: Any) -> Any:
    """``json.loads`` for client input: :class:`JsonTooDeep` beyond ``max_depth``,
    :class:`UnstorableText` for a string no database can store, ``ValueError`` for
    anything that is not JSON.

    The C parser reads first (very deep input stops it with ``RecursionError``); the
    depth is checked only when the text has more brackets than ``max_depth`` at all,
    so an ordinary message costs two ``str.count`` calls more. ``options`` go to
    ``json.loads`` (e.g. ``parse_constant``).

    >>> load_json('{"a": [[1]], "b": "[[[["}', max_depth=3)
    {'a': [[1]], 'b': '[[[['}
    >>> load_json("[" * 33 + "]" * 33)
    Traceback (most recent call last):
    ...
    tables.wire.JsonTooDeep: JSON may be nested at most 32 levels deep.
    >>> load_json(r'["\\\\u0000 is text", "\\ud83d\\ude00"]')  # an escaped backslash; a pair
    ['\\\\u0000 is text', '😀']
    >>> load_json(r'{"text": "a\\u0000b"}')
    Traceback (most recent call last):
    ...
    tables.wire.UnstorableText: Text may not contain NUL characters or lone surrogates.
    """
    try:
        data = json.loads(text, **options)
    except RecursionError:
        raise JsonTooDeep(max_depth) from None
    if (isinstance(data, dict | list) and text.count("[") + text.count("{") > max_depth
            and _too_deep(text, max_depth)):
        raise JsonTooDeep(max_depth)
    if _unstorable(text, data):
        raise UnstorableText
    return data


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
        data = load_json(text_data)
    except JsonTooDeep as error:
        raise WireError("malformed_message", str(error)) from None
    except UnstorableText as error:
        raise WireError("invalid_text", str(error)) from None
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
    """Mixin for the server's websocket consumers: dispatch every message on the event
    loop, and drop what is sent to a socket that has just closed.

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

    async def send(self, text_data: str | None = None, bytes_data: bytes | None = None,
                   close: bool | int = False) -> None:
        """Send, unless the client has just closed the socket: a reply or an event
        that meets the closed socket is dropped (its disconnect handler runs next)
        instead of ending the consumer with an error in the log."""
        try:
            await super().send(text_data, bytes_data, close)  # type: ignore[misc]
        except _SocketClosed:
            log.debug("a send to a closed websocket was dropped")


def reads_in_own_thread() -> bool:
    """Whether read-only database work of a websocket (authenticating a token, the
    snapshot, presence writes) may run in asgiref's thread pool instead of the
    process's one shared database thread, where it would queue behind every pending
    table command: under overload a bot's handshake then outlived Daphne's accept
    timeout and the reconnects fed the queue (docs/benchmarks.md, "Scale"). Not on
    SQLite, which has one writer at a time."""
    return "sqlite" not in settings.DATABASES["default"]["ENGINE"]
