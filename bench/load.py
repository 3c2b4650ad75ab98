"""Load generator: many bot clients over the table websocket protocol, measured.

    bin/scaleout                                   # PostgreSQL + Redis + N Daphne + worker
    python bench/load.py --tables 1000 --duration 600     # runs itself in .venv
    bin/scaleout stop

It provisions tables and bots with tokens (``manage.py loadtest_setup``, against
the DATABASE_URL that bin/scaleout wrote to var/scaleout/env), connects one
websocket per seated bot (spread over the Daphne ports), a spectator at every
``--spectate-every``-th table and ``--watchers`` idle connections, plays at
``--pace`` actions per second per table for ``--duration`` seconds, and reports
tables, clients, actions/s, hands/s, latencies, timer lateness, errors,
disconnects, leaks, chip conservation and CPU and memory per server process. At
the end ``manage.py loadtest_check`` checks chips and stuck tables in the database,
and whether the hole cards a spectator saw in a snapshot without their
``CardsShown`` event were really shown (a missed message) or leaked. It only ever
connects to 127.0.0.1.

``--route spread`` (the default) deals the connections round robin over the ports;
``--route owner`` sends every client of table T to port ``T % len(ports)`` (ports in
the order given with ``--ports``, else ascending): the hash-by-table rule of a load
balancer in front of processes that own their tables.

Pacing (``--pacing grid``, the default): each table acts on a schedule of its own,
one act per ``1/--pace`` seconds from a random phase; a turn that reaches its bot
late is answered at once and the schedule stays. ``--pacing reset`` (the rule before
2026-11-28) restarts a table's schedule from a late turn, which puts the tables of
one group commit in step for good (docs/benchmarks.md, thirteenth session). The
report gives acts sent per 50 ms against what independent tables would give.

Admission control: a client refused ``server_busy`` while connecting or sitting
tries again (the connection after 1-2 s, the sit after 2, 4, 8 s) for up to a
minute from its table's first refusal; a table not fully seated by then is
*refused* (its clients close; it is left out of the latencies and the stuck
check; the window opens once they have closed, and 5 s more); the report gives the
admitted and refused tables, and the ack p99 of each tenth of the window. ``server_busy`` is never
a protocol error.

``--kill-after S --kill-port P`` SIGKILLs the Daphne process listening on P after S
seconds of the window (bench/load_faults.py). Its clients reconnect to the next live
port and resync from a snapshot; unanswered acts are re-sent after 2 s. The report
gives the takeover time per affected table (kill → the first event of a higher
version at any of its clients), the clients resynced or not, and the refusals the
fault caused (``fault_errors``, not errors).

Exit status: 0 when the run was clean (no errors, leaks, chip violations, stuck
tables or disconnects; with a kill also: the kill done and every dropped client
resynced), 1 otherwise — timings never fail it.
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import multiprocessing
import os
import secrets
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PYTHON = ROOT / ".venv" / "bin" / "python"
if not PYTHON.exists():
    PYTHON = Path(sys.executable)
elif Path(sys.prefix).resolve() != (ROOT / ".venv").resolve():
    # `python bench/load.py` from a shell without the virtualenv: run in it (it has
    # `websockets`, which bin/serve and bin/test install there).
    os.execv(PYTHON, [str(PYTHON), *sys.argv])

import uvloop  # noqa: E402
from load_clients import Stats, run_slice  # noqa: E402
from load_faults import LeaseWatch, find_daphne, kill  # noqa: E402
from load_procs import Sampler, server_pids  # noqa: E402

# A 127.0.0.1 server is all this tool ever connects to.
HOST = "127.0.0.1"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=50)
    p.add_argument("--seats", type=int, choices=(2, 6), default=2,
                   help="players per table: 2 (heads-up) or 6 (6-max)")
    p.add_argument("--duration", type=float, default=60, help="measured seconds (after ramp-up)")
    p.add_argument("--pace", type=float, default=1.0, help="actions per second per table")
    p.add_argument("--pacing", choices=("grid", "reset"), default="grid",
                   help="grid: each table acts on a schedule of its own (a random phase; a "
                   "late turn answered at once, the schedule kept); reset: the schedule "
                   "restarts from a late turn (the generator before 2026-11-28)")
    p.add_argument("--spectate-every", type=int, default=10,
                   help="a checking spectator at every K-th table")
    p.add_argument("--watchers", type=int, default=0, help="extra idle connections")
    p.add_argument("--timeout-fraction", type=float, default=0.01,
                   help="share of turns left to time out (timer lateness)")
    p.add_argument("--turn-seconds", type=int, default=5)
    p.add_argument("--procs", type=int, default=1, help="generator processes")
    p.add_argument("--collector", choices=("frozen", "default"), default="frozen",
                   help="the generator's garbage collector in the window: frozen (what it "
                   "holds before the window left out of the passes, a larger young "
                   "generation, as the server) or Python's defaults (before 2026-11-29)")
    p.add_argument("--connect-concurrency", type=int, default=50,
                   help="handshakes in flight per generator process")
    p.add_argument("--max-connections", type=int, default=6000)
    p.add_argument("--max-duration", type=float, default=3600)
    p.add_argument("--host", default=HOST, help="must be 127.0.0.1")
    p.add_argument("--ports", default="", help="Daphne ports, e.g. 8001,8002 "
                   "(default: from var/scaleout/env)")
    p.add_argument("--scaleout-dir", default=os.environ.get("SCALEOUT_DIR",
                                                            str(ROOT / "var" / "scaleout")))
    p.add_argument("--database-url", default="", help="default: from var/scaleout/env")
    p.add_argument("--prefix", default="", help="names of this run's tables and bots")
    p.add_argument("--cleanup", action="store_true", help="close the run's tables afterwards")
    p.add_argument("--json", default="", help="also write the report as JSON here ('-': stdout)")
    p.add_argument("--route", choices=("spread", "owner"), default="spread",
                   help="spread: round robin over the ports; owner: every client of table T "
                   "on port T %% len(ports)")
    p.add_argument("--kill-after", type=float, default=None,
                   help="SIGKILL the Daphne of --kill-port after this many measured seconds")
    p.add_argument("--kill-port", type=int, default=None, help="the port whose Daphne dies")
    args = p.parse_args(argv)
    if (args.kill_after is None) != (args.kill_port is None):
        p.error("--kill-after and --kill-port go together")
    if args.kill_after is not None and not 0 <= args.kill_after < args.duration:
        p.error("--kill-after must be within --duration")
    if args.host != HOST:
        p.error("the load generator only targets 127.0.0.1")
    if not 1 <= args.tables <= 20000 or not 0 < args.duration <= args.max_duration:
        p.error("--tables is 1..20000 and --duration 0..--max-duration seconds")
    every = args.spectate_every
    spectators = (args.tables + every - 1) // every if every else 0
    connections = args.tables * args.seats + args.watchers + spectators
    if connections > args.max_connections:
        p.error(f"{connections} connections > --max-connections {args.max_connections}")
    args.connections = connections
    return args


def scaleout_env(args: argparse.Namespace) -> dict[str, str]:
    env: dict[str, str] = {}
    path = Path(args.scaleout_dir) / "env"
    if path.exists():
        for line in path.read_text().splitlines():
            key, _, value = line.partition("=")
            env[key] = value
    if args.database_url:
        env["DATABASE_URL"] = args.database_url
    if args.ports:
        env["PORTS"] = args.ports
    if not env.get("PORTS") or not env.get("DATABASE_URL"):
        sys.exit(f"no {path}: start the servers with bin/scaleout (or give --ports and "
                 "--database-url)")
    return env


def manage(env: dict[str, str], *command: str) -> str:
    run_env = {**os.environ, "DATABASE_URL": env["DATABASE_URL"], "DJANGO_DEBUG": "1",
               "LOG_LEVEL": "WARNING"}
    if env.get("REDIS_URL"):
        run_env["REDIS_URL"] = env["REDIS_URL"]
    result = subprocess.run([str(PYTHON), "manage.py", *command], cwd=ROOT, env=run_env,
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"manage.py {command[0]} failed:\n{result.stderr}")
    return result.stdout


def _child(tables: list[dict[str, Any]], ports: list[int], options: dict[str, Any],
           window_times: Any, ready: Any, results: Any, seed: int) -> None:
    # On uvloop, as the server: the generator shares the machine's cores with it, and
    # its own loop's delays would count in every latency it measures.
    stats = uvloop.run(run_slice(tables, ports, window_times=window_times, ready=ready,
                                  seed=seed, **options))
    results.put(stats)


def collector_passes(passes: list[tuple[int, float]]) -> dict[str, Any]:
    """Per generation: the passes in the window, their total and longest wall ms."""
    out: dict[str, Any] = {}
    for generation in sorted({g for g, _ in passes}):
        ms = [m for g, m in passes if g == generation]
        out[f"gen{generation}"] = {"passes": len(ms), "total_ms": round(sum(ms), 1),
                                   "max_ms": round(max(ms), 1)}
    return out


def percentile(values: list[float], q: float, digits: int = 1) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))], digits)


def _seconds(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def inject(args: argparse.Namespace, window_times: Any, window_start: float,
           leases: LeaseWatch | None) -> dict[str, Any]:
    """SIGKILL the Daphne of --kill-port; the clients learn the time from window_times."""
    pid, why = find_daphne(args.kill_port, Path(args.scaleout_dir))
    if pid is not None and leases is not None:
        leases.before_kill(pid)
    at = time.time()
    if pid is not None:
        window_times[3] = at  # before the signal: a client sees it before its socket drops
        why = kill(pid)
        if why:
            window_times[3] = 0.0
        elif leases is not None:
            leases.after_kill(at)
    print(f"fault: {'SIGKILL pid ' + str(pid) if not why else 'no kill: ' + why} "
          f"(port {args.kill_port}) at {at - window_start:.1f} s of the window", flush=True)
    return {"kill_port": args.kill_port, "killed_pid": None if why else pid,
            "killed_at_s": round(at - window_start, 2), "killed_at_epoch": round(at, 3),
            "kill_error": why or None}


def merge(parts: list[Stats]) -> Stats:
    total = Stats()
    for part in parts:
        for name in ("connected_peak", "connected_at_end", "connect_failures", "disconnects",
                     "actions", "hands", "gaps", "snapshots_checked", "messages",
                     "tables_with_hands", "tables_admitted", "fault_drops", "resynced",
                     "not_resynced", "retransmits", "resync_requests", "tables_affected",
                     "late_before_sit_ack"):
            setattr(total, name, getattr(total, name) + getattr(part, name))
        total.ack_ms += part.ack_ms
        total.ack_at += part.ack_at
        total.sent_at += part.sent_at
        total.loop_lag_ms += part.loop_lag_ms
        total.gc_ms += part.gc_ms
        total.update_ms += part.update_ms
        total.timer_late_ms += part.timer_late_ms
        total.errors += part.errors
        total.late_acts += part.late_acts
        for code, example in part.error_examples.items():
            total.error_examples.setdefault(code, example)
        total.leaks += part.leaks
        total.reveals += part.reveals
        total.disconnect_examples += part.disconnect_examples
        total.chip_violations += part.chip_violations
        total.stuck_tables |= part.stuck_tables
        total.stuck_details.update(part.stuck_details)
        total.busy += part.busy
        total.tables_refused += part.tables_refused
        total.fault_errors += part.fault_errors
        total.takeover_s.update(part.takeover_s)
        total.no_takeover += part.no_takeover
    return total


def run(args: argparse.Namespace) -> dict[str, Any]:
    env = scaleout_env(args)
    ports = [int(p) for p in env["PORTS"].split(",")]
    if not args.ports:  # as discovered: ascending (--ports keeps the order given)
        ports.sort()
    if args.kill_port is not None and args.kill_port not in ports:
        sys.exit(f"--kill-port {args.kill_port} is not one of the Daphne ports {ports}")
    if args.kill_port is not None and len(ports) < 2:
        sys.exit("--kill-port needs a second Daphne port to fail over to")
    prefix = args.prefix or f"lt{secrets.token_hex(3)}"
    setup_file = ROOT / "var" / "loadtest" / f"{prefix}.json"
    started = time.time()
    manage(env, "loadtest_setup", "--tables", str(args.tables), "--seats", str(args.seats),
           "--prefix", prefix, "--spectate-every", str(args.spectate_every),
           "--watchers", str(args.watchers), "--turn-seconds", str(args.turn_seconds),
           "--out", str(setup_file))
    setup = json.loads(setup_file.read_text())
    provisioned = time.time() - started

    ctx = multiprocessing.get_context("fork")
    # window start, window end, planned kill, actual kill (epoch; 0: not yet)
    window_times = ctx.Array("d", [0.0, 0.0, 0.0, 0.0])
    results = ctx.Queue()
    procs, readies = [], []
    options = {"pace": args.pace, "timeout_fraction": args.timeout_fraction,
               "turn_seconds": args.turn_seconds,
               "connect_concurrency": args.connect_concurrency, "route": args.route,
               "kill_port": args.kill_port, "pacing": args.pacing,
               "collector": args.collector}
    for index in range(args.procs):
        ready = ctx.Event()
        process = ctx.Process(target=_child, args=(
            setup["tables"][index::args.procs], ports, options, window_times, ready, results,
            index), daemon=True)
        process.start()
        procs.append(process)
        readies.append(ready)
    ramp_started = time.time()
    for ready in readies:
        ready.wait(timeout=600)
    ramp = time.time() - ramp_started
    window_start = time.time() + 1.0
    kill_at = window_start + args.kill_after if args.kill_after is not None else 0.0
    window_times[2] = kill_at
    window_times[0], window_times[1] = window_start, window_start + args.duration
    sampler = Sampler(server_pids(Path(args.scaleout_dir)),
                      {p.pid: f"load generator {i + 1}" for i, p in enumerate(procs)})
    load_before = os.getloadavg()
    time.sleep(1.0)
    sampler.sample(time.time())
    fault: dict[str, Any] = {}
    leases = (LeaseWatch(env["REDIS_URL"], env.get("CHANNELS_PREFIX", "poker"),
                         [t["id"] for t in setup["tables"]])
              if args.kill_port is not None and env.get("REDIS_URL") else None)
    while time.time() < window_start + args.duration:
        wake = min(5.0, max(0.1, window_start + args.duration - time.time()))
        if kill_at and not fault:
            wake = min(wake, max(0.0, kill_at - time.time()))
        time.sleep(wake)
        if kill_at and not fault and time.time() >= kill_at:
            fault = inject(args, window_times, window_start, leases)
        sampler.sample(time.time())
    load_after = os.getloadavg()
    parts = [results.get(timeout=120) for _ in procs]
    for process in procs:
        process.join(timeout=30)
    stats = merge(parts)
    time.sleep(1)  # let the last commands settle before the database check
    # Snapshot hole cards no CardsShown seen explains: the database says if they were shown.
    reveals_file = setup_file.with_name(f"{prefix}-reveals.json")
    reveals_file.write_text(json.dumps(stats.reveals))
    check = json.loads(manage(env, "loadtest_check", "--prefix", prefix,
                              "--late", str(args.turn_seconds),
                              "--reveals", str(reveals_file)))
    reveals = check.pop("reveals")
    if check["overdue_deadlines"]:
        # An overdue deadline may be a timer that never fires (stuck) or one the end of
        # the run's disconnections made late: look again once it would have fired.
        time.sleep(2 * args.turn_seconds + 5)
        again = json.loads(manage(env, "loadtest_check", "--prefix", prefix,
                                  "--late", str(args.turn_seconds)))["overdue"]
        check["overdue_again"] = again
        check["overdue_deadlines"] = [
            t for t in check["overdue_deadlines"]
            if again.get(str(t), {}).get("version") == check["overdue"][str(t)]["version"]]
    leaks = stats.leaks + reveals["leaks"]
    # A table is stuck if no event reached its seats for 2 turn times + 5 s during
    # the window, or if the database shows an unfired deadline after the run.
    stuck = sorted(stats.stuck_tables | set(check["overdue_deadlines"]))
    if args.kill_port is not None:
        if not fault:
            fault = {"kill_port": args.kill_port, "killed_pid": None, "killed_at_s": None,
                     "kill_error": "the window ended before the kill"}
        fault.update({
            "tables_affected": stats.tables_affected,
            "takeover_max_s": _seconds(percentile(list(stats.takeover_s.values()), 100, 3)),
            "takeover_p99_s": _seconds(percentile(list(stats.takeover_s.values()), 99, 3)),
            "takeover_p50_s": _seconds(percentile(list(stats.takeover_s.values()), 50, 3)),
            "takeover_slowest": dict(sorted(stats.takeover_s.items(),
                                            key=lambda item: -item[1])[:10]),
            "no_event_after_kill": len(stats.no_takeover),
            "no_event_tables": sorted(stats.no_takeover)[:20],
            "dropped": stats.fault_drops, "resynced": stats.resynced,
            "not_resynced": stats.not_resynced, "retransmits": stats.retransmits,
            "snapshot_requests": stats.resync_requests,
            "fault_errors": dict(stats.fault_errors)})
        if leases is not None and fault.get("killed_pid"):
            fault.update(leases.report())
    return {
        "config": {"tables": args.tables, "seats": args.seats, "duration_s": args.duration,
                   "pace": args.pace, "pacing": args.pacing, "collector": args.collector,
                   "ports": ports,
                   "generator_processes": args.procs,
                   "spectated_tables": sum(1 for t in setup["tables"] if t["spectator"]),
                   "watchers": args.watchers, "turn_seconds": args.turn_seconds,
                   "prefix": prefix, "provision_s": round(provisioned, 1),
                   "ramp_s": round(ramp, 1), "route": args.route,
                   "kill_after_s": args.kill_after, "kill_port": args.kill_port},
        "admission": {"tables_admitted": stats.tables_admitted,
                      "tables_refused": len(stats.tables_refused),
                      "refused_tables": sorted(stats.tables_refused)[:20],
                      "server_busy": dict(stats.busy),
                      "actions_per_s": round(stats.actions / args.duration, 1)},
        "fault": fault or None,
        "clients": {"planned": args.connections, "connected_peak": stats.connected_peak,
                    "connected_at_end": stats.connected_at_end,
                    "connect_failures": stats.connect_failures,
                    "disconnects": stats.disconnects,
                    "disconnect_examples": stats.disconnect_examples[:10]},
        "throughput": {"actions_per_s": round(stats.actions / args.duration, 1),
                       **bursts(stats.sent_at),
                       "hands_per_s": round(stats.hands / args.duration, 2),
                       "tables_with_hands": stats.tables_with_hands,
                       "messages_received_per_s": round(stats.messages / (args.duration + ramp),
                                                        1)},
        "latency_ms": {
            "ack_p50": percentile(stats.ack_ms, 50), "ack_p95": percentile(stats.ack_ms, 95),
            "ack_p99": percentile(stats.ack_ms, 99), "ack_max": percentile(stats.ack_ms, 100),
            "ack_p99_by_slice": by_slice(stats.ack_at, stats.ack_ms, window_start,
                                         args.duration),
            "update_p50": percentile(stats.update_ms, 50),
            "update_p99": percentile(stats.update_ms, 99),
            "update_samples": len(stats.update_ms),
            "timer_late_p50": percentile(stats.timer_late_ms, 50),
            "timer_late_p99": percentile(stats.timer_late_ms, 99),
            "timer_samples": len(stats.timer_late_ms),
            "generator_lag_p50": percentile(stats.loop_lag_ms, 50),
            "generator_lag_p99": percentile(stats.loop_lag_ms, 99),
            "generator_lag_max": percentile(stats.loop_lag_ms, 100),
            "generator_gc": collector_passes(stats.gc_ms)},
        "correctness": {"errors": dict(stats.errors), "error_examples": stats.error_examples,
                        "late_acts": {**late_acts(stats.late_acts),
                                      "sent_before_sit_ack": stats.late_before_sit_ack},
                        "leaks": len(leaks),
                        "leak_examples": leaks[:5],
                        "reveals_not_seen_as_events": reveals["checked"],
                        "reveals_confirmed_by_database": reveals["confirmed"],
                        "chip_violations": len(stats.chip_violations),
                        "chip_examples": stats.chip_violations[:5],
                        "snapshots_checked": stats.snapshots_checked,
                        "version_gaps": stats.gaps, "stuck_tables": stuck[:20],
                        "stuck_count": len(stuck), "database": check,
                        "stuck_details": {str(t): d for t, d in
                                          sorted(stats.stuck_details.items())[:20]}},
        "machine": {"cpus": os.cpu_count(), "loadavg_before": [round(x, 2) for x in load_before],
                    "loadavg_after": [round(x, 2) for x in load_after], **sampler.report()},
    }


BURST_BIN = 0.05  # seconds


def bursts(sent_at: list[float]) -> dict[str, Any]:
    """How evenly the acts went out: acts sent per 50 ms, mean / p99 / max, and the
    p99 against what independent tables would give (a Poisson count of that mean).
    Tables whose acts go out together (``--pacing reset`` after the server was late)
    show a ratio well above 1."""
    if len(sent_at) < 2:
        return {"acts_per_50ms_mean": 0, "acts_per_50ms_p99": 0, "acts_per_50ms_max": 0,
                "burst_ratio": None}
    first = min(sent_at)
    counts = collections.Counter(int((t - first) / BURST_BIN) for t in sent_at)
    bins = int((max(sent_at) - first) / BURST_BIN) + 1
    series = [counts.get(i, 0) for i in range(bins)]
    mean = len(sent_at) / bins
    p99 = percentile([float(c) for c in series], 99) or 0.0
    # the p99 of a Poisson count with this mean (independent tables)
    k, term, total = 0, math.exp(-mean), math.exp(-mean)
    while total < 0.99 and k < 100_000:
        k += 1
        term *= mean / k
        total += term
    return {"acts_per_50ms_mean": round(mean, 1), "acts_per_50ms_p99": p99,
            "acts_per_50ms_max": max(series), "acts_per_50ms_p99_independent": k,
            "burst_ratio": round(p99 / k, 2) if k else None}


def clean(report: dict[str, Any]) -> bool:
    c = report["correctness"]
    fault = report.get("fault")
    return (not c["errors"] and not c["leaks"] and not c["chip_violations"]
            and not c["stuck_count"] and c["database"]["chips_conserved"]
            and not report["clients"]["disconnects"]
            and report["throughput"]["actions_per_s"] > 0
            and (report["config"].get("kill_port") is None
                 or (fault is not None and not fault["kill_error"]
                     and not fault["not_resynced"])))


def by_slice(at: list[float], values: list[float], start: float,
             duration: float) -> dict[str, Any]:
    """The 99th percentile of ``values`` in each tenth of the window (at least 10 s):
    whether a tail is spread over the run or comes from one stretch of it."""
    seconds = max(10, round(duration / 10))
    slices: list[list[float]] = [[] for _ in range(max(1, math.ceil(duration / seconds)))]
    for when, value in zip(at, values, strict=True):
        index = int((when - start) // seconds)
        if 0 <= index < len(slices):
            slices[index].append(value)
    return {"seconds": seconds, "p99": [percentile(s, 99) for s in slices]}


def late_acts(late: list[tuple[float | None, float, float]]) -> dict[str, Any]:
    """Acts refused because their turn had ended: how much of the turn was left when
    the your_turn arrived (little: the server was late to send it) and how long the
    generator held the act (long: the client was late)."""
    left = [v for v, _, _ in late if v is not None]
    held = [h for _, h, _ in late]
    answered = [a for _, _, a in late]
    return {"count": len(late),
            "left_at_arrival_s": {"min": percentile(left, 0, 2), "p50": percentile(left, 50, 2)},
            "arrived_with_under_1s_left": sum(v < 1 for v in left),
            "held_s": {"p50": percentile(held, 50, 2), "max": percentile(held, 100, 2)},
            "refused_after_s": {"p50": percentile(answered, 50, 2),
                                "max": percentile(answered, 100, 2)}}


def late_line(late: dict[str, Any]) -> str:
    left, held = late["left_at_arrival_s"], late["held_s"]
    return (f"  late acts {late['count']}: their your_turn arrived with p50 {left['p50']} s "
            f"(min {left['min']} s) of the turn left, {late['arrived_with_under_1s_left']} "
            f"with under 1 s; the generator sent them p50 {held['p50']} s (max {held['max']} s) "
            f"after it arrived; refused p50 {late['refused_after_s']['p50']} s (max "
            f"{late['refused_after_s']['max']} s) after they were sent; "
            f"{late['sent_before_sit_ack']} sent before their client's sit was acknowledged")


def render(report: dict[str, Any]) -> str:
    cfg, cl, th = report["config"], report["clients"], report["throughput"]
    lat, co, ma = report["latency_ms"], report["correctness"], report["machine"]
    ad, fa = report["admission"], report["fault"]
    unseen, confirmed = co["reveals_not_seen_as_events"], co["reveals_confirmed_by_database"]
    reveals = f"{unseen} snapshot reveals not seen as events"
    if unseen:
        reveals += (f", {'all' if confirmed == unseen else confirmed} confirmed shown by the "
                    "database")
    lines = [
        f"Load run {cfg['prefix']}: {cfg['tables']} tables x {cfg['seats']} seats, "
        f"{cfg['duration_s']:.0f} s measured at {cfg['pace']} action/s/table, "
        f"Daphne ports {cfg['ports']}, {cfg['generator_processes']} generator process(es), "
        f"route {cfg.get('route', 'spread')}",
        f"  provisioning {cfg['provision_s']} s, connecting {cfg['ramp_s']} s",
        f"clients     planned {cl['planned']}, peak {cl['connected_peak']}, at end "
        f"{cl['connected_at_end']}, connect failures {cl['connect_failures']}, "
        f"disconnects {cl['disconnects']}",
        f"throughput  {th['actions_per_s']} actions/s, {th['hands_per_s']} hands/s, "
        f"{th['tables_with_hands']} tables finished hands, "
        f"{th['messages_received_per_s']} messages/s received",
        f"pacing      {cfg.get('pacing', 'reset')}: acts sent per 50 ms mean "
        f"{th.get('acts_per_50ms_mean')}, p99 {th.get('acts_per_50ms_p99')} (independent "
        f"tables: {th.get('acts_per_50ms_p99_independent')}), max "
        f"{th.get('acts_per_50ms_max')}",
        f"ack         p50 {lat['ack_p50']} ms, p95 {lat['ack_p95']} ms, p99 {lat['ack_p99']} ms, "
        f"max {lat['ack_max']} ms",
        f"            p99 per {lat['ack_p99_by_slice']['seconds']} s of the window: "
        f"{', '.join(str(v) for v in lat['ack_p99_by_slice']['p99'])}",
        f"update      p50 {lat['update_p50']} ms, p99 {lat['update_p99']} ms "
        f"(at every seat, {lat['update_samples']} samples)",
        f"timers      lateness p50 {lat['timer_late_p50']} ms, p99 {lat['timer_late_p99']} ms "
        f"({lat['timer_samples']} timeouts)",
        f"generator   its own loop late p50 {lat.get('generator_lag_p50')} ms, p99 "
        f"{lat.get('generator_lag_p99')} ms, max {lat.get('generator_lag_max')} ms (every "
        "latency above includes its share)",
        f"            its collector ({cfg.get('collector', 'default')}): "
        f"{lat.get('generator_gc') or 'no pass in the window'}",
        f"admission   {ad['tables_admitted']} tables admitted, {ad['tables_refused']} refused "
        f"{ad['refused_tables'] or ''}(server_busy {ad['server_busy'] or 'none'}); "
        f"{ad['actions_per_s']} actions/s accepted",
        f"errors      {co['errors'] or 'none'}; version gaps {co['version_gaps']}",
        *([late_line(co["late_acts"])] if co.get("late_acts", {}).get("count") else []),
        f"privacy     {co['leaks']} hole-card leaks ({cfg['spectated_tables']} spectated tables, "
        f"{co['snapshots_checked']} snapshots checked; {reveals})",
        f"chips       {co['chip_violations']} violations in snapshots; database: balances "
        f"{co['database']['balances']} + on tables {co['database']['chips_on_tables']} -> "
        f"{'conserved' if co['database']['chips_conserved'] else 'NOT CONSERVED'}",
        f"stuck       {co['stuck_count']} tables {co['stuck_tables'] or ''}",
        *(f"  table {t}: deadline {d['late_s']} s overdue at v{d['version']} after the run"
          f"{'' if int(t) in co['stuck_tables'] else ' (then fired)'}"
          for t, d in co["database"].get("overdue", {}).items()),
        *(f"  table {t}: silent from {d['silent_from_s']} s for {d['silence_s']} s"
          f"{' (then went on)' if d['recovered'] else ''}, v{d['version']}, "
          f"{d['connected']}/{d['clients']} clients connected"
          for t, d in co["stuck_details"].items()),
        f"machine     {ma['cpus']} CPUs, load average {ma['loadavg_before']} -> "
        f"{ma['loadavg_after']}",
    ]
    if cfg.get("kill_port") is not None:
        lines.append(_render_fault(cfg, fa))
    for label, figures in ma["processes"].items():
        lines.append(f"  {label:<22} CPU {figures['cpu_percent']:>6} %  RSS "
                     f"{figures['rss_mb']:>7} MB")
    if ma["others"]:
        lines.append("  also running: " + ", ".join(f"{k[7:]} {v} %"
                                                    for k, v in ma["others"].items()))
    for code, example in co["error_examples"].items():
        lines.append(f"  {code}: {example}")
    for example in co["leak_examples"] + co["chip_examples"] + cl["disconnect_examples"]:
        lines.append(f"  ! {example}")
    lines.append("RESULT: " + ("clean" if clean(report) else "PROBLEMS (see above)"))
    return "\n".join(lines)


def _render_fault(cfg: dict[str, Any], fa: dict[str, Any] | None) -> str:
    if not fa:
        return (f"fault       the window ended before the kill at {cfg['kill_after_s']} s "
                f"(port {cfg['kill_port']})")
    if fa.get("kill_error"):
        return f"fault       NO KILL at {fa['killed_at_s']} s: {fa['kill_error']}"
    return "\n".join([
        f"fault       SIGKILL pid {fa['killed_pid']} (port {fa['kill_port']}) at "
        f"{fa['killed_at_s']} s; {fa['tables_affected']} tables affected: takeover max "
        f"{fa['takeover_max_s']} s, p99 {fa['takeover_p99_s']} s, p50 {fa['takeover_p50_s']} s, "
        f"{fa['no_event_after_kill']} with no event after it {fa['no_event_tables'] or ''}",
        *([f"  leases (server side): {fa['leases_taken']} of {fa['leases_affected']} taken "
           f"over, p50 {fa['lease_takeover_p50_s']} s, max {fa['lease_takeover_max_s']} s "
           "after the kill"] if "leases_affected" in fa else []),
        f"  clients dropped {fa['dropped']}, resynced {fa['resynced']}, not resynced "
        f"{fa['not_resynced']}; acts re-sent {fa['retransmits']}, snapshots asked "
        f"{fa['snapshot_requests']}; fault errors {fa['fault_errors'] or 'none'}"])


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    report = run(args)
    print(render(report), flush=True)
    if args.json == "-":
        print(json.dumps(report, indent=2))
    elif args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(report, indent=2))
    if args.cleanup:
        print(manage(scaleout_env(args), "loadtest_cleanup", "--prefix",
                     report["config"]["prefix"]).strip())
    return 0 if clean(report) else 1


if __name__ == "__main__":
    sys.exit(main())
