"""Dou Dizhu determinization: re-deal the cards a seat cannot see (:func:`cardenvs.core.kernels.determinize`).

What seat ``p`` has observed, and so keeps: its own hand; every card played (``played``, public: the cards a
move takes are fixed by the rules' reading, kitty cards first, then the lowest ids); every hand's size;
after the bidding the kitty (``kitty``, shown to everyone) and which kitty cards the landlord still holds
(``kitty_in_hand``); every public field (bids, the move to beat, the history). What it cannot see, and so
is re-dealt uniformly at random: the other two hands apart from the landlord's kitty cards, and, during the
bidding, the kitty itself. The pool of unseen cards is built in card-id order from public fields and ``p``'s
hand only, so two states that differ only in how the hidden cards are split give the same result for the same
stream. Inferences from the other players' choices (a pass that suggests a weak hand) are not used.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.rng import shuffle

from .rules import KITTY, NUM_CARDS, PLAYERS


@njit(cache=True)
def determinize(state, b, params, p, rng, out, ob) -> None:
    """Write to ``out[ob]`` game ``b`` with every card seat ``p`` cannot see re-dealt from ``rng`` (see the
    module docstring); ``state`` is only read (``out`` may be ``state`` itself with ``ob == b``)."""
    out[ob] = state[b]
    s = out[ob]
    if s.dead or s.winner >= 0:
        return
    rank_of = params[0].rank_of
    kitty_shown = not s.bidding
    pool = np.empty(NUM_CARDS, dtype=np.int16)
    n_pool = 0
    for c in range(NUM_CARDS):
        if s.hands[p, c]:
            continue
        seen = False
        for q in range(PLAYERS):
            if s.played[q, c]:
                seen = True
        if kitty_shown and s.kitty_in_hand[c]:
            seen = True  # a kitty card the landlord still holds: public
        if not seen:
            pool[n_pool] = c
            n_pool += 1
    shuffle(pool[:n_pool], rng)
    k = 0
    for q in range(PLAYERS):
        if q == p:
            continue
        size = 0
        for r in range(15):
            size += s.counts[q, r]
        for c in range(NUM_CARDS):
            keep = kitty_shown and q == s.landlord and s.kitty_in_hand[c] == 1
            s.hands[q, c] = 1 if keep else 0
        s.counts[q, :] = 0
        for c in range(NUM_CARDS):
            if s.hands[q, c]:
                s.counts[q, rank_of[c]] += 1
                size -= 1
        for _ in range(size):
            c = pool[k]
            k += 1
            s.hands[q, c] = 1
            s.counts[q, rank_of[c]] += 1
    if not kitty_shown:
        for i in range(KITTY):
            s.kitty[i] = pool[k]
            k += 1
