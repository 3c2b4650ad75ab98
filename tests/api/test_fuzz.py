"""Schemathesis against our own OpenAPI schema, in process (WSGI): no request may
give a 5xx, authenticated as a bot (bearer token) and as a browser session."""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from django.test import Client
from hypothesis import HealthCheck, Phase, given, settings

from tests.tables.helpers import sit

pytestmark = pytest.mark.django_db
EXAMPLES = 25


def test_no_server_errors(settings_fixture: Any, bob: Any, alice: Any, skynet: Any,
                          table: Any) -> None:
    sit(table, alice, 0)
    browser = Client()
    browser.force_login(bob)
    identities = {
        "bot": {"Authorization": f"Bearer {skynet[1]}"},
        "session": {"sessionid": browser.cookies["sessionid"].value},
    }
    schema = schemathesis.openapi.from_wsgi("/api/v1/schema/", get_wsgi_application())
    calls: dict[str, int] = {}
    failures: list[str] = []
    for result in schema.get_all_operations():
        operation = result.ok()
        for identity, headers in identities.items():
            fuzz(operation, identity, headers, calls, failures)
    print(f"\nschemathesis: {calls}")
    assert not failures, "\n".join(failures[:20])
    assert calls["bot"] > 100 and calls["session"] > 100
    assert calls.get("bot 200", 0) > 10 and calls.get("session 200", 0) > 10


def fuzz(operation: Any, identity: str, headers: dict[str, str], calls: dict[str, int],
         failures: list[str]) -> None:
    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate])
    @given(case=operation.as_strategy())
    def check(case: Any) -> None:
        if identity == "session":  # the cookie, not a generated one (cookieAuth scheme)
            case.cookies = dict(headers)
            response = case.call()
        else:
            case.cookies = {}
            response = case.call(headers=headers)
        calls[identity] = calls.get(identity, 0) + 1
        key = f"{identity} {response.status_code}"
        calls[key] = calls.get(key, 0) + 1
        if response.status_code >= 500:
            failures.append(f"{case.method} {case.formatted_path} "
                            f"{response.status_code}: {response.text[:300]}")

    check()


@pytest.fixture
def settings_fixture(settings: Any) -> Any:
    """Short long-polls; and, as Django's test client does, requests do not close the
    database connection (it holds the test's transaction: on PostgreSQL closing it
    would end the test)."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    settings.API = {"LONG_POLL_MAX_SECONDS": 0.05}
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield settings
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)
