"""Hand evaluators for the poker variants, behind one convention.

Every evaluator returns an ``int`` and **a higher value is a better hand**; values
of the same evaluator compare directly (equal values tie). ``None`` only comes
from the 8-or-better lows (:func:`low_8`, :func:`omaha_low_8`): no qualifying low.
Cards are :class:`engine.cards.Card` ints (``rank * 4 + suit``).

=========== ============================= ==========================================
kind        function                      for
=========== ============================= ==========================================
high        ``high(cards)``               hold'em, draw, stud: best five of 5..7
omaha       ``omaha_high(hole, board)``   Omaha: two hole cards + three board cards
short_deck  ``short_deck(cards)``         short-deck hold'em: best five of 5..7
low_27      ``low_27(cards)``             2-7 single/triple draw: best five of 5+
low_a5      ``low_a5(cards)``             razz: ace-to-five, best five of 5..7
low_8       ``low_8(cards)``              stud hi-lo, low half: 5..7 cards or ``None``
omaha_low_8 ``omaha_low_8(hole, board)``  Omaha hi-lo, low half, or ``None``
badugi      ``badugi(cards)``             badugi: four cards
soko        ``soko(cards)``               sökö: five cards
=========== ============================= ==========================================

:data:`EVALUATORS` holds them by kind with a uniform ``evaluate(hole, board)`` and
their ``describe(value)``. Rules, exactly as pokerkit 0.7.7 has them:

* **high / omaha**: values are ``engine.evaluation``'s (eval7's) and
  :func:`engine.evaluation.describe` reads them. With ``phevaluator`` installed
  its compiled ``_pheval`` does the work (measured: 0.13 µs against eval7's 0.9 µs
  for seven cards, 0.7 µs against 50 µs for Omaha) and a table turns its rank
  (1 = best) into the eval7 value; without it, eval7 gives the same values.
* **short_deck**: trips < straight < full house < **flush** < quads < straight
  flush; A-6-7-8-9 is the lowest straight (nine high). Cards must be 6 to A.
* **low_27**: aces high only; straights (not A-2-3-4-5) and flushes count.
* **low_a5**: aces low; straights and flushes ignored; pairs count.
* **low_8**: five distinct ranks, all 8 or lower (ace low); values equal
  :func:`low_a5`'s for the same five cards (so :func:`describe_low_a5` reads them).
* **badugi**: the best subset of distinct suits and ranks; more cards beat fewer,
  then the lower highest card, and so on (ace low).

**Sökö** (no pokerkit reference; published rules: Finnish/Swedish sökö pages): the
standard ranking with two categories between one pair and two pair: **four to a
straight** and above it **four to a flush**. Our choices:

* the ace is high or low in a four-straight: A-2-3-4 (four high, the lowest) and
  J-Q-K-A (ace high) both count; no wrap-around (Q-K-A-2 is nothing);
* a four-straight ranks by its top card, then the fifth card (the kicker, an ace
  kicker is high); a four-flush by its four cards from the highest down, then the
  kicker; suits never break ties;
* a hand that is both (e.g. a four-card straight flush) is a four-flush; a
  four-straight or four-flush beats the one pair the same five cards may hold
  (3-4-5-6-6 is a four-straight with a six kicker).

**Stud helpers** (pokerkit 0.7.7 ``State._begin_betting``, matched exactly):
:func:`up_card_key` orders single up cards (the bring-in is the player holding the
minimum: seven-card stud and stud hi-lo the lowest card, ties by suit
``c < d < h < s``; razz the highest, ace low, the same suit order making ``Ks``
the very highest), and :func:`visible_hand_key` orders visible partial hands for
the later streets (the opener holds the maximum; ties go to the first player in
pokerkit's player order). :func:`bring_in_index` and :func:`opener_index` apply
them to every player's up cards.

>>> from engine.cards import parse_cards as p
>>> describe_low_a5(low_8(p("8s6d5c4h2h")))
'8-6-5-4-2 low'
>>> low_8(p("9s6d5c4h2hKd7c")) is None, low_8(p("9s6d5c4h2hKdAc")) > low_8(p("8s6d5c4h2h"))
(False, True)
>>> describe_badugi(badugi(p("7c4d3h2s"))), describe_badugi(badugi(p("7c4c3h2s")))
('Badugi, 7-4-3-2', 'Three-card hand, 4-3-2')
>>> describe_soko(soko(p("AhKhQh9h9c"))), describe_soko(soko(p("5s6d7c8h8d")))
('Four to a flush, Ace high', 'Four to a straight, Eight high')
>>> describe_short_deck(short_deck(p("Ah6s7s8d9cKcKd")))
'Straight, Nine high'
>>> soko(p("2c2d3h3s4c")) > soko(p("AhKhQh9hJc")) > soko(p("9s8d7cTh2d")) > soko(p("AsAdKcQh2h"))
True
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from engine.cards import Card
from engine.evaluation import describe as describe_high
from engine.evaluation import evaluate as _eval7_high
from engine.evaluation import evaluate_omaha as _eval7_omaha

__all__ = [
    "EVALUATORS",
    "Evaluator",
    "badugi",
    "bring_in_index",
    "describe",
    "describe_badugi",
    "describe_high",
    "describe_low_27",
    "describe_low_a5",
    "describe_short_deck",
    "describe_soko",
    "high",
    "low_8",
    "low_27",
    "low_a5",
    "omaha_high",
    "omaha_low_8",
    "opener_index",
    "short_deck",
    "soko",
    "up_card_key",
    "visible_hand_key",
    "visible_key",
]

try:  # phevaluator's compiled core; its public wrappers cost more than the evaluation
    _pheval: Any = importlib.import_module("phevaluator._pheval")
except ImportError:  # pragma: no cover - the engine alone needs only eval7
    _pheval = None

_RANK_CHARS = "23456789TJQKA"
_NAMES = ("Two", "Three", "Four", "Five", "Six", "Seven", "Eight",
          "Nine", "Ten", "Jack", "Queen", "King", "Ace")

# Standard categories (eval7's numbering, ``value >> 24``).
_HIGH, _PAIR, _TWO_PAIR, _TRIPS, _STRAIGHT, _FLUSH, _FULL_HOUSE, _QUADS, _STRAIGHT_FLUSH = range(9)

_R5 = tuple(5 ** (card >> 2) for card in range(52))
"""A card's rank as a base-5 digit: summing a hand's gives its rank-multiset key."""
_LOW_RANK = tuple((card >> 2) + 1 if card < 48 else 0 for card in range(52))
"""Ace-low rank: ace 0, deuce 1, ..., king 12."""
_LOW_BIT = tuple(1 << rank for rank in _LOW_RANK)
_L8_BIT = tuple(bit if bit < 256 else 0 for bit in _LOW_BIT)
_RANK_BIT = tuple(1 << (card >> 2) for card in range(52))


def _pack(category: int, ranks: Iterable[int]) -> int:
    """``category << 24`` with the ranks in nibbles from bit 16 down (eval7's layout)."""
    value, shift = category << 24, 16
    for rank in ranks:
        value |= rank << shift
        shift -= 4
    return value


def _nibbles(value: int, count: int) -> list[int]:
    return [(value >> (16 - 4 * i)) & 15 for i in range(count)]


_DESCENDING = tuple(range(12, -1, -1))
_POW5 = tuple(5 ** r for r in range(13))
_SHAPES5 = ((1, 1, 1, 1, 1), (2, 1, 1, 1), (2, 2, 1), (3, 1, 1), (3, 2), (4, 1))
_SHAPE_CATEGORY = dict(zip(_SHAPES5, (_HIGH, _PAIR, _TWO_PAIR, _TRIPS, _FULL_HOUSE, _QUADS),
                           strict=True))


def _ordered(shape: tuple[int, ...], ranks: tuple[int, ...] = _DESCENDING
             ) -> Iterator[tuple[int, ...]]:
    """Every rank multiset of a shape (counts, descending) as its group ranks: bigger
    groups first, equal groups by rank, descending: ``(3, 2)`` gives ``(12, 11)``..."""
    size = shape.count(shape[0])
    if size == len(shape):
        yield from combinations(ranks, size)
        return
    for group in combinations(ranks, size):
        rest = tuple(r for r in ranks if r not in group)
        for tail in _ordered(shape[size:], rest):
            yield group + tail


def _key(ordered: Sequence[int], shape: Sequence[int]) -> int:
    return sum(_POW5[r] * n for r, n in zip(ordered, shape, strict=True))


def _straight_top(distinct: Sequence[int], wheel: bool = True) -> int | None:
    """Top rank of five distinct standard ranks (descending) in sequence, else ``None``."""
    if distinct[0] - distinct[4] == 4:
        return distinct[0]
    if wheel and tuple(distinct) == (12, 3, 2, 1, 0):
        return 3
    return None


_FOUR_RUNS = tuple((top, sum(1 << (r % 13) for r in range(top - 3, top + 1)))
                   for top in range(12, 1, -1))
"""(top, rank mask) of every four-card run, best first; A-2-3-4 has top 2 (the four)."""


def _four_straight_top(ranks: Iterable[int]) -> int | None:
    """Top rank of a run of four among distinct standard ranks (ace both ends)."""
    mask = 0
    for rank in ranks:
        mask |= 1 << rank
    return next((top for top, run in _FOUR_RUNS if mask & run == run), None)


# Five-card rank-multiset tables, keyed by the sum of the cards' _R5.
_HIGH5: dict[int, int] = {}
_HIGH5_FLUSH: dict[int, int] = {}
_LOW27: dict[int, int] = {}
_LOW27_FLUSH: dict[int, int] = {}
_A5: dict[int, int] = {}
_SOKO: dict[int, int] = {}
_SOKO_FLUSH: dict[int, int] = {}
_S_FOUR_STRAIGHT, _S_FOUR_FLUSH = 2, 3
_SOKO_OF = {_HIGH: 0, _PAIR: 1, _TWO_PAIR: 4, _TRIPS: 5, _STRAIGHT: 6, _FLUSH: 7,
            _FULL_HOUSE: 8, _QUADS: 9, _STRAIGHT_FLUSH: 10}


def _build_five_card_tables() -> None:
    for a5_category, shape in enumerate(_SHAPES5):
        multisets = list(_ordered(shape))
        for ordered in multisets:  # read as ace-low ranks: ace 0 ... king 12
            _A5[_key([(r + 12) % 13 for r in ordered], shape)] = _pack(
                5 - a5_category, [15 - r for r in ordered])
        category = _SHAPE_CATEGORY[shape]
        for ordered in multisets:  # standard ranks
            key = _key(ordered, shape)
            inverted = [15 - r for r in ordered]
            if category != _HIGH:
                _HIGH5[key] = _pack(category, ordered)
                _LOW27[key] = _pack(8 - category, inverted)
                top = _four_straight_top(ordered) if category == _PAIR else None
                _SOKO[key] = (_pack(_SOKO_OF[category], ordered) if top is None
                              else _pack(_S_FOUR_STRAIGHT, (top, ordered[0])))
                continue
            top = _straight_top(ordered)
            if top is None:
                _HIGH5[key] = _pack(_HIGH, ordered)
                _HIGH5_FLUSH[key] = _pack(_FLUSH, ordered)
                _SOKO_FLUSH[key] = _pack(_SOKO_OF[_FLUSH], ordered)
                four = _four_straight_top(ordered)
                if four is None:
                    _SOKO[key] = _pack(0, ordered)
                else:
                    kicker = next(r for r in ordered if not _FOUR_RUNS[12 - four][1] >> r & 1)
                    _SOKO[key] = _pack(_S_FOUR_STRAIGHT, (four, kicker))
            else:
                _HIGH5[key] = _pack(_STRAIGHT, (top,))
                _HIGH5_FLUSH[key] = _pack(_STRAIGHT_FLUSH, (top,))
                _SOKO[key] = _pack(_SOKO_OF[_STRAIGHT], (top,))
                _SOKO_FLUSH[key] = _pack(_SOKO_OF[_STRAIGHT_FLUSH], (top,))
            top27 = _straight_top(ordered, wheel=False)
            if top27 is None:
                _LOW27[key] = _pack(8 - _HIGH, inverted)
                _LOW27_FLUSH[key] = _pack(8 - _FLUSH, inverted)
            else:
                _LOW27[key] = _pack(8 - _STRAIGHT, (15 - top27,))
                _LOW27_FLUSH[key] = _pack(8 - _STRAIGHT_FLUSH, (15 - top27,))


_build_five_card_tables()


def _mask_tables() -> tuple[list[int], list[int]]:
    """Ace-to-five value of the lowest five ranks of a mask (0: fewer than five), and the
    lowest three bits of an 8-bit mask (0: fewer than three)."""
    a5 = [0] * 8192
    for mask in range(8192):
        count = mask.bit_count()
        if count == 5:
            a5[mask] = _pack(5, [15 - r for r in range(12, -1, -1) if mask >> r & 1])
        elif count > 5:
            a5[mask] = a5[mask ^ (1 << (mask.bit_length() - 1))]
    lowest3 = [0] * 256
    for mask in range(256):
        if mask.bit_count() >= 3:
            lowest3[mask] = lowest3[mask ^ (1 << (mask.bit_length() - 1))] or mask
    return a5, lowest3


_A5_BY_MASK, _LOWEST3 = _mask_tables()
"""Ace-to-five by the mask of distinct ace-low ranks; the lowest three of a mask."""
_L8_BY_MASK: list[int | None] = [_A5_BY_MASK[m] or None for m in range(256)]
_A5_PAIRED: dict[int, int] = {}


# ---------------------------------------------------------------------------- high


def _phe_value_table() -> list[int]:
    """eval7-layout value by phevaluator rank (1 best ... 7462 worst; index 0 unused)."""
    values = sorted({*_HIGH5.values(), *_HIGH5_FLUSH.values()}, reverse=True)
    assert len(values) == 7462
    return [0, *values]


_PHE_VALUE = _phe_value_table()
if _pheval is not None:
    _PHE_BY_COUNT = {5: _pheval.evaluate_5cards, 6: _pheval.evaluate_6cards,
                     7: _pheval.evaluate_7cards}
    _phe5 = _pheval.evaluate_5cards
    _phe_omaha = _pheval.evaluate_omaha_cards


def high(cards: Sequence[Card]) -> int:
    """Best five of 5 to 7 cards, as :func:`engine.evaluation.evaluate` values.

    >>> from engine.cards import parse_cards
    >>> describe_high(high(parse_cards("KsKdQc5h5d2c3d")))
    'Two pair, Kings and Fives'
    """
    value: int = _PHE_VALUE[_PHE_BY_COUNT[len(cards)](*cards)]
    return value


def omaha_high(hole: Sequence[Card], board: Sequence[Card]) -> int:
    """Omaha: exactly two hole cards with exactly three of the 3..5 board cards.

    >>> from engine.cards import parse_cards
    >>> describe_high(omaha_high(parse_cards("AsAdKcKh"), parse_cards("AhAc2d7s9s")))
    'Four of a kind, Aces'
    >>> describe_high(omaha_high(parse_cards("AsKs2c3d"), parse_cards("QsJsTs")))
    'Royal flush'
    """
    if len(board) == 5 and len(hole) == 4:
        value: int = _PHE_VALUE[_phe_omaha(*board, *hole)]
        return value
    table, evaluate5 = _PHE_VALUE, _phe5
    return max(int(table[evaluate5(*pair, *trio)])
               for pair in combinations(hole, 2) for trio in combinations(board, 3))


if _pheval is None:  # pragma: no cover - the same values from eval7, slower
    high = _eval7_high
    omaha_high = _eval7_omaha


# ---------------------------------------------------------------------- short deck

_SD_WHEEL_MASK = (1 << 12) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7)
_SD_WHEEL = _pack(_STRAIGHT, (7,))
_SD_WHEEL_FLUSH = _pack(_STRAIGHT_FLUSH, (7,))


