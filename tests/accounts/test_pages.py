"""The account pages, as each persona sees them."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from accounts import services
from accounts.models import LedgerEntry, Player, PlayerKind, Role, User


@pytest.fixture
def client_for(client: Client):  # type: ignore[no-untyped-def]
    def login(user: User) -> Client:
        client.force_login(user)
        return client

    return login


def test_register_logs_in_with_a_player_named_after_the_user(client: Client, db: None) -> None:
    response = client.post(
        reverse("register"),
        {
            "username": "carol",
            "email": "",
            "password1": "Tr1cky-pass-99",
            "password2": "Tr1cky-pass-99",
        },
    )
    assert response.status_code == 302 and response["Location"] == reverse("account")
    user = User.objects.get(username="carol")
    assert user.role == Role.PLAYER
    assert [(p.name, p.kind, p.balance) for p in user.players.all()] == [("carol", "human", 0)]
    assert client.get(reverse("account")).context["user"] == user


@pytest.mark.parametrize(
    ("username", "password", "message"),
    [
        ("ALICE", "Tr1cky-pass-99", "already"),
        ("a!", "Tr1cky-pass-99", "characters"),
        ("carol", "password", "too common"),
        ("carol", "12345678901", "entirely numeric"),
        ("carol", "short", "too short"),
    ],
)
def test_register_refuses_bad_input_with_a_clear_sentence(
    client: Client, alice: User, username: str, password: str, message: str
) -> None:
    response = client.post(
        reverse("register"),
        {"username": username, "password1": password, "password2": password},
    )
    assert response.status_code == 200
    assert message in response.content.decode()
    assert User.objects.count() == 1 and Player.objects.count() == 1


def test_username_taken_by_a_bot_is_refused(client: Client, bob: User) -> None:
    services.create_bot(owner=bob, name="Skynet")
    response = client.post(
        reverse("register"),
        {"username": "skynet", "password1": "Tr1cky-pass-99", "password2": "Tr1cky-pass-99"},
    )
    assert "already used by a player" in response.content.decode()
    assert not User.objects.filter(username="skynet").exists()


def test_login_and_logout(client: Client, alice: User, password: str) -> None:
    page = client.get(reverse("login"))
    assert page.status_code == 200
    response = client.post(reverse("login"), {"username": "alice", "password": password})
    assert response.status_code == 302
    assert "_auth_user_id" in client.session
    assert client.get(reverse("logout")).status_code == 405  # logging out needs a POST
    assert client.post(reverse("logout")).status_code == 302
    assert "_auth_user_id" not in client.session


def test_login_with_wrong_password_says_so(client: Client, alice: User) -> None:
    response = client.post(reverse("login"), {"username": "alice", "password": "nope"})
    assert "Please enter a correct username and password" in response.content.decode()


def test_password_change(client: Client, alice: User, password: str) -> None:
    client.force_login(alice)
    response = client.post(
        reverse("password_change"),
        {
            "old_password": password,
            "new_password1": "An0ther-pass-77",
            "new_password2": "An0ther-pass-77",
        },
    )
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.check_password("An0ther-pass-77")


def test_account_requires_login(client: Client, db: None) -> None:
    response = client.get(reverse("account"))
    assert response.status_code == 302 and reverse("login") in response["Location"]


def test_account_shows_balances_and_paginated_ledger(client_for, alice: User) -> None:  # type: ignore[no-untyped-def]
    player = alice.players.get()
    for table in range(30):
        services.buy_in(player=player, chips=10, table_id=table)
    response = client_for(alice).get(reverse("account"))
    html = response.content.decode()
    assert response.status_code == 200
    assert ">-300<" in html  # the balance
    page = response.context["ledger_page"]
    assert len(page.object_list) == 25 and page.paginator.num_pages == 2
    second = client_for(alice).get(reverse("account"), {"page": 2})
    assert len(second.context["ledger_page"].object_list) == 5


def test_add_rename_delete_human_player(client_for, alice: User) -> None:  # type: ignore[no-untyped-def]
    client = client_for(alice)
    assert client.post(reverse("player_add"), {"name": "alice2"}).status_code == 302
    extra = alice.players.get(name="alice2")
    response = client.post(reverse("player_rename", args=[extra.pk]), {"name": "Alice-Two"})
    assert response.status_code == 302
    assert client.post(reverse("player_delete", args=[extra.pk])).status_code == 302
    extra.refresh_from_db()
    assert extra.is_deleted and extra.name == "Alice-Two"


def test_duplicate_player_name_on_the_page(client_for, alice: User, bob: User) -> None:  # type: ignore[no-untyped-def]
    response = client_for(alice).post(reverse("player_add"), {"name": "BOB"})
    assert response.status_code == 400
    assert "already taken" in response.content.decode()
    assert alice.players.count() == 1


def test_cannot_touch_someone_elses_player(client_for, alice: User, bob: User) -> None:  # type: ignore[no-untyped-def]
    bobs = bob.players.get()
    client = client_for(alice)
    assert client.post(reverse("player_delete", args=[bobs.pk])).status_code == 404
    assert (
        client.post(reverse("player_rename", args=[bobs.pk]), {"name": "x123"}).status_code == 404
    )
    bobs.refresh_from_db()
    assert not bobs.is_deleted and bobs.name == "bob"


def test_player_creating_a_bot_gets_403_and_nothing_changes(client_for, alice: User) -> None:  # type: ignore[no-untyped-def]
    response = client_for(alice).post(reverse("bot_add"), {"name": "Skynet", "description": ""})
    assert response.status_code == 403
    assert not Player.objects.filter(kind=PlayerKind.BOT).exists()
    assert "Create a bot" not in client_for(alice).get(reverse("account")).content.decode()


def test_anonymous_creating_a_bot_is_sent_to_login(client: Client, db: None) -> None:
    response = client.post(reverse("bot_add"), {"name": "Skynet"})
    assert response.status_code == 302 and reverse("login") in response["Location"]
    assert not Player.objects.exists()


@pytest.mark.parametrize("persona", ["bob", "root"])
def test_tester_and_superuser_create_bots_and_see_the_token_once(
    client_for,
    request: pytest.FixtureRequest,
    persona: str,  # type: ignore[no-untyped-def]
) -> None:
    user = request.getfixturevalue(persona)
    client = client_for(user)
    response = client.post(reverse("bot_add"), {"name": "Skynet", "description": "mine"})
    assert response.status_code == 200
    token = response.context["token"]
    bot = Player.objects.get(name="Skynet")
    assert bot.owner == user and bot.is_bot and token in response.content.decode()
    assert token not in client.get(reverse("account")).content.decode()

    again = client.post(reverse("bot_token_regenerate", args=[bot.pk]))
    new_token = again.context["token"]
    assert new_token != token and "previous token no longer works" in again.content.decode()
    bot.refresh_from_db()
    assert bot.token_hash is not None

    assert client.post(reverse("player_delete", args=[bot.pk])).status_code == 302
    bot.refresh_from_db()
    assert bot.is_deleted and bot.token_hash is None


def test_regenerate_as_player_is_refused(client_for, alice: User, bob: User) -> None:  # type: ignore[no-untyped-def]
    bot, token = services.create_bot(owner=bob, name="Skynet")
    response = client_for(alice).post(reverse("bot_token_regenerate", args=[bot.pk]))
    assert response.status_code == 403
    bot.refresh_from_db()
    from accounts.tokens import hash_token

    assert bot.token_hash == hash_token(token)


def test_delete_account_needs_the_password(client_for, alice: User, password: str) -> None:  # type: ignore[no-untyped-def]
    client = client_for(alice)
    response = client.post(reverse("account_delete"), {"password": "wrong"})
    assert "not correct" in response.content.decode()
    assert User.objects.filter(pk=alice.pk).exists()
    player = alice.players.get()
    response = client.post(reverse("account_delete"), {"password": password})
    assert response.status_code == 302
    assert not User.objects.filter(pk=alice.pk).exists()
    player.refresh_from_db()
    assert player.is_deleted and player.name == "alice"
    assert "_auth_user_id" not in client.session


def test_forms_are_csrf_protected(alice: User, password: str) -> None:
    client = Client(enforce_csrf_checks=True)
    assert (
        client.post(reverse("login"), {"username": "alice", "password": password}).status_code
        == 403
    )
    client.force_login(alice)
    assert client.post(reverse("player_add"), {"name": "alice2"}).status_code == 403
    assert LedgerEntry.objects.count() == 0 and alice.players.count() == 1
