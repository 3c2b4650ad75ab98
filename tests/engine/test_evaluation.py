"""Evaluation against a brute-force reference, names and display order."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

from engine.cards import format_cards, parse_cards, standard_deck
from engine.evaluation import best_five, describe, evaluate, evaluate_omaha, hand_category


def reference5(cards: tuple[int, ...]) -> tuple[int, ...]:
    ranks = sorted((c >> 2 for c in cards), reverse=True)
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    flush = len({c & 3 for c in cards}) == 1
    distinct = sorted(set(ranks), reverse=True)
    straight = None
    if len(distinct) == 5 and distinct[0] - distinct[4] == 4:
        straight = distinct[0]
    elif distinct == [12, 3, 2, 1, 0]:
        straight = 3
    ordered = tuple(r for r, _ in groups)
    shape = tuple(n for _, n in groups)
    if straight is not None and flush:
        return (8, straight)
    if shape == (4, 1):
        return (7, *ordered)
    if shape == (3, 2):
        return (6, *ordered)
    if flush:
        return (5, *ranks)
    if straight is not None:
        return (4, straight)
    if shape == (3, 1, 1):
        return (3, *ordered)
    if shape == (2, 2, 1):
        return (2, *ordered)
    if shape == (2, 1, 1, 1):
        return (1, *ordered)
    return (0, *ranks)


def reference(cards: tuple[int, ...]) -> tuple[int, ...]:
    return max(reference5(five) for five in combinations(cards, 5))


def test_matches_brute_force_reference() -> None:
    rng = random.Random(42)
    deck = standard_deck()
    hands = [tuple(rng.sample(deck, 7)) for _ in range(1500)]
    values = [evaluate(h) for h in hands]
    refs = [reference(tuple(int(c) for c in h)) for h in hands]
    for value, ref in zip(values, refs, strict=True):
        assert value >> 24 == ref[0]
    for i in range(len(hands) - 1):
        a, b = values[i], values[i + 1]
        ra, rb = refs[i], refs[i + 1]
        assert (a > b) == (ra > rb) and (a == b) == (ra == rb)


def test_descriptions_and_best_five() -> None:
    assert describe(evaluate(parse_cards("KsKdQc5h5d2c3d"))) == "Two pair, Kings and Fives"
    assert describe(evaluate(parse_cards("5s4d3c2hAd"))) == "Straight, Five high"
    assert hand_category(evaluate(parse_cards("2s3s4s5s7s"))) == "flush"
    assert format_cards(best_five(parse_cards("5s4d3c2hAdKc9c"))) == "5s4d3c2hAd"


def test_omaha_uses_exactly_two_hole_cards() -> None:
    # four spades on board + one spade in hand is not a flush in Omaha
    value = evaluate_omaha(parse_cards("AsKdQcJh"), parse_cards("2s3s4s9s8d"))
    assert hand_category(value) != "flush"
