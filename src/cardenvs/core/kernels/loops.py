"""The loops of the batched game core (:mod:`cardenvs.core.kernels`): one game's observation and step (the AEC
envs'), and the batch loops over games ``which[lo:hi]`` (the vector envs', the arena's, the search's), written
once over the generic functions of :mod:`.dispatch`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import njit

from ..rng import splitmix64, uniform_index
from .dispatch import (
    OVER,
    RUNNING,
    TRUNCATED,
    apply,
    init,
    legal_ids,
    observe,
    outcome,
    policy,
    scores,
    status,
    to_move,
)


# ---------------------------------------------------------------- one game (used by the AEC envs too)
@njit(cache=True)
def observe_one(state, b, params, p, obs_row, mask_row, legal_row, n_old, scratch) -> int:
    """Seat ``p``'s observation into ``obs_row``; if ``p`` is to move and the game is on, its legal actions
    into ``mask_row`` and the first ``len(legal_row)`` of their ids into ``legal_row``; returns how many are
    legal. ``n_old`` is the previous count (the mask is cleared through the old ids when they all fit in
    ``legal_row``, else wholly); ``scratch`` holds ``num_actions`` ids."""
    obs_row[:] = 0
    observe(state, b, params, p, obs_row)
    if n_old <= legal_row.shape[0]:
        for i in range(n_old):
            mask_row[legal_row[i]] = 0
    else:
        mask_row[:] = 0
    if status(state, b, params) != RUNNING or to_move(state, b, params) != p:
        return 0
    n = legal_ids(state, b, params, scratch)
    for i in range(n):
        mask_row[scratch[i]] = 1
    for i in range(min(n, legal_row.shape[0])):
        legal_row[i] = scratch[i]
    return n


@njit(cache=True)
def _rewards_of_move(state, b, params, points, last_scores_row, rewards_row, scratch) -> int:
    """After a move: the move's rewards of every seat into ``rewards_row`` (score changes with ``points``,
    else the win-scale outcome when the game is over), ``last_scores_row`` updated; returns the status."""
    st = status(state, b, params)
    scores(state, b, params, scratch)
    if points:
        for i in range(scratch.shape[0]):
            rewards_row[i] = scratch[i] - last_scores_row[i]
    elif st == OVER:
        outcome(state, b, params, rewards_row)
    else:
        rewards_row[:] = 0.0
    for i in range(scratch.shape[0]):  # a loop: an array assigned to a slice compiles numba's slow shape check
        last_scores_row[i] = scratch[i]
    return st


@njit(cache=True)
def aec_step(state, params, action, points, last_scores, rewards, mask, ids) -> tuple[int, int, int]:
    """The AEC env's step of its one game in a single call: play ``action``, the move's rewards of every
    seat into ``rewards`` (``last_scores`` updated), then the int8 ``mask`` of the seat to move (cleared
    first). Returns (status, seat to move, number of legal actions). (The observation stays a call of its
    own: compiled into this kernel too, it cost a tenth more of a game's first-use compile time.)"""
    scratch = np.empty(last_scores.shape[0], dtype=np.float64)
    apply(state, 0, params, action)
    st = _rewards_of_move(state, 0, params, points, last_scores, rewards, scratch)
    mask[:] = 0
    n = 0
    if st == RUNNING:
        n = legal_ids(state, 0, params, ids)
        for i in range(n):
            mask[ids[i]] = 1
    return st, to_move(state, 0, params), n


def compiled(dispatcher: Any, args: tuple) -> Callable:
    """``dispatcher``'s compiled function for the types of ``args`` (compiled, or loaded from the cache, now),
    called without numba's per-call type dispatch: about 0.15 us a call instead of 0.6 us for a function of
    record arrays. The caller must call it with arguments of exactly these types every time (the AEC env's
    own buffers, :meth:`cardenvs.core.env.CardEnv.step`)."""
    signature = tuple(numba.typeof(a) for a in args)
    if signature not in dispatcher.overloads:
        dispatcher.compile(signature)
    return dispatcher.overloads[signature].entry_point


# ---------------------------------------------------------------- batch loops
# Each loop is a serial function over games ``which[lo:hi]`` (what one thread runs); its parallel driver,
# generated from it (:func:`_parallel`), splits ``which`` into ``chunks`` and runs them with ``prange``. One
# thread calls the serial function on the whole range: numba's parallel lowering costs about a third of the
# speed of a single-thread loop.


@njit(cache=True)
def reset_range(state, params, which, deal_seeds, episodes, advance, last_scores, lo, hi) -> None:
    """Games ``which[lo:hi]`` start a deal: from ``deal_seeds[b]`` as it is, or, with ``advance``, from the
    next seed of its chain (splitmix64; ``episodes[b]`` counts). ``last_scores`` gets the starting scores."""
    for i in range(lo, hi):
        b = which[i]
        if advance:
            deal_seeds[b] = splitmix64(np.uint64(deal_seeds[b]))
            episodes[b] += 1
        init(state, b, params, np.uint64(deal_seeds[b]))
        scores(state, b, params, last_scores[b])


@njit(cache=True)
def observe_range(state, params, which, seats, obs, mask, legal, num_legal, lo, hi) -> None:
    """Games ``which[lo:hi]``: the observation of seat ``seats[b]`` (the seat to move if ``seats[b] < 0``,
    then written back) into ``obs[b]``, its legal actions into ``mask[b]``, their number into
    ``num_legal[b]`` (0 unless that seat is to move) and the first ids into ``legal[b]``."""
    ids = np.empty(mask.shape[1], dtype=np.int64)
    for i in range(lo, hi):
        b = which[i]
        if seats[b] < 0:
            seats[b] = to_move(state, b, params)
        num_legal[b] = observe_one(state, b, params, seats[b], obs[b], mask[b], legal[b], num_legal[b], ids)


@njit(cache=True)
def observe_rows(state, params, which, seat, out) -> None:
    """Seat ``seat``'s observation of each game ``which[i]`` into ``out[i]`` (nothing else is written)."""
    for i in range(which.shape[0]):
        row = out[i]
        row[:] = 0
        observe(state, which[i], params, seat, row)


@njit(cache=True)
def first_illegal(mask, actions, which) -> int:
    """The first ``i`` whose game ``which[i]`` may not play ``actions[which[i]]`` by ``mask``; -1 if none."""
    for i in range(which.shape[0]):
        b = which[i]
        a = actions[b]
        if a < 0 or a >= mask.shape[1] or not mask[b, a]:
            return i
    return -1


@njit(cache=True)
def step_range(
    state,
    params,
    which,
    actions,
    points,
    last_scores,
    rewards,
    terminated,
    truncated,
    final_scores,
    deal_seeds,
    episodes,
    autoreset,
    obs,
    mask,
    legal,
    seats,
    num_legal,
    lo,
    hi,
) -> None:
    """Games ``which[lo:hi]`` play ``actions[b]`` (legal: checked by the caller). Rewards of every seat, ends,
    and the final scores of ended games are written out; with ``autoreset`` an ended game starts its next deal
    at once (Gymnasium's same-step autoreset: ``deal_seeds[b]`` advances by splitmix64, ``episodes[b]``
    counts), else it stays at its end (its mask empty); then each game's observation of the seat to move, its
    mask and legal ids (``seats`` gets that seat).

    The vector env's hot loop, written out in one function on purpose: what :func:`_rewards_of_move` and
    :func:`observe_one` do is repeated here, indexing the batch's arrays by ``b`` rather than passing row
    views to calls, because each call with array arguments cost about 30 ns a step (War's step went from 105
    to 45 ns written out). ``tests/test_vector.py`` checks it against the AEC env over whole games, and
    ``tests/test_observation_hash.py`` every observation and mask byte against recorded hashes."""
    ids = np.empty(mask.shape[1], dtype=np.int64)
    n_seats = last_scores.shape[1]
    scratch = np.empty(n_seats, dtype=np.float64)
    width = legal.shape[1]
    for i in range(lo, hi):
        b = which[i]
        apply(state, b, params, actions[b])
        # the move's rewards (as _rewards_of_move)
        st = status(state, b, params)
        scores(state, b, params, scratch)
        if points:
            for s in range(n_seats):
                rewards[b, s] = scratch[s] - last_scores[b, s]
        elif st == OVER:
            outcome(state, b, params, rewards[b])
        else:
            for s in range(n_seats):
                rewards[b, s] = 0.0
        for s in range(n_seats):
            last_scores[b, s] = scratch[s]
        terminated[b] = st == OVER
        truncated[b] = st == TRUNCATED
        if st != RUNNING:
            for s in range(n_seats):
                final_scores[b, s] = scratch[s]
            if autoreset:
                deal_seeds[b] = splitmix64(np.uint64(deal_seeds[b]))
                episodes[b] += 1
                init(state, b, params, np.uint64(deal_seeds[b]))
                scores(state, b, params, scratch)
                for s in range(n_seats):
                    last_scores[b, s] = scratch[s]
                st = status(state, b, params)
        # the observation, mask and legal ids of the seat to move (as observe_one)
        p = np.int64(to_move(state, b, params))  # int64 as observe_range passes it: one compile of observe
        seats[b] = p
        row = obs[b]
        row[:] = 0
        observe(state, b, params, p, row)
        n_old = num_legal[b]
        if n_old <= width:
            for k in range(n_old):
                mask[b, legal[b, k]] = 0
        else:
            mask[b, :] = 0
        n = 0
        if st == RUNNING:
            n = legal_ids(state, b, params, ids)
            for k in range(n):
                mask[b, ids[k]] = 1
            for k in range(min(n, width)):
                legal[b, k] = ids[k]
        num_legal[b] = n


@njit(cache=True)
def random_range(state, params, which, steps, rngs, num_actions, lo, hi) -> int:
    """Uniformly random play of games ``which[lo:hi]`` for ``steps`` moves each, restarting ended games (no
    observations: the speed of the rules alone); returns how many games ended."""
    ids = np.empty(num_actions, dtype=np.int64)
    ended = 0
    for i in range(lo, hi):
        b = which[i]
        for _ in range(steps):
            n = legal_ids(state, b, params, ids)
            apply(state, b, params, ids[uniform_index(rngs[b], n)])
            if status(state, b, params) != RUNNING:
                ended += 1
                init(state, b, params, splitmix64(rngs[b, 0]))
    return ended


@njit(cache=True)
def _pick(state, b, params, kind, rng, ids) -> int:
    """An internal opponent's action: kind 1 uniformly random legal, kind 2 + k the game's policy k."""
    if kind == 1:
        n = legal_ids(state, b, params, ids)
        return ids[uniform_index(rng, n)]
    return policy(state, b, params, kind - 2, rng)


@njit(cache=True)
def policy_range(state, params, which, kind, rngs, num_actions, out) -> None:
    """``out[i]``: the action of internal opponent ``kind`` (1 random, 2 + k the game's policy k) for the seat
    to act in game ``which[i]``; the games are not changed (only the streams ``rngs[b]`` advance)."""
    ids = np.empty(num_actions, dtype=np.int64)
    for i in range(which.shape[0]):
        b = which[i]
        out[i] = _pick(state, b, params, kind, rngs[b], ids)


@njit(cache=True)
def advance_range(
    state,
    params,
    which,
    seat_kinds,
    points,
    last_scores,
    learner_seat,
    acc_rewards,
    ended,
    final_scores,
    rngs,
    obs,
    mask,
    legal,
    seats,
    num_legal,
    lo,
    hi,
) -> None:
    """The single-agent view's inner loop, for games ``which[lo:hi]``: internal opponents
    (``seat_kinds[b, p]`` >= 1: 1 random, 2 + k the game's numba policy k) move until the learner (kind 0)
    or an external opponent (kind < 0) is to move or the game ends. The learner seat's rewards accumulate
    in ``acc_rewards[b]``; a game that ends gets ``ended[b]`` (1 over, 2 truncated) and its final scores.
    A game still on gets the observation of the seat to move (``seats``, ``obs``, ``mask``, ``num_legal``)."""
    ids = np.empty(mask.shape[1], dtype=np.int64)
    scratch = np.empty(last_scores.shape[1], dtype=np.float64)
    rewards = np.empty(last_scores.shape[1], dtype=np.float64)
    for i in range(lo, hi):
        b = which[i]
        while True:
            p = to_move(state, b, params)
            kind = seat_kinds[b, p]
            if kind <= 0:
                break
            a = _pick(state, b, params, kind, rngs[b], ids)
            apply(state, b, params, a)
            st = _rewards_of_move(state, b, params, points, last_scores[b], rewards, scratch)
            acc_rewards[b] += rewards[learner_seat[b]]
            if st != RUNNING:
                ended[b] = st
                final_scores[b] = last_scores[b]
                break
        if ended[b] == 0:
            seats[b] = to_move(state, b, params)
            num_legal[b] = observe_one(state, b, params, seats[b], obs[b], mask[b], legal[b], num_legal[b], ids)


#: the fixed stream a numba policy is first asked with: a decision that leaves it unchanged drew nothing
#: (:class:`cardenvs.agent.PolicyAgent`; :func:`table_range`)
PROBE = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def table_range(
    state,
    params,
    which,
    seat_kinds,
    points,
    last_scores,
    pending,
    total,
    steps,
    ended,
    final_scores,
    obs,
    mask,
    legal,
    seats,
    num_legal,
    lo,
    hi,
) -> None:
    """The batched arena's inner loop (:mod:`cardenvs.arena.batched`), for games ``which[lo:hi]``: the seats of numba
    policies (``seat_kinds[b, p]`` = 2 + k, the game's policy k) play, each decision asked with the
    :data:`PROBE` stream, until a seat of another agent (kind < 2) is to move, a policy would draw (the stream
    changed: the caller asks again with its generator's draw), a policy chose an illegal action (the caller
    reports it), or the game ends (``ended[b]``: 1 over, 2 truncated; its final scores). Rewards are summed
    as the AEC loop sums them: the seat to move collects ``pending[b, p]`` into ``total[b, p]``, the move's
    rewards go to ``pending[b]``, and at the end every seat collects the rest; ``steps[b]`` counts the moves.
    A game that moved gets the observation of the seat to move (and an empty mask if it ended)."""
    ids = np.empty(mask.shape[1], dtype=np.int64)
    scratch = np.empty(last_scores.shape[1], dtype=np.float64)
    rewards = np.empty(last_scores.shape[1], dtype=np.float64)
    stream = np.empty(1, dtype=np.uint64)
    n = last_scores.shape[1]
    for i in range(lo, hi):
        b = which[i]
        moved = False
        while True:
            p = to_move(state, b, params)
            kind = seat_kinds[b, p]
            if kind < 2:
                break
            stream[0] = PROBE
            a = policy(state, b, params, kind - 2, stream)
            if stream[0] != PROBE:
                break
            count = legal_ids(state, b, params, ids)
            found = False
            for j in range(count):
                if ids[j] == a:
                    found = True
                    break
            if not found:
                break
            total[b, p] += pending[b, p]
            pending[b, p] = 0.0
            steps[b] += 1
            apply(state, b, params, a)
            moved = True
            st = _rewards_of_move(state, b, params, points, last_scores[b], rewards, scratch)
            for s in range(n):
                pending[b, s] += rewards[s]
            if st != RUNNING:
                ended[b] = st
                for s in range(n):
                    final_scores[b, s] = last_scores[b, s]
                    total[b, s] += pending[b, s]
                    pending[b, s] = 0.0
                break
        if moved:  # as step_range leaves it: an ended game's mask is empty
            seats[b] = to_move(state, b, params)
            num_legal[b] = observe_one(state, b, params, seats[b], obs[b], mask[b], legal[b], num_legal[b], ids)


@njit(cache=True)
def apply_range(
    state, params, which, actions, points, last_scores, learner_seat, acc_rewards, ended, final_scores, lo, hi
) -> None:
    """Games ``which[lo:hi]`` play ``actions[b]`` (legal: checked by the caller) for the seat to move; the
    learner seat's reward accumulates; a game that ends gets ``ended[b]`` (1 over, 2 truncated)."""
    scratch = np.empty(last_scores.shape[1], dtype=np.float64)
    rewards = np.empty(last_scores.shape[1], dtype=np.float64)
    for i in range(lo, hi):
        b = which[i]
        apply(state, b, params, actions[b])
        st = _rewards_of_move(state, b, params, points, last_scores[b], rewards, scratch)
        acc_rewards[b] += rewards[learner_seat[b]]
        if st != RUNNING:
            ended[b] = st
            for s in range(scratch.shape[0]):  # a loop: an array assigned to a row compiles a slow shape check
                final_scores[b, s] = last_scores[b, s]


@njit(cache=True)
def padded_ids(mask, legal, num_legal) -> np.ndarray:
    """Padded legal id lists ``[B, max(num_legal)]`` (-1 past ``num_legal[b]``): from ``legal`` where the
    ids fit in it, else from the mask."""
    width = max(1, num_legal.max())
    out = np.full((mask.shape[0], width), -1, dtype=np.int64)
    for b in range(mask.shape[0]):
        n = num_legal[b]
        if n <= legal.shape[1]:
            for i in range(n):
                out[b, i] = legal[b, i]
        else:
            k = 0
            for a in range(mask.shape[1]):
                if mask[b, a]:
                    out[b, k] = a
                    k += 1
    return out
