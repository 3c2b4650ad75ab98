"""Rule sets of the generic dice game: the combination families, their constraints,
their points, validation and identity (docs/dice.md).

A rule set is JSON: dice, faces and rolls, 1–30 combinations drawn from the families
of the original specification's appendix (``004-generic-dice-game``, Liite 1) and an
optional upper bonus. :func:`validate_rules` checks it and returns it normalised
(defaults filled, an ``id`` added); :class:`Rules` is the compiled form that scores
dice. A die with ``faces`` = *p* faces shows 1..*p* (the seed's *p* is the dice's
largest face value, "noppien maksimisilmäluku", 2..9).

>>> rules = Rules.from_json(shipped_rules("yatzy"))
>>> [rules.score(box, [3, 3, 3, 5, 5]) for box in ("threes", "one_pair", "two_pairs",
...                                                 "full_house", "yatzy")]
[9, 10, 16, 19, 0]
>>> house = {"id": "house", "family": "full_house"}
>>> try:
...     validate_rules({"dice": 4, "faces": 6, "rolls": 3, "combinations": [house]})
... except MalformedAction as error:
...     print(error.code, "-", error)
rules_full_house - Combination 'house' (full_house): a full house needs an odd number of dice, \
at least 3 (dice = 4).
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from engine.errors import MalformedAction

Json = dict[str, Any]

__all__ = ["FAMILIES", "MAX_COMBINATIONS", "SHIPPED", "Combination", "Rules", "counts_of",
           "rules_id", "shipped_rules", "validate_rules"]

MAX_DICE = MAX_FACES = MAX_ROLLS = 9
MAX_COMBINATIONS = 30
MAX_POINTS = 1000  # a fixed score or a bonus
YATZY_POINTS = 50

# family -> (required parameters, optional parameters)
FAMILIES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "face": (("face",), ()),  # x:s — at least one die showing x
    "run": (("length",), ("start",)),  # m-long run of consecutive faces
    "kind": (("count",), ("face",)),  # t of a kind (of face s)
    "groups": (("groups", "count"), ("faces",)),  # h times t of a kind, different faces
    "divisible": (("divisor",), ()),  # every face divisible by k (2 or 3)
    "indivisible": (("divisor",), ()),  # no face divisible by k (2 or 3)
    "yatzy": ((), ("face",)),  # all n dice the same (face s)
    "fair_split": ((), ()),  # two non-empty halves showing the same faces
    "greedy_split": ((), ()),  # the same, all dice but one
    "full_house": ((), ("faces",)),  # (n-1)/2 of s1 and (n+1)/2 of s2
    "chance": ((), ()),  # anything
}
COMBINATION_KEYS = {"id", "name", "family", "points"}
RULES_KEYS = {"id", "name", "dice", "faces", "rolls", "combinations", "bonus"}
BONUS_KEYS = {"threshold", "points", "boxes"}


def _fail(code: str, message: str) -> MalformedAction:
    return MalformedAction(code, message)


def _int(value: Any, what: str, low: int, high: int, code: str) -> int:
    if type(value) is not int or not low <= value <= high:
        raise _fail(code, f"{what} is a whole number from {low} to {high}, not {value!r}.")
    return value


def counts_of(dice: Sequence[int], faces: int) -> tuple[int, ...]:
    """How many dice show each face: index ``f`` (1..faces) holds the count of f.

    >>> counts_of([3, 1, 3], 4)
    (0, 1, 0, 2, 0)
    """
    counts = [0] * (faces + 1)
    for die in dice:
        counts[die] += 1
    return tuple(counts)


# ------------------------------------------------------------------ combinations


@dataclass(frozen=True, slots=True)
class Combination:
    """One box of the score sheet: a family with its parameters. ``fixed``: the
    rule set's ``points`` (a fixed score when the condition holds), else ``None``:
    the family's own points (docs/dice.md, "Points")."""

    id: str
    name: str
    family: str
    dice: int
    faces: int
    face: int = 0  # face, kind (0: any), yatzy (0: any)
    length: int = 0  # run
    start: int = 0  # run (0: any)
    count: int = 0  # kind, groups
    groups: int = 0  # groups
    group_faces: tuple[int, ...] = ()  # groups, full_house (() = any)
    divisor: int = 0  # divisible, indivisible
    fixed: int | None = None

    def score(self, counts: Sequence[int]) -> int:
        """The points these dice (as :func:`counts_of`) score in this box (0 if the
        condition does not hold)."""
        made = self.made(counts)
        if made is None:
            return 0
        return made if self.fixed is None else self.fixed

    def made(self, counts: Sequence[int]) -> int | None:
        """``None`` if the condition does not hold, else the family's own points."""
        family, p = self.family, self.faces
        if family == "face":
            have = counts[self.face]
            return self.face * have if have else None
        if family == "run":
            m = self.length
            starts = [self.start] if self.start else range(p - m + 1, 0, -1)
            for s in starts:
                if all(counts[f] for f in range(s, s + m)):
                    return m * s + m * (m - 1) // 2
            return None
        if family == "kind":
            t = self.count
            for f in [self.face] if self.face else range(p, 0, -1):
                if counts[f] >= t:
                    return t * f
            return None
        if family == "groups":
            t, h = self.count, self.groups
            chosen = ([f for f in self.group_faces if counts[f] >= t] if self.group_faces
                      else [f for f in range(p, 0, -1) if counts[f] >= t][:h])
            return t * sum(chosen) if len(chosen) == h else None
        total = sum(f * c for f, c in enumerate(counts))
        if family == "chance":
            return total
        if family == "divisible":
            ok = all(not c for f, c in enumerate(counts) if f % self.divisor)
            return total if ok else None
        if family == "indivisible":
            ok = all(not c for f, c in enumerate(counts) if f and not f % self.divisor)
            return total if ok else None
        if family == "yatzy":
            ok = counts[self.face] == self.dice if self.face else max(counts) == self.dice
            return YATZY_POINTS if ok else None
        if family == "fair_split":
            return total if all(c % 2 == 0 for c in counts) else None
        if family == "greedy_split":
            odd = [f for f, c in enumerate(counts) if c % 2]
            return total - odd[0] if len(odd) == 1 else None
        if family == "full_house":
            small = (self.dice - 1) // 2
            shown = [(c, f) for f, c in enumerate(counts) if c]
            if sorted(c for c, _ in shown) != [small, small + 1]:
                return None
            if self.group_faces:
                low, high = self.group_faces
                if counts[low] != small or counts[high] != small + 1:
                    return None
            return total
        raise AssertionError(family)

    def max_points(self) -> int:
        """The most this box can score with these dice (for the bonus check).

        Tested against every possible roll in tests/dice."""
        if self.fixed is not None:
            return self.fixed
        n, p, family = self.dice, self.faces, self.family
        if family == "face":
            return n * self.face
        if family == "run":
            m = self.length
            s = self.start or p - m + 1
            return m * s + m * (m - 1) // 2
        if family == "kind":
            return self.count * (self.face or p)
        if family == "groups":
            faces = self.group_faces or tuple(range(p, p - self.groups, -1))
            return self.count * sum(faces)
        if family == "divisible":
            return n * (p - p % self.divisor)
        if family == "indivisible":
            return n * (p if p % self.divisor else p - 1)
        if family == "yatzy":
            return YATZY_POINTS
        if family == "fair_split" or family == "chance":
            return n * p
        if family == "greedy_split":
            return (n - 1) * p
        if family == "full_house":
            small = (n - 1) // 2
            low, high = self.group_faces or (p - 1, p)
            return small * low + (small + 1) * high
        raise AssertionError(family)


