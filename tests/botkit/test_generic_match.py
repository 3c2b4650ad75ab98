"""The match runner drives any game through the contract; Hold'em exactly as before."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

from botkit.bot import Bot, Json
from botkit.house import GENERIC_BOTS, UniformBot, house_bots, make_bot
from botkit.match import MatchSettings, main, play_match
from engine.errors import IllegalAction
from engine.game import Game, Viewer, check_move, decision_view
from engine.registry import GAMES, get_game
from tests.botkit.toy_games import TOYS, registered


def digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]


class Sloppy(Bot):
    """Checks or calls, but every third decision answers an over-sized raise (illegal)."""

    def __init__(self) -> None:
        self.turns = 0

    def act(self, view: Json) -> Json:
        self.turns += 1
        if self.turns % 3 == 0:
            return {"kind": "raise", "amount": 10**6}
        legal = view["legal"]
        if legal["can_muck"]:
            return {"kind": "muck"}
        return {"kind": "check"} if legal["can_check"] else {"kind": "call"}


# Results of the poker-only runner this one replaced. Produced before the change by
# running exactly the calls of ``test_holdem_matches_the_old_runner`` below (same bots,
# seeds and settings, ``phh_out`` to a temporary directory) with botkit/match.py of
# commit f4ebf97 (which drove ``engine.table.TableState`` directly) on the same
# engine; ``digest`` is the function above, ``phh`` the first 16 hex digits of the
# SHA-256 of the ``match.phhs`` text. The new runner gives the same nets, illegal
# counts, per-hand series, records (button, cards, board, nets), crosstables and
# PHH text bit for bit.
OLD_RUNNER = {
    "hu_nl": (["rule_based", "random"], {}, 400, 1, False, None,
              {"rule_based0": 888, "random1": -888}, {},
              "9a7ce2a9eed1cc4c", "9a588a9e669c98a7", "5eb0b6ee6ba537a1"),
    "hu_nl_dup": (["rule_based", "random"], {}, 400, 7, True, None,
                  {"rule_based0": 156, "random1": -156}, {},
                  "fdfebf6a9e72d7c9", "774a5df6cc25afbf", "5032a6ed8e94d7a6"),
    "3_fl_dup_series": (["rule_based", "random", "calling_station"],
                        {"structure": "FL", "ante": 1}, 150, 5, True, 10,
                        {"rule_based0": -76, "random1": -368, "calling_station2": 444}, {},
                        "3fc7c27009b856cf", "cda836cdb7ac0fec", "17cc47c3cd0a5c47"),
    "6_nl_dup": (["rule_based", "random", "calling_station", "random", "rule_based",
                  "calling_station"], {"stack": 100}, 120, 11, True, None,
                 {"rule_based0": 881, "random1": -3141, "calling_station2": 2483,
                  "random3": -2276, "rule_based4": 506, "calling_station5": 1547}, {},
                 "2281a128460fc500", "8e619bcf3cd65902", "2c3a7b428828505f"),
    "hu_nl_noreset": (["rule_based", "random"], {"reset_stacks": False, "stack": 60}, 300, 4,
                      False, None, {"rule_based0": -123, "random1": 123}, {},
                      "f87aa41bd1f4299e", "514cee67f85ff197", "5dd0b6b40914eb5b"),
    "hu_ehs": (["ehs", "rule_based"], {}, 60, 9, True, None,
               {"ehs0": 42, "rule_based1": -42}, {},  # the old runner (f4ebf97) plays the
               "1037f86339be52b8", "a70577a6a955cfa9", "a6475e15d39674da"),  # new ehs alike
    "3_pl_sloppy": (["sloppy", "rule_based", "random"], {"structure": "PL"}, 90, 3, False, None,
                    {"sloppy0": -23, "rule_based1": 658, "random2": -635}, {"sloppy0": 91},
                    "d71e8430dcc076e0", "b76eb3ee68185a4f", "899bfceacb97b9ee"),
}
"""label: (bots, MatchSettings, hands, seed, duplicate, series, nets, illegal,
cumulative digest, records digest, PHH digest)"""
OLD_CROSSTABLE = {"3_fl_dup_series": "c6f3529c8df919a6", "6_nl_dup": "22bec8acf3f5594f",
                  "3_pl_sloppy": "2090650d9d8490ba"}


@pytest.mark.parametrize("label", list(OLD_RUNNER))
def test_holdem_matches_the_old_runner(label: str, tmp_path: Path) -> None:
    (kinds, settings, hands, seed, duplicate, series, nets, illegal, cumulative, records,
     phh) = OLD_RUNNER[label]
    bots: dict[str, Any] = {
        f"{kind}{i}": Sloppy() if kind == "sloppy" else make_bot(kind,
                                                                 random.Random(seed * 100 + i))
        for i, kind in enumerate(kinds)}
    result = play_match(bots, MatchSettings(**settings), hands=hands, seed=seed,
                        duplicate=duplicate, series_length=series, phh_out=tmp_path)
    assert {name: r.net for name, r in result.bots.items()} == nets
    assert {name: r.illegal for name, r in result.bots.items() if r.illegal} == illegal
    assert digest(result.cumulative) == cumulative
    assert digest(result.records) == records
    assert digest(result.crosstable) == OLD_CROSSTABLE.get(label, digest(None))
    text = (tmp_path / "match.phhs").read_text()
    assert hashlib.sha256(text.encode()).hexdigest()[:16] == phh


CONTRACT_DEFAULTS = ("to_act", "view_maker", "prepare_round", "round_summary")


def test_holdem_through_the_contract_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    """HoldemGame's to_act/view_maker/prepare_round are a faster road, not other rules:
    heads-up in plain mode the base Game's defaults (status().to_act, decision_view,
    stacks reset by unseating and seating again, the button moved by the table's own
    rotation; the public results as the record) play the very same hands."""
    game = get_game("holdem")

    def run(duplicate: bool = False) -> Any:
        bots = {"rule_based": make_bot("rule_based", random.Random(1)),
                "random": make_bot("random", random.Random(2))}
        return play_match(bots, MatchSettings("NL"), hands=200, seed=3, duplicate=duplicate)

    fast = run()
    for name in CONTRACT_DEFAULTS:
        monkeypatch.setattr(game, name, getattr(Game, name).__get__(game))
    assert game.view_maker.__func__ is Game.view_maker  # type: ignore[attr-defined]
    slow = run()
    assert sum(r.net for r in run(duplicate=True).bots.values()) == 0
    monkeypatch.undo()
    assert [r["net"] for r in slow.records] == [r["net"] for r in fast.records]
    assert slow.cumulative == fast.cumulative
    assert [r["results"][0]["detail"]["starting_stack"] for r in slow.records] == [400] * 200


def test_holdem_offline_methods_equal_the_contract() -> None:
    """HoldemGame's to_act is status().to_act, its view_maker decision_view, and its
    prepare_round renames, restacks and puts the button on the dealer."""
    game = get_game("holdem")
    for seed in range(20):  # a chance is plain JSON, drawn the same from the same rng
        ours, theirs = random.Random(seed), random.Random(seed)
        state = game.create(game.validate_settings({"seats": 3}))
        for _ in range(3):
            chance = game.draw_chance(state, ours)
            assert chance == game.draw_chance(state, theirs)
            assert json.loads(json.dumps(chance)) == chance
    state = game.create(game.validate_settings({"seats": 3}))
    for seat in range(3):
        game.seat(state, seat, f"p{seat}", {"buy_in": 200})
    views = game.view_maker(state)
    rng = random.Random(4)
    for number in range(6):
        game.start_round(state, game.draw_chance(state, rng))
        while True:
            assert game.to_act(state) == Game.to_act(game, state) == game.status(state).to_act
            for seat in range(3):
                assert views(state, seat, 1.5) == decision_view(game, state, seat, 1.5)
            if not game.to_act(state):
                break
            seat = game.to_act(state)[0]
            legal = game.legal_actions(state, seat)
            move = ({"kind": "check"} if legal["can_check"] else {"kind": "call"}
                    if legal["call_amount"] else {"kind": "muck"})
            game.apply(state, seat, move)
        assert game.to_act(state) == ()
        dealer = number % 3
        game.prepare_round(state, ["p2", "p0", "p1"], [10, 20, 30 + number], dealer=dealer)
        assert [(s.player_id, s.chips, s.away) for s in game.seats(state) if s] == [
            ("p2", 10, False), ("p0", 20, False), ("p1", 30 + number, False)]
        game.start_round(state, game.draw_chance(state, rng))
        assert game.view(state, Viewer.spectator())["button"] == dealer
        while game.to_act(state):
            game.timeout(state)
        game.prepare_round(state, ["p0", "p1", "p2"], [200, 200, 200])


def test_holdem_prepare_round_seats_and_refuses() -> None:
    game = get_game("holdem")
    state = game.create(game.validate_settings({"seats": 2}))
    game.prepare_round(state, ["a", "b"])  # empty seats: the default buy-in (the maximum)
    assert [(s.player_id, s.chips) for s in game.seats(state) if s] == [("a", 200), ("b", 200)]
    game.away(state, 1, "request")
    game.prepare_round(state, ["a", "b"], options={"buy_in": 50})  # occupied: stacks stay
    assert [(s.chips, s.away) for s in game.seats(state) if s] == [(200, False), (200, False)]
    game.start_round(state, game.draw_chance(state, random.Random(1)))
    with pytest.raises(IllegalAction, match="in progress") as error:
        game.prepare_round(state, ["a", "b"], [1, 1])
    assert error.value.code == "hand_running"


def test_holdem_round_summary_is_the_superuser_view() -> None:
    game = get_game("holdem")
    state = game.create(game.validate_settings({"seats": 3}))
    for seat in range(3):
        game.seat(state, seat, f"p{seat}", {"buy_in": 200})
    events = game.start_round(state, game.draw_chance(state, random.Random(2)))
    while game.to_act(state):
        events = game.timeout(state)
    ended = events[-1] if events[-1].type == "HandEnded" else next(
        e for e in events if e.type == "HandEnded")
    summary = game.round_summary(state, ended)  # type: ignore[arg-type]
    view = game.view(state, Viewer.superuser())
    assert summary == {"button": view["button"], "board": view["hand"]["board"],
                       "cards": {f"p{p['player']}": p["cards"] for p in view["hand"]["players"]}}
    assert Game.round_summary(game, state, ended) == {  # type: ignore[arg-type]
        "results": [r.to_json() for r in ended.results]}  # type: ignore[attr-defined]


def test_duplicate_uniform_bots_sum_to_zero_for_holdem() -> None:
    bots = {f"uniform{i}": make_bot("uniform", random.Random(i)) for i in range(3)}
    result = play_match(bots, MatchSettings("PL"), hands=300, seed=2, duplicate=True)
    assert result.hands == 300 and result.deals == 100
    assert sum(r.net for r in result.bots.values()) == 0
    assert all(r.illegal == 0 for r in result.bots.values())
    for deal in range(result.deals):  # every deal: the seatings' chips sum to zero too
        assert sum(sum(r["net"].values()) for r in result.records if r["deal"] == deal) == 0


def test_house_bots_per_game() -> None:
    assert house_bots("holdem") == [*get_game("holdem").info.house_bots, "uniform"]
    assert isinstance(make_bot("uniform", random.Random(1), game="holdem"), UniformBot)
    assert make_bot("random", game="holdem").name == "random"  # poker's own random bot
    with registered():
        assert house_bots("toy_throw") == ["random", *GENERIC_BOTS]
        assert isinstance(make_bot("random", game="toy_throw"), UniformBot)
    with pytest.raises(KeyError, match="known: random, uniform"):
        make_bot("rule_based", game="toy_race")


# ----------------------------------------------------------------- other games


def uniform(n: int, seed: int = 1) -> dict[str, Any]:
    return {f"u{i}": UniformBot(random.Random(seed * 10 + i)) for i in range(n)}


def test_a_score_game_with_simultaneous_moves() -> None:
    with registered():
        result = play_match(uniform(2), hands=400, seed=1, game="toy_throw", duplicate=True)
    assert result.game == "toy_throw" and result.unit == "points/round"
    a, b = result.bots.values()
    assert a.hands == b.hands == 400 and a.net == -b.net
    assert a.mbb_per_hand == pytest.approx(a.net / 400)  # points per round, no scaling
    assert abs(a.mbb_per_hand) < 3 * a.ci95 + 0.05
    assert result.records[0]["results"][0]["score"] in (-1, 0, 1)
    assert "toy_throw" in result.report() and "points/round" in result.report()


class Rocky(Bot):
    """Always rock; answers garbage every other turn."""

    def __init__(self) -> None:
        self.turns = 0

    def act(self, view: Json) -> Json:
        self.turns += 1
        return {"kind": "throw", "sign": "rock" if self.turns % 2 else "lizard"}


class Paper(Bot):
    def act(self, view: Json) -> Json:
        check_move(view["moves"], {"kind": "throw", "sign": "paper"})
        assert view["moves"][0]["params"]["sign"]["type"] == "choice"
        return {"kind": "throw", "sign": "paper"}


def test_illegal_moves_in_a_simultaneous_decision_get_the_default() -> None:
    with registered():
        for order in (("rocky", "paper"), ("paper", "rocky")):
            bots: dict[str, Any] = {"rocky": Rocky(), "paper": Paper()}
            result = play_match({name: bots[name] for name in order}, hands=10, seed=1,
                                game="toy_throw")
            # rock (chosen or the timeout default) always loses to paper
            assert result.bots["paper"].net == 10 and result.bots["rocky"].net == -10
            assert result.bots["rocky"].illegal == 5 and result.bots["paper"].illegal == 0


def test_a_game_that_ends_is_played_to_the_end_per_hand() -> None:
    with registered():
        result = play_match(uniform(3), hands=30, seed=4, game="toy_race", duplicate=True)
        again = play_match(uniform(3), hands=30, seed=4, game="toy_race", duplicate=True)
    assert result.unit == "points/game" and result.hands == 30 and result.deals == 10
    assert result.records == again.records
    for record in result.records:
        assert record["rounds"] >= 2  # 10 points at 3 a leg at best
        assert max(record["net"].values()) >= 10  # somebody reached the goal
    by_deal: dict[int, list[Any]] = {}
    for record in result.records:
        by_deal.setdefault(record["deal"], []).append(record)
    assert all(len(records) == 3 for records in by_deal.values())
    assert result.crosstable is not None


def test_an_economy_game_resets_chips_and_rotates_seats_through_the_contract() -> None:
    class Heads(Bot):
        def act(self, view: Json) -> Json:
            return {"kind": "call", "side": "heads"}

    with registered():
        bots: dict[str, Any] = {"heads": Heads(), **uniform(2)}
        result = play_match(bots, hands=300, seed=5, game="toy_coin", duplicate=True,
                            seat_options={"buy_in": 3})
        assert sum(r.net for r in result.bots.values()) == 0
        assert result.unit == "chips/round"
        assert {tuple(r["seats"]) for r in result.records} == {
            ("heads", "u0", "u1"), ("u0", "u1", "heads"), ("u1", "heads", "u0")}
        # 3 chips each, reset every round: a player can never be broke
        assert all(abs(n) <= 2 for r in result.records for n in r["net"].values())
        kept = play_match(bots, MatchSettings(reset_stacks=False), hands=50, seed=5,
                          game="toy_coin", seat_options={"buy_in": 3})
        assert sum(r.net for r in kept.bots.values()) == 0


def test_uniform_plays_every_registered_game() -> None:
    """Every game in the registry (Hold'em, the toys, and whatever else is registered,
    e.g. the platform tests' Kuhn poker) through the contract only."""
    with registered():
        for game in GAMES.values():
            info = game.info
            players = max(2, info.min_players)
            bots = uniform(players, seed=7)
            options = {}
            if info.key != "holdem" and "buy_in" in info.seat_options.get("properties", {}):
                options = {"buy_in": 100}
            for duplicate in (False, True):
                result = play_match(bots, hands=8, seed=3, game=info.key, seat_options=options,
                                    duplicate=duplicate)
                assert result.hands == 8 // (players if duplicate else 1) * (
                    players if duplicate else 1), info.key
                assert all(r.illegal == 0 for r in result.bots.values()), info.key
                if info.economy:
                    assert sum(r.net for r in result.bots.values()) == 0, info.key


def test_other_games_export_json_records(tmp_path: Path) -> None:
    with registered():
        play_match(uniform(2), hands=4, seed=1, game="toy_throw", phh_out=tmp_path)
    text = (tmp_path / "match.txt").read_text()
    assert text.startswith("[1]\n") and text.count("\n[") == 3


def test_toys_keep_the_contract() -> None:
    for game in TOYS:
        assert game.info.key.startswith("toy_")
    with pytest.raises(ValueError, match="needs 2 to 2 players"), registered():
        play_match(uniform(3), hands=3, game="toy_throw")


def test_cli_other_game(capsys: pytest.CaptureFixture[str]) -> None:
    with registered():
        assert main(["--game", "toy_race", "--bots", "uniform,random", "--hands", "6",
                     "--settings", '{"seats": 2}', "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["game"] == "toy_race" and data["unit"] == "points/game"
        assert set(data["bots"]) == {"uniform", "random"}
        assert main(["--list"]) == 0
        assert "toy_throw" in capsys.readouterr().out
    assert main(["--game", "nope"]) == 2
