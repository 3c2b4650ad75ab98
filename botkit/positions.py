"""Position names at a table, from a hand position index (PHH order).

Index 0 is the small blind, index 1 the big blind, the last index the button.
Heads-up the button (index 1) posts the small blind; it is called ``"button"``
and index 0 is ``"bb"``.  The seats between the big blind and the button are
split into thirds counted back from the button: ``late`` (the cutoff first),
``middle`` and ``early``.

>>> [position_name(i, 6) for i in range(6)]
['sb', 'bb', 'early', 'middle', 'late', 'button']
>>> [position_name(i, 2) for i in range(2)]
['bb', 'button']
>>> [position_name(i, 10) for i in range(2, 9)]
['early', 'early', 'middle', 'middle', 'late', 'late', 'late']
"""

from __future__ import annotations

POSITIONS = ("button", "sb", "bb", "early", "middle", "late")
"""Every position name, in the order reports list them."""


def position_name(index: int, n: int) -> str:
    """The name of hand position ``index`` among ``n`` players."""
    if index == n - 1:
        return "button"
    if n == 2:
        return "bb"
    if index == 0:
        return "sb"
    if index == 1:
        return "bb"
    between = n - 3  # seats strictly between the big blind and the button
    from_button = n - 2 - index  # 0 = cutoff
    if from_button < -(-between // 3):
        return "late"
    if from_button < -(-2 * between // 3):
        return "middle"
    return "early"
