"""The conformance suite over ACPC: this process plays the dealer (docs/conformance.md,
"Over ACPC").

``pokerbot conformance --acpc-cmd "CMD {game} {host} {port}"`` needs no server: it
writes the competition's game definition (NL 50/100, 20,000 chips, reverse blinds; or
FL 5/10), listens on ``127.0.0.1`` (a free port), starts the bot's command, reads its
``VERSION:2.0.0`` and deals it scripted heads-up hands on the engine (``holdem``:
scripted cards, a scripted opponent), sending ``MATCHSTATE`` lines exactly as the
dealer does: the first state of each hand, then one after every action (the last one
is the hand's end, with the cards shown at a showdown). The bot's position alternates,
0 then 1, as the dealer seats it. Each response is checked: the exact echo of the state
sent, a strict action (``f``, ``c``, ``r`` or, no-limit, ``r<chips>``), a valid one
(sizes within the least and the most raise, no raise after the cap or against an
all-in), answered in time, and only when the bot is to act. The rows are those of the
websocket suite's report (:func:`botkit.conformance_scenarios.format_report`).

What the bot answers is then played as the dealer would: an out-of-range no-limit size
is moved to the nearest valid one, an unreadable or invalid action is a call (a check
when nothing is to be called), a fold with nothing to call a check; no answer in time
is a check, else a fold.
"""

from __future__ import annotations

import contextlib
import queue
import random
import re
import shlex
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from botkit.acpc import AcpcError, GameDef, from_phh, match_state, parse_action
from botkit.bot import Json

__all__ = ["ACPC_CHECKS", "ACPC_SCENARIOS", "GAMES", "STACK", "run_acpc"]

SUITE = "acpc-1"
STACK = 20_000
GAMES = {"NL": (50, 100), "FL": (5, 10)}  # the competition's blinds
MAX_TRIES = 4  # a hand whose checked situation the bot's own choices skipped is dealt again
SETTLE_SECONDS = 0.3  # at the end: time for un-requested responses to arrive
FULL_DECK = [r + s for s in "shdc" for r in "AKQJT98765432"]
_STRICT = {"NL": re.compile(r"(?:f|c|r[1-9]\d{0,11})"), "FL": re.compile(r"[fcr]")}
_BETTING = {"PlayerChecked": "cc", "PlayerCalled": "cc", "PlayerFolded": "f",
            "BetPlaced": "cbr", "RaisePlaced": "cbr"}


# ------------------------------------------------------------------ scenarios


@dataclass(frozen=True)
class AcpcScenario:
    """One scripted heads-up hand: the bot's ACPC position (0 big blind, 1 button),
    its hole cards per try, the board, and what the opponent does on each street
    (``call``: check or call; ``raise:N`` / ``bet:N``: to N chips on the street;
    ``all_in``; ``reraise``: the smallest raise whenever it may). ``showdown``: the
    hand is the one to survive to a showdown (and the next hand after it)."""

    name: str
    structure: str
    position: int
    holes: tuple[str, ...] = ("", "AdKd", "QsQh", "AcAh")
    board: str = ""
    script: tuple[tuple[str, str], ...] = ()
    showdown: bool = False

    def deck(self, attempt: int) -> str:
        """Position 0's cards, position 1's, the board, the rest (the engine's order)."""
        mine = self.holes[(attempt - 1) % len(self.holes)]
        rng = random.Random(f"{self.name}/{attempt}")
        rest = [c for c in FULL_DECK if c not in mine + self.board]
        rng.shuffle(rest)
        bot = [mine[:2], mine[2:]] if mine else [rest.pop(), rest.pop()]
        other = [rest.pop(), rest.pop()]
        holes = bot + other if self.position == 0 else other + bot
        board = [self.board[i:i + 2] for i in range(0, len(self.board), 2)]
        cards = holes + board + rest[: 5 - len(board)]
        used = set(cards)
        return "".join(cards + [c for c in FULL_DECK if c not in used])


