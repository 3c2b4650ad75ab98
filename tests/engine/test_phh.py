"""PHH reading, writing and replay: the shared Pluribus samples, small fixtures, the CLI."""

from __future__ import annotations

import doctest
import importlib
import json
import subprocess
import sys
import tomllib
from decimal import Decimal
from pathlib import Path

import pytest

from engine.actions import Action
from engine.cards import seeded_deck
from engine.phh import NotationError, dumps, hand_to_phh, load_path, loads, loads_all, replay
from engine.phh.notation import DealBoard, DealHole, PlayerAction, parse_action_line
from engine.phh.replay import ReplayError
from engine.phh.simulate import simulate
from engine.poker.hand import Hand, HandSetup

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "phh_fixtures"
SAMPLES = FIXTURES / "pluribus"  # real hands with their recorded finishing stacks

# Expected finishing stacks in file units; each was checked by hand and against
# pokerkit 0.7.7 (HandHistory iteration), except where noted.
EXPECTED: dict[str, object] = {
    "ante-trim-false.phh": [1030, 950, 35, 790],  # the short ante wins every ante
    "ante-trim-true.phh": [1045, 950, 20, 790],  # ... only 4 x 5 of them
    "bb-ante.phh": [7340000, 3775000, 5110000, 8935000, 4545000],
    "cents.phh": [49.75, 41.75, 42.95],
    "fixed-limit.phh": [140, 74, 86],
    "heads-up.phh": [97.0, 83.5],
    "muck-unknown.phh": [298, 292, 310],
    "omaha.phh": [201, 199],
    "partial.phh": [184, 164, 194],  # bets of the unfinished flop are out of the stacks
    "partial-runout.phh": [880, 0, 380],  # the main pot is not run out with unknown cards
    "runout.phh": [40000, 39000, 121000],
    "several.phhs#1": [202, 198, 200],
    "several.phhs#2": [198, 199],  # no actions: the blinds are bet, out of the stacks
    "several.phhs#3": [41.0, 9.5],
    "short-blind.phh": [880, 0, 635],
    "straddle.phh": [199, 198, 188, 215],
}


def sample_paths() -> list[Path]:
    if not SAMPLES.is_dir():
        pytest.fail(f"the PHH samples are missing: {SAMPLES}")
    paths = sorted(SAMPLES.glob("*.phh"))
    if not paths:
        pytest.fail(f"no .phh files in {SAMPLES}")
    return paths


def test_every_sample_replays_to_its_finishing_stacks() -> None:
    paths = sample_paths()
    assert len(paths) >= 20
    for path in paths:
        history = loads(path.read_text(encoding="utf-8"))
        assert history.finishing_stacks is not None, path
        result = replay(history)
        assert result.hand.is_over, path
        assert list(result.finishing_stacks) == [int(s) for s in history.finishing_stacks], path


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine.phh", *args],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
    )


def test_cli_replay_prints_one_json_line_per_hand() -> None:
    # Only the top-level files: variants/ holds the real hands of every variant code
    # (tests/engine/test_phh_variants.py).
    paths = sorted(p for p in FIXTURES.iterdir() if p.suffix in (".phh", ".phhs"))
    completed = run_cli("replay", *map(str, paths))
    assert completed.returncode == 0, completed.stderr
    lines = [json.loads(line) for line in completed.stdout.splitlines()]
    got = {}
    for line in lines:
        name = Path(line["source"]).name
        got[name] = line.get("finishing_stacks", line.get("error"))
        if "error" not in line:
            assert line["variant"] in {"NT", "FT", "PO", "NS"}
    assert got == EXPECTED
    assert [Path(line["source"]).name for line in lines if "several" in line["source"]] == [
        "several.phhs#1", "several.phhs#2", "several.phhs#3"]
    ints = next(line for line in lines if line["source"].endswith("bb-ante.phh"))
    assert all(type(stack) is int for stack in ints["finishing_stacks"])


