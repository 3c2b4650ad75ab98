"""The runner's command line: where the token comes from."""

from __future__ import annotations

import pytest

from botkit.runner import _parse


def test_token_from_the_command_line() -> None:
    args = _parse(["--token", "pkb_abc", "--table", "3", "--bot", "house:random"])
    assert args.token == "pkb_abc" and args.table == 3


def test_token_from_the_environment_keeps_it_out_of_the_process_list(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POKERBOT_TOKEN", "pkb_secret")
    assert _parse(["--match", "5", "--bot", "house:random"]).token == "pkb_secret"


def test_no_token_at_all_is_a_usage_error(monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("POKERBOT_TOKEN", raising=False)
    with pytest.raises(SystemExit) as exit_:
        _parse(["--table", "3", "--bot", "house:random"])
    assert exit_.value.code == 2 and "--token" in capsys.readouterr().err
