"""AIVAT (botkit.aivat): zero-mean correction terms at every chance node and decision
(exhaustive toy cases), unbiasedness over many hands (fixed seeds: deterministic),
policy validation, the match runner, the CLI and the SDK's act message."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest

from botkit.aivat import (
    CLASS_WEIGHT,
    MAX_POLICY,
    Aivat,
    MatchTracker,
    Outlook,
    PolicyError,
    ValueModel,
    expected_deal_values,
    hand_class,
    validate_policy,
)
from botkit.bot import Bot
from botkit.client import act_command
from botkit.house import make_bot
from botkit.house.random_bot import RandomBot
from botkit.house.rule_based import RuleBasedBot
from botkit.match import MatchSettings, learn_value_model, main, play_match
from botkit.results import Z95, mean_ci
from botkit.runner import MatchRunner, answer_and_policy

Json = dict[str, Any]
DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"]


def _blinds_and_holes(holes: list[str], blinds: tuple[int, ...] = (1, 2)) -> list[Json]:
    events: list[Json] = [{"type": "BlindPosted", "player": p, "amount": a}
                          for p, a in enumerate(blinds)]
    events += [{"type": "HoleCardsDealt", "player": p, "cards": c} for p, c in enumerate(holes)]
    return events


def _board(street: str, cards: str) -> Json:
    return {"type": "BoardDealt", "street": street, "cards": cards}


def _rest(*used: str) -> list[str]:
    dead = {c for text in used for c in (text[i:i + 2] for i in range(0, len(text), 2))}
    return [c for c in DECK if c not in dead]


def _term(correction: Any, node: str) -> list[float]:
    return correction.chance[correction.nodes.index(node)]


# An arbitrary model: the terms must have mean zero whatever the value function is.
MODEL = ValueModel(0, [], betas={"preflop": [0.3, 0.5], "flop": [0.4, -0.2],
                                 "turn": [0.2, 0.6], "river": [0.5, 0.3]})
MODELS = pytest.mark.parametrize("model", [None, MODEL], ids=["equity", "model"])


# ------------------------------------------------------------ chance nodes


@MODELS
def test_the_river_and_turn_terms_have_mean_zero_over_every_card(model: Any) -> None:
    """Heads-up, 30 chips each in: the river term averaged over the 44 rivers, and the
    turn term over the 45 turns, are exactly zero (the expectations are exact)."""
    holes = ["AhKh", "QsQd"]
    flop = "Kd7h2h"
    head = [*_blinds_and_holes(holes),
        {"type": "RaisePlaced", "player": 0, "to": 6},
        {"type": "PlayerCalled", "player": 1, "amount": 4},
        _board("flop", flop),
        {"type": "BetPlaced", "player": 1, "to": 8},
        {"type": "PlayerCalled", "player": 0, "amount": 8},
    ]
    estimator = Aivat(big_blind=2, samples=200, model=model)
    turns = _rest(*holes, flop)
    total = 0.0
    for turn in turns:
        c = estimator.hand([*head, _board("turn", turn)], [400, 400], [0, 0])
        total += _term(c, "turn")[0]
        assert abs(sum(_term(c, "turn"))) < 1e-9  # zero-sum
    assert abs(total / len(turns)) < 1e-9
    turn = "3c"
    head.append(_board("turn", turn))
    rivers = _rest(*holes, flop, turn)
    total = 0.0
    for river in rivers:
        c = estimator.hand([*head, _board("river", river)], [400, 400], [0, 0])
        total += _term(c, "river")[1]
    assert len(rivers) == 44 and abs(total / len(rivers)) < 1e-9


@MODELS
def test_multiway_side_pots_and_dead_money_terms_have_mean_zero(model: Any) -> None:
    """Three players with unequal stacks (a side pot), one folded after putting chips
    in (dead money): the river term has mean zero for every player."""
    holes = ["AsAd", "KcKh", "9s8s"]
    events = [*_blinds_and_holes(holes),
        {"type": "RaisePlaced", "player": 2, "to": 50},   # 50, most of it dead later
        {"type": "RaisePlaced", "player": 0, "to": 100},  # all in (stack 100)
        {"type": "PlayerCalled", "player": 1, "amount": 98},
        {"type": "PlayerFolded", "player": 2},
        _board("flop", "9c8c2d"), _board("turn", "Jh"),
    ]
    stacks = [100, 400, 400]
    estimator = Aivat(big_blind=2, samples=100, model=model)
    rivers = _rest(*holes, "9c8c2dJh")
    sums = [0.0, 0.0, 0.0]
    for river in rivers:
        c = estimator.hand([*events, _board("river", river)], stacks, [0, 0, 0])
        for p, x in enumerate(_term(c, "river")):
            sums[p] += x
    assert all(abs(s / len(rivers)) < 1e-9 for s in sums)
    # The folded player's expected result is just what it lost.
    outlook = Outlook.of(holes, (0, 1), "9c8c2dJh")
    values = outlook.values([100, 100, 50], [True, True, False])
    assert values[2] == -50 and abs(sum(values)) < 1e-9


def test_the_deal_expectation_is_the_symmetric_share() -> None:
    assert expected_deal_values([1, 2], [True, True]) == [0.0, 0.0]  # the extra 1 goes back
    assert expected_deal_values([2, 2, 2], [True] * 3) == [0.0, 0.0, 0.0]
    # ... and the exhaustive mean over every deal of two 3-card decks' worth: the mean of
    # V over many deals is close to it (a statistical check, fixed seed).
    rng = random.Random(5)
    total = 0.0
    for _ in range(300):
        cards = rng.sample(DECK, 4)
        outlook = Outlook.of([cards[0] + cards[1], cards[2] + cards[3]], (0, 1), "",
                             samples=100, rng=rng)
        total += outlook.values([2, 2], [True, True])[0]
    assert abs(total / 300) < 0.15  # E = 0; the standard error is about 0.05


def test_all_in_pre_flop_is_corrected_to_its_equity() -> None:
    """All in pre-flop, every term telescopes: u + Σ terms = E_deal − V(deal) + V_pre."""
    holes = ["AsAh", "7c2d"]
    events = [*_blinds_and_holes(holes),
        {"type": "RaisePlaced", "player": 0, "to": 400},
        {"type": "PlayerCalled", "player": 1, "amount": 398},
        _board("flop", "7h7s2c"), _board("turn", "Kd"), _board("river", "3h")]
    estimator = Aivat(big_blind=2, samples=2000, seed=1)
    c = estimator.hand(events, [400, 400], [-400, 400])  # the 7-2 filled up
    pre = estimator._outlook(holes, (0, 1), "", 2000)
    allin = pre.values([400, 400], [True, True])
    deal = (expected_deal_values([1, 2], [True, True])[0]
            - pre.values([1, 2], [True, True])[0])
    assert c.nodes == ["deal", "flop", "turn", "river"]
    assert c.corrected[0] == pytest.approx(allin[0] + deal)
    assert 0.75 * 800 - 400 < allin[0] < 0.9 * 800 - 400  # aces against 7-2


# ------------------------------------------------------------ decisions


def _decision_events(action: Json) -> list[Json]:
    """Three players on the flop facing a bet of 20 into 60 (the turn of position 1)."""
    events = [*_blinds_and_holes(["AsKs", "QhQc", "7d6d"]),
        {"type": "PlayerCalled", "player": 2, "amount": 2},
        {"type": "PlayerCalled", "player": 0, "amount": 1},
        {"type": "PlayerChecked", "player": 1},
        _board("flop", "Ks8d5d"),
        {"type": "BetPlaced", "player": 0, "to": 20},
    ]
    kind = action["kind"]
    if kind == "fold":
        events.append({"type": "PlayerFolded", "player": 1})
    elif kind == "call":
        events.append({"type": "PlayerCalled", "player": 1, "amount": 20})
    else:
        events.append({"type": "RaisePlaced", "player": 1, "to": action["amount"]})
    return events


@MODELS
def test_the_action_term_has_mean_zero_under_the_policy(model: Any) -> None:
    """Σ over the moves of π(a)·term(a) is zero, a uniform raise range included (every
    whole amount played once), with stacks that make the amount's value kinked."""
    moves = [{"kind": "fold", "label": "Fold"}, {"kind": "call", "label": "Call 20"},
             {"kind": "raise", "label": "Raise to",
              "params": {"amount": {"type": "number", "min": 40, "max": 150}}}]
    policy = validate_policy(moves, [
        {"move": {"kind": "fold"}, "p": 0.2}, {"move": {"kind": "call"}, "p": 0.5},
        {"move": {"kind": "raise"}, "p": 0.3, "range": {"amount": [40, 150]}}])
    stacks = [60, 152, 120]  # position 0 can put 58 more, 2 can put 118: kinks
    estimator = Aivat(big_blind=2, samples=100, model=model)
    index = len(_decision_events({"kind": "fold"})) - 1
    mean = [0.0, 0.0, 0.0]
    outcomes = ([({"kind": "fold"}, 0.2), ({"kind": "call"}, 0.5)]
                + [({"kind": "raise", "amount": x}, 0.3 / 111) for x in range(40, 151)])
    for action, p in outcomes:
        c = estimator.hand(_decision_events(action), stacks, [0, 0, 0], {index: policy})
        assert c.decisions == [index]
        for q in range(3):
            mean[q] += p * c.action[0][q]
    assert all(abs(m) < 1e-9 for m in mean), mean


