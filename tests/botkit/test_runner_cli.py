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


# ------------------------------------------------- bots that read only view["moves"]


def test_house_bots_by_name_and_for_other_games() -> None:
    from botkit.house import RuleBasedBot, UniformBot
    from botkit.runner import house_name, load_bot

    assert house_name("uniform") == "uniform" and house_name("house:ehs") == "ehs"
    assert house_name("tests.sdk.bots:SlowOnce") is None
    assert isinstance(load_bot("uniform"), UniformBot)
    assert isinstance(load_bot("house:rule_based"), RuleBasedBot)
    assert isinstance(load_bot("house:random", game="some_other_game"), UniformBot)
    with pytest.raises(KeyError):
        load_bot("rule_based", game="some_other_game")
    assert _parse(["--token", "t", "--table", "1", "--bot", "uniform"]).bot == "uniform"


def test_turns_are_checked_by_the_games_descriptors() -> None:
    from botkit.runner import checked_move

    moves = [{"kind": "play", "label": "Play",
              "params": {"card": {"type": "choice", "options": ["As", "Kd"]}}},
             {"kind": "pass", "label": "Pass"}]
    turn = {"legal": {"moves": moves}, "moves": moves, "view": {"moves": moves}}
    assert checked_move({"kind": "play", "card": "Kd"}, turn) == ({"kind": "play", "card": "Kd"},
                                                                  True)
    assert checked_move({"kind": "play", "card": "2c"}, turn) == ({"kind": "pass"}, False)
    assert checked_move(None, {"view": {"moves": moves[:1]}}) == (
        {"kind": "play", "card": "As"}, False)
    # poker turns keep their own check (a call may carry a stray amount, as before)
    legal = {"can_fold": True, "can_check": False, "call_amount": 2, "min_raise_to": 4,
             "max_raise_to": 8, "sized_kind": "raise", "can_show": False, "can_muck": False}
    poker = {"legal": legal, "moves": [{"kind": "fold"}, {"kind": "call"}]}
    assert checked_move({"kind": "call", "amount": 2}, poker) == ({"kind": "call", "amount": 2},
                                                                  True)
    assert checked_move({"kind": "raise", "amount": 9}, poker) == ({"kind": "fold"}, False)


def test_the_runner_asks_a_moves_only_bot() -> None:
    import random

    from botkit.house import UniformBot
    from botkit.runner import Runner
    from engine.game import check_move, decision_view
    from engine.registry import get_game
    from tests.botkit.toy_games import Race, state_of

    game = Race()
    state = state_of(game, players=2)
    game.start_round(state, {"trap": 2})
    view = decision_view(game, state, 0)
    runner = Runner("http://127.0.0.1:1", "pkb_x", UniformBot(random.Random(1)), table=1)
    command = runner.decide({"hand": 7, "version": 3, "legal": view["legal"],
                             "moves": view["moves"], "view": view})
    assert command["type"] == "act" and command["hand"] == 7
    check_move(view["moves"], command["action"])
    assert runner.summary.illegal == 0
    # a poker view works the same way for the same bot
    holdem = get_game("holdem")
    table = holdem.create(holdem.validate_settings({"seats": 2}))
    holdem.seat(table, 0, "a", {"buy_in": 200})
    holdem.seat(table, 1, "b", {"buy_in": 200})
    holdem.start_round(table, holdem.draw_chance(table, random.Random(2)))
    seat = holdem.status(table).to_act[0]
    view = decision_view(holdem, table, seat)
    command = runner.decide({"hand": 1, "version": 1, "legal": view["legal"],
                             "moves": view["moves"], "view": view})
    check_move(view["moves"], command["action"])
    assert runner.summary.illegal == 0
