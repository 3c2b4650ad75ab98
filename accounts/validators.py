"""Validation of player names (also applied to usernames at registration), and of
any other text a user gives (table names, chat, descriptions).

Names are ASCII on purpose: hand histories and bot logs are read by programs in
many languages, and ASCII rules out look-alike characters between two names.

Other text may be any Unicode except what cannot be stored or shown safely
(:func:`text_problem`, code ``invalid_text``): control characters (Unicode category
Cc: NUL, which PostgreSQL text cannot hold, newlines, escapes, C1 controls) and lone
surrogates (which no UTF can encode). Multi-line text (a bot's description) may hold
newlines and tabs. See docs/security.md, "Input bounds".
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


# Unicode category Cc (U+0000-U+001F, U+007F-U+009F) and the surrogates (Cs).
_BAD_TEXT = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_BAD_MULTILINE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def text_problem(text: str, *, multiline: bool = False) -> str | None:
    """Why ``text`` may not be stored (a control character or a lone surrogate), else
    None. ``multiline`` allows tab, newline and carriage return.

    >>> text_problem("gl hf ♠"), text_problem("a\\nb", multiline=True)
    (None, None)
    >>> text_problem("a\\x00b")
    'Text may not contain control characters (here U+0000).'
    """
    match = (_BAD_MULTILINE if multiline else _BAD_TEXT).search(text)
    if match is None:
        return None
    char = ord(match.group())
    if 0xD800 <= char <= 0xDFFF:
        return f"Text may not contain lone surrogates (here U+{char:04X})."
    return f"Text may not contain control characters (here U+{char:04X})."


def validate_plain_text(text: str) -> None:
    """Django field validator: one line of text (code ``invalid_text``)."""
    problem = text_problem(text)
    if problem:
        raise ValidationError(problem, code="invalid_text")


def validate_multiline_text(text: str) -> None:
    """Django field validator: text that may have several lines (code ``invalid_text``)."""
    problem = text_problem(text, multiline=True)
    if problem:
        raise ValidationError(problem, code="invalid_text")


def validate_player_name(name: str) -> None:
    """Django field validator wrapping :func:`player_name_problem`."""
    problem = player_name_problem(name)
    if problem:
        raise ValidationError(problem, code="invalid_name")
