"""Playing cards as small integers, and decks.

A :class:`Card` is an ``int`` subclass (``rank * 4 + suit``), so cards are
cheap to compare, hash and store. Ranks are ``23456789TJQKA``, suits ``cdhs``.

>>> card = Card.parse("As")
>>> str(card), int(card), card.rank, card.suit
('As', 51, 12, 3)
>>> format_cards(parse_cards("AsKd"))
'AsKd'
>>> len(standard_deck()), standard_deck()[0]
(52, Card.parse('2c'))

The engine never shuffles: the caller draws a deck (``secure_deck()`` for real
play, ``seeded_deck(seed)`` for reproducible matches) and passes it in.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterable

from engine.errors import MalformedAction

RANKS = "23456789TJQKA"
SUITS = "cdhs"
HIDDEN = "??"
"""Text shown in place of a card the viewer may not see."""


class Card(int):
    """One playing card; ``int(card) == rank * 4 + suit``.

    >>> Card.parse("Td").rank, Card.parse("Td").suit
    (8, 1)
    >>> Card.parse("xx")
    Traceback (most recent call last):
    ...
    engine.errors.MalformedAction: Not a card: 'xx'.
    """

    __slots__ = ()

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse two characters such as ``"As"`` or ``"Tc"``."""
        try:
            return _BY_TEXT[text]
        except (KeyError, TypeError):
            raise MalformedAction("bad_card", f"Not a card: {text!r}.") from None

    @property
    def rank(self) -> int:
        """0 for a deuce up to 12 for an ace."""
        return int(self) >> 2

    @property
    def suit(self) -> int:
        """0..3 for clubs, diamonds, hearts, spades."""
        return int(self) & 3

    def __str__(self) -> str:
        return _TEXT[self]

    def __repr__(self) -> str:
        return f"Card.parse({_TEXT[self]!r})"


_TEXT: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(52))
"""All 52 cards, indexed by their integer value."""
_BY_TEXT: dict[str, Card] = {text: CARDS[i] for i, text in enumerate(_TEXT)}
_TEXT_BY_CARD: dict[int | None, str] = {**{card: text for text, card in _BY_TEXT.items()},
                                        None: HIDDEN}
_TEXT_OF = _TEXT_BY_CARD.__getitem__
"""A card's text (``None``: hidden), by one dictionary lookup."""


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse concatenated cards (``"AsKd"``); spaces are ignored.

    One dictionary lookup per two characters: a whole deck (104 characters, parsed
    for every round a table deals) takes a few microseconds.

    >>> parse_cards("As Kd 2c")
    (Card.parse('As'), Card.parse('Kd'), Card.parse('2c'))
    >>> parse_cards("AsKx")
    Traceback (most recent call last):
    ...
    engine.errors.MalformedAction: Not a card: 'Kx'.
    """
    if " " in text:
        text = text.replace(" ", "")
    if len(text) % 2:
        raise MalformedAction("bad_card", f"Not a list of cards: {text!r}.")
    pairs = iter(text)
    try:
        return tuple([_BY_TEXT[a + b] for a, b in zip(pairs, pairs, strict=False)])
    except KeyError as error:
        raise MalformedAction("bad_card", f"Not a card: {error.args[0]!r}.") from None


def format_cards(cards: Iterable[Card | None]) -> str:
    """Concatenate card texts; ``None`` stands for a hidden card (``"??"``).

    >>> format_cards([Card.parse("As"), None])
    'As??'
    """
    return "".join(map(_TEXT_OF, cards))


def standard_deck() -> list[Card]:
    """The 52 cards in a fixed order: ``2c 2d 2h 2s 3c ... As``."""
    return list(CARDS)


def seeded_deck(seed: int) -> list[Card]:
    """A reproducible shuffle: ``random.Random(seed).shuffle(standard_deck())``.

    >>> seeded_deck(7) == seeded_deck(7), seeded_deck(7) == seeded_deck(8)
    (True, False)
    """
    deck = standard_deck()
    random.Random(seed).shuffle(deck)
    return deck


def secure_deck() -> list[Card]:
    """A shuffle drawn with ``secrets.SystemRandom`` for real play."""
    deck = standard_deck()
    secrets.SystemRandom().shuffle(deck)
    return deck
