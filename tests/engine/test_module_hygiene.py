"""Doctests of every engine module, and no Django anywhere under engine/."""

from __future__ import annotations

import doctest
import importlib
import subprocess
import sys

import pytest

MODULES = [
    "engine", "engine.actions", "engine.betting", "engine.cards", "engine.errors",
    "engine.evaluation", "engine.events", "engine.holdem", "engine.naming", "engine.pots",
    "engine.projection", "engine.registry", "engine.table",
]


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
