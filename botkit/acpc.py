"""The ACPC protocol (version 2.0.0): match states, responses, ``STATE:`` log lines.

The Annual Computer Poker Competition dealer (``project_acpc_server``: ``game.c``,
``dealer.c``) speaks lines of text over TCP. A client first sends ``VERSION:2.0.0``;
the dealer then sends every player ``MATCHSTATE:<position>:<hand>:<betting>:<cards>``
after every action and once more when the hand is over; the player to act answers
with the state it was sent, a colon and its action: ``f`` (fold), ``c`` (check or
call), ``r`` (limit raise) or ``r<N>`` (no-limit raise to ``N`` chips *in the whole
hand*, not on the street). This module is the Django-free codec; ``acpc/`` is the
server (docs/acpc.md).

* Positions are the client's places in the hand, which are exactly the engine's hand
  positions (``engine.poker.hand``): heads-up 0 is the big blind and 1 the small
  blind and button (the ACPC ``reverse_blinds`` games); with three or more players
  0 is the small blind, 1 the big blind, the button last.
* Betting rounds are separated by ``/``; cards are ``hole|hole|.../flop/turn/river``
  with the hole cards of every position, empty when the viewer may not see them.

>>> hand = from_phh(["d dh p1 Ah8s", "d dh p2 2h4c", "p2 cc", "p1 cc", "d db Qd7h6c",
...                  "p1 cbr 400"], blinds=[50, 100], stacks=[20000, 20000],
...                 limit=False, hand_id=2)
>>> hand.betting(limit=False)
'cc/r500'
>>> match_state(hand, 1, limit=False)
'MATCHSTATE:1:2:cc/r500:|2h4c/Qd7h6c'
>>> parse_response('MATCHSTATE:1:2:cc/r500:|2h4c/Qd7h6c:r1500', limit=False)[1]
('r', 1500)
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "VERSION",
    "AcpcError",
    "AcpcHand",
    "GameDef",
    "StateLine",
    "from_phh",
    "match_state",
    "parse_action",
    "parse_match_state",
    "parse_response",
    "parse_state_line",
    "same_state",
    "state_line",
    "state_to_phh",
    "to_move",
]

VERSION = "2.0.0"
ACTION_CHARS = {"f": "f", "F": "f", "c": "c", "C": "c", "k": "c", "K": "c",
                "r": "r", "R": "r", "b": "r", "B": "r"}
Json = dict[str, Any]


class AcpcError(ValueError):
    """A line that is not what the protocol allows; ``code`` says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


# ------------------------------------------------------------------ game definitions


@dataclass(frozen=True)
class GameDef:
    """An ACPC ``GAMEDEF`` for Texas hold'em (four rounds, 2 hole cards, 0/3/1/1 board).

    ``blinds`` and ``stacks`` are per position (the ACPC order), ``raise_sizes`` the
    limit bet per round, ``first_player`` 1-based per round, as in the files.

    >>> print(GameDef.holdem("NL", 50, 100, 2, 20000).text())
    GAMEDEF
    nolimit
    numPlayers = 2
    numRounds = 4
    stack = 20000 20000
    blind = 100 50
    firstPlayer = 2 1 1 1
    numSuits = 4
    numRanks = 13
    numHoleCards = 2
    numBoardCards = 0 3 1 1
    END GAMEDEF
    >>> GameDef.parse(GameDef.holdem("FL", 5, 10, 2, 1000).text()).raise_sizes
    (10, 10, 20, 20)
    """

    betting: str
    players: int
    blinds: tuple[int, ...]
    stacks: tuple[int, ...] = ()
    raise_sizes: tuple[int, ...] = ()
    first_player: tuple[int, ...] = ()
    max_raises: tuple[int, ...] = ()

    @property
    def limit(self) -> bool:
        return self.betting == "limit"

    @classmethod
    def holdem(cls, structure: str, small_blind: int, big_blind: int, players: int,
               stack: int) -> GameDef:
        """The competition's definitions with a table's blinds (PL is sent as NL)."""
        if players == 2:
            blinds: tuple[int, ...] = (big_blind, small_blind)
            first = (2, 1, 1, 1)
        else:
            blinds = (small_blind, big_blind) + (0,) * (players - 2)
            first = (3, 1, 1, 1)
        if structure == "FL":
            return cls("limit", players, blinds, (stack,) * players,
                       (big_blind, big_blind, 2 * big_blind, 2 * big_blind), first,
                       (3, 4, 4, 4))
        return cls("nolimit", players, blinds, (stack,) * players, (), first, ())

    def text(self) -> str:
        lines = ["GAMEDEF", self.betting, f"numPlayers = {self.players}", "numRounds = 4"]
        if self.stacks and not self.limit:
            lines.append("stack = " + " ".join(map(str, self.stacks)))
        lines.append("blind = " + " ".join(map(str, self.blinds)))
        if self.limit:
            lines.append("raiseSize = " + " ".join(map(str, self.raise_sizes)))
        lines.append("firstPlayer = " + " ".join(map(str, self.first_player)))
        if self.limit:
            lines.append("maxRaises = " + " ".join(map(str, self.max_raises)))
        lines += ["numSuits = 4", "numRanks = 13", "numHoleCards = 2",
                  "numBoardCards = 0 3 1 1", "END GAMEDEF"]
        return "\n".join(lines)

    @classmethod
    def parse(cls, text: str) -> GameDef:
        """Read a ``.game`` file (the keys this module uses; case-insensitive)."""
        betting, values = "", {}
        for raw in text.splitlines():
            line = raw.strip()
            low = line.lower()
            if not line or line.startswith("#") or low in ("gamedef", "end gamedef"):
                continue
            if low in ("limit", "nolimit"):
                betting = low
                continue
            key, _, rest = line.partition("=")
            try:
                values[key.strip().lower()] = tuple(int(v) for v in rest.split())
            except ValueError:
                raise AcpcError("bad_gamedef", f"Unreadable game line {line!r}.") from None
        if not betting or "numplayers" not in values or "blind" not in values:
            raise AcpcError("bad_gamedef", "A game definition needs the betting type, "
                                           "numPlayers and blind.")
        players = values["numplayers"][0]
        return cls(betting, players, values["blind"], values.get("stack", ()),
                   values.get("raisesize", ()), values.get("firstplayer", ()),
                   values.get("maxraises", ()))


