"""Exact turn arithmetic of the dice game for bots: dice as multisets, holds as
sub-multisets, re-rolls with multinomial probabilities (docs/dice.md, "Bots").

A position is the multiset of faces showing (a count per face), so Yatzy's 7,776
ordered rolls are 252 positions and its 32 holds per roll at most 32 *keeps* out of
462. :class:`Tables` enumerates them once per rule set; :func:`layers` does one
turn's expectimax for any value of the final position:

* ``W0[f]`` — the value of stopping with ``f`` (given);
* ``R_j[k] = Σ P(k → f) · W_j[f]`` — keep ``k``, roll the rest, ``j`` rolls left after;
* ``W_{j+1}[f] = max(W0[f], max over keeps k ⊊ f of R_j[k])``.

>>> from engine.dice.rules import Rules, shipped_rules
>>> tables = Tables.of(Rules.from_json(shipped_rules("yatzy")))
>>> len(tables.finals), len(tables.keeps), sum(len(i) for i, _ in tables.trans)
(252, 462, 4368)
>>> round(sum(tables.trans[tables.keep_index[tables.zero]][1]), 12)
1.0
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product
from math import comb, factorial
from operator import mul

from engine.dice.rules import Rules

__all__ = ["MAX_WORK", "Tables", "holds_for", "layers", "table_size"]

MAX_WORK = 1_500_000
"""The most transition entries a rule set's tables may have for the exact bots; the
largest rule sets (9 dice, 9 faces: 3.1 million) make the expected-value bot fall back
to the greedy one."""

Counts = tuple[int, ...]


def table_size(dice: int, faces: int) -> int:
    """Transition entries of a rule set: Σ over keep sizes k of (keeps of k dice) ×
    (outcomes of the other dice) — the work of one expectation layer.

    >>> table_size(5, 6), table_size(9, 9)
    (4368, 3124550)
    """
    return sum(comb(k + faces - 1, k) * comb(dice - k + faces - 1, dice - k)
               for k in range(dice + 1))


def _vectors(total: int, faces: int) -> list[Counts]:
    """Every count vector (index 0 unused, as ``counts_of``) of exactly ``total`` dice."""
    out: list[Counts] = []

    def walk(face: int, left: int, acc: list[int]) -> None:
        if face == faces:
            out.append((0, *acc, left))
            return
        for c in range(left, -1, -1):
            walk(face + 1, left - c, [*acc, c])

    walk(1, total, [])
    return out


class Tables:
    """Positions, keeps, transitions and box scores of one rule set."""

    _cache: dict[str, Tables] = {}

    def __init__(self, rules: Rules) -> None:
        n, p = rules.dice, rules.faces
        self.rules = rules
        self.dice, self.faces, self.rolls = n, p, rules.rolls
        self.zero: Counts = (0,) * (p + 1)
        self.finals = _vectors(n, p)
        self.final_index = {f: i for i, f in enumerate(self.finals)}
        self.keeps = [k for size in range(n + 1) for k in _vectors(size, p)]
        self.keep_index = {k: i for i, k in enumerate(self.keeps)}
        outcomes: dict[int, list[tuple[Counts, float]]] = {}
        for size in range(n + 1):
            scale = factorial(size) / p ** size
            rows = []
            for o in _vectors(size, p):
                weight = scale
                for c in o:
                    weight /= factorial(c)
                rows.append((o, weight))
            outcomes[size] = rows
        self.trans: list[tuple[tuple[int, ...], tuple[float, ...]]] = []
        for k in self.keeps:
            rows = outcomes[n - sum(k)]
            self.trans.append((
                tuple(self.final_index[tuple(a + b for a, b in zip(k, o, strict=True))]
                      for o, _ in rows),
                tuple(w for _, w in rows)))
        self.subkeeps: list[tuple[int, ...]] = []  # proper sub-multisets of each final
        for f in self.finals:
            subs = [self.keep_index[s] for s in product(*(range(c + 1) for c in f))
                    if s != f]
            self.subkeeps.append(tuple(subs))
        self.box_ids = [c.id for c in rules.combinations]
        self.columns = {c.id: [c.score(f) for f in self.finals] for c in rules.combinations}
        first = self.trans[self.keep_index[self.zero]]
        self.first_roll = first

    @classmethod
    def of(cls, rules: Rules) -> Tables:
        """The tables of ``rules`` (built once per rule-set identity)."""
        tables = cls._cache.get(rules.id)
        if tables is None:
            if len(cls._cache) >= 8:  # the largest allowed take some 100 MB
                cls._cache.clear()
            tables = cls._cache[rules.id] = cls(rules)
        return tables

    def position(self, dice: Sequence[int]) -> int:
        """The index of the final position the dice show."""
        counts = [0] * (self.faces + 1)
        for die in dice:
            counts[die] += 1
        return self.final_index[tuple(counts)]

    def expect(self, values: Sequence[float]) -> list[float]:
        """``R[k] = Σ P(k → f) · values[f]`` for every keep ``k``."""
        get = values.__getitem__
        return [sum(map(mul, probs, map(get, idxs))) for idxs, probs in self.trans]

    def best_keep(self, position: int, expected: Sequence[float]) -> tuple[int, float]:
        """The proper keep of ``position`` with the highest ``expected`` value (the
        first of equals) and that value."""
        subs = self.subkeeps[position]
        best, value = subs[0], expected[subs[0]]
        for k in subs:
            if expected[k] > value:
                best, value = k, expected[k]
        return best, value

    def improve(self, stop: Sequence[float], expected: Sequence[float]) -> list[float]:
        """``W[f] = max(stop[f], max over proper keeps of expected)``."""
        get = expected.__getitem__
        return [max(s, max(map(get, subs))) for s, subs in zip(stop, self.subkeeps,
                                                                strict=True)]


def layers(tables: Tables, stop: Sequence[float], depth: int) -> list[list[float]]:
    """``[R_0, ..., R_{depth-1}]`` for the stop values ``stop`` (``W0``): ``R_j`` is
    the value of each keep with ``j`` rolls left after the roll it starts."""
    out: list[list[float]] = []
    values: Sequence[float] = stop
    for j in range(depth):
        expected = tables.expect(values)
        out.append(expected)
        if j + 1 < depth:
            values = tables.improve(stop, expected)
    return out


def holds_for(dice: Sequence[int], keep: Sequence[int]) -> list[int]:
    """Die indices that keep the multiset ``keep`` (counts per face) of ``dice``: the
    first dice of each face.

    >>> holds_for([4, 2, 4, 6, 4], (0, 0, 0, 0, 2, 0, 1))
    [0, 2, 3]
    """
    need = list(keep)
    out = []
    for i, die in enumerate(dice):
        if need[die]:
            need[die] -= 1
            out.append(i)
    return out