def _describe(family: str, data: Json) -> str:
    """A default name: "Threes", "Run of 4", "3 of a kind"..."""
    words = {1: "Ones", 2: "Twos", 3: "Threes", 4: "Fours", 5: "Fives", 6: "Sixes",
             7: "Sevens", 8: "Eights", 9: "Nines"}
    if family == "face":
        return words[data["face"]]
    if family == "run":
        if data.get("start"):
            return "-".join(str(f) for f in range(data["start"],
                                                   data["start"] + data["length"]))
        return f"Run of {data['length']}"
    if family == "kind":
        tail = f" ({data['face']}s)" if data.get("face") else ""
        return f"{data['count']} of a kind{tail}"
    if family == "groups":
        return f"{data['groups']} × {data['count']} of a kind"
    if family in ("divisible", "indivisible"):
        return ("All" if family == "divisible" else "None") + f" divisible by {data['divisor']}"
    if family == "yatzy" and data.get("face"):
        return f"Yatzy ({data['face']}s)"
    return family.replace("_", " ").capitalize()


def _label(combo: Json) -> str:
    family = combo.get("family", "?")
    extra = ", ".join(f"{k}={combo[k]}" for k in ("length", "start", "count", "groups",
                                                   "face", "faces", "divisor") if k in combo)
    return f"Combination {combo.get('id')!r} ({family}{', ' + extra if extra else ''})"


