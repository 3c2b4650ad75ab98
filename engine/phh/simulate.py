"""Random hands written as PHH: export of engine hands, and the ``simulate`` command.

Hands are exported from their setup and the events the engine emitted, so the
file says exactly what the engine did (blinds, antes and chip pushing stay
implicit, as the spec wants).  Pot-limit hold'em is written with this project's
own variant code ``PT`` (the PHH spec has no pot-limit hold'em code); fixed
limit is ``FT`` with ``_cap_counts_blind`` recorded as a user-defined field.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from engine.actions import Action
from engine.cards import format_cards, seeded_deck
from engine.events import (
    BetPlaced,
    BoardDealt,
    CardsMucked,
    CardsShown,
    Event,
    HoleCardsDealt,
    PlayerCalled,
    PlayerChecked,
    PlayerFolded,
    RaisePlaced,
)
from engine.holdem import Hand, HandSetup
from engine.phh.notation import dumps
from engine.phh.policy import choose

__all__ = [
    "VARIANTS",
    "hand_to_phh",
    "phh_actions",
    "phh_fields",
    "play_random",
    "random_setup",
    "simulate",
]

VARIANTS = {"NL": "NT", "FL": "FT", "PL": "PT"}
"""Engine betting structure -> PHH variant code (``PT`` is this project's own)."""


def phh_actions(events: Iterable[Event]) -> list[str]:
    """PHH ``actions`` lines for a hand's events, in order.

    The winner's optional show after everyone else folded is not a PHH action
    (pokerkit rejects ``sm`` there): a show becomes a commentary line, a muck
    is left out.

    >>> from engine.cards import parse_cards
    >>> phh_actions([HoleCardsDealt(0, parse_cards("AsKd")), PlayerFolded(1),
    ...              BoardDealt("flop", parse_cards("2c3c4c")), RaisePlaced(0, 40)])
    ['d dh p1 AsKd', 'p2 f', 'd db 2c3c4c', 'p1 cbr 40']
    """
    lines: list[str] = []
    contenders = 0
    for event in events:
        match event:
            case CardsShown(player=player, cards=cards) if contenders == 1:
                # Showing after everyone folded has no PHH action: keep it as commentary.
                lines.append(f"# p{player + 1} shows {format_cards(cards)}")
            case CardsMucked() if contenders == 1:
                pass
            case HoleCardsDealt(player=player, cards=cards):
                contenders += 1
                lines.append(f"d dh p{player + 1} {format_cards(cards)}")
            case BoardDealt(cards=cards):
                lines.append(f"d db {format_cards(cards)}")
            case PlayerFolded(player=player):
                contenders -= 1
                lines.append(f"p{player + 1} f")
            case PlayerChecked(player=player) | PlayerCalled(player=player):
                lines.append(f"p{player + 1} cc")
            case BetPlaced(player=player, to=to) | RaisePlaced(player=player, to=to):
                lines.append(f"p{player + 1} cbr {to}")
            case CardsShown(player=player, cards=cards):
                lines.append(f"p{player + 1} sm {format_cards(cards)}")
            case CardsMucked(player=player):
                lines.append(f"p{player + 1} sm")
    return lines


def phh_fields(
    setup: HandSetup,
    events: Iterable[Event],
    finishing_stacks: Sequence[int] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """The PHH fields of an engine hand, ready for :func:`engine.phh.notation.dumps`.

    ``ante_trimming_status`` is always written; ``extra`` fields (e.g. ``_seed``)
    are appended.
    """
    fields: dict[str, Any] = {
        "variant": VARIANTS[setup.structure],
        "ante_trimming_status": setup.ante_trimming,
        "antes": list(setup.antes),
        "blinds_or_straddles": list(setup.blinds),
    }
    if setup.structure == "FL":
        fields["small_bet"] = setup.min_bet
        fields["big_bet"] = setup.big_bet
        fields["_cap_counts_blind"] = setup.cap_counts_blind
    else:
        fields["min_bet"] = setup.min_bet
    fields["starting_stacks"] = list(setup.stacks)
    fields["actions"] = phh_actions(events)
    if finishing_stacks is not None:
        fields["finishing_stacks"] = list(finishing_stacks)
    fields.update(extra)
    return fields


def hand_to_phh(hand: Hand, **extra: Any) -> str:
    """PHH text of an engine hand, finished or not (then ``finishing_stacks`` are the
    stacks after the actions so far, as a replay of the text would report them).

    >>> from engine.cards import standard_deck
    >>> hand, _ = Hand.start(HandSetup(stacks=(100, 100), blinds=(1, 2)), standard_deck())
    >>> _ = hand.apply(Action.fold()); _ = hand.apply(Action.muck())
    >>> print(hand_to_phh(hand))  # doctest: +NORMALIZE_WHITESPACE
    variant = "NT"
    ante_trimming_status = false
    antes = [0, 0]
    blinds_or_straddles = [1, 2]
    min_bet = 2
    starting_stacks = [100, 100]
    actions = ["d dh p1 2c2d", "d dh p2 2h2s", "p2 f"]
    finishing_stacks = [101, 99]
    <BLANKLINE>
    """
    return dumps(phh_fields(hand.setup, hand.events, hand.stacks, **extra))


def random_setup(
    rng: random.Random,
    structure: str,
    players: int,
    *,
    antes: bool = False,
    short_stacks: bool = False,
    cap_counts_blind: bool = False,
) -> HandSetup:
    """A random table: blinds 5/10, stacks 50–300 BB, optional antes and short stacks.

    With ``antes`` the hand gets either a uniform ante of 1–3 chips (ante
    trimming on or off at random) or a big-blind ante of 10 (trimming off, as the
    spec advises).  With ``short_stacks`` each player has a 30% chance of 1–100
    chips, below the blind or ante sometimes.
    """
    stacks = [rng.randint(500, 3000) for _ in range(players)]
    if short_stacks:
        stacks = [rng.randint(1, 100) if rng.random() < 0.3 else s for s in stacks]
    ante_list = [0] * players
    trimming = False
    if antes and rng.random() < 0.5:
        ante_list = [rng.randint(1, 3)] * players
        trimming = rng.random() < 0.5
    elif antes:
        ante_list[1] = 10
    return HandSetup(
        structure=structure,
        stacks=tuple(stacks),
        blinds=(5, 10) + (0,) * (players - 2),
        antes=tuple(ante_list),
        min_bet=10,
        big_bet=20 if structure == "FL" else 0,
        cap_counts_blind=cap_counts_blind,
        ante_trimming=trimming,
    )


def play_random(hand: Hand, rng: random.Random) -> list[Event]:
    """Play ``hand`` to the end with :func:`engine.phh.policy.choose`; the events emitted."""
    events: list[Event] = []
    while hand.actor is not None:
        legal = hand.legal_actions()
        if legal.can_show or legal.can_muck:
            show = legal.can_show and (not legal.can_muck or rng.random() < 0.5)
            events += hand.apply(Action.show() if show else Action.muck())
            continue
        kind, amount = choose(
            rng,
            can_check=legal.can_check,
            call_amount=legal.call_amount or 0,
            min_to=legal.min_raise_to,
            max_to=legal.max_raise_to,
        )
        if kind == "fold":
            action = Action.fold()
        elif kind == "check":
            action = Action.check()
        elif kind == "call":
            action = Action.call()
        else:
            assert amount is not None
            action = Action.bet(amount) if legal.can_bet else Action.raise_to(amount)
        events += hand.apply(action)
    return events


def simulate(
    *,
    variant: str,
    players: int,
    hands: int,
    seed: int,
    out: Path,
    antes: bool = False,
    short_stacks: bool = False,
) -> list[Path]:
    """Play ``hands`` random hands and write ``out/hand-00001.phh``, ...; the paths written.

    Each hand's deck is ``seeded_deck`` of a number drawn from ``Random(seed)``,
    recorded as ``_deck_seed``.
    """
    structure = {code: name for name, code in VARIANTS.items()}[variant]
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for number in range(1, hands + 1):
        setup = random_setup(rng, structure, players, antes=antes, short_stacks=short_stacks)
        deck_seed = rng.getrandbits(32)
        hand, _events = Hand.start(setup, seeded_deck(deck_seed))
        play_random(hand, rng)
        path = out / f"hand-{number:05d}.phh"
        text = hand_to_phh(hand, _seed=seed, _hand=number, _deck_seed=deck_seed)
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths
