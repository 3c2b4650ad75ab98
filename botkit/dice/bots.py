"""Bots of the dice game; each reads only the decision view (``decision_view``: the
rule set, the sheets, the turn's dice and the legal moves) and answers one move.

* :class:`RandomBot` — a uniformly random legal move (roll or score, random holds or box).
* :class:`GreedyBot` — the best immediate score: it holds the dice that make the box
  scoring most now and re-rolls the others while rolls remain; it scores at once when
  that box uses every die (or after the last roll).
* :class:`ExpectedValueBot` — holds chosen by exact expectation over the turn's
  remaining rolls (:mod:`botkit.dice.strategy`); the value of the final dice is the
  best open box's score, plus (``bonus_weight`` > 0) a bonus-aware term for the boxes
  the upper bonus counts.
* :class:`OptimalBot` — the exact optimal solitaire policy (maximum expected final
  score) by dynamic programming over the sheet, for rule sets small enough
  (:data:`MAX_DP_WORK`); a larger rule set (Yatzy) gets the expected-value bot.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from math import comb
from typing import Any

from botkit.bot import Bot, Json
from botkit.dice.strategy import MAX_WORK, Tables, holds_for, layers, table_size
from engine.dice.rules import Combination, Rules
from engine.game import random_move

__all__ = ["MAX_DP_WORK", "ExpectedValueBot", "GreedyBot", "OptimalBot", "RandomBot",
           "SheetSolver", "read_view"]

MAX_DP_WORK = 60_000_000
"""The most work (states × operations per state) the optimal bot does before its first
move; Yatzy's 2^15 × 64 states need some 3 × 10^10 and get the expected-value bot."""

_RULES: dict[str, Rules] = {}


class Situation:
    """What a dice bot reads from a decision view."""

    __slots__ = ("dice", "open", "rolls_left", "rules", "sheet", "upper")

    def __init__(self, rules: Rules, dice: list[int], rolls_left: int, open_boxes: list[str],
                 sheet: dict[str, int | None]) -> None:
        self.rules, self.dice, self.rolls_left = rules, dice, rolls_left
        self.open, self.sheet = open_boxes, sheet
        self.upper = sum(sheet.get(b) or 0 for b in rules.bonus_boxes)


def read_view(view: Json) -> Situation:
    """The rule set (compiled once per identity), the dice, rolls left, the open boxes
    (from the legal ``score`` move) and the bot's own sheet."""
    data = view["rules"]
    rules = _RULES.get(data["id"])
    if rules is None:
        if len(_RULES) >= 64:
            _RULES.clear()
        rules = _RULES[data["id"]] = Rules.from_json(data)
    turn = view["turn"]
    score = next(m for m in view["moves"] if m["kind"] == "score")
    boxes = next(s["boxes"] for s in view["sheets"] if s["seat"] == view["seat"])
    sheet = dict(zip(rules.index, boxes, strict=True))
    rolls_left = turn["rolls_left"] if any(m["kind"] == "roll" for m in view["moves"]) else 0
    return Situation(rules, list(turn["dice"]), rolls_left,
                     list(score["params"]["box"]["options"]), sheet)


def _score(box: str) -> Json:
    return {"kind": "score", "box": box}


def _roll(hold: list[int]) -> Json:
    return {"kind": "roll", "hold": hold}


class RandomBot(Bot):
    """A uniformly chosen legal move (``engine.game.random_move``)."""

    name = "random"

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()

    def act(self, view: Json) -> Json:
        return random_move(view["moves"], self.rng)


def counting_dice(box: Combination, counts: Sequence[int]) -> list[int]:
    """The multiset (counts per face) of the dice that make ``box`` score now: the
    dice showing x (x:s), the t or h × t dice of a kind, one die per face of the run;
    every die for the families scored on all dice; none if the box scores nothing."""
    if box.made(counts) is None:
        return [0] * len(counts)
    out = [0] * len(counts)
    family = box.family
    if family == "face":
        out[box.face] = counts[box.face]
    elif family == "run":
        m = box.length
        for s in [box.start] if box.start else range(box.faces - m + 1, 0, -1):
            if all(counts[f] for f in range(s, s + m)):
                for f in range(s, s + m):
                    out[f] = 1
                break
    elif family == "kind":
        for f in [box.face] if box.face else range(box.faces, 0, -1):
            if counts[f] >= box.count:
                out[f] = box.count
                break
    elif family == "groups":
        faces = box.group_faces or [f for f in range(box.faces, 0, -1)
                                    if counts[f] >= box.count][:box.groups]
        for f in faces:
            out[f] = box.count
    else:
        out = list(counts)
    return out