def _rank_mask(cards: Iterable[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= _RANK_BIT[card]
    return mask


def short_deck(cards: Sequence[Card]) -> int:
    """Short-deck hold'em: best five of 5 to 7 cards from the 36-card deck (6 to A).

    Categories (``value >> 24``): 0 high card, 1 pair, 2 two pair, 3 trips,
    4 straight, 5 full house, 6 flush, 7 quads, 8 straight flush; ranks as in
    eval7's layout. A-6-7-8-9 is the lowest straight (nine high).

    >>> from engine.cards import parse_cards as p
    >>> short_deck(p("AsAdAcKhKd")) < short_deck(p("6s7s8sTsQs"))
    True
    >>> describe_short_deck(short_deck(p("As6s7s8s9sKcKd")))
    'Straight flush, Nine high'
    """
    value = high(cards)
    category = value >> 24
    if category <= _TRIPS:
        return _SD_WHEEL if _rank_mask(cards) & _SD_WHEEL_MASK == _SD_WHEEL_MASK else value
    if category == _STRAIGHT or category >= _QUADS:
        return value
    suits = [card & 3 for card in cards]
    suit = max(range(4), key=suits.count)
    if suits.count(suit) < 5:  # a full house and no flush
        return value - (1 << 24)
    suited = [card for card in cards if card & 3 == suit]
    if _rank_mask(suited) & _SD_WHEEL_MASK == _SD_WHEEL_MASK:
        return _SD_WHEEL_FLUSH
    return high(suited) + (1 << 24)


def describe_short_deck(value: int) -> str:
    """Text of a :func:`short_deck` value, e.g. ``"Flush, Ace high"``."""
    category = value >> 24
    standard = {5: _FULL_HOUSE, 6: _FLUSH}.get(category, category)
    return describe_high((standard << 24) | (value & 0xFFFFFF))


# ----------------------------------------------------------------------------- lows


def low_27(cards: Sequence[Card]) -> int:
    """Deuce-to-seven lowball: best (lowest) five of five or more cards.

    Aces are high only; straights and flushes count against the hand
    (A-2-3-4-5 is ace high, not a straight).

    >>> from engine.cards import parse_cards as p
    >>> describe_low_27(low_27(p("7s5d4c3h2h"))), describe_low_27(low_27(p("As5d4c3h2h")))
    ('7-5-4-3-2 low', 'A-5-4-3-2 low')
    >>> low_27(p("7s5d4c3h2h")) > low_27(p("8s6d4c3h2h")) > low_27(p("6s5d4c3h2h"))
    True
    """
    if len(cards) != 5:
        if len(cards) < 5:
            raise ValueError("low_27 needs five cards or more")
        return max(low_27(five) for five in combinations(cards, 5))
    a, b, c, d, e = cards
    key = _R5[a] + _R5[b] + _R5[c] + _R5[d] + _R5[e]
    if (a & 3) == (b & 3) == (c & 3) == (d & 3) == (e & 3):
        return _LOW27_FLUSH[key]
    return _LOW27[key]


def describe_low_27(value: int) -> str:
    """Text of a :func:`low_27` value: ``"7-5-4-3-2 low"``, ``"Pair of Sevens"``..."""
    category = 8 - (value >> 24)
    ranks = [15 - r for r in _nibbles(value, 5) if r]
    if category == _HIGH:
        return "-".join(_RANK_CHARS[r] for r in ranks) + " low"
    return describe_high(_pack(category, ranks))


def low_a5(cards: Sequence[Card]) -> int:
    """Ace-to-five low (razz): best (lowest) five of 5 to 7 cards.

    Aces are low, straights and flushes do not count, pairs do.

    >>> from engine.cards import parse_cards as p
    >>> describe_low_a5(low_a5(p("As2s3s4s5sKdKc")))
    '5-4-3-2-A low'
    >>> describe_low_a5(low_a5(p("AsAd2c2h3sKdKc")))
    'Pair of Aces'
    """
    mask = 0
    for card in cards:
        mask |= _LOW_BIT[card]
    value = _A5_BY_MASK[mask]
    if value:
        return value
    key = 0
    for card in cards:
        key += _R5[card]
    value = _A5.get(key) or _A5_PAIRED.get(key, 0)
    if not value:
        if len(cards) < 5:
            raise ValueError("low_a5 needs five cards or more")
        value = _A5_PAIRED[key] = max(_A5[sum(_R5[card] for card in five)]
                                      for five in combinations(cards, 5))
    return value


def describe_low_a5(value: int) -> str:
    """Text of a :func:`low_a5`, :func:`low_8` or :func:`omaha_low_8` value."""
    category = 5 - (value >> 24)
    ranks = [(14 - r) % 13 for r in _nibbles(value, 5) if r]  # ace-low back to standard
    if category == _HIGH:
        return "-".join(_RANK_CHARS[r] for r in ranks) + " low"
    return describe_high(_pack((_HIGH, _PAIR, _TWO_PAIR, _TRIPS, _FULL_HOUSE, _QUADS)[category],
                               ranks))


def low_8(cards: Sequence[Card]) -> int | None:
    """Eight-or-better low of 5 to 7 cards: five distinct ranks 8 or lower, ace low.

    ``None`` when no such five exist; otherwise the :func:`low_a5` value of that low.
    """
    mask = 0
    for card in cards:
        mask |= _L8_BIT[card]
    return _L8_BY_MASK[mask]


def omaha_low_8(hole: Sequence[Card], board: Sequence[Card]) -> int | None:
    """Omaha eight-or-better low: two hole cards and three board cards, or ``None``.

    >>> from engine.cards import parse_cards as p
    >>> describe_low_a5(omaha_low_8(p("As2sKdKc"), p("2c3c4c5c6c")))
    '5-4-3-2-A low'
    >>> omaha_low_8(p("AsKsKdKc"), p("2c3c4c5c6c")) is None
    True
    """
    board_mask = 0
    for card in board:
        board_mask |= _L8_BIT[card]
    if board_mask.bit_count() < 3:
        return None
    bits = sorted({_L8_BIT[card] for card in hole} - {0})
    best = None
    for i, first in enumerate(bits):
        for second in bits[i + 1:]:
            hole_mask = first | second
            rest = _LOWEST3[board_mask & ~hole_mask]
            if rest:
                value = _L8_BY_MASK[hole_mask | rest]
                if best is None or (value is not None and value > best):
                    best = value
    return best


# --------------------------------------------------------------------------- badugi

_BADUGI: dict[tuple[int, ...], int] = {}
_BADUGI_NAMES = ("", "One-card hand", "Two-card hand", "Three-card hand", "Badugi")


def _badugi_value(suit_masks: Sequence[int]) -> int:
    best = 0

    def pick(index: int, used: int) -> None:
        nonlocal best
        if index == len(suit_masks):
            ranks = [r for r in range(12, -1, -1) if used >> r & 1]
            value = len(ranks) << 16
            for i, rank in enumerate(ranks):
                value |= (13 - rank) << (12 - 4 * i)
            best = max(best, value)
            return
        pick(index + 1, used)
        free = suit_masks[index] & ~used
        while free:
            bit = free & -free
            pick(index + 1, used | bit)
            free ^= bit

    pick(0, 0)
    return best


def badugi(cards: Sequence[Card]) -> int:
    """Badugi (ace low): the best subset of distinct suits and distinct ranks.

    ``value >> 16`` is the number of cards used; more cards beat fewer, then the
    lower highest card, the lower next one... A memo keyed by the four suits'
    rank masks (sorted, so suit permutations share an entry) holds the values.

    >>> from engine.cards import parse_cards as p
    >>> badugi(p("Ac2d3h4s")) > badugi(p("Ac2d3h5s")) > badugi(p("Ac2d3h3s"))
    True
    >>> describe_badugi(badugi(p("KcKdKhKs"))), describe_badugi(badugi(p("Ac2c3dKd")))
    ('One-card hand, K', 'Two-card hand, 3-A')
    """
    masks = [0, 0, 0, 0]
    for card in cards:
        masks[card & 3] |= _LOW_BIT[card]
    masks.sort()
    key = tuple(masks)
    value = _BADUGI.get(key)
    if value is None:
        value = _BADUGI[key] = _badugi_value(masks)
    return value


def describe_badugi(value: int) -> str:
    """Text of a :func:`badugi` value: ``"Badugi, 7-4-3-2"``, ``"Two-card hand, 5-A"``."""
    count = value >> 16
    ranks = [(13 - (value >> (12 - 4 * i) & 15) + 12) % 13 for i in range(count)]
    return f"{_BADUGI_NAMES[count]}, " + "-".join(_RANK_CHARS[r] for r in ranks)


# ----------------------------------------------------------------------------- sökö

_SOKO_TWO_PAIR = 4 << 24
_FOUR_SUIT = {4 << (8 * suit) | 1 << (8 * other): suit
              for suit in range(4) for other in range(4) if other != suit}
_SUIT_BYTE = tuple(1 << (8 * (card & 3)) for card in range(52))


def soko(cards: Sequence[Card]) -> int:
    """Sökö: five cards, standard ranking plus four-straight and four-flush.

    Categories (``value >> 24``): 0 high card, 1 pair, 2 four to a straight,
    3 four to a flush, 4 two pair, 5 trips, 6 straight, 7 flush, 8 full house,
    9 quads, 10 straight flush; the tie-break ranks follow in eval7's layout
    (four-straight: top card, kicker; four-flush: its four cards, kicker).

    >>> from engine.cards import parse_cards as p
    >>> soko(p("As2d3c4hKd")) < soko(p("2s3d4c5h7d")) < soko(p("JsQdKcAh2d"))
    True
    >>> soko(p("2s3s4s5s9d")) > soko(p("JsQdKcAh2d"))
    True
    """
    a, b, c, d, e = cards
    key = _R5[a] + _R5[b] + _R5[c] + _R5[d] + _R5[e]
    suits = _SUIT_BYTE[a] + _SUIT_BYTE[b] + _SUIT_BYTE[c] + _SUIT_BYTE[d] + _SUIT_BYTE[e]
    if suits in (5, 5 << 8, 5 << 16, 5 << 24):
        return _SOKO_FLUSH[key]
    value = _SOKO[key]
    if value >= _SOKO_TWO_PAIR:
        return value
    suit = _FOUR_SUIT.get(suits)
    if suit is None:
        return value
    four = sorted((card >> 2 for card in cards if card & 3 == suit), reverse=True)
    kicker = next(card >> 2 for card in cards if card & 3 != suit)
    return _pack(_S_FOUR_FLUSH, (*four, kicker))


def describe_soko(value: int) -> str:
    """Text of a :func:`soko` value: ``"Four to a flush, Ace high"``..."""
    category = value >> 24
    top = value >> 16 & 15
    if category == _S_FOUR_STRAIGHT:
        return f"Four to a straight, {_NAMES[top]} high"
    if category == _S_FOUR_FLUSH:
        return f"Four to a flush, {_NAMES[top]} high"
    standard = {0: 0, 1: 1, 4: 2, 5: 3, 6: 4, 7: 5, 8: 6, 9: 7, 10: 8}[category]
    return describe_high((standard << 24) | (value & 0xFFFFFF))


# ----------------------------------------------------------------------------- stud


def up_card_key(card: Card, low: bool = False) -> int:
    """A single up card's strength for the bring-in, 0..51 (higher is better).

    The bring-in is the player holding the **lowest** key (pokerkit 0.7.7's
    ``Opening.LOW_CARD`` / ``HIGH_CARD``). ``low=False`` (seven-card stud, stud
    hi-lo): the card's own value, deuce lowest and ace highest, suits
    ``c < d < h < s``, so ``2c`` brings in before ``2d``. ``low=True`` (razz):
    ace low and king high, and of two equal ranks the higher suit is the worse
    card, so ``Ks`` (key 0) brings in before ``Kh``.

    >>> from engine.cards import Card
    >>> [up_card_key(Card.parse(t)) for t in ("2c", "2d", "As")]
    [0, 1, 51]
    >>> [up_card_key(Card.parse(t), low=True) for t in ("Ks", "Kh", "2c", "Ac")]
    [0, 1, 47, 51]
    """
    if low:
        return 51 - (_LOW_RANK[card] * 4 + (card & 3))
    return int(card)


_VISIBLE_SHAPES = ((1,), (1, 1), (1, 1, 1), (1, 1, 1, 1), (2,), (2, 1), (2, 1, 1), (2, 2),
                   (3,), (3, 1), (4,))


def _visible_tables() -> tuple[dict[int, int], dict[int, int]]:
    """pokerkit's opening lookups: high ranks, then ace-low ranks (best is highest)."""
    high: dict[int, int] = {}
    low: dict[int, int] = {}
    for shape in _VISIBLE_SHAPES:
        block = _visible_block(shape)
        for ordered in _ordered(shape):
            high[_key(ordered, shape)] = block << 20 | _pack(0, ordered) >> 4
            low[_key([(r + 12) % 13 for r in ordered], shape)] = (
                (63 - block) << 20 | _pack(0, [15 - r for r in ordered]) >> 4)
    return high, low


def _visible_block(shape: tuple[int, ...]) -> int:
    """pokerkit's order of partial-hand blocks (times 4, leaving room for sökö's)."""
    if shape[0] == 1:
        block = len(shape) - 1  # 1..4 high cards
    elif shape[0] == 2:
        block = 7 if shape[:2] == (2, 2) else 3 + len(shape)  # pair + 0..2 kickers
    else:
        block = {(3,): 8, (3, 1): 9, (4,): 10}[shape]
    return block * 4


_VISIBLE_HIGH, _VISIBLE_LOW = _visible_tables()
_VISIBLE_FOUR_STRAIGHT = 6 * 4 + 1  # above pair + two kickers, below two pair
_VISIBLE_FOUR_FLUSH = 6 * 4 + 2


def visible_hand_key(up_cards: Sequence[Card], kind: str = "high") -> int:
    """Strength of 1 to 4 up cards for choosing the opener (higher is better).

    ``kind`` ``"high"`` (seven-card stud, stud hi-lo: pokerkit's
    ``Opening.HIGH_HAND``), ``"low_a5"`` (razz: ``Opening.LOW_HAND``, the lowest
    ace-to-five hand is the best) or ``"soko"`` (ours). Only pairs, two pair,
    trips and quads count, straights and flushes do not; kickers break ties.
    Exactly as pokerkit, hands of different sizes order block by block: 1, 2, 3
    and 4 unpaired cards, a pair with 0, 1, 2 kickers, two pair, trips with 0, 1
    kickers, quads (reversed for ``"low_a5"``). ``"soko"`` is ``"high"`` plus, on
    four cards, a four-straight (by its top card) and above it a four-flush (by
    its cards), both between a pair and two pair.

    >>> from engine.cards import parse_cards as p
    >>> visible_hand_key(p("9c9d")) > visible_hand_key(p("AcKd"))
    True
    >>> visible_hand_key(p("5c3d"), "low_a5") > visible_hand_key(p("6cAd"), "low_a5")
    True
    >>> visible_hand_key(p("5c6c7c8d"), "soko") > visible_hand_key(p("AcAd7c8d"), "soko")
    True
    """
    if not 1 <= len(up_cards) <= 4:
        raise ValueError("a visible hand has 1 to 4 up cards")
    key = 0
    for card in up_cards:
        key += _R5[card]
    if kind == "high":
        return _VISIBLE_HIGH[key]
    if kind == "low_a5":
        return _VISIBLE_LOW[key]
    if kind != "soko":
        raise ValueError(f"unknown visible-hand kind {kind!r}")
    value = _VISIBLE_HIGH[key]
    if len(up_cards) == 4 and value >> 20 == 3 * 4:  # four unpaired cards
        ranks = sorted((card >> 2 for card in up_cards), reverse=True)
        if len({card & 3 for card in up_cards}) == 1:
            return _VISIBLE_FOUR_FLUSH << 20 | _pack(0, ranks) >> 4
        top = _four_straight_top(ranks)
        if top is not None:
            return _VISIBLE_FOUR_STRAIGHT << 20 | top << 12
    return value


def bring_in_index(up_cards: Sequence[Sequence[Card]], low: bool = False) -> int:
    """Index of the player who brings in: the up card with the lowest :func:`up_card_key`.

    ``up_cards[i]`` is player ``i``'s up cards (empty: folded, skipped).

    >>> from engine.cards import parse_cards as p
    >>> bring_in_index([p("5h"), p("2s"), (), p("2d")])
    3
    >>> bring_in_index([p("Kc"), p("Kd"), p("5s")], low=True)
    1
    """
    return min((up_card_key(card, low), index)
               for index, cards in enumerate(up_cards) for card in cards)[1]


def opener_index(up_cards: Sequence[Sequence[Card]], kind: str = "high") -> int:
    """Index of the first player with the best :func:`visible_hand_key` (ties: lowest index).

    ``up_cards[i]`` is player ``i``'s up cards (empty: folded, skipped). As in
    pokerkit, an all-in player can be the opener; the first to act is then the
    next player who still can.

    >>> from engine.cards import parse_cards as p
    >>> opener_index([p("Kc9d"), (), p("KsQh"), p("KdQc")])
    2
    """
    best = None
    opener = -1
    for index, cards in enumerate(up_cards):
        if cards:
            value = visible_hand_key(cards, kind)
            if best is None or value > best:
                best, opener = value, index
    if best is None:
        raise ValueError("nobody has up cards")
    return opener


def visible_key(kind: str, low: bool = False) -> Callable[[Sequence[Card]], int]:
    """:func:`visible_hand_key` as a key function for a variant's evaluator ``kind``.

    ``low`` (razz's ``low_hand`` opening) ranks ace-to-five lows; ``kind`` ``"soko"``
    ranks sökö's; anything else stud's high hands. The largest key opens.
    """
    visible = "low_a5" if low else "soko" if kind == "soko" else "high"

    def key(up_cards: Sequence[Card]) -> int:
        return visible_hand_key(up_cards, visible)

    return key


# ---------------------------------------------------------------------------- table


@dataclass(frozen=True)
class Evaluator:
    """One evaluator: ``evaluate(hole, board)`` (higher is better) and ``describe(value)``."""

    kind: str
    evaluate: Callable[[Sequence[Card], Sequence[Card]], int | None]
    describe: Callable[[int], str]


def _all_cards(function: Callable[[Sequence[Card]], int | None]
               ) -> Callable[[Sequence[Card], Sequence[Card]], int | None]:
    def evaluate(hole: Sequence[Card], board: Sequence[Card] = ()) -> int | None:
        return function([*hole, *board] if board else hole)
    evaluate.__doc__ = f"{function.__name__} of the hole and board cards together."
    return evaluate


EVALUATORS: dict[str, Evaluator] = {
    "high": Evaluator("high", _all_cards(high), describe_high),
    "short_deck": Evaluator("short_deck", _all_cards(short_deck), describe_short_deck),
    "omaha": Evaluator("omaha", omaha_high, describe_high),
    "low_27": Evaluator("low_27", _all_cards(low_27), describe_low_27),
    "low_a5": Evaluator("low_a5", _all_cards(low_a5), describe_low_a5),
    "low_8": Evaluator("low_8", _all_cards(low_8), describe_low_a5),
    "omaha_low_8": Evaluator("omaha_low_8", omaha_low_8, describe_low_a5),
    "badugi": Evaluator("badugi", _all_cards(badugi), describe_badugi),
    "soko": Evaluator("soko", _all_cards(soko), describe_soko),
}
"""Every evaluator by kind, with a uniform ``evaluate(hole, board)``.

>>> from engine.cards import parse_cards as p
>>> omaha = EVALUATORS["omaha"]
>>> omaha.describe(omaha.evaluate(p("AsKs2c3d"), p("QsJsTs2d2h")))
'Royal flush'
"""


def describe(kind: str, value: int) -> str:
    """Text of a value of the evaluator ``kind`` (a key of :data:`EVALUATORS`).

    >>> from engine.cards import parse_cards as p
    >>> describe("low_27", low_27(p("8s6d5c4h2h"))), describe("soko", soko(p("9s8d7c6h2d")))
    ('8-6-5-4-2 low', 'Four to a straight, Nine high')
    """
    return EVALUATORS[kind].describe(value)
