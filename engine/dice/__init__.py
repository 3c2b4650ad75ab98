"""The generic dice game: Yatzy and editable rule sets (docs/dice.md).

:class:`DiceGame` is the game behind the contract (:mod:`engine.game`);
:mod:`engine.dice.rules` holds the combination families, rule-set validation,
identity and the shipped rule sets (``yatzy`` is the default).
"""

from engine.dice.game import BoxScored, DiceGame, DiceRolled, PlayerRetired
from engine.dice.rules import (
    FAMILIES,
    SHIPPED,
    Combination,
    Rules,
    counts_of,
    rules_id,
    shipped_rules,
    validate_rules,
)

__all__ = ["FAMILIES", "SHIPPED", "BoxScored", "Combination", "DiceGame", "DiceRolled",
           "PlayerRetired", "Rules", "counts_of", "rules_id", "shipped_rules",
           "validate_rules"]