def test_a_decision_without_a_policy_has_no_term() -> None:
    estimator = Aivat(big_blind=2, samples=64)
    c = estimator.hand(_decision_events({"kind": "call"}), [400] * 3, [0, 0, 0])
    assert c.action == [] and c.nodes == ["deal", "flop"]


def test_the_deal_table_expectation_is_exact() -> None:
    """E over every hole-card pair of a position's table value is Σ P(class)·value."""
    rng = random.Random(3)
    values = [{c: rng.uniform(-5, 5) for c in CLASS_WEIGHT} for _ in range(3)]
    model = ValueModel(3, values)
    pairs = [a + b for i, a in enumerate(DECK) for b in DECK[i + 1:]]
    assert len(pairs) == 1326 and abs(sum(CLASS_WEIGHT.values()) - 1) < 1e-12
    for p in range(3):
        mean = math.fsum(values[p][hand_class(h)] for h in pairs) / 1326
        assert mean == pytest.approx(
            math.fsum(CLASS_WEIGHT[c] * values[p][c] for c in CLASS_WEIGHT))
    expected = model.expected_values(2)
    assert abs(sum(expected)) < 1e-9
    dealt = model.deal_values(["AsAh", "7c2d", "KdQd"], 2)
    assert abs(sum(dealt)) < 1e-9 and dealt[0] == pytest.approx(
        2 * (values[0]["AA"] - (values[1]["72o"] + values[2]["KQs"]) / 2))


