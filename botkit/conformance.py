"""``pokerbot conformance``: is my bot correct before a long run? (docs/conformance.md)

::

    pokerbot conformance --server http://127.0.0.1:8000 --token TOKEN --bot mybot:MyBot
    pokerbot conformance ... --bot house:rule_based
    pokerbot conformance ... --bot-cmd "./mybot --server {server} --token {token} --match {match}"
    pokerbot conformance --local --bot mybot:MyBot      # in process, no server
    pokerbot conformance --acpc-cmd "./player {game} {host} {port}" [--structure FL]

The server creates a conformance run (``POST /api/v1/conformance/``) for the token's
bot; the bot then plays it over ``/ws/matches/<id>/`` — in this process through the
SDK's :class:`botkit.runner.MatchRunner` (``--bot``), or as any program speaking the
websocket protocol (``--bot-cmd``, in any language; ``{server}``, ``{token}``,
``{match}`` and ``{ws}`` — the match's websocket URL — are filled in, and are in its
environment as ``POKERBOT_SERVER``, ``POKERBOT_TOKEN``, ``POKERBOT_MATCH`` and
``POKERBOT_WS``, which keeps the token out of the process list). The server
puts it through scripted Hold'em situations (:mod:`botkit.conformance_scenarios`)
and the report is printed as a table: check, PASS/FAIL, the bot's answer, what was
legal, details. ``--json`` prints the report as JSON. ``--acpc-cmd`` checks a bot
written for the ACPC dealer instead: this process plays the dealer for it
(:mod:`botkit.acpc_conformance`).

Exit codes: 0 no check failed (each PASS or n/a); 1 a check failed; 2 the run could not be made (bad
arguments, the server refused, the bot never connected, time ran out).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

from botkit.bot import Json
from botkit.conformance_scenarios import LoopbackWire, format_report, run_suite

__all__ = ["main", "run_remote"]


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="pokerbot conformance",
        description="Put a bot through the conformance checks (legal answers in scripted "
                    "situations, repeated and stale turns, a timeout, a reconnect).")
    parser.add_argument("--server", default="http://127.0.0.1:8000")
    parser.add_argument("--token", default=os.environ.get("POKERBOT_TOKEN"),
                        help="the bot's API token (default: $POKERBOT_TOKEN)")
    how = parser.add_mutually_exclusive_group(required=True)
    how.add_argument("--bot", help="module:Class, or a house bot: house:<name> (played in "
                                   "this process by the SDK)")
    how.add_argument("--bot-cmd", help="a command that plays the match: any program speaking "
                                       "the websocket protocol; {server} {token} {match} {ws} "
                                       "are filled in")
    how.add_argument("--acpc-cmd", help="a bot for the ACPC dealer (any language): this "
                                        "command plays the dealer for it, no server; "
                                        "{game} {host} {port} are filled in")
    parser.add_argument("--local", action="store_true",
                        help="run in this process without a server (--bot only; the "
                             "reconnect check is then n/a)")
    parser.add_argument("--turn-seconds", type=float, default=None,
                        help="seconds per decision (default 5)")
    parser.add_argument("--connect-seconds", type=float, default=None,
                        help="seconds for the bot to connect (default 60)")
    parser.add_argument("--wait", type=float, default=300.0,
                        help="give up after this many seconds (default 300)")
    parser.add_argument("--structure", choices=("NL", "FL"), default="NL",
                        help="--acpc-cmd: NL 50/100, stack 20000, or FL 5/10 (default NL)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    return parser.parse_args(argv)


def _print(report: Json, as_json: bool) -> int:
    if as_json:
        print(json.dumps(report, indent=2))
    else:
        print(format_report(report))
    return 0 if report.get("passed") else 1


def _load(spec: str) -> Any:
    from botkit.runner import load_bot

    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())  # mybot:MyBot from the current directory
    return load_bot(spec)


def run_remote(server: str, token: str, *, bot: str | None = None, bot_cmd: str | None = None,
               turn_seconds: float | None = None, connect_seconds: float | None = None,
               wait: float = 300.0) -> tuple[Json | None, str]:
    """Create a conformance run on ``server`` for the token's bot, play it with ``bot``
    (a ``--bot`` spec, in this process) or ``bot_cmd`` (a subprocess) and return the
    report — or ``(None, why)`` if the run could not be made."""
    from botkit.client import ConnectionLost, RestClient, ServerError

    rest = RestClient(server, token)
    body: Json = {}
    if turn_seconds is not None:
        body["turn_seconds"] = turn_seconds
    if connect_seconds is not None:
        body["connect_seconds"] = connect_seconds
    try:
        player = _load(bot) if bot is not None else None
        match = rest.json("POST", "conformance/", body)
    except (ValueError, KeyError, ImportError, AttributeError) as error:
        return None, f"Cannot load the bot: {error}"
    except ServerError as error:
        return None, f"The server refused: {error.code}: {error.message}"
    except ConnectionLost as error:
        return None, f"The server is unreachable: {error}"
    match_id = int(match["id"])
    print(f"Conformance run {match_id} for {match['participants'][0]['name']}.",
          file=sys.stderr)
    process: subprocess.Popen[bytes] | None = None
    thread: threading.Thread | None = None
    if player is not None:
        from botkit.runner import MatchRunner

        runner = MatchRunner(server, token, player, match_id, progress=False,
                             reconnect_for=60.0)

        def play() -> None:
            try:
                runner.run()
            except Exception as error:  # reported with the run's outcome
                print(f"The SDK runner stopped: {type(error).__name__}: {error}",
                      file=sys.stderr)

        thread = threading.Thread(target=play, name="conformance-bot", daemon=True)
        thread.start()
    else:
        assert bot_cmd is not None
        ws = (server.replace("https://", "wss://").replace("http://", "ws://").rstrip("/")
              + f"/ws/matches/{match_id}/")
        command = bot_cmd.format(server=server, token=token, match=match_id, ws=ws)
        try:
            env = {**os.environ, "POKERBOT_SERVER": server, "POKERBOT_TOKEN": token,
                   "POKERBOT_MATCH": str(match_id), "POKERBOT_WS": ws}
            process = subprocess.Popen(shlex.split(command), stdout=sys.stderr.fileno(),
                                       env=env)
        except (OSError, ValueError) as error:
            return None, f"Cannot run the bot command: {error}"
    try:
        deadline = time.monotonic() + wait
        while True:
            data = rest.match(match_id)
            if data["status"] in ("done", "failed"):
                break
            if time.monotonic() > deadline:
                return None, f"Conformance run {match_id} did not finish within {wait:g} s."
            if data["status"] in ("queued", "waiting"):  # the bot gave up before joining
                if process is not None and process.poll() is not None:
                    return None, (f"The bot command exited (code {process.returncode}) "
                                  "before it joined the run.")
                if thread is not None and not thread.is_alive():
                    return None, "The bot stopped before it joined the run."
            time.sleep(0.25)
    finally:
        if thread is not None:
            thread.join(timeout=10)
        if process is not None:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.terminate()
                process.wait(timeout=10)
    if data["status"] == "failed":
        return None, (f"Conformance run {match_id} failed: {data.get('error_code')}: "
                      f"{data.get('error')}")
    return (data.get("results") or {}).get("conformance"), ""


def main(argv: Sequence[str] | None = None) -> int:
    """``pokerbot conformance`` / ``python -m botkit.conformance``."""
    args = _parse(argv)
    if args.acpc_cmd is not None:  # this process plays the ACPC dealer: no server
        from botkit.acpc_conformance import run_acpc

        result, why = run_acpc(args.acpc_cmd, structure=args.structure,
                               turn_seconds=args.turn_seconds or 5.0,
                               connect_seconds=args.connect_seconds or 30.0)
        if result is None:
            print(why, file=sys.stderr)
            return 2
        return _print(result, args.json)
    if args.local:
        if args.bot is None:
            print("--local plays a --bot in this process (not a --bot-cmd).", file=sys.stderr)
            return 2
        try:
            bot = _load(args.bot)
        except (ValueError, KeyError, ImportError, AttributeError) as error:
            print(f"Cannot load the bot: {error}", file=sys.stderr)
            return 2
        report = run_suite(LoopbackWire.for_bot(bot), name=args.bot,
                           turn_seconds=args.turn_seconds or 5.0)
        return _print(report, args.json)
    if not args.token:
        print("--token (or $POKERBOT_TOKEN) is the bot's token.", file=sys.stderr)
        return 2
    result, why = run_remote(args.server, args.token, bot=args.bot, bot_cmd=args.bot_cmd,
                             turn_seconds=args.turn_seconds,
                             connect_seconds=args.connect_seconds, wait=args.wait)
    if result is None:
        print(why, file=sys.stderr)
        return 2
    return _print(result, args.json)


if __name__ == "__main__":
    sys.exit(main())
