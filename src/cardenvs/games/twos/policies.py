"""Twos heuristics as numba policies over the core's state: the agent ``twos.heuristic`` in the arena and
the web (:class:`cardenvs.agent.PolicyAgent`), the vector envs' opponent, the search rollouts.

``heuristic`` reads only what the seat to act can see (its hand, the move to beat, the cards left):

* Go out at once when a legal combination empties the hand.
* Lead the combination that sheds the most cards, lowest top card first, keeping bombs and twos back:
  no bomb, no two, and no card of a bomb the hand holds (a four of a kind, or a rank in a multiple run:
  three or more consecutive ranks with two or more cards each).
* Follow with the cheapest non-bomb that beats, again without twos or cards of the hand's bombs.
* Spend twos and bombs only when an opponent is close to going out (3 cards or fewer) or when that
  wins the hand; otherwise pass.

Ties go to the lowest action id. It draws no random numbers.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import moves
from .rules import NUM_CARDS, legal_ids

HEURISTIC = 0
DANGER = 3  # an opponent with this many cards or fewer is close to going out
MIN_RUN = 3  # a multiple run spans at least three ranks


@njit(cache=True)
def bomb_ranks(rank_counts: np.ndarray) -> np.ndarray:
    """Ranks whose cards belong to a bomb of the hand: a four of a kind, or a stretch of ``MIN_RUN`` or more
    consecutive ranks with at least two cards each. Returns a new boolean array."""
    n = rank_counts.shape[0]
    out = np.zeros(n, dtype=np.bool_)
    start = 0
    for r in range(n + 1):
        if r < n and rank_counts[r] == 4:
            out[r] = True
        if r == n or rank_counts[r] < 2:
            if r - start >= MIN_RUN:
                for k in range(start, r):
                    out[k] = True
            start = r + 1
    return out


@njit(cache=True)
def heuristic(state, b, params, rng) -> int:
    """``twos.heuristic`` for the seat to move of game ``b`` (reads the state; writes nothing)."""
    s = state[b]
    pr = params[0]
    me = s.to_move
    players = pr.players
    ids = np.empty(moves.NUM_ACTIONS, dtype=np.int64)
    n = legal_ids(state, b, params, ids)
    can_pass = n > 0 and ids[n - 1] == moves.PASS
    plays = n - 1 if can_pass else n
    if plays == 0:
        return moves.PASS
    hand = s.hands[me]
    held = 0
    rank_counts = np.zeros(13, dtype=np.int64)
    for v in range(NUM_CARDS):
        if hand[v]:
            held += 1
            rank_counts[v // 4] += 1
    fewest = NUM_CARDS
    for k in range(1, players):
        q = (me + k) % players
        left = 0
        for v in range(NUM_CARDS):
            left += s.hands[q, v]
        fewest = min(fewest, left)
    danger = fewest <= DANGER
    kept = bomb_ranks(rank_counts)
    buf = np.empty(NUM_CARDS, dtype=np.int64)
    # best of each pool, keys compared as Python's tuples (first minimal wins: strict < in ascending order)
    lead_cheap, lc_len, lc_top = -1, 0, 0  # cheap plays by (-cards, top)
    lead_any, la_bomb, la_len, la_top = -1, 0, 0, 0  # every play by (bomb, -cards, top)
    follow_cheap, fc_top = -1, 0  # cheap plays by top
    follow_any, fa_bomb, fa_top = -1, 0, 0  # every play by (bomb, top)
    for i in range(plays):
        a = ids[i]
        si = pr.actions[a, 0]
        top = pr.actions[a, 1]
        count = moves.action_cards(hand, pr.shape_n[si], pr.shape_l[si], top, buf)
        if count == held:
            return a  # out: the game is won
        bomb = 1 if pr.shape_is_bomb[si] else 0
        uses_two = False
        breaks_bomb = False
        for j in range(count):
            r = buf[j] // 4
            if r == 12:
                uses_two = True
            if bomb == 0 and kept[r]:
                breaks_bomb = True
        cheap = not (bomb or uses_two or breaks_bomb)
        if cheap:
            if lead_cheap < 0 or (-count, top) < (-lc_len, lc_top):
                lead_cheap, lc_len, lc_top = a, count, top
            if follow_cheap < 0 or top < fc_top:
                follow_cheap, fc_top = a, top
        if lead_any < 0 or (bomb, -count, top) < (la_bomb, -la_len, la_top):
            lead_any, la_bomb, la_len, la_top = a, bomb, count, top
        if follow_any < 0 or (bomb, top) < (fa_bomb, fa_top):
            follow_any, fa_bomb, fa_top = a, bomb, top
    if not can_pass:  # leading: most cards, then the lowest top card, keeping bombs and twos back
        return lead_cheap if lead_cheap >= 0 else lead_any
    if follow_cheap >= 0:
        return follow_cheap
    if danger:
        return follow_any  # twos before bombs, cheapest first
    return moves.PASS


@njit(cache=True)
def policy(state, b, params, which, rng) -> int:
    """The game's numba policies by number (``rules.POLICIES``): 0 = ``heuristic``; -1 once the game is over."""
    if state[b].winner >= 0:
        return -1
    return heuristic(state, b, params, rng)
