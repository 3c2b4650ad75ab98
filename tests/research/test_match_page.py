"""The match page writes the numbers of its result tables as its chart does: a real
minus sign (U+2212), thousands separators, one decimal for mbb/hand; the stored JSON
keeps plain numbers."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.test import Client

from research.models import MatchRun, MatchStatus

pytestmark = pytest.mark.django_db

MINUS = "\u2212"


def _results() -> dict[str, Any]:
    def bot(name: str, net: float, mbb: float, ci: float) -> dict[str, Any]:
        return {"name": name, "hands": 12000, "net": net, "mbb_per_hand": mbb, "ci95": ci,
                "illegal": 0}

    return {"hands": 12000, "seconds": 3.2, "hands_per_second": 3750.0,
            "bots": {"rule_based": bot("rule_based", 4480.0, 1234.56, 1500.04),
                     "calling_station": bot("calling_station", -4480.0, -1234.56, 1500.04)},
            "crosstable": {"rule_based": {"calling_station": 1234.56},
                           "calling_station": {"rule_based": -1234.56}},
            "cumulative": {"rule_based": [10, 4480], "calling_station": [-10, -4480]},
            "cumulative_step": 6000}


def _cells(page: str, table: int) -> list[str]:
    """The text of each cell of the page's ``table``-th table body (no-break spaces
    kept)."""
    body = re.findall(r"<tbody>(.*?)</tbody>", page, re.S)[table]
    cells = re.findall(r"<td[^>]*>(.*?)</td>", body, re.S)
    return [re.sub(r"[ \t\n]+", " ", html.unescape(re.sub(r"<[^>]+>", "", c))).strip()
            for c in cells]


def test_result_tables_use_a_real_minus_and_separators(bob: Any) -> None:
    match = MatchRun.objects.create(settings={"bots": ["rule_based", "calling_station"],
                                              "hands": 12000, "seed": 1},
                                    status=MatchStatus.DONE, results=_results())
    client = Client()
    client.force_login(bob)
    page = client.get(f"/research/matches/{match.pk}/").content.decode()
    results = _cells(page, 0)
    assert results[:6] == ["rule_based", "12,000", "+4,480", "+1,234.6", "±\u00a01,500.0", "0"]
    assert results[6:] == ["calling_station", "12,000", MINUS + "4,480", MINUS + "1,234.6",
                           "±\u00a01,500.0", "0"]
    crosstable = _cells(page, 1)
    assert crosstable == ["", "+1,234.6", MINUS + "1,234.6", ""], crosstable
    tables = "".join(re.findall(r"<table.*?</table>", page, re.S))
    assert not re.search(r"-\d", tables), "an ASCII hyphen before a number"
    stored = client.get(f"/api/v1/matches/{match.pk}/").json()["results"]["bots"]
    assert stored["calling_station"]["net"] == -4480.0  # the JSON keeps plain numbers
