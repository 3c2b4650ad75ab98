"""Brute-force protection (docs/security.md, "Brute-force protection").

Logins, the site's and the admin's: django-axes locks out per username and per client
address, each with its own limit, for a cool-off, stored in the database.
Registration: at most N accounts per client address and hour, counted in the cache,
open when the cache is down. The limits are lowered here to keep the tests short.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from axes.models import AccessAttempt
from django.core.cache import caches
from django.core.management import call_command
from django.test import AsyncClient, Client, RequestFactory
from django.urls import reverse

from accounts import throttle
from accounts.models import User

PER_USERNAME = 3
PER_ADDRESS = 5
REGISTRATIONS = 2
ADDRESS = "127.0.0.1"  # the test client's


@pytest.fixture(autouse=True)
def _small_limits(settings: Any) -> None:
    settings.AXES_FAILURE_LIMIT = PER_USERNAME
    settings.BRUTE_FORCE = {**settings.BRUTE_FORCE, "LOGIN_FAILURES_PER_IP": PER_ADDRESS,
                            "REGISTRATIONS_PER_IP_PER_HOUR": REGISTRATIONS}


def log_in(client: Client, username: str, password: str, *, url: str | None = None,
           address: str = ADDRESS, **headers: Any) -> Any:
    return client.post(url or reverse("login"), {"username": username, "password": password},
                       REMOTE_ADDR=address, **headers)


def assert_locked_out(response: Any) -> None:
    assert response.status_code == 429
    text = response.content.decode()
    assert "Too many failed log-in attempts" in text
    assert "Try again after" in text and "UTC" in text
    assert 0 < int(response["Retry-After"]) <= 15 * 60


def test_the_configuration() -> None:
    from django.conf import settings

    assert settings.AUTHENTICATION_BACKENDS == [
        "axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
    assert settings.AXES_LOCKOUT_PARAMETERS == ["ip_address", "username"]
    assert settings.AXES_RESET_ON_SUCCESS and settings.AXES_COOLOFF_TIME
    assert settings.AXES_HANDLER == "accounts.throttle.LoginAttempts"
    assert settings.MIDDLEWARE[-1] == "axes.middleware.AxesMiddleware"


# ------------------------------------------------------------------------ logins


def test_wrong_passwords_lock_the_login_out_even_for_the_right_one(
        client: Client, alice: User, password: str) -> None:
    for _ in range(PER_USERNAME - 1):
        response = log_in(client, "alice", "wrong-password")
        assert response.status_code == 200 and "enter a correct username" in (
            response.content.decode())
    assert_locked_out(log_in(client, "alice", "wrong-password"))
    response = log_in(client, "alice", password)
    assert_locked_out(response)
    assert "_auth_user_id" not in client.session
    # Refused attempts during the lockout are not counted (it ends when the page says).
    assert AccessAttempt.objects.get(username="alice").failures_since_start == PER_USERNAME


def test_the_lockout_ends_after_the_cool_off(
        client: Client, alice: User, password: str, settings: Any) -> None:
    for _ in range(PER_USERNAME):
        log_in(client, "alice", "wrong-password")
    assert log_in(client, "alice", password).status_code == 429
    attempt = AccessAttempt.objects.get()
    attempt.attempt_time -= settings.AXES_COOLOFF_TIME + timedelta(seconds=1)
    attempt.save()
    assert log_in(client, "alice", password).status_code == 302
    assert "_auth_user_id" in client.session


def test_a_success_before_the_limit_resets_the_count(
        client: Client, alice: User, password: str) -> None:
    for _ in range(PER_USERNAME - 1):
        assert log_in(client, "alice", "wrong-password").status_code == 200
    assert log_in(client, "alice", password).status_code == 302
    assert not AccessAttempt.objects.exists()
    client.logout()
    for _ in range(PER_USERNAME - 1):
        assert log_in(client, "alice", "wrong-password").status_code == 200
    assert log_in(client, "alice", password).status_code == 302


def test_the_admin_login_is_locked_out_too(client: Client, root: User, password: str) -> None:
    url = reverse("admin:login")
    for _ in range(PER_USERNAME - 1):
        assert log_in(client, "root", "wrong-password", url=url).status_code == 200
    assert_locked_out(log_in(client, "root", "wrong-password", url=url))
    assert_locked_out(log_in(client, "root", password, url=url))
    assert client.get(reverse("admin:index")).status_code == 302  # still to the login


def test_one_address_is_locked_out_across_usernames(
        client: Client, alice: User, password: str) -> None:
    for n in range(PER_ADDRESS - 1):  # one failure each: no username reaches its limit
        assert log_in(client, f"user{n}", "wrong-password").status_code == 200
    assert_locked_out(log_in(client, "somebody", "wrong-password"))
    assert_locked_out(log_in(client, "alice", password))
    # alice herself is not locked: from another address she gets in.
    assert log_in(Client(), "alice", password, address="198.51.100.7").status_code == 302


def test_one_username_is_locked_out_across_addresses(
        client: Client, alice: User, bob: User, password: str) -> None:
    for n in range(PER_USERNAME - 1):
        assert log_in(client, "alice", "wrong-password", address=f"203.0.113.{n}").status_code \
            == 200
    assert_locked_out(log_in(client, "alice", "wrong-password", address="203.0.113.99"))
    assert_locked_out(log_in(Client(), "alice", password, address="192.0.2.1"))
    # Those addresses are not locked: bob logs in from the last one.
    assert log_in(Client(), "bob", password, address="203.0.113.99").status_code == 302


def test_an_ipv6_client_counts_as_its_64(client: Client, db: None) -> None:
    """Hopping between the addresses of one /64 (one subscriber's) gains nothing."""
    for n in range(1, PER_ADDRESS):
        response = log_in(client, f"user{n}", "wrong-password", address=f"2001:db8:0:7::{n:x}")
        assert response.status_code == 200
    assert_locked_out(log_in(client, "user0", "wrong-password", address="2001:db8:0:7:ab::1"))
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"2001:db8:0:7::"}
    assert log_in(client, "user0", "wrong-password", address="2001:db8:0:8::1").status_code == 200


