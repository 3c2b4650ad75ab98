"""Doctests of every engine module, and no Django anywhere under engine/."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import subprocess
import sys

import pytest

import engine

MODULES = ["engine"] + [
    m.name for m in pkgutil.walk_packages(engine.__path__, "engine.")
    if not m.name.endswith("__main__")
]
"""Every engine module, the game contract (``engine.game``) and ``engine.poker`` included."""


def test_the_contract_and_poker_doctests_are_collected() -> None:
    assert {"engine.game", "engine.poker.game", "engine.poker.views", "engine.cards"} <= set(
        MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0


def test_engine_never_imports_django() -> None:
    code = (
        "import importlib, pkgutil, sys, engine\n"
        "for m in pkgutil.walk_packages(engine.__path__, 'engine.'):\n"
        "    if not m.name.endswith('__main__'):\n"
        "        importlib.import_module(m.name)\n"
        "assert 'django' not in sys.modules, 'django imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
