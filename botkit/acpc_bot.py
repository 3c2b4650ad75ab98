"""A botkit bot as an ACPC client: ``python -m botkit.acpc play``.

:class:`AcpcPlayer` reads the dealer's ``MATCHSTATE`` lines and, when the viewer is to
act, asks a botkit bot (a house bot such as ``rule_based``, or ``module:Class``) for its
move on exactly the view it gets in our own matches (:func:`botkit.view.make_view`):
each state is replayed on the engine (``holdem``) from a deck that deals the viewer's
hole cards and the board seen so far (the other players' cards are unknown: any cards
stand for them, and the bot's view never shows them). The move becomes the ACPC answer
``<state>:f|c|r|r<total>``.

The bot sees its turns only (``act``): it is not told the other events, nor the end of
the hands, so a bot that learns from them (``opponent_model``) plays as if fresh.

The game (structure, blinds, stack) comes from the options, or from the server's
``# JOINED match …`` line (``MATCH:<id>``, docs/acpc.md), else the competition's
NL 50/100 with 20,000 chips.
"""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from botkit.acpc import (
    AcpcError,
    GameDef,
    StateLine,
    from_phh,
    parse_match_state,
    state_to_phh,
)
from botkit.bot import BotLike, Json

__all__ = ["AcpcPlayer", "Played", "play"]

_JOINED = re.compile(r"^# JOINED match \d+ as .*?: (NL|PL|FL) (\d+)/(\d+), stack (\d+)")
_CARDS = [r + s for r in "23456789TJQKA" for s in "cdhs"]


@dataclass
class Played:
    """What a :func:`play` session saw."""

    states: int = 0
    answers: int = 0
    hands: set[int] = field(default_factory=set)  # the hand numbers of the states
    comments: list[str] = field(default_factory=list)
    seconds: float = 0.0


