"""``{% load spectating %}{% public_spectating as public %}``: whether anonymous visitors
may watch (settings.PUBLIC_SPECTATING, lobby/public.py)."""

from __future__ import annotations

from django import template

from lobby.public import public_spectating as _public_spectating

register = template.Library()


@register.simple_tag
def public_spectating() -> bool:
    return _public_spectating()