def _check_combination(data: Any, n: int, p: int, index: int) -> Json:
    """One combination, normalised; raises MalformedAction naming the problem."""
    if not isinstance(data, dict):
        raise _fail("rules_malformed", f"Combination {index + 1} is not an object.")
    box_id = data.get("id")
    if not isinstance(box_id, str) or not 1 <= len(box_id) <= 40 or not all(
            c.isascii() and (c.isalnum() or c == "_") for c in box_id) or box_id != box_id.lower():
        raise _fail("rules_malformed", f"Combination {index + 1}: the id is 1 to 40 lowercase "
                    f"letters, digits or _ (got {box_id!r}).")
    family = data.get("family")
    if family not in FAMILIES:
        raise _fail("rules_family", f"Combination {box_id!r}: unknown family {family!r} "
                    f"(the families: {', '.join(FAMILIES)}).")
    required, optional = FAMILIES[family]
    unknown = set(data) - COMBINATION_KEYS - set(required) - set(optional)
    if unknown:
        raise _fail("rules_malformed", f"Combination {box_id!r}: a {family} combination has "
                    f"no {', '.join(sorted(unknown))}.")
    missing = [key for key in required if key not in data]
    if missing:
        raise _fail("rules_malformed", f"Combination {box_id!r}: a {family} combination "
                    f"needs {', '.join(missing)}.")
    name = data.get("name")
    if name is not None and (not isinstance(name, str) or not 1 <= len(name) <= 40
                             or not name.isprintable()):
        raise _fail("rules_malformed", f"Combination {box_id!r}: the name is 1 to 40 "
                    "printable characters.")
    out: Json = {"id": box_id, "family": family}
    where = _label(data)

    def whole(key: str, low: int = 1, high: int = 10**6) -> int:
        value = data[key]
        if type(value) is not int or not low <= value <= high:
            raise _fail("rules_malformed", f"{where}: {key} is a whole number"
                        f"{f' from {low} to {high}' if high < 10**6 else ''}, not {value!r}.")
        return value

    def face(key: str) -> int:  # the seed's x <= p and s <= p
        value = whole(key)
        if value > p:
            raise _fail("rules_face", f"{where}: {key} {value} is more than the dice's "
                        f"largest face {p} (the seed: {key} ≤ p).")
        return value

    if family == "face":
        out["face"] = face("face")
    elif family == "run":
        m = out["length"] = whole("length")
        if not 2 <= m <= min(n, p):  # seed: 2 <= m <= n, m <= p
            raise _fail("rules_run_length", f"{where}: a run is 2 to min(dice, faces) = "
                        f"{min(n, p)} long, not {m}.")
        if "start" in data:
            s = out["start"] = whole("start")
            if s + m - 1 > p:
                raise _fail("rules_run_start", f"{where}: the run {s}..{s + m - 1} goes "
                            f"beyond the largest face {p}.")
    elif family == "kind":
        t = out["count"] = whole("count")
        if not 2 <= t <= n:  # seed: 2 <= t <= n, s <= p
            raise _fail("rules_kind_count", f"{where}: t of a kind needs 2 ≤ t ≤ dice = {n}, "
                        f"not t = {t}.")
        if "face" in data:
            out["face"] = face("face")
    elif family == "groups":
        h, t = out["groups"], out["count"] = whole("groups"), whole("count")
        if h < 2:  # seed: h >= 2, h*t <= n, h*t <= p, s_i <= p
            raise _fail("rules_groups", f"{where}: h groups needs h ≥ 2, not {h}.")
        if h * t > n:
            raise _fail("rules_groups_dice", f"{where}: {h} groups of {t} need h × t = "
                        f"{h * t} dice; there are {n} (the seed: h × t ≤ n).")
        if h * t > p:
            raise _fail("rules_groups_faces", f"{where}: h × t = {h * t} is more than the "
                        f"largest face {p} (the seed: h × t ≤ p).")
        if "faces" in data:
            out["faces"] = _faces(data["faces"], h, p, where, "the groups")
    elif family in ("divisible", "indivisible"):
        k = out["divisor"] = whole("divisor")
        if k not in (2, 3):  # seed: (k = 2 and p >= 2) or (k = 3 and p >= 3)
            raise _fail("rules_divisor", f"{where}: k is 2 or 3, not {k}.")
        if k > p:
            raise _fail("rules_divisor", f"{where}: k = {k} needs faces ≥ {k} (faces = {p}).")
    elif family == "yatzy":
        if "face" in data:
            out["face"] = face("face")
    elif family == "fair_split":
        if n % 2:  # seed: n even
            raise _fail("rules_fair_split", f"{where}: a fair split needs an even number of "
                        f"dice (dice = {n}).")
    elif family == "greedy_split":
        if n % 2 == 0 or n < 3:  # seed: n odd, n >= 3
            raise _fail("rules_greedy_split", f"{where}: a greedy split needs an odd number "
                        f"of dice, at least 3 (dice = {n}).")
    elif family == "full_house":
        if n % 2 == 0 or n < 3:  # seed: n odd, n >= 3
            raise _fail("rules_full_house", f"{where}: a full house needs an odd number of "
                        f"dice, at least 3 (dice = {n}).")
        if "faces" in data:
            out["faces"] = _faces(data["faces"], 2, p, where, "the full house")
    if "points" in data:
        out["points"] = whole("points", 0, MAX_POINTS)
    out["name"] = name if name is not None else _describe(family, out)
    return out


