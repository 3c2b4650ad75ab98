"""The Tuppi simulator (botkit/tuppi/simulate.py)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from botkit.bot import Bot
from botkit.tuppi import simulate as sim
from engine.tuppi import TuppiGame

Json = dict[str, Any]


class Illegal(Bot):
    def __init__(self, rng: random.Random | None = None) -> None:
        pass

    def act(self, view: Json) -> Json:
        return {"kind": "pass"}


class Crashing(Bot):
    def __init__(self, rng: random.Random | None = None) -> None:
        pass

    def act(self, view: Json) -> Json:
        raise RuntimeError("oops")


def test_a_small_match_and_its_report() -> None:
    result = sim.simulate("greedy", "random", tuppis=6, seed=3, duplicate=True)
    assert result.games == 6 and result.wins["greedy"] + result.wins["random"] == 6
    assert result.illegal == {"greedy": 0, "random": 0}
    assert result.rounds >= 6 and result.decisions["greedy"] > 0
    assert result.games_per_second > 0
    low, high = result.interval["greedy"]
    assert 0 <= low <= result.wins["greedy"] / 6 <= high + 1e-9 <= 1 + 1e-9
    text = result.report()
    assert "greedy" in text and "95% CI" in text and "rounds per tuppi" in text
    again = sim.simulate("greedy", "random", tuppis=6, seed=3, duplicate=True, jobs=2)
    assert (again.wins, again.rounds) == (result.wins, result.rounds)  # jobs change nothing


def test_duplicate_pairs_replay_the_decks_with_the_teams_swapped(
        monkeypatch: pytest.MonkeyPatch) -> None:
    decks: list[list[str]] = []
    seatings: list[list[str]] = []

    class Recording(TuppiGame):
        def draw_chance(self, state: Json, rng: random.Random) -> Json:
            chance = super().draw_chance(state, rng)
            if state["number"] == 0:
                decks.append([])
                seatings.append([s["id"] for s in state["seats"]])
            decks[-1].append(chance["deck"])
            return chance

    monkeypatch.setattr(sim, "TuppiGame", Recording)
    sim.simulate("greedy", "random", tuppis=4, seed=5, duplicate=True)
    assert len(decks) == 4
    for first, second in ((0, 1), (2, 3)):
        common = min(len(decks[first]), len(decks[second]))
        assert decks[first][:common] == decks[second][:common]
        assert [n.split("-")[0] for n in seatings[first]] == ["greedy", "random"] * 2
        assert [n.split("-")[0] for n in seatings[second]] == ["random", "greedy"] * 2
    assert decks[0][0] != decks[2][0]
    decks.clear()
    seatings.clear()
    sim.simulate("greedy", "random", tuppis=2, seed=5)  # not duplicate: new decks
    assert decks[0][0] != decks[1][0]


@pytest.mark.parametrize("bad", [Illegal, Crashing])
def test_an_illegal_move_loses_the_game(monkeypatch: pytest.MonkeyPatch, bad: type) -> None:
    monkeypatch.setitem(sim.AGENTS, "bad", bad)
    result = sim.simulate("bad", "random", tuppis=3, seed=1)
    assert result.illegal == {"bad": 3, "random": 0}
    assert result.wins == {"bad": 0, "random": 3}


def test_a_tournament_limit_ends_games() -> None:
    result = sim.simulate("random", "greedy", tuppis=4, seed=2, round_limit=15)
    assert result.games == 4 and result.rounds <= 4 * 200
    assert result.wins["random"] + result.wins["greedy"] + result.draws == 4


def test_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert sim.main(["greedy", "random", "--tuppis", "2", "--seed", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 2 and data["agents"] == ["greedy", "random"]
    assert sim.main(["greedy", "greedy", "--tuppis", "1"]) == 2  # two different agents
    with pytest.raises(SystemExit):
        sim.main(["greedy", "nobody"])


def test_wilson() -> None:
    low, high = sim.wilson(196, 200)
    assert 0.94 < low < 0.96 and 0.99 < high < 1
    assert sim.wilson(0, 0) == (0.0, 1.0)
