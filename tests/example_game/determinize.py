"""High Card's determinizer for search (the contract: :func:`cardenvs.core.kernels.determinize`).

Seat ``p`` sees its own hand, the trick and the finished tricks; it cannot see the other hands or the stock.
Those cards are gathered as a set (in rank order), shuffled from ``rng`` and dealt back: each other seat
keeps its number of cards, the rest go to the stock. Nothing else of the game changes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.rng import shuffle

from .rules import RANKS


@njit(cache=True)
def determinize(state, b, params, p, rng, out, ob) -> None:
    """Write to ``out[ob]`` game ``b`` with the cards seat ``p`` cannot see re-dealt from ``rng``. Reads the
    hidden cards only as a set; writes ``out[ob]`` only."""
    out[ob] = state[b]
    o, players = out[ob], params[0].players
    pool = np.empty(RANKS, dtype=np.int64)
    n = 0
    for r in range(RANKS):
        hidden = o.stock[r] == 1
        for q in range(players):
            hidden = hidden or (q != p and o.hands[q, r] == 1)
        if hidden:
            pool[n] = r
            n += 1
    pool = pool[:n]
    shuffle(pool, rng)
    k = 0
    for q in range(players):
        if q == p:
            continue
        held = 0
        for r in range(RANKS):
            held += o.hands[q, r]
            o.hands[q, r] = 0
        for _ in range(held):
            o.hands[q, pool[k]] = 1
            k += 1
    o.stock[:] = 0
    for i in range(k, n):
        o.stock[pool[i]] = 1
