"""The site as a whole: the landing page, production settings, static files under Daphne."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

ROOT = Path(__file__).resolve().parent.parent
PRODUCTION_ENV = {
    "DJANGO_DEBUG": "0",
    "DJANGO_SECRET_KEY": "test-only-" + "k3y" * 20,
    "DJANGO_ALLOWED_HOSTS": "poker.example.com",
}


def production_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    return {**env, **PRODUCTION_ENV, **extra}


def test_landing_page_links_to_lobby_and_login(client: Client, db: None) -> None:
    response = client.get("/")
    html = response.content.decode()
    assert response.status_code == 200
    for href in ("/lobby/", reverse("login"), reverse("register"), "/static/css/site.css"):
        assert f'href="{href}"' in html, href
    assert "fonts.googleapis" not in html and "cdn" not in html.lower()


def test_navigation_depends_on_role(client: Client, alice, root) -> None:  # type: ignore[no-untyped-def]
    client.force_login(alice)
    html = client.get("/").content.decode()
    assert "My account" in html and "Log out" in html and 'href="/admin/"' not in html
    assert 'method="post" action="/accounts/logout/"' in html
    client.force_login(root)
    assert 'href="/admin/"' in client.get("/").content.decode()


def test_check_deploy_is_clean_in_production_settings() -> None:
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "DEBUG"],
        cwd=ROOT,
        env=production_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout, result.stdout + result.stderr


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _get(url: str) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"Host": "poker.example.com"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.status, response.read()


def test_static_files_under_daphne_with_debug_off(tmp_path: Path) -> None:
    """collectstatic + whitenoise: what bin/serve does, in production mode."""
    env = production_env(
        DJANGO_STATIC_ROOT=str(tmp_path / "static"),
        DJANGO_SECURE_SSL_REDIRECT="0",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        REDIS_URL="",
    )
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=60,
    )
    port = _free_port()
    server = subprocess.Popen(  # as bin/serve starts it: Daphne on uvloop (pokersite/serve.py)
        [sys.executable, "-m", "pokersite.serve", "-b", "127.0.0.1", "-p", str(port),
         "pokersite.asgi:application"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                status, body = _get(f"http://127.0.0.1:{port}/")
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    server.kill()
                    pytest.fail(f"daphne did not answer:\n{server.communicate()[0].decode()}")
                time.sleep(0.2)
        assert status == 200
        css = re.search(rb'href="(/static/css/site\.[0-9a-f]+\.css)"', body)
        assert css, "the stylesheet URL should be the hashed name from the manifest"
        status, stylesheet = _get(f"http://127.0.0.1:{port}{css.group(1).decode()}")
        assert status == 200 and b"--felt" in stylesheet
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_each_test_process_keeps_its_redis_keys_apart() -> None:
    """Workers share one Redis: the cache and the channel layer use this process's prefix
    (tests/conftest.py), so no worker resets another's counters or hears its groups."""
    from django.conf import settings
    from django.core.cache import caches

    from tests.conftest import TEST_PREFIX

    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    assert TEST_PREFIX.endswith(f"-test-{worker}") and os.environ["CHANNELS_PREFIX"] == TEST_PREFIX
    if "KEY_PREFIX" in settings.CACHES["default"]:
        assert caches["default"].key_prefix == TEST_PREFIX
    config = settings.CHANNEL_LAYERS["default"].get("CONFIG", {})
    if "prefix" in config:
        assert config["prefix"] == TEST_PREFIX
