"""Random hands written as PHH: export of engine hands, and the ``simulate`` command.

Hands are exported from their setup and the events the engine emitted, so the
file says exactly what the engine did (blinds, antes, bring-in amounts and chip
pushing stay implicit, as the spec wants).  The variant code is the game's
:meth:`~engine.poker.variants.Variant.code` for its betting structure: the
eleven codes of the PHH spec, and this project's own codes for the other
games and structures (``PT``, ``NO``, ``PO/8``, ``F5S``, ``P5D``, ``NSK``, ...:
see ``docs/phh.md``).  Fixed-limit blind games record ``_cap_counts_blind`` as
a user-defined field.

Stud: a player's cards of one street are one ``d dh`` line, the down cards
first and then the up cards (every street of every variant deals them in that
order: ``ddu``, ``du``, ``u``, ``d``), e.g. ``d dh p1 7c3hKc``; the bring-in is
``pN pb``. Draws: every player's ``pN sd <discards>`` (``pN sd``: stand pat),
then the replacements as ``d dh`` lines in position order.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from engine.actions import Action
from engine.cards import Card, format_cards, seeded_deck
from engine.events import (
    BetPlaced,
    BoardDealt,
    BringInPosted,
    CardsDiscarded,
    CardsMucked,
    CardsShown,
    Event,
    HoleCardsDealt,
    PlayerCalled,
    PlayerChecked,
    PlayerDrew,
    PlayerFolded,
    RaisePlaced,
    UpCardsDealt,
)
from engine.phh.notation import dumps
from engine.phh.policy import choose
from engine.phh.replay import CODES
from engine.poker.hand import Hand, HandSetup, max_hand_players
from engine.poker.variants import VARIANTS

__all__ = [
    "hand_to_phh",
    "phh_actions",
    "phh_fields",
    "play_random",
    "random_setup",
    "simulate",
]


def phh_actions(events: Iterable[Event]) -> list[str]:
    """PHH ``actions`` lines for a hand's events, in order.

    The winner's optional show after everyone else folded is not a PHH action
    (pokerkit rejects ``sm`` there): a show becomes a commentary line, a muck
    is left out. A stud player's down cards and the up cards dealt right after
    them make one ``d dh`` line; a discard is ``sd`` with the cards, standing
    pat a bare ``sd``.

    >>> from engine.cards import parse_cards
    >>> phh_actions([HoleCardsDealt(0, parse_cards("AsKd")), PlayerFolded(1),
    ...              BoardDealt("flop", parse_cards("2c3c4c")), RaisePlaced(0, 40)])
    ['d dh p1 AsKd', 'p2 f', 'd db 2c3c4c', 'p1 cbr 40']
    >>> phh_actions([HoleCardsDealt(0, parse_cards("7c3h")), UpCardsDealt(0, parse_cards("Kc")),
    ...              UpCardsDealt(1, parse_cards("2d")), BringInPosted(1, 2),
    ...              PlayerDrew(0, 0), PlayerDrew(1, 1), CardsDiscarded(1, parse_cards("Kc"))])
    ['d dh p1 7c3hKc', 'd dh p2 2d', 'p2 pb', 'p1 sd', 'p2 sd Kc']
    """
    lines: list[str] = []
    dealt_in: set[int] = set()
    folds = 0
    last_down: int | None = None  # the line index of a HoleCardsDealt just written
    for event in events:
        contenders = len(dealt_in) - folds
        merge, last_down = last_down, None
        match event:
            case CardsShown(player=player, cards=cards) if contenders == 1:
                # Showing after everyone folded has no PHH action: keep it as commentary.
                lines.append(f"# p{player + 1} shows {format_cards(cards)}")
            case CardsMucked() if contenders == 1:
                pass
            case HoleCardsDealt(player=player, cards=cards):
                dealt_in.add(player)
                last_down = len(lines)
                lines.append(f"d dh p{player + 1} {format_cards(cards)}")
            case UpCardsDealt(player=player, cards=cards):
                dealt_in.add(player)
                if merge is not None and lines[merge].startswith(f"d dh p{player + 1} "):
                    lines[merge] += format_cards(cards)
                else:
                    lines.append(f"d dh p{player + 1} {format_cards(cards)}")
            case BoardDealt(cards=cards):
                lines.append(f"d db {format_cards(cards)}")
            case PlayerFolded(player=player):
                folds += 1
                lines.append(f"p{player + 1} f")
            case PlayerChecked(player=player) | PlayerCalled(player=player):
                lines.append(f"p{player + 1} cc")
            case BetPlaced(player=player, to=to) | RaisePlaced(player=player, to=to):
                lines.append(f"p{player + 1} cbr {to}")
            case BringInPosted(player=player):
                lines.append(f"p{player + 1} pb")
            case PlayerDrew(player=player, count=0):
                lines.append(f"p{player + 1} sd")
            case CardsDiscarded(player=player, cards=cards):
                lines.append(f"p{player + 1} sd {format_cards(cards)}")
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

    ``ante_trimming_status`` is always written; ``blinds_or_straddles`` only in
    blind games, ``bring_in`` only in stud; ``small_bet``/``big_bet`` in fixed
    limit, else ``min_bet``. ``extra`` fields (e.g. ``_seed``) are appended.
    """
    variant = setup.game
    fields: dict[str, Any] = {
        "variant": variant.code(setup.structure),
        "ante_trimming_status": setup.ante_trimming,
        "antes": list(setup.antes),
    }
    if variant.forced == "blinds":
        fields["blinds_or_straddles"] = list(setup.blinds)
    if variant.forced == "bring_in":
        fields["bring_in"] = setup.bring_in
    if setup.structure == "FL":
        fields["small_bet"] = setup.min_bet
        fields["big_bet"] = setup.big_bet or 2 * setup.min_bet
        if variant.forced == "blinds":
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
    variant: str = "holdem",
) -> HandSetup:
    """A random table: stacks 50–300 big blinds (small bets), optional short stacks.

    Blind games: blinds 5/10; with ``antes`` either a uniform ante of 1–3 chips
    (ante trimming on or off at random) or a big-blind ante of 10 (trimming off,
    as the spec advises). Stud games: small bet 10, a bring-in of 2, 3 or 5 and
    always a uniform ante of 1–3 (``antes``: trimming on or off at random).
    Sökö: always a uniform ante of 1–3. With ``short_stacks`` each player has a
    30% chance of 1–100 chips, below the blind or ante sometimes.
    """
    game = VARIANTS[variant]
    stacks = [rng.randint(500, 3000) for _ in range(players)]
    if short_stacks:
        stacks = [rng.randint(1, 100) if rng.random() < 0.3 else s for s in stacks]
    ante_list = [0] * players
    trimming = False
    blinds: tuple[int, ...] = (5, 10) + (0,) * (players - 2)
    bring_in = 0
    if game.forced != "blinds":
        blinds = ()
        ante_list = [rng.randint(1, 3)] * players
        trimming = antes and rng.random() < 0.5
        if game.forced == "bring_in":
            bring_in = rng.choice((2, 3, 5))
    elif antes and rng.random() < 0.5:
        ante_list = [rng.randint(1, 3)] * players
        trimming = rng.random() < 0.5
    elif antes:
        ante_list[1] = 10
    return HandSetup(
        variant=variant,
        structure=structure,
        stacks=tuple(stacks),
        blinds=blinds,
        antes=tuple(ante_list),
        min_bet=10,
        big_bet=20 if structure == "FL" else 0,
        cap_counts_blind=cap_counts_blind,
        ante_trimming=trimming,
        bring_in=bring_in,
    )


