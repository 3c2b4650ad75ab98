"""A random betting policy shared by the simulator, the differential tests and the benchmark.

The policy sees only numbers (can the player check, how much to call, the legal
raise-to range), so the same choice can be mirrored into any engine.  It mixes
folds, checks, calls, minimum raises, random raises and all-ins.

>>> import random
>>> choose(random.Random(1), can_check=True, call_amount=0, min_to=None, max_to=None)
('check', None)
>>> kind, amount = choose(random.Random(3), can_check=False, call_amount=10, min_to=20, max_to=90)
>>> kind in {"fold", "call", "raise"}
True
"""

from __future__ import annotations

import random

__all__ = ["choose"]


def choose(
    rng: random.Random,
    *,
    can_check: bool,
    call_amount: int,
    min_to: int | None,
    max_to: int | None,
) -> tuple[str, int | None]:
    """Pick ``("fold"|"check"|"call", None)`` or ``("raise", raise_to)``.

    ``min_to``/``max_to`` are ``None`` when the player may not bet or raise.
    A raise is the minimum 40% of the time, all-in 15%, otherwise uniform.
    """
    roll = rng.random()
    can_raise = min_to is not None and max_to is not None
    if can_check:
        if not can_raise or roll < 0.6:
            return ("fold", None) if roll < 0.02 else ("check", None)
    elif not can_raise or roll < 0.75:
        return ("fold", None) if roll < 0.3 else ("call", None)
    assert min_to is not None and max_to is not None
    size = rng.random()
    if size < 0.4:
        return "raise", min_to
    if size < 0.55:
        return "raise", max_to
    return "raise", rng.randint(min_to, max_to)
