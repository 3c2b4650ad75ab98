"""Message limits shared by all of one user's (or one bot's) websockets in this process.

Each connection has its own token bucket (:class:`tables.wire.TokenBucket`); this adds
one bucket per *account* across its connections, so opening more sockets does not buy
more messages: a user with 60 sockets of snapshot requests gets the same budget as
with one. A snapshot costs more than a command (it is the most expensive read).
The number of connections is limited across processes by the database
(:func:`tables.services.connect`); these buckets are per process (with N Daphne
processes an account may reach N× the rate at most). See docs/security.md,
"Connection and message limits".
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings

COSTS = {"snapshot": 5.0}  # message type -> tokens (default 1)


class Bucket:
    """``rate`` tokens per second, at most ``burst``; :meth:`take` spends ``cost``."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens, self.stamp = burst, time.monotonic()
        self.users = 0  # connections sharing it

    def take(self, cost: float = 1.0) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < cost:
            return False
        self.tokens -= cost
        return True


_buckets: dict[str, Bucket] = {}


def account_key(user: Any, bot: Any) -> str:
    return f"bot{bot.pk}" if bot is not None else f"user{user.pk}"


def join(key: str, *, bot: bool) -> Bucket:
    """The account's shared bucket (made on its first connection in this process)."""
    bucket = _buckets.get(key)
    if bucket is None:
        conf = settings.TABLES
        rate = conf["BOT_RATE_PER_SECOND"] if bot else conf["USER_RATE_PER_SECOND"]
        bucket = _buckets[key] = Bucket(float(rate), float(rate) * 3)
    bucket.users += 1
    return bucket


def leave(key: str) -> None:
    bucket = _buckets.get(key)
    if bucket is not None:
        bucket.users -= 1
        if bucket.users <= 0:
            del _buckets[key]


def cost(kind: Any) -> float:
    return COSTS.get(kind, 1.0) if isinstance(kind, str) else 1.0
