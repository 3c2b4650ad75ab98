"""The poker variants: worked examples of each mechanism, and random play of every variant.

Worked examples: stud's bring-in, completion and openers, the community card when
the deck runs out, draws (hidden cards, public count, replacements, the reshuffle
of the discards), hi-lo splits with the odd chip, sökö at a table, the table plan
without blinds. Random play: every variant, every structure it is played in —
chips conserved, every viewer's projection free of cards it may not see, exact
replay from the stored setup, deck and actions.
"""

from __future__ import annotations

import json
import random
import re

import pytest

from engine.actions import Action
from engine.cards import CARDS, Card, parse_cards
from engine.errors import IllegalAction, MalformedAction
from engine.events import (
    BringInPosted,
    CardsDiscarded,
    HoleCardsDealt,
    PlayerDrew,
    PotAwarded,
    UpCardsDealt,
)
from engine.game import Viewer
from engine.poker import PokerGame
from engine.poker.hand import Hand, HandSetup
from engine.poker.variants import VARIANTS, Variant
from engine.projection import project_event, project_hand


def deck(first: str, variant: str = "holdem") -> list[Card]:
    """The cards of ``first`` in that order, then the rest of the variant's deck."""
    head = list(parse_cards(first))
    return head + [c for c in VARIANTS[variant].cards if c not in head]


def stud(stacks: tuple[int, ...], variant: str = "stud", **kw: object) -> HandSetup:
    return HandSetup(variant=variant, structure="FL", stacks=stacks, antes=(1,) * len(stacks),
                     bring_in=1, min_bet=2, big_bet=4, **kw)  # type: ignore[arg-type]


# ---------------------------------------------------------------- stud


def test_stud_lowest_up_card_brings_in_and_may_complete() -> None:
    # Third street: p0 As Ks | 9d, p1 Ah Kh | 2c (lowest: brings in), p2 Ad Kd | 2d.
    hand, events = Hand.start(stud((50, 50, 50)), deck("AsKs9d" "AhKh2c" "AdKd2d"))
    assert [type(e).__name__ for e in events][:3] == ["AntePosted"] * 3
    ups = [e for e in events if isinstance(e, UpCardsDealt)]
    assert [(e.player, str(e.cards[0])) for e in ups] == [(0, "9d"), (1, "2c"), (2, "2d")]
    assert hand.actor == 1
    legal = hand.legal_actions()
    assert (legal.bring_in, legal.can_fold, legal.can_check) == (1, False, False)
    assert (legal.min_raise_to, legal.max_raise_to, legal.sized_kind) == (2, 2, "bet")
    with pytest.raises(IllegalAction) as error:
        hand.apply(Action.fold())
    assert error.value.code == "bring_in_now"
    assert isinstance(hand.apply(Action.bring_in())[0], BringInPosted)
    # p2 faces the bring-in: fold, call 1, or complete to the small bet.
    legal = hand.legal_actions()
    assert (hand.actor, legal.call_amount, legal.min_raise_to, legal.max_raise_to) == (2, 1, 2, 2)
    hand.apply(Action.raise_to(2))  # the completion
    hand.apply(Action.call())  # p0
    # The bring-in, who only posted, may raise a completion: it is a full bet.
    legal = hand.legal_actions()
    assert (hand.actor, legal.call_amount, legal.min_raise_to) == (1, 1, 4)


def test_razz_highest_up_card_brings_in_and_best_low_opens() -> None:
    # p0 door Kd, p1 door Ks (king of spades: the highest card, ace low), p2 door Ac.
    hand, _ = Hand.start(stud((50, 50, 50), "razz"), deck("2c3cKd" "2d3dKs" "4c5cAc" "9h" "8h" "7h",
                                                          "razz"))
    assert hand.actor == 1 and hand.legal_actions().bring_in == 1
    hand.apply(Action.bring_in())
    hand.apply(Action.call())  # p2
    hand.apply(Action.call())  # p0
    assert hand.street == "fourth"
    # Fourth street up cards: p0 Kd 9h, p1 Ks 8h, p2 Ac 7h: the best low opens.
    assert hand.actor == 2


def test_stud_best_visible_hand_opens_later_streets() -> None:
    # p0 up 9d then 9s (a pair of nines), p1 up 2c then Ac, p2 up Kd then Qd.
    cards = deck("2s3s9d" "4h5h2c" "6c7cKd" "9s" "Ac" "Qd")
    hand, _ = Hand.start(stud((50, 50, 50)), cards)
    hand.apply(Action.bring_in())  # p1 (2c)
    hand.apply(Action.call())  # p2
    hand.apply(Action.call())  # p0
    assert hand.street == "fourth" and hand.actor == 0  # the open pair


