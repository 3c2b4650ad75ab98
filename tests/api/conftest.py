"""Fixtures for the REST API tests: API clients per persona, a bot with its token."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.cache import clear_cache


@pytest.fixture(autouse=True)
def _api_settings(settings: Any) -> None:
    settings.TABLES = {**settings.TABLES, "HOUSE_BOT_DELAY": 0.0, "WORKER_IN_PROCESS": False}
    settings.RESEARCH = {**settings.RESEARCH, "MATCHES_IN_THREAD": False}
    clear_cache()  # the API's throttle counters (this process's keys only)


def client_for(user: Any = None, token: str | None = None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_login(user)
    if token is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


@pytest.fixture
def anon() -> APIClient:
    return APIClient()


@pytest.fixture
def skynet(bob: Any) -> tuple[Any, str]:
    """bob's bot and its raw token."""
    from accounts.services import create_bot

    return create_bot(owner=bob, name="Skynet")


@pytest.fixture
def bot_client(skynet: tuple[Any, str]) -> APIClient:
    return client_for(token=skynet[1])


@pytest.fixture
def table(alice: Any) -> Any:
    from tables.services import create_table

    return create_table(creator=alice, name="API NL", settings={
        "structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 6}, turn_seconds=20)


@pytest.fixture
def carol(db: None) -> Any:
    """A player who only watches."""
    from accounts.models import Role
    from tests.conftest import _make_user

    return _make_user("carol", Role.PLAYER)
