"""The ``ehs`` bot's opponent model (weight tables over hole pairs, observed frequencies)
and its decisions: distributions stay proper, known cards drop out, actions shift the
weight the right way, weighted HS/PPOT/NPOT agree with the unweighted ones on a uniform
table, and a seeded match replays exactly."""

from __future__ import annotations

import random

import pytest

from botkit.house import make_bot
from botkit.house.ehs import EHSBot
from botkit.house.opponent_model import (
    PAIRS,
    PREFLOP_ORDER,
    PREFLOP_PERCENTILE,
    RE_RAISE,
    ActionStats,
    WeightTable,
    board_info,
    pair_index,
    size_bucket,
    weighted_hand_strength,
    weighted_potentials,
)
from botkit.match import MatchSettings, play_match
from botkit.strength import hand_strength, potentials
from engine.cards import parse_cards


def mean(values: list[float] | tuple[float, ...], table: WeightTable) -> float:
    """The mean of a per-pair value under the table's distribution."""
    p = table.distribution()
    return sum(x * y for x, y in zip(values, p, strict=True))


def test_pairs_and_preflop_percentiles() -> None:
    assert len(PAIRS) == 1326 and len(set(PAIRS)) == 1326
    assert len(PREFLOP_ORDER) == 169 and len(set(PREFLOP_ORDER)) == 169
    aces = PREFLOP_PERCENTILE[pair_index(*parse_cards("AsAh"))]
    worst = PREFLOP_PERCENTILE[pair_index(*parse_cards("3c2d"))]
    assert aces > 0.99 and worst < 0.01
    assert pair_index(*parse_cards("AsAh")) == pair_index(*parse_cards("AhAs"))
    assert 0 < min(PREFLOP_PERCENTILE) < max(PREFLOP_PERCENTILE) < 1


def test_known_cards_get_weight_zero() -> None:
    hole, flop = parse_cards("AsKd"), parse_cards("Th7c2d")
    table = WeightTable(hole)
    assert table.live() == 1225
    table.remove(flop)
    assert table.live() == 1081
    for i, (a, b) in enumerate(PAIRS):
        assert (table.weights[i] == 0) == bool({a, b} & {*hole, *flop})


@pytest.mark.parametrize("kind", ["raise", "call", "check"])
def test_weights_stay_a_distribution(kind: str) -> None:
    table = WeightTable(parse_cards("AsKd"))
    info = board_info(parse_cards("Th7c2d"))
    table.remove(info.board)
    table.preflop_action(kind, vpip=0.4, pfr=0.2)
    for action in ("bet", "call", "raise", "check"):
        table.postflop_action(info, action, ActionStats())
        p = table.distribution()
        assert sum(p) == pytest.approx(1.0)
        assert min(p) >= 0
        assert table.live() == 1081  # re-weighting never rules a pair out


def test_preflop_raise_shifts_weight_to_strong_pairs() -> None:
    uniform, raised, called = WeightTable(), WeightTable(), WeightTable()
    raised.preflop_action("raise", vpip=0.3, pfr=0.15)
    called.preflop_action("call", vpip=0.3, pfr=0.15)
    strength = PREFLOP_PERCENTILE
    assert mean(strength, uniform) == pytest.approx(0.5, abs=0.01)
    assert mean(strength, raised) > mean(strength, called) > mean(strength, uniform)
    aa, king_queen, seven_two = (pair_index(*parse_cards(h)) for h in ("AhAc", "KsQh", "7h2c"))
    p = raised.distribution()
    assert p[aa] > p[king_queen] > 10 * p[seven_two]
    # A caller who would have raised its best hands holds fewer of them than a raiser.
    assert called.distribution()[aa] < p[aa]
    # The looser the raiser, the weaker its range.
    loose = WeightTable()
    loose.preflop_action("raise", vpip=0.8, pfr=0.6)
    assert mean(strength, loose) < mean(strength, raised)


