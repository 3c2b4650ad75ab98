"""The MCP server: tools for LLM agents, served at ``/mcp/`` (docs/mcp.md).

Transport: the SDK's Streamable HTTP in **stateless** mode with **JSON** responses.
Every request is authenticated afresh with the bot token and carries everything a
tool needs, so any of several Daphne processes behind a load balancer can answer
it, and no session outlives a revoked token. The SDK's session manager needs its
``run()`` task group, which a Starlette app enters in its ASGI lifespan; Daphne
sends no lifespan events, so :class:`Mount` enters it on the server's own event
loop at the first request (a task that lives as long as the loop).

Authentication: ``Authorization: Bearer <bot token>`` (the REST API's and the
websockets' tokens). A missing, malformed or invalid token is a 401 with the API's
JSON error (``not_authenticated``, ``malformed_token``, ``invalid_token``) before
the SDK sees the request; the tools re-check the token on every call.

Tool results: a text block (the bot's view rendered for a model), a second block
with the JSON, and the same JSON as ``structuredContent``. A refusal is a tool
error (``isError``) whose text is ``{"error": {"code", "message"}}`` with the
table service's stable codes (docs/protocol.md); nothing was changed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from collections.abc import Callable
from typing import Annotated, Any

from django.core.cache import cache
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, ContentBlock, TextContent
from pydantic import Field, ValidationError

from accounts.models import Player
from accounts.tokens import PERSONAL_PREFIX, player_for_bot_token
from api.longpoll import db, wait_until
from tables.errors import TableError

from . import core

log = logging.getLogger(__name__)
# The SDK logs every stateless request at INFO ("Terminating session: None"): too chatty
# for the server's log. Its warnings and errors still show.
logging.getLogger("mcp").setLevel(logging.WARNING)
Json = dict[str, Any]
SCOPE_KEY = "poker.bot"  # (bot id, token hash) in the ASGI scope, set by Mount
MAX_WAIT_SECONDS = 60.0
MAX_BODY_BYTES = 256 * 1024
PATHS = ("/mcp", "/mcp/")

INSTRUCTIONS = """\
You play games (Texas Hold'em and other poker variants, Tuppi, dice...) on a game
server as a bot. Typical loop: list_tables → sit → repeat {wait_for_my_turn → act
(with a short reason)} → leave. The moves you may make are always listed in the
state as generic descriptors (kind, params with min/max or options): call act with
exactly one of them. Amounts in poker bets/raises are raise-to totals."""


def _result(data: Json, text: str | None = None) -> CallToolResult:
    payload = json.dumps(data, separators=(",", ":"), ensure_ascii=False, default=str)
    content: list[ContentBlock] = [TextContent(type="text", text=text)] if text else []
    content.append(TextContent(type="text", text=payload))
    return CallToolResult(content=content, structured_content=data)


def _error(code: str, message: str) -> CallToolResult:
    data = {"error": {"code": code, "message": message}}
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(data))],
                          structured_content=data, is_error=True)


class PokerMCP(MCPServer[Any]):
    """Argument validation errors and crashes also answer ``{"error": {code, message}}``."""

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context[Any, Any] | None = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            if isinstance(error.__cause__, ValidationError):
                fields = sorted({".".join(str(p) for p in e["loc"])
                                 for e in error.__cause__.errors()})
                return _error("invalid_arguments",
                              f"Invalid arguments for {name}: {', '.join(fields)}.")
            if "Unknown tool" in str(error):
                return _error("unknown_tool", str(error))
            log.exception("MCP tool %s failed", name)
            return _error("server_error", "The server could not run this tool.")


server = PokerMCP(name="poker-server", title="Poker AI test bed", instructions=INSTRUCTIONS,
                  version="1", log_level="WARNING")


def _bot_of(ctx: Context[Any, Any]) -> tuple[int, str]:
    request = ctx.request_context.request
    scope = getattr(request, "scope", None) or {}
    ident = scope.get(SCOPE_KEY)
    if not ident:
        raise TableError("not_authenticated", "Send Authorization: Bearer <bot token>.")
    return ident  # type: ignore[no-any-return]


async def _call(ctx: Context[Any, Any], function: Callable[..., Json], *args: Any,
                **kwargs: Any) -> CallToolResult:
    """Run ``function(bot, ...)`` off the loop; a refusal becomes a tool error."""
    try:
        bot_id, token_hash = _bot_of(ctx)

        def run() -> Json:
            return function(core.authenticated_bot(bot_id, token_hash), *args, **kwargs)

        data = await db(run)
    except TableError as error:
        return _error(error.code, error.message)
    except Exception:
        log.exception("MCP tool %s failed", getattr(function, "__name__", function))
        return _error("server_error", "The server could not run this tool.")
    return _result(data, data.pop("text", None))


TableId = Annotated[int, Field(description="The table's id (from list_tables).")]


@server.tool()
async def whoami(ctx: Context[Any, Any]) -> CallToolResult:
    """Your bot: name, balance (chips off the tables), the tables where you sit, and
    whether your owner may create tables and start matches."""
    return await _call(ctx, core.me)


@server.tool()
async def list_tables(
    ctx: Context[Any, Any],
    game: Annotated[str, Field(description="Only this game: holdem, omaha, tuppi, dice, "
                                           "... (empty: every game).")] = "",
    free_seats: Annotated[int | None, Field(description="At least this many free seats.")]
    = None,
    max_turn_seconds: Annotated[int | None, Field(description="Turn time at most this.")]
    = None,
) -> CallToolResult:
    """The open tables: game, settings (blinds, buy-ins...), seats and free seats, who
    sits there, the turn time in seconds (a move not made in time is played by the
    server's default: prefer tables with 30-120 s turns, or create one)."""
    return await _call(ctx, core.list_tables, game, free_seats, max_turn_seconds)


@server.tool()
async def create_table(
    ctx: Context[Any, Any],
    name: Annotated[str, Field(description="1-80 characters, unique.")],
    game: Annotated[str, Field(description="A game's key: holdem (default), omaha, "
                                           "tuppi, dice, ...")] = "holdem",
    settings: Annotated[dict[str, Any] | None, Field(
        description="The game's settings, e.g. holdem {\"structure\": \"NL\", "
                    "\"small_blind\": 1, \"big_blind\": 2, \"seats\": 2}; dice "
                    "{\"seats\": 1, \"rules\": \"yatzy\"}. Missing keys take defaults.")]
    = None,
    turn_seconds: Annotated[int, Field(description="Seconds per decision, 3-3600.")] = 60,
) -> CallToolResult:
    """Create a table (if your owner may create tables) with a turn time that suits you
    (default 60 s). Then sit at it; seat an opponent from the browser or wait for one."""
    return await _call(ctx, core.create_table, name, game, settings, turn_seconds)


@server.tool()
async def sit(
    ctx: Context[Any, Any], table_id: TableId,
    seat: Annotated[int | None, Field(description="The seat number (default: the first "
                                                  "free one).")] = None,
    buy_in: Annotated[int | None, Field(description="Chips to bring (poker; default: the "
                                                    "table's default buy-in).")] = None,
    options: Annotated[dict[str, Any] | None, Field(
        description="Other seat options of the game, if any.")] = None,
    auto_muck: Annotated[bool, Field(description="Let the server answer formalities "
                                                 "(poker: show or muck) with their default "
                                                 "(muck).")] = True,
) -> CallToolResult:
    """Sit down at a table as your bot. Returns your view of the table."""
    return await _call(ctx, core.sit, table_id, seat, buy_in, options, auto_muck)


@server.tool()
async def get_state(ctx: Context[Any, Any], table_id: TableId) -> CallToolResult:
    """Your view of a table now: your cards, the board, pot, stacks, whose turn, your
    legal moves (with min/max), the opponents' HUD (VPIP/PFR/AF), recent chat and the
    last finished hand's result."""
    return await _call(ctx, core.get_state, table_id)


@server.tool()
async def wait_for_my_turn(
    ctx: Context[Any, Any], table_id: TableId,
    timeout: Annotated[float, Field(description="Seconds to wait, 0-60.")] = 30,
) -> CallToolResult:
    """Wait until it is your turn, the current hand ends, or the time is up; then
    return your view (as get_state) with `reason`: your_turn, hand_ended, game_over,
    not_seated or timeout."""
    try:
        bot_id, token_hash = _bot_of(ctx)
        if not timeout >= 0:  # also NaN
            raise TableError("malformed_message", "timeout is 0 to 60 seconds.")

        def look() -> Json:
            return core.state(table_id, core.authenticated_bot(bot_id, token_hash))

        first = await db(look)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + min(timeout, MAX_WAIT_SECONDS)
        now = first
        reason = "timeout"
        while True:
            if now["your_turn"]:
                reason = "your_turn"
                break
            if now["status"] in ("finished", "closed"):
                reason = "game_over"
                break
            if not now["seats_mine"]:
                reason = "not_seated"
                break
            if now is not first and first["hand"] is not None and now["hand"] != first["hand"]:
                reason = "hand_ended"
                break
            left = deadline - loop.time()
            if left <= 0:
                break
            await wait_until(table_id, now["version"], left)
            now = await db(look)

        def final() -> Json:
            return core.state(table_id, core.authenticated_bot(bot_id, token_hash),
                              with_last=reason != "your_turn")

        data = now if reason == "your_turn" else await db(final)
    except TableError as error:
        return _error(error.code, error.message)
    except Exception:
        log.exception("MCP tool wait_for_my_turn failed")
        return _error("server_error", "The server could not run this tool.")
    data["reason"] = reason
    text = f"[{reason}]\n" + data.pop("text", "")
    return _result(data, text)


@server.tool()
async def act(
    ctx: Context[Any, Any], table_id: TableId,
    kind: Annotated[str, Field(description="The move's kind, one of your legal moves "
                                           "(e.g. fold, check, call, bet, raise, play, "
                                           "roll, score).")],
    params: Annotated[dict[str, Any] | None, Field(
        description="The move's parameters as its descriptor says, e.g. {\"amount\": 12} "
                    "(poker bet/raise: the raise-to total), {\"card\": \"9c\"}, "
                    "{\"hold\": [0, 2]}.")] = None,
    reason: Annotated[str | None, Field(
        description="Why (at most 2000 characters): stored with the hand, shown to your "
                    "owner in the hand history, never to opponents.")] = None,
) -> CallToolResult:
    """Make your move now (only when it is your turn). Returns your view afterwards."""
    return await _call(ctx, core.act, table_id, kind, params, reason)


@server.tool()
async def seat_command(
    ctx: Context[Any, Any], table_id: TableId,
    command: Annotated[str, Field(description="One of seat_commands in the state: away, "
                                              "back, and the game's own (poker: sit_out, "
                                              "sit_in, wait_for_bb, add_chips).")],
    params: Annotated[dict[str, Any] | None, Field(
        description="The command's fields, e.g. add_chips {\"amount\": 200}.")] = None,
) -> CallToolResult:
    """Sit out or back in, top up your chips (poker: add_chips when your stack is low or
    0, then sit_in), step away or come back."""
    return await _call(ctx, core.seat_command, table_id, command, params)


@server.tool()
async def chat(ctx: Context[Any, Any], table_id: TableId,
               text: Annotated[str, Field(description="One line, at most 500 characters.")]
               ) -> CallToolResult:
    """Say something at the table (everyone watching sees it; a few lines a minute)."""
    return await _call(ctx, core.chat, table_id, text)


@server.tool()
async def leave(ctx: Context[Any, Any], table_id: TableId) -> CallToolResult:
    """Leave the table; your chips go back to your balance (in a poker hand you fold
    first)."""
    return await _call(ctx, core.leave, table_id)


@server.tool()
async def start_match(
    ctx: Context[Any, Any],
    bots: Annotated[list[str], Field(description="House bot styles, one per seat, e.g. "
                                                 "[\"rule_based\", \"random\"].")],
    hands: Annotated[int, Field(description="Number of hands (rounds).")] = 1000,
    game: Annotated[str, Field(description="A game's key (default holdem).")] = "holdem",
    seed: int = 1,
    duplicate: bool = False,
    settings: Annotated[dict[str, Any] | None, Field(
        description="Another game's table settings (not Hold'em, whose table is "
                    "structure/blinds below).")] = None,
    structure: Annotated[str, Field(description="Hold'em: NL, PL or FL.")] = "NL",
) -> CallToolResult:
    """For testers: start a batch match between house bots (played in the background);
    poll it with match_status."""
    data: Json = {"bots": bots, "hands": hands, "game": game, "seed": seed,
                  "duplicate": duplicate}
    if game == "holdem":
        data["structure"] = structure
    elif settings is not None:
        data["settings"] = settings
    return await _call(ctx, core.start_match, data)


@server.tool()
async def match_status(ctx: Context[Any, Any], match_id: int) -> CallToolResult:
    """A batch match: status (queued, running, done, failed) and, when done, each bot's
    result in mbb per hand with its 95 % interval."""
    return await _call(ctx, core.match_status, match_id)


# ------------------------------------------------------------------ ASGI


class Mount:
    """The ASGI application for ``/mcp/``: authentication, then the SDK's manager."""

    def __init__(self) -> None:
        self._managers: dict[int, tuple[StreamableHTTPSessionManager, asyncio.Future[None]]] \
            = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}

    async def manager(self) -> StreamableHTTPSessionManager:
        """The session manager of the running loop, its ``run()`` entered once."""
        loop = asyncio.get_running_loop()
        entry = self._managers.get(id(loop))
        if entry is None:
            manager = StreamableHTTPSessionManager(
                app=server._lowlevel_server, json_response=True, stateless=True,
                max_request_body_size=MAX_BODY_BYTES,
                # Bearer tokens, no cookies: a rebinding page could not authenticate.
                security_settings=TransportSecuritySettings(
                    enable_dns_rebinding_protection=False))
            started: asyncio.Future[None] = loop.create_future()
            entry = self._managers[id(loop)] = (manager, started)

            async def keep_running() -> None:
                try:
                    async with manager.run():
                        started.set_result(None)
                        await asyncio.Event().wait()  # as long as the loop runs
                except BaseException as error:
                    if not started.done():
                        started.set_exception(RuntimeError(f"MCP manager stopped: {error!r}"))
                    self._managers.pop(id(loop), None)
                    raise

            # A reference to the task: the loop keeps only weak ones.
            self._tasks[id(loop)] = loop.create_task(keep_running(), name="mcp-session-manager")
        await asyncio.shield(entry[1])
        return entry[0]

    async def __call__(self, scope: Json, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        headers = dict(scope.get("headers") or [])
        raw = headers.get(b"authorization", b"")
        parts = raw.split()
        if not parts:
            await _deny(send, "not_authenticated", "Send Authorization: Bearer <bot token>.")
            return
        if len(parts) != 2 or parts[0].lower() != b"bearer":
            await _deny(send, "malformed_token",
                        "Malformed Authorization header: expected “Bearer <token>”.")
            return
        try:
            token = parts[1].decode("ascii")
        except UnicodeDecodeError:
            await _deny(send, "malformed_token", "The bot token contains invalid characters.")
            return
        if token.startswith(PERSONAL_PREFIX):
            await _deny(send, "invalid_token", "The MCP server needs a bot token (pkb_…), "
                        "not a personal token: the tools play as a bot.")
            return
        bot: Player | None = await db(player_for_bot_token, token)
        if bot is None or bot.owner is None:
            await _deny(send, "invalid_token", "This bot token is not valid: the bot was "
                        "deleted, its token was regenerated, or its owner's account is "
                        "inactive.")
            return
        if scope.get("method") == "GET":
            # The optional SSE stream of server-initiated messages: this server sends
            # none (stateless, JSON answers), so it says so (MCP spec: 405) instead of
            # holding a connection open for nothing.
            await _deny(send, "method_not_allowed", "This endpoint has no SSE stream: POST "
                        "JSON-RPC messages.", status=405,
                        headers=[(b"allow", b"POST, DELETE")])
            return
        length = headers.get(b"content-length", b"0")
        if length.isdigit() and int(length) > MAX_BODY_BYTES:  # as the API: JSON, a code
            await _deny(send, "request_too_large", f"A request is at most {MAX_BODY_BYTES} "
                        "bytes.", status=413, headers=[], details={"max_bytes": MAX_BODY_BYTES})
            return
        wait = await db(over_rate, bot.pk)
        if wait:
            await _deny(send, "throttled", f"Too many MCP requests; wait {wait} s.", status=429,
                        headers=[(b"retry-after", str(wait).encode())], wait=wait)
            return
        scope = {**scope, SCOPE_KEY: (bot.pk, bot.token_hash)}
        manager = await self.manager()
        await manager.handle_request(scope, receive, send)


async def _deny(send: Any, code: str, message: str, *, status: int = 401,
                headers: list[tuple[bytes, bytes]] | None = None, wait: int = 0,
                details: Json | None = None) -> None:
    if details is None:
        details = {"scope": "mcp", "wait_seconds": wait} if wait else {}
    body = json.dumps({"error": {"code": code, "message": message,
                                 "details": details}}).encode()
    extra = headers if headers is not None else [(b"www-authenticate", b'Bearer realm="mcp"')]
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        *extra]})
    await send({"type": "http.response.body", "body": body})


def rate_per_minute() -> int:
    """Requests per bot and minute (``MCP_RATE_PER_MINUTE``, default 3000: the REST
    API's default rate; a model makes a few a minute, a scripted client more)."""
    return int(os.environ.get("MCP_RATE_PER_MINUTE", "3000"))


def over_rate(bot_id: int) -> int:
    """0 if the bot may make this request, else the seconds to wait. A fixed window per
    minute in Django's cache (shared when the cache is); fails open if the cache is away,
    as the API's throttle does."""
    window = int(time.time() // 60)
    key = f"mcp.rate.{bot_id}.{window}"
    try:
        cache.add(key, 0, 120)
        count = cache.incr(key)
    except Exception as error:  # the cache (Redis) is away: allow, as api.throttles
        log.warning("MCP rate limit not checked: %s", error)
        return 0
    if count <= rate_per_minute():
        return 0
    return max(1, 60 - int(time.time()) % 60)


application = Mount()


def handles(scope: Json) -> bool:
    """Whether ``scope`` is a request for the MCP endpoint."""
    return scope.get("type") == "http" and scope.get("path") in PATHS
