"""Browser tests: a real Daphne on a free port, Debian's Chromium driven by Playwright.

Run once, in the SQLite pass of ``bin/test`` (marker ``browser``). A missing
Chromium is a failure, never a skip. Screenshots go to ``artifacts/screenshots/``.

Every page opened through ``open_page`` records Content-Security-Policy violations
(``securitypolicyviolation`` events, and console errors naming the policy); after each
test :func:`csp_guard` fails it if there was any, so the whole suite shows that every
page it opens runs under the policy (docs/security.md).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SHOTS = ROOT / "artifacts" / "screenshots"
PASSWORD = "Browser-test-pw-1"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync",
                 "--disable-quic"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: drives Chromium against a live server")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """Daphne (with the in-process table worker) on a temporary SQLite file."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="poker-browser-"))
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {k: v for k, v in os.environ.items()
                    if k not in ("DATABASE_URL", "REDIS_URL")}
        self.env.update({
            "DATABASE_URL": f"sqlite:///{self.dir / 'db.sqlite3'}",
            "DJANGO_DEBUG": "1", "HOUSE_BOT_DELAY": "0.3", "TABLES_SHOWDOWN_SECONDS": "3",
            "DJANGO_STATIC_ROOT": str(self.dir / "static"), "PYTHONUNBUFFERED": "1",
            "TABLES_WORKER_IN_PROCESS": "1",
        })
        self.process: subprocess.Popen[bytes] | None = None
        self.log = open(self.dir / "daphne.log", "wb")  # noqa: SIM115

    def manage(self, *args: str) -> None:
        subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, check=True,
                       stdout=subprocess.DEVNULL)

    def python(self, code: str) -> Any:
        """Run Django code against the server's database; returns the JSON it prints."""
        script = ("import os, sys, json, django; sys.path.insert(0, os.getcwd()); "
                  "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'pokersite.settings'); "
                  "django.setup()\n" + code)
        out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=self.env, check=True,
                             capture_output=True, text=True).stdout
        return json.loads(out.strip().splitlines()[-1]) if out.strip() else None

    def command(self) -> list[str]:
        """What runs the server (Daphne on this server's port)."""
        return [sys.executable, "-m", "pokersite.serve", "-b", "127.0.0.1", "-p", str(self.port),
                "pokersite.asgi:application"]

    def start(self) -> None:
        self.process = subprocess.Popen(self.command(), cwd=ROOT, env=self.env,
                                        stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"daphne exited; see {self.dir / 'daphne.log'}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("daphne did not start")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)
        self.process = None


def serving(srv: Server) -> Iterator[Server]:
    """Migrate and seed ``srv``'s database, run it, and remove it all afterwards."""
    srv.manage("migrate", "--noinput", "-v0")
    subprocess.run([sys.executable, str(Path(__file__).with_name("seed.py"))], cwd=ROOT,
                   env=srv.env, check=True, stdout=subprocess.DEVNULL)
    srv.start()
    yield srv
    srv.stop()
    srv.log.close()
    shutil.rmtree(srv.dir, ignore_errors=True)


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    yield from serving(Server())


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is missing at {CHROMIUM}: install Debian's chromium "
                    "(bin/test does so).")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Offsite:
    """Every request that would leave 127.0.0.1 is refused and remembered."""

    def __init__(self) -> None:
        self.urls: list[str] = []

    def route(self, route: Any) -> None:
        url = route.request.url
        host = urlparse(url).hostname
        if url.startswith(("data:", "blob:", "about:")) or host in ("127.0.0.1",):
            route.continue_()
        else:
            self.urls.append(url)
            route.abort()

    def websocket(self, ws: Any) -> None:
        if urlparse(ws.url).hostname != "127.0.0.1":
            self.urls.append(ws.url)


@pytest.fixture
def offsite() -> Iterator[Offsite]:
    guard = Offsite()
    yield guard
    assert guard.urls == [], f"requests left 127.0.0.1: {guard.urls}"


