"""DRF authentication of bots by ``Authorization: Bearer <token>``.

``request.user`` becomes the bot's owner (so the owner's rights apply) and
``request.auth`` the bot :class:`~accounts.models.Player` the request acts as.
"""

from __future__ import annotations

from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from .models import Player, User
from .tokens import player_for_bot_token


class BotTokenAuthentication(BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request: Request) -> tuple[User, Player] | None:
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
