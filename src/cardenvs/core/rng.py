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


@njit(cache=True)
def splitmix64(x: np.uint64) -> np.uint64:
    """One step of splitmix64: a well-mixed 64-bit value from any 64-bit value (seeds streams)."""
    z = x + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def stream(seed: np.uint64, k: int) -> np.ndarray:
    """An xorshift64* state (``uint64[1]``) for stream ``k`` of ``seed``: streams of one seed are independent."""
    s = splitmix64(splitmix64(np.uint64(seed)) ^ splitmix64(np.uint64(k) + np.uint64(0x632BE59BD9B4E019)))
    if s == np.uint64(0):
        s = np.uint64(1)
    out = np.empty(1, dtype=np.uint64)
    out[0] = s
    return out


@njit(cache=True)
def shuffle(values: np.ndarray, state: np.ndarray) -> None:
    """Fisher-Yates shuffle of ``values`` in place, drawing from ``state``."""
    for i in range(values.shape[0] - 1, 0, -1):
        j = uniform_index(state, i + 1)
        values[i], values[j] = values[j], values[i]


@njit(cache=True)
def deal_deck(deck: np.ndarray, deal_seed: np.uint64, k: int, out: np.ndarray) -> None:
    """The dealing generator: deal ``k`` of an episode dealt from ``deal_seed`` is ``deck`` (the game's cards)
    shuffled by stream ``k``, written to ``out``. Deal ``k`` depends on the seed and ``k`` only, never on
    play, so duplicate deals replay exactly; the AEC envs and the vector envs use this one function."""
    for i in range(out.shape[0]):  # a loop, not out[:] = deck: numba's shape check costs seconds to compile
        out[i] = deck[i]
    shuffle(out, stream(deal_seed, k))


@njit(cache=True)
def episode_deck(stacked, n_stacked: int, deck, deal_seed, k: int, out) -> None:
    """Deal ``k`` of an episode into ``out``: the stacked deck ``stacked[k]`` when ``k < n_stacked`` (the AEC
    env's ``options["deck"]``), else the dealing generator's :func:`deal_deck` of ``deal_seed``. Every
    game's ``init`` (and later deals) take their decks here."""
    if k < n_stacked:
        for i in range(out.shape[0]):
            out[i] = stacked[k, i]
    else:
        deal_deck(deck, deal_seed, k, out)


# streams of a deal seed other than the deals themselves (a game's extra draws, e.g. the first bidder)
EXTRA_STREAM = 1_000_000
