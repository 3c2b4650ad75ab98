"""Public spectating (``settings.PUBLIC_SPECTATING``, off by default): anonymous
visitors may open the lobby and watch tables, read-only.

Only reading pages use :func:`login_or_public`; everything that changes something
keeps ``login_required``. The table websocket accepts an anonymous spectator under
the same setting (tables/consumers.py): it sees what any watcher sees (no hidden
card) and every command is refused with ``not_authenticated``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse

View = Callable[..., HttpResponse]


def public_spectating() -> bool:
    return bool(getattr(settings, "PUBLIC_SPECTATING", False))


def login_or_public(view: View) -> View:
    """``login_required``, unless public spectating is on."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated and not public_spectating():
            return redirect_to_login(request.get_full_path())
        return view(request, *args, **kwargs)

    return wrapped
