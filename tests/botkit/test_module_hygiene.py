"""Doctests of every botkit module, and no Django anywhere under botkit/."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import subprocess
import sys

import pytest

import botkit

MODULES = ["botkit"] + [
    m.name for m in pkgutil.walk_packages(botkit.__path__, "botkit.")
    if not m.name.endswith("__main__")
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0


def test_botkit_never_imports_django() -> None:
    code = (
        "import importlib, pkgutil, sys, botkit\n"
        "for m in pkgutil.walk_packages(botkit.__path__, 'botkit.'):\n"
        "    if not m.name.endswith('__main__'):\n"
        "        importlib.import_module(m.name)\n"
        "assert 'django' not in sys.modules, 'django imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