# ------------------------------------------------------------------ hands


@dataclass
class AcpcHand:
    """A hold'em hand in ACPC terms: positions are the engine's hand positions.

    ``rounds`` holds each round's actions as ``("f"|"c"|"r", total)`` (``total``: the
    chips the player has in the whole hand after a raise, 0 otherwise), ``holes`` each
    position's hole cards (text, "" when not dealt/known), ``boards`` each round's
    board cards, ``shown`` the positions that showed at the end.
    """

    hand_id: int
    players: int
    rounds: list[list[tuple[str, int]]] = field(default_factory=lambda: [[]])
    holes: list[str] = field(default_factory=list)
    boards: list[str] = field(default_factory=lambda: [""])
    folded: list[bool] = field(default_factory=list)
    shown: set[int] = field(default_factory=set)
    finished: bool = False
    spent: list[int] = field(default_factory=list)  # each position's chips in the hand
    street: list[int] = field(default_factory=list)  # ... on the current street

    def betting(self, limit: bool) -> str:
        return "/".join("".join(kind + (str(total) if kind == "r" and not limit else "")
                                for kind, total in actions) for actions in self.rounds)

    def cards(self, visible: Iterable[int] | None = None) -> str:
        """``hole|hole/board/...``; ``visible``: the positions whose cards are shown
        (``None``: every position, as in the dealer's log)."""
        seen = set(range(self.players)) if visible is None else set(visible)
        holes = "|".join(h if p in seen else "" for p, h in enumerate(self.holes))
        return holes + "".join("/" + board for board in self.boards[1:])


_CARD = re.compile(r"^(?:[2-9TJQKA][cdhs])*$")


def from_phh(actions: Sequence[str], *, blinds: Sequence[int], stacks: Sequence[int],
             limit: bool, hand_id: int, finished: bool = False) -> AcpcHand:
    """The ACPC view of a hold'em hand from its PHH ``actions`` (``engine.phh``), its
    ``blinds_or_straddles`` (PHH order: heads-up the engine reverses them) and
    ``starting_stacks``.

    A PHH ``cbr N`` is the player's total on the street; the ACPC raise is the total in
    the hand: what the player had in before the street plus ``N``.
    """
    n = len(stacks)
    posted = list(blinds)[::-1] if n == 2 else list(blinds)
    posted = [min(b, s) for b, s in zip(posted, stacks, strict=False)] + [0] * (n - len(posted))
    behind_street = [0] * n  # chips in before this street
    street = posted[:]  # this street's bets
    hand = AcpcHand(hand_id, n, holes=[""] * n, folded=[False] * n)
    for line in actions:
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if words[0] == "d":
            if len(words) >= 4 and words[1] == "dh":
                hand.holes[int(words[2][1:]) - 1] = words[3].replace("?", "")
            elif len(words) >= 3 and words[1] == "db":
                for p in range(n):
                    behind_street[p] += street[p]
                street = [0] * n
                hand.rounds.append([])
                hand.boards.append(words[2])
            continue
        p = int(words[0][1:]) - 1
        verb = words[1] if len(words) > 1 else ""
        if verb == "f":
            hand.folded[p] = True
            hand.rounds[-1].append(("f", 0))
        elif verb == "cc":
            street[p] = min(max(street), stacks[p] - behind_street[p])
            hand.rounds[-1].append(("c", 0))
        elif verb == "cbr":
            street[p] = int(words[2])
            hand.rounds[-1].append(("r", behind_street[p] + street[p]))
        elif verb == "sm":
            hand.shown.add(p)
            if len(words) > 2:
                hand.holes[p] = words[2].replace("?", "")
    hand.finished = finished
    hand.street = street
    hand.spent = [b + s for b, s in zip(behind_street, street, strict=True)]
    return hand


