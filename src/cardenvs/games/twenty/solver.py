"""Twenty: one-ply expectations for the greedy heuristic, the one-hand solver and the round solver.

:func:`expected_best_gain` -- the expected best immediate score of a player holding ``hand_size`` cards
drawn uniformly from the ``unseen`` cards, on a given tally: values are sorted by what they would score,
and ``P(best card is the i-th) = P(none of the first i-1 values) - P(none of the first i)`` with
hypergeometric "none" probabilities. With a known hand it is just the best card's score.

:func:`solve` -- the **one-hand** solver (the first ``twenty.solver``, kept as a baseline): exact negamax
over the current pair of five-card hands, both known; at the end of the hand it credits the round's
leader with :func:`expected_best_gain` of a fresh hand on the tally left behind (a guess), so it is exact
only in the last hand of a round.

:func:`solve_round` -- the **round** solver: minimax with memoisation (numba) over the rest of the round,
across hand boundaries, with the tally, its card count and the last scorer carried from hand to hand and
the End of Round Bonus paid to the last scorer at the end, exactly as :mod:`.rules` plays them (the
round's leader leads every hand; both new hands are dealt at once). The objective is the point margin
(mover's points - opponent's points) over the rest of the round, which is also the match margin: rounds
are independent once the points are added. Its chance nodes are the deals of the later hands:

* **exact** whenever every remaining card is known: both current hands and every later deal (round 2k of
  ``swap_deals``, hidden or exposed, where round 2k-1 showed every card; and the last hand of any round
  with both hands known);
* **exact expectimax** when both current hands are known and only the last hand's deal is unknown (the
  fourth hand with hands exposed): the chance node enumerates every split of the ten stock cards between
  the players by value (hypergeometric weights);
* otherwise (earlier hands with an unknown stock) an **estimate**: each chance node of a hand before the
  last averages ``samples[level]`` deals drawn from the unseen cards (the same draws for every position
  reaching that node), and the last hand's node is again exact over the ten cards that remain. The values
  are exact expectimax values of that sampled chance tree, not of the game.

The current hands must be known to the solver; with hidden hands ``twenty.solver`` (``agents/twenty.py``)
averages it over sampled opponent hands (a determinization, not exact; see there).
"""

from __future__ import annotations

from functools import cache
from math import comb

import numpy as np
from numba import njit, types
from numba.typed import Dict

from cardenvs.core.encoding import counts_to_ids
from cardenvs.core.rng import stream, uniform_index

from .rules import card_points, points_for

TEN = 10


def _p_none(unseen_total: int, excluded: int, hand_size: int) -> float:
    if hand_size <= 0:
        return 1.0
    return (
        comb(unseen_total - excluded, hand_size) / comb(unseen_total, hand_size) if unseen_total >= hand_size else 0.0
    )


def expected_best_gain(tally: int, n_cards: int, unseen: tuple[int, ...], hand_size: int) -> float:
    """Expected best immediate score for ``hand_size`` random cards from ``unseen`` (counts of values 1..10,
    index 0 = value 1) on this tally. A player who would score nothing with every card gains 0."""
    gains = sorted(((points_for(tally, n_cards, v + 1)[0], v) for v in range(10) if unseen[v]), reverse=True)
    total = sum(unseen)
    if total == 0 or hand_size <= 0:
        return 0.0
    hand_size = min(hand_size, total)
    expected, excluded, p_prev = 0.0, 0, 1.0
    for gain, v in gains:
        if gain <= 0:
            break
        excluded += unseen[v]
        p_now = _p_none(total, excluded, hand_size)
        expected += gain * (p_prev - p_now)
        p_prev = p_now
    return expected


