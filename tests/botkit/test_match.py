"""Batch and duplicate matches: seatings, reproducibility, confidence intervals, export."""

from __future__ import annotations

import json
import math
import random
from collections import defaultdict
from typing import Any

import pytest

from botkit.bot import Bot, Json
from botkit.house import make_bot
from botkit.match import MatchSettings, main, play_match
from botkit.results import Z95, mean_ci, per_hand_ci


def bots(*names: str, seed: int = 1) -> dict[str, Any]:
    return {f"{n}{i}": make_bot(n, random.Random(seed * 100 + i)) for i, n in enumerate(names)}


@pytest.mark.parametrize("players", [2, 3, 6])
def test_duplicate_deals_identical_cards_per_seat(players: int) -> None:
    names = ["rule_based", "random", "calling_station"] * 2
    result = play_match(bots(*names[:players]), hands=20 * players, seed=3, duplicate=True)
    by_deal: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for record in result.records:
        by_deal[record["deal"]].append(record)
    assert len(by_deal) == 20 and result.hands == 20 * players
    for records in by_deal.values():
        assert sorted(r["rotation"] for r in records) == list(range(players))
        seat_cards = {tuple(r["cards"][name] for name in r["seats"]) for r in records}
        assert len(seat_cards) == 1  # same cards at every seat in every rotation
        assert len({r["button"] for r in records}) == 1
        # every bot held every seat's cards exactly once
        for name in records[0]["seats"]:
            held = sorted(r["seats"].index(name) for r in records)
            assert held == list(range(players))


def test_plain_match_moves_the_button_and_keeps_seats() -> None:
    result = play_match(bots("rule_based", "random", "random"), hands=9, seed=1)
    assert [r["button"] for r in result.records] == [0, 1, 2] * 3
    assert {tuple(r["seats"]) for r in result.records} == {("rule_based0", "random1", "random2")}


def test_reproducible_with_a_fixed_seed() -> None:
    first = play_match(bots("rule_based", "random", seed=4), hands=300, seed=8, duplicate=True)
    second = play_match(bots("rule_based", "random", seed=4), hands=300, seed=8, duplicate=True)
    assert first.records == second.records
    assert first.to_json()["bots"] == second.to_json()["bots"]
    other = play_match(bots("rule_based", "random", seed=4), hands=300, seed=9, duplicate=True)
    assert other.records != first.records


def test_confidence_interval_on_a_known_sample() -> None:
    mean, half = mean_ci([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5
    assert half == pytest.approx(Z95 * math.sqrt(5 / 3) / 2)  # sd = sqrt(5/3), n = 4
    assert per_hand_ci([4.0, 0.0, 2.0], 2) == pytest.approx((1.0, Z95 * 2 / math.sqrt(3) / 2))
    assert mean_ci([7.0, 7.0]) == (7.0, 0.0)


def test_result_units_and_zero_sum() -> None:
    result = play_match(bots("rule_based", "random"), MatchSettings(big_blind=4, small_blind=2),
                        hands=200, seed=2)
    a, b = result.bots.values()
    assert a.net == -b.net and a.hands == b.hands == 200
    assert a.mbb_per_hand == pytest.approx(1000 * a.net / 200 / 4)
    assert result.cumulative["rule_based0"][-1] == a.net
    assert len(result.cumulative["rule_based0"]) == 200
    assert a.illegal == b.illegal == 0


def test_duplicate_ci_smaller_than_plain() -> None:
    plain = play_match(bots("rule_based", "calling_station"), hands=2000, seed=5)
    duplicate = play_match(bots("rule_based", "calling_station"), hands=2000, seed=5,
                           duplicate=True)
    assert duplicate.hands == plain.hands == 2000
    assert duplicate.bots["rule_based0"].ci95 < plain.bots["rule_based0"].ci95


def test_rule_based_beats_random() -> None:
    result = play_match(bots("rule_based", "random"), hands=3000, seed=1, duplicate=True)
    r = result.bots["rule_based0"]
    assert r.mbb_per_hand - r.ci95 > 0


def test_crosstable_for_three_bots() -> None:
    result = play_match(bots("rule_based", "random", "calling_station"), MatchSettings("FL"),
                        hands=300, seed=1)
    table = result.crosstable
    assert table is not None and set(table) == set(result.bots)
    for a in table:
        for b in table[a]:
            assert table[a][b] == pytest.approx(-table[b][a])
    assert "pairwise mbb/hand" in result.report()


class Spy(Bot):
    """Counts hook calls and answers check/call."""

    def __init__(self) -> None:
        self.matches = 0
        self.events: list[str] = []
        self.results = 0
        self.hole_cards: list[str] = []

    def new_match(self) -> None:
        self.matches += 1

    def observe(self, event: Json) -> None:
        self.events.append(event["type"])
        if event["type"] == "HoleCardsDealt":
            self.hole_cards.append(event["cards"])

    def hand_over(self, result: Json) -> None:
        self.results += 1
        assert result["hand"]["is_over"]

    def act(self, view: Json) -> Json:
        legal = view["legal"]
        if legal["can_muck"]:
            return {"kind": "muck"}
        return {"kind": "check"} if legal["can_check"] else {"kind": "call"}


def test_hooks_and_series() -> None:
    spy, other = Spy(), Spy()
    play_match({"spy": spy, "other": other}, hands=40, seed=1, duplicate=True, series_length=5)
    assert spy.matches == 8  # 4 series of 5 deals, each replayed for 2 seatings
    assert spy.results == 40
    assert spy.events.count("HandStarted") == 40 and spy.events.count("HandEnded") == 40
    # heads-up: the bot sees its own cards and the opponent's hidden, once per hand each
    assert sum("?" not in c for c in spy.hole_cards) == 40
    assert spy.hole_cards.count("????") == 40


def test_illegal_answers_are_counted_and_timed_out() -> None:
    class Cheater(Bot):
        def act(self, view: Json) -> Json:
            return {"kind": "raise", "amount": 10**6}

    result = play_match({"cheater": Cheater(), "station": make_bot("calling_station")},
                        hands=20, seed=1)
    assert result.bots["cheater"].illegal > 0


def test_phh_export_replays(tmp_path: Any) -> None:
    from engine.phh import load_path, replay

    result = play_match(bots("rule_based", "random", "calling_station"), MatchSettings("PL"),
                        hands=30, seed=2, phh_out=tmp_path)
    histories = load_path(tmp_path / "match.phhs")
    assert len(histories) == 30
    for (_, history), record in zip(histories, result.records, strict=True):
        assert not isinstance(history, Exception)
        replayed = replay(history)
        assert replayed.finishing_stacks is not None
        nets = [f - s for f, s in zip(replayed.finishing_stacks, history.starting_stacks,
                                      strict=True)]
        players = history.fields["players"]
        assert {p: n for p, n in zip(players, nets, strict=True)} == record["net"]


def test_cli(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--bots", "rule_based,random", "--hands", "100", "--duplicate", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["hands"] == 100 and set(data["bots"]) == {"rule_based", "random"}
    assert main(["--bots", "random,random", "--players", "3", "--hands", "30"]) == 0
    out = capsys.readouterr().out
    assert "random#2" in out and "random#3" in out
    assert main(["--bots", "nobody"]) == 2