def play_random(hand: Hand, rng: random.Random) -> list[Event]:
    """Play ``hand`` to the end with :func:`engine.phh.policy.choose`; the events emitted.

    The bring-in is posted 70% of the time (else the bet is completed); a draw
    discards each card with probability 0.4.
    """
    events: list[Event] = []
    while hand.actor is not None:
        legal = hand.legal_actions()
        if legal.can_show or legal.can_muck:
            show = legal.can_show and (not legal.can_muck or rng.random() < 0.5)
            events += hand.apply(Action.show() if show else Action.muck())
            continue
        if legal.draw is not None:
            hole = hand.hole_cards[hand.actor]
            events += hand.apply(Action.draw(tuple(c for c in hole if rng.random() < 0.4)))
            continue
        if legal.bring_in is not None:
            low, high = legal.min_raise_to, legal.max_raise_to
            if low is None or high is None or rng.random() < 0.7:
                events += hand.apply(Action.bring_in())
            else:
                events += hand.apply(Action.bet(rng.randint(low, high)))  # complete
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


def deck_for(setup: HandSetup, seed: int) -> list[Card]:
    """``seeded_deck(seed)`` restricted to the variant's deck (short deck: sixes up)."""
    allowed = set(setup.game.cards)
    return [card for card in seeded_deck(seed) if card in allowed]


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

    ``variant`` is a PHH code (:data:`engine.phh.replay.CODES`). Each hand's deck is
    ``seeded_deck`` of a number drawn from ``Random(seed)`` (restricted to the
    variant's deck), recorded as ``_deck_seed``; draw games record the reshuffle
    order's seed as ``_reshuffle_seed``.
    """
    if variant not in CODES:
        raise ValueError(f"unknown variant code {variant!r}")
    key, structure = CODES[variant]
    most = max_hand_players(VARIANTS[key])
    if not 2 <= players <= most:
        raise ValueError(f"{variant} is played by 2 to {most} players")
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for number in range(1, hands + 1):
        setup = random_setup(rng, structure, players, antes=antes, short_stacks=short_stacks,
                             variant=key)
        deck_seed = rng.getrandbits(32)
        extra: dict[str, Any] = {"_seed": seed, "_hand": number, "_deck_seed": deck_seed}
        reshuffle: list[Card] = []
        if setup.game.draws:
            extra["_reshuffle_seed"] = rng.getrandbits(32)
            reshuffle = deck_for(setup, extra["_reshuffle_seed"])
        hand, _events = Hand.start(setup, deck_for(setup, deck_seed), reshuffle)
        play_random(hand, rng)
        path = out / f"hand-{number:05d}.phh"
        path.write_text(hand_to_phh(hand, **extra), encoding="utf-8")
        paths.append(path)
    return paths
