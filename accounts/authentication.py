"""DRF authentication by ``Authorization: Bearer <token>``.

A bot token (``pkb_…``): ``request.user`` becomes the bot's owner and ``request.auth``
the bot :class:`~accounts.models.Player` the request acts as; it may only play
(:class:`TokenScopes`). A personal token (``pkp_…``): ``request.user`` is its owner and
``request.auth`` the :class:`~accounts.models.PersonalToken`, whose scopes say which
views it may use. A session (``request.auth is None``) may use every view its user's
rights allow. See docs/security.md, "Token scopes".
"""

from __future__ import annotations

from typing import Any

from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from .models import PersonalToken, Player, TokenScope, User
from .tokens import personal_token_for, player_for_bot_token


class BotTokenAuthentication(BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request: Request) -> tuple[User, Player | PersonalToken] | None:
        header = get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None  # not ours: let other authenticators (session) try
        if len(header) != 2:
            raise AuthenticationFailed(
                "Malformed Authorization header: expected “Bearer <token>”.",
                code="malformed_token",
            )
        try:
            raw = header[1].decode("ascii")
        except UnicodeDecodeError as exc:
            raise AuthenticationFailed(
                "The bot token contains invalid characters.", code="malformed_token"
            ) from exc
        personal = personal_token_for(raw)
        if personal is not None:
            return personal.owner, personal
        bot = player_for_bot_token(raw)
        if bot is None or bot.owner is None:
            raise AuthenticationFailed(
                "This bot token is not valid: the bot was deleted, its token was "
                "regenerated, or its owner's account is inactive.",
                code="invalid_token",
            )
        return bot.owner, bot

    def authenticate_header(self, request: Request) -> str:
        return f'{self.keyword} realm="api"'


def token_scopes(auth: Any) -> set[str] | None:
    """The scopes of a request's token; ``None`` for a session (no token: every scope)."""
    if auth is None:
        return None
    if isinstance(auth, PersonalToken):
        return set(auth.scopes)
    return {TokenScope.PLAY.value}  # a bot token


class TokenScopes(BasePermission):
    """The view's ``token_scope`` must be among the token's scopes (sessions pass;
    a view with ``token_scope = None`` accepts every token, e.g. "who am I")."""

    code = "token_scope"

    def has_permission(self, request: Request, view: Any) -> bool:
        needed = getattr(view, "token_scope", TokenScope.PLAY.value)
        scopes = token_scopes(request.auth)
        if needed is None or scopes is None or needed in scopes:
            return True
        if isinstance(request.auth, PersonalToken):
            self.message = (f"This personal token lacks the “{needed}” scope "
                            f"(it has: {', '.join(sorted(scopes)) or 'none'}).")
        else:
            self.message = ("A bot token may only play; managing bots needs your session "
                            "or a personal token with the “bots” scope.")
        return False
