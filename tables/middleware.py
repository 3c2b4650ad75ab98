"""Websocket authentication: bots by ``Authorization: Bearer <token>``, browsers by session.

:func:`websocket_auth` wraps the router:

* With an ``Authorization: Bearer`` header the connection is a bot: ``scope["user"]``
  is the bot's owner and ``scope["bot"]`` the bot (an invalid token leaves the user
  anonymous, so the consumer refuses it with ``not_authenticated``). No Origin is
  needed: browsers cannot set this header on a websocket, and no cookie is used, so
  cross-site websocket hijacking (what the Origin check prevents) cannot happen.
* Otherwise the Django session authenticates (``AuthMiddlewareStack``) and the
  Origin header must match ``ALLOWED_HOSTS`` (Channels' ``AllowedHostsOriginValidator``).
"""

from __future__ import annotations

from typing import Any

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.security.websocket import AllowedHostsOriginValidator
from django.contrib.auth.models import AnonymousUser

from accounts.models import Player
from accounts.tokens import player_for_bot_token

from .wire import reads_in_own_thread


def bearer_token(scope: dict[str, Any]) -> str | None:
    """The raw token of an ``Authorization: Bearer <token>`` header, else None."""
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            parts = value.decode("latin1").split()
            if len(parts) >= 1 and parts[0].lower() == "bearer":
                return parts[1] if len(parts) == 2 else ""
    return None


def _bot_for(raw: str) -> Player | None:
    bot = player_for_bot_token(raw)
    if bot is None or bot.owner is None or not bot.owner.is_active:
        return None
    return bot


class BotTokenMiddleware:
    """Resolves a bearer token; otherwise hands over to session auth + Origin check."""

    def __init__(self, inner: Any) -> None:
        self.session_app = AllowedHostsOriginValidator(AuthMiddlewareStack(inner))
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        raw = bearer_token(scope)
        if raw is None:
            return await self.session_app(scope, receive, send)
        bot = None
        if raw:
            bot = await database_sync_to_async(
                _bot_for, thread_sensitive=not reads_in_own_thread())(raw)
        scope = dict(scope, bot=bot, user=bot.owner if bot is not None else AnonymousUser())
        return await self.inner(scope, receive, send)


def websocket_auth(inner: Any) -> BotTokenMiddleware:
    return BotTokenMiddleware(inner)