def _faces(value: Any, count: int, p: int, where: str, what: str) -> list[int]:
    if (not isinstance(value, list) or len(value) != count
            or any(type(f) is not int for f in value)):
        raise _fail("rules_malformed", f"{where}: faces lists {count} whole numbers for "
                    f"{what}.")
    if any(not 1 <= f <= p for f in value):
        raise _fail("rules_face", f"{where}: a face is 1 to the largest face {p} (the seed: "
                    "s ≤ p).")
    if len(set(value)) != count:
        raise _fail("rules_faces_differ", f"{where}: the faces of {what} must differ.")
    return list(value)


def rules_id(rules: Json) -> str:
    """The identity of a rule set: the first 16 hex digits of the SHA-256 of its
    canonical JSON (sorted keys, no spaces) without names and without ``id``. Dice,
    faces, rolls, the combinations (ids, families, parameters, points, order) and
    the bonus make it; renaming the set or a box does not change it."""
    body = {"dice": rules["dice"], "faces": rules["faces"], "rolls": rules["rolls"],
            "bonus": rules.get("bonus"),
            "combinations": [{k: v for k, v in c.items() if k != "name"}
                             for c in rules["combinations"]]}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def validate_rules(data: Any) -> Json:
    """A rule set checked and normalised (names and defaults filled, ``id`` set).

    Raises :class:`~engine.errors.MalformedAction` with a stable code (docs/dice.md,
    "Refusals") and a sentence naming the problem.
    """
    if not isinstance(data, dict):
        raise _fail("rules_malformed", "A rule set is a JSON object.")
    unknown = set(data) - RULES_KEYS
    if unknown:
        raise _fail("rules_malformed", f"A rule set has no {', '.join(sorted(unknown))} "
                    f"(its keys: {', '.join(sorted(RULES_KEYS))}).")
    name = data.get("name", "Custom dice")
    if not isinstance(name, str) or not 1 <= len(name) <= 60 or not name.isprintable():
        raise _fail("rules_malformed", "The rule set's name is 1 to 60 printable characters.")
    n = _int(data.get("dice"), "dice", 1, MAX_DICE, "rules_dice")
    p = _int(data.get("faces"), "faces (the largest face value)", 2, MAX_FACES, "rules_faces")
    rolls = _int(data.get("rolls"), "rolls", 1, MAX_ROLLS, "rules_rolls")
    combos = data.get("combinations")
    if not isinstance(combos, list) or not 1 <= len(combos) <= MAX_COMBINATIONS:
        raise _fail("rules_count", f"A rule set has 1 to {MAX_COMBINATIONS} combinations.")
    boxes = [_check_combination(c, n, p, i) for i, c in enumerate(combos)]
    ids = [box["id"] for box in boxes]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise _fail("rules_duplicate_id", f"Combination ids must differ: {twice} repeat.")
    out: Json = {"name": name, "dice": n, "faces": p, "rolls": rolls, "combinations": boxes,
                 "bonus": _check_bonus(data.get("bonus"), boxes, n, p)}
    out["id"] = rules_id(out)
    given = data.get("id")
    if given is not None and given != out["id"]:
        raise _fail("rules_id", f"The rule set's id is {out['id']}, not {given!r}: the id is "
                    "the hash of the rules (leave it out to have it computed).")
    return out