class GreedyBot(Bot):
    """The best immediate score (see the module)."""

    name = "greedy"

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()

    def act(self, view: Json) -> Json:
        return greedy_move(read_view(view))


def greedy_move(situation: Situation) -> Json:
    """The greedy bot's move in ``situation``."""
    rules = situation.rules
    counts = [0] * (rules.faces + 1)
    for die in situation.dice:
        counts[die] += 1
    best = max(situation.open, key=lambda b: rules.by_id[b].score(counts))
    if situation.rolls_left == 0:
        return _score(best)
    used = counting_dice(rules.by_id[best], counts)
    if sum(used) == rules.dice:
        return _score(best)
    return _roll(holds_for(situation.dice, used))


class _TurnCache:
    """Stop values and expectation layers per sheet situation (bounded)."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self.items: dict[Any, tuple[list[list[float]], list[float], list[list[float]]]] = {}

    def get(self, key: Any) -> tuple[list[list[float]], list[float], list[list[float]]] | None:
        return self.items.get(key)

    def put(self, key: Any, value: tuple[list[list[float]], list[float],
                                         list[list[float]]]) -> None:
        if len(self.items) >= self.size:
            self.items.clear()
        self.items[key] = value


def _choose(tables: Tables, situation: Situation, columns: list[list[float]],
            stop: list[float], expected: list[list[float]]) -> Json:
    """Score the best open box, or roll with the keep of highest expectation."""
    position = tables.position(situation.dice)
    j = situation.rolls_left
    if j > 0:
        keep, value = tables.best_keep(position, expected[j - 1])
        if value > stop[position] + 1e-9:
            return _roll(holds_for(situation.dice, tables.keeps[keep]))
    best = max(range(len(situation.open)), key=lambda i: columns[i][position])
    return _score(situation.open[best])


class ExpectedValueBot(Bot):
    """Exact expectation over the rolls left in the turn (see the module).

    ``bonus_weight`` ``w``: while the upper bonus is still open and reachable, a box
    it counts is worth ``score + w × (score − par)``, ``par`` being the box's share of
    the threshold (Yatzy: three dice, 3 × x); a score that reaches the threshold is
    worth its points plus the bonus. ``w = 0`` values the final dice by their best
    immediate score alone (the bonus counted only when earned by this box).
    """

    name = "ev"

    def __init__(self, rng: random.Random | None = None, bonus_weight: float = 3.0) -> None:
        self.rng = rng or random.Random()
        self.bonus_weight = bonus_weight
        self.cache = _TurnCache()

    def act(self, view: Json) -> Json:
        situation = read_view(view)
        rules = situation.rules
        if table_size(rules.dice, rules.faces) > MAX_WORK:
            return greedy_move(situation)
        tables = Tables.of(rules)
        upper = min(situation.upper, rules.threshold)
        key = (rules.id, tuple(situation.open), upper)
        cached = self.cache.get(key)
        if cached is None:
            columns = self._columns(tables, situation, upper)
            stop = [max(values) for values in zip(*columns, strict=True)]
            cached = (columns, stop, layers(tables, stop, rules.rolls - 1))
            self.cache.put(key, cached)
        return _choose(tables, situation, *cached)

    def _columns(self, tables: Tables, situation: Situation, upper: int) -> list[list[float]]:
        rules = situation.rules
        counted = [b for b in situation.open if b in rules.bonus_boxes]
        earned = bool(rules.bonus_boxes) and upper >= rules.threshold
        reachable = upper + sum(rules.by_id[b].max_points() for b in counted) >= rules.threshold
        total_max = sum(rules.by_id[b].max_points() for b in rules.bonus_boxes) or 1
        columns: list[list[float]] = []
        for box in situation.open:
            scores = tables.columns[box]
            if box not in rules.bonus_boxes or earned:
                columns.append([float(s) for s in scores])
                continue
            par = rules.threshold * rules.by_id[box].max_points() / total_max
            w = self.bonus_weight if reachable else 0.0
            need = rules.threshold - upper
            columns.append([s + rules.bonus_points if s >= need else s + w * (s - par)
                            for s in scores])
        return columns


class SheetSolver:
    """The exact optimal solitaire policy of one rule set: ``value[(filled, upper)]`` is
    the expected points still to come from the start of a turn with the boxes of the
    bit mask ``filled`` used and ``upper`` points (capped at the threshold) towards the
    bonus. Built bottom-up over the masks (Bellman), each turn by :func:`layers`."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.tables = Tables.of(rules)
        self.ids = [c.id for c in rules.combinations]
        self.bit = {b: 1 << i for i, b in enumerate(self.ids)}
        self.full = (1 << len(self.ids)) - 1
        self.uppers = list(range(rules.threshold + 1)) if rules.bonus_boxes else [0]
        self.value: dict[tuple[int, int], float] = {}
        self._solve()

    @staticmethod
    def work(rules: Rules) -> int:
        """An estimate of the operations the whole solution takes."""
        states = (1 << len(rules.combinations)) * ((rules.threshold + 1) if rules.bonus_boxes
                                                    else 1)
        size = table_size(rules.dice, rules.faces)
        finals = comb(rules.dice + rules.faces - 1, rules.dice)
        per_state = finals * len(rules.combinations) + 2 * size * max(rules.rolls - 1, 1)
        return states * per_state

    def stop_columns(self, filled: int, upper: int) -> tuple[list[str], list[list[float]]]:
        """Per open box, the value of scoring each final position there: its points,
        the bonus if this reaches it, and the expected rest of the game after."""
        rules, tables = self.rules, self.tables
        opened = [b for b in self.ids if not filled & self.bit[b]]
        columns = []
        for box in opened:
            scores = tables.columns[box]
            after = filled | self.bit[box]
            if box in rules.bonus_boxes and upper < rules.threshold:
                future = [self.value[(after, min(upper + s, rules.threshold))] for s in scores]
                gain = [rules.bonus_points if upper + s >= rules.threshold else 0
                        for s in scores]
                columns.append([s + g + v for s, g, v in zip(scores, gain, future,
                                                             strict=True)])
            else:
                rest = self.value[(after, upper)]
                columns.append([s + rest for s in scores])
        return opened, columns

    def _solve(self) -> None:
        tables, rolls = self.tables, self.rules.rolls
        idxs, probs = tables.first_roll
        for filled in range(self.full, -1, -1):
            for upper in self.uppers:
                if filled == self.full:
                    self.value[(filled, upper)] = 0.0
                    continue
                _, columns = self.stop_columns(filled, upper)
                stop = [max(v) for v in zip(*columns, strict=True)]
                final = stop
                if rolls > 1:
                    expected = layers(tables, stop, rolls - 1)[-1]
                    final = tables.improve(stop, expected)
                self.value[(filled, upper)] = sum(p * final[i] for i, p in zip(idxs, probs,
                                                                               strict=True))

    def expected_score(self) -> float:
        """The optimal expected final score of a whole game."""
        return self.value[(0, 0)]


