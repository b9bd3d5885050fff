"""Guandan's searched return: determinized Monte Carlo over the cards a receiver may give back.

:func:`searched_return`, for the seat to move in the RETURN phase of game ``b``: ``deals`` times, the cards the
seat cannot see are re-dealt consistently with what it knows (:func:`.determinize.determinize`, stream ``d`` of
``seed``: the tribute it received, the cards shown, every hand's count); on each deal every legal return is
applied and the hand played out with :func:`.policies.heuristic` for every seat and decision (the other
receiver's return included) until the hand in progress ends. A return is worth the mean change of the seat's
hand points (``+g`` to each winner, ``-g`` to each loser: the levels the hand gains). The heuristic draws no
random numbers, so every candidate meets the same deals and the same play (common random numbers). The
heuristic's own return (:func:`.policies.heuristic`) is the default: another card is chosen only where its
mean is strictly higher (then the first such maximum, the lowest action id).

The benchmark ``python -m benchmarks.guandan_return`` measures it against the heuristic's return and a random
one among heuristic players (``docs/results/guandan-return.md``)."""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core import kernels
from cardenvs.core.rng import stream

from . import moves
from .determinize import determinize
from .policies import heuristic
from .rules import RETURN, apply, legal_ids, status

DEFAULT_DEALS = 16


@njit(cache=True)
def play_out_hand(sim, b, params) -> None:
    """Play game ``b`` of ``sim`` with the heuristic for every seat (in place) until the hand in progress ends
    (the match's next hand begins, or the episode is over or truncated)."""
    hand = sim[b].hands_played
    rng = np.zeros(1, dtype=np.uint64)  # the heuristic draws nothing
    while status(sim, b, params) == kernels.RUNNING and sim[b].hands_played == hand:
        apply(sim, b, params, heuristic(sim, b, params, rng))


@njit(cache=True)
def return_values(state, b, params, seed, deals, ids, values) -> int:
    """The legal returns of the seat to move of game ``b`` into ``ids`` and each one's mean change of that
    seat's hand points over ``deals`` determinizations into ``values`` (module docstring); returns how many.
    Reads ``state``; writes only ``ids`` and ``values``."""
    seat = state[b].to_move
    n = legal_ids(state, b, params, ids)
    det = np.zeros(1, dtype=state.dtype)
    sim = np.zeros(1, dtype=state.dtype)
    values[:n] = 0.0
    for d in range(deals):
        determinize(state, b, params, seat, stream(seed, d), det, 0)
        before = det[0].score[seat]
        for i in range(n):
            sim[0] = det[0]
            apply(sim, 0, params, ids[i])
            play_out_hand(sim, 0, params)
            values[i] += sim[0].score[seat] - before
    for i in range(n):
        values[i] /= max(deals, 1)
    return n


@njit(cache=True)
def searched_return(state, b, params, seed, deals) -> int:
    """The searched return of the seat to move of game ``b``, which must be in the RETURN phase: the
    heuristic's card unless another's mean over ``deals`` determinizations (stream ``d`` of ``seed``) is
    strictly higher (module docstring). Reads ``state`` only."""
    if state[b].phase != RETURN:
        raise ValueError("searched_return: the game is not in the RETURN phase")
    ids = np.empty(moves.NUM_ACTIONS, dtype=np.int64)
    values = np.zeros(moves.NUM_ACTIONS, dtype=np.float64)
    n = return_values(state, b, params, seed, deals, ids, values)
    rng = np.zeros(1, dtype=np.uint64)
    best = heuristic(state, b, params, rng)
    best_value = -np.inf
    for i in range(n):
        if ids[i] == best:
            best_value = values[i]
    for i in range(n):
        if values[i] > best_value:
            best, best_value = ids[i], values[i]
    return best
