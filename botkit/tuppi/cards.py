"""Cards as bits for fast Tuppi bots: bit ``suit * 13 + rank`` of a 52-bit int.

``rank`` is 0 for a deuce up to 12 for an ace, ``suit`` 0..3 for clubs, diamonds,
hearts, spades (the texts of :mod:`engine.cards`). A hand is one int; the cards of
a suit are ``hand & SUIT_MASK[suit]``; the lowest card of a set is its lowest bit
within a suit.

>>> hand = mask_of(split("AsKd2h7c"))
>>> texts(hand)
['7c', 'Kd', '2h', 'As']
>>> BIT["As"], suit_of(BIT["As"]), rank_of(BIT["As"]), TEXT[BIT["Kd"]]
(51, 3, 12, 'Kd')
>>> texts(hand & SUIT_MASK[1]), lowest_text(["Kd", "7c", "7s", "2h"])
(['Kd'], '2h')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["BIT", "FACE", "FULL", "RANKS", "SUITS", "SUIT_MASK", "TEXT", "bits", "high_bit",
           "low_bit", "lowest_text", "mask_of", "rank_of", "split", "suit_of", "texts"]

RANKS = "23456789TJQKA"
SUITS = "cdhs"
TEXT: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
"""Card text by bit index."""
BIT: dict[str, int] = {text: i for i, text in enumerate(TEXT)}
SUIT_MASK: tuple[int, ...] = tuple(0x1FFF << (13 * s) for s in range(4))
FULL = (1 << 52) - 1
FACE = {12: 4, 11: 3, 10: 2, 9: 1}
"""The assignment's face-card points by rank: A=4, K=3, Q=2, J=1."""


def split(cards: str | None) -> list[str]:
    """``"AsKd"`` -> ``["As", "Kd"]`` (``None``/hidden -> ``[]``)."""
    if not cards:
        return []
    return [cards[i:i + 2] for i in range(0, len(cards), 2)]


def mask_of(cards: Iterable[str]) -> int:
    """The bits of these card texts."""
    mask = 0
    for text in cards:
        mask |= 1 << BIT[text]
    return mask


def bits(mask: int) -> list[int]:
    """The set bits, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def texts(mask: int) -> list[str]:
    """Card texts of a mask (by suit, low to high)."""
    return [TEXT[b] for b in bits(mask)]


def suit_of(bit: int) -> int:
    return bit // 13


def rank_of(bit: int) -> int:
    return bit % 13


def low_bit(mask: int) -> int:
    """Index of the lowest set bit (``mask`` non-zero)."""
    return (mask & -mask).bit_length() - 1


def high_bit(mask: int) -> int:
    """Index of the highest set bit (``mask`` non-zero)."""
    return mask.bit_length() - 1


def lowest_text(cards: Sequence[str]) -> str:
    """The lowest card: lowest rank, ties in the suit order c < d < h < s (the engine's
    timeout default)."""
    return min(cards, key=lambda t: (RANKS.index(t[0]), SUITS.index(t[1])))