def match_state(hand: AcpcHand, viewer: int, *, limit: bool,
                visible: Iterable[int] = ()) -> str:
    """The dealer's ``MATCHSTATE`` line for ``viewer`` (no line end). When the hand is
    finished, the cards of the positions in ``visible`` (those that showed) are added.

    >>> h = AcpcHand(7, 2, [[("r", 300), ("c", 0)], []], ["AsKd", "7c2d"], ["", "2c3c4c"])
    >>> match_state(h, 0, limit=False)
    'MATCHSTATE:0:7:r300c/:AsKd|/2c3c4c'
    """
    seen = {viewer} | (set(visible) if hand.finished else set())
    return f"MATCHSTATE:{viewer}:{hand.hand_id}:{hand.betting(limit)}:{hand.cards(seen)}"


# ------------------------------------------------------------------ parsing


@dataclass(frozen=True)
class ParsedState:
    """A ``MATCHSTATE``/``STATE`` line's parts (``viewer`` is ``None`` for ``STATE``)."""

    viewer: int | None
    hand_id: int
    betting: str
    holes: tuple[str, ...]
    boards: tuple[str, ...]
    rest: str  # after the cards: ``:<action>`` of a response, ``:values:names`` of a log

    def actions(self, limit: bool) -> list[list[tuple[str, int]]]:
        return _parse_betting(self.betting, limit)


_HEADER = re.compile(r"^(MATCHSTATE:(\d{1,3})|STATE):(\d{1,10}):([^:]*):")


def _parse_betting(betting: str, limit: bool) -> list[list[tuple[str, int]]]:
    rounds: list[list[tuple[str, int]]] = [[]]
    i = 0
    while i < len(betting):
        char = betting[i]
        if char == "/":
            rounds.append([])
            i += 1
            continue
        kind = ACTION_CHARS.get(char)
        if kind is None:
            raise AcpcError("bad_state", f"Unknown action {char!r} in the betting.")
        i += 1
        total = 0
        if kind == "r" and not limit:
            digits = re.match(r"\d{1,12}", betting[i:])
            if digits is None:
                raise AcpcError("bad_state", "A no-limit raise needs its size.")
            total = int(digits.group())
            i += len(digits.group())
        rounds[-1].append((kind, total))
    return rounds


def parse_match_state(line: str) -> ParsedState:
    """Split a ``MATCHSTATE:`` or ``STATE:`` line.

    >>> s = parse_match_state("MATCHSTATE:0:7:r300c/:AsKd|/2c3c4c:c")
    >>> s.viewer, s.hand_id, s.holes, s.boards, s.rest
    (0, 7, ('AsKd', ''), ('', '2c3c4c'), ':c')
    """
    line = line.rstrip("\r\n")
    match = _HEADER.match(line)
    if match is None:
        raise AcpcError("bad_state", "Expected MATCHSTATE:<position>:<hand>:<betting>:<cards>.")
    viewer = None if match.group(2) is None else int(match.group(2))
    if not re.fullmatch(r"[fcrkbFCRKB0-9/]*", match.group(4)):
        raise AcpcError("bad_state", f"Unreadable betting {match.group(4)[:40]!r}.")
    rest = line[match.end():]
    cards, colon, after = rest.partition(":")
    parts = cards.split("/")
    holes = tuple(parts[0].split("|"))
    boards = ("", *parts[1:])
    for chunk in (*holes, *boards):
        if not _CARD.match(chunk):
            raise AcpcError("bad_state", f"Unreadable cards {chunk!r}.")
    return ParsedState(viewer, int(match.group(3)), match.group(4), holes, boards,
                       colon + after)


def parse_action(text: str, limit: bool) -> tuple[str, int | None]:
    """The dealer's ``readAction``: ``f``/``c``/``k``/``r``/``b`` (either case); a
    no-limit raise reads its size (the chips in the whole hand after it). Whatever
    follows is ignored, as by the dealer.

    >>> parse_action("r250", False), parse_action("c", False), parse_action("r", True)
    (('r', 250), ('c', None), ('r', None))
    """
    kind = ACTION_CHARS.get(text[:1])
    if kind is None:
        raise AcpcError("bad_action", f"Unknown action {text[:20]!r} (f, c or r).")
    if kind == "r" and not limit:
        digits = re.match(r"\s*\+?(\d{1,12})", text[1:])
        if digits is None:
            raise AcpcError("bad_action", "A no-limit raise needs its size: r<chips>.")
        return kind, int(digits.group(1))
    return kind, None


def parse_response(line: str, *, limit: bool) -> tuple[ParsedState, tuple[str, int | None]]:
    """A player's response: the echoed state, ``:`` and an action."""
    state = parse_match_state(line)
    if state.viewer is None:
        raise AcpcError("bad_state", "A response starts with MATCHSTATE.")
    if not state.rest.startswith(":"):
        raise AcpcError("bad_action", "The state must be followed by :<action>.")
    return state, parse_action(state.rest[1:], limit)