def solve(
    own: tuple[int, ...],
    opponent: tuple[int, ...],
    tally: int,
    n_cards: int,
    last_hand: bool,
    bonus: int,
    last_scorer: int,
    leader_is_own: bool,
    unseen: tuple[int, ...],
) -> tuple[float, int]:
    """Best (value, card value to play) for the player to move, who holds ``own`` (counts of values 1..10,
    index 0 = value 1) against ``opponent``; ``last_scorer`` is 0 own, 1 opponent, -1 nobody."""
    if not any(own):
        raise ValueError("solve needs the player to move to hold a card")

    @cache
    def value(me: tuple, them: tuple, tally: int, n_cards: int, last: int, me_leads: bool) -> tuple[float, int]:
        # ``last``: 0 = the player to move scored last, 1 = the other, -1 = nobody
        if not any(me) and not any(them):
            if last_hand:
                return (bonus if last == 0 else -bonus if last == 1 else 0.0), -1
            leftover = expected_best_gain(tally, n_cards, unseen, 5) if n_cards else 0.0
            return (leftover if me_leads else -leftover), -1
        best, best_card = float("-inf"), -1
        for v in range(10):
            if not me[v]:
                continue
            points, clears = points_for(tally, n_cards, v + 1)
            after = list(me)
            after[v] -= 1
            new_tally, new_n = (0, 0) if clears else (tally + v + 1, n_cards + 1)
            new_last = 1 if points else (0 if last == 1 else 1 if last == 0 else -1)
            # after the move the other player is "to move": from their side, whoever scored is flipped
            sub, _ = value(them, tuple(after), new_tally, new_n, new_last, not me_leads)
            total = points - sub
            # prefer keeping Ten cards on equal values (the document's advice), then lower cards
            if total > best + 1e-9 or (abs(total - best) <= 1e-9 and v + 1 != TEN and best_card + 1 == TEN):
                best, best_card = total, v
        return best, best_card + 1

    start_last = 0 if last_scorer == 0 else 1 if last_scorer == 1 else -1
    return value(tuple(own), tuple(opponent), tally, n_cards, start_last, leader_is_own)


# ---------------------------------------------------------------- the round solver (numba)
NUM_VALUES = 10
HANDS_PER_ROUND = 5
HAND = 5
SPLITS_MAX = 252  # C(10, 5): splits of the last ten cards between the two players (fewer by value)
LEADER, FOLLOWER = 0, 1


@njit(cache=True)
def _key(slot: int, lmask: int, fmask: int, tally: int, n_cards: int, last: int) -> int:
    # tally <= 19 and n_cards <= 19 while cards stay on the tally; last in -1..1
    return ((((slot * 32 + lmask) * 32 + fmask) * 32 + tally) * 32 + n_cards) * 4 + last + 1


@njit(cache=True)
def _popcount(x: int) -> int:
    c = 0
    while x:
        c += x & 1
        x >>= 1
    return c


@njit(cache=True)
def _binom(n: int, k: int) -> float:
    if k < 0 or k > n:
        return 0.0
    c = 1.0
    for i in range(k):
        c = c * (n - i) / (i + 1)
    return c


@njit(cache=True)
def _set_hand(slot_vals, slot_n, slot, who, counts) -> None:
    """Slot ``slot``'s hand of ``who`` from value counts (index 0 = value 1), sorted ascending."""
    k = 0
    for v in range(NUM_VALUES):
        for _ in range(counts[v]):
            slot_vals[slot, who, k] = v + 1
            k += 1
    slot_n[slot, who] = k


@njit(cache=True)
def _new_slot(ctx_ints, slot_level, child_start, child_count) -> int:
    s = ctx_ints[0]
    ctx_ints[0] += 1
    child_start[s] = -1
    child_count[s] = 0
    slot_level[s] = -1
    return s