def test_eight_stud_players_share_a_community_card_on_seventh_street() -> None:
    setup = stud((100,) * 8)
    hand, _ = Hand.start(setup, deck(""))
    while hand.actor is not None:  # everybody calls down
        legal = hand.legal_actions()
        if legal.bring_in is not None:
            hand.apply(Action.bring_in())
        elif legal.can_check:
            hand.apply(Action.check())
        elif legal.call_amount is not None:
            hand.apply(Action.call())
        else:
            hand.apply(Action.muck())
    assert len(hand.board) == 1  # 8 × 6 = 48 cards dealt, 4 left for 8 players
    assert all(len(hole) == 6 for hole in hand.holes)
    assert sum(hand.finishing_stacks or ()) == 800


def test_stud_projection_shows_up_cards_only() -> None:
    hand, events = Hand.start(stud((50, 50)), deck("AsKs9d" "AhKh2c"))
    view = project_hand(hand, Viewer.spectator())
    assert [p["cards"] for p in view["players"]] == ["????9d", "????2c"]
    assert view["players"][0]["up"] == [False, False, True]
    own = project_hand(hand, Viewer.of(0))
    assert own["players"][0]["cards"] == "AsKs9d" and own["players"][1]["cards"] == "????2c"
    spectator = [project_event(e, Viewer.spectator()) for e in events]
    assert "As" not in json.dumps(spectator) and "9d" in json.dumps(spectator)


# ---------------------------------------------------------------- draws


def draw_setup(variant: str = "five_card_draw", n: int = 2, structure: str = "PL") -> HandSetup:
    return HandSetup(variant=variant, structure=structure, stacks=(200,) * n,
                     blinds=(1, 2) + (0,) * (n - 2), min_bet=2)


def test_five_card_draw_hides_the_draw_but_not_its_size() -> None:
    cards = deck("AsAdKc7h2c" "QsQdJc8h3d" "9s9h")
    hand, _ = Hand.start(draw_setup(), cards)
    hand.apply(Action.call())  # p1, the button, completes the small blind
    hand.apply(Action.check())  # p0
    assert hand.drawing and hand.actor == 0
    assert hand.legal_actions().draw == 5
    with pytest.raises(IllegalAction) as error:
        hand.apply(Action.draw(parse_cards("9s")))  # not in the hand
    assert error.value.code == "bad_discard"
    drew = hand.apply(Action.draw(parse_cards("7h2c")))
    assert [type(e).__name__ for e in drew] == ["PlayerDrew", "CardsDiscarded"]
    events = hand.apply(Action.draw(parse_cards("8h3d")))  # p1's draw, then the deals
    dealt = [e for e in events if isinstance(e, HoleCardsDealt)]
    assert [(e.player, len(e.cards)) for e in dealt] == [(0, 2), (1, 2)]
    assert hand.holes[0][:3] == list(parse_cards("AsAdKc"))
    assert tuple(hand.holes[0][3:]) == dealt[0].cards
    spectator = Viewer.spectator()
    public = [project_event(e, spectator) for e in drew + events]
    assert {"type": "PlayerDrew", "player": 0, "count": 2} in public
    assert not any(p and p["type"] == "CardsDiscarded" for p in public)  # which: private
    text = json.dumps(public)
    assert "7h" not in text and "2c" not in text and str(dealt[0].cards[0]) not in text
    assert project_hand(hand, Viewer.spectator())["players"][0]["draws"] == [2]
    assert project_hand(hand, Viewer.of(1))["players"][0]["cards"] == "??" * 5
    # The draw is over: betting, first to act is position 0.
    assert not hand.drawing and hand.actor == 0 and hand.legal_actions().can_check


def test_an_empty_deck_reshuffles_the_discards_in_the_stored_order() -> None:
    # Six players discard five cards each in the first two draws: 30 dealt + 60 drawn.
    setup = draw_setup("triple_draw", 6, "FL")
    rng = random.Random(3)
    cards, order = list(CARDS), list(CARDS)
    rng.shuffle(cards)
    rng.shuffle(order)
    hand, _ = Hand.start(setup, cards, order)
    seen_reshuffle = False
    while hand.actor is not None:
        legal = hand.legal_actions()
        if legal.draw is not None:
            hand.apply(Action.draw(tuple(hand.holes[hand.actor])))
        elif legal.can_check:
            hand.apply(Action.check())
        elif legal.call_amount is not None:
            hand.apply(Action.call())
        else:
            hand.apply(Action.muck())
        seen_reshuffle = seen_reshuffle or len(hand.pile) > 52
    assert seen_reshuffle
    held = [c for hole in hand.holes for c in hole]
    assert len(held) == len(set(held)) == 30  # nobody holds a card twice
    again = Hand.from_json(json.loads(json.dumps(hand.to_json())))
    assert again.holes == hand.holes and again.finishing_stacks == hand.finishing_stacks


