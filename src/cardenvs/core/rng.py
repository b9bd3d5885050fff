"""A tiny numba random stream for compiled loops (census, simulators, playouts).

numba code cannot take a ``np.random.Generator``, and the global numpy state is off limits, so compiled
loops carry their own xorshift64* state (a one-element ``uint64`` array) seeded from a Generator.
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def next_u64(state: np.ndarray) -> np.uint64:
    """Advance an xorshift64* stream (``state``: ``uint64[1]``, never 0) and return 64 random bits."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(2685821657736338717)


@njit(cache=True)
def uniform_index(state: np.ndarray, n: int) -> np.int64:
    """A uniform integer in ``0..n-1`` (Lemire's multiply-shift on the high 32 bits; no division)."""
    return np.int64(((next_u64(state) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))