@dataclass(frozen=True)
class AcpcCheck:
    """A row: the bot's first decision in ``scenario`` that ``select`` picks must be
    answered in time, echoing its state, with a strict and valid action; ``kinds`` are
    the ACPC actions the situation must offer (``f`` only where something is to call)."""

    name: str
    title: str
    scenario: str
    kinds: tuple[str, ...]
    select: Callable[[int, Json], bool] = lambda index, view: index == 0


def _street(name: str) -> Callable[[int, Json], bool]:
    def select(index: int, view: Json) -> bool:
        return bool((view.get("hand") or {}).get("street") == name)
    return select


def _capped(index: int, view: Json) -> bool:
    legal = view.get("legal") or {}
    return not legal.get("sized_kind") and not legal.get("can_check")


ACPC_SCENARIOS: dict[str, AcpcScenario] = {s.name: s for s in (
    # The bot in the big blind; the button completes: the option, then first on the flop.
    AcpcScenario("nl_option", "NL", 0, script=(("preflop", "call"),)),
    # The bot on the button, first to act; on the flop the big blind bets 300.
    AcpcScenario("nl_open", "NL", 1, script=(("flop", "bet:300"),)),
    # The button raises to 300 (a raise of 200): the least raise is to 500, the most
    # the stack, 20000.
    AcpcScenario("nl_raise_edges", "NL", 0, script=(("preflop", "raise:300"),)),
    # Heads-up to a showdown: the opponent checks and calls.
    AcpcScenario("nl_showdown", "NL", 1, holes=("AsAh", "KsKh", "QsQh", "AcKc"),
                 board="2c7d9hTc3s", showdown=True),
    # The button moves all in: nothing to raise, fold or call.
    AcpcScenario("nl_call_only", "NL", 0, script=(("preflop", "all_in"),)),
    AcpcScenario("fl_option", "FL", 0, script=(("preflop", "call"),)),
    AcpcScenario("fl_open", "FL", 1, script=(("flop", "bet:10"),)),
    # The button raises whenever it may: after the bot's re-raise the cap (three raises
    # on top of the blind) is reached.
    AcpcScenario("fl_cap", "FL", 0, holes=("AsAh", "KsKh", "AcKc", "QsQh"),
                 script=(("preflop", "reraise"),)),
    AcpcScenario("fl_showdown", "FL", 1, holes=("AsAh", "KsKh", "QsQh", "AcKc"),
                 board="2c7d9hTc3s", showdown=True),
)}

ACPC_CHECKS: dict[str, tuple[AcpcCheck, ...]] = {
    "NL": (
        AcpcCheck("fold_call_raise", "NL: fold, call or raise (the button, first to act)",
                  "nl_open", ("f", "c", "r")),
        AcpcCheck("check_or_raise", "NL: the big blind's option (check or raise)",
                  "nl_option", ("c", "r")),
        AcpcCheck("check_or_bet", "NL: check or bet (first to act on the flop)",
                  "nl_option", ("c", "r"), _street("flop")),
        AcpcCheck("facing_bet", "NL: facing a bet on the flop", "nl_open",
                  ("f", "c", "r"), _street("flop")),
        AcpcCheck("raise_edges", "NL: raise bounds (least raise-to 500, most the stack 20000)",
                  "nl_raise_edges", ("f", "c", "r")),
        AcpcCheck("call_only", "NL: facing an all-in (no raise possible)", "nl_call_only",
                  ("f", "c")),
    ),
    "FL": (
        AcpcCheck("fold_call_raise", "FL: fold, call or raise (to exactly 20)", "fl_open",
                  ("f", "c", "r")),
        AcpcCheck("check_or_raise", "FL: the big blind's option (check or raise to 20)",
                  "fl_option", ("c", "r")),
        AcpcCheck("check_or_bet", "FL: check or bet (10) first on the flop", "fl_option",
                  ("c", "r"), _street("flop")),
        AcpcCheck("facing_bet", "FL: facing a bet on the flop (a raise of exactly 10)",
                  "fl_open", ("f", "c", "r"), _street("flop")),
        AcpcCheck("raise_cap", "FL: the raise cap reached (3 raises on the blind): no raise",
                  "fl_cap", ("f", "c"), _capped),
    ),
}