def same_state(echo: ParsedState, sent: str, limit: bool) -> bool:
    """The dealer's ``matchStatesEqual``: same viewer, hand, betting and board, and the
    viewer's own hole cards (the others are not compared)."""
    try:
        mine = parse_match_state(sent)
        ours = mine.actions(limit) if mine.viewer is not None else None
        theirs = echo.actions(limit)
    except AcpcError:
        return False
    v = mine.viewer
    return (echo.viewer == v and echo.hand_id == mine.hand_id and ours == theirs
            and echo.boards == mine.boards and v is not None
            and len(echo.holes) > v and echo.holes[v] == mine.holes[v])


def to_move(action: tuple[str, int | None], moves: Sequence[Mapping[str, Any]], *,
            committed: int, street_bet: int) -> tuple[Json | None, str]:
    """Our move (``engine.game`` descriptor) for an ACPC action, given the legal
    ``moves``, the chips the player has in the hand (``committed``) and on this street
    (``street_bet``). Returns ``(move, note)``; ``move`` is ``None`` when the action is
    not valid (the note says why). As the dealer does, a no-limit raise size outside
    the legal range is moved to its nearest end (the note says so).

    >>> moves = [{"kind": "fold"}, {"kind": "call"},
    ...          {"kind": "raise", "params": {"amount": {"min": 200, "max": 1000}}}]
    >>> to_move(("r", 350), moves, committed=100, street_bet=100)
    ({'kind': 'raise', 'amount': 350}, '')
    >>> to_move(("r", 5000), moves, committed=100, street_bet=100)[1]
    'raise to 5000 is more than the most, 1000: raised to 1000'
    >>> to_move(("f", None), [{"kind": "check"}], committed=2, street_bet=2)
    (None, 'fold is not valid when nothing is to be called')
    """
    kinds = {m.get("kind"): m for m in moves}
    kind, size = action
    if kind == "f":
        if "fold" not in kinds or "check" in kinds:
            return None, "fold is not valid when nothing is to be called"
        return {"kind": "fold"}, ""
    if kind == "c":
        if "check" in kinds:
            return {"kind": "check"}, ""
        if "call" in kinds:
            return {"kind": "call"}, ""
        return None, "there is nothing to check or call"
    sized = kinds.get("raise") or kinds.get("bet")
    if sized is None:
        return None, "no raise is possible now"
    bounds = sized.get("params", {}).get("amount", {})
    low, high = int(bounds.get("min", 0)), int(bounds.get("max", 0))
    if size is None:  # limit: the one size there is
        return {"kind": sized["kind"], "amount": low}, ""
    amount = size - (committed - street_bet)  # the hand total -> this street's total
    note = ""
    if amount < low:
        note = f"raise to {size} is less than the least, {low + committed - street_bet}: " \
               f"raised to {low + committed - street_bet}"
        amount = low
    elif amount > high:
        note = f"raise to {size} is more than the most, {high + committed - street_bet}: " \
               f"raised to {high + committed - street_bet}"
        amount = high
    return {"kind": sized["kind"], "amount": amount}, note


# ------------------------------------------------------------------ STATE log lines


def _value(number: float) -> str:
    text = f"{number:.6f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def state_line(hand: AcpcHand, values: Sequence[float], names: Sequence[str], *,
               limit: bool) -> str:
    """The dealer's log line ``STATE:<hand>:<betting>:<cards>:<values>:<names>`` (every
    hole card, values as the dealer prints them: trailing zeros removed).

    >>> h = AcpcHand(2, 2, [["c", "c"], []], ["Ah8s", "2h4c"], ["", "Qd7h6c"])
    >>> h.rounds = [[("c", 0), ("c", 0)], [("r", 6420), ("f", 0)]]
    >>> state_line(h, [100, -100], ["Alice", "Bob"], limit=False)
    'STATE:2:cc/r6420f:Ah8s|2h4c/Qd7h6c:100|-100:Alice|Bob'
    """
    for name in names:
        if not name or any(c in name for c in ":|\r\n"):
            raise AcpcError("bad_name", f"A player name in a STATE line cannot be {name!r}.")
    return (f"STATE:{hand.hand_id}:{hand.betting(limit)}:{hand.cards()}:"
            + "|".join(_value(v) for v in values) + ":" + "|".join(names))


@dataclass(frozen=True)
class StateLine:
    """A parsed ``STATE:`` line."""

    hand_id: int
    rounds: list[list[tuple[str, int]]]
    holes: tuple[str, ...]
    boards: tuple[str, ...]
    values: tuple[float, ...]
    names: tuple[str, ...]


