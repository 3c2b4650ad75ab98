"""A pure-Python poker engine: the rules, with a wall around them.

No Django here. Cards, actions and events are small frozen values; a hand is
driven with :meth:`engine.poker.hand.Hand.apply`; clients only ever see state
through :mod:`engine.projection`.

>>> from engine import Action, Hand, HandSetup, seeded_deck
>>> hand, events = Hand.start(HandSetup(stacks=(100, 100), blinds=(1, 2)), seeded_deck(1))
>>> hand.actor  # heads-up: the button (index 1) posts the small blind and acts first
1
"""

from engine.actions import Action, ActionKind
from engine.betting import LegalActions
from engine.cards import Card, format_cards, parse_cards, secure_deck, seeded_deck, standard_deck
from engine.errors import EngineError, IllegalAction, MalformedAction
from engine.poker.hand import Hand, HandSetup

__all__ = [
    "Action",
    "ActionKind",
    "Card",
    "EngineError",
    "Hand",
    "HandSetup",
    "IllegalAction",
    "LegalActions",
    "MalformedAction",
    "format_cards",
    "parse_cards",
    "secure_deck",
    "seeded_deck",
    "standard_deck",
]
