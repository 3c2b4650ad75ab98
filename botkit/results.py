"""Judging a match: mbb/hand with a 95 % confidence interval, crosstables, reports.

Luck dominates single hands, so results are means over many hands with a
normal-approximation 95 % interval (± 1.96 standard errors).  In a duplicate
match each *deal* is played once per seat rotation; the unit of the variance is
the deal group (a bot's summed result over the rotations of one deal), which is
what removes most of the card luck.

>>> mean_ci([1.0, 2.0, 3.0, 4.0])  # doctest: +ELLIPSIS
(2.5, 1.2651...)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Z95", "BotResult", "MatchResult", "estimates", "mean_ci", "per_hand_ci"]

Z95 = 1.959963984540054
"""The two-sided 95 % quantile of the standard normal distribution."""


def mean_ci(values: Sequence[float], z: float = Z95) -> tuple[float, float]:
    """Mean and half-width of its confidence interval (sample standard deviation, n − 1).

    >>> mean_ci([5.0])
    (5.0, inf)
    """
    n = len(values)
    if n == 0:
        return 0.0, math.inf
    mean = math.fsum(values) / n
    if n == 1:
        return mean, math.inf
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, z * math.sqrt(variance / n)


def per_hand_ci(groups: Sequence[float], hands_per_group: int) -> tuple[float, float]:
    """Mean per hand and its 95 % half-width from per-group sums (duplicate deal groups).

    >>> per_hand_ci([4.0, 0.0, 2.0], 2)  # doctest: +ELLIPSIS
    (1.0, 1.1315...)
    """
    mean, half = mean_ci(groups)
    return mean / hands_per_group, half / hands_per_group


def estimates(per_hand: Sequence[float], groups: Sequence[float] | None, rotations: int,
              scale: float, corrected: Sequence[float] | None = None,
              corrected_groups: Sequence[float] | None = None
              ) -> dict[str, dict[str, float | None]]:
    """The estimates of one bot's result per hand, each ``{"mbb_per_hand", "ci95",
    "variance_reduction"}`` (``scale`` turns chips into the unit, e.g. 1000 / big
    blind): ``raw`` (the variance over hands), ``duplicate`` (over deal groups of
    ``rotations`` hands, when ``groups`` are given), ``aivat`` (the corrected results
    per hand, :mod:`botkit.aivat`) and ``aivat_duplicate`` (corrected, over deal
    groups).  ``variance_reduction`` is (raw half-width / this half-width)²: how many
    times fewer hands the estimate needs for the raw interval's width (None when
    undefined: no spread, or a single hand).

    >>> e = estimates([4, -4, 2, -2], [0, 0], 2, 1.0, [1, -1, 1, -1], [0, 0])
    >>> e["raw"]["mbb_per_hand"], round(e["aivat"]["variance_reduction"], 1)
    (0.0, 10.0)
    """
    out: dict[str, dict[str, float | None]] = {}

    def put(key: str, values: Sequence[float], size: int) -> None:
        mean, half = per_hand_ci(values, size)
        out[key] = {"mbb_per_hand": scale * mean,
                    "ci95": scale * half if math.isfinite(half) else None}

    put("raw", per_hand, 1)
    if groups is not None:
        put("duplicate", groups, rotations)
    if corrected is not None:
        put("aivat", corrected, 1)
        if corrected_groups is not None:
            put("aivat_duplicate", corrected_groups, rotations)
    raw = out["raw"]["ci95"]
    for entry in out.values():
        half = entry["ci95"]
        ratio = (raw / half) ** 2 if raw is not None and half else None
        entry["variance_reduction"] = ratio  # None: undefined (no spread, or one hand)
    return out


@dataclass
class BotResult:
    """One bot's result: chips and milli-big-blinds per hand with a 95 % half-width
    (the match's own estimate: duplicate in a duplicate match, else raw), and every
    estimate computed (:func:`estimates`)."""

    name: str
    hands: int
    net: int
    mbb_per_hand: float
    ci95: float
    illegal: int = 0
    estimates: dict[str, dict[str, float | None]] = field(default_factory=dict)
    policy_errors: int = 0  # policies refused (botkit.aivat.validate_policy)

    def to_json(self) -> dict[str, Any]:
        """Plain dict."""
        data: dict[str, Any] = {
            "name": self.name, "hands": self.hands, "net": self.net,
            "mbb_per_hand": self.mbb_per_hand, "ci95": self.ci95, "illegal": self.illegal}
        if self.estimates:
            data["estimates"] = self.estimates
        if "aivat" in self.estimates:
            best = self.estimates.get("aivat_duplicate") or self.estimates["aivat"]
            data["aivat_mbb_per_hand"] = best["mbb_per_hand"]
            data["aivat_ci95"] = best["ci95"]
            data["policy_errors"] = self.policy_errors
        return data


@dataclass
class MatchResult:
    """Everything a match produced; :meth:`report` prints a readable table."""

    settings: dict[str, Any]
    hands: int
    deals: int
    duplicate: bool
    seed: int
    seconds: float
    bots: dict[str, BotResult]
    crosstable: dict[str, dict[str, float]] | None
    cumulative: dict[str, list[int]]
    records: list[dict[str, Any]] = field(default_factory=list)
    game: str = "holdem"
    unit: str = "mbb/hand"  # of BotResult.mbb_per_hand / ci95 and the crosstable
    aivat: dict[str, Any] | None = None  # the estimator's summary (botkit.aivat) if it ran
    stats: dict[str, Any] | None = None  # name -> tracker statistics (play_match(stats=True))

    @property
    def hands_per_second(self) -> float:
        """Throughput of the match."""
        return self.hands / self.seconds if self.seconds > 0 else math.inf

    def to_json(self, series_points: int = 500, records: bool = False) -> dict[str, Any]:
        """Plain dict; cumulative series thinned to about ``series_points`` points."""
        step = max(1, self.hands // series_points) if series_points else 1
        return {
            "game": self.game,
            "unit": self.unit,
            "settings": self.settings,
            "hands": self.hands,
            "deals": self.deals,
            "duplicate": self.duplicate,
            "seed": self.seed,
            "seconds": self.seconds,
            "hands_per_second": self.hands_per_second,
            "bots": {name: r.to_json() for name, r in self.bots.items()},
            "crosstable": self.crosstable,
            **({"aivat": self.aivat} if self.aivat is not None else {}),
            **({"stats": self.stats} if self.stats is not None else {}),
            "cumulative_step": step,
            "cumulative": {name: s[step - 1 :: step] for name, s in self.cumulative.items()},
            **({"records": self.records} if records else {}),
        }

    def report(self) -> str:
        """A plain-text summary table."""
        s = self.settings
        mode = (f"duplicate: {self.deals} deals x {self.hands // max(1, self.deals)} seatings"
                if self.duplicate else "plain")
        if "structure" in s:  # Hold'em
            header = (f"{s['structure']} {s['small_blind']}/{s['big_blind']}"
                      + (f" ante {s['ante']}" if s["ante"] else "")
                      + f", {s['seats']} players, {s['stack'] // s['big_blind']} BB stacks"
                      + (" reset every hand" if s["reset_stacks"] else ""))
        else:
            options = ", ".join(f"{k} {v}" for k, v in s.items()
                                if k not in ("game", "bots", "reset_stacks"))
            header = (f"{self.game}" + (f" ({options})" if options else "")
                      + f", {len(self.bots)} players")
        net = "net chips" if self.unit.startswith(("mbb", "chips")) else "net points"
        lines = [
            header,
            f"{self.hands} hands ({mode}), seed {self.seed}, {self.seconds:.1f} s "
            f"({self.hands_per_second:,.0f} hands/s)",
            "",
            f"{'bot':<20} {'hands':>8} {net:>11} {self.unit:>10} {'95% CI':>10}",
        ]
        digits = ".1f" if self.unit.startswith("mbb") else ".3f"
        for r in sorted(self.bots.values(), key=lambda r: -r.mbb_per_hand):
            lines.append(f"{r.name:<20} {r.hands:>8} {r.net:>+11} "
                         f"{format(r.mbb_per_hand, '+' + digits):>10}"
                         f" {'± ' + format(r.ci95, digits):>10}"
                         + (f"  ({r.illegal} illegal actions)" if r.illegal else ""))
        if self.aivat is not None:
            lines += self._estimates(digits)
        if self.crosstable:
            names = list(self.crosstable)
            lines += ["", f"pairwise {self.unit} (row vs column)",
                      " " * 20 + "".join(f"{n[:10]:>11}" for n in names)]
            for a in names:
                cells = "".join(
                    f"{'':>11}" if a == b else f"{format(self.crosstable[a][b], '+' + digits):>11}"
                    for b in names
                )
                lines.append(f"{a:<20}{cells}")
        return "\n".join(lines)

    def _estimates(self, digits: str) -> list[str]:
        """The raw, duplicate and AIVAT estimates side by side, with the variance
        reduction of each (raw variance / its variance)."""
        keys = [k for k in ("raw", "duplicate", "aivat", "aivat_duplicate")
                if any(k in r.estimates for r in self.bots.values())]
        titles = {"raw": "raw", "duplicate": "duplicate", "aivat": "AIVAT",
                  "aivat_duplicate": "AIVAT+dup"}
        a = self.aivat or {}
        lines = ["", f"variance reduction ({self.unit} ± 95% CI; ×: raw variance / variance); "
                 f"AIVAT: {a.get('decisions', 0)} decisions with a policy, "
                 f"{a.get('seconds', 0.0):.1f} s"]
        lines.append(f"{'bot':<20}" + "".join(f"{titles[k]:>24}" for k in keys))
        for r in sorted(self.bots.values(), key=lambda r: -r.mbb_per_hand):
            cells = []
            for k in keys:
                e = r.estimates.get(k)
                if e is None:
                    cells.append(f"{'':>24}")
                    continue
                ratio = e["variance_reduction"]
                text = (f"{format(e['mbb_per_hand'] or 0.0, '+' + digits)} ± "
                        f"{format(e['ci95'] or 0.0, digits)}"
                        + (f" ×{ratio:.1f}" if k != "raw" and ratio is not None else ""))
                cells.append(f"{text:>24}")
            lines.append(f"{r.name:<20}" + "".join(cells)
                         + (f"  ({r.policy_errors} policies refused)"
                            if r.policy_errors else ""))
        return lines
