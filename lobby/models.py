"""Rule sets as user data: a game whose rules users may write (``Game.rule_sets()``,
the dice game) keeps each saved rule set here (docs/dice.md, "Rule sets in the
browser")."""

from __future__ import annotations

from typing import Any

from django.conf import settings as django_settings
from django.db import models


class RuleSet(models.Model):
    """A user's saved rule set of one game, validated by the game
    (``Game.validate_rule_set``) when saved. ``rules_id`` is the game's identity of
    the rules (the dice game's ``rules_id``): changing what is played (dice, faces,
    rolls, a combination, the bonus) makes a new identity and so a new row; a rename
    keeps the row. Tables copy the rules into their settings, so a table and its
    top-10 never depend on this row."""

    game = models.CharField(max_length=32, db_index=True)
    owner = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                              related_name="rule_sets")
    name = models.CharField(max_length=60)
    rules_id = models.CharField(max_length=40, db_index=True)
    data = models.JSONField()  # the validated rule set, its id included
    based_on = models.CharField(max_length=40, blank=True)  # the identity it was copied from
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [models.UniqueConstraint(fields=["owner", "game", "rules_id"],
                                               name="lobby_ruleset_unique_identity")]

    def __str__(self) -> str:
        return f"{self.name} ({self.rules_id})"

    def to_json(self) -> dict[str, Any]:
        return {"id": self.pk, "key": f"saved:{self.pk}", "game": self.game,
                "name": self.name, "rules_id": self.rules_id,
                "owner": self.owner.username if self.owner_id else "",
                "based_on": self.based_on, "rules": self.data,
                "updated_at": self.updated_at.isoformat() if self.updated_at else None}
