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
* **remote ACPC** (when the listener supports ``MATCH:<id>`` and ``--acpc``) — the
  same with two ACPC clients.

For each remote row: hands/s as the server stored it, remote turns (decisions), and
the per-decision cost — wall time per decision, and the CPU seconds the server and
the two bot processes spent per decision (``/proc/<pid>/stat``), so the wall time
splits into server CPU, bot CPU and waiting (the round trip through the kernel and
the other processes).
"""

from __future__ import annotations

import argparse
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
    """Daphne on the embedded defaults (SQLite in a temporary directory, in-memory layer)."""

    def __init__(self, directory: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, "POKER_VAR_DIR": directory, "HOUSE_BOT_DELAY": "0",
                    "DJANGO_SETTINGS_MODULE": "pokersite.settings", "PYTHONUNBUFFERED": "1"}
        for name in ("DATABASE_URL", "REDIS_URL"):
            self.env.pop(name, None)
        self.log = Path(directory) / "server.log"
        self.process: subprocess.Popen[bytes] | None = None

    def manage(self, *args: str, stdin: str | None = None) -> str:
        return subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=self.env,
                              check=True, capture_output=True, text=True, input=stdin,
                              timeout=300).stdout

    def start(self) -> None:
        self.manage("migrate", "-v0")
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [PYTHON, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port),
                 "pokersite.asgi:application"], cwd=ROOT, env=self.env, stdout=log,
                stderr=subprocess.STDOUT)
        print(f"server: pid {self.process.pid}, {self.url}", file=sys.stderr)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)
        raise SystemExit("the server did not start:\n" + self.log.read_text()[-3000:])

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)


def in_process(hands: int) -> float:
    bots = {name: make_bot("rule_based", random.Random(i))
            for i, name in enumerate(("Alpha", "Beta"))}
    config = MatchSettings(structure="NL", small_blind=1, big_blind=2, stack=200)
    started = time.perf_counter()
    result = play_match(bots, config, hands=hands, seed=1, record=False)
    return result.hands / (time.perf_counter() - started)


def remote_sdk(server: Server, tokens: dict[str, str], hands: int,
               lanes: int = 1) -> dict[str, Any]:
    from botkit.client import RestClient

    client = RestClient(server.url, tokens["Alpha"])
    match = client.create_match(bots=[{"remote": "Alpha"}, {"remote": "Beta"}], hands=hands,
                                seed=1, turn_seconds=10, connect_seconds=60,
                                stack_bb=100, aivat=False, lanes=lanes)
    bots = [subprocess.Popen(
        [PYTHON, "-m", "botkit.runner", "--server", server.url, "--token", tokens[name],
         "--match", str(match["id"]), "--bot", "house:rule_based", "--no-progress"],
        cwd=ROOT, env=server.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for name in ("Alpha", "Beta")]
    assert server.process is not None
    # CPU from the moment the match runs (not the bots' start-up and imports).
    while client.match(match["id"])["status"] in ("queued", "waiting"):
        time.sleep(0.01)
    pids = [server.process.pid, *(bot.pid for bot in bots)]
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
    return {"hands_per_second": results["hands_per_second"], "hands": results["hands"],
            "turns": turns, "wall": wall,
            "per_decision_us": {"wall": 1e6 * wall / turns, "server_cpu": 1e6 * spent[0] / turns,
                                "bots_cpu": 1e6 * (spent[1] + spent[2]) / turns}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--lanes", type=int, nargs="+", default=[1, 4],
                        help="deals played at once in the remote matches")
    parser.add_argument("--seconds", type=float, default=3.0, help="for the engine-only row")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-remote-") as directory:
        server = Server(directory)
        server.start()
        try:
            tokens = json.loads(server.manage("shell", stdin=SETUP).strip().splitlines()[-1])
            rows: list[tuple[str, float, dict[str, Any] | None]] = []
            for _ in range(args.repeat):
                rows.append(("engine only", engine_only(args.seconds), None))
                rows.append(("in process (rule_based ×2)", in_process(args.hands), None))
                for lanes in args.lanes:
                    sdk = remote_sdk(server, tokens, args.hands, lanes)
                    rows.append((f"remote SDK, {lanes} lane{'s' if lanes > 1 else ''}",
                                 sdk["hands_per_second"], sdk))
        finally:
            server.stop()
    ceiling = max(rate for name, rate, _ in rows if name == "engine only")
    print(f"{'benchmark':32} {'hands/s':>9} {'of engine':>9}   per decision (µs): "
          "wall / server CPU / bots CPU")
    for name, rate, detail in rows:
        extra = ""
        if detail is not None:
            cost = detail["per_decision_us"]
            extra = (f"   {cost['wall']:6.0f} / {cost['server_cpu']:6.0f} / "
                     f"{cost['bots_cpu']:6.0f}   ({detail['turns']} decisions, "
                     f"{detail['hands']} hands)")
        print(f"{name:32} {rate:9,.0f} {rate / ceiling:9.3f}{extra}")


if __name__ == "__main__":
    main()
