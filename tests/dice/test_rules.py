"""Rule sets of the dice game: every family's condition and points, every constraint of
the seed's table (004-generic-dice-game, Liite 1) refused with its code, Yatzy and Maxi
Yatzy against published examples, identity."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from engine.dice.rules import (
    FAMILIES,
    SHIPPED,
    Rules,
    counts_of,
    rules_id,
    shipped_rules,
    validate_rules,
)
from engine.errors import MalformedAction

Json = dict[str, Any]


def one(combo: Json, dice: int = 5, faces: int = 6, **extra: Any) -> Rules:
    """A rule set with one combination (id "box")."""
    return Rules(validate_rules({"dice": dice, "faces": faces, "rolls": 3,
                                 "combinations": [{"id": "box", **combo}], **extra}))


# ------------------------------------------------------------------ families

FAMILY_EXAMPLES: list[tuple[Json, int, int, list[int], int]] = [
    # x:s — at least one die showing x; points: the sum of those dice
    ({"family": "face", "face": 3}, 5, 6, [3, 3, 3, 5, 5], 9),
    ({"family": "face", "face": 5}, 5, 6, [3, 3, 3, 5, 5], 10),
    ({"family": "face", "face": 1}, 5, 6, [3, 3, 3, 5, 5], 0),
    ({"family": "face", "face": 9}, 3, 9, [9, 9, 1], 18),
    # m-long run; points: the sum of the run (the highest run present)
    ({"family": "run", "length": 3}, 5, 6, [1, 2, 3, 5, 6], 6),
    ({"family": "run", "length": 3}, 5, 6, [2, 3, 4, 5, 1], 12),
    ({"family": "run", "length": 3}, 5, 6, [1, 1, 3, 5, 6], 0),
    ({"family": "run", "length": 2}, 2, 9, [8, 9], 17),
    ({"family": "run", "length": 5, "start": 1}, 5, 6, [5, 4, 3, 2, 1], 15),
    ({"family": "run", "length": 5, "start": 1}, 5, 6, [2, 3, 4, 5, 6], 0),
    ({"family": "run", "length": 5, "start": 2}, 5, 6, [2, 3, 4, 5, 6], 20),
    ({"family": "run", "length": 4, "points": 30}, 5, 6, [1, 2, 3, 4, 6], 30),
    ({"family": "run", "length": 4, "points": 30}, 5, 6, [1, 2, 3, 5, 6], 0),
    # t of a kind; points: the sum of those t dice (the highest face)
    ({"family": "kind", "count": 3}, 5, 6, [4, 4, 4, 4, 2], 12),
    ({"family": "kind", "count": 3}, 5, 6, [2, 2, 2, 6, 6], 6),
    ({"family": "kind", "count": 3}, 5, 6, [1, 2, 3, 4, 5], 0),
    ({"family": "kind", "count": 2, "face": 5}, 5, 6, [5, 5, 6, 6, 1], 10),
    ({"family": "kind", "count": 2, "face": 5}, 5, 6, [6, 6, 6, 1, 2], 0),
    # h groups of t of a kind, different faces; points: the sum of the h × t dice
    ({"family": "groups", "groups": 2, "count": 2}, 5, 6, [3, 3, 3, 5, 5], 16),
    ({"family": "groups", "groups": 2, "count": 2}, 5, 6, [6, 6, 6, 6, 2], 0),
    ({"family": "groups", "groups": 2, "count": 2}, 6, 6, [2, 2, 5, 5, 6, 6], 22),
    ({"family": "groups", "groups": 3, "count": 2}, 6, 6, [2, 2, 5, 5, 6, 6], 26),
    ({"family": "groups", "groups": 2, "count": 2, "faces": [1, 2]}, 5, 6, [1, 1, 2, 2, 6], 6),
    ({"family": "groups", "groups": 2, "count": 2, "faces": [1, 2]}, 5, 6, [5, 5, 6, 6, 1], 0),
    ({"family": "groups", "groups": 2, "count": 3}, 6, 6, [2, 2, 2, 5, 5, 5], 21),
    # all divisible by k; points: the sum of all dice
    ({"family": "divisible", "divisor": 2}, 5, 6, [2, 4, 6, 6, 2], 20),
    ({"family": "divisible", "divisor": 2}, 5, 6, [2, 4, 6, 6, 3], 0),
    ({"family": "divisible", "divisor": 3}, 5, 9, [3, 6, 9, 9, 3], 30),
    # none divisible by k; points: the sum of all dice
    ({"family": "indivisible", "divisor": 2}, 5, 6, [1, 3, 5, 5, 1], 15),
    ({"family": "indivisible", "divisor": 2}, 5, 6, [1, 3, 5, 5, 2], 0),
    ({"family": "indivisible", "divisor": 3}, 5, 9, [1, 2, 4, 5, 7], 19),
    ({"family": "indivisible", "divisor": 3}, 5, 9, [1, 2, 4, 5, 9], 0),
    # yatzy (s): all n dice alike; points: 50 unless the rule set says otherwise
    ({"family": "yatzy"}, 5, 6, [4, 4, 4, 4, 4], 50),
    ({"family": "yatzy"}, 5, 6, [4, 4, 4, 4, 3], 0),
    ({"family": "yatzy", "face": 6}, 5, 6, [4, 4, 4, 4, 4], 0),
    ({"family": "yatzy", "face": 6}, 5, 6, [6, 6, 6, 6, 6], 50),
    ({"family": "yatzy", "points": 100}, 6, 6, [4, 4, 4, 4, 4, 4], 100),
    ({"family": "yatzy"}, 1, 6, [2], 50),
    # fair split: two non-empty halves with the same faces; points: the sum of all dice
    ({"family": "fair_split"}, 4, 6, [2, 2, 5, 5], 14),
    ({"family": "fair_split"}, 4, 6, [3, 3, 3, 3], 12),
    ({"family": "fair_split"}, 4, 6, [1, 2, 2, 1], 6),
    ({"family": "fair_split"}, 4, 6, [1, 2, 3, 3], 0),
    ({"family": "fair_split"}, 6, 6, [1, 1, 4, 4, 6, 6], 22),
    # greedy split: the same but for one die; points: the sum of the split dice
    ({"family": "greedy_split"}, 5, 6, [2, 2, 5, 5, 6], 14),
    ({"family": "greedy_split"}, 5, 6, [3, 3, 3, 4, 4], 14),
    ({"family": "greedy_split"}, 5, 6, [6, 6, 6, 6, 6], 24),
    ({"family": "greedy_split"}, 5, 6, [1, 2, 3, 4, 5], 0),
    ({"family": "greedy_split"}, 3, 6, [4, 1, 4], 8),
    # full house: (n-1)/2 of one face and (n+1)/2 of another; points: the sum of all dice
    ({"family": "full_house"}, 5, 6, [3, 5, 5, 3, 3], 19),
    ({"family": "full_house"}, 5, 6, [2, 2, 2, 2, 5], 0),
    ({"family": "full_house"}, 5, 6, [4, 4, 4, 4, 4], 0),
    ({"family": "full_house"}, 3, 6, [2, 2, 5], 9),
    ({"family": "full_house"}, 7, 6, [1, 1, 1, 6, 6, 6, 6], 27),
    ({"family": "full_house", "faces": [2, 3]}, 5, 6, [2, 2, 3, 3, 3], 13),
    ({"family": "full_house", "faces": [2, 3]}, 5, 6, [3, 3, 2, 2, 2], 0),
    ({"family": "full_house", "points": 25}, 5, 6, [1, 1, 6, 6, 6], 25),
    # chance: the sum of all dice
    ({"family": "chance"}, 5, 6, [1, 1, 3, 3, 5], 13),
    ({"family": "chance"}, 9, 9, [9] * 9, 81),
]


@pytest.mark.parametrize(("combo", "dice", "faces", "roll", "points"), FAMILY_EXAMPLES)
def test_family_condition_and_points(combo: Json, dice: int, faces: int, roll: list[int],
                                     points: int) -> None:
    assert one(combo, dice, faces).score("box", roll) == points


def test_every_family_has_worked_examples() -> None:
    assert {c["family"] for c, *_ in FAMILY_EXAMPLES} == set(FAMILIES)


# ------------------------------------------------------------------ constraints

REFUSALS: list[tuple[Json, int, int, str, str]] = [
    # x:s — x <= p
    ({"family": "face", "face": 7}, 5, 6, "rules_face", "face 7 is more than"),
    ({"family": "face", "face": 0}, 5, 6, "rules_malformed", "face is a whole number"),
    # m:n run — 2 <= m <= n, m <= p
    ({"family": "run", "length": 1}, 5, 6, "rules_run_length", "a run is 2 to"),
    ({"family": "run", "length": 5}, 4, 6, "rules_run_length", "= 4 long, not 5"),
    ({"family": "run", "length": 5}, 6, 4, "rules_run_length", "= 4 long, not 5"),
    ({"family": "run", "length": 5, "start": 3}, 5, 6, "rules_run_start", "beyond"),
    # t of a kind — 2 <= t <= n, s <= p
    ({"family": "kind", "count": 1}, 5, 6, "rules_kind_count", "2 ≤ t ≤ dice"),
    ({"family": "kind", "count": 6}, 5, 6, "rules_kind_count", "not t = 6"),
    ({"family": "kind", "count": 2, "face": 7}, 5, 6, "rules_face", "largest face 6"),
    # h groups of t — h >= 2, h*t <= n, h*t <= p, s_i <= p
    ({"family": "groups", "groups": 1, "count": 2}, 5, 6, "rules_groups", "h ≥ 2"),
    ({"family": "groups", "groups": 2, "count": 3}, 5, 6, "rules_groups_dice", "h × t ≤ n"),
    ({"family": "groups", "groups": 3, "count": 2}, 6, 5, "rules_groups_faces", "h × t ≤ p"),
    ({"family": "groups", "groups": 2, "count": 2, "faces": [1, 7]}, 5, 6, "rules_face",
     "s ≤ p"),
    ({"family": "groups", "groups": 2, "count": 2, "faces": [3, 3]}, 5, 6,
     "rules_faces_differ", "must differ"),
    ({"family": "groups", "groups": 2, "count": 2, "faces": [3]}, 5, 6, "rules_malformed",
     "lists 2"),
    # divisible / indivisible by k — (k = 2 and p >= 2) or (k = 3 and p >= 3)
    ({"family": "divisible", "divisor": 4}, 5, 6, "rules_divisor", "k is 2 or 3"),
    ({"family": "divisible", "divisor": 3}, 5, 2, "rules_divisor", "faces ≥ 3"),
    ({"family": "indivisible", "divisor": 5}, 5, 6, "rules_divisor", "k is 2 or 3"),
    ({"family": "indivisible", "divisor": 3}, 5, 2, "rules_divisor", "faces ≥ 3"),
    # yatzy (s) — s <= p
    ({"family": "yatzy", "face": 7}, 5, 6, "rules_face", "largest face 6"),
    # fair split — n even
    ({"family": "fair_split"}, 5, 6, "rules_fair_split", "even number of dice"),
    ({"family": "fair_split"}, 1, 6, "rules_fair_split", "even number of dice"),
    # greedy split — n odd, n >= 3
    ({"family": "greedy_split"}, 4, 6, "rules_greedy_split", "odd number of dice"),
    ({"family": "greedy_split"}, 1, 6, "rules_greedy_split", "at least 3"),
    # full house — n odd, n >= 3, s1, s2 faces (and different)
    ({"family": "full_house"}, 4, 6, "rules_full_house", "odd number of dice"),
    ({"family": "full_house"}, 6, 6, "rules_full_house", "odd number of dice"),
    ({"family": "full_house"}, 1, 6, "rules_full_house", "at least 3"),
    ({"family": "full_house", "faces": [2, 7]}, 5, 6, "rules_face", "s ≤ p"),
    ({"family": "full_house", "faces": [4, 4]}, 5, 6, "rules_faces_differ", "must differ"),
    # shape
    ({"family": "poker"}, 5, 6, "rules_family", "unknown family"),
    ({"family": "chance", "face": 3}, 5, 6, "rules_malformed", "has no face"),
    ({"family": "kind"}, 5, 6, "rules_malformed", "needs count"),
    ({"family": "chance", "points": -1}, 5, 6, "rules_malformed", "points"),
    ({"family": "chance", "points": 1001}, 5, 6, "rules_malformed", "points"),
    ({"family": "kind", "count": True}, 5, 6, "rules_malformed", "count"),
]


@pytest.mark.parametrize(("combo", "dice", "faces", "code", "words"), REFUSALS)
def test_each_constraint_is_refused_with_its_code(combo: Json, dice: int, faces: int,
                                                  code: str, words: str) -> None:
    with pytest.raises(MalformedAction) as info:
        one(combo, dice, faces)
    assert info.value.code == code
    assert words in info.value.reason and "'box'" in info.value.reason, info.value.reason


@pytest.mark.parametrize(("change", "code"), [
    ({"dice": 0}, "rules_dice"), ({"dice": 10}, "rules_dice"), ({"dice": "5"}, "rules_dice"),
    ({"faces": 1}, "rules_faces"), ({"faces": 10}, "rules_faces"),
    ({"rolls": 0}, "rules_rolls"), ({"rolls": 10}, "rules_rolls"),
    ({"combinations": []}, "rules_count"),
    ({"combinations": [{"id": f"c{i}", "family": "chance"} for i in range(31)]},
     "rules_count"),
    ({"combinations": [{"id": "c", "family": "chance"}] * 2}, "rules_duplicate_id"),
    ({"combinations": [{"id": "Bad id", "family": "chance"}]}, "rules_malformed"),
    ({"combinations": ["chance"]}, "rules_malformed"),
    ({"colour": "red"}, "rules_malformed"),
    ({"name": ""}, "rules_malformed"), ({"name": "tab\there"}, "rules_malformed"),
    ({"combinations": [{"id": "c", "family": "chance", "name": "new\nline"}]},
     "rules_malformed"),
    ({"bonus": {"threshold": 106, "points": 50}}, "rules_bonus_unreachable"),
    ({"bonus": {"threshold": 63, "points": 50, "boxes": ["nope"]}}, "rules_bonus"),
    ({"bonus": {"threshold": 63, "points": 50, "boxes": []}}, "rules_bonus"),
    ({"bonus": {"threshold": 63}}, "rules_bonus"),
    ({"bonus": 50}, "rules_bonus"),
    ({"id": "0123456789abcdef"}, "rules_id"),
])
def test_rule_set_shape_is_checked(change: Json, code: str) -> None:
    data = {**SHIPPED["yatzy"], **change}
    with pytest.raises(MalformedAction) as info:
        validate_rules(data)
    assert info.value.code == code, info.value.reason
    assert info.value.reason.endswith(".")
    with pytest.raises(MalformedAction):
        validate_rules([data])


def test_the_faces_are_1_to_p() -> None:
    """The seed's p is the largest face value (noppien maksimisilmäluku, 2..9): a die
    shows 1..p."""
    rules = one({"family": "chance"}, 1, 2)
    assert rules.score("box", [1]) == 1 and rules.score("box", [2]) == 2
    with pytest.raises(MalformedAction):
        one({"family": "chance"}, 1, 1)
    assert one({"family": "face", "face": 9}, 9, 9).score("box", [9] * 9) == 81


# ------------------------------------------------------------------ brute force


def _rolls(dice: int, faces: int) -> list[tuple[int, ...]]:
    return [counts_of(r, faces)
            for r in itertools.combinations_with_replacement(range(1, faces + 1), dice)]


def _candidates(n: int, p: int) -> list[Json]:
    out: list[Json] = [{"family": "chance"}, {"family": "fair_split"},
                       {"family": "greedy_split"}, {"family": "full_house"},
                       {"family": "yatzy"}]
    for x in range(0, p + 2):
        out += [{"family": "face", "face": x}, {"family": "yatzy", "face": x}]
    for m in range(1, 7):
        out.append({"family": "run", "length": m})
        out += [{"family": "run", "length": m, "start": s} for s in range(1, p + 1)]
    for t in range(1, 7):
        out += [{"family": "kind", "count": t}, {"family": "kind", "count": t, "face": p},
                {"family": "kind", "count": t, "face": 1}]
    for h, t in itertools.product(range(1, 4), range(1, 4)):
        out += [{"family": "groups", "groups": h, "count": t},
                {"family": "groups", "groups": h, "count": t, "faces": list(range(1, h + 1))}]
    for k in range(1, 5):
        out += [{"family": "divisible", "divisor": k}, {"family": "indivisible", "divisor": k}]
    out += [{"family": "full_house", "faces": [a, b]} for a in range(1, p + 1)
            for b in range(1, p + 1)]
    return out


def test_every_accepted_combination_is_possible_and_its_maximum_is_right() -> None:
    """Brute force over every roll of every small rule set: the seed's constraints are
    exactly what makes a combination possible (h × t ≤ p aside, which is stricter),
    and ``max_points`` is the best score."""
    accepted = refused = 0
    for n, p in itertools.product(range(1, 6), range(2, 7)):
        rolls = _rolls(n, p)
        for combo in _candidates(n, p):
            try:
                box = one(combo, n, p).by_id["box"]
            except MalformedAction:
                refused += 1
                continue
            accepted += 1
            scores = [box.score(r) for r in rolls]
            made = [box.made(r) is not None for r in rolls]
            assert any(made), (combo, n, p)
            assert max(scores) == box.max_points(), (combo, n, p)
    assert accepted > 800 and refused > 800


def test_shipped_maxima() -> None:
    yatzy = Rules(shipped_rules("yatzy"))
    upper = sum(c.max_points() for c in yatzy.combinations if c.family == "face")
    lower = sum(c.max_points() for c in yatzy.combinations if c.family != "face")
    assert (upper, lower, upper + lower + yatzy.bonus_points) == (105, 219, 374)
    for key in SHIPPED:
        rules = Rules(shipped_rules(key))
        if rules.dice <= 6:
            rolls = _rolls(rules.dice, rules.faces)
            for box in rules.combinations:
                assert max(box.score(r) for r in rolls) == box.max_points(), (key, box.id)


# ------------------------------------------------------------------ published games

# How to play Yatzy (Scandinavian rules), mickael.pusku.com/yatze/yz.php, and the
# Scandinavian rules as Wikipedia's "Yatzy" article gives them.
YATZY_EXAMPLES = [
    ("one_pair", [5, 3, 3, 2, 1], 6),
    ("one_pair", [3, 3, 6, 6, 1], 12),  # the highest pair
    ("one_pair", [3, 3, 3, 4, 4], 8),
    ("two_pairs", [5, 3, 3, 4, 4], 14),
    ("two_pairs", [1, 1, 2, 3, 3], 8),
    ("two_pairs", [4, 4, 4, 4, 1], 0),  # the pairs must differ
    ("three_of_a_kind", [5, 3, 3, 3, 2], 9),
    ("three_of_a_kind", [4, 4, 4, 3, 1], 12),
    ("four_of_a_kind", [5, 4, 4, 4, 4], 16),
    ("four_of_a_kind", [2, 2, 2, 2, 2], 8),
    ("small_straight", [1, 2, 3, 4, 5], 15),
    ("small_straight", [2, 3, 4, 5, 6], 0),
    ("large_straight", [2, 3, 4, 5, 6], 20),
    ("large_straight", [1, 2, 3, 4, 5], 0),
    ("full_house", [3, 5, 5, 3, 3], 19),
    ("full_house", [4, 4, 4, 2, 2], 16),
    ("full_house", [1, 1, 2, 2, 2], 8),
    ("full_house", [6, 6, 6, 6, 6], 0),  # a yatzy is no full house
    ("fours", [4, 4, 4, 3, 1], 12),
    ("sixes", [6, 6, 1, 2, 3], 12),
    ("ones", [2, 3, 4, 5, 6], 0),
    ("chance", [1, 1, 3, 3, 5], 13),
    ("yatzy", [3, 3, 3, 3, 3], 50),
    ("yatzy", [6, 6, 6, 6, 5], 0),
]


@pytest.mark.parametrize(("box", "roll", "points"), YATZY_EXAMPLES)
def test_yatzy_scores_as_published(box: str, roll: list[int], points: int) -> None:
    assert Rules(shipped_rules("yatzy")).score(box, roll) == points


def test_yatzy_bonus_is_50_at_63() -> None:
    rules = Rules(shipped_rules("yatzy"))
    sheet: list[int | None] = [3, 6, 9, 12, 15, 17] + [None] * 8 + [50]
    assert (rules.upper(sheet), rules.bonus(sheet), rules.total(sheet)) == (62, 0, 112)
    sheet[5] = 18
    assert (rules.upper(sheet), rules.bonus(sheet), rules.total(sheet)) == (63, 50, 163)
    assert rules.bonus_boxes == {"ones", "twos", "threes", "fours", "fives", "sixes"}


# MaxiYatzy rules, maxiyatzy.com (Swedish) / maxiyahtzee.com: its examples.
MAXI_EXAMPLES = [
    ("ones", [3, 1, 1, 6, 1, 4], 3), ("twos", [2, 5, 4, 3, 2, 6], 4),
    ("threes", [3, 2, 1, 3, 4, 3], 9), ("fours", [4, 4, 3, 4, 5, 4], 16),
    ("fives", [5, 1, 2, 5, 5, 4], 15), ("sixes", [4, 6, 3, 1, 6, 6], 18),
    ("one_pair", [6, 4, 2, 6, 5, 1], 12), ("two_pairs", [2, 1, 3, 3, 5, 5], 16),
    ("three_pairs", [2, 2, 5, 5, 6, 6], 26), ("three_of_a_kind", [4, 5, 3, 5, 5, 4], 15),
    ("four_of_a_kind", [2, 4, 2, 2, 5, 2], 8), ("five_of_a_kind", [3, 3, 2, 3, 3, 3], 15),
    ("small_straight", [1, 2, 3, 4, 5, 3], 15), ("large_straight", [2, 3, 4, 5, 6, 6], 20),
    ("full_straight", [1, 2, 3, 4, 5, 6], 21), ("villa", [2, 2, 2, 5, 5, 5], 21),
    ("chance", [3, 4, 2, 6, 5, 4], 24), ("maxi_yatzy", [4, 4, 4, 4, 4, 4], 100),
]


@pytest.mark.parametrize(("box", "roll", "points"), MAXI_EXAMPLES)
def test_maxi_scores_as_published(box: str, roll: list[int], points: int) -> None:
    assert Rules(shipped_rules("maxi")).score(box, roll) == points


def test_maxi_bonus_is_100_at_84() -> None:
    rules = Rules(shipped_rules("maxi"))
    assert (rules.threshold, rules.bonus_points) == (84, 100)


# ------------------------------------------------------------------ identity


def test_identity_is_the_hash_of_the_rules_without_names() -> None:
    yatzy = shipped_rules("yatzy")
    assert yatzy["id"] == rules_id(yatzy) == "71ad65ca05479ddc"
    renamed = {**SHIPPED["yatzy"], "name": "Yatzy (Finnish: Jatsi)",
               "combinations": [{**c, "name": c["id"].upper()[:40]}
                                for c in SHIPPED["yatzy"]["combinations"]]}
    assert validate_rules(renamed)["id"] == yatzy["id"]
    assert validate_rules({**yatzy})["id"] == yatzy["id"]  # its own id is accepted
    changes: list[Json] = [
        {"dice": 7}, {"faces": 7}, {"rolls": 4}, {"bonus": None},
        {"bonus": {"threshold": 64, "points": 50}},
        {"combinations": SHIPPED["yatzy"]["combinations"][:-1]},
        {"combinations": list(reversed(SHIPPED["yatzy"]["combinations"]))},
        {"combinations": [*SHIPPED["yatzy"]["combinations"][:-1],
                          {"id": "yatzy", "family": "yatzy", "points": 100}]},
    ]
    ids = {validate_rules({**SHIPPED["yatzy"], **c})["id"] for c in changes}
    assert len(ids) == len(changes) and yatzy["id"] not in ids


def test_normalised_rules_are_stable() -> None:
    for key in SHIPPED:
        data = shipped_rules(key)
        assert validate_rules(data) == data  # normalising again changes nothing
        assert all(c["name"] for c in data["combinations"])
        assert 1 <= len(data["combinations"]) <= 30
    assert shipped_rules("nines")["combinations"][0]["name"] == "Sevens"
    assert shipped_rules("yatzy")["bonus"]["boxes"] == ["ones", "twos", "threes", "fours",
                                                        "fives", "sixes"]
