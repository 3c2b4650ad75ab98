"""Fault injection for the load generator: find and SIGKILL the Daphne of a port.

``bench/load.py --kill-after S --kill-port P`` kills the process listening on
127.0.0.1:P after S seconds of the measured window. The process is the one
``bin/scaleout`` recorded in ``<scaleout dir>/daphne-P.pid`` if that pid really
listens on P; otherwise the listener is looked up in ``/proc/net/tcp{,6}`` (the
socket's inode) and ``/proc/*/fd`` (who holds it), then with ``ss -ltnp``. Only a
process whose command line names ``daphne`` is ever killed.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

LISTEN = "0A"  # TCP state in /proc/net/tcp


def _listening_inodes(port: int) -> set[str]:
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == LISTEN and int(local.rsplit(":", 1)[1], 16) == port and inode != "0":
                inodes.add(inode)
    return inodes


def _holds(pid: int, inodes: set[str]) -> bool:
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:[") and target[8:-1] in inodes:
            return True
    return False


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def listener_pid(port: int, scaleout_dir: Path | None = None) -> int | None:
    """The pid of the process listening on ``port`` (bin/scaleout's pid file first)."""
    inodes = _listening_inodes(port)
    if scaleout_dir is not None:
        pidfile = scaleout_dir / f"daphne-{port}.pid"
        try:
            pid = int(pidfile.read_text().strip())
        except (OSError, ValueError):
            pid = 0
        if pid and (_holds(pid, inodes) or (not inodes and Path(f"/proc/{pid}").exists())):
            return pid
    if inodes:
        for entry in os.listdir("/proc"):
            if entry.isdigit() and _holds(int(entry), inodes):
                return int(entry)
    try:  # e.g. another user's process whose fds we may not read
        out = subprocess.run(["ss", "-ltnpH", f"sport = :{port}"], capture_output=True,
                             text=True, timeout=5, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.search(r"pid=(\d+)", out)
    return int(found.group(1)) if found else None


def find_daphne(port: int, scaleout_dir: Path | None = None) -> tuple[int | None, str]:
    """The Daphne listening on ``port``: (pid, "") or (None, why not)."""
    pid = listener_pid(port, scaleout_dir)
    if pid is None:
        return None, f"no process listens on port {port}"
    if not any(name in _cmdline(pid) for name in ("daphne", "pokersite.serve")):
        return None, f"pid {pid} on port {port} is not a Daphne: {_cmdline(pid)[:80]!r}"
    return pid, ""


def kill(pid: int) -> str:
    """SIGKILL ``pid``: "" or why it failed."""
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError as exc:
        return f"kill {pid}: {exc}"
    return ""


class LeaseWatch:
    """Server-side takeover times (live tables, docs/scale.md): which tables the
    killed process owned (its ownership leases in Redis name its pid) and, polled
    every 50 ms after the kill, when another process took each lease over — the
    moment from which the new owner loads and resumes the table."""

    def __init__(self, redis_url: str, prefix: str, table_ids: list[int]) -> None:
        import redis

        self.client = redis.Redis.from_url(redis_url)
        self.keys = {t: f"{prefix}:owner:{t}" for t in table_ids}
        self.affected: list[int] = []
        self.taken: dict[int, float] = {}  # table -> seconds after the kill
        self.thread: threading.Thread | None = None
        self.stop = threading.Event()

    def before_kill(self, pid: int) -> None:
        ids = list(self.keys)
        leases = self.client.mget([self.keys[t] for t in ids])
        mark = f".{pid}."
        self.affected = [t for t, lease in zip(ids, leases, strict=True)
                         if lease and mark in lease.decode()]
        self.mark = mark

    def after_kill(self, killed_at: float, limit: float = 30.0) -> None:
        def poll() -> None:
            waiting = list(self.affected)
            while waiting and not self.stop.is_set() and time.time() - killed_at < limit:
                leases = self.client.mget([self.keys[t] for t in waiting])
                now = time.time()
                for table, lease in zip(list(waiting), leases, strict=True):
                    if lease and self.mark not in lease.decode():
                        self.taken[table] = round(now - killed_at, 3)
                        waiting.remove(table)
                time.sleep(0.05)
        self.thread = threading.Thread(target=poll, daemon=True)
        self.thread.start()

    def report(self) -> dict[str, object]:
        self.stop.set()
        if self.thread is not None:
            self.thread.join(timeout=5)
        times = sorted(self.taken.values())

        def at(q: float) -> float | None:
            return times[min(len(times) - 1, int(q * len(times)))] if times else None
        return {"leases_affected": len(self.affected), "leases_taken": len(times),
                "lease_takeover_p50_s": at(0.5), "lease_takeover_max_s": at(1.0)}
