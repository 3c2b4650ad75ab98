"""Response headers (docs/security.md, "Response headers: CSP, caching, Origin").

* Every page of the site, found by walking the URL conf (and the admin's registry),
  answers with the one Content-Security-Policy, and no HTML page carries inline script,
  inline style, a ``style=""`` attribute or an inline event handler that the policy
  would block. The browser tests (tests/browser) prove the same in Chromium.
* Every response that shows a raw bot token, and every REST API response, is
  ``Cache-Control: no-store``.
"""

from __future__ import annotations

import io
import re
import runpy
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.resolvers import RoutePattern

pytestmark = pytest.mark.django_db

EXPECTED_CSP = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "connect-src": ["'self'"],
    "font-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}

# Pages (URL names) that must have been reached as HTML (200) by the walk below: if one
# is missing, the walk lost it (a new parameter name, a changed permission).
HTML_PAGES = {
    "home", "login", "register", "password_change", "password_change_done", "account",
    "player_rename", "player_delete", "account_delete", "lobby", "table", "table_hands",
    "player_hands", "player_stats", "replay", "leaderboard", "research:match_list",
    "research:match_detail", "api-docs", "house_bots", "house_bot_edit", "house_bot_delete",
}
QUERY = {"api-wait": "?timeout=0"}  # the long poll answers at once


def parse_csp(header: str) -> dict[str, list[str]]:
    policy: dict[str, list[str]] = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            assert words[0] not in policy, f"{words[0]} twice in {header!r}"
            policy[words[0]] = words[1:]
    return policy


def assert_csp(response: Any, what: str) -> None:
    header = response.headers.get("Content-Security-Policy")
    assert header, f"{what}: no Content-Security-Policy header"
    assert parse_csp(header) == EXPECTED_CSP, f"{what}: {header}"
    assert "unsafe" not in header


def cache_directives(response: Any) -> set[str]:
    return {part.strip().split("=")[0].lower()
            for part in response.headers.get("Cache-Control", "").split(",") if part.strip()}


