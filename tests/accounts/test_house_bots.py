"""House bots belong to the system account, never to a person.

The defect this guards against (research integrity): the demo data made the demo
tester the owner of the house bots, so the tester was offered their turns, saw
their hole cards as their own ("you") and had them listed twice, once as their own
bots. Now a system account (role System, inactive, no usable password) owns them;
testers and superusers seat and remove them through their right to manage bots.
"""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse
from pytest_django.fixtures import Settings

from accounts import services
from accounts.errors import NameTaken, NotAllowed
from accounts.models import Player, PlayerKind, Role, User
from accounts.selectors import players_of
from accounts.tokens import hash_token
from tests.api.conftest import client_for

DEMO_HOUSE_BOTS = {"House-RuleBased", "House-EHS", "House-Station", "House-Random"}


@pytest.fixture
def demo(db: None, settings: Settings) -> None:
    settings.DEBUG = True  # demo_data refuses otherwise; the test runner turns DEBUG off
    settings.TABLES = {**settings.TABLES, "WORKER_IN_PROCESS": False}
    call_command("demo_data", stdout=StringIO())


@pytest.fixture
def house_bot(db: None) -> Player:
    return services.create_house_bot(name="House-Station", strategy="calling_station")


# ------------------------------------------------------------ the system account


def test_house_owner_is_a_system_account_without_any_right(db: None) -> None:
    house = services.house_owner()
    assert (house.username, house.role, house.is_active) == ("house", Role.SYSTEM, False)
    assert house.is_system and not house.has_usable_password()
    assert not (house.is_staff or house.is_superuser)
    assert not any(getattr(house, right) for right in (
        "can_play", "can_create_tables", "can_manage_bots", "can_see_all_cards",
        "can_manage_users"))
    assert services.house_owner().pk == house.pk  # made once, on first use
    assert not house.players.exists()  # no player of its own


def test_house_owner_steps_aside_for_a_person_called_house(db: None) -> None:
    person = User.objects.create_user("house", password="Tr1cky-pass-99")
    house = services.house_owner()
    assert house.pk != person.pk and house.username == "house-2" and house.is_system


def test_house_bots_are_owned_by_the_system_account(db: None, bob: User) -> None:
    bot = services.create_house_bot(name="House-EHS", strategy="ehs")
    assert bot.owner == services.house_owner() and bot.is_house and bot.is_bot
    assert bot.token_hash is None
    assert services.create_house_bot(name="house-ehs", strategy="ehs").pk == bot.pk
    with pytest.raises(NameTaken):
        services.create_house_bot(name="bob", strategy="ehs")  # bob's human player
    # A house bot a person owns (as the old demo data made them) is handed over.
    stray = Player.objects.create(owner=bob, name="House-Random", kind=PlayerKind.BOT,
                                  house_strategy="random")
    assert services.adopt_house_bots() == 1 and services.adopt_house_bots() == 0
    stray.refresh_from_db()
    assert stray.owner == services.house_owner()
    assert not players_of(bob).filter(house_strategy__gt="").exists()


# ------------------------------------------------------------------ demo data


def test_demo_house_bots_belong_to_the_system_not_to_the_tester(demo: None) -> None:
    house = services.house_owner()
    bots = Player.objects.live().house()
    assert {bot.name for bot in bots} >= DEMO_HOUSE_BOTS
    assert {bot.owner_id for bot in bots} == {house.pk}
    tester = User.objects.get(username="tester")
    assert not Player.objects.house().filter(owner=tester).exists()
    # The tester's own players, in every place that lists them: no house bot.
    own = {"tester", "Pekka", "Skynet", "CallBot", "RaiseBot"}
    assert {p.name for p in players_of(tester)} == own
    api = client_for(tester)
    assert {p["name"] for p in api.get("/api/v1/me/").json()["players"]} == own
    assert {b["name"] for b in api.get("/api/v1/bots/").json()} == {
        "Skynet", "CallBot", "RaiseBot"}
    page = Client()
    page.force_login(tester)
    assert "House-" not in page.get(reverse("account")).content.decode()
    # At the demo tables the tester controls no house bot's seat: never "you".
    tables = api.get("/api/v1/tables/").json()["results"]
    seated = [t for t in tables if set(t["player_names"]) & DEMO_HOUSE_BOTS]
    assert seated
    for table in seated:
        snapshot = api.get(f"/api/v1/tables/{table['id']}/").json()
        assert snapshot["you"]["seats"] == [] and snapshot["your_turn"] is None


