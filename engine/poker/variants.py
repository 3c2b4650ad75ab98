"""The poker variants as data: streets, forced bets, evaluation, deck, players.

One :class:`Variant` describes a game the way pokerkit's ``Street`` tuples do: per
street, which cards each player is dealt (face down ``d`` or face up ``u``), how many
board cards, whether the players draw, who opens the betting and whether fixed limit
uses the big bet. The hand state machine (:mod:`engine.poker.hand`) reads nothing
else, so adding a variant is one entry in :data:`VARIANTS` (plus an evaluator in
:mod:`engine.poker.evaluators` if it ranks hands in a new way).

>>> VARIANTS["holdem"].code("NL"), VARIANTS["stud"].code("FL"), VARIANTS["omaha8"].code("PL")
('NT', 'F7S', 'PO/8')
>>> [s.name for s in VARIANTS["stud"].streets]
['third', 'fourth', 'fifth', 'sixth', 'seventh']
>>> VARIANTS["stud"].cards_per_player, VARIANTS["razz"].split, VARIANTS["omaha8"].split
(7, False, True)
>>> sorted(by_code("F2L3D").key for _ in [0])
['triple_draw']

Openings (who acts first on a street, pokerkit's ``Opening``):

* ``position`` — after the blinds on the first street, else the first player left
  of the button still in the hand;
* ``low_card`` — the lowest up card (deuce lowest, ace highest; clubs < diamonds <
  hearts < spades break ties): the stud bring-in;
* ``high_card_low`` — the highest up card with the ace low (razz's bring-in: a king
  brings in; spades highest break ties);
* ``high_card`` — the highest up card with the ace high (sökö's first round);
* ``high_hand`` / ``low_hand`` — the best visible high hand (stud) or the best
  visible ace-to-five low hand (razz) on the up cards; a tie goes to the first such
  player from position 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.cards import CARDS, Card
from engine.errors import MalformedAction

__all__ = ["OPENINGS", "VARIANTS", "Street", "Variant", "by_code"]

OPENINGS = ("position", "low_card", "high_card_low", "high_card", "high_hand", "low_hand")

STANDARD_DECK: tuple[Card, ...] = CARDS
SHORT_DECK: tuple[Card, ...] = tuple(c for c in CARDS if c.rank >= 4)  # sixes to aces
DECKS = {"standard": STANDARD_DECK, "short": SHORT_DECK}
DECK_SETS = {name: frozenset(cards) for name, cards in DECKS.items()}


@dataclass(frozen=True, slots=True)
class Street:
    """One street: deal, maybe draw, then a betting round.

    ``hole`` has one letter per card dealt to every player still in the hand, ``d``
    face down or ``u`` face up, in dealing order; ``board`` community cards follow;
    with ``draw`` every player still in the hand then discards and is dealt as many.
    """

    name: str
    hole: str = ""
    board: int = 0
    draw: bool = False
    opening: str = "position"
    big_bet: bool = False

    def __post_init__(self) -> None:
        if self.opening not in OPENINGS or set(self.hole) - {"d", "u"}:
            raise MalformedAction("bad_variant", f"Bad street {self.name!r}.")

    @property
    def all_down(self) -> bool:
        """True if every hole card of the street is dealt face down."""
        return "u" not in self.hole


@dataclass(frozen=True, slots=True)
class Variant:
    """A poker game: its streets, forced bets, hand evaluation, deck and table size.

    ``evaluators`` names one evaluator of :mod:`engine.poker.evaluators` (the whole
    pot) or two (a high/low split: the second may not qualify, then the first takes
    all). ``forced`` is ``"blinds"`` (button games; antes optional), ``"bring_in"``
    (stud: antes and a bring-in) or ``"antes"`` (antes only: sökö).
    """

    key: str
    title: str
    streets: tuple[Street, ...]
    evaluators: tuple[str, ...] = ("high",)
    deck: str = "standard"
    forced: str = "blinds"
    structures: tuple[str, ...] = ("NL", "PL", "FL")
    default_structure: str = "NL"
    codes: dict[str, str] = field(default_factory=dict)
    min_players: int = 2
    max_players: int = 10
    default_seats: int = 6
    rules: str = ""
    draws_after: tuple[bool, ...] = field(init=False, repr=False, compare=False)
    """Per street: does a later street have a draw (worked out once, read every round)."""

    def __post_init__(self) -> None:
        streets = self.streets
        object.__setattr__(self, "draws_after", tuple(
            any(s.draw for s in streets[k + 1 :]) for k in range(len(streets))))

    @property
    def cards(self) -> tuple[Card, ...]:
        """The deck this variant is dealt from."""
        return DECKS[self.deck]

    @property
    def split(self) -> bool:
        """True for high/low split pots."""
        return len(self.evaluators) == 2

    @property
    def draws(self) -> bool:
        """True if the players draw (the deck may run out: discards are reshuffled)."""
        return any(s.draw for s in self.streets)

    @property
    def board_cards(self) -> int:
        """Community cards dealt in a full hand."""
        return sum(s.board for s in self.streets)

    @property
    def cards_per_player(self) -> int:
        """Hole cards a player holds at the end of a hand."""
        return sum(len(s.hole) for s in self.streets)

    @property
    def stud(self) -> bool:
        """True if some cards are dealt face up."""
        return any("u" in s.hole for s in self.streets)

    def cards_needed(self, players: int) -> int:
        """Cards a hand of ``players`` can deal without draws (stud: at most the deck)."""
        return min(len(self.cards), players * self.cards_per_player + self.board_cards)

    def code(self, structure: str) -> str:
        """The PHH variant code for this game in ``structure``."""
        return self.codes[structure]


def _streets(*streets: Street) -> tuple[Street, ...]:
    return streets


_HOLDEM = _streets(Street("preflop", "dd"), Street("flop", board=3),
                   Street("turn", board=1, big_bet=True), Street("river", board=1, big_bet=True))
_OMAHA = _streets(Street("preflop", "dddd"), Street("flop", board=3),
                  Street("turn", board=1, big_bet=True), Street("river", board=1, big_bet=True))
_STUD7 = _streets(Street("third", "ddu", opening="low_card"),
                  Street("fourth", "u", opening="high_hand"),
                  Street("fifth", "u", opening="high_hand", big_bet=True),
                  Street("sixth", "u", opening="high_hand", big_bet=True),
                  Street("seventh", "d", opening="high_hand", big_bet=True))
_RAZZ = _streets(Street("third", "ddu", opening="high_card_low"),
                 Street("fourth", "u", opening="low_hand"),
                 Street("fifth", "u", opening="low_hand", big_bet=True),
                 Street("sixth", "u", opening="low_hand", big_bet=True),
                 Street("seventh", "d", opening="low_hand", big_bet=True))
_STUD5 = _streets(Street("second", "du", opening="low_card"),
                  Street("third", "u", opening="high_hand"),
                  Street("fourth", "u", opening="high_hand", big_bet=True),
                  Street("fifth", "u", opening="high_hand", big_bet=True))
_SOKO = _streets(Street("second", "du", opening="high_card"),
                 Street("third", "u", opening="high_hand"),
                 Street("fourth", "u", opening="high_hand", big_bet=True),
                 Street("fifth", "u", opening="high_hand", big_bet=True))


def _draw(cards: int, draws: int) -> tuple[Street, ...]:
    names = ("predraw", "first_draw", "second_draw", "third_draw")
    first = Street(names[0], "d" * cards)
    rest = tuple(Street(names[k], draw=True, big_bet=k >= 2 or draws == 1)
                 for k in range(1, draws + 1))
    return (first, *rest)


def _codes(game: str, *structures: str, suffix: str = "") -> dict[str, str]:
    return {s: s[0] + game + suffix for s in structures}


VARIANTS: dict[str, Variant] = {v.key: v for v in (
    Variant("holdem", "Texas Hold'em", _HOLDEM, codes=_codes("T", "NL", "PL", "FL"),
            rules="Two hole cards; best five of seven with the five board cards."),
    Variant("omaha", "Omaha", _OMAHA, ("omaha",), default_structure="PL",
            codes=_codes("O", "NL", "PL", "FL"),
            rules="Four hole cards; exactly two of them with exactly three board cards."),
    Variant("omaha8", "Omaha hi-lo", _OMAHA, ("omaha", "omaha_low_8"), default_structure="FL",
            codes=_codes("O", "NL", "PL", "FL", suffix="/8"),
            rules="Omaha; the pot is split with the best qualifying low (8 or better, "
                  "two hole cards with three board cards)."),
    Variant("short_deck", "Short-deck Hold'em", _HOLDEM, ("short_deck",), deck="short",
            codes=_codes("S", "NL", "PL", "FL"),
            rules="Hold'em with 36 cards (sixes to aces): a flush beats a full house; "
                  "A-6-7-8-9 is the lowest straight."),
    Variant("five_card_draw", "Five-card draw", _draw(5, 1), default_structure="PL",
            codes=_codes("5D", "NL", "PL", "FL"), max_players=6,
            rules="Five hidden cards, a betting round, one draw (the number of cards "
                  "drawn is public), a second betting round."),
    Variant("soko", "Sökö", _SOKO, ("soko",), forced="antes", default_structure="PL",
            codes=_codes("SK", "NL", "PL", "FL"),
            rules="Finnish five-card stud: antes; one card down and one up, the highest "
                  "up card opens; three more up cards; four to a straight and four to a "
                  "flush rank between one pair and two pair."),
    Variant("five_card_stud", "Five-card stud", _STUD5, forced="bring_in",
            structures=("FL",), default_structure="FL", codes={"FL": "F5S"},
            rules="One card down and one up, the lowest up card brings in; three more "
                  "up cards; the best visible hand opens later streets."),
    Variant("stud", "Seven-card stud", _STUD7, forced="bring_in", structures=("FL",),
            default_structure="FL", codes={"FL": "F7S"}, max_players=8,
            rules="Two down and one up (the lowest up card brings in), three more up, "
                  "one down; best five of seven."),
    Variant("stud8", "Seven-card stud hi-lo", _STUD7, ("high", "low_8"), forced="bring_in",
            structures=("FL",), default_structure="FL", codes={"FL": "F7S/8"},
            max_players=8,
            rules="Seven-card stud; the pot is split with the best qualifying low "
                  "(8 or better)."),
    Variant("razz", "Razz", _RAZZ, ("low_a5",), forced="bring_in", structures=("FL",),
            default_structure="FL", codes={"FL": "FR"}, max_players=8,
            rules="Seven-card stud for the lowest hand, ace to five (straights and "
                  "flushes do not count); the highest up card brings in."),
    Variant("single_draw", "2-7 single draw", _draw(5, 1), ("low_27",),
            codes=_codes("2L1D", "NL", "PL", "FL"), max_players=6,
            rules="Deuce-to-seven lowball with one draw: aces are high, straights and "
                  "flushes count against you."),
    Variant("triple_draw", "2-7 triple draw", _draw(5, 3), ("low_27",),
            default_structure="FL", codes=_codes("2L3D", "NL", "PL", "FL"), max_players=6,
            rules="Deuce-to-seven lowball with three draws."),
    Variant("badugi", "Badugi", _draw(4, 3), ("badugi",), default_structure="FL",
            codes=_codes("B", "NL", "PL", "FL"), max_players=6,
            rules="Four cards, three draws; the best badugi (four cards of different "
                  "suits and ranks, ace low) wins."),
)}
"""Every variant by key; hold'em first."""

_BY_CODE = {code: v for v in VARIANTS.values() for code in v.codes.values()}


def by_code(code: str) -> Variant:
    """The variant a PHH code names (``"F7S"`` → seven-card stud)."""
    try:
        return _BY_CODE[code]
    except KeyError:
        raise MalformedAction("unknown_variant", f"No variant with the code {code!r}.") from None


def structure_of(code: str) -> str:
    """The betting structure a PHH code names (its first letter)."""
    return {"N": "NL", "P": "PL", "F": "FL"}[code[0]]