def parse_state_line(line: str, *, limit: bool) -> StateLine:
    """Read a dealer log line.

    >>> s = parse_state_line("STATE:0:cr13024c/r16916f:5d5c|9hQd/8dAs8s:13024|-13024:"
    ...                      "Alice|Bob", limit=False)
    >>> s.rounds
    [[('c', 0), ('r', 13024), ('c', 0)], [('r', 16916), ('f', 0)]]
    >>> s.values, s.names
    ((13024.0, -13024.0), ('Alice', 'Bob'))
    """
    state = parse_match_state(line)
    if state.viewer is not None:
        raise AcpcError("bad_state", "A log line starts with STATE.")
    values_text, colon, names_text = state.rest[1:].partition(":")
    if not state.rest.startswith(":") or not colon:
        raise AcpcError("bad_state", "A STATE line ends with :<values>:<names>.")
    try:
        values = tuple(float(v) for v in values_text.split("|"))
    except ValueError:
        raise AcpcError("bad_state", f"Unreadable values {values_text!r}.") from None
    names = tuple(names_text.split("|"))
    if not len(values) == len(names) == len(state.holes):
        raise AcpcError("bad_state", "The cards, values and names disagree on the players.")
    return StateLine(state.hand_id, state.actions(limit), state.holes, state.boards, values,
                     names)


def state_to_phh(state: StateLine, game: GameDef,
                 stacks: Sequence[int] | None = None) -> Json:
    """PHH fields (``engine.phh``) of a logged hand, to replay through the engine.

    ``stacks``: the hand's starting stacks (default: the game's ``stack``). An ACPC
    raise (the total in the hand) becomes ``cbr`` of the street total.
    """
    n = len(state.holes)
    starting = list(stacks or game.stacks or (10**9,) * n)
    posted = list(game.blinds[:n])
    blinds = posted[::-1] if n == 2 else posted  # PHH order: heads-up the SB first
    fields: Json = {"variant": "FT" if game.limit else "NT", "ante_trimming_status": False,
                    "antes": [0] * n, "blinds_or_straddles": blinds}
    if game.limit:
        sizes = game.raise_sizes or (max(posted),) * 4
        fields["small_bet"], fields["big_bet"] = sizes[0], sizes[2]
        fields["_cap_counts_blind"] = True
    else:
        fields["min_bet"] = max(posted)
    fields["starting_stacks"] = starting
    actions = [f"d dh p{p + 1} {hole or '????'}" for p, hole in enumerate(state.holes)]
    sizes = game.raise_sizes or (max(posted),) * 4
    first = game.first_player or ((2, 1, 1, 1) if n == 2 else (3, 1, 1, 1))
    folded = [False] * n
    spent = [min(b, s) for b, s in zip(posted, starting, strict=False)]  # in the hand
    behind = [0] * n  # in before this street

    def next_player(p: int) -> int:  # the dealer's nextPlayer
        for _ in range(n):
            p = (p + 1) % n
            if not folded[p] and spent[p] < starting[p]:
                return p
        raise AcpcError("bad_state", "Nobody is left to act.")

    for number, round_actions in enumerate(state.rounds):
        if number:
            if number >= len(state.boards) or not state.boards[number]:
                raise AcpcError("bad_state", f"Round {number} has no board cards.")
            actions.append(f"d db {state.boards[number]}")
            behind = spent[:]
        p = -1
        for kind, total in round_actions:
            p = next_player((first[number] - 2 + n) % n if p < 0 else p)
            most = max(spent)
            if kind == "f":
                folded[p] = True
                actions.append(f"p{p + 1} f")
            elif kind == "c":
                spent[p] = min(most, starting[p])
                actions.append(f"p{p + 1} cc")
            else:
                total = min(most + sizes[number], starting[p]) if game.limit else total
                if total <= most or total > starting[p]:
                    raise AcpcError("bad_state", f"Raise to {total} is not valid.")
                spent[p] = total
                actions.append(f"p{p + 1} cbr {total - behind[p]}")
    for number in range(len(state.rounds), len(state.boards)):
        if state.boards[number]:
            actions.append(f"d db {state.boards[number]}")
    fields["actions"] = actions
    return fields


# ------------------------------------------------------------------ files (PHH <-> STATE)


def _name(text: Any, default: str) -> str:
    name = str(text) if text not in (None, "") else default
    return re.sub(r"[:|\s]", "_", name)