def test_all_in_players_still_draw_and_show_at_the_end() -> None:
    setup = HandSetup(variant="single_draw", structure="NL", stacks=(20, 20), blinds=(1, 2),
                      min_bet=2)
    hand, _ = Hand.start(setup, deck("2c3d4h5s7c" "KsKdQc8h8d", "single_draw"))
    hand.apply(Action.raise_to(20))
    hand.apply(Action.call())
    assert hand.drawing  # both all-in, the draw still comes
    hand.apply(Action.draw(()))
    hand.apply(Action.draw(parse_cards("KsKd")))
    assert hand.is_over and all(hand.shown)
    assert hand.finishing_stacks == (40, 0)  # 7-5-4-3-2 is the best 2-7 low


# ---------------------------------------------------------------- hi-lo


def test_omaha_hi_lo_splits_the_pot_with_the_odd_chip_high() -> None:
    # p0 (the big blind heads-up) holds the nut low, p1 the high (a set of kings).
    setup = HandSetup(variant="omaha8", structure="FL", stacks=(101, 101), blinds=(1, 2),
                      antes=(0, 0), min_bet=2, big_bet=4)
    cards = deck("Ac2c9s9h" "KsKdQhJh" "3d4s8h" "Kc" "Td", "omaha8")
    hand, _ = Hand.start(setup, cards)
    hand.apply(Action.call())
    hand.apply(Action.check())
    while hand.actor is not None:
        legal = hand.legal_actions()
        hand.apply(Action.check() if legal.can_check else Action.muck())
    awards = [e for e in hand.events if isinstance(e, PotAwarded)]
    assert sorted((e.player, e.amount, e.side) for e in awards) == [(0, 2, "low"), (1, 2, "high")]
    assert hand.finishing_stacks == (101, 101)
    assert "low" in (hand.results or ())[0].hand  # type: ignore[operator]


def test_hi_lo_without_a_qualifying_low_goes_all_high() -> None:
    setup = HandSetup(variant="omaha8", structure="FL", stacks=(100, 100), blinds=(1, 2),
                      min_bet=2, big_bet=4)
    hand, _ = Hand.start(setup, deck("2s3h4c5d" "QsQdQhJh" "TdTs9c" "Kd" "Ks", "omaha8"))
    hand.apply(Action.call())
    while hand.actor is not None:
        legal = hand.legal_actions()
        hand.apply(Action.check() if legal.can_check else Action.muck())
    awards = [e for e in hand.events if isinstance(e, PotAwarded)]
    assert [(e.player, e.amount, e.side) for e in awards] == [(1, 4, "")]


# ---------------------------------------------------------------- tables


def test_soko_table_antes_and_highest_up_card_opens() -> None:
    game = PokerGame("soko")
    settings = game.validate_settings({})
    assert (settings.structure, settings.ante) == ("PL", 1)
    assert settings.name == "Sökö PL200 (bet 2) ante 1"
    state = game.create(settings)
    for seat in range(3):
        game.seat(state, seat, f"p{seat}", {"buy_in": 100})
    cards = "".join(str(c) for c in deck("2c3c" "4dAs" "5h6h"))  # up cards 3c, As, 6h
    events = game.start_round(state, {"deck": cards})
    assert not any(type(e).__name__ == "BlindPosted" for e in events)
    hand = state.hand
    assert hand is not None
    opener = state.positions[hand.actor]  # position 1 holds the ace
    assert opener == state.positions[1]
    assert game.legal_actions(state, opener)["can_check"]


def test_stud_table_deals_everyone_in_without_blinds() -> None:
    game = PokerGame("stud")
    settings = game.validate_settings({})
    assert (settings.structure, settings.bring_in, settings.ante, settings.seats) == ("FL", 1, 1, 6)
    state = game.create(settings)
    game.seat(state, 2, "a", {"buy_in": 100})
    game.seat(state, 5, "b", {"buy_in": 100, "wait_for_bb": True})
    game.start_round(state, game.draw_chance(state, random.Random(1)))
    assert sorted(state.positions) == [2, 5]
    moves = game.legal_moves(state, game.to_act(state)[0])
    assert [m["kind"] for m in moves] == ["bring_in", "bet"]
    assert moves[1]["label"] == "Complete to"


