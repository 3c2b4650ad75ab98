"""Dice bots: legal play from the decision view alone, the exact turn arithmetic, the
optimal solver on games small enough to check by hand, the series runner."""

from __future__ import annotations

import json
import random
from itertools import product
from typing import Any

import pytest

from botkit.bot import Bot
from botkit.dice import BOTS
from botkit.dice.bots import ExpectedValueBot, GreedyBot, OptimalBot, SheetSolver, read_view
from botkit.dice.series import main, run_series
from botkit.dice.strategy import Tables, holds_for, layers, table_size
from engine.dice import DiceGame, Rules, shipped_rules, validate_rules
from engine.dice.rules import SHIPPED
from engine.game import GameEnded, decision_view

Json = dict[str, Any]
GAME = DiceGame()


def custom(dice: int, faces: int, rolls: int, *combos: Json) -> Json:
    return validate_rules({"dice": dice, "faces": faces, "rolls": rolls,
                           "combinations": list(combos)})


def play(bots: list[Bot], rules: Any = "yatzy", seed: int = 0) -> list[int]:
    """A game through the contract; every view goes through JSON first (a bot reads
    only what a remote bot would)."""
    state = GAME.create(GAME.validate_settings({"seats": len(bots), "rules": rules}))
    for seat in range(len(bots)):
        GAME.seat(state, seat, f"b{seat}", {})
    events = GAME.start_round(state, GAME.draw_chance(state, random.Random(seed)))
    while GAME.to_act(state):
        seat = GAME.to_act(state)[0]
        view = json.loads(json.dumps(decision_view(GAME, state, seat)))
        events = GAME.apply(state, seat, bots[seat].act(view))  # illegal: raises
    ended = next(e for e in events if isinstance(e, GameEnded))
    return [s.score for s in sorted(ended.standings, key=lambda s: s.seat)]


@pytest.mark.parametrize("rules", sorted(SHIPPED))
def test_every_bot_plays_every_shipped_rule_set(rules: str) -> None:
    names = sorted(BOTS)
    for i, name in enumerate(names):
        others = names[i:i + 3] if len(names[i:i + 3]) > 1 else [name, names[0]]
        scores = play([BOTS[n](random.Random(i)) for n in others], rules, seed=i)
        assert len(scores) == len(others) and all(s >= 0 for s in scores)


def test_bots_on_custom_rule_sets_of_every_size() -> None:
    smallest = custom(1, 2, 1, {"id": "c", "family": "chance"})
    largest = custom(9, 9, 9, *[{"id": f"f{x}", "family": "face", "face": x}
                                for x in range(1, 10)])
    for rules in (smallest, largest):
        for name in ("random", "greedy", "ev"):
            play([BOTS[name](random.Random(1))], rules)
    assert table_size(9, 9) > 1_500_000  # the ev bot plays greedy there


# ------------------------------------------------------------------ the turn arithmetic


@pytest.mark.parametrize(("dice", "faces"), [(1, 2), (3, 4), (5, 6), (6, 6), (4, 9)])
def test_tables_are_complete_distributions(dice: int, faces: int) -> None:
    rules = Rules(custom(dice, faces, 2, {"id": "c", "family": "chance"}))
    tables = Tables.of(rules)
    assert sum(len(i) for i, _ in tables.trans) == table_size(dice, faces)
    for idxs, probs in tables.trans:
        assert abs(sum(probs) - 1) < 1e-12 and len(set(idxs)) == len(idxs)
    # the first roll's distribution is the multinomial one: check by enumeration
    counts: dict[int, int] = {}
    for roll in product(range(1, faces + 1), repeat=dice):
        position = tables.position(roll)
        counts[position] = counts.get(position, 0) + 1
    idxs, probs = tables.first_roll
    assert dict(zip(idxs, probs, strict=True)) == pytest.approx(
        {i: c / faces ** dice for i, c in counts.items()})
    for position, final in enumerate(tables.finals):
        for keep in tables.subkeeps[position]:
            assert all(k <= f for k, f in zip(tables.keeps[keep], final, strict=True))
            assert tables.keeps[keep] != final


def test_chance_alone_is_the_textbook_expectation() -> None:
    """One die, chance only: 3.5 with one roll, 4.25 with two, 14/3 with three (keep
    5-6 with two rolls left, 4-6 with one)."""
    for rolls, value in ((1, 3.5), (2, 4.25), (3, 14 / 3)):
        rules = Rules(custom(1, 6, rolls, {"id": "c", "family": "chance"}))
        solver = SheetSolver(rules)
        assert solver.expected_score() == pytest.approx(value)
    rules = Rules(custom(5, 6, 3, {"id": "c", "family": "chance"}))
    assert SheetSolver(rules).expected_score() == pytest.approx(5 * 14 / 3)
    tables = Tables.of(rules)
    stop = [float(s) for s in tables.columns["c"]]
    expected = layers(tables, stop, 2)
    assert sum(p * tables.improve(stop, expected[1])[i]
               for i, p in zip(*tables.first_roll, strict=True)) == pytest.approx(70 / 3)


