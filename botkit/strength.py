"""Hand strength after the flop: a cheap made-hand/draw classification, and the
thesis's HS, PPOT, NPOT and EHS.

* :func:`classify` — tiers for the rule-based bot (two eval7 calls and bit tricks);
* :func:`hand_strength` — HS = (ahead + tied/2) / total over every opponent hole
  pair, exact (≤ 1,081 evaluations);
* :func:`potentials` — PPOT and NPOT by one-card look-ahead, exact or Monte-Carlo;
* :func:`effective_strength` — EHS = HS^n × (1 − NPOT) + (1 − HS^n) × PPOT.

>>> from engine.cards import parse_cards
>>> classify(parse_cards("AsAd"), parse_cards("Ah7c2d"))
Strength(tier=4, flush_draw=False, straight_draw=0)
>>> classify(parse_cards("9s8s"), parse_cards("Ts7s2d")).straight_draw
2
>>> round(hand_strength(parse_cards("AsAd"), parse_cards("Kh7c2d")), 3)
0.966
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import eval7

from engine.cards import CARDS, Card

__all__ = [
    "MONSTER",
    "NOTHING",
    "STRONG",
    "TOP_PAIR",
    "WEAK_PAIR",
    "Strength",
    "classify",
    "effective_strength",
    "hand_strength",
    "potentials",
]

_E7 = tuple(eval7.Card(str(card)) for card in CARDS)
_evaluate = eval7.evaluate

NOTHING, WEAK_PAIR, TOP_PAIR, STRONG, MONSTER = range(5)

_PAIR, _TWO_PAIR, _TRIPS = 1, 2, 3

_STRAIGHTS = (*(0b11111 << low for low in range(9)), 0b1000000001111)  # wheel: A2345


@dataclass(frozen=True, slots=True)
class Strength:
    """Made-hand tier (``NOTHING`` .. ``MONSTER``) and draws.

    ``straight_draw``: 0 none, 1 gutshot, 2 open-ended (or double gutshot).
    """

    tier: int
    flush_draw: bool
    straight_draw: int


def _rank(value: int, index: int) -> int:
    return (value >> (16 - 4 * index)) & 15


def classify(hole: Sequence[Card], board: Sequence[Card]) -> Strength:
    """Tier of the made hand counting only what the hole cards add, plus draws."""
    cards = [_E7[c] for c in hole] + [_E7[c] for c in board]
    value = _evaluate(cards)
    board_value = _evaluate(cards[2:])
    category, board_category = value >> 24, board_value >> 24
    top_board = max(c >> 2 for c in board)
    tier = NOTHING
    if category > board_category:
        if category >= _TRIPS or (category == _TWO_PAIR and board_category == 0):
            tier = MONSTER
        else:
            if category == _PAIR:
                pair = _rank(value, 0)
            else:  # two pair on a paired board: ours is the pair that is not the board's
                board_pair = _rank(board_value, 0)
                high, low = _rank(value, 0), _rank(value, 1)
                pair = low if high == board_pair else high
            kicker = max(c >> 2 for c in hole if c >> 2 != pair) if hole[0] >> 2 != hole[1] >> 2 \
                else pair
            if pair > top_board:
                tier = STRONG  # overpair
            elif pair == top_board:
                tier = STRONG if kicker >= 8 else TOP_PAIR  # kicker T or better
            else:
                tier = WEAK_PAIR
    flush_draw = False
    straight_draw = 0
    if len(board) < 5 and tier < MONSTER:
        suits = [0, 0, 0, 0]
        for c in board:
            suits[c & 3] += 1
        for c in hole:
            suits[c & 3] += 1
        flush_draw = any(suits[h & 3] == 4 for h in hole)
        ranks = 0
        for c in (*hole, *board):
            ranks |= 1 << (c >> 2)
        outs = 0
        for r in range(13):
            bit = 1 << r
            if ranks & bit:
                continue
            with_r = ranks | bit
            if any(with_r & s == s for s in _STRAIGHTS):
                outs += 1
        straight_draw = min(outs, 2)
    return Strength(tier, flush_draw, straight_draw)


def _unseen(known: Sequence[Card]) -> list[int]:
    seen = set(known)
    return [c for c in range(52) if c not in seen]


def hand_strength(hole: Sequence[Card], board: Sequence[Card]) -> float:
    """HS against one random hand: (ahead + tied/2) / total, enumerated exactly."""
    board7 = [_E7[c] for c in board]
    ours = _evaluate([_E7[hole[0]], _E7[hole[1]], *board7])
    rest = _unseen((*hole, *board))
    ahead = tied = total = 0
    for i, a in enumerate(rest):
        ea = _E7[a]
        for b in rest[i + 1 :]:
            theirs = _evaluate([ea, _E7[b], *board7])
            if ours > theirs:
                ahead += 1
            elif ours == theirs:
                tied += 1
            total += 1
    return (ahead + tied / 2) / total


def potentials(
    hole: Sequence[Card],
    board: Sequence[Card],
    samples: int | None = None,
    rng: random.Random | None = None,
) -> tuple[float, float]:
    """(PPOT, NPOT) over opponent hole pairs and the next board card, ties weighted ½.

    Exact enumeration when ``samples`` is ``None`` (flop: ~48,600 opponent/card
    pairs, about 50 ms), else ``samples`` random (opponent pair, next card) draws.
    On the river both are 0.
    """
    if len(board) >= 5:
        return 0.0, 0.0
    hole7 = [_E7[hole[0]], _E7[hole[1]]]
    board7 = [_E7[c] for c in board]
    rest = _unseen((*hole, *board))
    # [now: ahead, tied, behind] x [later: ahead, tied, behind]
    counts = [[0.0] * 3 for _ in range(3)]
    totals = [0.0, 0.0, 0.0]
    ours_now = _evaluate(hole7 + board7)

    def tally(a: int, b: int, card: int, theirs_now: int) -> None:
        now = 0 if ours_now > theirs_now else 1 if ours_now == theirs_now else 2
        later_board = [*board7, _E7[card]]
        ours = _evaluate(hole7 + later_board)
        theirs = _evaluate([_E7[a], _E7[b], *later_board])
        later = 0 if ours > theirs else 1 if ours == theirs else 2
        counts[now][later] += 1
        totals[now] += 1

    if samples is None:
        for i, a in enumerate(rest):
            for b in rest[i + 1 :]:
                theirs_now = _evaluate([_E7[a], _E7[b], *board7])
                for card in rest:
                    if card != a and card != b:
                        tally(a, b, card, theirs_now)
    else:
        draw = (rng or random.Random()).sample
        for _ in range(samples):
            a, b, card = draw(rest, 3)
            tally(a, b, card, _evaluate([_E7[a], _E7[b], *board7]))
    ahead, tied, behind = 0, 1, 2
    ppot_den = totals[behind] + totals[tied] / 2
    npot_den = totals[ahead] + totals[tied] / 2
    ppot = (counts[behind][ahead] + counts[behind][tied] / 2 + counts[tied][ahead] / 2)
    npot = (counts[ahead][behind] + counts[tied][behind] / 2 + counts[ahead][tied] / 2)
    return (ppot / ppot_den if ppot_den else 0.0, npot / npot_den if npot_den else 0.0)


def effective_strength(hs: float, ppot: float, npot: float, opponents: int = 1) -> float:
    """EHS = HS^n × (1 − NPOT) + (1 − HS^n) × PPOT for ``n`` opponents.

    >>> effective_strength(0.5, 0.2, 0.1)
    0.55
    """
    hs_n = hs ** max(1, opponents)
    return hs_n * (1 - npot) + (1 - hs_n) * ppot