def phh_to_state_lines(text: str) -> list[str]:
    """``STATE`` lines (each after a ``# STACKS:`` comment with the hand's starting
    stacks, which a STATE line does not carry) for every hold'em hand of a PHH/PHHS
    text: a table's hand history, a batch match's ``match.phhs``.

    Values are the hands' nets (finishing minus starting stacks); names the PHH
    ``players`` (``:``, ``|`` and spaces become ``_``), else ``p1``, ``p2``...
    """
    from engine.phh import loads_all  # the engine's PHH reader

    lines: list[str] = []
    try:
        histories = loads_all(text)
    except ValueError as error:
        raise AcpcError("bad_phh", str(error)) from None
    for index, (_, history) in enumerate(histories):
        if isinstance(history, Exception):
            raise AcpcError("bad_phh", f"Hand {index + 1}: {history}")
        if history.variant not in ("NT", "FT", "PT") or any(history.antes):
            raise AcpcError("not_holdem", f"Hand {index + 1}: ACPC holds Texas hold'em "
                                          f"without antes, not {history.variant}.")
        fields = history.fields
        starting = [int(s) for s in fields["starting_stacks"]]
        finishing = fields.get("finishing_stacks")
        if finishing is None:
            raise AcpcError("bad_phh", f"Hand {index + 1} has no finishing_stacks.")
        limit = history.variant == "FT"
        hand = from_phh(list(fields["actions"]), blinds=list(fields["blinds_or_straddles"]),
                        stacks=starting, limit=limit,
                        hand_id=int(fields.get("hand", index)), finished=True)
        players = list(fields.get("players") or [])
        names = [_name(players[p] if p < len(players) else None, f"p{p + 1}")
                 for p in range(len(starting))]
        nets = [int(f) - s for f, s in zip(finishing, starting, strict=True)]
        lines.append("# STACKS:" + "|".join(map(str, starting)))
        lines.append(state_line(hand, nets, names, limit=limit))
    return lines


@dataclass
class Imported:
    """What :func:`import_state_lines` found: per name the total and the hands."""

    totals: dict[str, float] = field(default_factory=dict)
    hands: int = 0
    mismatches: list[str] = field(default_factory=list)


def import_state_lines(text: str, game: GameDef) -> Imported:
    """Replay every ``STATE`` line of a dealer log through the engine (``#``/``;``
    lines are comments; ``# STACKS:a|b`` gives the next hand's starting stacks, else the
    game's ``stack``); totals per name from the engine's results, and the lines whose
    logged values disagree with them."""
    from engine.phh import replay
    from engine.phh.notation import from_mapping

    result = Imported()
    stacks: list[int] | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("# STACKS:"):
            stacks = [int(v) for v in line[len("# STACKS:"):].split("|")]
            continue
        if not line or line[0] in "#;":
            continue
        state = parse_state_line(line, limit=game.limit)
        fields = state_to_phh(state, game, stacks)
        stacks = None
        try:
            replayed = replay(from_mapping(fields))
        except ValueError as error:
            raise AcpcError("bad_state", f"Line {number}: {error}") from None
        nets = [f - s for f, s in zip(replayed.finishing_stacks, fields["starting_stacks"],
                                      strict=True)]
        if [float(n) for n in nets] != list(state.values):
            result.mismatches.append(f"line {number}: logged {list(state.values)}, "
                                     f"replayed {nets}")
        for name, net in zip(state.names, nets, strict=True):
            result.totals[name] = result.totals.get(name, 0.0) + net
        result.hands += 1
    return result


# ------------------------------------------------------------------ a bot in a batch match


_BETTING_EVENTS = {"PlayerChecked": "cc", "PlayerCalled": "cc", "PlayerFolded": "f",
                   "BetPlaced": "cbr", "RaisePlaced": "cbr"}


