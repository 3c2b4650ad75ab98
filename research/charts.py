"""Server-rendered SVG line charts (cumulative winnings), no JavaScript needed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

COLOURS = ["#d4af37", "#6fcf97", "#e06c5f", "#56a3e8", "#c77dff", "#f4a261", "#9fb0a7",
           "#2ec4b6", "#ff70a6", "#e9ff70"]


def line_chart(series: Mapping[str, Sequence[float]], *, step: int = 1, width: int = 720,
               height: int = 300, pad: int = 44) -> dict[str, Any]:
    """Polylines and axis ticks for the template ``research/_chart.svg.html``.

    ``series`` maps a name to its values at hands ``step, 2*step, ...``.
    """
    values = [v for points in series.values() for v in points] or [0.0]
    low, high = min(0.0, *values), max(0.0, *values)
    if high == low:
        high = low + 1
    longest = max((len(p) for p in series.values()), default=1) or 1
    inner_w, inner_h = width - 2 * pad, height - 2 * pad

    def x(index: float) -> float:
        return pad + inner_w * index / max(1, longest)

    def y(value: float) -> float:
        return pad + inner_h * (high - value) / (high - low)

    lines = []
    for number, (name, points) in enumerate(series.items()):
        coords = [(x(0), y(0))] + [(x(i + 1), y(v)) for i, v in enumerate(points)]
        lines.append({"name": name, "colour": COLOURS[number % len(COLOURS)],
                      "points": " ".join(f"{a:.1f},{b:.1f}" for a, b in coords),
                      "last": points[-1] if points else 0,
                      "legend_y": 16 + 14 * number})
    ticks = [{"y": round(y(v), 1), "label": f"{v:+,.0f}"} for v in (high, (high + low) / 2, low)]
    return {"width": width, "height": height, "pad": pad, "lines": lines, "ticks": ticks,
            "zero_y": round(y(0), 1), "right": width - pad, "bottom": height - pad,
            "hands": longest * step}
