"""Two Way Street (``seeds/001``, sections 2-4, and RULES.md "Two Way Street").

Plain words:

* 2 to 10 players, ``decks`` decks of 52 with ``jokers`` per deck (distinct red/black jokers, or
  colourless/identical ``JK``). Each hand: 10 cards to each player in blocks from the first declarer in
  seat order; the rest is the stock (top first). The first declarer is player_0 for the first hand and
  moves one seat left each hand.
* Declaration (3+ players): in seat order from the first declarer each player declares high (take
  tricks) or low (avoid them). Once ``floor(n/2) + 1`` players went one way, everyone not yet declared is
  *forced* the other way. Every player, declared or forced, then puts two chosen cards at the bottom of
  the stock and draws two from the top.
* Ten tricks. The first declarer leads trick 1; each next trick is led by the seat left of the previous
  leader (not the winner). Follow suit if able; a joker of the led suit's colour may replace it (any
  joker when jokers are not distinct). After a joker lead the first later player holding a card of a
  suit of that colour names the suit led, one it holds (colourless jokers: any suit it holds, or it plays
  another joker). Red joker > black (or colourless) joker > highest card of the suit led, ace high; among
  equal cards the earlier wins.
* Scoring (:func:`raw_score`, :func:`hand_scores`): raw = tricks (high) or N - tricks (low); a penalty
  from the sorted raw scores (cases A-D, RULES.md readings: A also covers s1 = s2 != s3; with 3 players a
  missing fourth counts as tied with the third; C's tie is every player whose raw score equals s2),
  refined = max(0, raw - penalty), final = 2 x refined (declared) or 3 x (forced); forced players in a
  case C tie score 1. Hands are played until a player reaches ``target``; the most points wins.
* Duels (2 players, :func:`duel_score`): the dealer bids hidden, the responder openly (no bid, or
  strength 1..10 high or low). Equal strength, opposite directions: redeal. The stronger high bid makes
  the opponent capture that many two-card tricks from the stock; a stronger low bid makes its bidder
  capture them. Both "no bid": the dealer chooses high or low. Only the stronger bidder discards two and
  draws two (both, dealer first, when the bids are identical). The dealer leads odd tricks, the responder
  even ones. High: the player with more tricks scores 2 per trick of difference; low: the player with
  fewer; equal: the dealer scores 1.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cardenvs.core.cards import BLACK_JOKER, JOKER, RED_JOKER

N_LOW = {2: 10, 3: 8, 4: 6, 5: 5, 6: 4, 7: 3, 8: 3, 9: 2, 10: 2}
HAND_CARDS = 10
TRICKS = 10
BLACK_SUITS, RED_SUITS = (0, 1), (2, 3)  # S C | D H


# ------------------------------------------------------------------ scoring, pure
def raw_score(high: bool, tricks: int, players: int) -> int:
    """Tricks taken (high) or N - tricks (low), N from the document's table (11+ players: 1)."""
    return tricks if high else N_LOW.get(players, 1) - tricks


def penalty_case(raw_scores: list[int]) -> tuple[str, int]:
    """(case letter, penalty) for a hand's raw scores (3+ players)."""
    s = sorted(raw_scores, reverse=True)
    if len(s) == 3:
        s = s + [s[2]]  # the missing fourth place ties with the third
    s1, s2, s3, s4 = s[:4]
    if s2 != s3:
        return "A", s3
    if s3 != s4:
        return "B", s4
    if s1 != s2:
        return "C", s2
    rest = [x for x in s[4:] if x != s1]
    return "D", (max(rest) if rest else s1)


def hand_scores(raw_scores: list[int], forced: list[bool]) -> list[int]:
    """Final scores of a hand: refined (raw - penalty, floored at 0) x 2, or x 3 when forced."""
    if len(raw_scores) != len(forced) or len(raw_scores) < 3:
        raise ValueError("hand_scores needs one raw score and one forced flag per player, 3 players or more")
    case, penalty = penalty_case(raw_scores)
    s2 = sorted(raw_scores, reverse=True)[1]
    out = []
    for raw, was_forced in zip(raw_scores, forced):
        refined = max(0, raw - penalty)
        final = refined * (3 if was_forced else 2)
        if case == "C" and was_forced and raw == s2:
            final = 1
        out.append(final)
    return out


def duel_score(high: bool, dealer_tricks: int, responder_tricks: int) -> tuple[int, int]:
    """(dealer points, responder points) of a duel hand, tricks including captured ones."""
    if dealer_tricks == responder_tricks:
        return 1, 0
    dealer_ahead = dealer_tricks > responder_tricks
    diff = 2 * abs(dealer_tricks - responder_tricks)
    dealer_scores = dealer_ahead if high else not dealer_ahead
    return (diff, 0) if dealer_scores else (0, diff)


# ------------------------------------------------------------------ cards
def suit(card: int) -> int:
    return card % 4 if card < 52 else -1


def is_joker(card: int) -> bool:
    return card >= 52


def joker_suits(card: int) -> tuple[int, ...]:
    """Suits a led joker can stand for: its colour's, or any for a colourless joker."""
    return BLACK_SUITS if card == BLACK_JOKER else RED_SUITS if card == RED_JOKER else (0, 1, 2, 3)


def card_power(card: int, led_suit: int) -> int:
    """Trick strength: red joker 200, other jokers 100, cards of the suit led 2..14, others 0."""
    if card == RED_JOKER:
        return 200
    if card >= 52:
        return 100
    return card // 4 + 2 if card % 4 == led_suit else 0


def trick_winner(cards: list[int], led_suit: int) -> int:
    """Index (in play order) of the card that takes the trick; the earlier of equals wins."""
    powers = [card_power(c, led_suit) for c in cards]
    return int(np.argmax(powers))  # argmax returns the first maximum


def legal_plays(hand: np.ndarray, led_suit: int, distinct_jokers: bool) -> list[int]:
    """Cards of ``hand`` (counts per card id) that may be played to a trick whose suit led is ``led_suit``
    (-1: leading, or no suit named after a joker lead)."""
    held = [int(c) for c in np.flatnonzero(hand)]
    if led_suit < 0:
        return held
    in_suit = [c for c in held if suit(c) == led_suit]
    if not in_suit:
        return held
    if distinct_jokers:
        colour_joker = RED_JOKER if led_suit in RED_SUITS else BLACK_JOKER
        return in_suit + [c for c in held if c == colour_joker]
    return in_suit + [c for c in held if c >= 52]


@dataclass
class Trick:
    leader: int
    players: list[int] = field(default_factory=list)
    cards: list[int] = field(default_factory=list)
    led_suit: int = -1  # -1 until known (a joker lead waits for a player to name it)