def _check_bonus(bonus: Any, boxes: list[Json], n: int, p: int) -> Json | None:
    if bonus is None:
        return None
    if not isinstance(bonus, dict) or set(bonus) - BONUS_KEYS:
        raise _fail("rules_bonus", "The bonus is {\"threshold\", \"points\", \"boxes\"}.")
    threshold = _int(bonus.get("threshold"), "The bonus threshold", 1, 10**4, "rules_bonus")
    points = _int(bonus.get("points"), "The bonus points", 0, MAX_POINTS, "rules_bonus")
    faces = [b["id"] for b in boxes if b["family"] == "face"]
    counted = bonus.get("boxes", faces)
    known = {b["id"]: b for b in boxes}
    if (not isinstance(counted, list) or not counted or len(set(map(str, counted))) != len(counted)
            or any(not isinstance(b, str) or b not in known for b in counted)):
        raise _fail("rules_bonus", "The bonus counts a non-empty list of different "
                    "combination ids of this rule set (default: the x:s boxes).")
    best = sum(_compile(known[b], n, p).max_points() for b in counted)
    if best < threshold:
        raise _fail("rules_bonus_unreachable", f"The bonus needs {threshold} points from "
                    f"{', '.join(counted)}, which score at most {best}.")
    return {"threshold": threshold, "points": points, "boxes": list(counted)}


def _compile(box: Json, n: int, p: int) -> Combination:
    family = box["family"]
    faces = tuple(box.get("faces", ()))
    return Combination(
        id=box["id"], name=box["name"], family=family, dice=n, faces=p,
        face=box.get("face", 0), length=box.get("length", 0), start=box.get("start", 0),
        count=box.get("count", 0), groups=box.get("groups", 0), group_faces=faces,
        divisor=box.get("divisor", 0), fixed=box.get("points"))


# ------------------------------------------------------------------ compiled


