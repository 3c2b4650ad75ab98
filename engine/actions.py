"""Player actions: small frozen values that round-trip through text and JSON.

Bet and raise amounts are *raise-to*: the player's total bet on this street
after the action (PHH ``cbr``).

>>> Action.parse("raise 300")
Action.parse('raise 300')
>>> str(Action.raise_to(300)), Action.fold().to_json()
('raise 300', {'kind': 'fold'})
>>> Action.from_json({"kind": "bet", "amount": 20}) == Action.bet(20)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from engine.errors import MalformedAction
from engine.game import MAX_CHIPS


class ActionKind(StrEnum):
    """What a player does."""

    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BET = "bet"
    RAISE = "raise"
    SHOW = "show"
    MUCK = "muck"


_SIZED = frozenset({ActionKind.BET, ActionKind.RAISE})
_KINDS = {k.value: k for k in ActionKind}


@dataclass(frozen=True, slots=True)
class Action:
    """One action; ``amount`` is the raise-to total for bet/raise, else ``None``.

    >>> Action.bet(-1)
    Traceback (most recent call last):
    ...
    engine.errors.MalformedAction: The amount must be a whole number of chips, 1 to 1000000000000.
    """

    kind: ActionKind
    amount: int | None = None

    def __post_init__(self) -> None:
        if self.kind in _SIZED:
            amount = self.amount
            if type(amount) is not int or not 0 < amount <= MAX_CHIPS:
                raise MalformedAction(
                    "bad_amount", f"The amount must be a whole number of chips, 1 to {MAX_CHIPS}."
                )
        elif self.amount is not None:
            raise MalformedAction("unexpected_amount", f"A {self.kind} takes no amount.")

    @classmethod
    def fold(cls) -> Action:
        """Give up the hand."""
        return _FOLD

    @classmethod
    def check(cls) -> Action:
        """Pass when there is nothing to call."""
        return _CHECK

    @classmethod
    def call(cls) -> Action:
        """Match the current bet (or go all-in for less)."""
        return _CALL

    @classmethod
    def bet(cls, to: int) -> Action:
        """Open the betting on this street, to a total of ``to`` chips."""
        return cls(ActionKind.BET, to)

    @classmethod
    def raise_to(cls, to: int) -> Action:
        """Raise so that this street's total bet becomes ``to`` chips."""
        return cls(ActionKind.RAISE, to)

    @classmethod
    def show(cls) -> Action:
        """Show the hole cards at showdown."""
        return _SHOW

    @classmethod
    def muck(cls) -> Action:
        """Throw the hole cards away unseen."""
        return _MUCK

    @classmethod
    def parse(cls, text: str) -> Action:
        """Parse ``"fold"``, ``"call"``, ``"bet 20"``, ``"raise 300"``, ...

        >>> Action.parse("check") == Action.check()
        True
        """
        if not isinstance(text, str):
            raise MalformedAction("bad_action", "An action must be text.")
        parts = text.split()
        kind = _KINDS.get(parts[0].lower()) if parts else None
        if kind is None:
            raise MalformedAction("bad_action", f"Unknown action: {text!r}.")
        if kind in _SIZED:
            if len(parts) != 2 or not parts[1].isdigit():
                raise MalformedAction("bad_amount", f"{kind} needs one whole amount: {text!r}.")
            return cls(kind, int(parts[1]))
        if len(parts) != 1:
            raise MalformedAction("unexpected_amount", f"A {kind} takes no amount.")
        return cls(kind)

    @classmethod
    def from_json(cls, data: Any) -> Action:
        """Build from ``{"kind": "raise", "amount": 300}``."""
        if not isinstance(data, dict):
            raise MalformedAction("bad_action", "An action must be an object.")
        raw = data.get("kind")
        kind = _KINDS.get(raw) if isinstance(raw, str) else None
        if kind is None:
            raise MalformedAction("bad_action", f"Unknown action kind: {data.get('kind')!r}.")
        if set(data) - {"kind", "amount"}:
            raise MalformedAction("bad_action", "Unexpected fields in action.")
        return cls(kind, data.get("amount"))

    def to_json(self) -> dict[str, Any]:
        """``{"kind": ..., "amount": ...}`` (amount only for bet/raise)."""
        if self.amount is None:
            return {"kind": self.kind.value}
        return {"kind": self.kind.value, "amount": self.amount}

    def __str__(self) -> str:
        if self.amount is None:
            return self.kind.value
        return f"{self.kind.value} {self.amount}"

    def __repr__(self) -> str:
        return f"Action.parse({str(self)!r})"


_FOLD = Action(ActionKind.FOLD)
_CHECK = Action(ActionKind.CHECK)
_CALL = Action(ActionKind.CALL)
_SHOW = Action(ActionKind.SHOW)
_MUCK = Action(ActionKind.MUCK)