# Runs before any script of every document (and frame) of a context: records each
# violation on the page (window.__cspViolations, for the current document) and reports it
# to the test at once (the binding), so a violation survives the page navigating away.
CSP_RECORDER = """
(() => {
  const seen = [];
  Object.defineProperty(window, "__cspViolations", { value: seen });
  window.addEventListener("securitypolicyviolation", (e) => {
    const v = {
      id: `${performance.timeOrigin}:${seen.length}`, page: location.href,
      directive: e.effectiveDirective || e.violatedDirective, blocked: e.blockedURI,
      source: e.sourceFile, line: e.lineNumber, sample: e.sample,
    };
    seen.push(v);
    if (typeof window.__reportCspViolation === "function") window.__reportCspViolation(v);
  }, true);
})();
"""


class CspGuard:
    """Content-Security-Policy violations seen by any page of the test's contexts."""

    def __init__(self) -> None:
        self.violations: dict[str, dict[str, Any]] = {}
        self.pages: list[Any] = []
        self._console = 0

    def _record(self, violation: dict[str, Any]) -> None:
        self.violations.setdefault(str(violation.get("id")), violation)

    def _console_message(self, page: Any, message: Any) -> None:
        if message.type == "error" and "content security policy" in message.text.lower():
            self._console += 1
            self._record({"id": f"console:{self._console}", "page": page.url,
                          "console": message.text})

    def watch_context(self, context: Any) -> None:
        context.add_init_script(CSP_RECORDER)
        context.expose_binding("__reportCspViolation",
                               lambda _source, violation: self._record(violation))
        context.on("page", self.watch_page)

    def watch_page(self, page: Any) -> None:
        if page in self.pages:
            return
        self.pages.append(page)
        page.on("console", lambda message: self._console_message(page, message))

    def flush(self) -> None:
        """Collect what the open pages recorded and was not reported yet."""
        for page in self.pages:
            if page.is_closed():
                continue
            try:
                for violation in page.evaluate("() => window.__cspViolations || []"):
                    self._record(violation)
            except Exception:  # a page that is gone or navigating
                pass

    def take(self) -> list[dict[str, Any]]:
        """The violations so far, forgotten (for a test that causes some on purpose)."""
        self.flush()
        found = list(self.violations.values())
        self.violations.clear()
        return found


@pytest.fixture(autouse=True)
def csp_guard() -> Iterator[CspGuard]:
    """Fails the test when a page it opened violated the Content-Security-Policy."""
    guard = CspGuard()
    yield guard
    guard.flush()  # open_page flushes before closing its contexts; this is the rest
    if guard.violations:
        pytest.fail("Content-Security-Policy violations:\n" + "\n".join(
            json.dumps(v, sort_keys=True) for v in guard.violations.values()))


@contextlib.contextmanager
def page_opener(browser: Any, base_url: str, offsite: Offsite,
                csp_guard: CspGuard) -> Iterator[Callable[..., Any]]:
    """``make(username=None, width=1440, height=900, touch=False)``: a page in a new
    browser context on ``base_url`` (offsite requests refused, the CSP watched, its
    JavaScript errors kept in ``page.js_errors``), logged in if a name is given. The
    contexts close when the block ends."""
    contexts = []

    def make(username: str | None = None, width: int = 1440, height: int = 900,
             touch: bool = False) -> Any:
        context = browser.new_context(viewport={"width": width, "height": height},
                                      base_url=base_url, has_touch=touch, is_mobile=touch)
        context.set_default_timeout(15000)
        context.route("**/*", offsite.route)
        csp_guard.watch_context(context)
        contexts.append(context)
        page = context.new_page()
        csp_guard.watch_page(page)
        page.on("websocket", offsite.websocket)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.js_errors = errors  # type: ignore[attr-defined]
        if username:
            page.goto("/accounts/login/")
            page.fill("input[name=username]", username)
            page.fill("input[name=password]", PASSWORD)
            with page.expect_navigation():
                page.click("form button[type=submit]")
        return page

    try:
        yield make
    finally:
        csp_guard.flush()
        for context in contexts:
            context.close()


@pytest.fixture
def open_page(server: Server, browser: Any, offsite: Offsite,
              csp_guard: CspGuard) -> Iterator[Callable[..., Any]]:
    """``open_page(username=None, width=1440, height=900, touch=False)``: see
    :func:`page_opener`."""
    with page_opener(browser, server.url, offsite, csp_guard) as make:
        yield make


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))
