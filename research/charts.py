"""Server-rendered SVG line charts (cumulative winnings), no JavaScript needed.

:func:`line_chart` lays the chart out for ``templates/research/_chart.svg.html``: the
y axis gets "nice" ticks (1, 2 or 5 times a power of ten) labelled with a real minus
sign (U+2212) and thousands separators; the left margin is computed from the longest
label so that no label is clipped; the legend sits below the plot, outside it, in as
many rows as the names need.

Each chart comes in two layouts, drawn as two svgs of which the stylesheet shows one: the
wide one (a 720-unit viewBox) and, under ``"narrow"``, one for phones (a 310-unit viewBox
with bigger type). An svg scales its text with its width: the wide layout squeezed into
a phone's 300 px would print its labels 5 px high, the narrow one prints them at 11 px
or more down to 270 px (see ``svg.chart-narrow`` in ``static/css/site.css``).
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
EM_W = 0.62
CHAR_W = EM_W * FONT
LEGEND_SWATCH = 14  # the coloured stroke before a name, and its gap
# The phone layout: 13 units of 310 are 11.3 px on a chart 270 px wide (a 360 px phone).
NARROW_WIDTH = 310
NARROW_FONT = 13
NARROW_LEGEND_FONT = 14
NARROW_PAD = 8


def number(value: float, *, sign: bool = False, digits: int = 0) -> str:
    """``-138732`` → ``−138,732`` (a real minus sign); ``sign`` puts ``+`` before
    positive numbers; ``digits`` after the point (``number(-4.25, digits=1)`` →
    ``−4.2``). A value that rounds to zero has no sign."""
    text = f"{abs(value):,.{digits}f}"
    if round(value, digits) < 0:
        return MINUS + text
    return ("+" + text) if sign and round(value, digits) > 0 else text


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


def _text_width(text: str, char_w: float) -> float:
    return len(text) * char_w


def _legend_label(name: str, result: str, room: float) -> str:
    """``name (result)``, the name cut short with an ellipsis when the whole would not
    fit in ``room`` characters (the line's tooltip and the results table have it whole)."""
    label = f"{name} ({result})"
    if len(label) <= room:
        return label
    keep = max(1, math.floor(room) - len(result) - 4)
    return f"{name[:keep]}… ({result})"


def line_chart(series: Mapping[str, Sequence[float]], *, step: int = 1, width: int = 720,
               height: int = 300, pad: int = 16) -> dict[str, Any]:
    """The layouts of the template ``research/_chart.svg.html``: the wide one, with the
    phone's under ``"narrow"``.

    ``series`` maps a name to its values at hands ``step, 2*step, ...``. ``height`` is
    the plot's height plus its axes; the legend adds rows below it. ``pad`` is the
    outer margin.
    """
    chart = layout(series, step=step, width=width, height=height, pad=pad)
    chart["narrow"] = layout(series, step=step, width=NARROW_WIDTH, height=round(height * 0.8),
                             pad=NARROW_PAD, font=NARROW_FONT, legend_font=NARROW_LEGEND_FONT)
    return chart


def layout(series: Mapping[str, Sequence[float]], *, step: int, width: int, height: int,
           pad: int, font: int = FONT, legend_font: int = LEGEND_FONT) -> dict[str, Any]:
    """One layout of :func:`line_chart`, its labels ``font`` units high and the
    legend's ``legend_font``."""
    char_w, legend_char_w, row_h = EM_W * font, EM_W * legend_font, legend_font + 6
    values = [v for points in series.values() for v in points] or [0.0]
    ticks = nice_ticks(min(0.0, *values), max(0.0, *values))
    low, high = ticks[0], ticks[-1]
    labels = [number(v, sign=True) for v in ticks]
    left = pad + math.ceil(max(_text_width(label, char_w) for label in labels)) + 8
    right = width - pad
    top = pad
    bottom = height - pad - font - 8  # room for the x labels below the axis
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
        label = _legend_label(name, number(last, sign=True),
                              (width - 2 * pad - LEGEND_SWATCH - 4) / legend_char_w)
        item_w = LEGEND_SWATCH + 4 + _text_width(label, legend_char_w) + 16
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
        line["legend_y"] = legend_top + row_h * line["legend_row"] + legend_font
        line["legend_line_y"] = line["legend_y"] - legend_font / 3
    total_h = legend_top + row_h * (legend_row + 1) + 4 if lines else height
    hands = longest * step
    middle, end = number(hands / 2), f"{number(hands)} hands"
    x_ticks = [{"x": round(x(0), 1), "label": "0", "anchor": "start"},
               {"x": round(x(longest / 2), 1), "label": middle, "anchor": "middle"},
               {"x": round(x(longest), 1), "label": end, "anchor": "end"}]
    if x(longest / 2) + _text_width(middle, char_w) / 2 + char_w > right - _text_width(end, char_w):
        del x_ticks[1]  # it would run into the last label (a narrow chart of many hands)
    return {
        "width": width, "height": round(total_h), "plot_height": height, "pad": pad,
        "font": font, "legend_font": legend_font,
        "left": left, "right": right, "top": top, "bottom": bottom,
        "label_x": left - 6, "x_label_y": bottom + font + 6,
        "lines": lines, "zero_y": round(y(0), 1), "hands": hands,
        "ticks": [{"y": round(y(v), 1), "label": label, "zero": v == 0}
                  for v, label in zip(ticks, labels, strict=True)],
        "x_ticks": x_ticks,
    }