class Rules:
    """A validated rule set, compiled: the game and the bots score with it."""

    __slots__ = ("bonus_boxes", "bonus_index", "bonus_points", "by_id", "combinations", "dice",
                 "faces", "id", "index", "json", "name", "rolls", "threshold")

    def __init__(self, data: Json) -> None:
        """``data``: the output of :func:`validate_rules` (not checked again)."""
        self.json = data
        self.id: str = data["id"]
        self.name: str = data["name"]
        self.dice: int = data["dice"]
        self.faces: int = data["faces"]
        self.rolls: int = data["rolls"]
        self.combinations = tuple(_compile(b, self.dice, self.faces)
                                  for b in data["combinations"])
        self.by_id = {c.id: c for c in self.combinations}
        self.index = {c.id: i for i, c in enumerate(self.combinations)}
        bonus = data.get("bonus")
        self.threshold: int = bonus["threshold"] if bonus else 0
        self.bonus_points: int = bonus["points"] if bonus else 0
        self.bonus_boxes: frozenset[str] = frozenset(bonus["boxes"] if bonus else ())
        self.bonus_index = tuple(sorted(self.index[b] for b in self.bonus_boxes))

    @classmethod
    def from_json(cls, data: Json) -> Rules:
        """Validate and compile (cached by the rule set's identity)."""
        return _compiled(json.dumps(validate_rules(data), sort_keys=True))

    def score(self, box: str, dice: Sequence[int]) -> int:
        """The points ``dice`` (face values) score in ``box``."""
        return self.by_id[box].score(counts_of(dice, self.faces))

    def scores(self, dice: Sequence[int], boxes: Sequence[str] | None = None) -> dict[str, int]:
        """Points per box (all boxes, or ``boxes``) for ``dice``."""
        counts = counts_of(dice, self.faces)
        chosen = self.combinations if boxes is None else [self.by_id[b] for b in boxes]
        return {c.id: c.score(counts) for c in chosen}

    def upper(self, sheet: Sequence[int | None]) -> int:
        """The points the bonus counts on a sheet (points per box in sheet order,
        ``None`` for an open box)."""
        return sum(sheet[i] or 0 for i in self.bonus_index)

    def bonus(self, sheet: Sequence[int | None]) -> int:
        """The bonus a sheet (points in sheet order) has earned (0 without a bonus rule)."""
        if not self.bonus_index:
            return 0
        return self.bonus_points if self.upper(sheet) >= self.threshold else 0

    def total(self, sheet: Sequence[int | None]) -> int:
        """A sheet's total: its points and its bonus."""
        return sum(v or 0 for v in sheet) + self.bonus(sheet)


@lru_cache(maxsize=256)
def _compiled(text: str) -> Rules:
    return Rules(json.loads(text))


# ------------------------------------------------------------------ shipped

_UPPER = [{"id": word, "family": "face", "face": face}
          for face, word in enumerate(("ones", "twos", "threes", "fours", "fives", "sixes"), 1)]