def test_testers_seat_and_remove_system_house_bots(house_bot: Player, alice: User,
                                                   bob: User, root: User) -> None:
    from tables import services as table_services
    from tables.errors import TableError
    from tables.models import Seat

    table = table_services.create_table(creator=alice, name="House test", settings={
        "structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 6})

    def command(user: User, **fields: Any) -> None:
        table_services.execute(table_id=table.pk, user=user, command=fields)

    with pytest.raises(TableError) as error:  # a player may not
        command(alice, type="sit", seat=1, buy_in=200, player=house_bot.pk)
    assert error.value.code in {"not_your_player", "not_allowed"}
    for number, user in ((1, bob), (2, root)):  # a tester and a superuser may
        command(user, type="sit", seat=number, buy_in=200, player=house_bot.pk)
        assert Seat.objects.get(table=table, number=number).player == house_bot
        command(user, type="leave", seat=number)
        assert not Seat.objects.filter(table=table, number=number).exists()


def test_admin_lists_house_bots(client: Client, root: User, house_bot: Player) -> None:
    client.force_login(root)
    url = reverse("admin:accounts_player_changelist")
    page = client.get(url, {"house": "yes"})
    assert page.status_code == 200 and "House-Station" in page.content.decode()
    assert list(page.context["cl"].queryset) == [house_bot]
    assert "House-Station" not in client.get(url, {"house": "no"}).content.decode()
    house = services.house_owner()
    users = client.get(reverse("admin:accounts_user_changelist"), {"role__exact": Role.SYSTEM})
    assert list(users.context["cl"].queryset) == [house]


# ------------------------------------------------------------ it never logs in


def test_the_system_account_cannot_log_in_with_a_session(client: Client,
                                                         house_bot: Player) -> None:
    house = services.house_owner()
    for password in ("", "!", house.password, "house"):
        assert not client.login(username=house.username, password=password)
    response = client.post(reverse("login"), {"username": house.username, "password": ""})
    assert response.status_code == 200 and "_auth_user_id" not in client.session
    # Even an admin giving it a password and activating it does not make it a login.
    house.set_password("Tr1cky-pass-99")
    house.is_active = True
    house.save()
    house.refresh_from_db()
    assert not house.is_active and not house.has_usable_password()
    assert not client.login(username=house.username, password="Tr1cky-pass-99")
    with pytest.raises(IntegrityError), transaction.atomic():  # nor can a bulk update
        User.objects.filter(pk=house.pk).update(is_active=True)
    # A session made for it by hand is no session: pages and API treat it as anonymous.
    client.force_login(house)
    assert client.get(reverse("account")).status_code == 302
    api = client_for()
    api.force_login(house)
    assert api.get("/api/v1/me/").status_code == 401


def test_the_system_account_cannot_use_the_api_through_a_house_bot(
        house_bot: Player) -> None:
    with pytest.raises(NotAllowed):
        services.regenerate_bot_token(house_bot)
    # Even a token planted on a house bot authenticates nobody: its owner is inactive.
    Player.objects.filter(pk=house_bot.pk).update(token_hash=hash_token("pkb_planted"))
    response = client_for(token="pkb_planted").get("/api/v1/me/")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_token"


def test_the_system_account_is_not_deleted_and_its_name_is_reserved(
        client: Client, db: None) -> None:
    form = {"username": "House", "email": "", "password1": "Tr1cky-pass-99",
            "password2": "Tr1cky-pass-99"}
    response = client.post(reverse("register"), form)  # before the account exists
    assert response.status_code == 200 and "reserved" in response.content.decode()
    house_bot = services.create_house_bot(name="House-Station", strategy="calling_station")
    response = client.post(reverse("register"), form)
    assert response.status_code == 200 and "already exists" in response.content.decode()
    assert not User.objects.filter(is_active=True).exists()
    with pytest.raises(NotAllowed):
        services.delete_user(services.house_owner())
    assert User.objects.filter(role=Role.SYSTEM).exists()
    services.delete_player(house_bot)  # a house bot itself may be retired (admin action)
    house_bot.refresh_from_db()
    assert house_bot.is_deleted


# ------------------------------------------------------------ the data migration


@pytest.mark.django_db(transaction=True)
def test_migration_gives_existing_house_bots_to_the_system_account() -> None:
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before, after = ("accounts", "0002_player_house_strategy"), ("accounts", "0003_house_owner")
    executor = MigrationExecutor(connection)
    executor.migrate([before])
    old = executor.loader.project_state([before]).apps
    tester = old.get_model("accounts", "User").objects.create(username="tester", role=2)
    player_model = old.get_model("accounts", "Player")
    player_model.objects.create(owner=tester, name="House-EHS", kind="bot",
                                house_strategy="ehs", token_hash="x" * 64)
    player_model.objects.create(owner=tester, name="Skynet", kind="bot")
    player_model.objects.create(owner=None, name="House-Gone", kind="bot",
                                house_strategy="random", deleted_at="2026-01-01T00:00:00Z")
    executor = MigrationExecutor(connection)
    executor.migrate([after])
    # Then every later migration (later columns, e.g. Player.house_params), so that the
    # current models read the rows.
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    house = User.objects.get(role=Role.SYSTEM)
    assert (house.username, house.is_active, house.has_usable_password()) == (
        "house", False, False)
    owners = {p.name: (p.owner.username if p.owner else None, p.token_hash)
              for p in Player.objects.all()}
    assert owners == {"House-EHS": ("house", None), "Skynet": ("tester", None),
                      "House-Gone": (None, None)}
    assert services.house_owner() == house
