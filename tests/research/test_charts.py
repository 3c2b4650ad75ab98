"""research.charts: readable axes (a real minus sign, no clipped labels), the legend
outside the plot."""

from __future__ import annotations

import itertools

from research.charts import CHAR_W, MINUS, line_chart, nice_ticks, number


def test_numbers_use_a_real_minus_and_separators() -> None:
    assert number(-138732) == MINUS + "138,732"
    assert number(138732, sign=True) == "+138,732"
    assert number(0, sign=True) == "0" and number(-0.2) == "0"


def test_nice_ticks_cover_the_range_with_round_steps() -> None:
    ticks = nice_ticks(-138732, 20000)
    assert ticks[0] <= -138732 and ticks[-1] >= 20000 and 0 in ticks
    steps = {round(b - a) for a, b in itertools.pairwise(ticks)}
    assert len(steps) == 1 and str(steps.pop()).rstrip("0") in {"1", "2", "25", "5"}


def test_left_margin_fits_the_longest_label_and_legend_is_below_the_plot() -> None:
    series = {"rule_based": [-5000, -60000, -138732],
              "calling_station": [5000, 60000, 138732],
              "a_bot_with_a_long_name": [0, 1, 2], "random": [1, 2, 3]}
    chart = line_chart(series, width=720, height=300)
    longest = max(len(t["label"]) for t in chart["ticks"])
    assert any(t["label"].startswith(MINUS) for t in chart["ticks"])
    assert chart["label_x"] - longest * CHAR_W >= chart["pad"] - 0.5  # inside the svg
    assert chart["left"] > chart["label_x"]
    legend_top = min(line["legend_y"] for line in chart["lines"]) - 12
    assert legend_top >= chart["bottom"] + 12  # below the plot and its x labels
    assert chart["height"] >= max(line["legend_y"] for line in chart["lines"])
    assert all(line["legend_x"] >= 0 and line["legend_text_x"] < chart["width"]
               for line in chart["lines"])
    ys = [float(p.split(",")[1]) for line in chart["lines"] for p in line["points"].split()]
    assert min(ys) >= chart["top"] - 0.1 and max(ys) <= chart["bottom"] + 0.1


def test_small_ranges_have_whole_distinct_labels() -> None:
    for high in (1, 2, 3, 7, 12):
        labels = [t["label"] for t in line_chart({"a": [0, high, -1]})["ticks"]]
        assert len(labels) == len(set(labels)) >= 2, labels
        assert all("." not in label for label in labels), labels
