"""High Card's numba policies (``rules.POLICIES``): the agents ``highcard.highest`` and ``highcard.lowest``, the
vector envs' opponents and the search rollouts, one function each."""

from __future__ import annotations

from numba import njit

from cardenvs.core import kernels

from .rules import RANKS, status


@njit(cache=True)
def policy(state, b, params, which, rng) -> int:
    """Policy ``which`` for the seat to move: 0 ``highest`` plays its highest card, 1 ``lowest`` its lowest;
    -1 once the game is over. Draws nothing from ``rng``; reads the state, writes nothing."""
    if status(state, b, params) != kernels.RUNNING:
        return -1
    hand = state[b].hands[state[b].to_move]
    for i in range(RANKS):
        r = RANKS - 1 - i if which == 0 else i
        if hand[r]:
            return r
    return -1
