"""How likely a dealt Twos hand is to hold each ``n x L`` run, exactly, and the rarity order of the bombs.

What the rules need from the bomb study (:mod:`.bomb_study`, which imports it from here):
``bomb_order="rarity"`` ranks the bomb shapes by these probabilities, and ``"classic"`` places the shapes
its list does not name by them.

* :func:`run_probabilities` -- the probability that a ``hand_size``-card hand from a 52-card deck holds an
  ``n x L`` run (L consecutive ranks with at least n cards each, no wrap-around), for every n in 1..4 and
  L in 1..13: a dynamic program over the 13 ranks whose state is (cards dealt so far, length of the
  current stretch of ranks with >= n cards), weighting a rank holding c cards by C(4, c); the hands with
  no run are counted in integers and divided by C(52, h).
* :func:`rarity_order` -- the valid bombs (4x1 and n x L with n >= 2, L >= 3) from most to least likely
  at a hand size (ties: fewer cards first).
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

import numpy as np

MAX_N, MAX_L, RANKS = 4, 13, 13


def check_hand_size(hand_size: int) -> None:
    if not 1 <= hand_size <= 52:
        raise ValueError(f"hand_size must be from 1 to 52, got {hand_size}")


def _no_run_counts(hand_size: int) -> np.ndarray:
    """out[n-1, L-1] = number of hands (as sets of cards) with no n x L run. NumPy over (cards, stretch) at
    each rank (a few milliseconds; numba would compile for most of a second at a Twos env's first use)."""
    binom4 = (1, 4, 6, 4, 1)
    out = np.zeros((MAX_N, MAX_L), dtype=np.int64)
    for n in range(1, MAX_N + 1):
        for length in range(1, MAX_L + 1):
            # ways[k, s]: hands using k cards so far whose current stretch of >= n ranks has length s < L
            ways = np.zeros((hand_size + 1, length), dtype=np.int64)
            ways[0, 0] = 1
            for _ in range(RANKS):
                nxt = np.zeros_like(ways)
                for c in range(min(4, hand_size) + 1):
                    if c < n:  # the stretch ends: every s goes to 0
                        nxt[c:, 0] += ways[: hand_size + 1 - c].sum(axis=1) * binom4[c]
                    elif length > 1:  # the stretch grows: s goes to s + 1 while it stays below L
                        nxt[c:, 1:] += ways[: hand_size + 1 - c, :-1] * binom4[c]
                ways = nxt
            out[n - 1, length - 1] = ways[hand_size].sum()
    return out


def run_probabilities(hand_size: int) -> dict[tuple[int, int], tuple[float, Fraction]]:
    """{(n, L): (probability as float, exact Fraction)} that a ``hand_size``-card hand holds an n x L run."""
    check_hand_size(hand_size)
    hands = comb(52, hand_size)
    no_run = _no_run_counts(hand_size)
    out = {}
    for n in range(1, MAX_N + 1):
        for length in range(1, MAX_L + 1):
            p = Fraction(hands - int(no_run[n - 1, length - 1]), hands)
            out[(n, length)] = (float(p), p)
    return out


def is_bomb(n: int, length: int) -> bool:
    return (n == 4 and length == 1) or (n >= 2 and length >= 3)


def rarity_order(hand_size: int) -> list[tuple[int, int]]:
    """Valid bomb shapes from most to least likely at this hand size (ties: fewer cards first)."""
    probs = run_probabilities(hand_size)
    bombs = [s for s in probs if is_bomb(*s)]
    return sorted(bombs, key=lambda s: (-probs[s][1], s[0] * s[1], s[0]))
