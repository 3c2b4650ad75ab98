"""The MCP endpoint's per-bot request limit (agents.server.over_rate): a fixed window per
minute in Django's cache, ``MCP_RATE_PER_MINUTE`` requests, then the seconds to wait."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from agents.server import over_rate
from tests.cache import clear_cache


def test_a_bot_over_its_rate_waits_and_others_do_not(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_RATE_PER_MINUTE", "3")
    monkeypatch.setattr("agents.server.time.time", lambda: 6_000_030.0)  # mid-minute
    clear_cache()
    assert [over_rate(7) for _ in range(3)] == [0, 0, 0]
    assert over_rate(7) == 30  # to the next minute
    assert over_rate(8) == 0  # per bot


def test_the_limit_fails_open_when_the_cache_is_away(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise ConnectionError("cache away")

    monkeypatch.setenv("MCP_RATE_PER_MINUTE", "0")
    monkeypatch.setattr(cache, "add", broken)
    assert over_rate(9) == 0
