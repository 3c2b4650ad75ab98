"""Display names of games and amounts.

>>> game_name("NL", 1, 2, max_buy_in=200)
"Texas Hold'em NL200 (1/2)"
>>> game_name("FL", 1, 2)  # FL names the small bet (= big blind) and the big bet
"Texas Hold'em FL 2/4"
>>> game_name("FL", 0.5, 1)
"Texas Hold'em FL 1/2"
>>> game_name("PL", 1, 2, max_buy_in=200, ante=1)
"Texas Hold'em PL200 (1/2) ante 1"
>>> format_amount(2.50), format_amount(3.0), format_amount(0.25)
('2.5', '3', '0.25')
"""

from __future__ import annotations


def format_amount(amount: float) -> str:
    """An amount without a trailing ``.0``: ``3``, ``2.5``, ``0.25``."""
    if float(amount).is_integer():
        return str(int(amount))
    return f"{amount:.10f}".rstrip("0").rstrip(".")


def game_name(
    structure: str,
    small_blind: float,
    big_blind: float,
    max_buy_in: float | None = None,
    ante: float = 0,
    game: str = "Texas Hold'em",
    blinds: bool = True,
) -> str:
    """The table's game name per the rules ("Naming a game").

    Fixed limit shows the small bet / big bet (the big blind and twice it);
    no limit and pot limit show the maximum buy-in, then the blinds (a game
    without blinds: the minimum bet).

    >>> game_name("PL", 1, 2, max_buy_in=200, ante=1, game="Sökö", blinds=False)
    'Sökö PL200 (bet 2) ante 1'
    """
    if structure == "FL":
        name = f"{game} FL {format_amount(big_blind)}/{format_amount(2 * big_blind)}"
    else:
        top = format_amount(max_buy_in) if max_buy_in is not None else ""
        stakes = (f"{format_amount(small_blind)}/{format_amount(big_blind)}" if blinds
                  else f"bet {format_amount(big_blind)}")
        name = f"{game} {structure}{top} ({stakes})"
    if ante:
        name += f" ante {format_amount(ante)}"
    return name
