"""``manage.py demo_data``: idempotent, prints logins and tokens, refuses in production."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from pytest_django.fixtures import Settings as SettingsWrapper

from accounts.models import Player, PlayerKind, Role, User
from accounts.tokens import player_for_bot_token


def run() -> str:
    out = StringIO()
    call_command("demo_data", stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_demo_data_is_idempotent_and_prints_credentials(settings: SettingsWrapper) -> None:
    settings.DEBUG = True  # the test runner turns DEBUG off
    first = run()
    counts = (User.objects.count(), Player.objects.count())
    second = run()
    assert (User.objects.count(), Player.objects.count()) == counts
    assert first == second
    for username, role in (
        ("admin", Role.SUPERUSER),
        ("tester", Role.TESTER),
        ("player", Role.PLAYER),
    ):
        user = User.objects.get(username=username)
        assert user.role == role and user.check_password(f"{username}-dev-password")
        assert f"password {username}-dev-password" in first
    bots = Player.objects.filter(kind=PlayerKind.BOT, house_strategy="")
    assert bots.count() >= 2 and {bot.owner.username for bot in bots} == {"tester"}
    # House bots belong to the system account (tests/accounts/test_house_bots.py).
    assert {bot.owner.role for bot in Player.objects.house()} <= {Role.SYSTEM}
    assert player_for_bot_token("demo-token-skynet").name == "Skynet"
    assert "demo-token-skynet" in first
    assert Player.objects.filter(kind=PlayerKind.HUMAN).count() > 3


@pytest.mark.django_db
def test_demo_data_refuses_with_debug_off(settings: SettingsWrapper) -> None:
    settings.DEBUG = False
    with pytest.raises(CommandError, match="refuses to run with DEBUG off"):
        run()
    assert not User.objects.exists()
