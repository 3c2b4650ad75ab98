"""Bots run by the SDK runner in the end-to-end tests (``--bot tests.sdk.bots:SlowOnce``)."""

from __future__ import annotations

import os
import time
from typing import Any

from botkit.house import make_bot


class SlowOnce:
    """``calling_station``, except that it sleeps through its third decision
    (``SLOW_BOT_SLEEP`` seconds, default 1.5) so the server's turn limit expires."""

    def __init__(self) -> None:
        self.inner = make_bot("calling_station")
        self.turns = 0

    def act(self, view: dict[str, Any]) -> dict[str, Any]:
        self.turns += 1
        if self.turns == 3:
            time.sleep(float(os.environ.get("SLOW_BOT_SLEEP", "1.5")))
        answer: dict[str, Any] = self.inner.act(view)
        return answer
