"""The rule-based bot of the other poker variants: draw rules, equity, legality, strength."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from botkit.bot import Bot, Json
from botkit.house import make_bot
from botkit.house.variant_rules import (
    MAX_SAMPLES,
    MIN_SAMPLES,
    VariantRuleBot,
    badugi_discards,
    best_badugi,
    choose_discards,
    estimate_equity,
    high_discards,
    lowball_discards,
    sample_count,
)
from botkit.match import MatchSettings, play_match
from engine.betting import LegalActions
from engine.cards import parse_cards
from engine.game import check_move, decision_view
from engine.poker import PokerGame
from engine.poker.variants import VARIANTS
from engine.poker.views import legal_moves

OTHER_VARIANTS = [key for key in VARIANTS if key != "holdem"]


def texts(cards: Any) -> list[str]:
    return [str(card) for card in cards]


# ---------------------------------------------------------------------- draw rules


@pytest.mark.parametrize(("hand", "discards"), [
    ("KsKdKc5h5d", ""),          # full house: pat
    ("QsQdQcQhAd", ""),          # quads: pat
    ("AhKhQhJh9h", ""),          # flush
    ("5s6d7c8h9d", ""),          # straight
    ("7c7h7dKs2d", "Ks2d"),      # trips: draw two
    ("9s9d5c5h2d", "2d"),        # two pair: draw one
    ("AsKd7c7h2s", "AsKd2s"),    # a pair: draw three
    ("Ah2h7h9hKd", "Kd"),        # four-flush
    ("5s6d7c8hKd", "Kd"),        # open-ended four-straight
    ("2s3d4c5hKd", "Kd"),        # 2-3-4-5 is open at both ends (A or 6)
    ("JsQdKcAh3d", "JsQdKc3d"),  # J-Q-K-A is one-ended: keep the ace
    ("As2d3c4hKd", "2d3c4hKd"),  # A-2-3-4 too
    ("Kd9s7c4h2d", "7c4h2d"),    # nothing: the two highest
])
def test_high_draw(hand: str, discards: str) -> None:
    assert texts(high_discards(parse_cards(hand), 5)) == texts(parse_cards(discards))


def test_high_draw_respects_the_limit() -> None:
    assert sorted(texts(high_discards(parse_cards("Kd9s7c4h2d"), 2))) == ["2d", "4h"]
    assert high_discards(parse_cards("Kd9s7c4h2d"), 0) == []


@pytest.mark.parametrize(("hand", "discards"), [
    ("8s6d5c4h2h", ""),        # made 8-low
    ("9s8s5d4c2h", ""),        # made 9-low: pat
    ("9s7d5c3h2h", ""),
    ("Ts7d5c3h2h", "Ts"),      # T-low: draw to the 7
    ("7s7d5c3hAh", "7dAh"),    # pair and ace (high in 2-7)
    ("As5d4c3h2h", "As"),      # A-5-4-3-2 is ace high, not a wheel
    ("6s5d4c3h2h", "6s"),      # a straight: break it at the top
    ("8h6h5h3h2h", "8h"),      # a flush: break it at the top
    ("KsQdJc9h8h", "KsQdJc9h"),
    ("9h9d9s9c2d", "9h9d9s9c"),
])
def test_lowball_draw(hand: str, discards: str) -> None:
    assert texts(lowball_discards(parse_cards(hand), 5)) == texts(parse_cards(discards))


def test_lowball_draw_respects_the_limit() -> None:
    # the worst (highest) cards go first when fewer may be thrown
    assert texts(lowball_discards(parse_cards("KsQdJc9h8h"), 3)) == ["Ks", "Qd", "Jc"]


@pytest.mark.parametrize(("hand", "last", "discards"), [
    ("Ac2d3h4s", False, ""),       # the nuts
    ("5c6d7h8s", False, ""),       # 8-high badugi
    ("Ac2d3h9s", False, ""),       # 9-high: pat
    ("Tc2d3h4s", False, ""),       # ten-high: pat as well
    ("Jc2d3h4s", False, "Jc"),     # jack-high: break it before the last draw
    ("Jc2d3h4s", True, ""),        # ... but not at the last one
    ("Ac2c3d4h", False, "2c"),     # three-card A-3-4
    ("As2d3h4s", False, "4s"),     # A-2-3 beats 2-3-4
    ("Ac2d3dQh", False, "3dQh"),   # three-card A-2-Q: the queen goes too
    ("Ac2d3dQh", True, "3dQh"),
    ("KsKdKhKc", False, "KdKhKc"),  # one card: keep one king
    ("Ac2c3c4c", False, "2c3c4c"),  # keep the ace
])
def test_badugi_draw(hand: str, last: bool, discards: str) -> None:
    assert texts(badugi_discards(parse_cards(hand), 4, last)) == texts(parse_cards(discards))


def test_best_badugi_and_dispatch() -> None:
    assert texts(best_badugi(parse_cards("7c4d3h2s"))) == ["7c", "4d", "3h", "2s"]
    assert texts(best_badugi(parse_cards("Ac2c3d4h"))) == ["Ac", "3d", "4h"]
    hand = parse_cards("7s7d5c3hAh")
    assert texts(choose_discards(VARIANTS["triple_draw"], hand, 5)) == ["7d", "Ah"]
    assert texts(choose_discards(VARIANTS["five_card_draw"], hand, 5)) == ["5c", "3h", "Ah"]
    assert texts(choose_discards(VARIANTS["badugi"], parse_cards("Ac2c3d4h"), 4)) == ["2c"]


# ---------------------------------------------------------------------- equity


def test_equity_known_outcomes() -> None:
    rng = random.Random(1)
    p = parse_cards
    # razz: the wheel (seven cards known) against a random seven-card hand
    assert estimate_equity(VARIANTS["razz"], p("As2s3s4s5s6s7s"), (), [((), 7)], rng, 100) > 0.95
    # stud hi-lo: kings win the high half, the low is tied: three quarters
    assert estimate_equity(VARIANTS["stud8"], p("As2c3c4c6dKdKs"), (),
                           [(p("Ah2d3d4d6c9s9c"), 7)], rng, 10) == 0.75
    # Omaha hi-lo without a qualifying low: the high hand scoops
    assert estimate_equity(VARIANTS["omaha8"], p("AhAdKcKh"), p("AsKs9h9cQd"),
                           [(p("2c3c4d5d"), 4)], rng, 10) == 1.0
    # badugi: the same ranks split
    assert estimate_equity(VARIANTS["badugi"], p("Ac2d3h4s"), (), [(p("Ad2c3s4h"), 4)],
                           rng, 10) == 0.5
    # Omaha: quads on the flop against a random hand
    assert estimate_equity(VARIANTS["omaha"], p("AsAdKsKd"), p("AhAcKh"), [((), 4)],
                           rng, 200) > 0.95
    # short deck: hold'em with 36 cards, a flush beats a full house
    assert estimate_equity(VARIANTS["short_deck"], p("AhKh"), p("QhJh9h6s6d"),
                           [(p("QcQs"), 2)], rng, 10) == 1.0


def test_equity_is_reproducible_and_sensible() -> None:
    stud = VARIANTS["stud"]
    mine, opponents = parse_cards("AsAdAh"), [(parse_cards("7c"), 7), (parse_cards("9d"), 7)]
    first = estimate_equity(stud, mine, (), opponents, random.Random(5), 300, (), 7)
    again = estimate_equity(stud, mine, (), opponents, random.Random(5), 300, (), 7)
    assert first == again
    assert first > 0.6  # rolled-up aces three-way
    weak = estimate_equity(stud, parse_cards("2c7d9h"), (), opponents, random.Random(5), 300,
                           parse_cards("KsKh"), 7)
    assert weak < 1 / 3


def test_equity_with_the_stud_community_card() -> None:
    """Eight players at sixth street: the deck cannot give everyone a seventh card, so
    the shortfall is dealt as one community card (as the engine does)."""
    rng = random.Random(3)
    deck = list(VARIANTS["stud"].cards)
    rng.shuffle(deck)
    mine = deck[:6]
    opponents = [(deck[6 + 4 * i: 10 + 4 * i], 7) for i in range(7)]  # four up cards each
    equity = estimate_equity(VARIANTS["stud"], mine, (), opponents, rng, 50, (), 7)
    assert 0.0 <= equity <= 1.0


# ---------------------------------------------------------------------- betting


def make_view(variant: str, mine: str, others: list[str], legal: LegalActions, pot: int,
              board: str = "", street: str = "flop", folded: tuple[int, ...] = (),
              stack: int = 200, bet: int = 0) -> Json:
    """A hand-made view: seat 0 holds ``mine``, seats 1.. the ``others`` (``??`` hidden)."""
    players = [{"player": 0, "position": 0, "stack": stack, "bet": bet, "folded": False,
                "cards": mine}]
    for seat, cards in enumerate(others, start=1):
        players.append({"player": seat, "position": seat, "stack": 200, "bet": 0,
                        "folded": seat in folded, "cards": cards})
    settings = {"structure": "PL", "big_blind": 2, "ante": 0, "variant": variant}
    return {"settings": settings, "seat": 0,
            "hand": {"street": street, "board": board, "players": players,
                     "pots": [{"amount": pot, "eligible": [0, 1]}]},
            "legal": legal.to_json(), "moves": legal_moves(legal, [])}


def test_bets_strong_hands_half_to_three_quarters_of_the_pot() -> None:
    legal = LegalActions(can_fold=True, can_check=True, min_raise_to=2, max_raise_to=100,
                         sized_kind="bet")
    view = make_view("omaha", "AsAdKsKd", ["????????"], legal, 100, board="AhAcKh")
    answer = VariantRuleBot(random.Random(1)).act(view)
    assert answer["kind"] == "bet" and 50 <= answer["amount"] <= 75
    weak = make_view("omaha", "2c3d7h8s", ["????????"], legal, 100, board="AhKcQs")
    assert VariantRuleBot(random.Random(1)).act(weak) == {"kind": "check"}


def test_raises_calls_and_folds_by_equity_and_pot_odds() -> None:
    facing = LegalActions(can_fold=True, call_amount=100, min_raise_to=200, max_raise_to=400,
                          sized_kind="raise")
    bot = VariantRuleBot(random.Random(2))
    nuts = make_view("omaha", "AsAdKsKd", ["????????"], facing, 200, board="AhAcKh",
                     stack=400)
    answer = bot.act(nuts)
    assert answer["kind"] == "raise" and 200 <= answer["amount"] <= 400
    trash = make_view("omaha", "2c3d7h8s", ["????????"], facing, 200, board="AhKcQs2h5d",
                      street="river")
    assert bot.act(trash) == {"kind": "fold"}
    cheap = LegalActions(can_fold=True, call_amount=2, min_raise_to=4, max_raise_to=400,
                         sized_kind="raise")
    middling = make_view("omaha", "QcJd7h8s", ["????????"], cheap, 200, board="QhKc3s")
    assert bot.act(middling) == {"kind": "call"}


def test_bring_in_or_complete() -> None:
    legal = LegalActions(min_raise_to=2, max_raise_to=2, sized_kind="bet", bring_in=1)
    others = ["????Kd", "????Qh"]
    bot = VariantRuleBot(random.Random(3))
    weak = make_view("stud", "7c9d2s", others, legal, 3, street="third")
    assert bot.act(weak) == {"kind": "bring_in"}
    nines = make_view("stud", "9c9d2s", others, legal, 3, street="third")
    assert bot.act(nines) == {"kind": "bring_in"}  # about 0.45 three-way: not strong
    trips = make_view("stud", "2c2d2s", others, legal, 3, street="third")  # about 0.8
    assert bot.act(trips) == {"kind": "bet", "amount": 2}


def test_mucks_and_falls_back_to_legal_answers() -> None:
    bot = VariantRuleBot(random.Random(4))
    show = make_view("razz", "KcKdKs", ["????Qd"], LegalActions(can_show=True, can_muck=True),
                     10, street="seventh")
    assert bot.act(show) == {"kind": "muck"}
    legal = LegalActions(can_fold=True, can_check=True, min_raise_to=2, max_raise_to=100,
                         sized_kind="bet")
    broken = make_view("omaha", "AsAdKsKd", ["????????"], legal, 100, board="AhAcKh")
    broken["settings"]["variant"] = "no_such_game"
    assert bot.act(broken) == {"kind": "check"} and bot.fallbacks == 1
    no_moves = make_view("omaha", "AsAdKsKd", ["????????"], legal, 100, board="AhAcKh")
    del no_moves["moves"]
    answer = bot.act(no_moves)
    assert answer["kind"] == "bet" and bot.fallbacks == 1


def test_registered_as_rule_based_for_the_other_variants() -> None:
    for key in OTHER_VARIANTS:
        assert isinstance(make_bot("rule_based", random.Random(1), game=key), VariantRuleBot)


# ---------------------------------------------------------------------- legality


def play_random_tables(variant: str, tables: int, hands: int, seed: int
                       ) -> tuple[int, list[VariantRuleBot]]:
    """Random tables of ``variant`` (2 to the maximum players, every structure, stacks from
    one chip to 400 big bets); mixed with random and calling-station bots. Every answer
    of the rule-based bots is checked against the view's moves. Returns their decisions."""
    rng = random.Random(seed)
    game = PokerGame(variant)
    v = VARIANTS[variant]
    decisions = 0
    ours: list[VariantRuleBot] = []
    for _ in range(tables):
        n = rng.randint(v.min_players, v.max_players)
        settings = game.validate_settings({"seats": n, "structure": rng.choice(v.structures),
                                           "ante": rng.choice([0, 1, 2]), "min_buy_in": 2,
                                           "max_buy_in": None})
        state = game.create(settings)
        bots: list[Bot] = []
        for seat in range(n):
            kind = rng.choice(["rule_based", "rule_based", "rule_based", "random",
                               "calling_station"])
            if kind == "rule_based":
                bot = VariantRuleBot(random.Random(rng.random()), samples=6)
                ours.append(bot)
                bots.append(bot)
            else:
                bots.append(make_bot(kind, random.Random(rng.random()), game=variant))
            game.seat(state, seat, f"p{seat}", {"buy_in": 100})
        for number in range(hands):
            stacks = [rng.choice([1, 2, 3, rng.randint(4, 60), rng.randint(100, 800)])
                      for _ in range(n)]
            game.prepare_round(state, [f"p{seat}" for seat in range(n)], stacks, number % n,
                               {"buy_in": 100})
            game.start_round(state, game.draw_chance(state, rng))
            while seats := game.to_act(state):
                seat = seats[0]
                view = decision_view(game, state, seat)
                answer = bots[seat].act(view)
                if isinstance(bots[seat], VariantRuleBot):
                    check_move(view["moves"], answer)
                    decisions += 1
                game.apply(state, seat, answer)
    return decisions, ours


