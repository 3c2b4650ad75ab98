"""The ACPC codec (botkit.acpc): engine hands -> STATE lines -> engine again, same nets."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from botkit.acpc import (
    AcpcError,
    GameDef,
    from_phh,
    import_state_lines,
    match_state,
    parse_action,
    parse_match_state,
    parse_response,
    parse_state_line,
    phh_to_state_lines,
    same_state,
    state_line,
    state_to_phh,
)
from botkit.acpc import main as acpc_main
from engine.phh import replay
from engine.phh.notation import from_mapping
from engine.phh.simulate import deck_for, phh_fields, play_random
from engine.poker.hand import Hand, HandSetup


def _play(structure: str, players: int, seed: int) -> tuple[HandSetup, dict]:
    rng = random.Random(seed)
    stacks = tuple(rng.randint(200, 3000) for _ in range(players))
    setup = HandSetup(structure=structure, stacks=stacks,
                      blinds=(5, 10) + (0,) * (players - 2), min_bet=10,
                      big_bet=20 if structure == "FL" else 0)
    hand, events = Hand.start(setup, deck_for(setup, seed))
    events += play_random(hand, rng)
    return setup, phh_fields(setup, hand.events, hand.finishing_stacks)


def _round_trip(structure: str, players: int, seed: int) -> None:
    _setup, fields = _play(structure, players, seed)
    limit = structure == "FL"
    hand = from_phh(fields["actions"], blinds=fields["blinds_or_straddles"],
                    stacks=fields["starting_stacks"], limit=limit, hand_id=seed,
                    finished=True)
    nets = [f - s for f, s in zip(fields["finishing_stacks"], fields["starting_stacks"],
                                  strict=True)]
    names = [f"bot{p}" for p in range(players)]
    line = state_line(hand, nets, names, limit=limit)
    parsed = parse_state_line(line, limit=limit)
    assert parsed.names == tuple(names) and parsed.values == tuple(float(v) for v in nets)
    game = GameDef.holdem(structure, 5, 10, players, 10**6)
    again = state_to_phh(parsed, game, stacks=fields["starting_stacks"])
    result = replay(from_mapping(again))
    assert [f - s for f, s in zip(result.finishing_stacks, fields["starting_stacks"],
                                  strict=True)] == nets, line
    # and the line written from the re-imported hand is the same line
    rehand = from_phh(again["actions"], blinds=again["blinds_or_straddles"],
                      stacks=again["starting_stacks"], limit=limit, hand_id=seed,
                      finished=True)
    assert state_line(rehand, nets, names, limit=limit) == line


@pytest.mark.parametrize("structure", ["NL", "FL", "PL"])
@pytest.mark.parametrize("players", [2, 3, 6])
def test_state_lines_round_trip(structure: str, players: int) -> None:
    for seed in range(40):
        _round_trip(structure, players, seed)


@settings(max_examples=150, deadline=None)
@given(structure=st.sampled_from(["NL", "FL"]), players=st.integers(2, 6),
       seed=st.integers(0, 2**31))
def test_state_lines_round_trip_hypothesis(structure: str, players: int, seed: int) -> None:
    _round_trip(structure, players, seed)


def test_competition_log_lines_read() -> None:
    """Lines of the dealer's own example log (project_acpc_server/matchName.log)."""
    game = GameDef.holdem("NL", 50, 100, 2, 20000)
    for line, nets in [
        ("STATE:0:cr13024c/r16916f:5d5c|9hQd/8dAs8s:13024|-13024:Alice|Bob", [13024, -13024]),
        ("STATE:1:r19015r20000c///:6sKs|5dJd/2sTh2h/Qh/8h:20000|-20000:Bob|Alice",
         [20000, -20000]),
        ("STATE:2:cc/r6420f:Ah8s|2h4c/Qd7h6c:100|-100:Alice|Bob", [100, -100]),
        ("STATE:4:r10312r20000f:5s4c|Kc7d:10312|-10312:Alice|Bob", [10312, -10312]),
    ]:
        parsed = parse_state_line(line, limit=False)
        fields = state_to_phh(parsed, game)
        result = replay(from_mapping(fields))
        assert [f - 20000 for f in result.finishing_stacks] == nets
        hand = from_phh(fields["actions"], blinds=fields["blinds_or_straddles"],
                        stacks=fields["starting_stacks"], limit=False, hand_id=parsed.hand_id,
                        finished=True)
        assert state_line(hand, nets, parsed.names, limit=False) == line


def test_match_state_positions_and_hidden_cards() -> None:
    hand = from_phh(["d dh p1 Ah8s", "d dh p2 2h4c", "p2 cbr 300"], blinds=[50, 100],
                    stacks=[20000, 20000], limit=False, hand_id=0)
    assert match_state(hand, 0, limit=False) == "MATCHSTATE:0:0:r300:Ah8s|"
    assert match_state(hand, 1, limit=False) == "MATCHSTATE:1:0:r300:|2h4c"
    hand = from_phh(["d dh p1 Ah8s", "d dh p2 2h4c", "p2 cbr 20", "p1 cc", "d db 2c3c4c"],
                    blinds=[5, 10], stacks=[1000, 1000], limit=True, hand_id=3)
    assert match_state(hand, 0, limit=True) == "MATCHSTATE:0:3:rc/:Ah8s|/2c3c4c"


def test_parse_errors_and_echo() -> None:
    sent = "MATCHSTATE:1:4:cc/r500:|2h4c/Qd7h6c"
    state, action = parse_response(sent + ":c", limit=False)
    assert action == ("c", None) and same_state(state, sent, limit=False)
    other, _ = parse_response("MATCHSTATE:1:4:cc/r600:|2h4c/Qd7h6c:c", limit=False)
    assert not same_state(other, sent, limit=False)
    for bad in ["MATCHSTATE:1:4", "hello", "MATCHSTATE:x:4:c:|", "MATCHSTATE:1:4:cz:|2h4c"]:
        with pytest.raises(AcpcError):
            parse_match_state(bad)
    with pytest.raises(AcpcError):
        parse_response(sent + ":x", limit=False)
    with pytest.raises(AcpcError):
        parse_action("r", False)
    assert parse_action("b300", False) == ("r", 300) and parse_action("k", False) == ("c", None)


@pytest.mark.parametrize("structure", ["NL", "FL"])
def test_match_export_reimports_to_the_same_results(tmp_path: Path, structure: str) -> None:
    """A duplicate batch match (botkit's runner) -> its match.phhs -> ACPC STATE lines ->
    replayed through the engine again: every hand's values and each bot's total agree."""
    from botkit.house import make_bot
    from botkit.match import MatchSettings, play_match

    settings = MatchSettings(structure=structure, small_blind=50, big_blind=100, stack=20000)
    result = play_match({"rnd": make_bot("random"), "cs": make_bot("calling_station")},
                        settings, hands=100, seed=3, duplicate=True, phh_out=tmp_path)
    lines = phh_to_state_lines((tmp_path / "match.phhs").read_text())
    count = sum(1 for line in lines if line.startswith("STATE:"))
    assert count == result.bots["rnd"].hands == 100  # 50 deals, each in both seatings
    game = GameDef.holdem(structure, 50, 100, 2, 20000)
    found = import_state_lines("\n".join(lines), game)
    assert found.hands == count and not found.mismatches
    assert found.totals == {bot.name: float(bot.net) for bot in result.bots.values()}
    log = tmp_path / "match.log"
    log.write_text("\n".join(lines) + "\n")
    game_file = tmp_path / "holdem.game"
    game_file.write_text(game.text())
    assert acpc_main(["import", "--game", str(game_file), str(log)]) == 0