class OptimalBot(Bot):
    """The exact optimal solitaire policy where :class:`SheetSolver` is feasible
    (:data:`MAX_DP_WORK`), else :class:`ExpectedValueBot`. ``exact`` says which played
    the last move."""

    name = "optimal"
    _solvers: dict[str, SheetSolver | None] = {}

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()
        self.fallback = ExpectedValueBot(self.rng)
        self.cache = _TurnCache()
        self.exact = False

    @classmethod
    def solver(cls, rules: Rules) -> SheetSolver | None:
        """The solved rule set (solved once per process), or ``None`` if too large."""
        if rules.id not in cls._solvers:
            small = (table_size(rules.dice, rules.faces) <= MAX_WORK
                     and SheetSolver.work(rules) <= MAX_DP_WORK)
            cls._solvers[rules.id] = SheetSolver(rules) if small else None
        return cls._solvers[rules.id]

    def act(self, view: Json) -> Json:
        situation = read_view(view)
        solver = self.solver(situation.rules)
        self.exact = solver is not None
        if solver is None:
            return self.fallback.act(view)
        rules = situation.rules
        filled = sum(solver.bit[b] for b, v in situation.sheet.items() if v is not None)
        upper = min(situation.upper, rules.threshold) if rules.bonus_boxes else 0
        key = (filled, upper)
        cached = self.cache.get(key)
        if cached is None:
            opened, columns = solver.stop_columns(filled, upper)
            assert opened == situation.open, (opened, situation.open)
            stop = [max(values) for values in zip(*columns, strict=True)]
            cached = (columns, stop, layers(solver.tables, stop, rules.rolls - 1))
            self.cache.put(key, cached)
        return _choose(solver.tables, situation, *cached)
