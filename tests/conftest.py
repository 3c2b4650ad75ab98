"""Shared fixtures for the Django tests: personas and test-only settings.

Personas (as in healthchecks' tests): alice is a player, bob a tester, root a
superuser; anonymous is simply the unauthenticated client.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

# Test processes (pytest-xdist workers) share the Redis server with each other and
# with any server running on the machine: each keeps its cache keys (throttle
# counters, presence), channel-layer names and ownership leases under a prefix of
# its own, so that nothing a test sends (a revoked token's broadcast...) reaches
# another's connections and no test resets another's counter. The base is
# remembered in CHANNELS_PREFIX_BASE: workers inherit the controller's environment.
_BASE = os.environ.setdefault("CHANNELS_PREFIX_BASE", os.environ.get("CHANNELS_PREFIX", "poker"))
TEST_PREFIX = f"{_BASE}-test-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
os.environ["CHANNELS_PREFIX"] = TEST_PREFIX  # tables/owner.py, and servers a test starts


def _prefix_loaded_settings() -> None:
    """pytest-django loads the settings before this file: give them the prefix too.

    The cache and the channel layer are built on first use, which comes later.
    """
    import sys

    if "django.conf" not in sys.modules:  # -p no:django (tests/engine)
        return
    from django.conf import settings

    if not settings.configured:
        return
    for layer in settings.CHANNEL_LAYERS.values():
        if "prefix" in layer.get("CONFIG", {}):
            layer["CONFIG"]["prefix"] = TEST_PREFIX
    for cache in settings.CACHES.values():
        if "KEY_PREFIX" in cache:
            cache["KEY_PREFIX"] = TEST_PREFIX


_prefix_loaded_settings()

if TYPE_CHECKING:  # Django models are imported lazily: tests/engine runs without Django.
    from pytest_django.fixtures import Settings as SettingsWrapper

    from accounts.models import User


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    """pytest-django's test database; at the end, the sessions still open on it
    (connections of the test process's other threads, servers a test started and
    killed) are ended, so that dropping it does not fail with "being accessed by other
    users" (a warning at teardown, and a database left behind)."""
    yield
    with django_db_blocker.unblock():
        from django.db import connection

        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                               "WHERE datname = current_database() "
                               "AND pid <> pg_backend_pid()")
            connection.close()


@pytest.fixture(autouse=True)
def _require_postgres(request: pytest.FixtureRequest) -> None:
    """A test marked ``postgres`` fails loudly (never skips) on another database."""
    if request.node.get_closest_marker("postgres") is None:
        return
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.fail("this test needs PostgreSQL: run it with DATABASE_URL=postgres://...")


@pytest.fixture(autouse=True)
def _fast_password_hasher(request: pytest.FixtureRequest) -> None:
    """MD5 makes creating and logging in users instant; tests only, never production.

    Skipped when pytest-django is off (``-p no:django`` for tests/engine).
    """
    if not request.config.pluginmanager.hasplugin("django"):
        return
    settings: SettingsWrapper = request.getfixturevalue("settings")
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


TEST_CLIENT_ADDRESS = "127.0.0.1"  # REMOTE_ADDR of Django's test client


@pytest.fixture(autouse=True)
def _brute_force_protection_in_tests(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Brute-force protection stays on in tests (docs/security.md); two adjustments.

    * ``client.login(...)`` passes a request: Django's test client calls
      ``authenticate()`` without one, which django-axes' backend refuses
      (``AxesBackendRequestParameterRequired``). Failed logins are then counted like
      real ones, from the test client's address (the database is rolled back after
      each test, so are they). ``force_login`` never authenticates: unchanged.
    * The registration count of that address lives in the cache, which outlives a
      test: it is forgotten before each one (only that key, never a cache flush).
    """
    if not request.config.pluginmanager.hasplugin("django"):
        return
    from django.http import HttpRequest
    from django.test.client import ClientMixin

    from accounts.throttle import reset_registrations

    def with_request(credentials: dict[str, object]) -> dict[str, object]:
        if "request" not in credentials:
            http_request = HttpRequest()
            http_request.META["REMOTE_ADDR"] = TEST_CLIENT_ADDRESS
            credentials = {"request": http_request, **credentials}
        return credentials

    login, alogin = ClientMixin.login, ClientMixin.alogin

    def login_with_request(self: ClientMixin, **credentials: object) -> bool:
        return login(self, **with_request(credentials))

    async def alogin_with_request(self: ClientMixin, **credentials: object) -> bool:
        return await alogin(self, **with_request(credentials))

    monkeypatch.setattr(ClientMixin, "login", login_with_request)
    monkeypatch.setattr(ClientMixin, "alogin", alogin_with_request)
    reset_registrations(TEST_CLIENT_ADDRESS)


PASSWORD = "correct-horse-battery-42"


def _make_user(username: str, role: int) -> User:
    from accounts.models import Player, PlayerKind, User

    user = User.objects.create_user(username, f"{username}@example.com", PASSWORD, role=role)
    Player.objects.create(owner=user, name=username, kind=PlayerKind.HUMAN)
    return user


@pytest.fixture
def alice(db: None) -> User:
    """A player-role user with one human player named alice."""
    from accounts.models import Role

    return _make_user("alice", Role.PLAYER)


@pytest.fixture
def bob(db: None) -> User:
    """A tester with one human player named bob."""
    from accounts.models import Role

    return _make_user("bob", Role.TESTER)


@pytest.fixture
def root(db: None) -> User:
    """A superuser with one human player named root."""
    from accounts.models import Role

    return _make_user("root", Role.SUPERUSER)


@pytest.fixture
def password() -> str:
    return PASSWORD


# The toy game of the contract tests (tests/games/kuhn.py): its one registry entry.
from engine.registry import register  # noqa: E402
from tests.games.kuhn import KuhnGame  # noqa: E402
from tests.games.tictactoe import TicTacToe  # noqa: E402

register(KuhnGame())
register(TicTacToe())
