"""Fixtures for the live-table tests: personas, tables, a tiny house bot."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import _make_user


class CheckCallBot:
    """A test-only house bot: checks, else calls; shows at showdown."""

    def __init__(self, strategy: str) -> None:
        self.strategy = strategy
        self.views: list[dict[str, Any]] = []

    def act(self, view: dict[str, Any]) -> dict[str, Any]:
        self.views.append(view)
        legal = view["legal"]
        if self.strategy == "broken":
            return {"kind": "dance"}
        if self.strategy == "shove" and legal.get("max_raise_to"):
            return {"kind": legal["sized_kind"], "amount": legal["max_raise_to"]}
        if legal["can_check"]:
            return {"kind": "check"}
        if legal["call_amount"]:
            return {"kind": "call"}
        if legal["can_show"]:
            return {"kind": "show"}
        return {"kind": "fold"}


def make_bot(strategy: str, game: str = "holdem") -> CheckCallBot:
    return CheckCallBot(strategy)


@pytest.fixture(autouse=True)
def _table_settings(settings: Any) -> None:
    settings.TABLES = {**settings.TABLES, "HOUSE_BOT_DELAY": 0.0,
                       "HOUSE_BOT_FACTORY": "tests.tables.conftest.make_bot",
                       "WORKER_IN_PROCESS": False}


@pytest.fixture
def carol(db: None) -> Any:
    from accounts.models import Role

    return _make_user("carol", Role.PLAYER)


@pytest.fixture
def dave(db: None) -> Any:
    from accounts.models import Role

    return _make_user("dave", Role.PLAYER)


@pytest.fixture
def table(alice: Any) -> Any:
    from tables.services import create_table

    return create_table(creator=alice, name="Test NL", settings={
        "structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 6}, turn_seconds=20)
