"""The role matrix: each persona (and anonymous) against each right.

A higher role has every right of the lower ones; anonymous has none; the
DRF permission classes and the model properties always agree.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.management import call_command
from django.db import IntegrityError, transaction
from rest_framework.test import APIRequestFactory

from accounts import permissions
from accounts.models import Role, User

EXPECTED = {
    # right: (root, bob, alice, anonymous)
    "can_play": (True, True, True, False),
    "can_create_tables": (True, True, True, False),
    "can_manage_bots": (True, True, False, False),
    "can_see_all_cards": (True, False, False, False),
    "can_manage_users": (True, False, False, False),
}
PERMISSION_CLASSES = {
    "can_play": permissions.CanPlay,
    "can_create_tables": permissions.CanCreateTables,
    "can_manage_bots": permissions.CanManageBots,
    "can_see_all_cards": permissions.CanSeeAllCards,
    "can_manage_users": permissions.CanManageUsers,
}


@pytest.mark.parametrize("right", sorted(EXPECTED))
def test_role_matrix(right: str, root: User, bob: User, alice: User) -> None:
    personas = (root, bob, alice, AnonymousUser())
    factory = APIRequestFactory()
    for persona, expected in zip(personas, EXPECTED[right], strict=True):
        assert permissions.has_right(persona, right) is expected, (persona, right)
        if persona.is_authenticated:
            assert getattr(persona, right) is expected
        request = factory.get("/")
        request.user = persona
        assert PERMISSION_CLASSES[right]().has_permission(request, None) is expected  # type: ignore[arg-type]


def test_every_right_has_a_permission_class() -> None:
    assert set(PERMISSION_CLASSES) == set(permissions.RIGHTS) == set(EXPECTED)


def test_inactive_user_has_no_rights(root: User) -> None:
    root.is_active = False
    root.save()
    assert not any(getattr(root, right) for right in permissions.RIGHTS)


def test_unknown_right_is_an_error() -> None:
    with pytest.raises(ValueError):
        permissions.has_right(AnonymousUser(), "can_fly")


# --- is_superuser / is_staff always follow the role -------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("role", list(Role))
def test_save_derives_flags_from_role(role: Role) -> None:
    user = User.objects.create_user("carol", password="x-long-password-1", role=role)
    user.refresh_from_db()
    assert user.is_superuser is (role == Role.SUPERUSER)
    assert user.is_staff is (role == Role.SUPERUSER)


@pytest.mark.django_db
def test_flags_set_by_hand_are_overridden_by_role() -> None:
    user = User.objects.create_user("carol", password="x-long-password-1")
    user.is_superuser = user.is_staff = True
    user.save()
    user.refresh_from_db()
    assert (user.role, user.is_superuser, user.is_staff) == (Role.PLAYER, False, False)


@pytest.mark.django_db
def test_role_change_with_update_fields_updates_flags(alice: User) -> None:
    alice.role = Role.SUPERUSER
    alice.save(update_fields=["role"])
    alice.refresh_from_db()
    assert alice.is_superuser and alice.is_staff
    alice.role = Role.TESTER
    alice.save(update_fields=["role"])
    alice.refresh_from_db()
    assert not alice.is_superuser and not alice.is_staff


@pytest.mark.django_db
def test_create_superuser_sets_role_1() -> None:
    user = User.objects.create_superuser("boss", "boss@example.com", "x-long-password-1")
    assert (user.role, user.is_superuser, user.is_staff) == (Role.SUPERUSER, True, True)


@pytest.mark.django_db
def test_createsuperuser_command_sets_role_1(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "x-long-password-1")
    call_command("createsuperuser", interactive=False, username="boss", email="b@example.com")
    user = User.objects.get(username="boss")
    assert (user.role, user.is_superuser, user.is_staff) == (Role.SUPERUSER, True, True)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "changes",
    [
        {"is_superuser": True},
        {"is_staff": True},
        {"role": Role.SUPERUSER},
        {"role": Role.SUPERUSER, "is_superuser": True},
    ],
)
def test_database_rejects_flags_disagreeing_with_role(alice: User, changes: dict) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.filter(pk=alice.pk).update(**changes)
