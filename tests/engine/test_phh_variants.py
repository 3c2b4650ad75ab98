"""PHH for every variant code: real published hands, our simulated hands in pokerkit.

* Every real hand in ``phh_fixtures/variants/<CODE>/`` (README there) replays
  through the engine to its recorded ``finishing_stacks``; the one pokerkit
  0.7.7 rejects (``mismatch/FR``: a fixed-limit raise written as the amount
  that puts the opponent all-in) replays too, as the minimum raise.
* ``simulate`` output of every code (the PHH spec's eleven and this project's
  own) replays through the engine to the stacks it wrote, and through pokerkit
  to the same stacks (apart from the allowances documented in
  ``test_variants_pokerkit.py``): with pokerkit's own classes for the spec's
  codes, and for ours with pokerkit's generic ``State`` built from the variant
  (``GenericHandHistory``). Sökö (``NSK``, ``PSK``, ``FSK``) is replayed
  through the engine only: pokerkit cannot evaluate sökö hands nor choose its
  openers (see ``test_variants_pokerkit.py``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
import warnings
from decimal import Decimal
from pathlib import Path

import pokerkit
import pytest
from pokerkit import Automation, State

from engine.actions import Action
from engine.cards import parse_cards, standard_deck
from engine.events import HoleCardsDealt, UpCardsDealt
from engine.phh import hand_to_phh, loads, replay
from engine.phh.__main__ import main
from engine.phh.notation import PlayerAction, parse_action_line
from engine.phh.replay import CODES, SPEC_CODES, ReplayError
from engine.phh.simulate import phh_fields, simulate
from engine.poker.hand import Hand, HandSetup, max_hand_players
from engine.poker.variants import VARIANTS
from tests.engine.test_variants_pokerkit import (
    odd_split_allowance,
    pokerkit_low_quirk,
    pokerkit_state,
    pokerkit_supports,
)

REPO = Path(__file__).resolve().parents[2]
VARIANT_FIXTURES = Path(__file__).resolve().parent / "phh_fixtures" / "variants"
MISMATCH = VARIANT_FIXTURES / "mismatch" / "FR" / "wsop-2023-43-5-85.phh"
FOLDERS = {"FT": "FT", "NT": "NT", "NS": "NS", "PO": "PO", "FO8": "FO/8", "F7S": "F7S",
           "F7S8": "F7S/8", "FR": "FR", "N2L1D": "N2L1D", "F2L3D": "F2L3D", "FB": "FB"}


def real_hands() -> list[Path]:
    return sorted(path for folder in FOLDERS for path in (VARIANT_FIXTURES / folder).glob("*.phh"))


def expected_stacks(path: Path) -> list[Decimal]:
    raw = tomllib.loads(path.read_text(encoding="utf-8"), parse_float=Decimal)
    return [Decimal(str(stack)) for stack in raw["finishing_stacks"]]


def test_there_are_real_hands_of_every_spec_code() -> None:
    paths = real_hands()
    assert len(paths) == 78
    codes = {loads(path.read_text()).variant for path in paths}
    assert codes == set(SPEC_CODES) == set(FOLDERS.values())
    assert set(CODES) >= SPEC_CODES


@pytest.mark.parametrize("path", real_hands(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_real_hands_replay_to_their_finishing_stacks(path: Path) -> None:
    history = loads(path.read_text(encoding="utf-8"))
    assert history.variant == FOLDERS[path.parent.name]
    result = replay(history)
    assert result.hand.is_over
    assert result.hand.variant.key == CODES[history.variant][0]
    got = [Decimal(str(stack)) for stack in history.to_file_units(result.finishing_stacks)]
    assert got == expected_stacks(path)


def test_the_pokerkit_mismatch_replays_with_the_raise_read_as_a_full_raise() -> None:
    """Hand 85: ``p2 cbr 750000`` raises to p1's all-in total, below the fixed-limit
    raise to 1200000. pokerkit 0.7.7 cannot repair the file; the engine replays it as
    the full raise, whose 450000 nobody can call go back at once: the recorded stacks.
    The double showdown (after sixth street, and after seventh) is accepted."""
    text = MISMATCH.read_text(encoding="utf-8")
    with warnings.catch_warnings(), pytest.raises(ValueError, match="Unable to repair"):
        warnings.simplefilter("ignore")
        list(pokerkit.HandHistory.loads(text))
    result = replay(loads(text))
    assert result.finishing_stacks == (0, 29700000)
    assert Action.raise_to(1200000) in result.hand.history
    assert Action.raise_to(750000) not in result.hand.history
    assert list(result.finishing_stacks) == [int(s) for s in expected_stacks(MISMATCH)]
    # Below the amount an opponent can still match, a short raise stays an error.
    with pytest.raises(ReplayError, match="p2 raise 700000"):
        replay(loads(text.replace("'p2 cbr 750000'", "'p2 cbr 700000'")))


def test_cli_replays_a_directory_of_every_code() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "engine.phh", "replay", str(VARIANT_FIXTURES)],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
    )
    assert completed.returncode == 0, completed.stderr
    lines = [json.loads(line) for line in completed.stdout.splitlines()]
    assert len(lines) == 79  # the 78 real hands and the mismatch
    for line in lines:
        path = Path(line["source"])
        assert "error" not in line, line
        assert line["variant"] == loads(path.read_text()).variant
        got = [Decimal(str(stack)) for stack in line["finishing_stacks"]]
        assert got == expected_stacks(path), line


# ------------------------------------------------------------- reading details


def test_unknown_door_cards_do_not_take_the_bring_in() -> None:
    """F7S/8 49: p1 and p5 fold with unknown cards; p4's 2h brings in."""
    path = VARIANT_FIXTURES / "F7S8" / "wsop-2023-43-5-49.phh"
    hand = replay(loads(path.read_text())).hand
    doors = [cards[2] for cards in hand.hole_cards]
    assert str(doors[3]) == "2h" and {doors[0].rank, doors[4].rank} == {12}  # aces
    razz = loads("variant = 'FR'\nantes = [1, 1, 1]\nbring_in = 1\nsmall_bet = 4\n"
                 "big_bet = 8\nstarting_stacks = [50, 50, 50]\nactions = ['d dh p1 ??????', "
                 "'d dh p2 As2c3d', 'd dh p3 KhQh9c', 'p3 pb', 'p1 f', 'p2 cbr 4', 'p3 f']\n")
    result = replay(razz)
    assert result.hand.hole_cards[0][2].rank == 12  # an ace: the best razz card
    assert result.finishing_stacks == (49, 53, 48)
    # The bring-in's own door card is unknown: it gets the lowest card (a king in razz).
    unknown = loads(razz_text := razz_source("'d dh p3 ??????'", "'p3 pb'"))
    assert replay(unknown).hand.hole_cards[2][2].rank == 11, razz_text
    stud = loads(razz_source("'d dh p3 ??????'", "'p3 pb'").replace("'FR'", "'F7S'"))
    assert str(replay(stud).hand.hole_cards[2][2]) == "2d"  # 2c is p2's


