"""Websocket authentication: bots by ``Authorization: Bearer <token>``, browsers by session.

:func:`websocket_auth` wraps the router:

* With an ``Authorization: Bearer`` header the connection is a bot: ``scope["user"]``
  is the bot's owner and ``scope["bot"]`` the bot (an invalid token leaves the user
  anonymous, so the consumer refuses it with ``not_authenticated``). No Origin is
  needed: browsers cannot set this header on a websocket, and no cookie is used, so
  cross-site websocket hijacking (what the Origin check prevents) cannot happen.
* Otherwise the Django session authenticates (``AuthMiddlewareStack``) and the
  Origin header must be the page's own origin, scheme and port included
  (:class:`SameOriginValidator`), or be listed in ``CSRF_TRUSTED_ORIGINS``. Channels'
  ``AllowedHostsOriginValidator`` compared only the host: a page on another port or
  over plain http of the same host could open a socket with the user's cookie.
* A same-origin socket without a session stays anonymous; the consumers refuse it
  (``not_authenticated``) unless ``settings.PUBLIC_SPECTATING`` lets it watch as a guest
  (tables/consumers.py, ``watch_as_guest``). A bearer socket with a bad token is never a
  guest: ``scope["bot"]`` is set (to None) for every bearer socket.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import SplitResult, urlsplit

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.http.request import split_domain_port, validate_host
from django.utils.http import is_same_domain

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


DEFAULT_PORTS = {"http": 80, "https": 443}


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin1"))
    return None


def _origin_key(parts: SplitResult) -> tuple[str, str, int] | None:
    """(scheme, host, port) with the scheme's default port filled in; None if malformed."""
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        return None
    if scheme not in DEFAULT_PORTS or not parts.hostname or parts.path or parts.query \
            or parts.username is not None:
        return None
    return scheme, parts.hostname.lower(), port if port is not None else DEFAULT_PORTS[scheme]


def page_scheme(scope: dict[str, Any]) -> str:
    """``http`` or ``https``, as Django's ``request.is_secure()`` decides it for HTTP: the
    ``SECURE_PROXY_SSL_HEADER`` when it is set and present, else the socket's scheme."""
    proxy = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if proxy:
        meta_name, secure_value = proxy
        name = meta_name.removeprefix("HTTP_").lower().replace("_", "-").encode("latin1")
        value = _header(scope, name)
        if value is not None:
            return "https" if value.split(",", 1)[0].strip() == secure_value else "http"
    return "https" if scope.get("scheme") in ("wss", "https") else "http"


def page_origin(scope: dict[str, Any]) -> tuple[str, str, int] | None:
    """The origin of the page that opened the socket: its scheme, and the host and port of
    the ``Host`` header, which must be one of ``ALLOWED_HOSTS``; None when there is none."""
    host = _header(scope, b"host")
    if not host:
        return None
    domain, _port = split_domain_port(host)
    allowed = settings.ALLOWED_HOSTS
    if settings.DEBUG and not allowed:  # as Django's HttpRequest.get_host()
        allowed = [".localhost", "127.0.0.1", "[::1]"]
    if not domain or not validate_host(domain, allowed):
        return None
    return _origin_key(urlsplit(f"{page_scheme(scope)}://{host}"))


def trusted_origin(origin: str, key: tuple[str, str, int]) -> bool:
    """Whether ``origin`` is in ``CSRF_TRUSTED_ORIGINS``, with Django's CSRF rules: an exact
    entry, or ``scheme://*.example.com`` for that domain and its subdomains."""
    for entry in getattr(settings, "CSRF_TRUSTED_ORIGINS", []):
        if "*" in entry:
            parts = urlsplit(entry)
            if parts.scheme.lower() == key[0] and is_same_domain(
                    urlsplit(origin).netloc.lower(), parts.netloc.lower().lstrip("*")):
                return True
        elif _origin_key(urlsplit(entry)) == key:
            return True
    return False


class SameOriginValidator:
    """Accepts a session websocket only from a page of this site: its ``Origin`` must equal
    the page's own origin (scheme, host and port, :func:`page_origin`) or be listed in
    ``CSRF_TRUSTED_ORIGINS``. Anything else, a missing or ``null`` Origin included, is
    closed before it is accepted (HTTP 403 from Daphne), as Channels' ``OriginValidator``
    does."""

    def __init__(self, application: Any) -> None:
        self.application = application

    def allowed(self, scope: dict[str, Any]) -> bool:
        origin = _header(scope, b"origin")
        if not origin:
            return False
        key = _origin_key(urlsplit(origin.strip()))
        if key is None:
            return False
        return key == page_origin(scope) or trusted_origin(origin.strip(), key)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] == "websocket" and self.allowed(scope):
            return await self.application(scope, receive, send)
        return await WebsocketDenier()(scope, receive, send)


class BotTokenMiddleware:
    """Resolves a bearer token; otherwise hands over to session auth + Origin check."""

    def __init__(self, inner: Any) -> None:
        self.session_app = SameOriginValidator(AuthMiddlewareStack(inner))
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