SHIPPED: dict[str, Json] = {
    # Nordic (Scandinavian) Yatzy: 15 boxes, upper bonus 50 at 63 or more.
    "yatzy": {
        "name": "Yatzy", "dice": 5, "faces": 6, "rolls": 3,
        "combinations": [
            *_UPPER,
            {"id": "one_pair", "name": "One pair", "family": "kind", "count": 2},
            {"id": "two_pairs", "name": "Two pairs", "family": "groups", "groups": 2,
             "count": 2},
            {"id": "three_of_a_kind", "name": "Three of a kind", "family": "kind",
             "count": 3},
            {"id": "four_of_a_kind", "name": "Four of a kind", "family": "kind", "count": 4},
            {"id": "small_straight", "name": "Small straight", "family": "run", "length": 5,
             "start": 1},
            {"id": "large_straight", "name": "Large straight", "family": "run", "length": 5,
             "start": 2},
            {"id": "full_house", "name": "Full house", "family": "full_house"},
            {"id": "chance", "name": "Chance", "family": "chance"},
            {"id": "yatzy", "name": "Yatzy", "family": "yatzy"},
        ],
        "bonus": {"threshold": 63, "points": 50},
    },
    # Maxi Yatzy with the seed's families: 6 dice, 18 of its 20 boxes (no full house
    # 3+2 and no tower 4+2: no family of the seed makes them with 6 dice), 100 bonus
    # at 84, Maxi Yatzy 100; rolls are not saved from turn to turn.
    "maxi": {
        "name": "Maxi Yatzy (seed families)", "dice": 6, "faces": 6, "rolls": 3,
        "combinations": [
            *_UPPER,
            {"id": "one_pair", "name": "One pair", "family": "kind", "count": 2},
            {"id": "two_pairs", "name": "Two pairs", "family": "groups", "groups": 2,
             "count": 2},
            {"id": "three_pairs", "name": "Three pairs", "family": "groups", "groups": 3,
             "count": 2},
            {"id": "three_of_a_kind", "name": "Three of a kind", "family": "kind",
             "count": 3},
            {"id": "four_of_a_kind", "name": "Four of a kind", "family": "kind", "count": 4},
            {"id": "five_of_a_kind", "name": "Five of a kind", "family": "kind", "count": 5},
            {"id": "small_straight", "name": "Small straight", "family": "run", "length": 5,
             "start": 1},
            {"id": "large_straight", "name": "Large straight", "family": "run", "length": 5,
             "start": 2},
            {"id": "full_straight", "name": "Full straight", "family": "run", "length": 6,
             "start": 1},
            {"id": "villa", "name": "Villa (3+3)", "family": "groups", "groups": 2,
             "count": 3},
            {"id": "chance", "name": "Chance", "family": "chance"},
            {"id": "maxi_yatzy", "name": "Maxi Yatzy", "family": "yatzy", "points": 100},
        ],
        "bonus": {"threshold": 84, "points": 100},
    },
    # A short solitaire with the even-dice families: small enough for the exact
    # optimal policy (botkit.dice "optimal").
    "mini": {
        "name": "Mini (4 dice)", "dice": 4, "faces": 6, "rolls": 3,
        "combinations": [
            {"id": "pair", "name": "Pair", "family": "kind", "count": 2},
            {"id": "two_pairs", "name": "Two pairs", "family": "groups", "groups": 2,
             "count": 2},
            {"id": "three_of_a_kind", "name": "Three of a kind", "family": "kind",
             "count": 3},
            {"id": "run_3", "name": "Run of 3", "family": "run", "length": 3},
            {"id": "run_4", "name": "Run of 4", "family": "run", "length": 4},
            {"id": "all_even", "name": "All even", "family": "divisible", "divisor": 2},
            {"id": "all_odd", "name": "All odd", "family": "indivisible", "divisor": 2},
            {"id": "fair_split", "name": "Fair split", "family": "fair_split"},
            {"id": "chance", "name": "Chance", "family": "chance"},
            {"id": "yatzy", "name": "Four alike", "family": "yatzy", "points": 30},
        ],
        "bonus": None,
    },
    # Nine faces and odd dice: the families the others leave out.
    "nines": {
        "name": "Nines (5 dice, 9 faces)", "dice": 5, "faces": 9, "rolls": 3,
        "combinations": [
            {"id": "sevens", "family": "face", "face": 7},
            {"id": "eights", "family": "face", "face": 8},
            {"id": "nines", "family": "face", "face": 9},
            {"id": "pair_of_nines", "name": "Pair of nines", "family": "kind", "count": 2,
             "face": 9},
            {"id": "three_of_a_kind", "name": "Three of a kind", "family": "kind",
             "count": 3},
            {"id": "two_pairs", "name": "Two pairs", "family": "groups", "groups": 2,
             "count": 2},
            {"id": "run_4", "name": "Run of 4", "family": "run", "length": 4},
            {"id": "run_5", "name": "Run of 5", "family": "run", "length": 5},
            {"id": "thirds", "name": "All divisible by 3", "family": "divisible",
             "divisor": 3},
            {"id": "no_thirds", "name": "None divisible by 3", "family": "indivisible",
             "divisor": 3},
            {"id": "greedy_split", "name": "Greedy split", "family": "greedy_split"},
            {"id": "full_house", "name": "Full house", "family": "full_house"},
            {"id": "chance", "name": "Chance", "family": "chance"},
            {"id": "yatzy", "name": "Yatzy", "family": "yatzy"},
        ],
        "bonus": {"threshold": 72, "points": 50, "boxes": ["sevens", "eights", "nines"]},
    },
}
"""The shipped rule sets by key; ``yatzy`` is the default."""


@cache
def _shipped(key: str) -> str:
    return json.dumps(validate_rules(SHIPPED[key]))


def shipped_rules(key: str) -> Json:
    """A shipped rule set, validated (a fresh copy); KeyError if unknown."""
    return copy.deepcopy(json.loads(_shipped(key)))
