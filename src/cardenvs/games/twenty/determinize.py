"""Twenty determinization for search (:func:`cardenvs.core.kernels.determinize`).

What seat ``p`` cannot see, and what is re-dealt: the stock (``deck[stock_pos:]``) in every variant, and
the opponent's hand when hands are hidden. Nothing is hidden in round 2k of ``swap_deals`` (round 2k-1
showed every card of the deck, and the observation's ``replayed_hands`` says where each is), so there
only the deal seed changes. The bonus cards, the tally, the cleared cards, ``seen``, the scores and p's
hand are copied as they are. The hidden cards are gathered in card-id order (so how they are split
between the opponent's hand and the stock does not matter), shuffled from ``rng`` and dealt: the
opponent's hand first (its size kept), then the stock. The deal seed of later rounds is redrawn from
``rng`` (later decks are unknown to everyone; stacked decks in ``params`` are not hidden by this).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.rng import next_u64, shuffle

from .rules import DECK_SIZE


@njit(cache=True)
def determinize(state, b, params, p, rng, out, ob) -> None:
    """Write to ``out[ob]`` game ``b`` with the cards seat ``p`` cannot see re-dealt from ``rng`` (module
    docstring). Reads only what ``p`` observed, plus the hidden cards as a set; writes ``out[ob]`` only."""
    out[ob] = state[b]
    s = state[b]
    o = out[ob]
    o.deal_seed = next_u64(rng)
    pr = params[0]
    if s.over or (pr.swap_deals and s.round_index % 2 == 1):
        return
    q = 1 - p
    hide_hand = not pr.exposed_hands
    present = np.zeros(DECK_SIZE, dtype=np.bool_)
    for i in range(s.stock_pos, DECK_SIZE):
        present[s.deck[i]] = True
    if hide_hand:
        for i in range(s.hand_n[q]):
            present[s.hands[q, i]] = True
    n = 0
    pool = np.empty(DECK_SIZE, dtype=np.int8)
    for c in range(DECK_SIZE):
        if present[c]:
            pool[n] = c
            n += 1
    pool = pool[:n]
    shuffle(pool, rng)
    k = 0
    if hide_hand:
        for i in range(s.hand_n[q]):
            o.hands[q, i] = pool[k]
            k += 1
    for i in range(s.stock_pos, DECK_SIZE):
        o.deck[i] = pool[k]
        k += 1
