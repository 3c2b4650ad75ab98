"""Issue 15: ``pokerbot-match --bots mybot:MyBot,...`` plays user bots (module:Class)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from botkit.match import main

THIS = "tests.botkit.test_match_user_bots"


class CheckCaller:
    """A user's bot: checks, else calls; mucks when it may."""

    instances_acted = False

    def act(self, view: dict[str, Any]) -> dict[str, Any]:
        CheckCaller.instances_acted = True
        legal = view["legal"]
        if legal["can_muck"]:
            return {"kind": "muck"}
        if legal["can_check"]:
            return {"kind": "check"}
        if legal["call_amount"]:
            return {"kind": "call"}
        return {"kind": "fold"}


class SeededFolder:
    """A user's bot that takes the match's seeded ``rng``: folds when it can."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def act(self, view: dict[str, Any]) -> dict[str, Any]:
        legal = view["legal"]
        if legal["can_check"]:
            return {"kind": "check"}
        return {"kind": "fold"} if legal["can_fold"] else {"kind": "muck"}


def test_user_bots_by_module_and_class(capsys: pytest.CaptureFixture[str]) -> None:
    CheckCaller.instances_acted = False
    spec = f"{THIS}:CheckCaller"
    assert main(["--bots", f"{spec},random", "--hands", "60", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["hands"] == 60 and set(data["bots"]) == {spec, "random"}
    assert CheckCaller.instances_acted
    # two copies of a user bot, one taking the seeded rng; house:<name> works too
    argv = ["--bots", f"{spec},{THIS}:SeededFolder,house:rule_based", "--players", "4",
            "--hands", "40", "--seed", "3", "--json"]
    timing = {"seconds", "hands_per_second"}
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    assert set(first["bots"]) == {spec, f"{THIS}:SeededFolder", "rule_based", f"{spec}#2"}
    assert main(argv) == 0
    again = json.loads(capsys.readouterr().out)
    assert {k: v for k, v in again.items() if k not in timing} == {
        k: v for k, v in first.items() if k not in timing}  # reproducible


@pytest.mark.parametrize("spec", [f"{THIS}:Nobody", "no_such_module_xyz:Bot", f"{THIS}:"])
def test_bad_user_bots_are_refused_with_a_sentence(
        spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--bots", f"{spec},random", "--hands", "5"]) == 2
    err = capsys.readouterr().err
    assert spec.split(":")[0] in err and "Traceback" not in err


def test_a_bot_module_in_the_current_directory(tmp_path: Any, monkeypatch: Any,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The installed ``pokerbot-match`` script (unlike ``python -m``) does not put the
    current directory on the path: ``--bots mybot:MyBot`` must still find ./mybot.py."""
    import sys

    (tmp_path / "issue15_mybot.py").write_text(
        "class MyBot:\n"
        "    def act(self, view):\n"
        "        legal = view['legal']\n"
        "        return {'kind': 'check'} if legal['can_check'] else {'kind': 'fold'}\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    monkeypatch.delitem(sys.modules, "issue15_mybot", raising=False)
    assert main(["--bots", "issue15_mybot:MyBot,random", "--hands", "10", "--json"]) == 0
    assert "issue15_mybot:MyBot" in json.loads(capsys.readouterr().out)["bots"]
