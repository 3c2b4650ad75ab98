"""Request limits per bot (bearer token), per user (session) or per address.

Each view names its ``throttle_scope`` (``default``, ``commands``, ``wait``,
``create``); the rates are ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` and are
read on every request, so tests can change them. The counters live in Django's
cache: per process with the default local-memory cache, shared with a shared cache.
"""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle


class ScopeThrottle(SimpleRateThrottle):
    """``rate`` for the view's ``throttle_scope``, counted per bot, user or address."""

    def __init__(self) -> None:  # the rate is resolved per request (needs the view)
        self.history: list[float] = []

    def get_rate(self) -> str | None:
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def allow_request(self, request: Request, view: Any) -> bool:
        self.scope = getattr(view, "throttle_scope", None) or "default"
        self.rate = self.get_rate()
        if self.rate is None:
            return True
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)

    def get_cache_key(self, request: Request, view: Any) -> str:
        bot = request.auth if getattr(request.auth, "pk", None) is not None else None
        if bot is not None:
            ident = f"bot{bot.pk}"
        elif request.user and request.user.is_authenticated:
            ident = f"user{request.user.pk}"
        else:
            ident = f"addr{self.get_ident(request)}"
        return f"throttle:{self.scope}:{ident}"
