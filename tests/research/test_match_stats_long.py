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


def test_a_running_match_reports_the_hands_played(settings: Any, monkeypatch: Any,
                                                  client: Any, bob: Any) -> None:
    """The progress page's count moves while the match plays (stored about every
    second, and at the end)."""
    from research import services, views

    seen: list[int] = []
    data = validate_match({"bots": ["rule_based", "random"], "hands": 40, "seed": 1,
                           "aivat": False})
    match = MatchRun.objects.create(settings=data)
    real = services._progress

    def watched(run: MatchRun, every: float = 1.0) -> Any:
        report = real(run, every=0.0)  # store after every hand

        def spy(done: int, total: int) -> None:
            report(done, total)
            stored = MatchRun.objects.get(pk=run.pk)
            seen.append(stored.hands_done)
            assert views.progress_json(stored)["hands_done"] == done
            assert total == 40

        return spy

    monkeypatch.setattr(services, "_progress", watched)
    assert run_match(match.pk).status == "done"
    assert seen == list(range(1, 41))
    client.force_login(bob)
    answer = client.get(f"/research/matches/{match.pk}/progress.json").json()
    assert answer["hands_done"] == answer["hands_total"] == 40 and answer["finished"]
