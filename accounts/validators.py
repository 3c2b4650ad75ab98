"""Validation of player names (also applied to usernames at registration).

Names are ASCII on purpose: hand histories and bot logs are read by programs in
many languages, and ASCII rules out look-alike characters between two names.
"""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError

PLAYER_NAME_MIN = 3
PLAYER_NAME_MAX = 24
_PLAYER_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")

PLAYER_NAME_RULES = (
    f"{PLAYER_NAME_MIN}–{PLAYER_NAME_MAX} characters: letters, digits, '_', '-' or '.', "
    "starting with a letter or digit"
)


def player_name_problem(name: str) -> str | None:
    """Return why ``name`` is not a valid player name, or None when it is valid."""
    if not PLAYER_NAME_MIN <= len(name) <= PLAYER_NAME_MAX:
        return (
            f"A name must be {PLAYER_NAME_MIN} to {PLAYER_NAME_MAX} characters long; "
            f"“{name}” has {len(name)}."
        )
    if not _PLAYER_NAME_RE.fullmatch(name):
        return (
            "A name may contain only letters, digits, '_', '-' and '.', "
            "and must start with a letter or digit."
        )
    return None


def validate_player_name(name: str) -> None:
    """Django field validator wrapping :func:`player_name_problem`."""
    problem = player_name_problem(name)
    if problem:
        raise ValidationError(problem, code="invalid_name")