class AcpcMatchBot:
    """An ACPC client as a bot of :func:`botkit.match.play_match` (hold'em).

    ``send`` writes one line to the client, ``receive`` reads one (``None``: gone).
    The bot's events become the hand's PHH actions; the client gets its ``MATCHSTATE``
    on each of its turns and when a hand ends (the states are cumulative: the actions
    between them are all in the next one; a state between an action and the cards it
    brings would be wrong); on its turn its answer is
    read as on a live table: comments and states that are not the current one are
    skipped, a bad or invalid action is refused with a ``# ERROR`` line and the state is
    sent again; after three refusals in one turn the dealer's rule applies (call).

    ``act`` is :meth:`start_turn` then :meth:`answer` for each line ``receive`` reads:
    a caller whose lines and turns come from elsewhere (the listener's ``MATCH:<id>``
    sessions, where the match runs in another process) calls those two itself and
    leaves ``receive`` out.
    """

    name = "acpc"

    def __init__(self, send: Callable[[str], None],
                 receive: Callable[[], str | None] | None = None, *,
                 limit: bool, stack: int) -> None:
        self.send, self.receive, self.limit, self.stack = send, receive, limit, stack
        self.lines: list[str] = []
        self.positions: dict[int, int] = {}  # seat -> position, this hand
        self.posted: dict[int, int] = {}
        self.number = 0
        self.shown: set[int] = set()
        self.last = ""
        self.refusals = 0
        self.me: int | None = None  # the bot's seat (known from its cards or its turn)
        self.turn: tuple[str, AcpcHand, int, list[Json]] | None = None  # state, hand, pos, moves

    def _hand(self, finished: bool = False) -> AcpcHand:
        n = len(self.positions)
        posted = [self.posted.get(p, 0) for p in range(n)]
        blinds = posted[::-1] if n == 2 else posted  # PHH order
        return from_phh(self.lines, blinds=blinds, stacks=[self.stack] * n, limit=self.limit,
                        hand_id=self.number, finished=finished)

    def _state(self, seat: int, finished: bool = False) -> str:
        hand = self._hand(finished)
        folded = {p for p, f in enumerate(hand.folded) if f}
        shown = set() if len(hand.folded) - len(folded) < 2 else self.shown - folded
        return match_state(hand, self.positions[seat], limit=self.limit, visible=shown)

    def _send_state(self, line: str) -> None:
        if line != self.last:
            self.send(line)
            self.last = line

    def observe(self, event: Json) -> None:
        kind = event.get("type")
        player = event.get("player")
        position = self.positions.get(player) if isinstance(player, int) else None
        if kind == "HandStarted":
            self.positions = {seat: p for p, seat in enumerate(event.get("seats") or [])}
            self.number, self.lines, self.posted, self.shown = event.get("number", 0), [], {}, set()
        elif kind == "BlindPosted" and position is not None and not event.get("dead"):
            self.posted[position] = int(event.get("amount", 0))
        elif kind == "HoleCardsDealt" and position is not None:
            self.lines.append(f"d dh p{position + 1} {event.get('cards', '')}")
            if "?" not in str(event.get("cards", "?")):
                self.me = player
        elif kind == "BoardDealt":
            self.lines.append(f"d db {event.get('cards', '')}")
        elif kind in _BETTING_EVENTS and position is not None:
            verb = _BETTING_EVENTS[kind]
            amount = f" {event.get('to')}" if verb == "cbr" else ""
            self.lines.append(f"p{position + 1} {verb}{amount}")
        elif kind == "CardsShown" and position is not None:
            self.shown.add(position)
            self.lines.append(f"p{position + 1} sm {event.get('cards', '')}")
        elif kind == "HandEnded" and self.me is not None and self.me in self.positions:
            self.turn = None
            self._send_state(self._state(self.me, finished=True))

    def act(self, view: Json) -> Json:
        move = self.start_turn(view)
        while move is None:
            line = self.receive() if self.receive is not None else None
            if line is None:
                self.turn = None
                return {"kind": "gone"}  # malformed on purpose: the runner's default
            move = self.answer(line)
        return move

    def start_turn(self, view: Json) -> Json | None:
        """The bot's turn (``view``: ``botkit.view.make_view``): send its state and return
        ``None`` (its answer is then given to :meth:`answer`), or return the move at
        once when the client is not asked (ACPC has no show or muck: muck)."""
        seat = int(view["seat"])
        moves = list(view.get("moves") or [])
        kinds = {m.get("kind") for m in moves}
        self.turn = None
        if kinds & {"show", "muck"}:
            return {"kind": "muck"} if "muck" in kinds else {"kind": "show"}
        if seat not in self.positions:  # joined during a hand whose start it did not see
            self.send("# WARNING joined during a hand: checked or folded for you until the "
                      "next one")
            return {"kind": "check"} if "check" in kinds else {"kind": "fold"}
        self.me = seat
        state = self._state(seat)
        self.turn = (state, self._hand(), self.positions[seat], moves)
        self._send_state(state)
        self.refusals = 0
        return None

    @property
    def waiting(self) -> bool:
        """Whether a turn waits for the client's answer."""
        return self.turn is not None

    @property
    def turn_state(self) -> str:
        """The state line of the turn waiting for an answer (``""``: none)."""
        return self.turn[0] if self.turn is not None else ""

    def answer(self, line: str) -> Json | None:
        """One line from the client during its turn: the move once it is decided (a valid
        answer, or a call after the third refusal), ``None`` while the turn goes on
        (comments, refused or un-requested lines: answered with a comment line)."""
        if self.turn is None:
            if line.strip() and line[0] not in "#;":
                self.send("# WARNING ignoring un-requested response (not your turn)")
            return None
        state, hand, position, moves = self.turn
        if not line.strip() or line[0] in "#;":
            return None
        code = "invalid_action"
        try:
            echo, action = parse_response(line, limit=self.limit)
        except AcpcError as error:
            if error.code != "bad_action":
                self.send(f"# ERROR {error.code}: {error} (ignored)")
                return None
            move, note, code = None, str(error), error.code
        else:
            if not same_state(echo, state, self.limit):
                self.send("# WARNING ignoring un-requested response (not the current state)")
                return None
            move, note = to_move(action, moves, committed=hand.spent[position],
                                 street_bet=hand.street[position])
        if move is not None:
            if note:
                self.send(f"# WARNING {note}")
            self.turn = None
            return move
        self.send(f"# ERROR {code}: {note}")
        self.refusals += 1
        if self.refusals >= 3:  # the dealer's rule: an invalid action is a call
            self.turn = None
            kinds = {m.get("kind") for m in moves}
            return {"kind": "check"} if "check" in kinds else {"kind": "call"}
        self.send(state)
        return None


