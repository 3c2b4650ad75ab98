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

from engine.cards import Card, format_cards, parse_cards
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
    BRING_IN = "bring_in"
    DRAW = "draw"


_SIZED = frozenset({ActionKind.BET, ActionKind.RAISE})
_KINDS = {k.value: k for k in ActionKind}
_MAX_DISCARDS = 5


@dataclass(frozen=True, slots=True)
class Action:
    """One action; ``amount`` is the raise-to total for bet/raise, ``cards`` the
    discards of a draw (empty: stand pat), else ``None``.

    >>> Action.bet(-1)
    Traceback (most recent call last):
    ...
    engine.errors.MalformedAction: The amount must be a whole number of chips, 1 to 1000000000000.
    >>> Action.parse("draw 7h2c").to_json(), str(Action.draw(()))
    ({'kind': 'draw', 'cards': ['7h', '2c']}, 'draw')
    """

    kind: ActionKind
    amount: int | None = None
    cards: tuple[Card, ...] | None = None

    def __post_init__(self) -> None:
        if self.kind in _SIZED:
            amount = self.amount
            if type(amount) is not int or not 0 < amount <= MAX_CHIPS:
                raise MalformedAction(
                    "bad_amount", f"The amount must be a whole number of chips, 1 to {MAX_CHIPS}."
                )
        elif self.amount is not None:
            raise MalformedAction("unexpected_amount", f"A {self.kind} takes no amount.")
        if self.kind is ActionKind.DRAW:
            if self.cards is None:  # stand pat
                object.__setattr__(self, "cards", ())
            cards = self.cards
            if not isinstance(cards, tuple) or len(cards) > _MAX_DISCARDS \
                    or not all(isinstance(c, Card) for c in cards):
                raise MalformedAction("bad_cards", f"A draw discards 0 to {_MAX_DISCARDS} cards.")
        elif self.cards is not None:
            raise MalformedAction("unexpected_cards", f"A {self.kind} takes no cards.")

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
        """Open the betting on this street (stud: complete), to a total of ``to`` chips."""
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
    def bring_in(cls) -> Action:
        """Post the bring-in (stud's first decision)."""
        return _BRING_IN

    @classmethod
    def draw(cls, cards: tuple[Card, ...]) -> Action:
        """Discard ``cards`` and be dealt as many (none: stand pat)."""
        return cls(ActionKind.DRAW, cards=tuple(cards))

    @classmethod
    def parse(cls, text: str) -> Action:
        """Parse ``"fold"``, ``"call"``, ``"bet 20"``, ``"raise 300"``, ``"draw 7h2c"``...

        >>> Action.parse("check") == Action.check()
        True
        """
        if not isinstance(text, str):
            raise MalformedAction("bad_action", "An action must be text.")
        parts = text.split()
        kind = _KINDS.get(parts[0].lower()) if parts else None
        if kind is None:
            raise MalformedAction("bad_action", f"Unknown action: {text!r}.")
        if kind is ActionKind.DRAW:
            if len(parts) > 2:
                raise MalformedAction("bad_cards", f"A draw lists its discards once: {text!r}.")
            return cls.draw(parse_cards(parts[1]) if len(parts) == 2 else ())
        if kind in _SIZED:
            if len(parts) != 2 or not parts[1].isdigit():
                raise MalformedAction("bad_amount", f"{kind} needs one whole amount: {text!r}.")
            return cls(kind, int(parts[1]))
        if len(parts) != 1:
            raise MalformedAction("unexpected_amount", f"A {kind} takes no amount.")
        return cls(kind)

    @classmethod
    def from_json(cls, data: Any) -> Action:
        """Build from ``{"kind": "raise", "amount": 300}`` or ``{"kind": "draw", "cards":
        ["7h", "2c"]}`` (a draw's cards may also be one string, ``"7h2c"``)."""
        if not isinstance(data, dict):
            raise MalformedAction("bad_action", "An action must be an object.")
        raw = data.get("kind")
        kind = _KINDS.get(raw) if isinstance(raw, str) else None
        if kind is None:
            raise MalformedAction("bad_action", f"Unknown action kind: {data.get('kind')!r}.")
        if set(data) - {"kind", "amount", "cards"}:
            raise MalformedAction("bad_action", "Unexpected fields in action.")
        if kind is ActionKind.DRAW:
            if "amount" in data:
                raise MalformedAction("unexpected_amount", "A draw takes no amount.")
            if "cards" not in data:  # the move descriptor requires it ([] stands pat)
                raise MalformedAction("missing_cards", "A draw lists its discards: "
                                      "\"cards\": [] to stand pat.")
            return cls.draw(_cards(data["cards"]))
        if "cards" in data:
            raise MalformedAction("unexpected_cards", f"A {kind} takes no cards.")
        return cls(kind, data.get("amount"))

    def to_json(self) -> dict[str, Any]:
        """``{"kind": ..., "amount": ...}`` (amount only for bet/raise, cards for draws)."""
        if self.cards is not None:
            return {"kind": self.kind.value, "cards": [str(c) for c in self.cards]}
        if self.amount is None:
            return {"kind": self.kind.value}
        return {"kind": self.kind.value, "amount": self.amount}

    def __str__(self) -> str:
        if self.cards is not None:
            return f"draw {format_cards(self.cards)}" if self.cards else "draw"
        if self.amount is None:
            return self.kind.value
        return f"{self.kind.value} {self.amount}"

    def __repr__(self) -> str:
        return f"Action.parse({str(self)!r})"


def _cards(value: Any) -> tuple[Card, ...]:
    if isinstance(value, str):
        if len(value) > 2 * _MAX_DISCARDS:
            raise MalformedAction("bad_cards", f"A draw discards 0 to {_MAX_DISCARDS} cards.")
        return parse_cards(value)
    if not isinstance(value, list | tuple) or len(value) > _MAX_DISCARDS:
        raise MalformedAction("bad_cards", "A draw's cards are a list of card names.")
    return tuple(Card.parse(text) for text in value)


_FOLD = Action(ActionKind.FOLD)
_CHECK = Action(ActionKind.CHECK)
_CALL = Action(ActionKind.CALL)
_SHOW = Action(ActionKind.SHOW)
_MUCK = Action(ActionKind.MUCK)
_BRING_IN = Action(ActionKind.BRING_IN)
