"""Twos: the bomb census against the document's Rust program, the exact table, and move generation.

References: the document's Rust program takes about 40 s for 10,000,000 hands of 13 cards on this 2-core
machine (a stated figure, not re-measured: it cannot be built here); measured in the same run, a plain
numpy census (argsort shuffles, bincount, run scan) on a smaller sample, scaled per hand.
"""

from __future__ import annotations

import time

import numpy as np

from cardenvs.games.twos.bomb_study import run_census, run_probabilities

from .common import row

RUST_SECONDS_10M = 40.0


def numpy_census(hands: int, hand_size: int = 13, seed: int = 0) -> np.ndarray:
    """The same counts with vectorised numpy (the same-run reference)."""
    rng = np.random.default_rng(seed)
    per_deal = 52 // hand_size
    deals = -(-hands // per_deal)
    ranks = np.arange(52) // 4
    decks = np.argsort(rng.random((deals, 52)), axis=1)
    hand_ranks = ranks[decks[:, : per_deal * hand_size]].reshape(deals * per_deal, hand_size)
    counts = np.zeros((len(hand_ranks), 13), dtype=np.int64)
    np.add.at(counts, (np.repeat(np.arange(len(hand_ranks)), hand_size), hand_ranks.ravel()), 1)
    out = np.zeros((4, 13), dtype=np.int64)
    for n in range(1, 5):
        ok = counts >= n
        run = np.zeros(len(ok), dtype=np.int64)
        best = np.zeros(len(ok), dtype=np.int64)
        for r in range(13):
            run = np.where(ok[:, r], run + 1, 0)
            best = np.maximum(best, run)
        for length in range(1, 14):
            out[n - 1, length - 1] = (best >= length).sum()
    return out


def run(quick: bool = False) -> list[dict]:
    hands = 2_000_000 if quick else 10_000_000
    run_census(13, 1000)  # compile
    start = time.perf_counter()
    run_census(13, hands, seed=1)
    census = time.perf_counter() - start
    per_10m = census * 10_000_000 / hands
    sample = 200_000
    start = time.perf_counter()
    numpy_census(sample)
    numpy_per_10m = (time.perf_counter() - start) * 10_000_000 / sample
    run_probabilities(13)  # compile
    start = time.perf_counter()
    for size in range(1, 27):
        run_probabilities(size)
    exact = (time.perf_counter() - start) / 26
    return [
        row(
            "twos bomb census, 10M hands of 13",
            per_10m,
            "s",
            "Rust program (40 s, stated)",
            RUST_SECONDS_10M / per_10m,
            f"numba prange over both cores; measured on {hands:,} hands",
        ),
        row(
            "twos bomb census, numpy reference",
            numpy_per_10m,
            "s",
            "numba census",
            numpy_per_10m / per_10m,
            f"vectorised numpy, {sample:,} hands scaled to 10M; ratio = how many times slower than ours",
        ),
        row("twos exact table (one hand size)", exact * 1000, "ms", note="DP over ranks, mean over hand sizes 1..26"),
    ]