@njit(cache=True)
def _expand(slot, tree) -> None:
    """Create the children of ``slot``'s chance node (the next hand's possible deals) in ``tree`` (the slot
    arrays of :func:`round_values`). In place."""
    slot_vals, slot_n, slot_level, slot_unseen, child_start, child_count, weight, ctx_ints, samples, rng = tree
    level = slot_level[slot] + 1
    u = slot_unseen[slot]
    total = 0
    for v in range(NUM_VALUES):
        total += u[v]
    first = ctx_ints[0]
    child_start[slot] = first
    if level == HANDS_PER_ROUND - 1 and total == 2 * HAND and samples[level] <= 0:
        # every split of the last ten cards by value: leader multiset L, follower the rest
        lead = np.zeros(NUM_VALUES, dtype=np.int64)
        rest = np.zeros(NUM_VALUES, dtype=np.int64)
        denom = _binom(2 * HAND, HAND)
        while True:
            size = 0
            for v in range(NUM_VALUES):
                size += lead[v]
            if size == HAND:
                c = _new_slot(ctx_ints, slot_level, child_start, child_count)
                w = 1.0
                for v in range(NUM_VALUES):
                    w *= _binom(u[v], lead[v])
                    rest[v] = u[v] - lead[v]
                weight[c] = w / denom
                slot_level[c] = level
                _set_hand(slot_vals, slot_n, c, LEADER, lead)
                _set_hand(slot_vals, slot_n, c, FOLLOWER, rest)
                slot_unseen[c, :] = 0
            # odometer over 0..u[v]
            v = 0
            while v < NUM_VALUES:
                if lead[v] < u[v]:
                    lead[v] += 1
                    break
                lead[v] = 0
                v += 1
            if v == NUM_VALUES:
                break
    else:
        k = samples[level]
        pool = counts_to_ids(u)
        for _ in range(k):
            for i in range(2 * HAND):  # partial Fisher-Yates: the first ten cards of a shuffle
                r = i + uniform_index(rng, total - i)
                pool[i], pool[r] = pool[r], pool[i]
            c = _new_slot(ctx_ints, slot_level, child_start, child_count)
            weight[c] = 1.0 / k
            slot_level[c] = level
            lead = np.zeros(NUM_VALUES, dtype=np.int64)
            foll = np.zeros(NUM_VALUES, dtype=np.int64)
            for i in range(HAND):
                lead[pool[i]] += 1
                foll[pool[HAND + i]] += 1
            _set_hand(slot_vals, slot_n, c, LEADER, lead)
            _set_hand(slot_vals, slot_n, c, FOLLOWER, foll)
            for v in range(NUM_VALUES):
                slot_unseen[c, v] = u[v] - lead[v] - foll[v]
    child_count[slot] = ctx_ints[0] - first


@njit(cache=True)
def _node(slot, lmask, fmask, tally, n_cards, last, tree, bonus, memo, moves) -> float:
    """The value (leader's points - follower's, to the end of the round) of the position: slot ``slot``'s
    hands with the cards of masks ``lmask``/``fmask`` still held, the tally, its cards and the last scorer
    (-1 nobody, 0 leader, 1 follower). The leader is to move when both hold as many cards. A non-empty
    ``moves`` (the root's call; deeper calls get an empty slice of it) also gets each move's value from the
    mover's side, ``moves[v - 1]``. ``tree``: the slot arrays of :func:`round_values`."""
    slot_vals, slot_n, slot_level = tree[0], tree[1], tree[2]
    child_start, child_count, weight = tree[4], tree[5], tree[6]
    key = _key(slot, lmask, fmask, tally, n_cards, last)
    got = memo.get(key, np.nan)
    if not np.isnan(got):
        return got
    if lmask == 0 and fmask == 0:
        if slot_level[slot] == HANDS_PER_ROUND - 1:
            value = float(bonus) if last == LEADER else -float(bonus) if last == FOLLOWER else 0.0
        else:
            if child_start[slot] < 0:
                _expand(slot, tree)
            value = 0.0
            for c in range(child_start[slot], child_start[slot] + child_count[slot]):
                full_l = (1 << slot_n[c, LEADER]) - 1
                full_f = (1 << slot_n[c, FOLLOWER]) - 1
                value += weight[c] * _node(c, full_l, full_f, tally, n_cards, last, tree, bonus, memo, moves[:0])
        memo[key] = value
        return value
    who = LEADER if _popcount(lmask) >= _popcount(fmask) else FOLLOWER
    mask = lmask if who == LEADER else fmask
    best = -np.inf if who == LEADER else np.inf
    for i in range(slot_n[slot, who]):
        if not (mask >> i) & 1:
            continue
        v = slot_vals[slot, who, i]
        if i > 0 and (mask >> (i - 1)) & 1 and slot_vals[slot, who, i - 1] == v:
            continue  # the lowest held slot of each value stands for the value
        points, clears = card_points(tally, n_cards, v)
        new_tally, new_n = (0, 0) if clears else (tally + v, n_cards + 1)
        new_last = who if points else last
        rest = mask & ~(1 << i)
        sub = _node(
            slot,
            rest if who == LEADER else lmask,
            fmask if who == LEADER else rest,
            new_tally,
            new_n,
            new_last,
            tree,
            bonus,
            memo,
            moves[:0],
        )
        value = points + sub if who == LEADER else sub - points
        best = max(best, value) if who == LEADER else min(best, value)
        if moves.shape[0]:
            moves[v - 1] = value if who == LEADER else -value
    memo[key] = best
    return best