def razz_source(third: str, bring_in: str) -> str:
    return ("variant = 'FR'\nantes = [1, 1, 1]\nbring_in = 1\nsmall_bet = 4\nbig_bet = 8\n"
            "starting_stacks = [50, 50, 50]\nactions = ['d dh p1 ??????', 'd dh p2 As2c3d', "
            f"{third}, {bring_in}, 'p1 f', 'p2 cbr 4', 'p3 f']\n")


def test_draw_discards_and_shown_cards_fill_unknown_cards() -> None:
    """Badugi: every card unknown until the two finalists show their final hands."""
    path = VARIANT_FIXTURES / "FB" / "alice-carol-wikipedia.phh"
    result = replay(loads(path.read_text()))
    holes = result.hand.hole_cards
    assert sorted(map(str, holes[3])) == sorted(["2s", "4c", "6d", "9h"])
    assert sorted(map(str, holes[1])) == sorted(["3s", "5d", "7c", "8h"])
    assert result.finishing_stacks == (196, 220, 200, 184)
    # F2L3D 60: 'd dh p2 Kh7c6d2c??' then 'p2 sd Kh??': the unknown card is discarded.
    path = VARIANT_FIXTURES / "F2L3D" / "wsop-2023-43-5-60.phh"
    hand = replay(loads(path.read_text())).hand
    assert sorted(map(str, hand.hole_cards[1])) == sorted(["7c", "6d", "2c", "5s", "3d"])


def test_action_lines_of_stud_and_draws() -> None:
    assert parse_action_line("p5 pb") == PlayerAction(4, "pb")
    assert parse_action_line("p2 sd") == PlayerAction(1, "sd", cards=())
    assert parse_action_line("p2 sd Kh??") == PlayerAction(1, "sd", cards=("Kh", None))
    history = loads((VARIANT_FIXTURES / "FR" / "wsop-2023-43-5-83.phh").read_text())
    assert history.bring_in == 100000