def test_postflop_bet_and_check_move_weight_opposite_ways() -> None:
    info = board_info(parse_cards("Kh8c3d"))
    stats = ActionStats()
    bettor, checker, start = WeightTable(info.board), WeightTable(info.board), WeightTable(
        info.board)
    bettor.postflop_action(info, "bet", stats)
    checker.postflop_action(info, "check", stats)
    s = info.strengths
    assert mean(s, bettor) > mean(s, start) > mean(s, checker)
    # A raise over its own bet is stronger still.
    raiser = bettor.copy()
    raiser.postflop_action(info, "raise", stats, context=RE_RAISE)
    assert mean(s, raiser) > mean(s, bettor)


def test_board_strengths() -> None:
    info = board_info(parse_cards("Kh8c3d"))
    s = info.strengths
    assert s[pair_index(*parse_cards("KsKd"))] > 0.99  # top set
    assert s[pair_index(*parse_cards("Kh2c"))] == 0  # holds a board card
    # A flush draw gets a potential bonus over the same ranks offsuit.
    board = board_info(parse_cards("Kh8h3d"))
    assert board.strengths[pair_index(*parse_cards("QhJh"))] > board.strengths[
        pair_index(*parse_cards("QcJd"))]
    assert [s[i] for i in info.order] == sorted(s[i] for i in info.order)
    assert len(info.order) == 1176  # C(49, 2)


def test_weighted_strength_on_a_uniform_table_is_the_plain_one() -> None:
    hole, board = parse_cards("Qs9s"), parse_cards("Ts7s2d")
    table = WeightTable((*hole, *board))
    hs = weighted_hand_strength(hole, board_info(board), table)
    assert hs == pytest.approx(hand_strength(hole, board))
    ppot, npot = weighted_potentials(hole, board, [table], 6000, random.Random(3))
    exact_ppot, exact_npot = potentials(hole, board)
    assert ppot == pytest.approx(exact_ppot, abs=0.03)
    assert npot == pytest.approx(exact_npot, abs=0.03)
    assert weighted_potentials(hole, (*board, *parse_cards("4h5h")), [table], 100,
                               random.Random(1)) == (0.0, 0.0)


def test_weighted_strength_drops_against_a_strong_range() -> None:
    hole, board = parse_cards("Ah9c"), parse_cards("As8d4c")  # top pair, middling kicker
    info = board_info(board)
    table = WeightTable((*hole, *board))
    before = weighted_hand_strength(hole, info, table)
    table.preflop_action("raise", vpip=0.15, pfr=0.08, facing_raise=True)  # a tight 3-bet
    table.postflop_action(info, "raise", ActionStats(), context=RE_RAISE)
    assert weighted_hand_strength(hole, info, table) < before - 0.2
    # Only the part of the range that continues: weaker than against all of it.
    top = table.quantile(info, 0.3)
    assert weighted_hand_strength(hole, info, table, top) < weighted_hand_strength(
        hole, info, table)


def test_action_stats() -> None:
    s = ActionStats()
    assert size_bucket(3, 10) == 0 and size_bucket(30, 10) == 3
    for _ in range(40):
        s.faced_bet(3, "fold")
        s.faced_bet(0, "call", RE_RAISE)
        s.may_open(bet=False)
    s.faced_preflop_raise(folded=True)
    assert s.fold_rate(3) > 0.9
    assert s.fold_rate(0, RE_RAISE) < 0.05
    assert s.bet_rate() < 0.1
    assert 0.5 < s.preflop_fold_rate() < 0.6


