"""Pre-flop tables, made-hand classification and HS/PPOT/NPOT/EHS."""

from __future__ import annotations

import random

import pytest

from botkit.preflop import GROUP_TABLE, SKLANSKY, sklansky_group, starting_hand
from botkit.strength import (
    MONSTER,
    NOTHING,
    STRONG,
    TOP_PAIR,
    WEAK_PAIR,
    classify,
    effective_strength,
    hand_strength,
    potentials,
)
from engine.cards import parse_cards


def test_sklansky_table() -> None:
    assert len(SKLANSKY) == 169 and len(GROUP_TABLE) == 52 * 52
    assert [SKLANSKY[h] for h in ("AA", "AKs", "AKo", "T9o", "K9s", "K2s", "A9o", "72o")] == [
        1, 1, 2, 7, 6, 7, 8, 9]
    a, b = parse_cards("Kd9d")
    assert sklansky_group(a, b) == sklansky_group(b, a) == 6
    assert starting_hand(b, a) == "K9s"


@pytest.mark.parametrize(
    ("hole", "board", "tier"),
    [
        ("AsAd", "Kh7c2d", STRONG),      # overpair
        ("AsKd", "Kh7c2d", STRONG),      # top pair, good kicker
        ("Ks3d", "Kh7c2d", TOP_PAIR),    # top pair, weak kicker
        ("7s6d", "Kh7c2d", WEAK_PAIR),
        ("7s7d", "Kh7c2d", MONSTER),     # set
        ("Kd7d", "Kh7c2d", MONSTER),     # two pair
        ("AsQd", "Kh7c2d", NOTHING),
        ("AsQd", "KhKc2d2s5c", NOTHING),  # the board plays
        ("Jd7d", "KhKc7c", WEAK_PAIR),    # two pair on a paired board: our pair of sevens
    ],
)
def test_classify(hole: str, board: str, tier: int) -> None:
    assert classify(parse_cards(hole), parse_cards(board)).tier == tier


def test_draws() -> None:
    flush = classify(parse_cards("AsQs"), parse_cards("Ks7s2d"))
    assert flush.flush_draw and flush.tier == NOTHING
    assert classify(parse_cards("9c8d"), parse_cards("Ts7s2d")).straight_draw == 2
    assert classify(parse_cards("9c8d"), parse_cards("Qs7s2d")).straight_draw == 0
    assert classify(parse_cards("9c5d"), parse_cards("8s7s2d")).straight_draw == 1
    assert classify(parse_cards("9c8d"), parse_cards("Ts7s2d3h4c")).straight_draw == 0


def test_hand_strength_exact() -> None:
    # AA on K72 rainbow loses to 3 sets x 3 combos and 3 two pairs x 9, ties with AA once.
    assert hand_strength(parse_cards("AsAd"), parse_cards("Kh7c2d")) == pytest.approx(
        (1081 - 36 - 1 + 0.5) / 1081)
    # the nuts on the river
    assert hand_strength(parse_cards("AsKs"), parse_cards("QsJsTs2d3c")) == 1.0


def test_potentials() -> None:
    hole, board = parse_cards("9s8s"), parse_cards("Ts7s2dKh")
    exact = potentials(hole, board)
    sampled = potentials(hole, board, samples=4000, rng=random.Random(1))
    assert exact[0] == pytest.approx(sampled[0], abs=0.04)
    assert exact[1] == pytest.approx(sampled[1], abs=0.04)
    assert exact[0] > 0.35  # a flush and open-ended straight draw improves often
    assert potentials(hole, board + parse_cards("2c")) == (0.0, 0.0)


def test_effective_strength() -> None:
    assert effective_strength(0.6, 0.2, 0.1) == pytest.approx(0.6 * 0.9 + 0.4 * 0.2)
    assert effective_strength(0.6, 0.2, 0.1, opponents=2) == pytest.approx(
        0.36 * 0.9 + 0.64 * 0.2)