def test_draw_moves_offer_the_seat_s_own_cards() -> None:
    game = PokerGame("badugi")
    state = game.create(game.validate_settings({"seats": 2}))
    game.seat(state, 0, "a", {"buy_in": 100})
    game.seat(state, 1, "b", {"buy_in": 100})
    game.start_round(state, game.draw_chance(state, random.Random(2)))
    while "draw" not in [m["kind"] for m in game.legal_moves(state, game.to_act(state)[0])]:
        seat = game.to_act(state)[0]
        legal = game.legal_actions(state, seat)
        game.apply(state, seat, {"kind": "check" if legal["can_check"] else "call"})
    seat = game.to_act(state)[0]
    (move,) = game.legal_moves(state, seat)
    position = state.positions.index(seat)
    assert move["params"]["cards"]["items"] == [str(c) for c in state.hand.holes[position]]
    before = game.dump(state)
    with pytest.raises(MalformedAction) as refused:  # the descriptor requires "cards"
        game.apply(state, seat, {"kind": "draw"})
    assert refused.value.code == "missing_cards" and game.dump(state) == before
    events = game.apply(state, seat, {"kind": "draw",
                                      "cards": move["params"]["cards"]["items"][:2]})
    public = [game.project_event(e, Viewer.spectator()) for e in events]
    assert {"type": "PlayerDrew", "player": seat, "count": 2} in public
    assert not any(p and p["type"] == "CardsDiscarded" for p in public)


# ---------------------------------------------------------------- random play


def _random_setup(variant: Variant, structure: str, rng: random.Random) -> HandSetup:
    n = rng.randint(2, min(variant.max_players, 8))
    stacks = tuple(rng.randint(1, 60) if rng.random() < 0.3 else rng.randint(100, 900)
                   for _ in range(n))
    blinds = (5, 10) + (0,) * (n - 2) if variant.forced == "blinds" else ()
    antes = (rng.randint(0, 3),) * n if variant.forced == "blinds" else (2,) * n
    return HandSetup(variant=variant.key, structure=structure, stacks=stacks, blinds=blinds,
                     antes=antes, bring_in=3 if variant.forced == "bring_in" else 0,
                     min_bet=10, big_bet=20 if structure == "FL" else 0)


_CARD = re.compile(r"[2-9TJQKA][cdhs]")


def _cards_in(node: object) -> set[str]:
    """Every card named in a ``cards``, ``board`` or ``shown`` field of a JSON tree."""
    found: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("cards", "board", "shown") and isinstance(value, str):
                found.update(_CARD.findall(value))
            else:
                found |= _cards_in(value)
    elif isinstance(node, list):
        for value in node:
            found |= _cards_in(value)
    return found


@pytest.mark.parametrize("key", list(VARIANTS))
def test_random_play_conserves_chips_hides_cards_and_replays(key: str) -> None:
    variant = VARIANTS[key]
    rng = random.Random(key)
    for structure in variant.structures:
        for _ in range(60):
            setup = _random_setup(variant, structure, rng)
            cards, order = list(variant.cards), list(variant.cards)
            rng.shuffle(cards)
            rng.shuffle(order)
            hand, events = Hand.start(setup, cards, order if variant.draws else ())
            while hand.actor is not None:
                legal = hand.legal_actions()
                if legal.draw is not None:
                    hole = hand.holes[hand.actor]
                    action = Action.draw(tuple(c for c in hole if rng.random() < 0.4))
                else:
                    action = rng.choice(list(legal))
                    if action.amount is not None and legal.min_raise_to is not None:
                        assert legal.max_raise_to is not None
                        action = Action(action.kind, rng.randint(legal.min_raise_to,
                                                                 legal.max_raise_to))
                events += hand.apply(action)
            assert sum(hand.finishing_stacks or ()) == sum(setup.stacks)
            # Privacy: a spectator sees a card only if it was dealt up, on the board, or shown.
            public: set[str] = {str(c) for c in hand.board}
            for e in events:
                if isinstance(e, UpCardsDealt) or type(e).__name__ == "CardsShown":
                    public.update(str(c) for c in e.cards)  # type: ignore[attr-defined]
            seen = _cards_in([project_event(e, Viewer.spectator()) for e in events])
            seen |= _cards_in(project_hand(hand, Viewer.spectator()))
            assert seen <= public
            for e in events:
                if isinstance(e, CardsDiscarded | HoleCardsDealt):
                    assert e.audience == e.player
                if isinstance(e, PlayerDrew):
                    assert e.audience is None
            again = Hand.from_json(json.loads(json.dumps(hand.to_json())))
            assert [e.to_json() for e in again.events] == [e.to_json() for e in hand.events]