def test_a_reshuffled_deck_is_rebuilt() -> None:
    """Six players draw five cards each: the deck runs out, the discards come back."""
    setup = HandSetup(variant="triple_draw", structure="FL", stacks=(500,) * 6,
                      blinds=(5, 10, 0, 0, 0, 0), min_bet=10, big_bet=20)
    deck = standard_deck()
    hand, _ = Hand.start(setup, deck, reshuffle=deck[::-1])
    for _ in range(6):
        hand.apply(Action.call() if hand.legal_actions().call_amount else Action.check())
    for _ in range(3):  # three draws, everyone throws everything
        for _ in range(6):
            hand.apply(Action.draw(hand.hole_cards[hand.actor]))
        while hand.actor is not None and not hand.drawing and not hand.is_over:
            legal = hand.legal_actions()
            if legal.can_show or legal.can_muck:
                hand.apply(Action.show())
            else:
                hand.apply(Action.check())
    assert hand.is_over and hand.next_card > 52
    result = replay(loads(hand_to_phh(hand)))
    assert result.hand.hole_cards == hand.hole_cards
    assert result.finishing_stacks == hand.finishing_stacks
    assert len(result.hand.reshuffle) == 52


def test_stud_lines_merge_the_down_and_up_cards_of_a_street() -> None:
    setup = HandSetup(variant="stud", structure="FL", stacks=(100, 100, 100), antes=(1, 1, 1),
                      bring_in=1, min_bet=2, big_bet=4)
    hand, _ = Hand.start(setup, parse_cards("AsKs2c" "AhKh3d" "AdKd4h") + tuple(
        c for c in standard_deck() if c not in parse_cards("AsKs2cAhKh3dAdKd4h")))
    hand.apply(Action.bring_in())
    hand.apply(Action.call())
    hand.apply(Action.call())
    fields = phh_fields(hand.setup, hand.events)
    assert fields["variant"] == "F7S" and fields["bring_in"] == 1
    assert "blinds_or_straddles" not in fields and "min_bet" not in fields
    assert (fields["small_bet"], fields["big_bet"]) == (2, 4)
    assert fields["actions"][:4] == ["d dh p1 AsKs2c", "d dh p2 AhKh3d", "d dh p3 AdKd4h",
                                     "p1 pb"]
    assert fields["actions"][6:] == [f"d dh p{i + 1} {e.cards[0]}" for i, e in enumerate(
        e for e in hand.events[-3:] if isinstance(e, UpCardsDealt))]
    assert replay(loads(hand_to_phh(hand))).hand.hole_cards == hand.hole_cards


def test_draw_lines() -> None:
    setup = HandSetup(variant="single_draw", structure="NL", stacks=(100, 100),
                      blinds=(1, 2), min_bet=2)
    hand, _ = Hand.start(setup, standard_deck())
    hand.apply(Action.call())
    hand.apply(Action.check())
    first, second = hand.actor, 1 - (hand.actor or 0)
    hand.apply(Action.draw(hand.hole_cards[first][:2]))
    hand.apply(Action.draw(()))
    actions = phh_fields(hand.setup, hand.events)["actions"]
    dealt = [e for e in hand.events if isinstance(e, HoleCardsDealt)][-1]
    assert actions[4:] == [
        f"p{first + 1} sd {''.join(map(str, hand.history[2].cards or ()))}",
        f"p{second + 1} sd",
        f"d dh p{first + 1} {''.join(map(str, dealt.cards))}",
    ]
    again = replay(loads(hand_to_phh(hand)))
    assert again.hand.hole_cards == hand.hole_cards and again.hand.actor == hand.actor


# ------------------------------------------------------------- simulated hands


class GenericHandHistory(pokerkit.HandHistory):
    """pokerkit's ``HandHistory`` for this project's codes: the state is pokerkit's
    generic ``State`` built from our variant entry (``pokerkit_state``)."""

    def create_state(self) -> State:
        key, structure = CODES[self.variant]
        fixed = structure == "FL"
        setup = HandSetup(
            variant=key,
            structure=structure,
            stacks=tuple(int(s) for s in self.starting_stacks),
            blinds=tuple(int(b) for b in self.blinds_or_straddles or ()),
            antes=tuple(int(a) for a in self.antes),
            min_bet=int((self.small_bet if fixed else self.min_bet) or 0),
            big_bet=int(self.big_bet or 0) if fixed else 0,
            bring_in=int(self.bring_in or 0),
            ante_trimming=self.ante_trimming_status,
        )
        automations = tuple(a for a in self.automations if a is not Automation.CARD_BURNING)
        return pokerkit_state(setup, automations, divmod=self.divmod, rake=self.rake)


