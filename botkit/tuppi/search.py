"""Fast Tuppi play for bots: a rule-based policy, rollouts, sampled deals, the board's value.

Everything works on cards as bits (:mod:`botkit.tuppi.cards`). The pieces:

* :func:`pick` — the rollout policy, the seed assignment's advice in a few bit
  operations. Rami (every side wants tricks): lead a winner (the top card of a suit)
  if you have one, else the lowest card of your longest suit; second hand low,
  third hand high, the cheapest sure winner when you have one, low when partner
  has the trick; discard low. Nolo (every side avoids tricks): duck with the
  highest card under the trick's winner, else play low (or high when last — the
  trick is yours anyway, or partner's); discard the highest card; lead your lowest
  card in a suit others still hold.
* :func:`rollout` — plays a round to its end (or until its effect is decided) with
  :func:`pick` for all four seats; :func:`utility` values the result for one team.
* :func:`sample_deal` — a deal of the unseen cards consistent with what is known:
  each player's card count and the suits they showed out of.
* :data:`WIN` / :func:`win_chance` — the chance of winning the tuppi from a board
  (our points, theirs), by value iteration over a model of one round's points.

>>> from botkit.tuppi.cards import mask_of, split, TEXT
>>> hands = [mask_of(split(h)) for h in ("AsKsQs", "2s3s4s", "5s6s7s", "8s9sTs")]
>>> TEXT[pick(1, hands[1], 1, 3, 51, 0, False, 1 << 51)]  # nolo: duck under the ace
'4s'
>>> rollout(hands, 0, 0, [0, 0], True, 0, (0, 0), ())  # rami: the aces and kings win
(3, 0)
>>> round(win_chance(0, 0), 2), win_chance(52, 0), win_chance(0, 52)
(0.5, 1.0, 0.0)
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from botkit.tuppi.cards import FACE, SUIT_MASK
from engine.tuppi.rules import TARGET, decided, round_points, settle

__all__ = ["WIN", "pick", "rollout", "sample_deal", "utility", "win_chance"]

SM = SUIT_MASK


def _low(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def _high(mask: int) -> int:
    return mask.bit_length() - 1


def _above(mask: int, bit: int) -> int:
    """The cards of ``mask`` higher than ``bit`` (same suit assumed)."""
    return mask >> (bit + 1) << (bit + 1)


def _lead(hand: int, rami: bool, gone: int) -> int:
    if rami:
        longest, length = 0, -1
        for suit in range(4):
            mine = hand & SM[suit]
            if not mine:
                continue
            out = SM[suit] & ~gone & ~hand
            top = _high(mine)
            if not out or top > _high(out):
                return top  # a sure winner: cash it
            size = mine.bit_count()
            if size > length:
                longest, length = mine, size
        return _low(longest)
    best, key = -1, 99
    for suit in range(4):
        mine = hand & SM[suit]
        if not mine:
            continue
        low = _low(mine)
        out = SM[suit] & ~gone & ~hand
        rank = low - 13 * suit + (0 if _above(out, low) else 20)  # prefer a card others beat
        if rank < key:
            best, key = low, rank
    return best


def _discard(hand: int, rami: bool) -> int:
    best, key = -1, -1
    for suit in range(4):
        mine = hand & SM[suit]
        if not mine:
            continue
        if rami:  # the lowest card (keep winners)
            card = _low(mine)
            rank = 20 - (card - 13 * suit)
        else:  # the highest card (it would win a trick later)
            card = _high(mine)
            rank = card - 13 * suit
        if rank > key:
            best, key = card, rank
    return best


def pick(seat: int, hand: int, n: int, led: int, win_bit: int, win_seat: int, rami: bool,
         gone: int) -> int:
    """The rollout policy's card (a bit) for ``seat`` holding ``hand``: ``n`` cards are
    in the trick, ``led`` is its suit, ``win_bit``/``win_seat`` its winning card and
    player so far, ``gone`` every card played (this trick's too)."""
    if n == 0:
        return _lead(hand, rami, gone)
    follow = hand & SM[led]
    if not follow:
        return _discard(hand, rami)
    partner_wins = not (win_seat - seat) & 1
    if rami:
        out = _above(SM[led] & ~gone & ~hand, win_bit)  # unseen cards above the winner
        if partner_wins:
            if n == 3 or not out:
                return _low(follow)
            sure = _above(follow, _high(out))
            return _low(sure) if sure else _low(follow)
        above = _above(follow, win_bit)
        if not above:
            return _low(follow)
        if n == 3 or not out:
            return _low(above)
        sure = _above(follow, _high(out))
        if sure:
            return _low(sure)
        return _high(above) if n == 2 else _low(follow)
    if n == 3 and partner_wins:
        return _high(follow)
    below = follow & ((1 << win_bit) - 1)
    if below:
        return _high(below)
    return _high(follow) if n == 3 else _low(follow)


def rollout(hands: list[int], leader: int, gone: int, tricks: list[int], rami: bool,
            declarer_team: int | None, score: Sequence[int],
            played: Sequence[tuple[int, int]]) -> tuple[int, int]:
    """Play on with :func:`pick` for everyone; the tricks per team at the end.

    ``hands`` (modified) are the four hands, ``leader`` led the trick in progress,
    whose cards ``played`` ((seat, bit), in order) are already out of the hands and in
    ``gone``; ``tricks`` (modified) the tricks so far. The round stops as the game
    would (:func:`engine.tuppi.rules.decided`), or when the cards run out."""
    mode = "rami" if rami else "nolo"
    n = len(played)
    led = win_bit = win_seat = 0
    if played:
        first = played[0][1]
        led = first // 13
        win_seat, win_bit = played[0]
        for seat, bit in played[1:]:
            if bit // 13 == led and bit > win_bit:
                win_bit, win_seat = bit, seat
        seat = (leader + n) & 3
    else:
        seat = leader
    while True:
        bit = pick(seat, hands[seat], n, led, win_bit, win_seat, rami, gone)
        mask = 1 << bit
        hands[seat] ^= mask
        gone |= mask
        if n == 0:
            led, win_bit, win_seat = bit // 13, bit, seat
        elif bit > win_bit and bit // 13 == led:
            win_bit, win_seat = bit, seat
        n += 1
        if n == 4:
            tricks[win_seat & 1] += 1
            if not hands[win_seat] or ((tricks[0] >= 7 or tricks[1] >= 7) and decided(
                    mode, declarer_team, tricks, score)):
                return tricks[0], tricks[1]
            seat, n = win_seat, 0
        else:
            seat = (seat + 1) & 3


# ------------------------------------------------------------ the board's value

ROUND_POINTS = {4: 0.19, 8: 0.31, 12: 0.17, 16: 0.18, 20: 0.07, 24: 0.05, 28: 0.01,
                32: 0.01, 48: 0.005}
"""A model of one round: the points its scoring team gets (either team equally
often), as measured from 0–0 in matches of the rule-based bot against itself
(3,896 rounds) and of the strong bot against itself (144 rounds)."""


def _values() -> dict[tuple[int, int], float]:
    total = sum(ROUND_POINTS.values())
    dist = [(p, q / total) for p, q in ROUND_POINTS.items()]
    states = [(s, 0) for s in range(0, TARGET, 4)] + [(0, s) for s in range(4, TARGET, 4)]
    value = dict.fromkeys(states, 0.5)

    def of(board: tuple[int, int]) -> float:
        if board[0] >= TARGET:
            return 1.0
        if board[1] >= TARGET:
            return 0.0
        return value[board]

    for _ in range(500):
        change = 0.0
        for state in states:
            v = 0.0
            for points, q in dist:
                v += q / 2 * (of(settle(state, 0, points)[0]) + of(settle(state, 1, points)[0]))
            change = max(change, abs(v - value[state]))
            value[state] = v
        if change < 1e-9:
            break
    return value


WIN = _values()
"""(our points, their points) -> the chance we win the tuppi from that board."""


def win_chance(ours: int, theirs: int) -> float:
    """The chance of a tuppi for the team with ``ours`` points against ``theirs``."""
    if ours >= TARGET:
        return 1.0
    if theirs >= TARGET:
        return 0.0
    return WIN[ours, theirs]


def utility(mode: str, declarer_team: int | None, tricks: Sequence[int], score: Sequence[int],
            us: int) -> float:
    """The value for team ``us`` of a round that ended with ``tricks`` (per team) from
    the board ``score``: the chance to win the tuppi afterwards."""
    got = round_points(mode, declarer_team, tricks)
    if got is None:  # cannot happen at the end of a round
        return win_chance(score[us], score[1 - us])
    board = settle(score, got[0], got[1])[0]
    return win_chance(board[us], board[1 - us])


# ------------------------------------------------------------ sampled deals


def sample_deal(rng: random.Random, seat: int, hand: int, unknown: int, counts: Sequence[int],
                voids: Sequence[int], tries: int = 20) -> list[int]:
    """Four hands: ``hand`` for ``seat``, the ``unknown`` cards shared among the others
    so that each gets ``counts[q]`` and none a card of a suit they showed out of
    (``voids[q]`` bit ``s``). After ``tries`` failures the voids are ignored."""
    cards = []
    mask = unknown
    while mask:
        low = mask & -mask
        cards.append(low.bit_length() - 1)
        mask ^= low
    others = [q for q in range(4) if q != seat]
    if not any(voids[q] & 15 for q in others):  # nothing known: deal the shuffled cards
        rng.shuffle(cards)
        hands = [0, 0, 0, 0]
        hands[seat] = hand
        start = 0
        for q in others:
            for bit in cards[start:start + counts[q]]:
                hands[q] |= 1 << bit
            start += counts[q]
        return hands
    eligible = [[q for q in others if not voids[q] >> suit & 1] for suit in range(4)]
    for attempt in range(tries + 1):
        rng.shuffle(cards)
        if attempt < tries:
            cards.sort(key=lambda b: len(eligible[b // 13]))
        left = list(counts)
        hands = [0, 0, 0, 0]
        for bit in cards:
            pool = eligible[bit // 13] if attempt < tries else others
            total = 0
            for q in pool:
                total += left[q]
            if total == 0:
                break
            r = rng.randrange(total)
            for q in pool:
                r -= left[q]
                if r < 0:
                    break
            hands[q] |= 1 << bit
            left[q] -= 1
        else:
            hands[seat] = hand
            return hands
    raise ValueError("no deal fits the card counts")  # pragma: no cover


def face_points(mask: int) -> int:
    """A=4, K=3, Q=2, J=1 over a hand's bits."""
    total = 0
    for suit in range(4):
        for rank, points in FACE.items():
            if mask >> (13 * suit + rank) & 1:
                total += points
    return total


def rami_chance(points: int, threshold: float = 14.0, spread: float = 1.5) -> float:
    """A model of how likely a player bids rami with ``points`` face points."""
    return 1.0 / (1.0 + math.exp(-(points - threshold + 0.5) / spread))

