"""Events: what happened, in the past tense, each tagged with its audience.

Events are small frozen values. ``event.audience`` is ``None`` for a public
event, or the player index (position in a :class:`~engine.poker.hand.Hand`, seat
at a :class:`~engine.table.TableState`) that alone may see it. Clients never
receive ``to_json()`` directly: they go through :mod:`engine.projection`.

>>> from engine.cards import parse_cards
>>> event = HoleCardsDealt(player=0, cards=parse_cards("AsKd"))
>>> event.audience, event.to_json()
(0, {'type': 'HoleCardsDealt', 'player': 0, 'cards': 'AsKd'})
>>> BoardDealt(street="flop", cards=parse_cards("2c3c4c")).audience is None
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from engine.cards import Card
from engine.game import (
    BuyIn,
    CameBack,
    CashOut,
    Event,
    RoundEnded,
    RoundStarted,
    SeatFreed,
    SeatTaken,
    TimedOut,
    WentAway,
)

__all__ = [
    "AntePosted",
    "BetPlaced",
    "BlindPosted",
    "BoardDealt",
    "BringInPosted",
    "BuyIn",
    "CardsDiscarded",
    "CardsMucked",
    "CardsShown",
    "CashOut",
    "ChipsAdded",
    "ChipsPending",
    "Event",
    "HandEnded",
    "HandStarted",
    "HoleCardsDealt",
    "PlayerCalled",
    "PlayerChecked",
    "PlayerDrew",
    "PlayerFolded",
    "PlayerLeft",
    "PlayerSatIn",
    "PlayerSatOut",
    "PlayerSeated",
    "PlayerTimedOut",
    "PlayerWaitingForBB",
    "PotAwarded",
    "RaisePlaced",
    "UncalledBetReturned",
    "UpCardsDealt",
    "relabel",
]


# --- Hand events (``player`` is the position inside a Hand) -----------------


@dataclass(frozen=True, slots=True)
class AntePosted(Event):
    """A dead ante was posted (``amount`` may be short if the stack was short)."""

    player: int
    amount: int
    all_in: bool = False


@dataclass(frozen=True, slots=True)
class BlindPosted(Event):
    """A blind was posted; ``dead`` blinds are not part of the player's bet."""

    player: int
    amount: int
    dead: bool = False
    all_in: bool = False


@dataclass(frozen=True, slots=True)
class HoleCardsDealt(Event):
    """Hole cards dealt to one player: private to that player."""

    player: int
    cards: tuple[Card, ...]

    @property
    def audience(self) -> int | None:
        return self.player


@dataclass(frozen=True, slots=True)
class UpCardsDealt(Event):
    """Cards dealt face up to one player (stud): public."""

    player: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class BringInPosted(Event):
    """The stud bring-in was posted (``amount`` may be short if the stack was short)."""

    player: int
    amount: int
    all_in: bool = False


@dataclass(frozen=True, slots=True)
class PlayerDrew(Event):
    """The player discarded ``count`` cards to draw as many (0: stood pat): public."""

    player: int
    count: int


@dataclass(frozen=True, slots=True)
class CardsDiscarded(Event):
    """Which cards the player discarded: private to that player (the replacements
    follow in a :class:`HoleCardsDealt`)."""

    player: int
    cards: tuple[Card, ...]

    @property
    def audience(self) -> int | None:
        return self.player


@dataclass(frozen=True, slots=True)
class BoardDealt(Event):
    """Community cards for ``street`` ("flop", "turn", "river")."""

    street: str
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class PlayerChecked(Event):
    """The player checked."""

    player: int


@dataclass(frozen=True, slots=True)
class PlayerCalled(Event):
    """The player added ``amount`` chips to call (maybe all-in for less)."""

    player: int
    amount: int
    all_in: bool = False


@dataclass(frozen=True, slots=True)
class BetPlaced(Event):
    """The player opened the betting; ``to`` is the street total."""

    player: int
    to: int
    all_in: bool = False


@dataclass(frozen=True, slots=True)
class RaisePlaced(Event):
    """The player raised to a street total of ``to``."""

    player: int
    to: int
    all_in: bool = False


@dataclass(frozen=True, slots=True)
class PlayerFolded(Event):
    """The player folded."""

    player: int


@dataclass(frozen=True, slots=True)
class UncalledBetReturned(Event):
    """The part of a bet nobody called went back to its bettor."""

    player: int
    amount: int


@dataclass(frozen=True, slots=True)
class CardsShown(Event):
    """The player's hole cards were shown (public); ``hand`` describes the best hand."""

    player: int
    cards: tuple[Card, ...]
    hand: str = ""


@dataclass(frozen=True, slots=True)
class CardsMucked(Event):
    """The player threw the hole cards away unseen."""

    player: int


@dataclass(frozen=True, slots=True)
class PotAwarded(Event):
    """``amount`` chips of pot number ``pot`` (0 = main) went to ``player``; in a
    high/low split game ``side`` is ``"high"`` or ``"low"`` (else empty, not sent)."""

    pot: int
    player: int
    amount: int
    hand: str = ""
    side: str = ""

    def to_json(self) -> dict[str, Any]:
        data = {"type": "PotAwarded", "pot": self.pot, "player": self.player,
                "amount": self.amount, "hand": self.hand}
        if self.side:
            data["side"] = self.side
        return data


@dataclass(frozen=True, slots=True)
class HandEnded(RoundEnded):
    """The hand is over; every pot has been awarded. At a table ``results`` has each
    dealt-in seat's net (inside a bare :class:`~engine.poker.hand.Hand` it is empty)."""


# --- Table events (``player`` is a seat number) -----------------------------


@dataclass(frozen=True, slots=True)
class HandStarted(RoundStarted):
    """A hand began; ``seats`` lists the dealt-in seats in position order."""

    button: int = -1


@dataclass(frozen=True, slots=True)
class PlayerSeated(SeatTaken):
    """A player took a seat with ``stack`` chips (a :class:`BuyIn` follows)."""

    stack: int = 0


@dataclass(frozen=True, slots=True)
class PlayerLeft(SeatFreed):
    """A player left the seat, cashing out ``cash_out`` chips (a :class:`CashOut` follows)."""

    cash_out: int = 0


@dataclass(frozen=True, slots=True)
class PlayerSatOut(WentAway):
    """The player now sits out; ``reason`` is "request", "disconnected" (the server, for a
    player whose connection went away), "timeouts" or "busted"."""


@dataclass(frozen=True, slots=True)
class PlayerSatIn(CameBack):
    """The player asked to be dealt in again."""


@dataclass(frozen=True, slots=True)
class PlayerWaitingForBB(Event):
    """The player comes in when the big blind reaches them, posting nothing extra."""

    player: int


@dataclass(frozen=True, slots=True)
class ChipsAdded(BuyIn):
    """The player added chips to the stack (a buy-in)."""


@dataclass(frozen=True, slots=True)
class ChipsPending(Event):
    """Asked for during the player's hand: added (up to the maximum) when it ends."""

    player: int
    amount: int


@dataclass(frozen=True, slots=True)
class PlayerTimedOut(TimedOut):
    """The player's time ran out; the server played ``action`` for them."""


def relabel(event: Event, mapping: Callable[[int], int]) -> Event:
    """Return ``event`` with its ``player`` field passed through ``mapping``.

    The table uses this to turn hand positions into seat numbers.

    >>> relabel(PlayerFolded(player=0), lambda p: p + 3)
    PlayerFolded(player=3)
    """
    player = getattr(event, "player", None)
    if player is None:
        return event
    return replace(event, player=mapping(player))  # type: ignore[call-arg]
