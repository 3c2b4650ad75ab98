"""Hand evaluation behind a small API, backed by the compiled ``eval7``.

:func:`evaluate` returns an ``int``; a higher value is a better hand and
values of different players compare directly.

>>> from engine.cards import parse_cards
>>> value = evaluate(parse_cards("KsKdQc5h5d2c3d"))
>>> hand_category(value), describe(value)
('two_pair', 'Two pair, Kings and Fives')
>>> evaluate(parse_cards("As2s3s4s5s")) > evaluate(parse_cards("AsAdAcAhKd"))
True
>>> format_cards(best_five(parse_cards("KsKdQc5h5d2c3d")))
'KsKd5h5dQc'
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import eval7

from engine.cards import CARDS, Card, format_cards

__all__ = [
    "CATEGORIES",
    "best_five",
    "describe",
    "evaluate",
    "evaluate_omaha",
    "format_cards",
    "hand_category",
]

_EVAL7 = tuple(eval7.Card(str(card)) for card in CARDS)
_evaluate = eval7.evaluate

CATEGORIES = (
    "high_card",
    "pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
)
"""Hand categories from worst to best; ``value >> 24`` indexes this tuple."""

_RANK_NAMES = (
    "Two", "Three", "Four", "Five", "Six", "Seven", "Eight",
    "Nine", "Ten", "Jack", "Queen", "King", "Ace",
)
_PLURALS = tuple(name + ("es" if name == "Six" else "s") for name in _RANK_NAMES)


def evaluate(cards: Sequence[Card]) -> int:
    """Value of the best five-card hand among 5 to 7 cards (higher is better)."""
    table = _EVAL7
    return int(_evaluate([table[c] for c in cards]))


def evaluate_omaha(hole: Sequence[Card], board: Sequence[Card]) -> int:
    """Omaha value: exactly two hole cards with exactly three board cards.

    >>> from engine.cards import parse_cards
    >>> hole, board = parse_cards("AsAdKcKh"), parse_cards("AhAc2d7s9s")
    >>> describe(evaluate_omaha(hole, board))
    'Four of a kind, Aces'
    """
    table = _EVAL7
    return max(
        int(_evaluate([table[c] for c in pair + trio]))
        for pair in combinations(hole, 2)
        for trio in combinations(board, 3)
    )


def hand_category(value: int) -> str:
    """The category name of a value, e.g. ``"full_house"``."""
    return CATEGORIES[value >> 24]


def _rank(value: int, index: int) -> int:
    return (value >> (16 - 4 * index)) & 15


def describe(value: int) -> str:
    """A short English description: ``"Two pair, Kings and Fives"``.

    >>> from engine.cards import parse_cards
    >>> describe(evaluate(parse_cards("TsJsQsKsAs")))
    'Royal flush'
    >>> describe(evaluate(parse_cards("7s7d7c4h4d")))
    'Full house, Sevens full of Fours'
    """
    category = value >> 24
    top, second = _rank(value, 0), _rank(value, 1)
    if category == 0:
        return f"High card, {_RANK_NAMES[top]}"
    if category == 1:
        return f"Pair of {_PLURALS[top]}"
    if category == 2:
        return f"Two pair, {_PLURALS[top]} and {_PLURALS[second]}"
    if category == 3:
        return f"Three of a kind, {_PLURALS[top]}"
    if category == 4:
        return f"Straight, {_RANK_NAMES[top]} high"
    if category == 5:
        return f"Flush, {_RANK_NAMES[top]} high"
    if category == 6:
        return f"Full house, {_PLURALS[top]} full of {_PLURALS[second]}"
    if category == 7:
        return f"Four of a kind, {_PLURALS[top]}"
    if top == 12:
        return "Royal flush"
    return f"Straight flush, {_RANK_NAMES[top]} high"


def best_five(cards: Sequence[Card]) -> tuple[Card, ...]:
    """The five cards making the best hand, ordered for display (most important first)."""
    best = max(combinations(cards, 5), key=evaluate)
    value = evaluate(best)
    counts = {r: sum(1 for c in best if c.rank == r) for r in {c.rank for c in best}}
    if value >> 24 in (4, 8) and _rank(value, 0) == 3:  # wheel: the ace plays low
        return tuple(sorted(best, key=lambda c: -1 if c.rank == 12 else c.rank, reverse=True))
    return tuple(sorted(best, key=lambda c: (counts[c.rank], c.rank, c.suit), reverse=True))
