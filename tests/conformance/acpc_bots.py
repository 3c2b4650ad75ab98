"""Deliberately broken ACPC bots for the ACPC conformance tests, each with one defect a
check must name. A dealer's client: ``python -m tests.conformance.acpc_bots MODE
{game} {host} {port}`` (the game file is not read: NL 50/100 or FL 5/10, stack 20000).

Modes: ``below_min`` (NL: raises one chip below the least raise), ``above_max`` (NL:
raises 100 chips above the stack), ``after_cap`` (FL:
raises on every turn, after the cap too), ``wrong_echo`` (echoes another hand's number),
``unrequested`` (answers every state, not only its turns), ``sleeper`` (its first answer
comes after ``--sleep`` seconds), ``no_size`` (NL: ``r`` without a size), ``folder``
(folds every turn, with nothing to call too: wasteful, not wrong). Otherwise it
plays the calling station through :class:`botkit.acpc_bot.AcpcPlayer`.
"""

from __future__ import annotations

import argparse
import socket
import time
from typing import Any

from botkit.acpc import parse_match_state
from botkit.acpc_bot import AcpcPlayer
from botkit.house import make_bot

Json = dict[str, Any]


class _BelowMin:
    def act(self, view: Json) -> Json:
        legal = view["legal"]
        if legal.get("sized_kind") == "raise" and legal["min_raise_to"] < legal["max_raise_to"]:
            return {"kind": "raise", "amount": legal["min_raise_to"] - 1}
        return {"kind": "check"} if legal.get("can_check") else {"kind": "call"}


class _AboveMax:
    def act(self, view: Json) -> Json:
        legal = view["legal"]
        if legal.get("sized_kind"):
            return {"kind": legal["sized_kind"], "amount": legal["max_raise_to"] + 100}
        return {"kind": "check"} if legal.get("can_check") else {"kind": "call"}


class _Unchecked(AcpcPlayer):
    """Sends the bot's move as it is (the house player replaces an invalid one)."""

    @staticmethod
    def _checked(move: Any, view: Json) -> Json:
        assert isinstance(move, dict)
        return move


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode")
    parser.add_argument("game")
    parser.add_argument("host")
    parser.add_argument("port", type=int)
    parser.add_argument("--sleep", type=float, default=1.0)
    args = parser.parse_args()
    mode = args.mode
    structure = "FL" if mode == "after_cap" else "NL"
    small, big = (5, 10) if structure == "FL" else (50, 100)
    if mode in ("below_min", "above_max"):
        bot = _BelowMin() if mode == "below_min" else _AboveMax()
        player: AcpcPlayer = _Unchecked(bot, structure=structure, small_blind=small,
                                        big_blind=big)
    else:
        player = AcpcPlayer(make_bot("calling_station"), structure=structure,
                            small_blind=small, big_blind=big)
    slept = False
    with socket.create_connection((args.host, args.port)) as sock:
        sock.sendall(b"VERSION:2.0.0\r\n")
        buffer = b""
        while chunk := sock.recv(65536):
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for raw in lines:
                line = raw.decode().rstrip("\r")
                if not line.startswith("MATCHSTATE"):
                    continue
                answer = player.respond(line)
                if answer is None:
                    if mode != "unrequested":
                        continue
                    answer = f"{line}:c"
                if mode == "folder":
                    answer = f"{line}:f"
                elif mode in ("after_cap", "no_size"):
                    answer = f"{line}:r"
                elif mode == "wrong_echo":
                    hand = parse_match_state(line).hand_id
                    answer = line.replace(f":{hand}:", f":{hand + 100}:", 1) + ":c"
                elif mode == "sleeper" and not slept:
                    slept = True
                    time.sleep(args.sleep)
                sock.sendall(f"{answer}\r\n".encode())


if __name__ == "__main__":
    main()
