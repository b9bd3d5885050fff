"""Dou Dizhu heuristics as numba policies over the core's state: the agent ``doudizhu.rule`` in the arena
and the web (:class:`cardenvs.agent.PolicyAgent`), the vector envs' opponent, the search rollouts.

``rule`` reads only what the seat to act can see:

* Bidding: a strength score from twos, jokers and bombs (2 each for a bomb or the red joker, 1.5 the
  black joker, 1 a two): bid 3 from 7, 2 from 5, 1 from 3.5, else no bid (never below the current bid).
* Planning: the hand's *plan size* is the number of combinations a greedy decomposition needs (rocket,
  bombs, the longest straights, trios with a single or pair attached, pairs, singles).
* Leading: the move after which the plan is smallest, ties by the lowest main rank; bombs last.
* Following: the cheapest non-bomb that beats (smallest plan afterwards, then lowest main rank). As a
  farmer it lets its partner's move stand unless it can go out. Bombs and the rocket only when they
  empty the hand or an opponent is down to 4 cards or fewer; otherwise it passes.

Remaining ties go to the lowest action id. It draws no random numbers. Under ``rules="botzone"`` it plays the
same way over that rule set's moves: a space shuttle is an ordinary combination to it, not a bomb (as the rules
have it), and its plan still counts a four as a bomb.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import moves
from .rules import PLAYERS, is_over, legal_ids

RULE = 0
DANGER = 4


@njit(cache=True)
def plan_after(hand: np.ndarray, move_counts: np.ndarray, c: np.ndarray) -> int:
    """The plan size of ``hand`` less ``move_counts`` (rank counts): the combinations a greedy decomposition
    needs (rocket, bombs, longest straights, trios with an attached single or pair, pairs, singles). Counted in
    ``c`` (int64, 15; overwritten): the rule agent asks it of every legal move, and a new array each time cost
    more than the count."""
    for r in range(15):
        c[r] = hand[r] - move_counts[r]
    n = 0
    if c[13] and c[14]:
        n += 1
        c[13] = 0
        c[14] = 0
    for r in range(13):
        if c[r] == 4:
            n += 1
            c[r] = 0
    while True:  # peel the longest straight of 5+ among 3..A
        best_len, best_start, run = 0, 0, 0
        for r in range(12):
            run = run + 1 if c[r] >= 1 else 0
            if run > best_len:
                best_len, best_start = run, r - run + 1
        if best_len < 5:
            break
        for r in range(best_start, best_start + best_len):
            c[r] -= 1
        n += 1
    trios = 0
    small = 0
    for r in range(15):
        if c[r] == 3:
            trios += 1
        elif c[r] == 2 or c[r] == 1:
            small += 1
    return n + trios + small - min(trios, small)


@njit(cache=True)
def _bid(hand: np.ndarray, current: int) -> int:
    strength = hand[12] + 1.5 * hand[13] + 2 * hand[14]
    for r in range(13):
        if hand[r] == 4:
            strength += 2
    want = 3 if strength >= 7 else 2 if strength >= 5 else 1 if strength >= 3.5 else 0
    if want > current:
        return moves.BID_PASS + want
    return moves.BID_PASS


@njit(cache=True)
def rule(state, b, params, rng) -> int:
    """``doudizhu.rule`` for the seat to move of game ``b`` (reads the state; writes nothing)."""
    s = state[b]
    pr = params[0]
    me = s.to_move
    hand = s.counts[me].copy()
    if s.bidding:
        return _bid(hand, s.bid)
    ids = np.empty(moves.NUM_ACTIONS, dtype=np.int64)
    n = legal_ids(state, b, params, ids)
    scratch = np.empty(15, dtype=np.int64)
    held = 0
    for r in range(15):
        held += hand[r]
    can_pass = False
    for i in range(n):
        m = ids[i]
        if m == moves.PASS:
            can_pass = True
        elif pr.move_counts[m].sum() == held:
            return m  # out
    danger = False
    for q in range(PLAYERS):
        if q != me and (me == s.landlord or q == s.landlord):
            if s.counts[q].sum() <= DANGER:
                danger = True
    has_normal = False
    for i in range(n):
        m = ids[i]
        if m != moves.PASS and pr.move_type[m] != moves.BOMB and pr.move_type[m] != moves.ROCKET:
            has_normal = True
    if not can_pass:  # leading: smallest plan afterwards, then lowest main rank, then most cards
        best, best_key0, best_key1, best_key2 = -1, 0, 0, 0
        for i in range(n):
            m = ids[i]
            bomb = pr.move_type[m] == moves.BOMB or pr.move_type[m] == moves.ROCKET
            if has_normal and bomb:
                continue
            k0 = plan_after(hand, pr.move_counts[m], scratch)
            k1 = pr.move_main[m]
            k2 = -pr.move_counts[m].sum()
            if best < 0 or (k0, k1, k2) < (best_key0, best_key1, best_key2):
                best, best_key0, best_key1, best_key2 = m, k0, k1, k2
        return best
    # following: does the partner own the move to beat? (the previous player's last action is it)
    previous = (me + 2) % PLAYERS
    by_previous = False
    for i in range(s.n_hist - 1, -1, -1):
        if s.hist_player[i] == previous:
            move = s.hist_move[i]
            if move != moves.PASS:
                by_previous = True
                for r in range(15):
                    if pr.move_counts[move, r] != pr.move_counts[s.last_move, r]:
                        by_previous = False
            break
    owner = previous if by_previous else (me + 1) % PLAYERS
    if me != s.landlord and owner != s.landlord:
        return moves.PASS
    if has_normal:
        best, best_key0, best_key1 = -1, 0, 0
        for i in range(n):
            m = ids[i]
            if m == moves.PASS or pr.move_type[m] == moves.BOMB or pr.move_type[m] == moves.ROCKET:
                continue
            k0 = plan_after(hand, pr.move_counts[m], scratch)
            k1 = pr.move_main[m]
            if best < 0 or (k0, k1) < (best_key0, best_key1):
                best, best_key0, best_key1 = m, k0, k1
        return best
    if danger:
        best, best_key0, best_key1 = -1, 0, 0
        for i in range(n):
            m = ids[i]
            if m == moves.PASS:
                continue
            k0 = pr.move_type[m]
            k1 = pr.move_main[m]
            if best < 0 or (k0, k1) < (best_key0, best_key1):
                best, best_key0, best_key1 = m, k0, k1
        if best >= 0:
            return best
    return moves.PASS


@njit(cache=True)
def policy(state, b, params, which, rng) -> int:
    """The game's numba policies by number (``rules.POLICIES``): 0 = ``rule``."""
    if is_over(state, b):
        return -1
    return rule(state, b, params, rng)
