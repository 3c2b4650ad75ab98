"""The admin is for superusers only; role changes keep the flags in step."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from pytest_django.fixtures import Settings

from accounts import services
from accounts.models import LedgerEntry, LedgerKind, Player, Role, User


@pytest.fixture
def demo(db: None, settings: Settings) -> None:
    settings.DEBUG = True  # demo_data refuses otherwise; the test runner turns DEBUG off
    call_command("demo_data", stdout=StringIO())


def test_demo_superuser_can_log_in_to_admin(client: Client, demo: None) -> None:
    response = client.post(
        reverse("admin:login"), {"username": "admin", "password": "admin-dev-password"}
    )
    assert response.status_code == 302
    assert client.get(reverse("admin:index")).status_code == 200


def test_tester_is_refused_by_admin(client: Client, demo: None) -> None:
    response = client.post(
        reverse("admin:login"), {"username": "tester", "password": "tester-dev-password"}
    )
    assert response.status_code == 200
    assert "staff account" in response.content.decode()
    assert client.get(reverse("admin:index")).status_code == 302


def test_admin_pages_load(client: Client, root: User, alice: User) -> None:
    client.force_login(root)
    for name in ("accounts_user", "accounts_player", "accounts_ledgerentry"):
        assert client.get(reverse(f"admin:{name}_changelist")).status_code == 200
    assert (
        client.get(reverse("admin:accounts_user_changelist"), {"role__exact": 3}).status_code == 200
    )
    assert client.get(reverse("admin:accounts_user_changelist"), {"q": "ali"}).status_code == 200
    assert client.get(reverse("admin:accounts_user_change", args=[alice.pk])).status_code == 200


def test_admin_role_change_sets_superuser_flag(client: Client, root: User, alice: User) -> None:
    client.force_login(root)
    url = reverse("admin:accounts_user_change", args=[alice.pk])
    data = {
        "username": "alice",
        "email": alice.email,
        "role": Role.SUPERUSER,
        "is_active": "on",
        "date_joined_0": "2026-01-01",
        "date_joined_1": "00:00:00",
    }
    response = client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    alice.refresh_from_db()
    assert (alice.role, alice.is_superuser, alice.is_staff) == (Role.SUPERUSER, True, True)
    client.post(url, {**data, "role": Role.TESTER})
    alice.refresh_from_db()
    assert (alice.role, alice.is_superuser, alice.is_staff) == (Role.TESTER, False, False)


def test_admin_deactivate_and_delete_user(client: Client, root: User, alice: User) -> None:
    client.force_login(root)
    changelist = reverse("admin:accounts_user_changelist")
    client.post(changelist, {"action": "deactivate", "_selected_action": [alice.pk]})
    alice.refresh_from_db()
    assert not alice.is_active
    player = alice.players.get()
    response = client.post(
        changelist, {"action": "delete_selected", "_selected_action": [alice.pk], "post": "yes"}
    )
    assert response.status_code == 302
    assert not User.objects.filter(pk=alice.pk).exists()
    player.refresh_from_db()
    assert player.is_deleted and player.name == "alice"


def test_admin_adjustment_action_writes_one_ledger_entry(
    client: Client, root: User, alice: User
) -> None:
    client.force_login(root)
    player = alice.players.get()
    changelist = reverse("admin:accounts_player_changelist")
    form = client.post(changelist, {"action": "adjust_balance", "_selected_action": [player.pk]})
    assert form.status_code == 200 and "Adjust balances" in form.content.decode()
    zero = client.post(
        changelist,
        {
            "action": "adjust_balance",
            "_selected_action": [player.pk],
            "apply": "1",
            "amount": 0,
            "note": "x",
        },
    )
    assert "changes nothing" in zero.content.decode() and not LedgerEntry.objects.exists()
    done = client.post(
        changelist,
        {
            "action": "adjust_balance",
            "_selected_action": [player.pk],
            "apply": "1",
            "amount": 500,
            "note": "welcome bonus",
        },
    )
    assert done.status_code == 302
    entry = LedgerEntry.objects.get()
    assert (entry.kind, entry.amount, entry.note, entry.created_by) == (
        LedgerKind.ADJUSTMENT,
        500,
        "welcome bonus",
        root,
    )
    player.refresh_from_db()
    assert player.balance == 500


def test_ledger_is_read_only_in_admin(client: Client, root: User, alice: User) -> None:
    entry = services.buy_in(player=alice.players.get(), chips=5)
    client.force_login(root)
    assert client.get(reverse("admin:accounts_ledgerentry_add")).status_code == 403
    change = client.post(
        reverse("admin:accounts_ledgerentry_change", args=[entry.pk]), {"amount": 1}
    )
    assert change.status_code == 403 or "amount" not in change.content.decode()
    assert (
        client.post(reverse("admin:accounts_ledgerentry_delete", args=[entry.pk])).status_code
        == 403
    )
    assert LedgerEntry.objects.get().amount == -5
    assert Player.objects.get(pk=entry.player_id).balance == -5
