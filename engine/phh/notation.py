"""Reading and writing PHH text: TOML fields, exact chip scaling, action lines.

This module knows the file format only; it never touches the rules (see
``engine.phh.replay`` for that).  Amounts may be TOML integers or floats
(dollars and cents); they are converted to integer chips with one decimal
scale per hand, found with ``decimal.Decimal(str(x))`` so no binary-float
drift creeps in.

>>> history = loads('''
... variant = 'NT'
... antes = [0, 0]
... blinds_or_straddles = [0.5, 1]
... min_bet = 1
... starting_stacks = [100.25, 100]
... actions = ['d dh p1 AsKd', 'd dh p2 ????', 'p2 f']
... ''')
>>> history.scale, history.starting_stacks, history.blinds_or_straddles
(100, (10025, 10000), (50, 100))
>>> history.to_file_units((10075, 9950))
[100.75, 99.5]
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

__all__ = [
    "DealBoard",
    "DealHole",
    "HandHistory",
    "NotationError",
    "PlayerAction",
    "Token",
    "dumps",
    "load_path",
    "loads",
    "loads_all",
    "parse_action_line",
]

AMOUNT_FIELDS = ("antes", "blinds_or_straddles", "starting_stacks")
SCALAR_AMOUNT_FIELDS = ("min_bet", "small_bet", "big_bet", "bring_in")
_CARD_RE = re.compile(r"(?:[2-9TJQKA][cdhs]|\?\?)")
_PLAYER_RE = re.compile(r"p([1-9][0-9]*)")


class NotationError(ValueError):
    """A PHH text that cannot be read: bad TOML, a missing field, a bad action line."""


@dataclass(frozen=True)
class DealHole:
    """``d dh p3 AcKd``: hole cards for one player; ``None`` marks an unknown card."""

    player: int
    cards: tuple[str | None, ...]


@dataclass(frozen=True)
class DealBoard:
    """``d db Jc3d5c``: board cards."""

    cards: tuple[str | None, ...]


@dataclass(frozen=True)
class PlayerAction:
    """A player's action: ``f``, ``cc``, ``cbr`` (raise-to ``amount`` in chips), ``pb``
    (post the stud bring-in), ``sd`` (draw) or ``sm``.

    For ``sm``, ``cards`` is ``None`` for a muck, ``()`` for ``sm -`` (show what was
    dealt) and otherwise the cards shown (``None`` entries for ``??``). For ``sd``,
    ``cards`` are the discards (``()``: stand pat; ``None`` entries for ``??``).
    """

    player: int
    verb: str
    amount: int | None = None
    cards: tuple[str | None, ...] | None = None


Token = DealHole | DealBoard | PlayerAction


@dataclass(frozen=True)
class HandHistory:
    """One hand of a PHH file, with every amount converted to integer chips.

    ``scale`` is the number of chips per file unit (1 for integer files, 100 for
    dollars and cents); ``uses_floats`` says whether the file wrote amounts as TOML
    floats, so results can be written back in the same style.  ``None`` in
    ``starting_stacks``/``finishing_stacks`` stands for the spec's ``inf``
    (unknown stack).  ``finishing_stacks`` stays in file units (exact decimals):
    live sources may record half chips of a split pot.
    """

    variant: str
    antes: tuple[int, ...]
    blinds_or_straddles: tuple[int, ...]
    starting_stacks: tuple[int | None, ...]
    actions: tuple[str, ...]
    min_bet: int | None = None
    small_bet: int | None = None
    big_bet: int | None = None
    bring_in: int | None = None
    ante_trimming_status: bool = False
    finishing_stacks: tuple[Decimal | None, ...] | None = None
    scale: int = 1
    uses_floats: bool = False
    fields: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def player_count(self) -> int:
        """Number of players (length of ``starting_stacks``)."""
        return len(self.starting_stacks)

    def tokens(self) -> list[Token]:
        """The ``actions`` array parsed into tokens (commentary and no-ops dropped).

        >>> loads(_EXAMPLE).tokens()[-1]
        PlayerAction(player=1, verb='f', amount=None, cards=None)
        """
        result: list[Token] = []
        for line in self.actions:
            token = parse_action_line(line, self.scale)
            if token is not None:
                result.append(token)
        return result

    def to_file_units(self, chips: Sequence[int | None]) -> list[int | float | None]:
        """Convert chip counts back to the file's units (ints stay ints).

        >>> loads(_EXAMPLE).to_file_units([3, None])
        [3, None]
        """
        return [_from_chips(value, self.scale, self.uses_floats) for value in chips]


_EXAMPLE = """
variant = 'NT'
antes = [0, 0]
blinds_or_straddles = [1, 2]
min_bet = 2
starting_stacks = [200, 200]
actions = ['d dh p1 AsKd', 'd dh p2 ????', 'p2 f']
"""


def _from_chips(value: int | None, scale: int, uses_floats: bool) -> int | float | None:
    if value is None:
        return None
    if not uses_floats:
        return value // scale if value % scale == 0 else float(Decimal(value) / scale)
    return float(Decimal(value) / scale)


def _decimal(value: Any, name: str) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise NotationError(f"field {name!r} must hold numbers, got {value!r}")
    if isinstance(value, float) and math.isinf(value) and value > 0:
        return None
    number = Decimal(str(value))
    if not number.is_finite() or number < 0:
        raise NotationError(f"field {name!r} has an unusable amount {value!r}")
    return number


def _exponent(number: Decimal) -> int:
    exponent = number.normalize().as_tuple().exponent
    assert isinstance(exponent, int)
    return max(0, -exponent)


def _to_chips(number: Decimal | None, scale: int) -> int | None:
    if number is None:
        return None
    chips = number * scale
    if chips != chips.to_integral_value():
        raise NotationError(f"amount {number} is not a whole number of chips at scale {scale}")
    return int(chips)


def _amount_words(actions: Sequence[str]) -> Iterator[str]:
    for line in actions:
        words = line.split("#", 1)[0].split()
        if len(words) == 3 and words[1] == "cbr":
            yield words[2]


def from_mapping(raw: Mapping[str, Any]) -> HandHistory:
    """Build a :class:`HandHistory` from the parsed TOML table of one hand.

    >>> from_mapping(tomllib.loads(_EXAMPLE)).variant
    'NT'
    """
    for name in ("variant", "starting_stacks", "actions"):
        if name not in raw:
            raise NotationError(f"missing required field {name!r}")
    count = len(raw["starting_stacks"])
    if count < 2:
        raise NotationError("a hand needs at least two players")
    arrays: dict[str, list[Decimal | None]] = {}
    for name in (*AMOUNT_FIELDS, "finishing_stacks"):
        values = raw.get(name, [0] * count if name != "finishing_stacks" else None)
        if values is None:
            continue
        if not isinstance(values, list) or len(values) != count:
            raise NotationError(f"field {name!r} must be a list of {count} numbers")
        arrays[name] = [_decimal(value, name) for value in values]
    scalars = {name: _decimal(raw[name], name) for name in SCALAR_AMOUNT_FIELDS if name in raw}
    actions = raw["actions"]
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise NotationError("field 'actions' must be a list of strings")
    try:
        action_amounts = [Decimal(word) for word in _amount_words(actions)]
    except ArithmeticError as error:
        raise NotationError(f"bad cbr amount in actions: {error}") from None

    # The scale comes from what the game needs; finishing stacks are only compared.
    game_numbers = [n for name in AMOUNT_FIELDS for n in arrays[name] if n is not None]
    game_numbers += [n for n in scalars.values() if n is not None] + action_amounts
    scale = 10 ** max((_exponent(n) for n in game_numbers), default=0)
    raw_numbers = [raw.get(name) for name in SCALAR_AMOUNT_FIELDS]
    raw_numbers += [v for name in (*AMOUNT_FIELDS, "finishing_stacks") for v in raw.get(name) or []]
    uses_floats = any(isinstance(value, float) and math.isfinite(value) for value in raw_numbers)
    uses_floats |= any("." in word for word in _amount_words(actions))

    def chips(name: str) -> tuple[int | None, ...]:
        return tuple(_to_chips(n, scale) for n in arrays[name])

    def definite(name: str) -> tuple[int, ...]:
        values = chips(name)
        if any(value is None for value in values):
            raise NotationError(f"field {name!r} cannot be inf")
        return tuple(value for value in values if value is not None)

    def scalar(name: str) -> int | None:
        if name not in scalars:
            return None
        value = _to_chips(scalars[name], scale)
        if value is None:
            raise NotationError(f"field {name!r} cannot be inf")
        return value

    finishing = arrays.get("finishing_stacks")
    return HandHistory(
        variant=str(raw["variant"]),
        antes=definite("antes"),
        blinds_or_straddles=definite("blinds_or_straddles"),
        starting_stacks=chips("starting_stacks"),
        actions=tuple(actions),
        min_bet=scalar("min_bet"),
        small_bet=scalar("small_bet"),
        big_bet=scalar("big_bet"),
        bring_in=scalar("bring_in"),
        ante_trimming_status=bool(raw.get("ante_trimming_status", False)),
        finishing_stacks=None if finishing is None else tuple(finishing),
        scale=scale,
        uses_floats=uses_floats,
        fields=dict(raw),
    )


def loads(text: str) -> HandHistory:
    """Parse the text of a ``.phh`` file (one hand).

    >>> loads(_EXAMPLE).starting_stacks
    (200, 200)
    """
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise NotationError(f"invalid TOML: {error}") from None
    return from_mapping(raw)


def loads_all(text: str) -> list[tuple[str, HandHistory | NotationError]]:
    """Parse the text of a ``.phhs`` file: ``(table name, hand or error)`` in file order.

    >>> [name for name, _ in loads_all('[1]' + _EXAMPLE + '[2]' + _EXAMPLE)]
    ['1', '2']
    """
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise NotationError(f"invalid TOML: {error}") from None
    result: list[tuple[str, HandHistory | NotationError]] = []
    for name, table in raw.items():
        if not isinstance(table, dict):
            result.append((name, NotationError(f"{name!r} is not a table")))
            continue
        try:
            result.append((name, from_mapping(table)))
        except NotationError as error:
            result.append((name, error))
    return result


def load_path(path: Path) -> list[tuple[str, HandHistory | NotationError]]:
    """Read a ``.phh`` or ``.phhs`` file: ``(source, hand or error)`` per hand.

    The source is the path, followed by ``#<table>`` for hands of a ``.phhs`` file.
    """
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".phhs":
        return [(f"{path}#{name}", hand) for name, hand in loads_all(text)]
    try:
        return [(str(path), loads(text))]
    except NotationError as error:
        return [(str(path), error)]


def _cards(text: str, line: str) -> tuple[str | None, ...]:
    if not text or _CARD_RE.sub("", text):
        raise NotationError(f"bad cards {text!r} in action {line!r}")
    return tuple(None if card == "??" else card for card in _CARD_RE.findall(text))


def _player(word: str, line: str) -> int:
    match = _PLAYER_RE.fullmatch(word)
    if match is None:
        raise NotationError(f"bad player {word!r} in action {line!r}")
    return int(match.group(1)) - 1


def parse_action_line(line: str, scale: int = 1) -> Token | None:
    """Parse one entry of ``actions``; ``None`` for an empty or commentary-only entry.

    Players are 0-based positions; ``cbr`` amounts are multiplied by ``scale``.

    >>> parse_action_line('p2 cbr 2.50 # raise', scale=100)
    PlayerAction(player=1, verb='cbr', amount=250, cards=None)
    >>> parse_action_line('d dh p1 ??Ad')
    DealHole(player=0, cards=(None, 'Ad'))
    >>> parse_action_line('p3 sd 7h??'), parse_action_line('p3 sd').cards
    (PlayerAction(player=2, verb='sd', amount=None, cards=('7h', None)), ())
    >>> parse_action_line('# flop') is None
    True
    """
    words = line.split("#", 1)[0].split()
    match words:
        case []:
            return None
        case ["d", "dh", player, cards]:
            return DealHole(_player(player, line), _cards(cards, line))
        case ["d", "db", cards]:
            return DealBoard(_cards(cards, line))
        case [player, ("f" | "cc" | "pb") as verb]:
            return PlayerAction(_player(player, line), verb)
        case [player, "cbr", amount]:
            try:
                chips = _to_chips(Decimal(amount), scale)
            except ArithmeticError:
                raise NotationError(f"bad amount in action {line!r}") from None
            return PlayerAction(_player(player, line), "cbr", amount=chips)
        case [player, "sd"]:
            return PlayerAction(_player(player, line), "sd", cards=())
        case [player, "sd", cards]:
            return PlayerAction(_player(player, line), "sd", cards=_cards(cards, line))
        case [player, "sm"]:
            return PlayerAction(_player(player, line), "sm")
        case [player, "sm", "-"]:
            return PlayerAction(_player(player, line), "sm", cards=())
        case [player, "sm", cards]:
            return PlayerAction(_player(player, line), "sm", cards=_cards(cards, line))
    raise NotationError(f"unsupported action {line!r}")


_TOML_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n",
                 "\f": "\\f", "\r": "\\r"}
# What a TOML basic string cannot hold as it is: the quote, the backslash, the control
# characters (U+0000-U+001F, U+007F), and lone surrogates (no Unicode scalar value).
_TOML_UNSAFE = re.compile('["\\\\\x00-\x1f\x7f\ud800-\udfff]')


def _toml_escape(match: re.Match[str]) -> str:
    char = match.group()
    if "\ud800" <= char <= "\udfff":
        return "\ufffd"  # a lone surrogate cannot be written in any UTF: the replacement
    return _TOML_ESCAPES.get(char) or f"\\u{ord(char):04X}"


def toml_string(text: str) -> str:
    """``text`` as a TOML basic string: every quote, backslash and control character
    escaped, so a name with a newline or a quote never breaks the file.

    >>> print(toml_string('say "hi"\\n\\\\ \\x00 ünï'))
    "say \\"hi\\"\\n\\\\ \\u0000 ünï"
    """
    return '"' + _TOML_UNSAFE.sub(_toml_escape, text) + '"'


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    raise TypeError(f"cannot write {value!r} as a PHH value")


def dumps(fields: Mapping[str, Any]) -> str:
    """Write one hand's fields as PHH (TOML) text, in the given order.

    >>> print(dumps({"variant": "NT", "antes": [0, 0], "ante_trimming_status": False}))
    variant = "NT"
    antes = [0, 0]
    ante_trimming_status = false
    <BLANKLINE>
    """
    return "".join(f"{name} = {_toml_value(value)}\n" for name, value in fields.items())
