"""A short load run against the scale-out configuration (bin/scaleout: 2 Daphne
processes + the worker on PostgreSQL + Redis): bench/load.py plays 30 heads-up
tables for 30 s and must finish clean — no protocol error, no hole-card leak, no
chip lost (snapshots and the database), no stuck table, no dropped connection,
and hands actually played. Timings are reported, never asserted."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]


def free_port_pair() -> int:
    """A base port B with B+1 and B+2 free (bin/scaleout listens on those)."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            base = int(probe.getsockname()[1]) - 1
        try:
            for port in (base + 1, base + 2):
                with socket.socket() as sock:
                    sock.bind(("127.0.0.1", port))
        except OSError:
            continue
        return base
    raise AssertionError("no two free consecutive ports")


def database_url() -> str:
    from django.db import connection

    s = connection.settings_dict
    password = f":{s['PASSWORD']}" if s.get("PASSWORD") else ""
    return (f"postgres://{s['USER']}{password}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}"
            f"/{s['NAME']}")


def test_short_load_run_is_clean(tmp_path: Path) -> None:
    redis_url = os.environ.get("REDIS_URL")
    if not redis_url:
        pytest.fail("this test needs Redis: run it with REDIS_URL=redis://... (bin/test does)")
    env = {**os.environ, "DATABASE_URL": database_url(), "REDIS_URL": redis_url,
           "SCALEOUT_DIR": str(tmp_path), "PROCESSES": "2", "WORKERS": "1",
           "PORT_BASE": str(free_port_pair()), "MIGRATE": "0",
           "CHANNELS_PREFIX": f"scale{os.getpid()}"}
    report_file = tmp_path / "report.json"
    try:
        started = subprocess.run(["bash", str(ROOT / "bin" / "scaleout"), "start"], env=env,
                                 cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert started.returncode == 0, started.stderr
        run = subprocess.run(
            [sys.executable, str(ROOT / "bench" / "load.py"), "--tables", "30", "--seats", "2",
             "--duration", "30", "--spectate-every", "3", "--timeout-fraction", "0.03",
             "--scaleout-dir", str(tmp_path), "--prefix", "short", "--json", str(report_file)],
            env=env, cwd=ROOT, capture_output=True, text=True, timeout=150)
    finally:
        subprocess.run(["bash", str(ROOT / "bin" / "scaleout"), "stop"], env=env, cwd=ROOT,
                       capture_output=True, timeout=60)
    print(run.stdout)
    assert report_file.exists(), run.stderr
    report: dict[str, Any] = json.loads(report_file.read_text())
    correctness, clients = report["correctness"], report["clients"]
    assert correctness["errors"] == {}
    assert correctness["leaks"] == 0, correctness["leak_examples"]
    assert correctness["chip_violations"] == 0, correctness["chip_examples"]
    assert correctness["snapshots_checked"] >= 10
    assert correctness["database"]["chips_conserved"], correctness["database"]
    assert correctness["stuck_count"] == 0, correctness["stuck_tables"]
    assert clients["disconnects"] == 0 and clients["connect_failures"] == 0
    assert clients["connected_at_end"] == clients["planned"] == 70
    assert report["throughput"]["actions_per_s"] > 5
    assert report["throughput"]["tables_with_hands"] == 30
    assert correctness["database"]["hands_finished"] > 30
    assert report["latency_ms"]["timer_samples"] > 0
    assert run.returncode == 0, run.stdout + run.stderr
