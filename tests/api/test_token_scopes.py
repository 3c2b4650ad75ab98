"""Token scopes (docs/security.md, "Token scopes"): a bot token plays; managing bots
needs the owner's session or a personal token with the ``bots`` scope."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import client_for
from .test_endpoints import assert_error

pytestmark = pytest.mark.django_db


def make_bot(owner: Any, name: str) -> tuple[int, str]:
    created = client_for(owner).post("/api/v1/bots/", {"name": name}, format="json")
    assert created.status_code == 201, created.json()
    return created.json()["id"], created.json()["token"]


def test_a_bot_token_cannot_manage_bots(bob: Any) -> None:
    a_id, a_token = make_bot(bob, "BotA")
    b_id, b_token = make_bot(bob, "BotB")
    as_a = client_for(token=a_token)
    assert_error(as_a.post("/api/v1/bots/", {"name": "Spawn"}, format="json"), 403,
                 "token_scope")
    assert_error(as_a.get("/api/v1/bots/"), 403, "token_scope")
    assert_error(as_a.post(f"/api/v1/bots/{b_id}/token/"), 403, "token_scope")
    assert_error(as_a.delete(f"/api/v1/bots/{b_id}/"), 403, "token_scope")
    assert_error(as_a.delete(f"/api/v1/bots/{a_id}/"), 403, "token_scope")
    # Nothing changed: B's token still works, no bot was made or deleted.
    assert client_for(token=b_token).get("/api/v1/me/").json()["bot"]["id"] == b_id
    assert sorted(b["name"] for b in client_for(bob).get("/api/v1/bots/").json()) == [
        "BotA", "BotB"]


def test_a_bot_token_plays_and_sees_only_its_own_profile(bob: Any, table: Any) -> None:
    _, token = make_bot(bob, "Player1")
    as_bot = client_for(token=token)
    me = as_bot.get("/api/v1/me/").json()
    assert [p["name"] for p in me["players"]] == ["Player1"]  # not bob's other players
    assert as_bot.get("/api/v1/tables/").status_code == 200
    sat = as_bot.post(f"/api/v1/tables/{table.pk}/commands/",
                      {"type": "sit", "seat": 3, "buy_in": 200}, format="json")
    assert sat.status_code == 200, sat.json()
    assert as_bot.get("/api/v1/players/Player1/stats/").status_code == 200


def test_personal_token_with_bots_scope_manages_bots_and_nothing_else(bob: Any,
                                                                        table: Any) -> None:
    from accounts.models import PersonalToken
    from accounts.services import create_personal_token

    token, raw = create_personal_token(owner=bob, name="ci-script", scopes=["bots"])
    assert raw.startswith("pkp_") and raw not in token.token_hash
    script = client_for(token=raw)
    created = script.post("/api/v1/bots/", {"name": "Scripted"}, format="json")
    assert created.status_code == 201
    bot_id = created.json()["id"]
    assert script.post(f"/api/v1/bots/{bot_id}/token/").status_code == 200
    assert script.delete(f"/api/v1/bots/{bot_id}/").status_code == 204
    # It cannot play as its owner.
    assert_error(script.get("/api/v1/tables/"), 403, "token_scope")
    assert_error(script.post(f"/api/v1/tables/{table.pk}/commands/",
                             {"type": "sit", "seat": 1, "buy_in": 200}, format="json"),
                 403, "token_scope")
    assert PersonalToken.objects.get(pk=token.pk).last_used_at is not None
    # Revoked: refused at once.
    token.delete()
    assert_error(script.get("/api/v1/bots/"), 401, "invalid_token")


def test_personal_tokens_need_the_right(alice: Any, bob: Any) -> None:
    from accounts.errors import NotAllowed
    from accounts.services import create_personal_token

    with pytest.raises(NotAllowed):
        create_personal_token(owner=alice, name="nope", scopes=["bots"])  # a player
    with pytest.raises(NotAllowed):
        create_personal_token(owner=bob, name="play", scopes=["play"])  # not grantable


def test_personal_token_page_shows_the_token_once_and_revokes(bob: Any) -> None:
    from django.test import Client

    from accounts.models import PersonalToken

    browser = Client()
    browser.force_login(bob)
    page = browser.post("/account/tokens/add/", {"name": "laptop", "scopes": ["bots"]})
    assert page.status_code == 200 and b"pkp_" in page.content
    assert "no-store" in page["Cache-Control"]
    token = PersonalToken.objects.get(owner=bob)
    account = browser.get("/account/").content.decode()
    assert "laptop" in account and "pkp_" not in account
    assert browser.post(f"/account/tokens/{token.pk}/revoke/").status_code == 302
    assert not PersonalToken.objects.filter(pk=token.pk).exists()
