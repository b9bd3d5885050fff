"""Twos determinization: re-deal the cards a seat cannot see (:func:`cardenvs.core.kernels.determinize`).

What seat ``p`` has observed, and so keeps: its own hand; every card played (public); every hand's size;
who led the first trick (``leader``: that seat held the lowest card dealt); every public field. What it
cannot see: the other hands and which cards are out of play (never dealt). Those are re-dealt uniformly at
random *given that the leader held the lowest card dealt*:

* ``p`` led: every unseen card below ``p``'s lowest card (held or played) was never dealt, so it goes out of
  play; the other unseen cards are dealt uniformly (exact).
* another seat led: uniform deals are drawn until one gives the leader the lowest card dealt (rejection
  sampling, exact); after :data:`MAX_TRIES` failures the last deal is kept (a bias that needs a
  near-impossible observation; in practice the leader's first play usually shows the lowest card).

The pool of unseen cards is built in value order from public fields and ``p``'s hand only, so two states
that differ only in how the hidden cards are split give the same result for the same stream. Inferences
from the other players' choices (a pass that suggests a weak hand) are not used.

Without card counting (the search agent's ``counting=false``, :mod:`cardenvs.search`: bit
:data:`cardenvs.core.kernels.FORGET_SEEN` of ``rng[1]``, when the stream array has a second word): the seat
remembers only its own hand and every hand's size, as if no card had been played. Every card not in its
hand, played ones included, is dealt uniformly at random to the other hands by their sizes, the rest out of play; the
leader's lowest card is not used either. A sampled world may hold a card that is also among the played
cards: the rules never look at the played cards to decide what is legal, so such a world plays on as any
other (hands keep their sizes, the game ends when a hand is empty).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.kernels import FORGET_SEEN
from cardenvs.core.rng import shuffle

from .rules import MAX_PLAYERS, NUM_CARDS

MAX_TRIES = 1000
#: the search agents' options this determinizer honours (:class:`cardenvs.search.SearchAgent` checks)
SEARCH_OPTIONS = ("counting",)


@njit(cache=True)
def _deal(s, p, players, pool, n_pool, forced, sizes) -> None:
    """Hands of the seats other than ``p`` from ``pool[forced:]`` (shuffled by the caller) by ``sizes``; the
    rest of the pool, ``pool[:forced]`` included, out of play."""
    for q in range(players):
        if q != p:
            s.hands[q, :] = 0
    for i in range(n_pool):
        s.out_of_play[pool[i]] = 1
    k = forced
    for q in range(players):
        if q == p:
            continue
        for _ in range(sizes[q]):
            v = pool[k]
            k += 1
            s.hands[q, v] = 1
            s.out_of_play[v] = 0


@njit(cache=True)
def _leader_holds_lowest(s, players) -> bool:
    """Did the leader hold the lowest card dealt (held now or played)?"""
    for v in range(NUM_CARDS):
        for q in range(players):
            if s.hands[q, v] or s.played[q, v]:
                return q == s.leader
    return True


@njit(cache=True)
def determinize(state, b, params, p, rng, out, ob) -> None:
    """Write to ``out[ob]`` game ``b`` with every card seat ``p`` cannot see re-dealt from ``rng`` (see the
    module docstring); ``state`` is only read (``out`` may be ``state`` itself with ``ob == b``)."""
    out[ob] = state[b]
    s = out[ob]
    if s.winner >= 0:
        return
    players = params[0].players
    sizes = np.zeros(MAX_PLAYERS, dtype=np.int64)
    for q in range(players):
        if q != p:
            for v in range(NUM_CARDS):
                sizes[q] += s.hands[q, v]
    own_lowest = NUM_CARDS
    for v in range(NUM_CARDS - 1, -1, -1):
        if s.hands[p, v] or s.played[p, v]:
            own_lowest = v
    pool = np.empty(NUM_CARDS, dtype=np.int64)
    n_pool = 0
    forced = 0
    if rng.shape[0] > 1 and rng[1] & FORGET_SEEN:  # no card counting: every card not in p's hand
        for v in range(NUM_CARDS):
            if not s.hands[p, v]:
                pool[n_pool] = v
                n_pool += 1
        s.out_of_play[:] = 0
        shuffle(pool[:n_pool], rng)
        _deal(s, p, players, pool, n_pool, 0, sizes)
        return
    for v in range(NUM_CARDS):
        if s.hands[p, v]:
            continue
        seen = False
        for q in range(players):
            if s.played[q, v]:
                seen = True
        if not seen:
            pool[n_pool] = v
            n_pool += 1
            if s.leader == p and v < own_lowest:
                forced += 1  # below the lowest card dealt: never dealt
    s.out_of_play[:] = 0
    if s.leader == p:
        shuffle(pool[forced:n_pool], rng)
        _deal(s, p, players, pool, n_pool, forced, sizes)
        return
    for _ in range(MAX_TRIES):
        shuffle(pool[:n_pool], rng)
        s.out_of_play[:] = 0
        _deal(s, p, players, pool, n_pool, 0, sizes)
        if _leader_holds_lowest(s, players):
            return