# ------------------------------------------------------------ many hands


def _collect(struct: str, hands: int, seed: int, pair: tuple[str, str],
             model: ValueModel | None = None) -> tuple[Any, list[float], list[float]]:
    """A match with AIVAT; per hand the first bot's raw and corrected result."""
    raw: list[float] = []
    fixed: list[float] = []

    class Tracker(MatchTracker):
        def finish(self, state: Any, nets: Any) -> list[float]:
            out = super().finish(state, nets)
            raw.append(nets[0])  # a plain match: "a" always sits in seat 0
            fixed.append(out[0])
            return out

    import botkit.match as match_module

    original = match_module.MatchTracker
    match_module.MatchTracker = Tracker  # type: ignore[misc]
    try:
        result = play_match({"a": make_bot(pair[0], random.Random(seed)),
                             "b": make_bot(pair[1], random.Random(seed + 1))},
                            MatchSettings(structure=struct), hands=hands, seed=seed, aivat=True,
                            aivat_model=model)
    finally:
        match_module.MatchTracker = original  # type: ignore[misc]
    return result, raw, fixed


def _z(values: list[float]) -> float:
    n = len(values)
    mean = math.fsum(values) / n
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    return mean / (sd / math.sqrt(n))


@pytest.mark.parametrize(("struct", "hands"), [("FL", 1500), ("NL", 700)])
def test_identical_bots_are_corrected_to_zero_and_the_corrections_have_mean_zero(
        struct: str, hands: int) -> None:
    """Two identical random bots (their policies sent: action terms too), over several
    seeds: the corrected mean is 0 within its interval, the per-hand corrections
    (corrected − raw, a mean-zero quantity whatever the bots) pass a z-test, and the
    interval is narrower than the raw one."""
    raws: list[float] = []
    fixeds: list[float] = []
    for seed in (11, 12, 13, 14):
        result, raw, fixed = _collect(struct, hands // 4, seed, ("random", "random"))
        raws += raw
        fixeds += fixed
        assert result.aivat is not None and result.aivat["decisions"] > hands // 4
        assert all(result.bots[name].policy_errors == 0 for name in ("a", "b"))
    mean, half = mean_ci(fixeds)
    _, raw_half = mean_ci(raws)
    assert abs(mean) < half < raw_half
    assert abs(_z([f - r for f, r in zip(fixeds, raws, strict=True)])) < Z95


def test_the_corrected_mean_agrees_with_the_raw_mean_across_seeds() -> None:
    """rule_based against random over several seeds: the corrections' mean is zero
    (z-test over every hand), so AIVAT estimates what the raw mean estimates."""
    corrections: list[float] = []
    for seed in (1, 2, 3):
        _, raw, fixed = _collect("FL", 400, seed, ("rule_based", "random"))
        corrections += [f - r for f, r in zip(fixed, raw, strict=True)]
    assert abs(_z(corrections)) < Z95


def test_a_model_learnt_on_other_seeds_keeps_the_estimate_unbiased() -> None:
    """Learn the model (table and betas) on one seed, evaluate on others: the
    corrections still have mean zero, and the model is used (its JSON round-trips)."""
    model = learn_value_model({"a": make_bot("rule_based", random.Random(8)),
                               "b": make_bot("calling_station", random.Random(9))},
                              MatchSettings(structure="FL"), hands=800, seed=99)
    assert set(model.betas) >= {"preflop", "flop", "turn", "river"} and model.hands == 800
    assert ValueModel.from_json(json.loads(json.dumps(model.to_json()))) == model
    corrections: list[float] = []
    for seed in (4, 5):
        result, raw, fixed = _collect("FL", 400, seed, ("rule_based", "calling_station"),
                                      model)
        assert "model learnt from 800" in result.aivat["value_function"]
        corrections += [f - r for f, r in zip(fixed, raw, strict=True)]
    assert abs(_z(corrections)) < Z95


# ------------------------------------------------------------ policies

MOVES = [{"kind": "fold", "label": "Fold"}, {"kind": "call", "label": "Call 1"},
         {"kind": "raise", "label": "Raise to",
          "params": {"amount": {"type": "number", "min": 4, "max": 400}}}]


@pytest.mark.parametrize("policy", [
    {"move": {"kind": "fold"}, "p": 1},                          # not a list
    [],                                                          # empty
    [{"move": {"kind": "raise", "amount": 4 + i}, "p": 1 / 65} for i in range(MAX_POLICY + 1)],
    [{"move": {"kind": "fold"}, "p": 1.5}],                      # p out of range
    [{"move": {"kind": "fold"}, "p": -0.1}, {"move": {"kind": "call"}, "p": 1.1}],
    [{"move": {"kind": "fold"}, "p": True}],                     # a bool is not a number
    [{"move": {"kind": "fold"}, "p": float("nan")}],
    [{"move": {"kind": "fold"}, "p": 0.5}, {"move": {"kind": "call"}, "p": 0.3}],  # sum 0.8
    [{"move": {"kind": "check"}, "p": 1}],                       # not legal now
    [{"move": {"kind": "raise", "amount": 401}, "p": 1}],        # amount out of range
    [{"move": {"kind": "raise"}, "p": 1}],                       # amount missing
    [{"move": {"kind": "fold"}, "p": 0.5}, {"move": {"kind": "fold"}, "p": 0.5}],  # twice
    [{"move": {"kind": "fold"}, "p": 1, "extra": 1}],
    [{"move": "fold", "p": 1}],
    [{"move": {"kind": "raise"}, "p": 1, "range": {"amount": [3, 10]}}],   # 3 is illegal
    [{"move": {"kind": "raise"}, "p": 1, "range": {"amount": [10, 4]}}],
    [{"move": {"kind": "raise", "amount": 5}, "p": 1, "range": {"amount": [4, 10]}}],
])
def test_malformed_policies_are_refused_with_a_stable_code(policy: Any) -> None:
    with pytest.raises(PolicyError) as caught:
        validate_policy(MOVES, policy)
    assert caught.value.code == "invalid_policy" and isinstance(caught.value, ValueError)


def test_a_policy_is_normalised_and_must_contain_the_action() -> None:
    checked = validate_policy(MOVES, [{"move": {"kind": "fold"}, "p": 0.3333},
                                      {"move": {"kind": "call"}, "p": 0.6666}])
    assert math.fsum(e["p"] for e in checked) == pytest.approx(1.0, abs=1e-15)
    ranged = [{"move": {"kind": "raise"}, "p": 1.0, "range": {"amount": [4, 400]}}]
    assert validate_policy(MOVES, ranged, {"kind": "raise", "amount": 100})
    with pytest.raises(PolicyError, match="no positive probability"):
        validate_policy(MOVES, ranged, {"kind": "call"})
    with pytest.raises(PolicyError, match="no positive probability"):
        validate_policy(MOVES, [{"move": {"kind": "fold"}, "p": 0.0},
                                {"move": {"kind": "call"}, "p": 1.0}], {"kind": "fold"})


class BadPolicyBot(Bot):
    """Calls or checks, with a policy whose probabilities sum to 2."""

    def act(self, view: Json) -> Json:
        move = {"kind": "check"} if view["legal"]["can_check"] else {"kind": "call"}
        if view["legal"]["can_muck"]:
            return {"kind": "muck"}
        return {**move, "policy": [{"move": move, "p": 1.0}, {"move": {"kind": "fold"},
                                                             "p": 1.0}]}


def test_a_malformed_policy_offline_is_dropped_and_counted() -> None:
    result = play_match({"bad": BadPolicyBot(), "random": make_bot("random", random.Random(1))},
                        MatchSettings(), hands=60, seed=1, aivat=True)
    assert result.bots["bad"].policy_errors > 0 and result.bots["bad"].illegal == 0
    assert result.bots["random"].policy_errors == 0
    assert "sum to" in result.aivat["last_policy_error"]  # type: ignore[index]
    assert result.bots["bad"].to_json()["policy_errors"] == result.bots["bad"].policy_errors


def test_policies_change_nothing_in_how_the_house_bots_play() -> None:
    plain = play_match({"r": RuleBasedBot(random.Random(4)), "x": RandomBot(random.Random(5))},
                       MatchSettings(), hands=300, seed=9)
    told = play_match({"r": RuleBasedBot(random.Random(4)), "x": RandomBot(random.Random(5))},
                      MatchSettings(), hands=300, seed=9, aivat=True)
    assert [b.net for b in plain.bots.values()] == [b.net for b in told.bots.values()]
    assert told.aivat is not None and told.aivat["decisions"] > 0
    assert plain.aivat is None and "aivat" not in plain.bots["r"].estimates


def test_corrected_results_are_zero_sum_and_reported() -> None:
    result = play_match({"r": make_bot("rule_based", random.Random(1)),
                         "c": make_bot("calling_station", random.Random(2))},
                        MatchSettings(), hands=200, seed=2, duplicate=True, aivat=True)
    r, c = result.bots["r"].estimates, result.bots["c"].estimates
    assert set(r) == {"raw", "duplicate", "aivat", "aivat_duplicate"}
    assert r["aivat"]["mbb_per_hand"] == pytest.approx(-c["aivat"]["mbb_per_hand"], abs=1e-6)
    assert r["raw"]["mbb_per_hand"] == pytest.approx(result.bots["r"].mbb_per_hand)
    data = json.loads(json.dumps(result.to_json(), allow_nan=False))
    assert data["bots"]["r"]["aivat_mbb_per_hand"] == r["aivat_duplicate"]["mbb_per_hand"]
    assert data["aivat"]["value_function"] == "all-in equity"
    assert "AIVAT+dup" in result.report()


def test_aivat_is_for_holdem_only() -> None:
    with pytest.raises(ValueError, match="Hold'em"):
        play_match({"a": make_bot("uniform"), "b": make_bot("uniform")}, hands=2,
                   game="omaha", aivat=True)


# ------------------------------------------------------------ command line and SDK


def test_the_command_line_prints_raw_duplicate_and_aivat(capsys: Any, tmp_path: Any) -> None:
    assert main(["--bots", "rule_based,random", "--hands", "200", "--duplicate",
                 "--aivat"]) == 0
    out = capsys.readouterr().out
    assert "variance reduction" in out and "AIVAT+dup" in out and "duplicate" in out
    assert main(["--bots", "rule_based,random", "--hands", "100", "--aivat",
                 "--aivat-samples", "64", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["aivat"]["samples"] == 64 and "aivat" in data["bots"]["random"]["estimates"]
    assert main(["--game", "omaha", "--bots", "uniform,uniform", "--hands", "4",
                 "--aivat"]) == 2
    assert "Hold'em" in capsys.readouterr().err
    saved = tmp_path / "model.json"
    assert main(["--bots", "rule_based,calling_station", "--hands", "100", "--aivat",
                 "--aivat-train", "300", "--aivat-save-model", str(saved), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "model learnt from 300 other hands" in data["aivat"]["value_function"]
    assert main(["--bots", "rule_based,calling_station", "--hands", "100", "--aivat",
                 "--aivat-model", str(saved), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["bots"] == data["bots"]  # the same frozen model, the same estimates
    assert main(["--bots", "rule_based,random", "--hands", "10", "--aivat",
                 "--aivat-model", str(tmp_path / "missing.json")]) == 2


def test_the_sdk_sends_a_checked_policy_beside_the_action() -> None:
    turn = {"hand": 3, "version": 9, "legal": {"can_fold": True, "can_check": False,
                                               "call_amount": 1, "sized_kind": "raise",
                                               "min_raise_to": 4, "max_raise_to": 400,
                                               "can_show": False, "can_muck": False},
            "moves": MOVES}
    answer = {"kind": "call", "policy": [{"move": {"kind": "call"}, "p": 0.5},
                                         {"move": {"kind": "fold"}, "p": 0.5}]}
    action, ok, policy, refused = answer_and_policy(answer, turn)
    assert ok and action == {"kind": "call"} and refused == ""
    command = act_command(3, 9, action, policy)
    assert command == {"type": "act", "hand": 3, "version": 9, "action": {"kind": "call"},
                       "policy": policy}
    bad = {"kind": "call", "policy": [{"move": {"kind": "check"}, "p": 1.0}]}
    action, ok, policy, refused = answer_and_policy(bad, turn)
    assert ok and policy is None and "not a legal move" in refused
    assert "policy" not in act_command(3, 9, action, policy)
    illegal = {"kind": "check", "policy": [{"move": {"kind": "call"}, "p": 1.0}]}
    action, ok, policy, _ = answer_and_policy(illegal, turn)
    assert not ok and policy is None and action == {"kind": "fold"}


def test_the_match_runner_sends_a_house_bots_policy_beside_its_action() -> None:
    class Socket:
        def __init__(self) -> None:
            self.sent: list[Json] = []

        def send(self, message: Json) -> None:
            self.sent.append(message)

    socket = Socket()
    runner = MatchRunner("http://x", "token", RandomBot(random.Random(2)), 7, progress=False)
    view = {"legal": {"can_fold": True, "can_check": False, "call_amount": 1,
                      "sized_kind": "raise", "min_raise_to": 4, "max_raise_to": 400,
                      "can_show": False, "can_muck": False}, "moves": MOVES}
    runner.handle(socket, {"type": "match_turn", "request_id": "1-a", "view": view})  # type: ignore[arg-type]
    message = socket.sent[0]
    assert message["type"] == "match_action" and "policy" not in message["action"]
    assert validate_policy(MOVES, message["policy"], message["action"])
    runner.bot.act = lambda view: {"kind": "call",  # type: ignore[method-assign]
                                   "policy": [{"move": {"kind": "call"}, "p": 3}]}
    runner.handle(socket, {"type": "match_turn", "request_id": "2-b", "view": view})  # type: ignore[arg-type]
    assert "policy" not in socket.sent[1] and runner.summary.policy_errors == 1


def test_a_hand_the_estimator_cannot_read_stops_it_not_the_match(monkeypatch: Any) -> None:
    def broken(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise ValueError("unreadable")

    monkeypatch.setattr(Aivat, "hand", broken)
    result = play_match({"a": make_bot("rule_based", random.Random(1)),
                         "b": make_bot("random", random.Random(2))},
                        MatchSettings(), hands=50, seed=1, aivat=True)
    assert result.hands == 50 and "aivat" not in result.bots["a"].estimates
    assert result.aivat is not None and result.aivat["error"] == "ValueError: unreadable"