@njit(cache=True)
def _slot_bound(hand_index: int, known_future: bool, samples) -> int:
    if known_future:
        return HANDS_PER_ROUND + 1
    total, width = 1, 1
    for level in range(hand_index + 1, HANDS_PER_ROUND):
        last = level == HANDS_PER_ROUND - 1
        width *= SPLITS_MAX if last and samples[level] <= 0 else max(1, samples[level])
        total += width
    return total


@njit(cache=True)
def round_values(
    leader_hand,
    follower_hand,
    tally,
    n_cards,
    last,
    hand_index,
    bonus,
    future,
    known_future,
    unseen,
    samples,
    seed,
    out,
) -> None:
    """The round solver's value of every move of the player to move into ``out`` (``out[v - 1]`` for value
    ``v``, -inf for values it does not hold), from the mover's side: its points - the opponent's to the
    end of the round, bonus included. Arguments (counts by value, index 0 = value 1): the current hands of
    the round's leader and follower (the leader moves when both hold as many cards), the tally, its cards,
    the last scorer (-1 nobody, 0 the leader, 1 the follower), the hand (0..4), the bonus; ``future[h, w]``
    the hand ``h`` of the leader (``w = 0``) / follower for later hands when ``known_future``, else
    ``unseen``: the stock's cards by value, whose later deals are chance nodes (``samples[h]`` draws for
    hand ``h`` before the last; the last hand's split is enumerated). ``seed`` seeds the draws. Writes
    ``out`` only."""
    n_slots = _slot_bound(hand_index, known_future, samples)
    slot_vals = np.zeros((n_slots, 2, HAND), dtype=np.int64)
    slot_n = np.zeros((n_slots, 2), dtype=np.int64)
    slot_level = np.zeros(n_slots, dtype=np.int64)
    slot_unseen = np.zeros((n_slots, NUM_VALUES), dtype=np.int64)
    child_start = np.full(n_slots, -1, dtype=np.int64)
    child_count = np.zeros(n_slots, dtype=np.int64)
    weight = np.ones(n_slots, dtype=np.float64)
    ctx_ints = np.zeros(1, dtype=np.int64)
    rng = stream(np.uint64(seed), 0)
    memo = Dict.empty(key_type=types.int64, value_type=types.float64)
    root = _new_slot(ctx_ints, slot_level, child_start, child_count)
    slot_level[root] = hand_index
    _set_hand(slot_vals, slot_n, root, LEADER, leader_hand)
    _set_hand(slot_vals, slot_n, root, FOLLOWER, follower_hand)
    slot_unseen[root, :] = unseen
    if known_future:
        prev = root
        for h in range(hand_index + 1, HANDS_PER_ROUND):
            c = _new_slot(ctx_ints, slot_level, child_start, child_count)
            slot_level[c] = h
            _set_hand(slot_vals, slot_n, c, LEADER, future[h, LEADER])
            _set_hand(slot_vals, slot_n, c, FOLLOWER, future[h, FOLLOWER])
            child_start[prev] = c
            child_count[prev] = 1
            weight[c] = 1.0
            prev = c
    out[:] = -np.inf
    tree = (slot_vals, slot_n, slot_level, slot_unseen, child_start, child_count, weight, ctx_ints, samples, rng)
    full_l, full_f = (1 << slot_n[root, LEADER]) - 1, (1 << slot_n[root, FOLLOWER]) - 1
    _node(root, full_l, full_f, tally, n_cards, last, tree, bonus, memo, out)


