"""Main and side pots, built from what each player put in, and how they split.

>>> pots = build_pots(live=[30, 35, 35, 20], dead=0, folded=[False] * 4,
...                   all_in=[True, False, False, True])
>>> [(p.amount, p.eligible) for p in pots]
[(80, (0, 1, 2, 3)), (30, (0, 1, 2)), (10, (1, 2))]
>>> split(11, [2, 0])
[(0, 6), (2, 5)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Pot:
    """A pot: its chips and the players (positions) who can win it."""

    amount: int
    eligible: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        """``{"amount": 80, "eligible": [0, 1, 3]}``."""
        return {"amount": self.amount, "eligible": list(self.eligible)}


def build_pots(
    live: Sequence[int], dead: int, folded: Sequence[bool], all_in: Sequence[bool]
) -> list[Pot]:
    """Layer the contributions into the main pot and side pots, oldest first.

    ``live[i]`` is everything player ``i`` put in that counts toward side-pot
    layering (blinds, bets, and antes when antes are trimmed); ``dead`` is money
    that belongs to the main pot whatever happens (dead blinds, untrimmed
    antes). Every all-in contender's total starts a new layer; a layer's
    eligible players are the contenders who reached it or can still
    reach it (not all-in). Folded players' chips
    stay in the layers they reached.
    """
    contenders = [i for i in range(len(live)) if not folded[i]]
    levels = sorted({live[i] for i in contenders if all_in[i]})
    top = max(live) if live else 0
    if not levels or levels[-1] < top:
        levels.append(top)
    pots: list[Pot] = []
    previous = 0
    for level in levels:
        amount = 0
        for c in live:
            if c > previous:
                amount += (c if c < level else level) - previous
        eligible = tuple(i for i in contenders if live[i] >= level or not all_in[i])
        if pots and (not eligible or eligible == pots[-1].eligible):
            pots[-1] = Pot(pots[-1].amount + amount, pots[-1].eligible)
        else:
            pots.append(Pot(amount, eligible or tuple(contenders)))
        previous = level
    if dead:
        pots[0] = Pot(pots[0].amount + dead, pots[0].eligible)
    return [pot for pot in pots if pot.amount]


def split(amount: int, winners: Sequence[int]) -> list[tuple[int, int]]:
    """Share ``amount`` evenly; odd chips go one each to the lowest positions.

    Position 0 is the first seat clockwise from the button (also heads-up), so
    this is the rule "odd chip to the first winner clockwise from the button".
    Returns ``(player, chips)`` pairs in position order.
    """
    ordered = sorted(winners)
    share, odd = divmod(amount, len(ordered))
    return [(p, share + (1 if k < odd else 0)) for k, p in enumerate(ordered)]