# The order hands are dealt in (positions alternate 0, 1, 0, ... as the dealer seats
# the bot; a hand whose position is not the next one waits, a plain hand fills in).
ORDER = {"NL": ("nl_option", "nl_open", "nl_raise_edges", "nl_showdown", "nl_call_only"),
         "FL": ("fl_option", "fl_open", "fl_cap", "fl_showdown")}


# ------------------------------------------------------------------ the bot's line


class _Line:
    """The bot's socket: lines in (a reader thread, each with its arrival time), out."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.lines: queue.Queue[tuple[float, str | None]] = queue.Queue()
        threading.Thread(target=self._read, name="acpc-conformance-read", daemon=True).start()

    def _read(self) -> None:
        buffer = b""
        try:
            while chunk := self.sock.recv(65536):
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                now = time.monotonic()
                for raw in lines:
                    self.lines.put((now, raw.decode("utf-8", "replace").rstrip("\r")))
        except OSError:
            pass
        self.lines.put((time.monotonic(), None))

    def get(self, timeout: float) -> tuple[float, str | None] | None:
        try:
            return self.lines.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return None

    def send(self, line: str) -> bool:
        try:
            self.sock.sendall(f"{line}\r\n".encode())
        except OSError:
            return False
        return True


# ------------------------------------------------------------------ decisions


@dataclass
class _Decision:
    scenario: str
    hand: int
    index: int
    view: Json
    state: str
    expected: str
    kinds: tuple[str, ...]
    answer: str | None = None  # the whole line, as sent
    seconds: float = 0.0
    in_time: bool = False
    echo: str = ""  # problems ("" none)
    strict: str = ""
    legal: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def bad(self) -> bool:
        return (self.answer is None or not self.in_time or bool(self.echo) or bool(self.strict)
                or bool(self.legal))

    def problems(self, turn_seconds: float) -> list[str]:
        if self.answer is None:  # the only note then: the connection closed
            return self.notes[:1] or [f"no answer within {turn_seconds:g} s (the turn limit)"]
        found = [] if self.in_time else [f"answered after {self.seconds:.2f} s (the turn had "
                                         f"{turn_seconds:g} s)"]
        return found + [p for p in (self.echo, self.strict, self.legal) if p]


@dataclass
class _Hand:
    decisions: list[_Decision] = field(default_factory=list)
    showdown: bool = False


class _Dealer:
    def __init__(self, line: _Line, structure: str, turn_seconds: float) -> None:
        from engine.registry import get_game

        self.line, self.structure, self.turn_seconds = line, structure, turn_seconds
        self.limit = structure == "FL"
        self.small, self.big = GAMES[structure]
        self.game = get_game("holdem")
        self.settings = self.game.validate_settings({
            "structure": structure, "small_blind": self.small, "big_blind": self.big,
            "seats": 2, "min_buy_in": STACK, "max_buy_in": STACK})
        self.hands = 0
        self.decisions: list[_Decision] = []
        self.sent: dict[str, str] = {}  # state -> "turn" or why the bot was not to act
        self.unrequested: list[str] = []
        self.late: list[str] = []
        self.gone = False
        self.sent_at = 0.0

    # -------------------------------------------------------------- one hand

    def play(self, scenario: AcpcScenario, attempt: int) -> _Hand:
        game = self.game
        hand_id = self.hands
        self.hands += 1
        position = hand_id % 2
        button = 0 if position == 1 else 1  # the bot sits in seat 0
        state = game.create(self.settings)
        game.prepare_round(state, ["bot", "opponent"], [STACK, STACK], button)
        deck = scenario.deck(attempt) if scenario.position == position else \
            AcpcScenario(f"plain-{hand_id}", self.structure, position).deck(attempt)
        holes = [deck[0:4], deck[4:8]]
        lines = [f"d dh p1 {holes[0]}", f"d dh p2 {holes[1]}"]
        from engine.game import Viewer

        viewer = Viewer.of(0)
        make_view = game.view_maker(state)
        script = dict(scenario.script) if scenario.position == position else {}
        used: set[str] = set()
        result = _Hand()
        folded = False

        def record(events: list[Any]) -> None:
            nonlocal folded
            for event in events:
                data = game.project_event(event, viewer)
                if not data:
                    continue
                kind = data.get("type")
                player = data.get("player")
                if kind == "BoardDealt":
                    lines.append(f"d db {data.get('cards', '')}")
                elif kind in _BETTING and isinstance(player, int):
                    p = state.positions.index(player) + 1
                    verb = _BETTING[kind]
                    lines.append(f"p{p} {verb}" + (f" {data.get('to')}" if verb == "cbr" else ""))
                    folded = folded or verb == "f"

        def current(finished: bool) -> str:
            hand = from_phh(lines, blinds=[self.small, self.big], stacks=[STACK, STACK],
                            limit=self.limit, hand_id=hand_id, finished=finished)
            shown = {0, 1} if finished and not folded else set()
            return match_state(hand, position, limit=self.limit, visible=shown)

        record(game.start_round(state, {"deck": deck}))
        index = 0
        last = ""
        while seats := game.to_act(state):
            seat = seats[0]
            view = make_view(state, seat)
            kinds = {m.get("kind") for m in view.get("moves") or []}
            if kinds & {"show", "muck"}:  # ACPC has no show or muck: muck, no state
                record(game.apply(state, seat, {"kind": "muck" if "muck" in kinds
                                                else "show"}))
                continue
            line = current(False)
            if line != last:
                last = line
                self._send(line, "turn" if seat == 0 else "the opponent to act")
            if seat == 1:
                record(game.apply(state, seat, self._opponent(view, script, used)))
                continue
            decision = self._decide(scenario.name, hand_id, index, view, line, lines)
            result.decisions.append(decision)
            index += 1
            record(game.apply(state, seat, self._played(decision, view, lines, position)))
            if self.gone:
                break
        final = current(True)
        self._send(final, "the hand's end")
        result.showdown = not folded and not self.gone
        return result

    def _send(self, line: str, kind: str) -> None:
        if kind == "turn" or line not in self.sent:
            self.sent[line] = kind
        self.sent_at = time.monotonic()  # a turn's time runs from here
        if not self.line.send(line):
            self.gone = True

    def _opponent(self, view: Json, script: dict[str, str], used: set[str]) -> Json:
        legal = view["legal"]
        street = str((view.get("hand") or {}).get("street"))
        order = script.get(street, "call")
        passive = {"kind": "check"} if legal.get("can_check") else {"kind": "call"}
        sized = legal.get("sized_kind")
        if order == "call" or not sized or (street in used and order != "reraise"):
            return passive
        used.add(street)
        if order == "all_in":
            return {"kind": sized, "amount": legal["max_raise_to"]}
        if order == "reraise":
            return {"kind": sized, "amount": legal["min_raise_to"]}
        amount = int(order.partition(":")[2])
        if not legal["min_raise_to"] <= amount <= legal["max_raise_to"]:
            return passive
        return {"kind": sized, "amount": amount}

    # -------------------------------------------------------------- the bot's turn

    def _terms(self, view: Json, lines: Sequence[str], position: int) -> tuple[int, int, int]:
        """(chips before this street, the least and the most raise-to in hand totals)."""
        hand = from_phh(lines, blinds=[self.small, self.big], stacks=[STACK, STACK],
                        limit=self.limit, hand_id=0)
        behind = hand.spent[position] - hand.street[position]
        legal = view["legal"]
        if not legal.get("sized_kind"):
            return behind, 0, 0
        return behind, legal["min_raise_to"] + behind, legal["max_raise_to"] + behind

    def _decide(self, scenario: str, hand_id: int, index: int, view: Json, state: str,
                lines: Sequence[str]) -> _Decision:
        position = hand_id % 2
        legal = view["legal"]
        _, low, high = self._terms(view, lines, position)
        kinds: list[str] = [] if legal.get("can_check") else ["f"]
        parts = [*kinds, "c"]
        kinds.append("c")
        if legal.get("sized_kind"):
            kinds.append("r")
            if self.limit:
                parts.append(f"r (to {low})")
            else:
                parts.append(f"r{low}" if low == high else f"r{low}..r{high}")
        decision = _Decision(scenario, hand_id, index, view, state, " | ".join(parts),
                             tuple(kinds))
        self.decisions.append(decision)
        sent = self.sent_at
        deadline = sent + self.turn_seconds
        while True:
            got = self.line.get(deadline - time.monotonic())
            if got is None:
                self.sent[state] = "turn timed out"
                return decision
            at, text = got
            if text is None:
                self.gone = True
                decision.notes.append("the bot closed the connection")
                return decision
            if not text.strip() or text[0] in "#;":
                continue
            echo = text if text in self.sent else text.rpartition(":")[0]
            if echo != state and echo in self.sent:
                self._stray(text, self.sent[echo])
                continue
            decision.answer, decision.seconds = text, at - sent
            decision.in_time = decision.seconds <= self.turn_seconds
            if echo != state:
                decision.echo = (f"the echo is not the state sent ({state}): the dealer "
                                 "ignores it as an un-requested response and waits")
            if echo != state:
                pass  # the dealer ignores the line: its action is not read
            elif text == state:
                decision.strict = ("the state alone, without :<action> (unreadable: the "
                                   "dealer plays it as c)")
            else:
                self._judge(decision, text[len(echo) + 1:] if echo else text, low, high)
            self.sent[state] = "a turn already answered"
            return decision

    def _stray(self, text: str, why: str) -> None:
        if why == "turn timed out":
            self.late.append(text)
        elif why != "turn":
            self.unrequested.append(f"{text} (un-requested response: {why})")

    def _judge(self, decision: _Decision, action: str, low: int, high: int) -> None:
        legal = decision.view["legal"]
        if not _STRICT[self.structure].fullmatch(action):
            try:
                kind, size = parse_action(action, self.limit)
            except AcpcError as error:
                decision.strict = (f"unreadable action {action!r}: {error} (the dealer plays "
                                   "it as c)")
                return
            read = kind + ("" if size is None else str(size))
            form = "f, c or r" if self.limit else "f, c or r<chips>"
            decision.strict = (f"{action!r} is not a strict action ({form}); the "
                               f"dealer reads it as {read}")
        else:
            kind, size = parse_action(action, self.limit)
        if kind == "f" and legal.get("can_check"):
            decision.notes.append("f with nothing to call: a wasted fold (the dealer plays "
                                  "it as c)")
        elif kind == "r" and not legal.get("sized_kind"):
            why = ("the raise cap is reached" if self.limit and legal.get("call_amount")
                   else "the opponent is all in" if not self.limit else "no raise is left")
            decision.legal = f"{action} is not valid: {why} (the dealer plays it as c)"
        elif kind == "r" and size is not None and size < low:
            decision.legal = f"r{size} is below the minimum raise-to {low}"
        elif kind == "r" and size is not None and size > high:
            decision.legal = (f"r{size} is above the maximum raise-to {high}"
                              + (" (the stack)" if high == STACK else ""))

    def _played(self, decision: _Decision, view: Json, lines: Sequence[str],
                position: int) -> Json:
        """The move the dealer plays for the bot's answer."""
        legal = view["legal"]
        passive = {"kind": "check"} if legal.get("can_check") else {"kind": "call"}
        if decision.answer is None or not decision.in_time or decision.echo:
            return {"kind": "check"} if legal.get("can_check") else {"kind": "fold"}
        action = decision.answer[len(decision.state) + 1:]
        try:
            kind, size = parse_action(action, self.limit)
        except AcpcError:
            return passive
        sized = legal.get("sized_kind")
        if kind == "f":
            return passive if legal.get("can_check") else {"kind": "fold"}
        if kind == "c" or not sized:
            return passive
        behind, _, _ = self._terms(view, lines, position)
        amount = legal["min_raise_to"] if size is None else size - behind
        amount = min(max(amount, legal["min_raise_to"]), legal["max_raise_to"])
        return {"kind": sized, "amount": amount}

    def settle(self, seconds: float) -> None:
        """Whatever arrives now was not asked for."""
        deadline = time.monotonic() + seconds
        while (got := self.line.get(deadline - time.monotonic())) is not None:
            _, text = got
            if text is None:
                break
            if text.strip() and text[0] not in "#;":
                why = self.sent.get(text.rpartition(":")[0], "no state sent")
                self._stray(text, "a turn already answered" if why == "turn" else why)


