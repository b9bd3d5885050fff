"""The one numba-compiled hand encoder every game uses.

Forms of a hand, and the conversions between them (all plain numpy arrays, all ``@njit(cache=True)``):

* **card ids**: ``int64[k]``, one entry per card (see :mod:`cardenvs.core.cards`).
* **card counts**: ``int8[NUM_CARD_IDS]``, how many copies of each card id (double decks have 2).
* **bitmask**: ``uint64``, bit ``id`` set for a single-deck hand of ids below 64.
* **rank counts**: ``int8[n_ranks]``, cards per rank under a game's rank order (``rank_of[id]``,
  -1 for cards the order ignores).
* **planes**: ``int8[max_k, n_ranks]``, ``plane[k-1, r] = rank_counts[r] >= k`` ("at least k"); the same
  as one ``uint64`` of bits (:func:`planes_bits`, :func:`planes_bits_rows` for a table) for containment
  tests, written flat into an observation by :func:`write_planes` (from counts) or :func:`write_bits` (from
  the bits, one store per card).

Runs: an ``n x L`` run is ``L`` consecutive ranks with at least ``n`` cards each, no wrap-around; only the
first ``run_ranks`` ranks of the order take part (Dou Dizhu's straights stop at the ace). ``has_run``,
``longest_run``, ``longest_runs`` (per n at once) and ``all_runs`` answer the questions games ask.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from .cards import NUM_CARD_IDS


@njit(cache=True)
def ids_to_counts(card_ids: np.ndarray, num_ids: int = NUM_CARD_IDS) -> np.ndarray:
    """Card ids -> per-card counts."""
    counts = np.zeros(num_ids, dtype=np.int8)
    for card in card_ids:
        counts[card] += 1
    return counts


@njit(cache=True)
def counts_to_ids(card_counts: np.ndarray) -> np.ndarray:
    """Per-card counts -> sorted card ids (duplicates repeated)."""
    total = 0
    for c in card_counts:
        total += c
    out = np.empty(total, dtype=np.int64)
    k = 0
    for card in range(card_counts.shape[0]):
        for _ in range(card_counts[card]):
            out[k] = card
            k += 1
    return out


@njit(cache=True)
def counts_to_bitmask(card_counts: np.ndarray) -> np.uint64:
    """Per-card counts of a single-deck hand (ids < 64, no duplicates) -> bitmask."""
    mask = np.uint64(0)
    for card in range(min(card_counts.shape[0], 64)):
        if card_counts[card] > 0:
            mask |= np.uint64(1) << np.uint64(card)
    return mask


@njit(cache=True)
def bitmask_to_counts(mask: np.uint64, num_ids: int = NUM_CARD_IDS) -> np.ndarray:
    """Bitmask -> per-card counts."""
    counts = np.zeros(num_ids, dtype=np.int8)
    for card in range(min(num_ids, 64)):
        if (mask >> np.uint64(card)) & np.uint64(1):
            counts[card] = 1
    return counts


@njit(cache=True)
def rank_counts(card_counts: np.ndarray, rank_of: np.ndarray, n_ranks: int) -> np.ndarray:
    """Per-card counts -> cards per rank under ``rank_of`` (card id -> rank, -1 = not ranked)."""
    out = np.zeros(n_ranks, dtype=np.int8)
    for card in range(card_counts.shape[0]):
        r = rank_of[card]
        if r >= 0 and card_counts[card] > 0:
            out[r] += card_counts[card]
    return out


@njit(cache=True)
def ids_to_rank_counts(card_ids: np.ndarray, rank_of: np.ndarray, n_ranks: int) -> np.ndarray:
    """Card ids -> cards per rank (the hot path of the bomb census)."""
    out = np.zeros(n_ranks, dtype=np.int8)
    for card in card_ids:
        r = rank_of[card]
        if r >= 0:
            out[r] += 1
    return out


@njit(cache=True)
def at_least_planes(counts: np.ndarray, max_k: int) -> np.ndarray:
    """Rank counts -> ``int8[max_k, n_ranks]`` planes, ``plane[k-1, r] = counts[r] >= k``."""
    planes = np.zeros((max_k, counts.shape[0]), dtype=np.int8)
    for r in range(counts.shape[0]):
        for k in range(min(counts[r], max_k)):
            planes[k, r] = 1
    return planes


@njit(cache=True)
def write_planes(counts: np.ndarray, n_ranks: int, max_k: int, out: np.ndarray, start: int) -> None:
    """:func:`at_least_planes` of ``counts[:n_ranks]`` written flat (k-major) into ``out[start:]`` without
    allocating (observation hot paths); entries already zero stay zero, so ``out`` must be zeroed."""
    for r in range(n_ranks):
        for k in range(min(counts[r], max_k)):
            out[start + n_ranks * k + r] = 1


#: ``COLUMN[c]``: bits ``16 * k`` for ``k < c``, one rank's column of :func:`planes_bits` holding ``c`` cards
COLUMN = np.array([sum(1 << (16 * k) for k in range(c)) for c in range(5)], dtype=np.uint64)


@njit(cache=True)
def planes_bits(counts: np.ndarray, n_ranks: int, max_k: int) -> np.uint64:
    """:func:`at_least_planes` as one ``uint64``: bit ``16 * (k - 1) + r`` is set when ``counts[r] >= k``
    (``n_ranks <= 16``, ``max_k <= 4``). A hand holds a set of cards iff ``need & ~have == 0``, one
    instruction instead of a loop over ranks (Dou Dizhu's move generator)."""
    bits = np.uint64(0)
    for r in range(n_ranks):
        c = max(0, min(counts[r], max_k))
        bits |= COLUMN[c] << np.uint64(r)  # branch-free: the column of c planes, shifted to rank r
    return bits


def planes_bits_rows(counts: np.ndarray, n_ranks: int, max_k: int) -> np.ndarray:
    """:func:`planes_bits` of every row of ``counts`` ``[m, >= n_ranks]`` at once, in numpy (a move table's
    bits at import, with nothing to compile)."""
    c = np.clip(np.asarray(counts)[:, :n_ranks].astype(np.int64), 0, max_k)
    return (COLUMN[c] << np.arange(n_ranks, dtype=np.uint64)).sum(axis=1, dtype=np.uint64)


def bit_positions(n_ranks: int, max_k: int, singles: int = 0) -> np.ndarray:
    """Where each bit of :func:`planes_bits` lands in a flat planes encoding -- the ``max_k`` at-least planes of
    ranks ``0..n_ranks-1`` (k-major, as :func:`write_planes` writes them), then one entry for each of the next
    ``singles`` ranks (``counts >= 1``: Dou Dizhu's jokers): ``int64[64]``, -1 for bits outside it (for
    :func:`write_bits`)."""
    if n_ranks + singles > 16 or max_k > 4:
        raise ValueError(f"planes_bits holds 16 ranks and 4 planes; got {n_ranks + singles} ranks, {max_k} planes")
    where = np.full(64, -1, dtype=np.int64)
    for k in range(max_k):
        where[16 * k : 16 * k + n_ranks] = n_ranks * k + np.arange(n_ranks)
    where[n_ranks : n_ranks + singles] = n_ranks * max_k + np.arange(singles)
    return where


@njit(cache=True)
def write_bits(bits: np.uint64, where: np.ndarray, out: np.ndarray, start: int) -> None:
    """The planes encoding of :func:`planes_bits`'s ``bits`` into the zeroed ``out[start:]``, each set bit
    written at ``start + where[bit]`` (:func:`bit_positions`): one store per card, where :func:`write_planes`
    loops over every rank (a game's move table holds the bits of every move)."""
    while bits:
        at = where[trailing_zeros(bits)]  # type: ignore[call-arg]  # a numba intrinsic (cttz)
        if at >= 0:  # bits outside the encoding (a second joker of a double deck) are left out
            out[start + at] = 1
        bits &= bits - np.uint64(1)


@njit(cache=True)
def planes_to_counts(planes: np.ndarray) -> np.ndarray:
    """Inverse of :func:`at_least_planes` (counts above ``max_k`` saturate at ``max_k``)."""
    out = np.zeros(planes.shape[1], dtype=np.int8)
    for k in range(planes.shape[0]):
        for r in range(planes.shape[1]):
            out[r] += planes[k, r]
    return out


@njit(cache=True)
def longest_run(counts: np.ndarray, n: int, run_ranks: int) -> int:
    """Length of the longest stretch of consecutive ranks (among the first ``run_ranks``) with >= n cards."""
    best = 0
    current = 0
    for r in range(run_ranks):
        if counts[r] >= n:
            current += 1
            if current > best:
                best = current
        else:
            current = 0
    return best


@njit(cache=True)
def has_run(counts: np.ndarray, n: int, length: int, run_ranks: int) -> bool:
    """Whether the hand holds an ``n x length`` run."""
    return longest_run(counts, n, run_ranks) >= length


@njit(cache=True)
def longest_runs(counts: np.ndarray, max_n: int, run_ranks: int) -> np.ndarray:
    """``out[n-1]`` = longest run with at least ``n`` cards a rank, for n = 1..max_n, in one pass."""
    out = np.zeros(max_n, dtype=np.int64)
    current = np.zeros(max_n, dtype=np.int64)
    for r in range(run_ranks):
        c = counts[r]
        for i in range(max_n):
            if c >= i + 1:
                current[i] += 1
                if current[i] > out[i]:
                    out[i] = current[i]
            else:
                current[i] = 0
    return out


@njit(cache=True)
def all_runs(counts: np.ndarray, n: int, min_length: int, run_ranks: int) -> np.ndarray:
    """Every ``n x L`` run with ``L >= min_length`` as rows ``(lowest rank, L)``, ordered by lowest rank, then L."""
    rows = np.empty((run_ranks * run_ranks, 2), dtype=np.int64)
    k = 0
    for start in range(run_ranks):
        length = 0
        while start + length < run_ranks and counts[start + length] >= n:
            length += 1
            if length >= min_length:
                rows[k, 0] = start
                rows[k, 1] = length
                k += 1
    return rows[:k].copy()