def pokerkit_final_state(text: str, code: str) -> State:
    kind = pokerkit.HandHistory if code in SPEC_CODES else GenericHandHistory
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        states = list(kind.loads(text))
    return states[-1]


@pytest.mark.parametrize("code", sorted(CODES))
def test_simulated_hands_replay_in_the_engine_and_in_pokerkit(code: str, tmp_path: Path) -> None:
    key = CODES[code][0]
    most = max_hand_players(VARIANTS[key])
    paths = simulate(variant=code, players=2, hands=15, seed=21, out=tmp_path / "hu",
                     antes=True, short_stacks=True)
    paths += simulate(variant=code, players=min(6, most), hands=30, seed=22,
                      out=tmp_path / "ring", antes=True, short_stacks=True)
    compare = pokerkit_supports(VARIANTS[key])
    assert compare == (key != "soko")
    for path in paths:
        text = path.read_text()
        raw = tomllib.loads(text)
        assert raw["variant"] == code
        ours = replay(loads(text))
        assert ours.hand.is_over
        assert list(ours.finishing_stacks) == raw["finishing_stacks"], text
        if not compare:
            continue
        state = pokerkit_final_state(text, code)
        assert not state.status, text
        allowance = odd_split_allowance(ours.hand)
        if VARIANTS[key].split:
            allowance.update(pokerkit_low_quirk(ours.hand))
        theirs = [int(stack) for stack in state.stacks]
        assert sum(theirs) == sum(raw["finishing_stacks"]), text
        for player, (a, b) in enumerate(zip(theirs, raw["finishing_stacks"], strict=True)):
            assert abs(a - b) <= allowance[player], (text, theirs)


def test_simulate_command_accepts_every_code(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    for code in sorted(CODES):
        out = tmp_path / code.replace("/", "8")
        assert main(["simulate", "--variant", code, "--players", "3", "--hands", "2",
                     "--seed", "1", "--out", str(out)]) == 0
        assert len(list(out.glob("*.phh"))) == 2
    assert "wrote 2 hands" in capsys.readouterr().out
    with pytest.raises(SystemExit) as error:
        main(["simulate", "--variant", "F7S", "--players", "9", "--out", str(tmp_path)])
    assert error.value.code == 2
    assert "2 to 8 players" in capsys.readouterr().err


def test_custom_codes_are_the_variants_other_structures() -> None:
    custom = set(CODES) - SPEC_CODES
    assert custom == {"PT", "NO", "FO", "NO/8", "PO/8", "PS", "FS", "N5D", "P5D", "F5D",
                      "NSK", "PSK", "FSK", "F5S", "P2L1D", "F2L1D", "N2L3D", "P2L3D",
                      "NB", "PB"}
    for code, (key, structure) in CODES.items():
        assert VARIANTS[key].code(structure) == code and code[0] == structure[0]


def test_eight_stud_players_share_a_community_card() -> None:
    """Eight players to seventh street: 4 cards left, so one is dealt face up for all."""
    setup = HandSetup(variant="stud", structure="FL", stacks=(200,) * 8, antes=(1,) * 8,
                      bring_in=1, min_bet=2, big_bet=4)
    hand, _ = Hand.start(setup, standard_deck()[::-1])
    while hand.actor is not None:
        legal = hand.legal_actions()
        if legal.bring_in is not None:
            hand.apply(Action.bring_in())
        elif legal.can_show:
            hand.apply(Action.show())
        else:
            hand.apply(Action.call() if legal.call_amount else Action.check())
    assert len(hand.board) == 1 and all(len(cards) == 6 for cards in hand.hole_cards)
    text = hand_to_phh(hand)
    assert f"'d db {hand.board[0]}'" in text.replace('"', "'")
    result = replay(loads(text))
    assert result.finishing_stacks == hand.finishing_stacks and result.hand.board == hand.board
    state = pokerkit_final_state(text, "F7S")
    theirs = tuple(int(stack) for stack in state.stacks)
    allowance = odd_split_allowance(hand)
    assert all(abs(a - b) <= allowance[i]
               for i, (a, b) in enumerate(zip(theirs, hand.finishing_stacks or (), strict=True)))
