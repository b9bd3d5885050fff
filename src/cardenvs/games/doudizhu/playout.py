"""Random playouts of Dou Dizhu entirely in numba: no Python per decision (the speed reference).

Each game is dealt by the core (:func:`.rules.init`, the dealing generator) with seat 0 as landlord at bid 1,
and uniformly random legal moves, pass included when following, are played through :func:`.rules.apply`
until a hand is empty: the same rules and move generator as the envs, nothing written twice.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.rng import splitmix64, uniform_index

from . import moves, rules


@njit(cache=True)
def random_playouts(games: int, seed: int, params: np.ndarray) -> tuple[int, int]:
    """Play ``games`` random games (``params`` fixing the landlord); returns (decision steps, landlord wins)."""
    rng = np.array([np.uint64(seed) | np.uint64(1)], dtype=np.uint64)
    state = np.zeros(1, dtype=rules.STATE)
    ids = np.empty(moves.NUM_ACTIONS, dtype=np.int64)
    steps = 0
    landlord_wins = 0
    deal_seed = np.uint64(seed)
    for _ in range(games):
        deal_seed = splitmix64(deal_seed)
        rules.init(state, 0, params, deal_seed)
        while not rules.is_over(state, 0):
            n = rules.legal_ids(state, 0, params, ids)
            rules.apply(state, 0, params, ids[uniform_index(rng, n)])
            steps += 1
        if state[0].winner == state[0].landlord:
            landlord_wins += 1
    return steps, landlord_wins


def run(games: int, seed: int = 0) -> tuple[int, int]:
    params = rules.make_params(False, np.zeros(rules.NUM_SEGMENTS, dtype=np.int64))
    params["landlord"] = 0
    params["bid"] = 1
    return random_playouts(games, seed, params)
