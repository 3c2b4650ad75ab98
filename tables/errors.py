"""The one error the table runtime raises: a stable code and a clear sentence."""

from __future__ import annotations

from engine.errors import EngineError


class TableError(Exception):
    """A refused command. Nothing was changed. ``code`` is stable (docs/protocol.md)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    @classmethod
    def from_engine(cls, error: EngineError) -> TableError:
        """Engine codes (``not_your_turn``, ``bad_amount``, ...) pass through unchanged."""
        return cls(error.code, error.reason)

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}
