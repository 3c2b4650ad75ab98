"""``{% load research_numbers %}``: numbers of result tables written as the charts write
them (research.charts.number): a real minus sign (U+2212), thousands separators.

``{{ bot.net|signed }}`` → ``−4,480``, ``+4,480``; ``{{ bot.mbb_per_hand|signed:1 }}`` →
``−120.5``; ``{{ bot.ci95|number:1 }}`` → ``1,204.6``. ``None`` or a value that is not a
number gives the empty string (the cell stays empty)."""

from __future__ import annotations

from django import template

from research.charts import number as _number

register = template.Library()


@register.filter
def number(value: object, digits: int = 0) -> str:
    if not isinstance(value, int | float):
        return ""
    return _number(value, digits=int(digits))


@register.filter
def signed(value: object, digits: int = 0) -> str:
    """As :func:`number`, with ``+`` before a positive number (a result, won or lost)."""
    if not isinstance(value, int | float):
        return ""
    return _number(value, sign=True, digits=int(digits))
