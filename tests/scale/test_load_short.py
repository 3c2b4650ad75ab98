"""A short load run against the scale-out configuration (bin/scaleout: 2 Daphne
processes + the worker on PostgreSQL + Redis, live tables owned by one process
each): bench/load.py plays 30 heads-up tables for 30 s, every table's clients
spread over both processes (so commands are forwarded to the owner and events
relayed back), and must finish clean — no protocol error, no hole-card leak, no
chip lost (snapshots and the database), no stuck table, no dropped connection,
and hands actually played. Then a run where one Daphne process is killed (kill -9)
mid-run: its tables are taken over within the lease time and every client resyncs.
Timings are reported, never asserted (the takeover bound is the lease: seconds)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.scale.ports import free_port_base

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]


def database_url() -> str:
    from django.db import connection

    s = connection.settings_dict
    password = f":{s['PASSWORD']}" if s.get("PASSWORD") else ""
    return (f"postgres://{s['USER']}{password}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}"
            f"/{s['NAME']}")


def load_run(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str],
                                                 dict[str, Any]]:
    """bin/scaleout on free ports against the test database, then bench/load.py."""
    redis_url = os.environ.get("REDIS_URL")
    if not redis_url:
        pytest.fail("this test needs Redis: run it with REDIS_URL=redis://... (bin/test does)")
    env = {**os.environ, "DATABASE_URL": database_url(), "REDIS_URL": redis_url,
           "SCALEOUT_DIR": str(tmp_path), "PROCESSES": "2", "WORKERS": "1",
           "PORT_BASE": str(free_port_base()), "MIGRATE": "0", "ACPC_PORT": "0",
           "CHANNELS_PREFIX": f"scale{os.getpid()}"}
    report_file = tmp_path / "report.json"
    try:
        started = subprocess.run(["bash", str(ROOT / "bin" / "scaleout"), "start"], env=env,
                                 cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert started.returncode == 0, started.stderr
        ports = (tmp_path / "env").read_text().split("PORTS=")[1].split()[0]
        run = subprocess.run(
            [sys.executable, str(ROOT / "bench" / "load.py"), "--seats", "2",
             "--scaleout-dir", str(tmp_path), "--json", str(report_file),
             *[a.replace("{second_port}", ports.split(",")[1]) for a in args]],
            env=env, cwd=ROOT, capture_output=True, text=True, timeout=150)
    finally:
        subprocess.run(["bash", str(ROOT / "bin" / "scaleout"), "stop"], env=env, cwd=ROOT,
                       capture_output=True, timeout=60)
    print(run.stdout)
    assert report_file.exists(), run.stderr
    return run, json.loads(report_file.read_text())


def test_short_load_run_is_clean(tmp_path: Path) -> None:
    run, report = load_run(tmp_path, "--tables", "30", "--duration", "30", "--spectate-every",
                           "3", "--timeout-fraction", "0.03", "--route", "spread",
                           "--prefix", "short")
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
    assert report["config"]["pacing"] == "grid"
    assert report["throughput"]["acts_per_50ms_mean"] > 0  # (how evenly they went out)
    assert report["throughput"]["acts_per_50ms_max"] >= report["throughput"][
        "acts_per_50ms_p99"] > 0
    assert report["throughput"]["tables_with_hands"] == 30
    assert correctness["database"]["hands_finished"] > 30
    assert report["latency_ms"]["timer_samples"] > 0
    lag = report["latency_ms"]  # the generator's own loop, measured in the window
    assert 0 <= lag["generator_lag_p50"] <= lag["generator_lag_p99"] <= lag["generator_lag_max"]
    # Its collector's passes in the window, by generation (what it held before the
    # window frozen out of them, bench/load_clients.py): counted, never negative.
    assert report["config"]["collector"] == "frozen"
    for generation, passes in lag["generator_gc"].items():
        assert generation in ("gen0", "gen1", "gen2")
        assert passes["passes"] > 0 and 0 <= passes["max_ms"] <= passes["total_ms"]
    slices = lag["ack_p99_by_slice"]  # the tail along the window
    assert slices["seconds"] >= 10 and slices["p99"] and slices["p99"][0] is not None
    assert max(v for v in slices["p99"] if v is not None) <= lag["ack_max"]
    assert run.returncode == 0, run.stdout + run.stderr


def test_an_owner_killed_mid_run_loses_nothing(tmp_path: Path) -> None:
    """kill -9 of one of the two Daphne processes, each table's clients on its owner
    (``--route owner``): the dead process's tables are taken over by the other one,
    every client that lost its socket reconnects and resyncs, no chip is lost."""
    run, report = load_run(tmp_path, "--tables", "16", "--duration", "24", "--spectate-every",
                           "4", "--timeout-fraction", "0", "--route", "owner",
                           "--kill-after", "6", "--kill-port", "{second_port}",
                           "--prefix", "kill")
    correctness, fault = report["correctness"], report["fault"]
    assert fault is not None and fault["killed_pid"], fault
    assert fault["dropped"] > 0 and fault["not_resynced"] == 0, fault
    assert fault["tables_affected"] >= 8, fault
    assert fault["takeover_max_s"] is not None and fault["takeover_max_s"] < 10, fault
    assert correctness["errors"] == {}
    assert correctness["leaks"] == 0, correctness["leak_examples"]
    assert correctness["chip_violations"] == 0, correctness["chip_examples"]
    assert correctness["database"]["chips_conserved"], correctness["database"]
    assert correctness["stuck_count"] == 0, correctness["stuck_tables"]
    assert run.returncode == 0, run.stdout + run.stderr
