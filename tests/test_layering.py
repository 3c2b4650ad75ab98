"""The layers, checked on the source: who may import whom (docs/architecture.md).

* ``engine/`` (the games and their contract) is pure Python: it imports no Django,
  Channels or DRF and none of the server's apps. ``botkit/`` (the SDK and house
  bots, installed without Django) neither.
* The apps (``tables``, ``lobby``, ``api``, ``research``, ``accounts``) reach a game
  only through the game contract: the only engine modules they may import are
  ``engine.game``, ``engine.registry`` and ``engine.errors`` — never a game's
  package (``engine.poker``...) or its internals (``engine.table``,
  ``engine.projection``, ``engine.cards``...).

The check reads every ``.py`` file under those packages with :mod:`ast` (nothing is
imported, so it is quick and needs no extra dependency). It sees ``import x.y``,
``from x import y`` (as ``x.y``), relative imports (resolved against the file's
package), imports inside functions or ``if TYPE_CHECKING:`` blocks, and
``importlib.import_module("x.y")`` / ``__import__("x.y")`` with a literal name.
A failure lists every offending ``path:line``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

APPS = ("accounts", "tables", "lobby", "api", "research", "pokersite")
FRAMEWORKS = ("django", "channels", "channels_redis", "rest_framework", "drf_spectacular",
              "daphne")
GAME_CONTRACT = ("engine.game", "engine.registry", "engine.errors")


@dataclass(frozen=True)
class Rule:
    """Files under ``packages`` may not import a module under ``forbidden`` unless it is
    under ``allowed``."""

    name: str
    packages: tuple[str, ...]
    forbidden: tuple[str, ...]
    allowed: tuple[str, ...] = ()

    def applies_to(self, module: str) -> bool:
        return any(_under(module, package) for package in self.packages)

    def refuses(self, imported: str) -> bool:
        return (any(_under(imported, prefix) for prefix in self.forbidden)
                and not any(_under(imported, prefix) for prefix in self.allowed))


ENGINE_IS_PURE = Rule("engine/ imports no Django, Channels, DRF or app",
                      ("engine",), FRAMEWORKS + APPS)
BOTKIT_IS_DJANGO_FREE = Rule("botkit/ imports no Django, Channels, DRF or app",
                             ("botkit",), FRAMEWORKS + APPS)
APPS_USE_THE_CONTRACT = Rule(
    "apps reach games only through " + ", ".join(GAME_CONTRACT),
    ("tables", "lobby", "api", "research", "accounts"), ("engine",), GAME_CONTRACT)
RULES = (ENGINE_IS_PURE, BOTKIT_IS_DJANGO_FREE, APPS_USE_THE_CONTRACT)


@dataclass(frozen=True)
class Violation:
    path: str
    line: int
    imported: str
    rule: Rule

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: imports {self.imported} ({self.rule.name})"


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def module_name(path: str) -> str:
    """``tables/services.py`` → ``tables.services``; ``engine/poker/__init__.py`` →
    ``engine.poker``."""
    parts = list(Path(path).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(source: str, path: str) -> Iterator[tuple[int, str]]:
    """``(line, dotted name)`` of everything ``source`` (the file at ``path``, relative
    to the project root) imports. ``from m import n`` gives ``m.n`` (``n`` may be a
    submodule or a name defined in ``m``: either way it lies under ``m``)."""
    module = module_name(path)
    package = module.split(".") if Path(path).name == "__init__.py" else module.split(".")[:-1]
    for node in ast.walk(ast.parse(source, filename=path)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                parent = ".".join([*base, node.module] if node.module else base)
            else:
                parent = node.module or ""
            for alias in node.names:
                yield node.lineno, parent if alias.name == "*" else f"{parent}.{alias.name}"
        elif isinstance(node, ast.Call) and (name := _literal_import(node)) is not None:
            yield node.lineno, name


def _literal_import(call: ast.Call) -> str | None:
    """The module named by ``import_module("x")`` / ``importlib.import_module("x")`` /
    ``__import__("x")``, if it is a literal."""
    func = call.func
    called = func.id if isinstance(func, ast.Name) else (
        func.attr if isinstance(func, ast.Attribute) else "")
    if called not in {"import_module", "__import__"} or not call.args:
        return None
    first = call.args[0]
    return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) \
        else None


def check_source(source: str, path: str, rules: tuple[Rule, ...] = RULES) -> list[Violation]:
    """The violations in one file (``path`` relative to the root, with ``/``)."""
    module = module_name(path)
    active = [rule for rule in rules if rule.applies_to(module)]
    return [Violation(path, line, imported, rule)
            for line, imported in imported_modules(source, path)
            for rule in active if rule.refuses(imported)]


def source_files(root: Path, rules: tuple[Rule, ...] = RULES) -> list[Path]:
    packages = sorted({package for rule in rules for package in rule.packages})
    return sorted(file for package in packages if (root / package).is_dir()
                  for file in (root / package).rglob("*.py"))


def check_tree(root: Path, rules: tuple[Rule, ...] = RULES) -> list[Violation]:
    """Every violation under ``root`` (a checkout, or a copy of one)."""
    found: list[Violation] = []
    for file in source_files(root, rules):
        relative = file.relative_to(root).as_posix()
        found += check_source(file.read_text(encoding="utf-8"), relative, rules)
    return found


def report(violations: list[Violation]) -> str:
    """One line per offending import statement: ``path:line: imports a, b (rule)``."""
    lines: dict[tuple[str, int, str], list[str]] = {}
    for violation in violations:
        key = (violation.path, violation.line, violation.rule.name)
        lines.setdefault(key, []).append(violation.imported)
    return f"{len(lines)} forbidden import(s):\n" + "\n".join(
        f"  {path}:{line}: imports {', '.join(names)} ({rule})"
        for (path, line, rule), names in sorted(lines.items()))


def assert_clean(violations: list[Violation]) -> None:
    if violations:
        pytest.fail(report(violations), pytrace=False)


# ------------------------------------------------------------------ the checks


def test_the_checker_reads_the_real_packages() -> None:
    """Guards the checks below against passing because they read nothing."""
    files = {file.relative_to(ROOT).as_posix() for file in source_files(ROOT)}
    for expected in ("engine/game.py", "engine/registry.py", "botkit/bot.py",
                     "tables/services.py", "api/views.py", "accounts/models.py",
                     "lobby/selectors.py", "research/services.py"):
        assert expected in files


def test_engine_imports_no_django_and_no_app() -> None:
    assert_clean(check_tree(ROOT, (ENGINE_IS_PURE,)))


def test_botkit_imports_no_django_and_no_app() -> None:
    assert_clean(check_tree(ROOT, (BOTKIT_IS_DJANGO_FREE,)))


def test_apps_reach_games_only_through_the_game_contract() -> None:
    assert_clean(check_tree(ROOT, (APPS_USE_THE_CONTRACT,)))


# --------------------------------------------------- the checker fails on purpose

BAD_TABLES_MODULE = '''\
"""A module that reaches into the poker game."""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from engine.errors import EngineError
from engine.game import Game, Viewer
from engine.registry import get_game
from engine.table import TableState
from engine import cards
import engine.poker.game

if TYPE_CHECKING:
    from engine.projection import project_table


def later():
    from engine.phh import dumps
    return importlib.import_module("engine.holdem"), dumps
'''


def test_checker_reports_a_game_internal_import_in_an_app() -> None:
    found = [(v.line, v.imported) for v in check_source(BAD_TABLES_MODULE, "tables/bad.py")]
    assert sorted(found) == [
        (10, "engine.table.TableState"), (11, "engine.cards"), (12, "engine.poker.game"),
        (15, "engine.projection.project_table"), (19, "engine.phh.dumps"),
        (20, "engine.holdem"),
    ]
    message = report(check_source(BAD_TABLES_MODULE, "tables/bad.py"))
    assert "  tables/bad.py:10: imports engine.table.TableState (apps reach games" in message
    # The same source is fine where the rule does not apply (the engine itself).
    assert check_source(BAD_TABLES_MODULE, "engine/bad.py") == []


def test_checker_fails_on_a_copy_with_bad_modules(tmp_path: Path) -> None:
    """A small tree with one offender per rule, plus relative imports."""
    files = {
        "engine/__init__.py": "",
        "engine/game.py": "from . import errors\nfrom .errors import EngineError\n",
        "engine/sneaky.py": "from django.db import models\nimport tables.models\n",
        "botkit/__init__.py": "",
        "botkit/bot.py": "import engine.table\nfrom engine.cards import Card\n",
        "botkit/web.py": "def f():\n    import rest_framework\n",
        "tables/__init__.py": "",
        "tables/ok.py": "from engine.registry import get_game\nfrom engine import game\n"
                        "from django.db import models\nfrom . import ok\n",
        "tables/bad.py": "from engine.table import TableState\n",
        "api/views.py": "from ..engine import projection\nimport engine\n",
        "accounts/services.py": "from engine.cards import Card\n",
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    found = {(v.path, v.line, v.imported) for v in check_tree(tmp_path)}
    assert found == {
        ("engine/sneaky.py", 1, "django.db.models"),
        ("engine/sneaky.py", 2, "tables.models"),
        ("botkit/web.py", 2, "rest_framework"),
        ("tables/bad.py", 1, "engine.table.TableState"),
        ("api/views.py", 1, "engine.projection"),
        ("api/views.py", 2, "engine"),
        ("accounts/services.py", 1, "engine.cards.Card"),
    }
