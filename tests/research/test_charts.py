"""research.charts: readable axes (a real minus sign, no clipped labels), the legend
outside the plot."""

from __future__ import annotations

import itertools

from research.charts import CHAR_W, EM_W, MINUS, NARROW_WIDTH, line_chart, nice_ticks, number


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


def test_numbers_with_decimals_round_before_the_sign() -> None:
    assert number(-1234.56, digits=1) == MINUS + "1,234.6"
    assert number(120.54, sign=True, digits=1) == "+120.5"
    assert number(-0.04, sign=True, digits=1) == "0.0"


def test_the_phone_layout_keeps_labels_readable_and_inside() -> None:
    """Drawn 270 px wide (a 360 px phone), the narrow layout's type is 11 px or more;
    its labels and legend stay inside its viewBox."""
    series = {"rule_based": [-5000, -60000, -138732], "calling_station": [5000, 60000, 138732],
              "a_bot_with_a_rather_long_name_indeed": [0, 1, 2]}
    chart = line_chart(series, step=500_000)
    narrow = chart["narrow"]
    assert chart["width"] == 720 and narrow["width"] == NARROW_WIDTH
    assert narrow["font"] * 270 / narrow["width"] >= 11
    assert narrow["legend_font"] * 270 / narrow["width"] >= 11
    char_w = EM_W * narrow["font"]
    longest = max(len(t["label"]) for t in narrow["ticks"])
    assert narrow["label_x"] - longest * char_w >= 0
    for line in narrow["lines"]:
        text_end = line["legend_text_x"] + len(line["label"]) * EM_W * narrow["legend_font"]
        assert text_end <= narrow["width"], line["label"]
        assert line["legend_y"] <= narrow["height"]
    assert "\u2026" in narrow["lines"][2]["label"]  # cut short; the wide legend has it whole
    assert chart["lines"][2]["label"].startswith("a_bot_with_a_rather_long_name_indeed (")
    # 1,500,000 hands: the middle label would run into "1,500,000 hands"; it is left out.
    labels = [t["label"] for t in narrow["x_ticks"]]
    assert labels == ["0", "1,500,000 hands"], labels
    spans = [(t["x"] - (len(t["label"]) * char_w if t["anchor"] == "end" else 0),
              t["x"] + (len(t["label"]) * char_w if t["anchor"] == "start" else 0))
             for t in narrow["x_ticks"]]
    assert all(a >= 0 and b <= narrow["width"] for a, b in spans), spans
    assert [t["label"] for t in chart["x_ticks"]] == ["0", "750,000", "1,500,000 hands"]
