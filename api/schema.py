"""OpenAPI: how drf-spectacular describes the bots' bearer-token authentication."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class BotTokenScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.BotTokenAuthentication"
    name = "botToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "http", "scheme": "bearer",
                "description": "A bot's API token (My account → Bots): "
                               "`Authorization: Bearer <token>`."}