def test_cli_replays_the_samples() -> None:
    paths = sample_paths()
    completed = run_cli("replay", *map(str, paths))
    assert completed.returncode == 0, completed.stderr
    lines = [json.loads(line) for line in completed.stdout.splitlines()]
    assert len(lines) == len(paths)
    for line, path in zip(lines, paths, strict=True):
        expected = tomllib.loads(path.read_text(encoding="utf-8"))["finishing_stacks"]
        assert line == {"source": str(path), "variant": "NT", "finishing_stacks": expected}


def test_cli_rejects_unusable_arguments() -> None:
    assert run_cli("replay").returncode == 2
    missing = run_cli("replay", "no/such/file.phh")
    assert missing.returncode == 2 and "no such file" in missing.stderr
    assert run_cli("simulate", "--variant", "XX", "--out", "x").returncode == 2


def test_cli_reports_a_broken_file_as_an_error_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.phh"
    broken.write_text("variant = 'NT'\nactions = [\n")
    completed = run_cli("replay", str(broken))
    assert completed.returncode == 0
    line = json.loads(completed.stdout)
    assert line["source"] == str(broken) and line["error"].startswith("invalid TOML")


def test_amounts_scale_exactly_without_float_drift() -> None:
    history = loads((FIXTURES / "cents.phh").read_text())
    assert history.scale == 100 and history.uses_floats
    assert history.starting_stacks == (5000, 6310, 2135)
    assert history.blinds_or_straddles == (25, 50, 0)
    assert [t.amount for t in history.tokens() if isinstance(t, PlayerAction)
            and t.verb == "cbr"] == [150, 525, 610, 1610]
    assert history.to_file_units([4295, 10, 1]) == [42.95, 0.1, 0.01]
    assert loads((FIXTURES / "bb-ante.phh").read_text()).scale == 1


def test_an_amount_finer_than_the_scale_is_an_error() -> None:
    # 0.1 + 0.2 as binary floats is 0.30000000000000004; written as 0.3 it is exact.
    history = loads("variant='NT'\nantes=[0,0]\nblinds_or_straddles=[0.1,0.2]\nmin_bet=0.2\n"
                    "starting_stacks=[0.3,10]\nactions=[]\n")
    assert history.scale == 10 and history.starting_stacks == (3, 100)
    with pytest.raises(NotationError):
        parse_action_line("p1 cbr 0.25", scale=10)


def test_action_lines() -> None:
    assert parse_action_line("d dh p3 ??Ad") == DealHole(2, (None, "Ad"))
    assert parse_action_line("d db Jc3d5c # flop") == DealBoard(("Jc", "3d", "5c"))
    assert parse_action_line("p1 sm") == PlayerAction(0, "sm")
    assert parse_action_line("p1 sm -") == PlayerAction(0, "sm", cards=())
    assert parse_action_line("p2 sm ????") == PlayerAction(1, "sm", cards=(None, None))
    assert parse_action_line("   ") is None and parse_action_line("# only words") is None
    for bad in ("p1 xx", "d dh p1 AsK", "q1 f", "p0x cc", "p1 cbr lots"):
        with pytest.raises(NotationError):
            parse_action_line(bad)


def test_phhs_tables_keep_file_order_and_isolate_errors() -> None:
    hands = loads_all((FIXTURES / "several.phhs").read_text())
    assert [name for name, _ in hands] == ["1", "2", "3"]
    sources = [source for source, _ in load_path(FIXTURES / "several.phhs")]
    assert sources[0].endswith("several.phhs#1")


def test_missing_field_is_reported() -> None:
    with pytest.raises(NotationError, match="actions"):
        loads("variant = 'NT'\nstarting_stacks = [1, 2]\n")


def test_an_out_of_turn_action_is_a_replay_error() -> None:
    text = (FIXTURES / "partial.phh").read_text().replace("'p3 cbr 6'", "'p2 cbr 6'")
    with pytest.raises(ReplayError, match="out of turn"):
        replay(loads(text))


