"""The 169 starting hands and the Sklansky groups, as precomputed lookup tables.

>>> from engine.cards import parse_cards
>>> c = parse_cards("AhKh")
>>> starting_hand(*c), sklansky_group(*c)
('AKs', 1)
>>> [sklansky_group(*parse_cards(h)) for h in ("7c2d", "Ad5d", "Kc7c", "9s8s", "8s7d")]
[9, 5, 7, 4, 8]
"""

from __future__ import annotations

from engine.cards import RANKS, Card

__all__ = ["GROUP_TABLE", "SKLANSKY", "UNLISTED", "sklansky_group", "starting_hand"]

UNLISTED = 9
"""The group of a hand below group 8."""

_GROUP_TEXT = {
    1: "AA KK QQ JJ AKs",
    2: "TT AQs AJs KQs AKo",
    3: "99 JTs QJs KJs ATs AQo",
    4: "T9s KQo 88 QTs 98s J9s AJo KTs",
    5: "77 87s Q9s T8s KJo QJo JTo 76s 97s Axs 65s",
    6: "66 ATo 55 86s KTo QTo 54s K9s J8s 75s",
    7: "44 J9o 64s T9o 53s 33 98o 43s 22 Kxs T7s Q8s",
    8: "87o A9o Q9o 76o 42s 32s 96s 85s J8o J7s 65o 54o 74s K9o T8o",
}
"""The spec's table; ``x`` is a small card 2–9, ``o`` offsuit."""


def _name(high: int, low: int, suited: bool) -> str:
    if high == low:
        return RANKS[high] * 2
    return RANKS[high] + RANKS[low] + ("s" if suited else "o")


def _expand(token: str) -> list[str]:
    if "x" not in token:
        return [token]
    high = RANKS.index(token[0])
    return [_name(high, low, token[2] == "s") for low in range(8)]  # 2..9


def _sklansky() -> dict[str, int]:
    groups: dict[str, int] = {}
    for group, text in _GROUP_TEXT.items():
        for token in text.split():
            for name in _expand(token):
                groups.setdefault(name, group)  # a hand listed earlier keeps its better group
    for high in range(13):
        for low in range(high + 1):
            for suited in (True, False) if high != low else (False,):
                groups.setdefault(_name(high, low, suited), UNLISTED)
    return groups


SKLANSKY: dict[str, int] = _sklansky()
"""Starting hand name (``"AKs"``, ``"T9o"``, ``"77"``) -> Sklansky group 1–8, 9 unlisted."""

_NAMES: tuple[str, ...] = tuple(
    _name(max(a >> 2, b >> 2), min(a >> 2, b >> 2), (a & 3) == (b & 3))
    for a in range(52) for b in range(52)
)
GROUP_TABLE: tuple[int, ...] = tuple(SKLANSKY[name] for name in _NAMES)
"""Sklansky group indexed by ``first_card * 52 + second_card``."""


def starting_hand(first: Card, second: Card) -> str:
    """The starting-hand name of two hole cards."""
    return _NAMES[first * 52 + second]


def sklansky_group(first: Card, second: Card) -> int:
    """Sklansky group 1 (best) to 8, or 9 for an unlisted hand."""
    return GROUP_TABLE[first * 52 + second]
