"""Rights checks for DRF views and Django views, one per user right.

Every check reads one ``can_*`` property of the user (see :class:`accounts.models.User`);
anonymous users have no rights. Nothing here compares role numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView

RIGHTS = (
    "can_play",
    "can_create_tables",
    "can_manage_bots",
    "can_see_all_cards",
    "can_manage_users",
)


def has_right(user: Any, right: str) -> bool:
    """Whether ``user`` (possibly anonymous) has ``right``; unknown rights are an error."""
    if right not in RIGHTS:
        raise ValueError(f"unknown right {right!r}")
    return bool(user is not None and user.is_authenticated and getattr(user, right))


class _RightPermission(BasePermission):
    right: str = ""
    message = "You do not have the right to do this."

    def has_permission(self, request: Request, view: APIView) -> bool:
        return has_right(request.user, self.right)


class CanPlay(_RightPermission):
    right = "can_play"
    message = "Log in to play."


class CanCreateTables(_RightPermission):
    right = "can_create_tables"
    message = "Log in to create tables."


class CanManageBots(_RightPermission):
    right = "can_manage_bots"
    message = "Only testers and superusers may manage bots."


class CanSeeAllCards(_RightPermission):
    right = "can_see_all_cards"
    message = "Only superusers may see every player's cards."


class CanManageUsers(_RightPermission):
    right = "can_manage_users"
    message = "Only superusers may manage users."


ViewFunc = TypeVar("ViewFunc", bound=Callable[..., HttpResponse])


def right_required(right: str) -> Callable[[ViewFunc], ViewFunc]:
    """Decorator for Django views: anonymous users go to the login page, users
    without the right get 403."""
    if right not in RIGHTS:
        raise ValueError(f"unknown right {right!r}")

    def decorator(view: ViewFunc) -> ViewFunc:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if not has_right(request.user, right):
                raise PermissionDenied("Your role does not allow this.")
            return view(request, *args, **kwargs)

        return wrapped  # type: ignore[return-value]

    return decorator
