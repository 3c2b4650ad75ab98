"""Property tests over thousands of random hands (no Django)."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.actions import Action, ActionKind
from engine.cards import HIDDEN, seeded_deck
from engine.errors import EngineError
from engine.poker.hand import Hand, HandSetup
from engine.projection import Viewer, project_event, project_hand


def random_setup(rng: random.Random) -> HandSetup:
    n = rng.randint(2, 10)
    structure = rng.choice(["NL", "PL", "FL"])
    big = rng.choice([2, 10, 50])
    stacks = tuple(rng.randint(1, 15 * big) if rng.random() < 0.3 else
                   rng.randint(20 * big, 200 * big) for _ in range(n))
    antes: tuple[int, ...] = ()
    if rng.random() < 0.3:
        antes = (rng.randint(1, big),) * n
    return HandSetup(
        structure=structure, stacks=stacks, blinds=(big // 2, big) + (0,) * (n - 2),
        antes=antes, min_bet=big, big_bet=2 * big if structure == "FL" else 0,
        cap_counts_blind=rng.random() < 0.7, ante_trimming=rng.random() < 0.5,
    )


def random_action(rng: random.Random, hand: Hand) -> Action:
    legal = hand.legal_actions()
    options = list(legal)
    action = rng.choice(options)
    if action.amount is not None:
        assert legal.min_raise_to is not None and legal.max_raise_to is not None
        amount = rng.randint(legal.min_raise_to, legal.max_raise_to)
        action = Action(action.kind, amount)
    return action


def illegal_candidates(rng: random.Random) -> list[Action]:
    return [Action.check(), Action.call(), Action.show(), Action.muck(), Action.fold(),
            Action.bet(rng.randint(1, 5000)), Action.raise_to(rng.randint(1, 5000))]


def card_texts(data: object) -> set[str]:
    """Every card appearing in a card-valued field of a projected dict."""
    found: set[str] = set()
    if isinstance(data, dict):
        for key, value in data.items():
            if key in ("cards", "board", "shown") and isinstance(value, str):
                found |= {value[i : i + 2] for i in range(0, len(value), 2)}
            else:
                found |= card_texts(value)
    elif isinstance(data, list):
        for item in data:
            found |= card_texts(item)
    return found


def assert_private(data: object, secret: set[str]) -> None:
    leaked = card_texts(data) & secret
    assert not leaked, (leaked, data)


def check_hand(seed: int, deep: bool) -> None:
    rng = random.Random(seed)
    setup = random_setup(rng)
    deck = seeded_deck(seed)
    hand, events = Hand.start(setup, deck)
    total = sum(setup.stacks)
    log = list(events)
    steps = 0
    while True:
        steps += 1
        assert steps < 500
        if hand.is_over:
            assert sum(hand.stacks) == total
            break
        assert hand.actor is not None
        assert sum(hand.stacks) + sum(p.amount for p in hand.pots) == total
        legal = hand.legal_actions()
        for candidate in illegal_candidates(rng):
            allowed = candidate in legal
            before = hand.to_json() if deep else None
            probe = hand.copy()
            try:
                probe.apply(candidate)
                assert allowed, (candidate, legal)
            except EngineError:
                assert not allowed, (candidate, legal)
                if deep:
                    assert hand.to_json() == before
        for action in legal:  # every listed action is accepted
            hand.copy().apply(action)
        log += hand.apply(random_action(rng, hand))
        if deep:
            assert Hand.from_json(hand.to_json()).to_json() == hand.to_json()
    # privacy: no hidden card reaches a spectator or a one-seat viewer
    holes = hand.hole_cards
    shown = {i for i in range(hand.n) if hand.shown[i]}
    for viewer_position in (None, 0):
        viewer = Viewer.spectator() if viewer_position is None else Viewer.of(viewer_position)
        secret = {str(c) for i in range(hand.n) if i not in shown and i != viewer_position
                  for c in holes[i]}
        secret |= {str(c) for c in deck[2 * hand.n + len(hand.board):]}
        assert_private(project_hand(hand, viewer), secret)
        assert_private([project_event(e, viewer) for e in log], secret)
        assert HIDDEN not in project_hand(hand, Viewer.superuser())["players"][0]["cards"]


def test_thousands_of_random_hands() -> None:
    for seed in range(3000):
        check_hand(seed, deep=seed < 300)


@settings(max_examples=200, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32))
def test_random_hands_hypothesis(seed: int) -> None:
    check_hand(seed, deep=True)


def test_action_kinds_round_trip() -> None:
    for kind in ActionKind:
        action = Action(kind, 10) if kind in (ActionKind.BET, ActionKind.RAISE) else Action(kind)
        assert Action.parse(str(action)) == action == Action.from_json(action.to_json())
