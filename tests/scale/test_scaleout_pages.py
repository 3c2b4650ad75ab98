"""The real scale-out (bin/scaleout: 2 Daphne processes + the worker, production mode,
PostgreSQL + Redis) serves its pages: every main HTML page, the API docs, the admin
login and the static files they link answer 200 or 302 on both processes — never
500. In production mode WhiteNoise serves the hashed names from collectstatic's
manifest; without collectstatic every page that links a static file was a 500
("Missing staticfiles manifest entry")."""

from __future__ import annotations

import http.client
import os
import re
import socket
import subprocess
import time
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from tests.conftest import PASSWORD
from tests.scale.ports import free_port_base

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]
SCALEOUT = ROOT / "bin" / "scaleout"


def database_url() -> str:
    from django.db import connection

    s = connection.settings_dict
    password = f":{s['PASSWORD']}" if s.get("PASSWORD") else ""
    return (f"postgres://{s['USER']}{password}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}"
            f"/{s['NAME']}")


class Browser:
    """Plain HTTP to one process, redirects not followed, cookies kept by hand (the
    production cookies are ``Secure``, which a cookie jar would not send over http)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookies: dict[str, str] = {}

    def request(self, path: str, method: str = "GET",
                form: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = {"Host": f"127.0.0.1:{self.port}"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if form is not None:
            body = urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read()
            for value in response.headers.get_all("Set-Cookie") or []:
                for name, morsel in SimpleCookie(value).items():
                    self.cookies[name] = morsel.value
            return (response.status, {k.lower(): v for k, v in response.getheaders()},
                    data.decode("utf-8", "replace"))
        finally:
            connection.close()

    def log_in(self, username: str, password: str) -> int:
        status, _headers, html = self.request("/accounts/login/")
        assert status == 200, html[:500]
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
        assert token, "the login form has a CSRF token"
        status, _headers, _ = self.request("/accounts/login/", "POST", {
            "username": username, "password": password,
            "csrfmiddlewaretoken": token.group(1)})
        return status


def test_the_scaleout_serves_every_page(tmp_path: Path, alice: Any, settings: Any) -> None:
    from tables.services import create_table

    redis_url = os.environ.get("REDIS_URL")
    if not redis_url:
        pytest.fail("this test needs Redis: run it with REDIS_URL=redis://... (bin/test does)")
    # The servers hash passwords with the production hashers (the tests' MD5 is not one).
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    alice.set_password(PASSWORD)
    alice.save()
    table = create_table(creator=alice, name="Pages", settings={
        "structure": "NL", "small_blind": 1, "big_blind": 2, "seats": 6})
    base = free_port_base(3)
    acpc_port = base + 3  # the ACPC listener's port (docs/acpc.md)
    env = {k: v for k, v in os.environ.items()
           if k not in ("DJANGO_DEBUG", "DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS")}
    env.update({"DATABASE_URL": database_url(), "REDIS_URL": redis_url,
                "SCALEOUT_DIR": str(tmp_path / "run"),
                # An empty STATIC_ROOT of its own: bin/scaleout must collect into it.
                "DJANGO_STATIC_ROOT": str(tmp_path / "static"),
                "PROCESSES": "2", "WORKERS": "1", "PORT_BASE": str(base), "MIGRATE": "0",
                "ACPC_PORT": str(acpc_port), "CHANNELS_PREFIX": f"pages{os.getpid()}"})
    statuses: dict[str, int] = {}
    try:
        started = subprocess.run(["bash", str(SCALEOUT), "start"], env=env, cwd=ROOT,
                                 capture_output=True, text=True, timeout=180)
        assert started.returncode == 0, started.stdout + started.stderr
        for _ in range(100):  # the ACPC listener takes connections too
            try:
                socket.create_connection(("127.0.0.1", acpc_port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("bin/scaleout did not start the ACPC listener")
        for port in (base + 1, base + 2):
            browser = Browser(port)
            status, _headers, home = browser.request("/")
            statuses[f"{port} /"] = status
            assert status == 200, f"the home page answered {status}"
            linked = set(re.findall(r'(?:href|src)="(/static/[^"]+)"', home))
            assert linked, "the home page links its stylesheet and scripts"
            paths = ["/accounts/login/", "/accounts/register/", "/lobby/",
                     f"/tables/{table.pk}/", "/api/v1/docs/", "/admin/login/",
                     "/api/v1/schema/", *sorted(linked)]
            for path in paths:
                status, _headers, html = browser.request(path)
                statuses[f"{port} {path}"] = status
                if path == "/api/v1/docs/":  # Swagger UI's own files, from the sidecar
                    paths += sorted(set(re.findall(r'(?:href|src)="(/static/[^"]+)"', html)))
            assert browser.log_in("alice", PASSWORD) == 302, "logging in redirects"
            linked = set()
            for path in ("/lobby/", f"/tables/{table.pk}/", "/account/",
                         f"/tables/{table.pk}/hands/"):
                status, _headers, html = browser.request(path)
                statuses[f"{port} {path} (alice)"] = status
                linked |= set(re.findall(r'(?:href|src)="(/static/[^"]+)"', html))
            for path in sorted(linked):  # the table page's modules, the lobby's scripts
                status, _headers, _html = browser.request(path)
                statuses.setdefault(f"{port} {path}", status)
    finally:
        stopped = subprocess.run(["bash", str(SCALEOUT), "stop"], env=env, cwd=ROOT,
                                 capture_output=True, text=True, timeout=60)
        logs = "".join(p.read_text(errors="replace")[-2000:]
                       for p in sorted((tmp_path / "run").glob("daphne-*.log")))
    print({k: v for k, v in statuses.items()})
    # Two Daphne processes, the table worker and the ACPC listener.
    assert "stopped 4 processes" in stopped.stdout, stopped.stdout + stopped.stderr
    failing = {path: status for path, status in statuses.items() if status not in (200, 302)}
    assert not failing, f"{failing}\n{logs}"
    assert sum(1 for k in statuses if "/static/" in k) >= 6  # the linked files, both processes
    assert all(v == 200 for k, v in statuses.items() if "(alice)" in k)
    assert len(statuses) >= 30
