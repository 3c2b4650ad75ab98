"""An ACPC client written from the protocol document (protocol.pdf, game.c), no project code.

It keeps the dealer's state machine (``initState``, ``doAction``, ``currentPlayer``,
``raiseIsValid``) for a game definition, reads ``MATCHSTATE`` lines, skips ``#``/``;``
comments, and when it is to act answers ``<state>:<action>`` with a random valid action
(fold/call/raise as the competition's example player does).
"""

from __future__ import annotations

import random
import re
import socket
from dataclasses import dataclass, field


@dataclass
class Game:
    limit: bool
    players: int
    blinds: list[int]
    stacks: list[int]
    raise_sizes: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    first: list[int] = field(default_factory=lambda: [2, 1, 1, 1])  # 1-based, as in files
    max_raises: list[int] = field(default_factory=lambda: [255] * 4)


class State:
    def __init__(self, game: Game) -> None:
        self.g = game
        self.spent = list(game.blinds)
        self.max_spent = max(game.blinds)
        self.min_raise_to = 2 * self.max_spent if not game.limit else 0
        self.folded = [False] * game.players
        self.round = 0
        self.actions: list[list[tuple[str, int, int]]] = [[] for _ in range(4)]
        self.finished = False

    def _next(self, p: int) -> int:
        n = self.g.players
        while True:
            p = (p + 1) % n
            if not self.folded[p] and self.spent[p] < self.g.stacks[p]:
                return p

    def current(self) -> int:
        acts = self.actions[self.round]
        if acts:
            return self._next(acts[-1][2])
        return self._next(self.g.first[self.round] - 1 + self.g.players - 1)

    def acting(self) -> int:
        return sum(1 for p in range(self.g.players)
                   if not self.folded[p] and self.spent[p] < self.g.stacks[p])

    def called(self) -> int:
        count = 0
        for kind, _, p in reversed(self.actions[self.round]):
            if kind in "rc" and self.spent[p] < self.g.stacks[p]:
                count += 1
            if kind == "r":
                break
        return count

    def raise_range(self) -> tuple[int, int] | None:
        raises = sum(1 for a in self.actions[self.round] if a[0] == "r")
        if raises >= self.g.max_raises[self.round] or self.acting() <= 1:
            return None
        if self.g.limit:
            return (0, 0)
        p = self.current()
        low, high = self.min_raise_to, self.g.stacks[p]
        if low > high:
            if self.max_spent >= high:
                return None
            low = high
        return low, high

    def can_fold(self) -> bool:
        p = self.current()
        return self.spent[p] < self.max_spent and self.spent[p] < self.g.stacks[p]

    def do(self, kind: str, size: int) -> None:
        p = self.current()
        self.actions[self.round].append((kind, size, p))
        if kind == "f":
            self.folded[p] = True
        elif kind == "c":
            self.spent[p] = min(self.max_spent, self.g.stacks[p])
        else:
            if self.g.limit:
                size = min(self.max_spent + self.g.raise_sizes[self.round], self.g.stacks[p])
            else:
                self.min_raise_to = max(self.min_raise_to, 2 * size - self.max_spent)
            self.max_spent = size
            self.spent[p] = size
        if sum(self.folded) + 1 >= self.g.players:
            self.finished = True
        elif self.called() >= self.acting():
            if self.acting() > 1:
                if self.round < 3:
                    self.round += 1
                    self.min_raise_to = max(self.g.blinds) + self.max_spent
                else:
                    self.finished = True
            else:
                self.finished = True
                self.round = 3


LINE = re.compile(r"^MATCHSTATE:(\d+):(\d+):([^:]*):([^:]*)$")


def read_state(game: Game, line: str) -> tuple[int, int, State]:
    match = LINE.match(line)
    if match is None:
        raise ValueError(f"not a match state: {line!r}")
    state = State(game)
    for token in re.findall(r"[fck]|[rb]\d*|/", match.group(3)):
        if token == "/":
            continue
        kind = "c" if token[0] in "ck" else "r" if token[0] in "rb" else "f"
        state.do(kind, int(token[1:]) if kind == "r" and not game.limit else 0)
    return int(match.group(1)), int(match.group(2)), state


@dataclass
class Played:
    hands: set[int] = field(default_factory=set)  # hand ids seen finished
    seen: set[int] = field(default_factory=set)  # hand ids seen at all
    states: int = 0
    answers: int = 0
    comments: list[str] = field(default_factory=list)


def play(port: int, header: list[str], game: Game, seed: int = 1,
         max_raise: int = 3000, fold: float = 0.4, shove: float = 0.0) -> Played:
    """Connect, send ``header`` lines then ``VERSION:2.0.0``, play until the server closes."""
    rng = random.Random(seed)
    played = Played()
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        reader = sock.makefile("r", encoding="ascii", newline="\n")
        for line in header:
            sock.sendall(line.encode() + b"\n")
        sock.sendall(b"VERSION:2.0.0\n")
        for raw in reader:
            line = raw.rstrip("\r\n")
            if line.startswith(("#", ";")):
                played.comments.append(line)
                continue
            played.states += 1
            viewer, hand, state = read_state(game, line)
            played.seen.add(hand)
            if state.finished:
                played.hands.add(hand)
                continue
            if state.current() != viewer:
                continue
            options = ["c"] + (["f"] if state.can_fold() else [])
            bounds = state.raise_range()
            if bounds is not None:
                options.append("r")
            pick = rng.random()
            if "f" in options:  # facing a bet: fold, raise 20 %, else call
                kind = "f" if pick < fold else "r" if pick > 0.8 and "r" in options else "c"
            else:  # check or raise half the time each
                kind = "r" if pick < 0.5 and "r" in options else "c"
            action = kind
            if kind == "r" and not game.limit:
                assert bounds is not None
                low, high = bounds
                size = high if rng.random() < shove else \
                    rng.randint(low, max(low, min(high, low + max_raise)))
                action = f"r{size}"
            sock.sendall(f"{line}:{action}\r\n".encode())
            played.answers += 1
    return played