class InlineCode(HTMLParser):
    """Collects what ``script-src 'self'; style-src 'self'`` would block in a page."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self._script: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        for name, value in attrs:
            if name.startswith("on"):
                self.found.append(f"<{tag} {name}=…>")
            if name == "style":
                self.found.append(f"<{tag} style={value!r}>")
            if name in ("href", "src", "action", "formaction") and value \
                    and value.strip().lower().startswith("javascript:"):
                self.found.append(f"<{tag} {name}={value!r}>")
        if tag == "style":
            self.found.append("<style>")
        if tag == "script" and "src" not in named:
            kind = (named.get("type") or "").lower()
            # A JSON data block (json_script) is never run; anything else would be.
            self._script = None if kind in ("application/json", "application/ld+json") \
                else "<script> without src"

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script:
            self.found.append(self._script)
        self._script = None


def inline_code(html: str) -> list[str]:
    parser = InlineCode()
    parser.feed(html)
    parser.close()
    return parser.found


def check_page(response: Any, what: str) -> bool:
    """CSP on every response; an HTML page also free of inline code. True for HTML 200."""
    assert_csp(response, what)
    if response.status_code != 200 or "text/html" not in response.headers.get(
            "Content-Type", ""):
        return False
    found = inline_code(response.content.decode())
    assert found == [], f"{what}: blocked by the CSP: {found}"
    return True


# ------------------------------------------------------------------- the site


@pytest.fixture
def site(alice: Any, bob: Any, root: Any) -> dict[str, str]:
    """One of everything a URL can name: a table with a finished hand, a match, a bot."""
    from django.core.management import call_command

    from accounts.services import create_bot
    from research.models import MatchRun
    from tables.models import Hand
    from tables.services import create_table
    from tests.tables.helpers import act, sit, turn

    table = create_table(creator=alice, name="Headers NL", settings={
        "structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 6})
    sit(table, alice, 0)
    sit(table, bob, 1)
    users = {0: alice, 1: bob}
    seat, *_ = turn(table.pk)
    act(table.pk, users[seat], {"kind": "fold"})  # the winner mucks at once (auto-muck)
    hand = Hand.objects.filter(table=table, ended_at__isnull=False).first()
    assert hand is not None
    call_command("run_match", "--bots", "rule_based,random", "--hands", "20", "--seed", "1",
                 stdout=io.StringIO())
    bot, _ = create_bot(owner=root, name="RootBot")
    from accounts.services import add_house_bot

    house_bot = add_house_bot(by=root, name="Headers-EHS", style="ehs")
    from research.models import Session

    session = Session.objects.create(name="Headers session", created_by=root)
    session.tables.add(table)
    return {
        "house_bot_id": str(house_bot.pk), "session_id": str(session.pk),
        "table_id": str(table.pk), "hand_id": str(hand.pk), "match_id":
        str(MatchRun.objects.get().pk), "player_id": str(root.players.get(kind="human").pk),
        "game": "holdem", "key": "holdem", "name": "alice", "bot_id": str(bot.pk),
    }


def site_urls(values: dict[str, str]) -> Iterator[tuple[str, str]]:
    """(URL name, path) for every route of the URL conf but the admin (walked by its
    registry below); parameters are filled from ``values``, unknown ones with ``1``."""

    def walk(patterns: list[Any], prefix: str, namespace: str) -> Iterator[tuple[str, str]]:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                if pattern.app_name == "admin":
                    continue
                ns = pattern.namespace or namespace
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern),
                                ns)
            elif isinstance(pattern, URLPattern) and isinstance(pattern.pattern,
                                                                RoutePattern):
                route = prefix + str(pattern.pattern)
                path = "/" + re.sub(r"<(?:\w+:)?(\w+)>",
                                    lambda m: values.get(m.group(1), "1"), route)
                name = f"{namespace}:{pattern.name}" if namespace else str(pattern.name)
                yield name, path + QUERY.get(str(pattern.name), "")

    yield from walk(get_resolver().url_patterns, "", "")


@pytest.mark.parametrize("debug", [False, True], ids=["production", "debug"])
def test_every_page_has_the_policy(site: dict[str, str], root: Any, settings: Any,
                                   debug: bool) -> None:
    settings.DEBUG = debug
    urls = list(site_urls(site))
    assert len(urls) > 30, urls
    html: set[str] = set()
    for who in ("anonymous", "root"):
        client = Client()
        if who == "root":
            client.force_login(root)
        for name, path in urls:
            response = client.get(path)
            if check_page(response, f"GET {path} as {who}"):
                html.add(name)
    missing = HTML_PAGES - html
    assert not missing, f"never reached as an HTML page: {sorted(missing)}"


def test_the_admin_has_the_policy(site: dict[str, str], root: Any, bob: Any) -> None:
    from django.contrib import admin
    from django.urls import reverse

    from accounts.models import Player

    anonymous = Client()
    check_page(anonymous.get("/admin/login/"), "admin login")
    client = Client()
    client.force_login(root)
    pages = ["/admin/", "/admin/password_change/", "/admin/jsi18n/"]
    for model, model_admin in admin.site._registry.items():
        meta = model._meta
        base = f"admin:{meta.app_label}_{meta.model_name}"
        pages.append(reverse("admin:app_list", args=[meta.app_label]))
        pages.append(reverse(f"{base}_changelist"))
        pages.append(reverse(f"{base}_changelist") + "?q=a")
        pages.append(reverse(f"{base}_add"))
        obj = model_admin.get_queryset(type("R", (), {"user": root})()).first()
        if obj is not None:
            pages += [reverse(f"{base}_change", args=[obj.pk]),
                      reverse(f"{base}_history", args=[obj.pk]),
                      reverse(f"{base}_delete", args=[obj.pk])]
    html = 0
    for path in pages:
        html += check_page(client.get(path), f"GET {path}")
    assert html >= 10, pages
    # An admin action's own page (templates/admin/accounts/adjust_balance.html).
    player = Player.objects.get(owner=bob, kind="human")
    response = client.post("/admin/accounts/player/", {
        "action": "adjust_balance", "_selected_action": [player.pk]})
    assert check_page(response, "admin action adjust_balance")


def test_api_docs_load_their_script_as_a_file(alice: Any) -> None:
    """Swagger UI's start-up script comes from the split view's ``?script`` URL, not from
    an inline <script>; that file is JavaScript and has the policy too."""
    client = Client()
    client.force_login(alice)
    page = client.get("/api/v1/docs/")
    assert check_page(page, "API docs")
    sources = re.findall(r'<script src="([^"]+)"', page.content.decode())
    script = next(src for src in sources if "script=" in src)
    response = client.get(script.replace("&amp;", "&"))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/javascript")
    assert b"SwaggerUIBundle(" in response.content
    # No validator badge: an image from validator.swagger.io (img-src 'self' data:).
    assert b'"validatorUrl": null' in response.content
    assert_csp(response, "API docs script")


def test_the_policy_is_the_same_in_production(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not switched by DEBUG: the settings module gives one policy either way."""
    import pokersite.settings as current

    monkeypatch.setenv("DJANGO_DEBUG", "0")
    monkeypatch.setenv("DJANGO_SECRET_KEY", "x" * 50)
    monkeypatch.setenv("DJANGO_ALLOWED_HOSTS", "poker.example.com")
    production = runpy.run_path(str(Path(current.__file__)))
    assert production["DEBUG"] is False
    for policy in (production["CONTENT_SECURITY_POLICY"], current.CONTENT_SECURITY_POLICY):
        assert policy["DIRECTIVES"] == EXPECTED_CSP
        assert "REPORT_ONLY" not in str(policy)


# ------------------------------------------------------- secrets are not cached


def test_bot_token_pages_are_no_store(bob: Any) -> None:
    from accounts.models import Player

    client = Client()
    client.force_login(bob)
    response = client.post("/account/bots/add/", {"name": "Skynet", "description": ""})
    assert response.status_code == 200 and b"Copy this token now" in response.content
    assert "no-store" in cache_directives(response)
    assert check_page(response, "new bot's token page")
    assert 'data-select-on-focus' in response.content.decode()
    bot = Player.objects.get(name="Skynet")
    response = client.post(f"/account/bots/{bot.pk}/token/")
    assert response.status_code == 200 and b"New token" in response.content
    assert "no-store" in cache_directives(response)
    assert check_page(response, "new token page")


def test_every_api_response_is_no_store(bob: Any) -> None:
    from rest_framework.test import APIClient

    client = APIClient()  # the test client does not enforce CSRF
    client.force_login(bob)
    response = client.post("/api/v1/bots/", {"name": "Skynet", "description": "x"},
                           format="json")
    assert response.status_code == 201, response.content
    assert response.json()["token"]
    assert "no-store" in cache_directives(response)
    bot_id = response.json()["id"]
    response = client.post(f"/api/v1/bots/{bot_id}/token/")
    assert response.status_code == 200, response.content
    assert response.json()["token"]
    assert "no-store" in cache_directives(response)
    # Reads and errors too: every ApiView answer.
    for response in (client.get("/api/v1/me/"), client.get("/api/v1/bots/"),
                     client.get("/api/v1/tables/999999/"), APIClient().get("/api/v1/me/")):
        assert response.status_code in (200, 401, 404)
        assert "no-store" in cache_directives(response), response
        assert_csp(response, "API response")