def test_api_like_clients_get_json(client: Client, alice: User) -> None:
    for _ in range(PER_USERNAME):
        response = log_in(client, "alice", "wrong-password", HTTP_ACCEPT="application/json")
    assert response.status_code == 429 and response["Content-Type"] == "application/json"
    error = response.json()["error"]
    assert error["code"] == "locked_out" and "Too many failed log-in attempts" in error["message"]
    assert 0 < error["details"]["wait_seconds"] == int(response["Retry-After"])


def test_locked_out_through_asgi_as_under_daphne(alice: User, password: str) -> None:
    """The middleware's async path (axes passes its arguments differently there)."""
    client = AsyncClient()
    post = async_to_sync(client.post)
    for _ in range(PER_USERNAME):
        response = post(reverse("login"), {"username": "alice", "password": "wrong-password"})
    assert_locked_out(response)
    assert_locked_out(post(reverse("login"), {"username": "alice", "password": password}))


def test_lockouts_are_stored_in_the_database_and_need_no_cache(
        client: Client, alice: User, password: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def down(*args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("cache down")

    for method in ("get", "set", "add", "incr", "delete", "get_many", "set_many"):
        monkeypatch.setattr(caches["default"], method, down)
    for _ in range(PER_USERNAME):
        response = log_in(client, "alice", "wrong-password")
    assert_locked_out(response)
    attempt = AccessAttempt.objects.get()
    assert (attempt.username, attempt.ip_address, attempt.failures_since_start) == (
        "alice", ADDRESS, PER_USERNAME)
    assert log_in(client, "alice", password).status_code == 429


def test_an_admin_unlocks_with_axes_reset(client: Client, alice: User, password: str) -> None:
    for _ in range(PER_USERNAME):
        log_in(client, "alice", "wrong-password")
    assert log_in(client, "alice", password).status_code == 429
    call_command("axes_reset_username", "alice")
    assert log_in(client, "alice", password).status_code == 302


def test_an_admin_unlocks_in_the_admin(
        client: Client, alice: User, root: User, password: str) -> None:
    for _ in range(PER_USERNAME):
        log_in(client, "alice", "wrong-password")
    admin = Client()
    admin.force_login(root)
    url = reverse("admin:axes_accessattempt_changelist")
    listing = admin.get(url)
    assert listing.status_code == 200 and "alice" in listing.content.decode()
    attempt = AccessAttempt.objects.get()
    response = admin.post(url, {"action": "delete_selected", "_selected_action": [attempt.pk],
                                "post": "yes"})
    assert response.status_code == 302 and not AccessAttempt.objects.exists()
    assert log_in(client, "alice", password).status_code == 302


@pytest.mark.parametrize(
    ("proxies", "remote", "forwarded", "seen"),
    [
        (0, "192.0.2.1", "203.0.113.5", "192.0.2.1"),  # no proxy: the header is ignored
        (1, "10.0.0.2", "6.6.6.6, 203.0.113.5", "203.0.113.5"),  # nginx appended the last
        (2, "10.0.0.2", "6.6.6.6, 203.0.113.5, 10.0.0.3", "203.0.113.5"),
        (1, "10.0.0.2", "", "10.0.0.2"),  # no header: the peer
        (0, "2001:db8:1:2:aaaa::1", "", "2001:db8:1:2::"),  # IPv6: its /64
        (0, "::ffff:192.0.2.9", "", "192.0.2.9"),
        (0, "", "", None),
    ],
)
def test_the_client_address(settings: Any, proxies: int, remote: str, forwarded: str,
                            seen: str | None) -> None:
    settings.BRUTE_FORCE = {**settings.BRUTE_FORCE, "TRUSTED_PROXY_COUNT": proxies}
    request = RequestFactory().get("/", REMOTE_ADDR=remote, HTTP_X_FORWARDED_FOR=forwarded)
    assert throttle.client_ip(request) == seen


# ------------------------------------------------------------------ registration


def register(username: str, address: str = ADDRESS) -> Any:
    return Client().post(reverse("register"), {
        "username": username, "email": "", "password1": "Tr1cky-pass-99",
        "password2": "Tr1cky-pass-99"}, REMOTE_ADDR=address)


def test_registration_is_throttled_per_address(db: None) -> None:
    throttle.reset_registrations("198.51.100.7")  # a shared Redis outlives the test run
    for n in range(REGISTRATIONS):
        assert register(f"player{n}").status_code == 302
    response = register("one-too-many")
    assert response.status_code == 429
    text = response.content.decode()
    assert "Too many accounts were registered from your address" in text
    assert 'name="password1"' in text and 'value="one-too-many"' in text  # the form again
    assert 0 < int(response["Retry-After"]) <= 3600
    assert not User.objects.filter(username="one-too-many").exists()
    assert register("elsewhere", address="198.51.100.7").status_code == 302


def test_registration_stays_open_when_the_cache_is_down(
        db: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    def down(*args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("Error 111 connecting to redis:6379. Connection refused.")

    for method in ("get", "set", "add", "incr"):
        monkeypatch.setattr(caches["default"], method, down)
    monkeypatch.setattr(throttle.cache_down_warning, "last", float("-inf"))
    with caplog.at_level(logging.WARNING, logger="accounts.throttle"):
        for n in range(REGISTRATIONS + 2):
            assert register(f"player{n}").status_code == 302
    assert User.objects.count() == REGISTRATIONS + 2
    warnings = [r for r in caplog.records if r.name == "accounts.throttle"]
    assert len(warnings) == 1 and "cache is unreachable" in warnings[0].getMessage()
