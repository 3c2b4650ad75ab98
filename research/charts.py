"""Server-rendered SVG line charts (cumulative winnings), no JavaScript needed.

:func:`line_chart` lays the chart out for ``templates/research/_chart.svg.html``: the
y axis gets "nice" ticks (1, 2 or 5 times a power of ten) labelled with a real minus
sign (U+2212) and thousands separators; the left margin is computed from the longest
label so that no label is clipped; the legend sits below the plot, outside it, in as
many rows as the names need.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

COLOURS = ["#d4af37", "#6fcf97", "#e06c5f", "#56a3e8", "#c77dff", "#f4a261", "#9fb0a7",
           "#2ec4b6", "#ff70a6", "#e9ff70"]
MINUS = "\u2212"
FONT = 11  # label font size (px in the viewBox)
LEGEND_FONT = 12
# Generous average glyph widths (digits and Latin letters of system-ui fonts are about
# 0.55–0.6 em wide): an estimate on the safe side, so the margin is never too small.
CHAR_W = 0.62 * FONT
LEGEND_CHAR_W = 0.62 * LEGEND_FONT
LEGEND_ROW = 18
LEGEND_SWATCH = 14  # the coloured stroke before a name, and its gap


def number(value: float, *, sign: bool = False) -> str:
    """``-138732`` → ``−138,732`` (a real minus sign); ``sign`` puts ``+`` before
    positive numbers."""
    text = f"{abs(value):,.0f}"
    if round(value) < 0:
        return MINUS + text
    return ("+" + text) if sign and round(value) > 0 else text


def nice_ticks(low: float, high: float, count: int = 5, min_step: float = 1) -> list[float]:
    """About ``count`` round values covering ``low``..``high`` (both included), at
    least ``min_step`` apart (chips are whole: no tick between two whole numbers)."""
    if high <= low:
        high = low + 1
    raw = (high - low) / max(1, count - 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    if step < min_step:
        step = min_step
    elif power < 10 and step != int(step):
        step = math.ceil(step)  # 2.5 → 3 below ten: whole-number labels
    first = math.floor(low / step) * step
    last = math.ceil(high / step) * step
    ticks = []
    value = first
    while value <= last + step / 2:
        ticks.append(0.0 if abs(value) < step / 1e6 else value)
        value += step
    return ticks


def _text_width(text: str, char_w: float = CHAR_W) -> float:
    return len(text) * char_w


def line_chart(series: Mapping[str, Sequence[float]], *, step: int = 1, width: int = 720,
               height: int = 300, pad: int = 16) -> dict[str, Any]:
    """The layout of the template ``research/_chart.svg.html``.

    ``series`` maps a name to its values at hands ``step, 2*step, ...``. ``height`` is
    the plot's height plus its axes; the legend adds rows below it. ``pad`` is the
    outer margin.
    """
    values = [v for points in series.values() for v in points] or [0.0]
    ticks = nice_ticks(min(0.0, *values), max(0.0, *values))
    low, high = ticks[0], ticks[-1]
    labels = [number(v, sign=True) for v in ticks]
    left = pad + math.ceil(max(_text_width(label) for label in labels)) + 8
    right = width - pad
    top = pad
    bottom = height - pad - FONT - 8  # room for the x labels below the axis
    longest = max((len(p) for p in series.values()), default=1) or 1
    inner_w, inner_h = right - left, bottom - top

    def x(index: float) -> float:
        return left + inner_w * index / max(1, longest)

    def y(value: float) -> float:
        return top + inner_h * (high - value) / (high - low)

    lines = []
    legend_x, legend_row = float(pad), 0
    for index, (name, points) in enumerate(series.items()):
        coords = [(x(0), y(0))] + [(x(i + 1), y(v)) for i, v in enumerate(points)]
        last = points[-1] if points else 0
        label = f"{name} ({number(last, sign=True)})"
        item_w = LEGEND_SWATCH + 4 + _text_width(label, LEGEND_CHAR_W) + 16
        if legend_x > pad and legend_x + item_w > width - pad:
            legend_x, legend_row = float(pad), legend_row + 1
        lines.append({
            "name": name, "colour": COLOURS[index % len(COLOURS)],
            "points": " ".join(f"{a:.1f},{b:.1f}" for a, b in coords),
            "last": number(last, sign=True), "label": label,
            "legend_x": round(legend_x, 1), "legend_text_x": round(legend_x + LEGEND_SWATCH + 4, 1),
            "legend_swatch_end": round(legend_x + LEGEND_SWATCH, 1),
            "legend_row": legend_row})
        legend_x += item_w
    legend_top = height + 4
    for line in lines:
        line["legend_y"] = legend_top + LEGEND_ROW * line["legend_row"] + LEGEND_FONT
        line["legend_line_y"] = line["legend_y"] - LEGEND_FONT / 3
    total_h = legend_top + LEGEND_ROW * (legend_row + 1) + 4 if lines else height
    hands = longest * step
    x_ticks = [{"x": round(x(0), 1), "label": "0", "anchor": "start"},
               {"x": round(x(longest / 2), 1), "label": number(hands / 2), "anchor": "middle"},
               {"x": round(x(longest), 1), "label": f"{number(hands)} hands", "anchor": "end"}]
    return {
        "width": width, "height": round(total_h), "plot_height": height, "pad": pad,
        "left": left, "right": right, "top": top, "bottom": bottom,
        "label_x": left - 6, "x_label_y": bottom + FONT + 6,
        "lines": lines, "zero_y": round(y(0), 1), "hands": hands,
        "ticks": [{"y": round(y(v), 1), "label": label, "zero": v == 0}
                  for v, label in zip(ticks, labels, strict=True)],
        "x_ticks": x_ticks,
    }
