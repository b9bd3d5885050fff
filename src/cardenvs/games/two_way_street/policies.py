"""Two Way Street heuristics as numba policies over the core's state: the agent
``two_way_street.heuristic`` in the arena and the web (:class:`cardenvs.agent.PolicyAgent`), the vector
envs' opponent, the search rollouts.

``heuristic`` reads only what the seat to act can see:

* Strength: expected tricks of the hand, counting jokers (red 1.2, black 1.0), aces 0.9, kings 0.6,
  queens 0.3. Declare high when it is at least the table's fair share (10 / players, x 1.2), else low;
  duels bid high with strength (expected - 4) or low with (5 - expected) when that is 1 or more, else no
  bid; the dealer's choice follows the same test. With option ``declaration`` ``"random"`` or ``"forced"``
  it declares the one legal (imposed) way.
* Discard: high hands shed their lowest cards; low hands shed jokers and their highest cards.
* Play, high: win as cheaply as possible (the lowest card that takes the trick so far), else throw the
  lowest card; lead the highest card. Low: play the highest card that does not take the trick, else the
  highest card (shedding a danger card); lead the lowest card.
* Suit naming after a joker lead: a high hand names the suit of its highest card, a low hand that of its
  lowest.

Ties go to the first extreme (the lowest card id). The hand's expected tricks are summed card by card in
ascending id order as Python's ``sum`` does (with Neumaier's compensation from Python 3.12 on): the
heuristic was first written in Python, and this keeps its float comparisons, so its choices, exactly. It
draws no random numbers.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

from .rules import (
    BID,
    BID0,
    CHOICE,
    DECLARATION_CHOOSE,
    DECLARE,
    DISCARD,
    DISCARD0,
    HIGH,
    LOW,
    NUM_IDS,
    PLAY0,
    RED_JOKER,
    SUIT,
    SUIT0,
    card_power,
    holds_suit,
    joker_allows,
    play_ids,
    suit,
)

HEURISTIC = 0
COMPENSATED_SUM = sys.version_info >= (3, 12)  # Python's sum() of floats is compensated from 3.12


@njit(cache=True)
def _value(card: int) -> float:
    if card == RED_JOKER:
        return 1.2
    if card >= 52:
        return 1.0
    r = card // 4
    if r == 12:
        return 0.9
    if r == 11:
        return 0.6
    if r == 10:
        return 0.3
    return 0.0


@njit(cache=True)
def _rank(card: int) -> int:
    return 100 + card if card >= 52 else card // 4


@njit(cache=True)
def expected_tricks(hand: np.ndarray) -> float:
    """The agent's ``sum(_value(c) for c in hand)`` over the per-card counts ``hand``, in the same order and
    with the same float operations as Python's ``sum``."""
    total = 0.0
    comp = 0.0
    for c in range(NUM_IDS):
        v = _value(c)
        for _ in range(hand[c]):
            if COMPENSATED_SUM:
                t = total + v
                if abs(total) >= abs(v):
                    comp += (total - t) + v
                else:
                    comp += (v - t) + total
                total = t
            else:
                total += v
    if COMPENSATED_SUM and comp != 0.0 and np.isfinite(comp):
        total += comp
    return total


@njit(cache=True)
def _extreme_rank(ids: np.ndarray, n: int, base: int, highest: bool) -> int:
    """The card (``ids[i] - base``) of the lowest or highest ``_rank``, the first one among equals."""
    best = -1
    best_key = 0
    for i in range(n):
        c = ids[i] - base
        key = _rank(c)
        if best < 0 or (key > best_key if highest else key < best_key):
            best, best_key = c, key
    return best


@njit(cache=True)
def heuristic(state, b, params, rng) -> int:
    """``two_way_street.heuristic`` for the seat to move of game ``b`` (reads the state; writes nothing)."""
    s = state[b]
    pr = params[0]
    n = pr.players
    me = s.current
    hand = s.hands[me]
    expected = expected_tricks(hand)
    fair = 10 / n
    strong = expected >= 1.2 * fair
    phase = s.phase
    if s.direction[me] >= 0 and (n > 2 or s.revealed):  # the own declaration the observation shows
        high = s.direction[me] == HIGH
    else:
        high = strong
    if phase == DECLARE and pr.declaration != DECLARATION_CHOOSE:  # option ``declaration``: no choice
        return s.imposed[me]
    if phase == DECLARE or phase == CHOICE:
        return HIGH if strong else LOW
    if phase == BID:
        if expected - 4 >= 1:
            return BID0 + int(min(10.0, np.rint(expected - 4)))
        if 5 - expected >= 1:
            return BID0 + 10 + int(min(10.0, np.rint(5 - expected)))
        return BID0
    ids = np.empty(NUM_IDS, dtype=np.int64)
    if phase == DISCARD:
        k = 0
        for c in range(NUM_IDS):
            if hand[c] > 0:
                ids[k] = c
                k += 1
        return DISCARD0 + _extreme_rank(ids, k, 0, not high)
    if phase == SUIT:
        lead = s.trick_cards[0]
        best = -1
        best_key = 0
        for c in range(52):  # the agent's own non-joker cards whose suit may be named
            if hand[c] > 0 and joker_allows(lead, c % 4) and holds_suit(hand, c % 4):
                key = _rank(c)
                if best < 0 or (key > best_key if high else key < best_key):
                    best, best_key = c, key
        return SUIT0 + best % 4
    k = play_ids(hand, s.led_suit, pr.distinct, ids, PLAY0)
    if k == 0:
        return -1
    if s.trick_len == 0:  # leading
        return PLAY0 + _extreme_rank(ids, k, PLAY0, high)
    led = s.led_suit
    best = 0
    for i in range(s.trick_len):
        best = max(best, card_power(s.trick_cards[i], led))
    # a card played now is later than everything on the table: it must be strictly stronger to win
    win_card, win_power = -1, 0
    lose_card, lose_key = -1, 0
    for i in range(k):
        c = ids[i] - PLAY0
        power = card_power(c, led if led >= 0 else suit(c))
        if power > best:
            if win_card < 0 or power < win_power:
                win_card, win_power = c, power
        else:
            key = _rank(c)
            if lose_card < 0 or key > lose_key:
                lose_card, lose_key = c, key
    if high:
        if win_card >= 0:
            return PLAY0 + win_card
        return PLAY0 + _extreme_rank(ids, k, PLAY0, False)
    if lose_card >= 0:
        return PLAY0 + lose_card
    return PLAY0 + _extreme_rank(ids, k, PLAY0, True)


@njit(cache=True)
def policy(state, b, params, which, rng) -> int:
    """The game's numba policies by number (``rules.POLICIES``): 0 = ``heuristic``; -1 once the match ended."""
    s = state[b]
    if s.over or s.truncated:
        return -1
    return heuristic(state, b, params, rng)