DEFAULT_SAMPLES = (0, 8, 4, 2, 0)  # draws per chance node, by the hand it deals (the last is enumerated)


def solve_round(
    own: tuple[int, ...] | np.ndarray,
    opponent: tuple[int, ...] | np.ndarray,
    tally: int,
    n_cards: int,
    hand_index: int,
    bonus: int,
    last_scorer: int,
    leader_is_own: bool,
    future: np.ndarray | None = None,
    unseen: tuple[int, ...] | np.ndarray | None = None,
    samples: tuple[int, ...] = DEFAULT_SAMPLES,
    seed: int = 0,
) -> tuple[float, int, np.ndarray]:
    """Best (value, card value to play, values of every move) for the player to move, who holds ``own``
    (counts of values 1..10, index 0 = value 1) against ``opponent``; ``last_scorer`` is 0 own, 1 opponent,
    -1 nobody. ``future[h]``: ``[own, opponent]`` counts of later hands ``h`` (exact), or ``unseen``: the
    stock's cards by value (chance nodes; see the module docstring for when that is exact). Values are
    point margins to the end of the round, bonus included; ties go to the lowest non-Ten value (keep Ten
    cards), as :func:`solve` breaks them."""
    own_a = np.asarray(own, dtype=np.int64)
    opp_a = np.asarray(opponent, dtype=np.int64)
    if own_a.sum() == 0:
        raise ValueError("solve_round needs the player to move to hold a card")
    leader, follower = (own_a, opp_a) if leader_is_own else (opp_a, own_a)
    last = -1 if last_scorer < 0 else (0 if (last_scorer == 0) == leader_is_own else 1)
    fut = np.zeros((HANDS_PER_ROUND, 2, NUM_VALUES), dtype=np.int64)
    known = future is not None
    if future is not None:
        f = np.asarray(future, dtype=np.int64)
        fut[:, LEADER] = f[:, 0] if leader_is_own else f[:, 1]
        fut[:, FOLLOWER] = f[:, 1] if leader_is_own else f[:, 0]
        stock = np.zeros(NUM_VALUES, dtype=np.int64)
    else:
        if unseen is None and hand_index < HANDS_PER_ROUND - 1:
            raise ValueError("solve_round: give the later deals (future) or the stock's cards (unseen)")
        stock = np.zeros(NUM_VALUES, dtype=np.int64) if unseen is None else np.asarray(unseen, dtype=np.int64)
        if hand_index < HANDS_PER_ROUND - 1 and stock.sum() != 2 * HAND * (HANDS_PER_ROUND - 1 - hand_index):
            raise ValueError(
                f"solve_round: the stock holds {stock.sum()} cards; hand {hand_index} leaves "
                f"{2 * HAND * (HANDS_PER_ROUND - 1 - hand_index)}"
            )
    out = np.empty(NUM_VALUES, dtype=np.float64)
    samp = np.zeros(HANDS_PER_ROUND, dtype=np.int64)
    samp[: len(samples)] = samples
    round_values(leader, follower, tally, n_cards, last, hand_index, bonus, fut, known, stock, samp, seed, out)
    best, best_card = -np.inf, -1
    for v in range(NUM_VALUES):
        total = out[v]
        if total == -np.inf:
            continue
        if total > best + 1e-9 or (abs(total - best) <= 1e-9 and v + 1 != TEN and best_card + 1 == TEN):
            best, best_card = total, v
    return float(best), best_card + 1, out
