"""Demo data steps for ``manage.py demo_data``, and the registry other apps extend.

A step is a function ``(out) -> None`` that makes its data exist (idempotently)
and prints what a developer needs (logins, tokens) through ``out``. Other apps
add steps in their own ``demo.py`` module with ``@demo_step(order=...)``; the
command imports every installed app's ``demo`` module, then runs the steps by
order. Accounts uses orders below 100 (and 900 for the house bots, see
:func:`house_bots`); e.g. demo tables use 200.

House bots (``Player.house_strategy``) never belong to a demo user: they belong to
the system account (:func:`accounts.services.house_owner`). Steps should make them
with :func:`accounts.services.create_house_bot`; the last step hands any that a
person owns to the system account.

Passwords and bot tokens here are fixed and public: the command refuses to run
unless DEBUG is on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from django.db import transaction

from . import services
from .models import Player, PlayerKind, Role, User
from .tokens import hash_token


class Output(Protocol):
    def write(
        self,
        msg: str = "",
        style_func: Callable[[str], str] | None = None,
        ending: str | None = None,
    ) -> None: ...


Step = Callable[[Output], None]
STEPS: list[tuple[int, str, Step]] = []


def demo_step(*, order: int) -> Callable[[Step], Step]:
    def register(step: Step) -> Step:
        if all(existing is not step for _, _, existing in STEPS):
            STEPS.append((order, f"{step.__module__}.{step.__qualname__}", step))
        return step

    return register


DEMO_USERS = [
    # username, password, role
    ("admin", "admin-dev-password", Role.SUPERUSER),
    ("tester", "tester-dev-password", Role.TESTER),
    ("player", "player-dev-password", Role.PLAYER),
]
DEMO_HUMANS = [
    # extra human players: owner, name
    ("player", "Kaisa"),
    ("tester", "Pekka"),
]
DEMO_BOTS = [
    # owner, name, description; the dev token is "demo-token-<name lowercased>"
    ("tester", "Skynet", "Pekka's experimental bot."),
    ("tester", "CallBot", "Always checks or calls: a baseline opponent."),
    ("tester", "RaiseBot", "Raises whenever it may: a maniac baseline."),
]


def demo_bot_token(name: str) -> str:
    return f"demo-token-{name.lower()}"


def _player(owner: User, name: str, kind: PlayerKind, description: str = "") -> Player:
    player = Player.objects.filter(name__iexact=name).first()
    if player is None:
        player = Player.objects.create(owner=owner, name=name, kind=kind, description=description)
    return player


@demo_step(order=10)
def users(out: Output) -> None:
    out.write("Demo users (DEBUG only; fixed passwords):")
    for username, password, role in DEMO_USERS:
        with transaction.atomic():
            user = User.objects.filter(username=username).first() or User(username=username)
            user.role = role
            user.is_active = True
            user.set_password(password)
            user.save()
            _player(user, username, PlayerKind.HUMAN)
        out.write(f"  {Role(role).label:<9}  username {username:<7} password {password}")


@demo_step(order=20)
def players_and_bots(out: Output) -> None:
    for owner_name, name in DEMO_HUMANS:
        _player(User.objects.get(username=owner_name), name, PlayerKind.HUMAN)
    out.write("Demo bots (owned by tester; Authorization: Bearer <token>):")
    for owner_name, name, description in DEMO_BOTS:
        bot = _player(User.objects.get(username=owner_name), name, PlayerKind.BOT, description)
        token = demo_bot_token(name)
        # A fixed, public token, like the passwords above: demo data only.
        Player.objects.filter(pk=bot.pk).update(token_hash=hash_token(token))
        out.write(f"  {name:<9}  token {token}")


@demo_step(order=900)
def house_bots(out: Output) -> None:
    """After every app's steps: house bots belong to the system account, not to the
    tester (who seats and removes them through the right to manage bots)."""
    services.adopt_house_bots()
    names = list(Player.objects.live().house().order_by("name").values_list("name", flat=True))
    if names:
        owner = services.house_owner().username
        out.write(f"House bots (owned by the system account “{owner}”, which cannot log in; "
                  "testers seat them):")
        out.write("  " + ", ".join(names))
