"""Twenty heuristics as numba policies over the core's state: the agent ``twenty.greedy`` in the arena and
the web (:class:`cardenvs.agent.PolicyAgent`), the vector envs' opponent, the search rollouts.

``greedy`` is a one-ply heuristic, as the document's commentary plays: it scores each card it could play as

    points it scores now - the opponent's expected best reply - 1 if it spends a Ten card

where the opponent's reply is the best immediate score of its hand: known exactly when hands are exposed,
otherwise its expectation over the cards not yet seen (hypergeometric, :func:`expected_best_gain`). So it
takes the most points now, avoids leaving a tally the opponent can turn into an Exact Twenty, and holds
Ten cards when that costs nothing. Among equally valued cards (within 1e-9) it draws from its ``uint64[1]``
stream. The round solver ``twenty.solver`` is a Python agent (``agents/twenty.py``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.rng import uniform_index

from .rules import NUM_VALUES, VALUES, card_points

FULL_DECK = np.array([4] * 9 + [16], dtype=np.int64)  # cards per value A..T
TEN_PENALTY = 1.0
TIE = 1e-9


@njit(cache=True)
def _comb(n: int, k: int) -> int:
    """Binomial coefficient, exact in int64 for the small numbers here (0 when ``n < k``)."""
    if k < 0 or n < k:
        return 0
    c = 1
    for i in range(k):
        c = c * (n - i) // (i + 1)
    return c


@njit(cache=True)
def _p_none(unseen_total: int, excluded: int, hand_size: int) -> float:
    if hand_size <= 0:
        return 1.0
    if unseen_total < hand_size:
        return 0.0
    return _comb(unseen_total - excluded, hand_size) / _comb(unseen_total, hand_size)


@njit(cache=True)
def expected_best_gain(tally: int, n_cards: int, unseen: np.ndarray, hand_size: int) -> float:
    """Twin of :func:`cardenvs.games.twenty.solver.expected_best_gain` (``unseen``: counts of values 1..10).
    Reads its arguments only."""
    total = 0
    for v in range(NUM_VALUES):
        total += unseen[v]
    if total == 0 or hand_size <= 0:
        return 0.0
    hand_size = min(hand_size, total)
    # values by (gain, value) descending, as Python's sorted(..., reverse=True) orders them
    gain = np.empty(NUM_VALUES, dtype=np.int64)
    used = np.zeros(NUM_VALUES, dtype=np.bool_)
    for v in range(NUM_VALUES):
        gain[v] = card_points(tally, n_cards, v + 1)[0]
    expected, excluded, p_prev = 0.0, 0, 1.0
    while True:
        best = -1
        for v in range(NUM_VALUES - 1, -1, -1):
            if unseen[v] and not used[v] and (best < 0 or gain[v] > gain[best]):
                best = v
        if best < 0 or gain[best] <= 0:
            break
        used[best] = True
        excluded += unseen[best]
        p_now = _p_none(total, excluded, hand_size)
        expected += gain[best] * (p_prev - p_now)
        p_prev = p_now
    return expected


@njit(cache=True)
def greedy_scores(state, b, params, out) -> int:
    """``greedy``'s scores for the seat to move of game ``b``: the value of each legal action ``a`` into
    ``out[a]`` (-inf for the others); returns how many actions are legal. Writes ``out`` only."""
    s = state[b]
    me = s.to_move
    opp = 1 - me
    own = np.zeros(NUM_VALUES, dtype=np.int64)
    theirs = np.zeros(NUM_VALUES, dtype=np.int64)
    for i in range(s.hand_n[me]):
        own[VALUES[s.hands[me, i]] - 1] += 1
    for i in range(s.hand_n[opp]):
        theirs[VALUES[s.hands[opp, i]] - 1] += 1
    opp_size = s.hand_n[opp]
    exposed = params[0].exposed_hands and opp_size > 0
    unseen = np.empty(NUM_VALUES, dtype=np.int64)
    for v in range(NUM_VALUES):
        unseen[v] = max(FULL_DECK[v] - s.seen[v] - own[v] - (theirs[v] if exposed else 0), 0)
    tens_only = True
    for v in range(NUM_VALUES - 1):
        if own[v]:
            tens_only = False
    tally, n = s.tally, s.tally_n
    legal = 0
    for a in range(NUM_VALUES):
        out[a] = -np.inf
        if not own[a]:
            continue
        legal += 1
        points, clears = card_points(tally, n, a + 1)
        after_tally, after_n = (0, 0) if clears else (tally + a + 1, n + 1)
        reply = 0.0
        if opp_size == 0:
            reply = 0.0
        elif exposed:
            best = -1
            for w in range(NUM_VALUES):
                if theirs[w]:
                    got = card_points(after_tally, after_n, w + 1)[0]
                    if best < 0 or got > best:
                        best = got
            reply = float(best)
        else:
            reply = expected_best_gain(after_tally, after_n, unseen, opp_size)
        penalty = TEN_PENALTY if a == NUM_VALUES - 1 and not tens_only else 0.0
        out[a] = float(points) - reply - penalty
    return legal


@njit(cache=True)
def greedy(state, b, params, rng) -> int:
    """``twenty.greedy`` for the seat to move of game ``b``: the best-valued card, ties (within 1e-9) drawn
    uniformly from ``rng``. Reads the state; advances ``rng`` on ties only."""
    values = np.empty(NUM_VALUES, dtype=np.float64)
    greedy_scores(state, b, params, values)
    best = -np.inf
    for a in range(NUM_VALUES):
        if values[a] > best:
            best = values[a]
    choices = np.empty(NUM_VALUES, dtype=np.int64)
    k = 0
    for a in range(NUM_VALUES):
        if values[a] != -np.inf and values[a] >= best - TIE:
            choices[k] = a
            k += 1
    if k == 1:
        return choices[0]
    return choices[uniform_index(rng, k)]


@njit(cache=True)
def policy(state, b, params, which, rng) -> int:
    """The game's numba policies by number (``rules.POLICIES``): 0 = ``greedy``; -1 once the match is over."""
    if state[b].over:
        return -1
    return greedy(state, b, params, rng)
