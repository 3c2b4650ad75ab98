"""Remote batch matches: heads-up hands/s with every bot remote, and where the time goes.

Run from the repository root::

    .venv/bin/python bench/remote.py [--hands 3000] [--repeat 2]

Everything on this machine, in one run (the server, both bots and this script share
its cores):

* **engine only** — ``bench/batch.py``'s bare-engine random play, heads-up: the ceiling;
* **in process** — ``rule_based`` against ``rule_based`` through ``play_match`` with
  no network (the same match the server plays, without the remote bots);
* **remote SDK** — a real Daphne (its own SQLite file, the in-memory channel layer,
  as ``bin/serve``) plays a batch match whose two participants are remote bots:
  two ``python -m botkit.runner --match ID --bot house:rule_based`` processes over
  ``/ws/matches/<id>/``;
* with ``--redis URL`` (the scale-out channel layer; SQLite still), the same remote
  SDK match through Redis, and **remote ACPC**: ``manage.py acpc_server`` and two
  ``python -m botkit.acpc play --bot rule_based`` clients joining the match with
  ``MATCH:<id>`` (docs/acpc.md), so the runner, the listener and both bots are
  separate processes talking through Redis and TCP.

Each remote match is run with 1 lane and with ``--lanes`` (deals played at once,
docs/protocol.md "Lanes").

For each remote row: hands/s as the server stored it, remote turns (decisions), and
the per-decision cost — wall time per decision, and the CPU seconds the server and
the two bot processes spent per decision (``/proc/<pid>/stat``), so the wall time
splits into server CPU, bot CPU and waiting (the round trip through the kernel and
the other processes).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.batch import engine_only  # noqa: E402
from botkit.house import make_bot  # noqa: E402
from botkit.match import MatchSettings, play_match  # noqa: E402

PYTHON = sys.executable
TICKS = os.sysconf("SC_CLK_TCK")

SETUP = """
import json
from accounts.models import Role, User
from accounts.services import create_bot
owner = User.objects.create_user("bench", role=Role.TESTER)
print(json.dumps({name: create_bot(owner=owner, name=name)[1] for name in ("Alpha", "Beta")}))
"""


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """Daphne on the embedded defaults (SQLite in a temporary directory, in-memory layer),
    or with ``redis`` the Redis channel layer and an ACPC listener beside it."""

    def __init__(self, directory: str, redis: str = "", tree: Path = ROOT) -> None:
        self.tree = tree
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, "POKER_VAR_DIR": directory, "HOUSE_BOT_DELAY": "0",
                    "DJANGO_SETTINGS_MODULE": "pokersite.settings", "PYTHONUNBUFFERED": "1"}
        for name in ("DATABASE_URL", "REDIS_URL"):
            self.env.pop(name, None)
        if redis:
            self.env["REDIS_URL"] = redis
        self.log = Path(directory) / "server.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.acpc: subprocess.Popen[bytes] | None = None
        self.acpc_port = free_port()

    def manage(self, *args: str, stdin: str | None = None) -> str:
        return subprocess.run([PYTHON, "manage.py", *args], cwd=self.tree, env=self.env,
                              check=True, capture_output=True, text=True, input=stdin,
                              timeout=300).stdout

    def start(self) -> None:
        self.manage("migrate", "-v0")
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [PYTHON, "-m", "pokersite.serve", "-b", "127.0.0.1", "-p", str(self.port),
                 "pokersite.asgi:application"], cwd=self.tree, env=self.env, stdout=log,
                stderr=subprocess.STDOUT)
            if "REDIS_URL" in self.env:
                self.acpc = subprocess.Popen(
                    [PYTHON, "manage.py", "acpc_server", "--port", str(self.acpc_port)],
                    cwd=self.tree, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        print(f"server: pid {self.process.pid}, {self.url}", file=sys.stderr)
        for port in (self.port, self.acpc_port) if self.acpc else (self.port,):
            deadline = time.monotonic() + 30
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise SystemExit("the server did not start:\n"
                                         + self.log.read_text()[-3000:]) from None
                    time.sleep(0.1)

    def stop(self) -> None:
        for process in (self.process, self.acpc):
            if process is not None:
                process.terminate()
                process.wait(timeout=10)


def in_process(hands: int) -> float:
    bots = {name: make_bot("rule_based", random.Random(i))
            for i, name in enumerate(("Alpha", "Beta"))}
    config = MatchSettings(structure="NL", small_blind=1, big_blind=2, stack=200)
    started = time.perf_counter()
    result = play_match(bots, config, hands=hands, seed=1, record=False)
    return result.hands / (time.perf_counter() - started)


def remote_match(server: Server, tokens: dict[str, str], hands: int, lanes: int = 1,
                 acpc: bool = False) -> dict[str, Any]:
    """Two remote ``rule_based`` bots, SDK runners over websocket or ACPC clients."""
    from botkit.client import RestClient

    client = RestClient(server.url, tokens["Alpha"])
    match = client.create_match(bots=[{"remote": "Alpha"}, {"remote": "Beta"}], hands=hands,
                                seed=1, turn_seconds=10, connect_seconds=60,
                                stack_bb=100, aivat=False, lanes=lanes)
    if acpc:
        commands = [[PYTHON, "-m", "botkit.acpc", "play", "--server",
                     f"127.0.0.1:{server.acpc_port}", "--header", f"MATCH:{match['id']}",
                     "--bot", "rule_based"] for _ in tokens]
        envs = [{**server.env, "ACPC_TOKEN": tokens[name]} for name in ("Alpha", "Beta")]
    else:
        commands = [[PYTHON, "-m", "botkit.runner", "--server", server.url, "--token",
                     tokens[name], "--match", str(match["id"]), "--bot", "house:rule_based",
                     "--no-progress"] for name in ("Alpha", "Beta")]
        envs = [server.env, server.env]
    bots = [subprocess.Popen(command, cwd=server.tree, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
            for command, env in zip(commands, envs, strict=True)]
    assert server.process is not None
    # CPU from the moment the match runs (not the bots' start-up and imports).
    while client.match(match["id"])["status"] in ("queued", "waiting"):
        time.sleep(0.01)
    pids = [server.process.pid, *(bot.pid for bot in bots)]
    if acpc and server.acpc is not None:
        pids.append(server.acpc.pid)  # counted with the server
    before = [cpu_seconds(pid) for pid in pids]
    started = time.perf_counter()
    while (data := client.match(match["id"]))["status"] == "running":
        time.sleep(0.25)
    after = [cpu_seconds(pid) for pid in pids]
    wall = time.perf_counter() - started
    for bot in bots:
        out, err = bot.communicate(timeout=60)
        if bot.returncode:
            raise SystemExit(f"a bot failed:\n{out}\n{err}")
    if data["status"] != "done":
        raise SystemExit(f"the match failed: {data.get('error')}")
    results = data["results"]
    turns = sum(row["turns"] for row in results["bots"].values())
    spent = [b - a for a, b in zip(before, after, strict=True)]
    server_cpu = spent[0] + sum(spent[3:])
    return {"hands_per_second": results["hands_per_second"], "hands": results["hands"],
            "turns": turns, "wall": wall,
            "per_decision_us": {"wall": 1e6 * wall / turns, "server_cpu": 1e6 * server_cpu / turns,
                                "bots_cpu": 1e6 * (spent[1] + spent[2]) / turns}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=3.0, help="for the engine-only row")
    parser.add_argument("--lanes", type=int, nargs="+", default=[1, 4],
                        help="deals played at once in the remote matches")
    parser.add_argument("--before", type=Path,
                        help="another checkout (e.g. a git worktree of an older commit): "
                             "its server and SDK in the same run, in-memory, 1 lane")
    parser.add_argument("--redis", default="",
                        help="also through this Redis (e.g. redis://127.0.0.1:6379/7): "
                             "remote SDK and remote ACPC")
    args = parser.parse_args()

    rows: list[tuple[str, float, dict[str, Any] | None]] = []
    with contextlib.ExitStack() as stack:
        servers = {"in-memory": Server(stack.enter_context(
            tempfile.TemporaryDirectory(prefix="bench-remote-")))}
        if args.redis:
            servers["Redis"] = Server(stack.enter_context(
                tempfile.TemporaryDirectory(prefix="bench-remote-")), args.redis)
        if args.before:
            servers["before"] = Server(stack.enter_context(
                tempfile.TemporaryDirectory(prefix="bench-remote-")), tree=args.before)
        tokens = {}
        for name, server in servers.items():
            server.start()
            stack.callback(server.stop)
            tokens[name] = json.loads(
                server.manage("shell", stdin=SETUP).strip().splitlines()[-1])
        for _ in range(args.repeat):
            rows.append(("engine only", engine_only(args.seconds), None))
            rows.append(("in process (rule_based ×2)", in_process(args.hands), None))
            if args.before:
                data = remote_match(servers["before"], tokens["before"], args.hands)
                rows.append(("before: remote SDK, in-memory, 1 lane", data["hands_per_second"],
                             data))
            for lanes in args.lanes:
                lanes_text = f"{lanes} lane{'s' if lanes > 1 else ''}"
                for name, server in servers.items():
                    if name == "before":
                        continue
                    for acpc in (False, True) if name == "Redis" else (False,):
                        data = remote_match(server, tokens[name], args.hands, lanes, acpc)
                        rows.append((f"remote {'ACPC' if acpc else 'SDK'}, {name}, {lanes_text}",
                                     data["hands_per_second"], data))
    ceiling = max(rate for name, rate, _ in rows if name == "engine only")
    print(f"{'benchmark':36} {'hands/s':>9} {'of engine':>9}   per decision (µs): "
          "wall / server CPU / bots CPU")
    for name, rate, detail in rows:
        extra = ""
        if detail is not None:
            cost = detail["per_decision_us"]
            extra = (f"   {cost['wall']:6.0f} / {cost['server_cpu']:6.0f} / "
                     f"{cost['bots_cpu']:6.0f}   ({detail['turns']} decisions, "
                     f"{detail['hands']} hands)")
        print(f"{name:36} {rate:9,.0f} {rate / ceiling:9.3f}{extra}")


if __name__ == "__main__":
    main()