class AcpcPlayer:
    """Answers ``MATCHSTATE`` lines with a botkit bot's moves (see the module doc)."""

    def __init__(self, bot: BotLike, *, structure: str = "NL", small_blind: int = 50,
                 big_blind: int = 100, stack: int = 20_000) -> None:
        from engine.registry import get_game

        self.bot = bot
        self.game = get_game("holdem")
        self.configure(structure, small_blind, big_blind, stack)

    def configure(self, structure: str, small_blind: int, big_blind: int, stack: int) -> None:
        self.structure, self.small_blind, self.big_blind = structure, small_blind, big_blind
        self.stack = stack
        self.limit = structure == "FL"
        self.defs: dict[int, GameDef] = {}
        self.settings: dict[int, Any] = {}

    def comment(self, line: str) -> None:
        """A ``#`` line from the server: ``# JOINED`` gives the match's game."""
        found = _JOINED.match(line)
        if found:
            self.configure(found.group(1), int(found.group(2)), int(found.group(3)),
                           int(found.group(4)))

    def _definition(self, players: int) -> tuple[GameDef, Any]:
        if players not in self.defs:
            self.defs[players] = GameDef.holdem(self.structure, self.small_blind,
                                                self.big_blind, players, self.stack)
            self.settings[players] = self.game.validate_settings({
                "structure": self.structure, "small_blind": self.small_blind,
                "big_blind": self.big_blind, "seats": players,
                "min_buy_in": min(self.stack, 20 * self.big_blind), "max_buy_in": self.stack})
        return self.defs[players], self.settings[players]

    def respond(self, line: str) -> str | None:
        """The answer to a state line (``None``: the viewer is not to act)."""
        parsed = parse_match_state(line)
        viewer = parsed.viewer
        if viewer is None:
            return None
        players = len(parsed.holes)
        definition, settings = self._definition(players)
        fields = state_to_phh(
            StateLine(parsed.hand_id, parsed.actions(self.limit), parsed.holes, parsed.boards,
                      (0.0,) * players, tuple(f"p{p}" for p in range(players))), definition)
        state = self.game.create(settings)
        for position in range(players):
            self.game.seat(state, position, f"p{position}", {"buy_in": self.stack})
        state.hand_number = parsed.hand_id  # what the bot sees (start_round counts one on)
        self.game.start_round(state, {"deck": self._deck(parsed.holes, parsed.boards,
                                                         viewer)})
        seats = state.positions  # hand position -> seat
        for action in fields["actions"]:
            words = action.split()
            if words[0] == "d":
                continue
            seat = seats[int(words[0][1:]) - 1]
            if state.to_act_seat != seat:
                raise AcpcError("bad_state", f"{words[0]} is not to act in {line!r}.")
            self.game.apply(state, seat, self._move(state, seat, words[1:]))
        me = seats[viewer]
        if state.hand is None or state.hand.is_over or state.to_act_seat != me:
            return None
        from botkit.view import make_view

        view = make_view(self.game, state, me)
        kinds = {m.get("kind") for m in view.get("moves") or []}
        if kinds & {"show", "muck"}:
            return None  # the end of the hand: ACPC has no show or muck
        move = self._checked(self.bot.act(view), view)
        return f"{line}:{self._acpc(move, fields, viewer, line)}"

    @staticmethod
    def _deck(holes: Sequence[str], boards: Sequence[str], viewer: int) -> str:
        """Hole cards by position (the viewer's own, any others for the rest), then the
        board seen so far and any cards for the rest of it."""
        mine = holes[viewer] if viewer < len(holes) else ""
        board = "".join(boards)
        used = {mine[i:i + 2] for i in range(0, len(mine), 2)}
        used |= {board[i:i + 2] for i in range(0, len(board), 2)}
        spare = iter(c for c in _CARDS if c not in used)
        deck = []
        for position in range(len(holes)):
            deck.append(mine if position == viewer and len(mine) == 4
                        else next(spare) + next(spare))
        rest = "".join(next(spare) for _ in range(5 - len(board) // 2))
        return "".join(deck) + board + rest

    @staticmethod
    def _move(state: Any, seat: int, words: Sequence[str]) -> Json:
        legal = state.legal_actions(seat)
        if words[0] == "f":
            return {"kind": "fold"}
        if words[0] == "cc":
            return {"kind": "check"} if legal.can_check else {"kind": "call"}
        amount = int(words[1])
        return {"kind": "bet" if legal.can_bet else "raise", "amount": amount}

    @staticmethod
    def _checked(move: Any, view: Json) -> Json:
        """The bot's move if it is one of the turn's, else the safe fallback."""
        from botkit.runner import fallback_move
        from engine.errors import EngineError
        from engine.game import check_move

        moves = view.get("moves") or []
        try:
            check_move(moves, move)
        except (EngineError, TypeError, AttributeError):
            return fallback_move(moves)
        assert isinstance(move, dict)
        return move

    def _acpc(self, move: Json, fields: Json, viewer: int, line: str) -> str:
        kind = move.get("kind")
        if kind == "fold":
            return "f"
        if kind in ("check", "call"):
            return "c"
        if self.limit:
            return "r"
        hand = from_phh(fields["actions"], blinds=fields["blinds_or_straddles"],
                        stacks=fields["starting_stacks"], limit=False, hand_id=0)
        behind = hand.spent[viewer] - hand.street[viewer]  # before this street
        return f"r{int(move['amount']) + behind}"


def play(server: tuple[str, int], header: Sequence[str], bot: BotLike, *,
         structure: str = "NL", small_blind: int = 50, big_blind: int = 100,
         stack: int = 20_000, timeout: float = 600.0) -> Played:
    """Connect, send ``header`` and ``VERSION:2.0.0``, answer every turn with ``bot``
    until the server closes the connection."""
    player = AcpcPlayer(bot, structure=structure, small_blind=small_blind,
                        big_blind=big_blind, stack=stack)
    played = Played()
    started = time.perf_counter()
    with socket.create_connection(server, timeout=timeout) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.sendall("".join(f"{line}\n" for line in [*header, "VERSION:2.0.0"]).encode())
        buffer = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            answers = []
            for raw in lines:
                line = raw.decode("utf-8", "replace").rstrip("\r")
                if not line or line[0] in "#;":
                    if line:
                        played.comments.append(line)
                        player.comment(line)
                    continue
                played.states += 1
                played.hands.add(parse_match_state(line).hand_id)
                answer = player.respond(line)
                if answer is not None:
                    answers.append(answer)
            if answers:
                sock.sendall("".join(f"{a}\r\n" for a in answers).encode())
                played.answers += len(answers)
    played.seconds = time.perf_counter() - started
    return played


def main(args: Any) -> int:
    """``python -m botkit.acpc play`` (arguments parsed by :func:`botkit.acpc.main`)."""
    import os
    import sys

    from botkit.runner import load_bot

    token = os.environ.get("ACPC_TOKEN", "")
    header = ([f"TOKEN:{token}"] if token else []) + list(args.header)
    small, _, big = args.blinds.partition("/")
    host, _, port = args.server.rpartition(":")
    played = play((host or "127.0.0.1", int(port)), header, load_bot(args.bot),
                  structure=args.structure, small_blind=int(small), big_blind=int(big),
                  stack=args.stack)
    for line in played.comments:
        sys.stdout.write(line + "\n")
    rate = len(played.hands) / played.seconds if played.seconds else 0.0
    sys.stdout.write(f"{len(played.hands)} hands, {played.answers} answers to "
                     f"{played.states} states in {played.seconds:.2f} s ({rate:.1f} hands/s)\n")
    return 1 if any(c.startswith("# ERROR") for c in played.comments) else 0
