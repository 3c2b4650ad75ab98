"""Request limits per bot (bearer token), per user (session) or per address.

Each view names its ``throttle_scope`` (``default``, ``commands``, ``wait``,
``create``); the rates are ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` and are
read on every request, so tests can change them. The counters live in Django's
cache: per process with the default local-memory cache, shared with a shared cache.

If the cache fails (Redis away), the throttle fails open: the request is allowed
(PostgreSQL, not Redis, is what the API needs) and a warning is logged at most once
a minute (docs/security.md, "Outages").
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

log = logging.getLogger(__name__)
WARN_EVERY = 60.0  # seconds between two warnings about the cache being away


class _Warning:
    """One warning per ``WARN_EVERY`` seconds, with how many failures it stands for."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.last = -WARN_EVERY
        self.failures = 0

    def failed(self, error: Exception) -> None:
        with self.lock:
            self.failures += 1
            now = time.monotonic()
            if now - self.last < WARN_EVERY:
                return
            self.last, failures, self.failures = now, self.failures, 0
        log.warning("API throttling is off: the cache is unreachable (%s: %s); %d request(s) "
                    "allowed unthrottled since the last warning", type(error).__name__, error,
                    failures)


cache_failures = _Warning()


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
        try:
            return super().allow_request(request, view)
        except Exception as error:  # the cache (Redis) is away: fail open
            cache_failures.failed(error)
            return True

    def get_cache_key(self, request: Request, view: Any) -> str:
        from accounts.models import Player  # (a personal token counts as its user)

        bot = request.auth if isinstance(request.auth, Player) else None
        if bot is not None:
            ident = f"bot{bot.pk}"
        elif request.user and request.user.is_authenticated:
            ident = f"user{request.user.pk}"
        else:
            ident = f"addr{self.get_ident(request)}"
        return f"throttle:{self.scope}:{ident}"
