"""CPU and memory of the server processes, from /proc (Linux only).

The server processes are the pids ``bin/scaleout`` wrote to ``var/scaleout/*.pid``;
PostgreSQL and Redis are found by name and summed per program. Every other
process that used CPU during the run is reported too ("what else was running").
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

TICK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(command name, CPU ticks user+system, resident bytes)."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    name = raw[raw.index("(") + 1:raw.rindex(")")]
    fields = raw[raw.rindex(")") + 2:].split()
    return name, int(fields[11]) + int(fields[12]), int(fields[21]) * PAGE


def _all() -> dict[int, tuple[str, int, int]]:
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (found := _stat(int(entry))) is not None:
            out[int(entry)] = found
    return out


def server_pids(directory: Path) -> dict[int, str]:
    """pid -> label (daphne-8001, worker-1) from bin/scaleout's pid files."""
    out = {}
    for pidfile in sorted(directory.glob("*.pid")):
        try:
            out[int(pidfile.read_text().strip())] = pidfile.stem
        except ValueError:
            continue
    return out


class Sampler:
    """Call :meth:`sample` now and then; :meth:`report` gives CPU % and peak RSS per label."""

    def __init__(self, servers: dict[int, str], generators: dict[int, str]) -> None:
        self.labels = {**servers, **generators}
        self.first: dict[int, tuple[str, int, int]] | None = None
        self.last: dict[int, tuple[str, int, int]] = {}
        self.peak: dict[str, int] = {}
        self.t0 = self.t1 = 0.0

    def label(self, pid: int, name: str) -> str:
        if pid in self.labels:
            return self.labels[pid]
        if name.startswith("postgres") or name == "postmaster":
            return "postgresql (all)"
        if name.startswith("redis"):
            return "redis"
        return f"other: {name}"

    def sample(self, at: float) -> None:
        now = _all()
        if self.first is None:
            self.first, self.t0 = now, at
        # A process that died (e.g. the Daphne --kill-port killed) keeps its last figures.
        self.last, self.t1 = {**self.last, **now}, at
        rss: dict[str, int] = {}
        for pid, (name, _, resident) in now.items():
            label = self.label(pid, name)
            rss[label] = rss.get(label, 0) + resident
        for label, resident in rss.items():
            self.peak[label] = max(self.peak.get(label, 0), resident)

    def report(self, others: int = 5) -> dict[str, Any]:
        if self.first is None or self.t1 <= self.t0:
            return {"processes": {}, "others": {}}
        seconds = self.t1 - self.t0
        cpu: dict[str, float] = {}
        for pid, (name, ticks, _) in self.last.items():
            before = self.first.get(pid)
            used = ticks - (before[1] if before and before[0] == name else 0)
            label = self.label(pid, name)
            cpu[label] = cpu.get(label, 0.0) + used / TICK / seconds * 100
        ours = {label: {"cpu_percent": round(cpu.get(label, 0.0), 1),
                        "rss_mb": round(self.peak.get(label, 0) / 2**20, 1)}
                for label in sorted(set(self.labels.values()) | {"postgresql (all)", "redis"})}
        rest = sorted(((v, k) for k, v in cpu.items() if k.startswith("other:")), reverse=True)
        return {"processes": ours,
                "others": {k: round(v, 1) for v, k in rest[:others] if v >= 1.0}}
