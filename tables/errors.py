"""The one error the table runtime raises: a stable code and a clear sentence."""

from __future__ import annotations

from typing import Any

from engine.errors import EngineError


class TableError(Exception):
    """A refused command. Nothing was changed. ``code`` is stable (docs/protocol.md)."""

    def __init__(self, code: str, message: str, *, wait_seconds: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.wait_seconds = wait_seconds  # when to try again (``server_busy``)

    @classmethod
    def from_engine(cls, error: EngineError) -> TableError:
        """Engine codes (``not_your_turn``, ``bad_amount``, ...) pass through unchanged."""
        return cls(error.code, error.reason)

    def to_json(self) -> dict[str, Any]:
        if self.wait_seconds is None:
            return {"code": self.code, "message": self.message}
        return {"code": self.code, "message": self.message, "wait_seconds": self.wait_seconds}
