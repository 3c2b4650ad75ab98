"""Players, names, bot tokens and deletion: clear errors, nothing changed on refusal."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.test import APIRequestFactory

from accounts import services
from accounts.authentication import BotTokenAuthentication
from accounts.errors import InvalidName, NameTaken, NotAllowed, PlayerSeated
from accounts.models import Player, PlayerKind, User
from accounts.tokens import hash_token, player_for_bot_token


@pytest.mark.parametrize(
    "name",
    ["ab", "x" * 25, "_alice", "-bob", ".x12", "has space", "émile", "semi;colon", ""],
)
def test_invalid_names_are_refused(alice: User, name: str) -> None:
    with pytest.raises(InvalidName) as info:
        services.create_human_player(owner=alice, name=name)
    assert info.value.code == "invalid_name" and info.value.message.endswith(".")
    assert alice.players.count() == 1


@pytest.mark.parametrize("name", ["abc", "x" * 24, "A.b-c_d", "9lives"])
def test_valid_names_are_accepted(alice: User, name: str) -> None:
    assert services.create_human_player(owner=alice, name=name).name == name


@pytest.mark.parametrize("name", ["alice", "ALICE", "Bob"])
def test_duplicate_names_are_refused_ignoring_case(alice: User, bob: User, name: str) -> None:
    with pytest.raises(NameTaken) as info:
        services.create_human_player(owner=alice, name=name)
    assert info.value.code == "name_taken"
    assert Player.objects.count() == 2


def test_database_enforces_case_insensitive_names(alice: User) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Player.objects.create(owner=alice, name="ALICE")


def test_deleted_players_keep_their_name_reserved(alice: User) -> None:
    extra = services.create_human_player(owner=alice, name="seat2")
    services.delete_player(extra)
    with pytest.raises(NameTaken):
        services.create_human_player(owner=alice, name="Seat2")


def test_rename_changes_case_and_refuses_taken_names(alice: User, bob: User) -> None:
    player = alice.players.get()
    services.rename_player(player, name="Alice")
    assert Player.objects.get(pk=player.pk).name == "Alice"
    with pytest.raises(NameTaken):
        services.rename_player(player, name="bob")
    assert Player.objects.get(pk=player.pk).name == "Alice"


def test_player_may_not_create_bots(alice: User) -> None:
    with pytest.raises(NotAllowed) as info:
        services.create_bot(owner=alice, name="SkyNet")
    assert info.value.code == "not_allowed"
    assert not Player.objects.filter(kind=PlayerKind.BOT).exists()


def test_bot_token_is_strong_hashed_and_shown_once(bob: User) -> None:
    bot, token = services.create_bot(owner=bob, name="Skynet", description="mine")
    assert token.startswith("pkb_") and len(token) >= 47  # prefix + token_urlsafe(32)
    assert bot.token_hash == hash_token(token) and token not in bot.token_hash
    assert player_for_bot_token(token) == bot
    assert player_for_bot_token("wrong") is None and player_for_bot_token("") is None


def test_regenerate_invalidates_old_token(bob: User) -> None:
    bot, old = services.create_bot(owner=bob, name="Skynet")
    new = services.regenerate_bot_token(bot)
    assert new != old
    assert player_for_bot_token(old) is None
    assert player_for_bot_token(new) == bot


def test_deleted_bot_token_no_longer_authenticates(bob: User) -> None:
    bot, token = services.create_bot(owner=bob, name="Skynet")
    services.delete_player(bot)
    bot.refresh_from_db()
    assert bot.is_deleted and bot.owner is None and bot.token_hash is None
    assert bot.name == "Skynet"
    request = APIRequestFactory().get("/", HTTP_AUTHORIZATION=f"Bearer {token}")
    with pytest.raises(AuthenticationFailed) as info:
        BotTokenAuthentication().authenticate(request)
    assert "deleted" in str(info.value.detail)


def test_bearer_authentication_acts_as_owner_and_bot(bob: User) -> None:
    bot, token = services.create_bot(owner=bob, name="Skynet")
    request = APIRequestFactory().get("/", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert BotTokenAuthentication().authenticate(request) == (bob, bot)
    # Not a bearer header: left to the other authenticators.
    assert BotTokenAuthentication().authenticate(APIRequestFactory().get("/")) is None
    malformed = APIRequestFactory().get("/", HTTP_AUTHORIZATION="Bearer a b")
    with pytest.raises(AuthenticationFailed):
        BotTokenAuthentication().authenticate(malformed)


def test_inactive_owner_token_fails(bob: User) -> None:
    _, token = services.create_bot(owner=bob, name="Skynet")
    bob.is_active = False
    bob.save()
    assert player_for_bot_token(token) is None


def test_delete_user_soft_deletes_players_and_keeps_ledger(bob: User) -> None:
    human = bob.players.get()
    services.buy_in(player=human, chips=100, table_id=1)
    bot, token = services.create_bot(owner=bob, name="Skynet")
    services.delete_user(bob)
    assert not User.objects.filter(username="bob").exists()
    for player in (human, bot):
        player.refresh_from_db()
        assert player.is_deleted and player.owner is None and player.token_hash is None
    assert human.ledger_entries.count() == 1 and human.balance == -100
    assert player_for_bot_token(token) is None


def test_database_forbids_ownerless_live_player(alice: User) -> None:
    """Deleting a user behind the service's back cannot leave a dangling live player."""
    with pytest.raises(IntegrityError), transaction.atomic():
        alice.delete()


def test_player_is_seated_is_false_until_seats_exist(alice: User) -> None:
    from django.apps import apps

    from accounts.selectors import player_is_seated

    try:
        apps.get_model("tables", "Seat")
    except LookupError:
        assert player_is_seated(alice.players.get()) is False
    else:  # the tables app now defines seats: a fresh player sits nowhere
        assert player_is_seated(alice.players.get()) is False


def test_seated_player_cannot_be_deleted(alice: User, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services, "player_is_seated", lambda player: True)
    player = alice.players.get()
    with pytest.raises(PlayerSeated) as info:
        services.delete_player(player)
    assert info.value.code == "player_seated" and "table" in info.value.message
    with pytest.raises(PlayerSeated):
        services.delete_user(alice)
    player.refresh_from_db()
    assert not player.is_deleted and User.objects.filter(pk=alice.pk).exists()
