"""A server batch match of Tuppi: four house agents, two styles as partners, through
the contract (research.services), as ``python -m botkit.tuppi.simulate`` plays them."""

from __future__ import annotations

import pytest

from research.models import MatchRun, MatchStatus
from research.services import run_match, validate_match

pytestmark = pytest.mark.django_db


def test_a_tuppi_match_of_house_agents() -> None:
    checked = validate_match({"game": "tuppi", "settings": {"round_limit": 15},
                              "bots": ["greedy", "random", "greedy", "random"], "hands": 12,
                              "seed": 3})
    assert checked["settings"] == {"round_limit": 15}
    match = MatchRun.objects.create(settings=checked)
    run_match(match.pk)
    match.refresh_from_db()
    assert match.status == MatchStatus.DONE, match.error
    bots = match.results["bots"]
    assert set(bots) == {"greedy", "random", "greedy#2", "random#2"}
    assert all(row["illegal"] == 0 for row in bots.values())
    with pytest.raises(ValueError, match="No house bot called “ehs”"):
        validate_match({"game": "tuppi", "bots": ["ehs", "greedy", "greedy", "greedy"]})
    with pytest.raises(ValueError, match="needs 4 to 4 bots"):
        validate_match({"game": "tuppi", "bots": ["greedy", "greedy"]})
