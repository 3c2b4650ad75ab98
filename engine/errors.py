"""Errors raised by the engine: malformed input versus not-allowed-now.

Every error has a stable machine-readable ``code`` and a human ``reason``.

>>> err = IllegalAction("not_your_turn", "It is not your turn.")
>>> err.code, str(err)
('not_your_turn', 'It is not your turn.')
>>> isinstance(err, EngineError)
True
"""

from __future__ import annotations


class EngineError(Exception):
    """Base class of every engine error: a stable ``code`` and a ``reason`` sentence."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason

    def to_json(self) -> dict[str, str]:
        """The error as a plain dict, e.g. ``{"code": "...", "reason": "..."}``."""
        return {"code": self.code, "reason": self.reason}


class MalformedAction(EngineError):
    """The input is syntactically wrong or has a bad shape (e.g. a negative amount)."""


class IllegalAction(EngineError):
    """The input is well formed but not allowed in the current state."""