def test_the_optimal_solver_on_a_game_small_enough_by_hand() -> None:
    """One two-faced die, one roll, boxes ones and twos: a 2 goes to twos (then ones
    expects 0.5), a 1 to ones (then twos expects 1): 0.5 × 2.5 + 0.5 × 2 = 2.25."""
    rules = Rules(custom(1, 2, 1, {"id": "ones", "family": "face", "face": 1},
                         {"id": "twos", "family": "face", "face": 2}))
    assert SheetSolver(rules).expected_score() == pytest.approx(2.25)
    # with a bonus of 10 for 3 points in ones and twos: only 1 then 2 (or 2 then 2)
    # reach it... 2 + 2 is not possible (twos once): ones=1 and twos=2 is 3 points.
    bonus = Rules(validate_rules({**rules.json, "id": None,
                                  "bonus": {"threshold": 3, "points": 10}}))
    # a 1 first: ones (1), then twos scores 2 with p 1/2 (bonus): 1 + 0.5 × 12 = 7;
    # a 2 first: twos (2), then ones scores 1 with p 1/2 (bonus): 2 + 0.5 × 11 = 7.5.
    assert SheetSolver(bonus).expected_score() == pytest.approx(0.5 * 7 + 0.5 * 7.5)


def test_the_optimal_bot_plays_its_solution_in_mini() -> None:
    rules = Rules(shipped_rules("mini"))
    solver = OptimalBot.solver(rules)
    assert solver is not None and 130 < solver.expected_score() < 137
    assert OptimalBot.solver(Rules(shipped_rules("yatzy"))) is None  # too large: ev plays
    bot = OptimalBot(random.Random(1))
    play([bot], "yatzy")
    assert not bot.exact
    play([bot], "mini")
    assert bot.exact


def view_for(rules: str, dice: list[int], rolls_left: int, open_boxes: list[str]) -> Json:
    """A decision view of a solitaire game with these dice and open boxes."""
    data = shipped_rules(rules)
    ids = [c["id"] for c in data["combinations"]]
    state = GAME.create(GAME.validate_settings({"seats": 1, "rules": rules}))
    GAME.seat(state, 0, "me", {})
    GAME.start_round(state, GAME.draw_chance(state, random.Random(0)))
    sheet = state["round"]["sheets"][0]
    for i, box in enumerate(ids):
        sheet[i] = None if box in open_boxes else 0
    turn = state["round"]["turn"]
    turn["dice"], turn["rolls"] = dice, data["rolls"] - rolls_left
    turn["number"] = sum(v is not None for v in sheet)
    return decision_view(GAME, state, 0)


def test_ev_bot_decisions() -> None:
    bot = ExpectedValueBot(random.Random(1), bonus_weight=0)
    # yatzy alone open: keep the four sixes
    view = view_for("yatzy", [6, 6, 1, 6, 6], 1, ["yatzy"])
    assert bot.act(view) == {"kind": "roll", "hold": [0, 1, 3, 4]}
    # chance alone: with one roll left keep 4-6, with two keep 5-6
    assert bot.act(view_for("yatzy", [1, 4, 6, 3, 5], 1, ["chance"])) == {
        "kind": "roll", "hold": [1, 2, 4]}
    assert bot.act(view_for("yatzy", [1, 4, 6, 3, 5], 2, ["chance"])) == {
        "kind": "roll", "hold": [2, 4]}
    # a made large straight with only it open: score at once
    assert bot.act(view_for("yatzy", [2, 3, 4, 5, 6], 2, ["large_straight"])) == {
        "kind": "score", "box": "large_straight"}
    # no rolls left: the best box
    assert bot.act(view_for("yatzy", [2, 2, 2, 5, 5], 0, ["twos", "full_house"])) == {
        "kind": "score", "box": "full_house"}
    situation = read_view(view_for("yatzy", [2, 2, 2, 5, 5], 0, ["twos", "full_house"]))
    assert situation.open == ["twos", "full_house"] and situation.rolls_left == 0


def test_greedy_bot_decisions() -> None:
    bot = GreedyBot()
    everything = [c["id"] for c in SHIPPED["yatzy"]["combinations"]]
    # chance (23) is the best now and uses every die: score it
    assert bot.act(view_for("yatzy", [6, 6, 6, 2, 3], 2, everything)) == {
        "kind": "score", "box": "chance"}
    upper = ["ones", "twos", "threes", "fours", "fives", "sixes"]
    assert bot.act(view_for("yatzy", [6, 6, 6, 2, 3], 2, upper)) == {
        "kind": "roll", "hold": [0, 1, 2]}
    assert bot.act(view_for("yatzy", [6, 6, 6, 2, 3], 0, upper)) == {
        "kind": "score", "box": "sixes"}
    # nothing scores now (1-2-3-4-6: no small straight, no pair): re-roll everything
    assert bot.act(view_for("yatzy", [1, 2, 3, 4, 6], 1, ["small_straight", "one_pair"])) == {
        "kind": "roll", "hold": []}
    assert bot.act(view_for("yatzy", [1, 2, 3, 4, 6], 0, ["small_straight", "one_pair"])) == {
        "kind": "score", "box": "one_pair"}  # the first of equals in sheet order


def test_holds_for() -> None:
    assert holds_for([3, 3, 3], (0, 0, 0, 2)) == [0, 1]
    assert holds_for([1, 2, 3], (0, 0, 0, 0)) == []


# ------------------------------------------------------------------ series


def test_series_is_reproducible_whatever_the_jobs(capsys: pytest.CaptureFixture[str]) -> None:
    one = run_series("ev", 6, seed=5, rules="mini")
    two = run_series("ev", 6, seed=5, rules="mini", jobs=2)
    assert one.scores == two.scores and one.jobs == 1 and two.jobs == 2
    assert min(one.scores) >= 0 and one.half_width >= 0
    assert main(["optimal", "--games", "3", "--rules", "mini", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "mean score" in out and "games/s" in out and "exact optimal expected score" in out
    with pytest.raises(KeyError):
        run_series("nobody", 1)
