"""The owner's admission measure (tables.owner.LoopBusy): the share of wall time a
thread was busy, running or waiting for a CPU; waiting for something to do is idle."""

from __future__ import annotations

import threading
import time

from tables.owner import LoopBusy


def measured(work: str) -> float | None:
    """The meter's sample over 0.4 s of ``work`` in a thread of its own."""
    result: list[float | None] = []

    def run() -> None:
        meter = LoopBusy()
        try:
            end = time.monotonic() + 0.4
            while time.monotonic() < end:
                if work == "sleep":
                    time.sleep(0.01)
            result.append(meter.sample())
        finally:
            meter.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return result[0]


def test_a_thread_that_computes_is_busy_and_one_that_sleeps_is_not() -> None:
    spinning, sleeping = measured("spin"), measured("sleep")
    assert spinning is not None and sleeping is not None
    # (waiting for a CPU counts as busy: the spinning thread is near 1 however loaded
    # the machine; the sleeping one wakes 40 times, for microseconds each)
    assert spinning > 0.9, spinning
    assert sleeping < 0.2, sleeping


class Elsewhere(LoopBusy):
    PATH = "/nonexistent/schedstat"  # (a kernel without schedstat, or not Linux)


def test_the_meter_says_none_where_the_kernel_does_not_tell() -> None:
    meter = LoopBusy()
    meter.close()
    assert meter.sample() is None
    missing = Elsewhere()
    assert missing.fd is None and missing.sample() is None