def relay(listen: tuple[str, int], server: tuple[str, int], header: Sequence[str],
          once: bool = False) -> None:
    """For an unmodified ACPC client: accept its connections on ``listen`` and connect
    each to the server, sending the ``header`` lines (``TOKEN:``, ``TABLE:``...) first,
    then copying bytes both ways (the client's own ``VERSION`` line included)."""
    import socket
    import threading

    def pipe(source: socket.socket, target: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                target.sendall(chunk)
        except OSError:
            pass
        finally:
            for sock in (source, target):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    with socket.create_server(listen) as listener:
        print(f"ACPC relay on {listen[0]}:{listen[1]} -> {server[0]}:{server[1]}", flush=True)
        while True:
            client, _ = listener.accept()
            upstream = socket.create_connection(server)
            upstream.sendall("".join(line + "\n" for line in header).encode())
            threads = [threading.Thread(target=pipe, args=(client, upstream), daemon=True),
                       threading.Thread(target=pipe, args=(upstream, client), daemon=True)]
            for thread in threads:
                thread.start()
            if once:
                for thread in threads:
                    thread.join()
                client.close()
                upstream.close()
                return


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m botkit.acpc export FILE.phhs`` (STATE lines on stdout);
    ``python -m botkit.acpc import --game GAME LOG`` (replay a log: totals per player,
    exit status 1 when a logged value disagrees with the engine's);
    ``python -m botkit.acpc relay --server HOST:PORT --table ID --port LOCAL`` (token in
    ``$ACPC_TOKEN``): an unmodified ACPC client connects to ``127.0.0.1:LOCAL``;
    ``python -m botkit.acpc play --server HOST:PORT --header MATCH:7 --bot rule_based``
    (token in ``$ACPC_TOKEN``): a botkit bot plays as an ACPC client
    (:mod:`botkit.acpc_bot`)."""
    import argparse
    import sys
    from pathlib import Path

    parser = argparse.ArgumentParser(prog="python -m botkit.acpc")
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser("export", help="PHH/PHHS hands -> ACPC STATE lines")
    export.add_argument("files", nargs="+", type=Path)
    imp = commands.add_parser("import", help="replay an ACPC log through the engine")
    imp.add_argument("--game", type=Path, required=True, help="an ACPC .game file")
    imp.add_argument("files", nargs="+", type=Path)
    rel = commands.add_parser("relay", help="let an unmodified ACPC client connect")
    rel.add_argument("--server", default="127.0.0.1:18791", help="HOST:PORT (18791)")
    rel.add_argument("--port", type=int, required=True, help="the local port to listen on")
    rel.add_argument("--table", type=int)
    rel.add_argument("--match", type=int)
    rel.add_argument("--header", action="append", default=[],
                     help="another header line, e.g. BUYIN:20000 (repeatable)")
    rel.add_argument("--once", action="store_true", help="relay one connection, then stop")
    ply = commands.add_parser("play", help="play a botkit bot as an ACPC client "
                                           "(botkit.acpc_bot; token in $ACPC_TOKEN)")
    ply.add_argument("--server", default="127.0.0.1:18791", help="HOST:PORT (18791)")
    ply.add_argument("--header", action="append", default=[],
                     help="a header line, e.g. MATCH:7 or TABLE:12 (repeatable)")
    ply.add_argument("--bot", default="rule_based",
                     help="a house bot (rule_based, ehs...) or module:Class")
    ply.add_argument("--structure", choices=("NL", "PL", "FL"), default="NL",
                     help="the game, unless the server's # JOINED line gives it")
    ply.add_argument("--blinds", default="50/100", help="small/big blind (50/100)")
    ply.add_argument("--stack", type=int, default=20_000, help="chips per hand (20000)")
    args = parser.parse_args(argv)
    if args.command == "play":
        from botkit.acpc_bot import main as play_main

        return play_main(args)
    if args.command == "relay":
        import os

        token = os.environ.get("ACPC_TOKEN", "")
        if not token or (args.table is None) == (args.match is None):
            parser.error("relay needs $ACPC_TOKEN and --table ID or --match ID")
        host, _, port = args.server.rpartition(":")
        target = f"TABLE:{args.table}" if args.table is not None else f"MATCH:{args.match}"
        relay(("127.0.0.1", args.port), (host or "127.0.0.1", int(port)),
              [f"TOKEN:{token}", target, *args.header], once=args.once)
        return 0
    try:
        if args.command == "export":
            for path in args.files:
                for line in phh_to_state_lines(path.read_text()):
                    sys.stdout.write(line + "\n")
            return 0
        game = GameDef.parse(args.game.read_text())
        failed = False
        for path in args.files:
            found = import_state_lines(path.read_text(), game)
            sys.stdout.write(f"{path}: {found.hands} hands\n")
            for name, total in sorted(found.totals.items()):
                sys.stdout.write(f"  {name}: {_value(total)}\n")
            for problem in found.mismatches:
                sys.stdout.write(f"  MISMATCH {problem}\n")
            failed = failed or bool(found.mismatches)
        return 1 if failed else 0
    except AcpcError as error:
        sys.stderr.write(f"error: {error}\n")
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