def test_an_illegal_amount_is_a_replay_error() -> None:
    text = (FIXTURES / "partial.phh").read_text().replace("'p3 cbr 6'", "'p3 cbr 3'")
    with pytest.raises(ReplayError, match="p3 raise 3"):
        replay(loads(text))


def test_unknown_stacks_are_replayed_and_reported_as_null() -> None:
    text = (FIXTURES / "straddle.phh").read_text().replace(
        "[200, 200, 200, 200]", "[200, 200, inf, 200]")
    assert replay(loads(text)).finishing_stacks == (199, 198, None, 215)


def test_dumps_writes_toml_that_reads_back() -> None:
    fields = {"variant": "NT", "ante_trimming_status": True, "antes": [0, 0],
              "actions": ["p1 f # it's \"late\""], "_note": "AMY'S AVE"}
    assert tomllib.loads(dumps(fields)) == fields


def test_simulated_hands_replay_to_their_finishing_stacks(tmp_path: Path) -> None:
    for variant, players in (("NT", 6), ("FT", 3), ("PT", 9), ("NT", 2)):
        out = tmp_path / f"{variant}-{players}"
        paths = simulate(variant=variant, players=players, hands=40, seed=5, out=out,
                         antes=True, short_stacks=True)
        assert len(paths) == 40
        for path in paths:
            raw = tomllib.loads(path.read_text())
            assert raw["variant"] == variant and "ante_trimming_status" in raw
            history = loads(path.read_text())
            assert list(replay(history).finishing_stacks) == raw["finishing_stacks"], path


def test_simulate_cli_is_reproducible(tmp_path: Path) -> None:
    for out in (tmp_path / "a", tmp_path / "b"):
        completed = run_cli("simulate", "--variant", "NT", "--players", "4", "--hands", "5",
                            "--seed", "3", "--out", str(out), "--antes", "--short-stacks")
        assert completed.returncode == 0, completed.stderr
    first = sorted(p.read_text() for p in (tmp_path / "a").iterdir())
    assert first == sorted(p.read_text() for p in (tmp_path / "b").iterdir())
    assert len(first) == 5


def test_finishing_stacks_keep_half_chips_in_file_units() -> None:
    history = loads("variant='NT'\nantes=[0,0]\nblinds_or_straddles=[1,2]\nmin_bet=2\n"
                    "starting_stacks=[10,10]\nactions=[]\nfinishing_stacks=[10387.5, 3]\n")
    assert history.finishing_stacks == (Decimal("10387.5"), Decimal(3))


@pytest.mark.parametrize("module", ["notation", "policy", "replay", "simulate", "__main__", ""])
def test_docstring_examples(module: str) -> None:
    imported = importlib.import_module("engine.phh" + (f".{module}" if module else ""))
    assert doctest.testmod(imported).failed == 0


def test_an_exported_hand_replays_to_the_same_state() -> None:
    setup = HandSetup(structure="PL", stacks=(300, 250, 90), blinds=(1, 2, 0),
                      antes=(1, 1, 1), ante_trimming=True)
    hand, _ = Hand.start(setup, seeded_deck(4))
    for action in (Action.raise_to(7), Action.call(), Action.call(), Action.check()):
        hand.apply(action)
    text = hand_to_phh(hand, _note="mid-flop")
    raw = tomllib.loads(text)
    assert raw["variant"] == "PT" and raw["ante_trimming_status"] is True
    assert raw["_note"] == "mid-flop"
    again = replay(loads(text))
    assert again.finishing_stacks == hand.stacks == tuple(raw["finishing_stacks"])
    assert again.hand.board == hand.board and again.hand.actor == hand.actor


def test_dealing_the_board_before_the_betting_ends_is_a_replay_error() -> None:
    text = (FIXTURES / "partial.phh").read_text().replace("'p2 cc',\n", "\n")
    with pytest.raises(ReplayError, match="p2 is still to act"):
        replay(loads(text))