# ------------------------------------------------------------------ the report


def _row(check: str, title: str, scenario: str, status: str, answer: str, expected: str,
         detail: str, tries: int = 1) -> Json:
    return {"check": check, "title": title, "scenario": scenario, "status": status,
            "answer": answer, "expected": expected, "detail": detail, "tries": tries}


def _took(decision: _Decision) -> str:
    return f"answered in {decision.seconds * 1000:.0f} ms"


def _judge_row(check: AcpcCheck, decision: _Decision, turn_seconds: float, tries: int) -> Json:
    answer = decision.answer if decision.answer is not None else "-"
    if decision.kinds != check.kinds:
        return _row(check.name, check.title, check.scenario, "fail", answer,
                    " | ".join(check.kinds),
                    f"suite error: the scenario offered {decision.expected}", tries)
    problems = decision.problems(turn_seconds)
    detail = "; ".join(problems + [n for n in decision.notes if n not in problems])
    if problems:
        return _row(check.name, check.title, check.scenario, "fail", answer,
                    decision.expected, detail, tries)
    detail = "; ".join([*decision.notes, _took(decision)])
    return _row(check.name, check.title, check.scenario, "pass", answer, decision.expected,
                detail, tries)


def _never(check: AcpcCheck, seen: list[_Decision], tries: int, turn_seconds: float,
           gone: bool) -> Json:
    bad = [d for d in seen if d.bad]
    if gone and not bad:
        return _row(check.name, check.title, check.scenario, "fail", "-",
                    " | ".join(check.kinds), "never reached: the bot closed the connection "
                    "before it", tries)
    shown = ", ".join(dict.fromkeys((d.answer or "-").rpartition(":")[2] or "-"
                                    for d in (bad or seen)[-3:])) or "-"
    if bad:
        why = bad[0].problems(turn_seconds)[0]
        return _row(check.name, check.title, check.scenario, "fail", shown,
                    " | ".join(check.kinds), f"never reached in {tries} hands: the bot's "
                    f"answers before it were wrong ({why})", tries)
    return _row(check.name, check.title, check.scenario, "n/a", shown, " | ".join(check.kinds),
                f"never reached in {tries} hands: the bot's own valid answers ended each "
                "hand first (last actions shown)", tries)


