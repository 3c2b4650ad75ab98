"""Errors raised by the accounts services.

Each error carries a stable ``code`` (for the API and tests) and a message that is
one clear sentence a user can act on (for pages and API responses alike).
"""

from __future__ import annotations


class AccountsError(Exception):
    """Base of every refusal by an accounts service."""

    code = "accounts_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidName(AccountsError):
    code = "invalid_name"


class NameTaken(AccountsError):
    code = "name_taken"


class NotAllowed(AccountsError):
    code = "not_allowed"


class PlayerSeated(AccountsError):
    code = "player_seated"


class PlayerDeleted(AccountsError):
    code = "player_deleted"


class InvalidAmount(AccountsError):
    code = "invalid_amount"


class InvalidText(AccountsError):
    """Text with a control character or a lone surrogate (docs/security.md, "Input bounds")."""

    code = "invalid_text"


class BalanceLimit(AccountsError):
    """The balance would leave ``±MAX_BALANCE`` (accounts.services)."""

    code = "balance_limit"


class InvalidStyle(AccountsError):
    """A house-bot style that no game has (botkit.house.house_bots)."""

    code = "invalid_style"


class InvalidParams(AccountsError):
    """House-bot parameters that the style does not take, or out of range."""

    code = "invalid_params"


class StyleCannotPlay(AccountsError):
    """A house bot's new style does not play the game of a table it sits at."""

    code = "style_cannot_play"
