"""PHH (Poker Hand History) files: reading, writing, replay through the engine.

>>> from engine.phh import loads, replay
>>> history = loads('''variant = 'NT'
... ante_trimming_status = true
... antes = [0, 0, 0]
... blinds_or_straddles = [1, 2, 0]
... min_bet = 2
... starting_stacks = [100, 100, 100]
... actions = ['d dh p1 AsKd', 'd dh p2 7c2d', 'd dh p3 ????', 'p3 f', 'p1 cbr 6', 'p2 f']
... ''')
>>> replay(history).finishing_stacks
(102, 98, 100)

Every variant of :mod:`engine.poker.variants` is read and written, by its PHH code
(``engine.phh.replay.CODES``: the spec's eleven and this project's own, see
``docs/phh.md``).

Modules: :mod:`engine.phh.notation` (the file format), :mod:`engine.phh.replay`
(through the engine), :mod:`engine.phh.simulate` (random hands, export),
:mod:`engine.phh.policy` (the random betting policy).  The command line is
``python -m engine.phh replay|simulate`` (see :mod:`engine.phh.__main__`).
"""

from engine.phh.notation import HandHistory, NotationError, dumps, load_path, loads, loads_all
from engine.phh.replay import Replay, ReplayError, replay
from engine.phh.simulate import hand_to_phh, phh_fields, simulate

__all__ = [
    "HandHistory",
    "NotationError",
    "Replay",
    "ReplayError",
    "dumps",
    "hand_to_phh",
    "load_path",
    "loads",
    "loads_all",
    "phh_fields",
    "replay",
    "simulate",
]