def _overall(dealer: _Dealer, rows: list[Json]) -> None:
    decisions = dealer.decisions
    limit = dealer.turn_seconds
    n = len(decisions)

    def first(problem: Callable[[_Decision], str], check: str, title: str, ok: str,
              what: str) -> None:
        bad = [(d, problem(d)) for d in decisions if problem(d)]
        if bad:
            d, why = bad[0]
            rows.append(_row(check, title, "*", "fail", d.answer or "-", d.expected,
                             f"{len(bad)} of {n} {what}; first in {d.scenario} "
                             f"(hand {d.hand}): {why}"))
        else:
            rows.append(_row(check, title, "*", "pass", f"{n} answers", ok, f"{n} decisions"))

    first(lambda d: d.echo if d.answer is not None else "", "exact_echo",
          "Every response echoes the exact state it was sent", "<state>:<action>",
          "answers")
    first(lambda d: d.strict if d.answer is not None else "", "strict_actions",
          "Every action strictly f, c or r" + ("" if dealer.limit else "<chips>"),
          "f | c | r" + ("" if dealer.limit else "<chips>"), "answers")
    stray = dealer.unrequested
    if stray:
        rows.append(_row("answers_on_turn", "Answers only when it is the bot's turn", "*",
                         "fail", stray[0].split(" (un-requested", 1)[0], "no response",
                         f"{len(stray)} un-requested response(s); first: {stray[0]}"))
    else:
        rows.append(_row("answers_on_turn", "Answers only when it is the bot's turn", "*",
                         "pass", f"{n} answers", "no response",
                         f"{len(dealer.sent)} states sent, answers to turns only"))
    slow = [d for d in decisions if d.answer is None or not d.in_time]
    timing = [d.seconds for d in decisions if d.answer is not None and d.in_time]
    if slow:
        d = slow[0]
        late = f"; {len(dealer.late)} late answer(s) arrived after" if dealer.late else ""
        rows.append(_row("turn_time", f"Every turn answered within {limit:g} s", "*", "fail",
                         d.answer or "-", f"within {limit:g} s",
                         f"{len(slow)} of {n} turns; first in {d.scenario} (hand {d.hand}): "
                         f"{d.problems(limit)[0]}{late}"))
    else:
        slowest = max(timing, default=0.0)
        rows.append(_row("turn_time", f"Every turn answered within {limit:g} s", "*", "pass",
                         f"{n} answers", f"within {limit:g} s",
                         f"slowest {slowest * 1000:.0f} ms"))
    first(lambda d: "; ".join(d.problems(limit)), "legal_throughout",
          "Every answer of the run valid, exact and in time", "valid, in time", "decisions")


