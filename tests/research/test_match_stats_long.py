"""A batch match too long to keep its hands still has per-bot statistics: counted while
it is played, equal to those computed from the stored hands of the same match."""

from __future__ import annotations

from typing import Any

import pytest

from research.models import MatchRun
from research.services import run_match, validate_match
from research.sessions import match_stats

pytestmark = pytest.mark.django_db


def _play(settings: Any, keep: int) -> MatchRun:
    settings.RESEARCH = {**settings.RESEARCH, "PHH_MAX_HANDS": keep}
    data = validate_match({"bots": ["rule_based", "calling_station", "random"], "hands": 60,
                           "seed": 3, "duplicate": True, "aivat": False})
    match = run_match(MatchRun.objects.create(settings=data).pk)
    assert match.status == "done", match.error
    return match


def test_long_match_statistics_equal_those_of_its_stored_hands(settings: Any) -> None:
    stored = _play(settings, keep=1000)
    counted = _play(settings, keep=10)
    assert stored.phh and not counted.phh and "stats" not in stored.results
    assert stored.results["bots"] == counted.results["bots"]  # the same match
    from_hands, while_played = match_stats(stored), match_stats(counted)
    assert from_hands is not None and while_played is not None
    assert while_played == from_hands
    assert while_played["hands"] == 60
    assert {row["name"] for row in while_played["bots"]} == {
        "rule_based", "calling_station", "random"}
    assert sum(row["net"] for row in while_played["bots"]) == 0