@pytest.mark.parametrize("variant", OTHER_VARIANTS)
def test_always_legal(variant: str) -> None:
    decisions, bots = play_random_tables(variant, tables=16, hands=20,
                                         seed=OTHER_VARIANTS.index(variant))
    assert decisions >= 800  # 1,000 to 3,300 per variant, about 21,000 in all
    assert sum(bot.fallbacks for bot in bots) == 0  # every answer was the bot's own


def test_reproducible_with_a_seeded_rng() -> None:
    def play() -> list[Any]:
        result = play_match({"a": make_bot("rule_based", random.Random(7), game="stud8"),
                             "b": make_bot("rule_based", random.Random(8), game="stud8")},
                            MatchSettings(structure="FL"), hands=40, seed=3, game="stud8")
        return [r.net for r in result.bots.values()] + [result.cumulative]

    assert play() == play()


# ---------------------------------------------------------------------- strength


class Timed(Bot):
    """Times another bot's decisions."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.seconds = 0.0
        self.decisions = 0

    def act(self, view: Json) -> Json:
        started = time.perf_counter()
        answer = self.bot.act(view)
        self.seconds += time.perf_counter() - started
        self.decisions += 1
        return answer


MATCHES = {  # (variant, opponent): heads-up duplicate hands
    ("omaha", "random"): 400, ("omaha", "calling_station"): 300,
    ("five_card_draw", "random"): 400, ("five_card_draw", "calling_station"): 300,
    ("stud", "random"): 400, ("stud", "calling_station"): 300,
}


@pytest.mark.parametrize(("variant", "opponent"), list(MATCHES))
def test_beats_the_weak_house_bots(variant: str, opponent: str) -> None:
    """Duplicate heads-up with the variant's default structure (Omaha and five-card draw
    pot limit, stud fixed limit): the 95 % interval of the mean result per hand lies
    above zero, against the random bot and against the calling station."""
    ours = Timed(make_bot("rule_based", random.Random(1), game=variant))
    bots: dict[str, Any] = {"rule_based": ours,
                            opponent: make_bot(opponent, random.Random(2), game=variant)}
    structure = VARIANTS[variant].default_structure
    result = play_match(bots, MatchSettings(structure=structure), hands=MATCHES[variant, opponent],
                        seed=1, duplicate=True, record=False, game=variant)
    mine = result.bots["rule_based"]
    assert mine.illegal == 0
    assert mine.mbb_per_hand - mine.ci95 > 0, (mine.mbb_per_hand, mine.ci95)
    assert ours.seconds / ours.decisions < 0.025  # ~2-5 ms; generous for loaded machines


def test_sample_budget() -> None:
    """The automatic sample count stays within its bounds for every variant and table size."""
    assert sample_count(VARIANTS["omaha"], 2) == MAX_SAMPLES
    for key in OTHER_VARIANTS:
        variant = VARIANTS[key]
        counts = [sample_count(variant, players)
                  for players in range(2, variant.max_players + 1)]
        assert all(MIN_SAMPLES <= c <= MAX_SAMPLES for c in counts)
        assert counts == sorted(counts, reverse=True)