def run_acpc(command: str, *, structure: str = "NL", turn_seconds: float = 5.0,
             connect_seconds: float = 30.0, name: str | None = None,
             log: Any = None) -> tuple[Json | None, str]:
    """Play the dealer for ``command`` (``{game}``, ``{host}``, ``{port}`` filled in) and
    return the report, or ``(None, why)`` when there is none (the command could not
    start, never connected or never sent ``VERSION:2.0.0``)."""
    if structure not in GAMES:
        return None, f"--structure is NL or FL, not {structure!r}"
    small, big = GAMES[structure]
    started = time.monotonic()
    out = log if log is not None else sys.stderr
    with tempfile.TemporaryDirectory(prefix="acpc-conformance-") as folder, \
            socket.create_server(("127.0.0.1", 0)) as listener:
        kind = "limit" if structure == "FL" else "nolimit"
        game = Path(folder) / f"holdem.{kind}.2p.reverse_blinds.game"
        game.write_text(GameDef.holdem(structure, small, big, 2, STACK).text() + "\n")
        port = listener.getsockname()[1]
        try:
            argv = [part.format(game=game, host="127.0.0.1", port=port)
                    for part in shlex.split(command)]
            try:
                target = out.fileno()
            except (AttributeError, OSError, ValueError):
                target = None
            process = subprocess.Popen(argv, stdout=target, stderr=target)
        except (OSError, ValueError, KeyError, IndexError) as error:
            return None, f"Cannot run the bot command: {error}"
        try:
            return _serve(listener, process, structure, turn_seconds, connect_seconds,
                          name or command, started)
        finally:
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.terminate()
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def _serve(listener: socket.socket, process: subprocess.Popen[Any], structure: str,
           turn_seconds: float, connect_seconds: float, name: str,
           started: float) -> tuple[Json | None, str]:
    deadline = time.monotonic() + connect_seconds
    listener.settimeout(0.1)
    while True:
        try:
            sock, _ = listener.accept()
            break
        except TimeoutError:
            if process.poll() is not None:
                return None, (f"The bot command exited (code {process.returncode}) before it "
                              "connected.")
            if time.monotonic() > deadline:
                return None, f"The bot did not connect within {connect_seconds:g} s."
    with sock:
        sock.settimeout(None)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        line = _Line(sock)
        while True:
            got = line.get(deadline - time.monotonic())
            if got is None or got[1] is None:
                return None, ("The bot sent no VERSION line within "
                              f"{connect_seconds:g} s." if got is None else
                              "The bot closed the connection before VERSION.")
            text = got[1].strip()
            if text and text[0] not in "#;":
                break
        if not text.startswith("VERSION:2."):
            return None, f"The bot's first line is not VERSION:2.0.0: {text[:80]!r}"
        dealer = _Dealer(line, structure, turn_seconds)
        rows = _play_all(dealer)
        dealer.settle(SETTLE_SECONDS)
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
    _overall(dealer, rows)
    failed = [r["check"] for r in rows if r["status"] == "fail"]
    return {"suite": SUITE, "protocol": "acpc", "structure": structure, "bot": name,
            "passed": not failed, "failed": failed, "checks": rows,
            "decisions": len(dealer.decisions), "hands": dealer.hands,
            "seconds": round(time.monotonic() - started, 3)}, ""


