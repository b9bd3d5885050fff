"""Guandan's numba policies (``rules.POLICIES``): the agent ``guandan.random`` in the arena and the web, the
vector envs' opponent and the search rollouts, one function.

``random`` picks uniformly among the legal actions of the seat to move (tribute and return cards, pass,
patterns, suit choices alike), drawing one number from ``rng``. It is the placeholder that lets the game
register; a heuristic joins it here under its own name.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core import kernels
from cardenvs.core.rng import uniform_index

from . import moves
from .rules import legal_ids, status

RANDOM = 0


@njit(cache=True)
def random_legal(state, b, params, rng) -> int:
    """A uniformly random legal action of the seat to move of game ``b`` (reads the state; draws once)."""
    ids = np.empty(moves.NUM_ACTIONS, dtype=np.int64)
    n = legal_ids(state, b, params, ids)
    return ids[uniform_index(rng, n)]


@njit(cache=True)
def policy(state, b, params, which, rng) -> int:
    """The game's numba policies by number (``rules.POLICIES``): 0 = ``random``; -1 once the game is over."""
    if status(state, b, params) != kernels.RUNNING:
        return -1
    return random_legal(state, b, params, rng)