def events_for(opponent_line: list[dict[str, object]]) -> list[dict[str, object]]:
    """Heads-up hand events: seat 0 (the bot, Ah Kd) on the button, seat 1 the opponent."""
    return [
        {"type": "HandStarted", "number": 1, "seats": [1, 0], "player_ids": ["opp", "me"],
         "button": 0},
        {"type": "BlindPosted", "player": 0, "amount": 1, "dead": False, "all_in": False},
        {"type": "BlindPosted", "player": 1, "amount": 2, "dead": False, "all_in": False},
        {"type": "HoleCardsDealt", "player": 1, "cards": "????"},
        {"type": "HoleCardsDealt", "player": 0, "cards": "AhKd"},
        {"type": "RaisePlaced", "player": 0, "to": 4, "all_in": False},
        *opponent_line,
    ]


def test_bot_tables_follow_observed_raises_and_calls() -> None:
    flop: dict[str, object] = {"type": "BoardDealt", "street": "flop", "cards": "Qc7d2h"}
    aggressive = events_for([
        {"type": "RaisePlaced", "player": 1, "to": 6, "all_in": False},
        {"type": "PlayerCalled", "player": 0, "amount": 2, "all_in": False},
        flop,
        {"type": "BetPlaced", "player": 1, "to": 2, "all_in": False},
    ])
    passive = events_for([
        {"type": "PlayerCalled", "player": 1, "amount": 2, "all_in": False},
        flop,
        {"type": "PlayerChecked", "player": 1},
    ])
    tables = {}
    for name, events in (("aggressive", aggressive), ("passive", passive)):
        bot = EHSBot(random.Random(1))
        for event in events:
            bot.observe(event)
        table = bot.table(1)
        assert table is not None and bot.table(0) is None  # no table for itself
        assert table.live() == 1081  # its own cards and the flop are out
        tables[name] = table
    info = board_info(parse_cards("Qc7d2h"))
    assert mean(info.strengths, tables["aggressive"]) > mean(info.strengths, tables["passive"])
    assert mean(PREFLOP_PERCENTILE, tables["aggressive"]) > mean(PREFLOP_PERCENTILE,
                                                                 tables["passive"])
    bot = EHSBot(random.Random(1))
    for event in aggressive:
        bot.observe(event)
    stats = bot.action_stats("opp")
    assert stats.opened == 1 and stats.bets == 1
    assert stats.preflop_faced == 1 and stats.preflop_folds == 0


def run_match(structure: str, seed: int) -> tuple[list[int], int]:
    result = play_match(
        {"ehs": make_bot("ehs", random.Random(seed)),
         "rule_based": make_bot("rule_based", random.Random(seed + 1))},
        MatchSettings(structure=structure, small_blind=1, big_blind=2, ante=0),
        hands=300, seed=seed, duplicate=True)
    nets = [record["net"]["ehs"] for record in result.records]
    return nets, result.bots["ehs"].illegal


@pytest.mark.parametrize("structure", ["FL", "NL"])
def test_seeded_match_replays_exactly(structure: str) -> None:
    first, illegal = run_match(structure, 7)
    second, _ = run_match(structure, 7)
    assert illegal == 0
    assert first == second
    assert len(first) == 300


class CapChecked(EHSBot):
    """An ``ehs`` bot that checks its own raise cap on every decision."""

    faced_cap = 0

    def act(self, view: dict[str, object]) -> dict[str, object]:
        hand = self._hand
        before = 0 if hand is None or hand.street == 0 else hand.street_bets
        answer = super().act(view)
        if before >= 3:
            CapChecked.faced_cap += 1
            if answer["kind"] == "raise":
                legal = view["legal"]
                assert isinstance(legal, dict)
                assert answer["amount"] == legal["max_raise_to"]  # all-in or nothing
        return answer


def test_no_raising_wars_between_ehs_bots() -> None:
    bots = {f"ehs{i}": CapChecked(random.Random(i)) for i in range(3)}
    result = play_match(bots, MatchSettings(structure="NL", small_blind=1, big_blind=2, ante=0),
                        hands=120, seed=3, duplicate=True)
    assert sum(r.net for r in result.bots.values()) == 0
    assert all(r.illegal == 0 for r in result.bots.values())
    assert CapChecked.faced_cap > 0  # the capped situation did arise