def _play_all(dealer: _Dealer) -> list[Json]:
    structure = dealer.structure
    checks = ACPC_CHECKS[structure]
    found: dict[str, tuple[_Decision, int]] = {}
    seen: dict[str, list[_Decision]] = {c.name: [] for c in checks}
    tries: dict[str, int] = {}
    pending = list(ORDER[structure])
    survived: Json | None = None
    showdown_tries = 0
    on_the_way: list[_Decision] = []  # the bot's decisions in the showdown hands
    after_showdown = False
    while pending and not dealer.gone:
        position = dealer.hands % 2
        pick = next((s for s in pending if ACPC_SCENARIOS[s].position == position), None)
        scenario = ACPC_SCENARIOS[pick] if pick else AcpcScenario("plain", structure, position)
        tries[scenario.name] = attempt = tries.get(scenario.name, 0) + 1
        hand = dealer.play(scenario, attempt)
        if after_showdown:
            after_showdown = False
            survived = _survived(hand, dealer)
        for check in checks:
            if check.scenario != scenario.name or check.name in found:
                continue
            for decision in hand.decisions:
                seen[check.name].append(decision)
                if check.select(decision.index, decision.view):
                    found[check.name] = (decision, attempt)
                    break
        if scenario.showdown:
            showdown_tries += 1
            on_the_way += hand.decisions
            if hand.showdown:
                after_showdown = True
        done = all(c.name in found for c in checks if c.scenario == scenario.name) and (
            not scenario.showdown or hand.showdown)
        if pick and (done or attempt >= MAX_TRIES):
            pending.remove(pick)
        if not pending and after_showdown and not dealer.gone:  # the hand after it
            after_showdown = False
            hand = dealer.play(AcpcScenario("plain", structure, dealer.hands % 2), 1)
            survived = _survived(hand, dealer)
    rows = []
    for check in checks:
        if check.name in found:
            decision, attempt = found[check.name]
            rows.append(_judge_row(check, decision, dealer.turn_seconds, attempt))
        else:
            rows.append(_never(check, seen[check.name], tries.get(check.scenario, 0),
                               dealer.turn_seconds, dealer.gone))
    title = "A hand to the showdown, then the next hand (the other position)"
    show = f"{structure.lower()}_showdown"
    if survived is not None:
        survived["tries"] = showdown_tries
        rows.append(survived)
    elif dealer.gone:
        rows.append(_row("showdown_next_hand", title, show, "fail", "-", "the next hand",
                         "the bot closed the connection", showdown_tries))
    elif bad := [d for d in on_the_way if d.bad]:
        rows.append(_row("showdown_next_hand", title, show, "fail", bad[0].answer or "-",
                         "a showdown", f"no showdown in {showdown_tries} hands: the bot's "
                         f"answers were wrong ({bad[0].problems(dealer.turn_seconds)[0]})",
                         showdown_tries))
    else:
        rows.append(_row("showdown_next_hand", title, show, "n/a", "-", "a showdown",
                         f"no showdown in {showdown_tries} hands: the bot's own valid "
                         "answers folded first", showdown_tries))
    return rows


def _survived(hand: _Hand, dealer: _Dealer) -> Json:
    title = "A hand to the showdown, then the next hand (the other position)"
    show = f"{dealer.structure.lower()}_showdown"
    if not hand.decisions:
        return _row("showdown_next_hand", title, show, "fail", "-", "the next hand",
                    "the bot closed the connection" if dealer.gone else
                    "no decision in the next hand")
    first = hand.decisions[0]
    problems = first.problems(dealer.turn_seconds)
    where = f"showdown seen; next hand {first.hand} as position {first.hand % 2}"
    return _row("showdown_next_hand", title, show, "fail" if problems else "pass",
                first.answer or "-", first.expected,
                "; ".join([where, *problems]) if problems else f"{where}; {_took(first)}")
