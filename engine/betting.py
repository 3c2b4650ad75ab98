"""Betting structures and what the player to act may do.

Amounts are *raise-to* totals for the street. The sizing rules:

* NL: minimum bet ``min_bet``; minimum raise = the last full bet/raise
  increment on this street; maximum = all the player's chips.
* PL: as NL, but at most the pot after the player's call.
* FL: bets and raises of exactly the street's bet size, at most ``bet_cap``
  bets per street.

A player facing an all-in that was less than a full raise may raise only if
the bet has grown by at least one full raise since they last acted (TDA: a
series of short all-ins that together make a full raise reopens the betting).

>>> raise_bounds("NL", current_bet=10, raise_size=10, player_bet=0, all_in_to=100,
...              pot_total=40, bet_size=2)
(20, 100)
>>> raise_bounds("PL", current_bet=2, raise_size=2, player_bet=0, all_in_to=100,
...              pot_total=3, bet_size=2)
(4, 7)
>>> raise_bounds("FL", current_bet=2, raise_size=2, player_bet=0, all_in_to=3,
...              pot_total=3, bet_size=2)
(3, 3)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from engine.actions import Action, ActionKind

STRUCTURES = ("NL", "PL", "FL")


def raise_bounds(
    structure: str,
    current_bet: int,
    raise_size: int,
    player_bet: int,
    all_in_to: int,
    pot_total: int,
    bet_size: int,
) -> tuple[int, int]:
    """Smallest and largest legal raise-to (or bet-to) for a player allowed to raise.

    ``pot_total`` is every chip already in the middle, current bets included.
    A player who cannot make a full raise may only go all-in.
    """
    if structure == "FL":
        target = current_bet + bet_size
        return (target, target) if all_in_to >= target else (all_in_to, all_in_to)
    low = current_bet + raise_size
    if all_in_to <= low:
        return all_in_to, all_in_to
    if structure == "PL":
        high = current_bet + pot_total + (current_bet - player_bet)
        high = max(low, min(high, all_in_to))
        return low, high
    return low, all_in_to


@dataclass(frozen=True, slots=True)
class LegalActions:
    """Exactly what the actor may do now.

    ``call_amount`` is the number of chips a call adds (``None`` if there is
    nothing to call); ``min_raise_to``/``max_raise_to`` bound a bet or raise
    (``None`` if not allowed) and ``sized_kind`` says which of the two it is.
    In stud the first player may post ``bring_in`` chips (or complete: a bet); in a
    draw the actor discards up to ``draw`` cards (none: stand pat).

    >>> legal = LegalActions(can_fold=True, call_amount=2, min_raise_to=4,
    ...                      max_raise_to=100, sized_kind="raise")
    >>> Action.raise_to(50) in legal, Action.bet(50) in legal, Action.check() in legal
    (True, False, False)
    """

    can_fold: bool = False
    can_check: bool = False
    call_amount: int | None = None
    min_raise_to: int | None = None
    max_raise_to: int | None = None
    sized_kind: str | None = None
    can_show: bool = False
    can_muck: bool = False
    bring_in: int | None = None
    draw: int | None = None

    @property
    def can_bet(self) -> bool:
        """True if a bet (first wager on the street) is allowed."""
        return self.sized_kind == "bet"

    @property
    def can_raise(self) -> bool:
        """True if a raise is allowed."""
        return self.sized_kind == "raise"

    def __contains__(self, action: object) -> bool:
        if not isinstance(action, Action):
            return False
        kind = action.kind
        if kind is ActionKind.FOLD:
            return self.can_fold
        if kind is ActionKind.CHECK:
            return self.can_check
        if kind is ActionKind.CALL:
            return self.call_amount is not None
        if kind is ActionKind.SHOW:
            return self.can_show
        if kind is ActionKind.MUCK:
            return self.can_muck
        if kind is ActionKind.BRING_IN:
            return self.bring_in is not None
        if kind is ActionKind.DRAW:
            return self.draw is not None and len(action.cards or ()) <= self.draw
        if self.sized_kind != kind.value or self.min_raise_to is None:
            return False
        assert action.amount is not None and self.max_raise_to is not None
        return self.min_raise_to <= action.amount <= self.max_raise_to

    def __iter__(self) -> Iterator[Action]:
        """Representative actions: each simple action, and the min and max sizes."""
        if self.bring_in is not None:
            yield Action.bring_in()
        if self.draw is not None:
            yield Action.draw(())
        if self.can_fold:
            yield Action.fold()
        if self.can_check:
            yield Action.check()
        if self.call_amount is not None:
            yield Action.call()
        if self.min_raise_to is not None and self.max_raise_to is not None:
            make = Action.bet if self.sized_kind == "bet" else Action.raise_to
            yield make(self.min_raise_to)
            if self.max_raise_to != self.min_raise_to:
                yield make(self.max_raise_to)
        if self.can_show:
            yield Action.show()
        if self.can_muck:
            yield Action.muck()

    def to_json(self) -> dict[str, Any]:
        """All fields as a plain dict (``bring_in`` and ``draw`` only when offered)."""
        data: dict[str, Any] = {
            "can_fold": self.can_fold,
            "can_check": self.can_check,
            "call_amount": self.call_amount,
            "min_raise_to": self.min_raise_to,
            "max_raise_to": self.max_raise_to,
            "sized_kind": self.sized_kind,
            "can_show": self.can_show,
            "can_muck": self.can_muck,
        }
        if self.bring_in is not None:
            data["bring_in"] = self.bring_in
        if self.draw is not None:
            data["draw"] = self.draw
        return data


NO_ACTIONS = LegalActions()
SHOW_OR_MUCK = LegalActions(can_show=True, can_muck=True)
