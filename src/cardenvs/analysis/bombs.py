"""The Twos bomb study: how often a dealt hand holds an ``n x L`` run, by simulation and exactly.

* :func:`run_census` -- the document's Rust program, in numba and parallel over the cores: shuffle a
  52-card deck, deal ``52 // hand_size`` hands from it, and count the hands that hold at least one
  ``n x L`` run (L consecutive ranks with at least n cards each, no wrap-around) for every n in 1..4 and
  L in 1..13. Runs are detected with the shared encoder (:func:`cardenvs.core.encoding.longest_runs`).
  The shuffles use xorshift64* streams seeded from a ``np.random.Generator``.
* :func:`run_probabilities` -- the same quantities exactly, and :func:`rarity_order` -- the valid bombs
  from most to least likely at a hand size (Twos' ``bomb_order="rarity"`` makes the rarest the strongest).
  Both live with the game (:mod:`cardenvs.games.twos.bombs`), whose rules need them; they are re-exported
  here.

``cardenvs analyze bombs --hand-size 20 [--hands N]`` prints the document's tables with the exact
probability and expected count beside each Monte Carlo count.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import get_num_threads, njit, prange
from tqdm import tqdm

from cardenvs.core import encoding
from cardenvs.core.rng import uniform_index
from cardenvs.games.twos.bombs import MAX_L, MAX_N, RANKS, check_hand_size, is_bomb, rarity_order, run_probabilities

COMMAND = "bombs"
HELP = "how often Twos hands hold each n x L run: Monte Carlo census, exact probabilities, the rarity order"
_RANK_OF_CARD = np.arange(52, dtype=np.int64) // 4  # cards 0..51 as 4 x 13 ranks (rank order is immaterial)


@njit(cache=True, parallel=True)
def _census(hand_size: int, deals: int, seeds: np.ndarray, rank_of: np.ndarray, first: int, last: int) -> np.ndarray:
    """The counts of chunks ``first..last-1`` of the ``deals`` deals split over ``len(seeds)`` chunks (chunk
    ``c`` deals its share from stream ``seeds[c]``), so running the chunks in pieces gives the same counts."""
    chunks = seeds.shape[0]
    per_chunk = np.zeros((chunks, MAX_N, MAX_L), dtype=np.int64)
    hands_per_deal = 52 // hand_size
    for chunk in prange(first, last):
        state = np.array([seeds[chunk]], dtype=np.uint64)
        deck = np.arange(52, dtype=np.int64)
        start = chunk * deals // chunks
        stop = (chunk + 1) * deals // chunks
        for _ in range(start, stop):
            for i in range(51, 0, -1):  # Fisher-Yates
                j = uniform_index(state, i + 1)
                deck[i], deck[j] = deck[j], deck[i]
            for h in range(hands_per_deal):
                counts = encoding.ids_to_rank_counts(deck[h * hand_size : (h + 1) * hand_size], rank_of, RANKS)
                longest = encoding.longest_runs(counts, MAX_N, RANKS)
                for n in range(MAX_N):
                    for length in range(longest[n]):
                        per_chunk[chunk, n, length] += 1
    return per_chunk.sum(axis=0)


def run_census(hand_size: int, hands: int, seed: int = 0, progress: bool = False) -> dict[tuple[int, int], int]:
    """{(n, L): hands holding an n x L run} over ``hands`` hands (rounded up to whole deals); ``progress``: a
    bar on stderr (the 64 chunks then run a few at a time; the same counts)."""
    check_hand_size(hand_size)
    if hands < 1:
        raise ValueError(f"hands must be at least 1, got {hands}")
    per_deal = 52 // hand_size
    deals = -(-hands // per_deal)
    rng = np.random.default_rng(seed)
    seeds = rng.integers(1, 2**63 - 1, size=64, dtype=np.int64).astype(np.uint64)
    step = max(8, 2 * get_num_threads()) if progress else len(seeds)
    counts = np.zeros((MAX_N, MAX_L), dtype=np.int64)
    with tqdm(total=deals * per_deal, desc="hands dealt", unit="hand", unit_scale=True, disable=not progress) as bar:
        for first in range(0, len(seeds), step):
            last = min(len(seeds), first + step)
            counts += _census(hand_size, deals, seeds, _RANK_OF_CARD, first, last)
            bar.update((last * deals // len(seeds) - first * deals // len(seeds)) * per_deal)
    return {(n, length): int(counts[n - 1, length - 1]) for n in range(1, MAX_N + 1) for length in range(1, MAX_L + 1)}


def census_hands(hand_size: int, hands: int) -> int:
    """Hands actually dealt by :func:`run_census` (whole deals)."""
    per_deal = 52 // hand_size
    return -(-hands // per_deal) * per_deal


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hand-size", type=int, default=13)
    parser.add_argument("--hands", type=int, default=10_000_000, help="hands to simulate (default 10,000,000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def run(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    probs = run_probabilities(args.hand_size)
    exact_time = time.perf_counter() - start
    start = time.perf_counter()
    counts = run_census(args.hand_size, args.hands, args.seed, progress=not args.no_progress)
    census_time = time.perf_counter() - start
    dealt = census_hands(args.hand_size, args.hands)
    print(
        f"{args.hand_size}-card hands: {dealt:,} simulated in {census_time:.2f} s (numba, parallel; compile "
        f"included on a first run), exact table in {exact_time:.3f} s"
    )

    def table(title, shapes):
        print(f"\n{title}\n{'run':>5s} {'hands (MC)':>12s} {'expected':>14s} {'probability':>14s}  exact")
        for s in sorted(shapes, key=lambda s: (counts[s], probs[s][0])):
            if counts[s] == 0 and probs[s][0] == 0:
                continue
            p, frac = probs[s]
            exact = (
                str(frac)
                if len(str(frac)) < 40
                else f"{frac.numerator}/... ({len(str(frac.denominator))}-digit denominator)"
            )
            print(f"{s[0]}x{s[1]:<3d} {counts[s]:12,d} {p * dealt:14,.1f} {p:14.6e}  {exact}")

    table("all runs (hands holding at least one):", list(probs))
    table("valid bombs:", [s for s in probs if is_bomb(*s)])
    order = rarity_order(args.hand_size)
    print(
        "\nrarity order, weakest (most likely) to strongest: "
        + ", ".join(f"{n}x{length}" for n, length in order if probs[(n, length)][0] > 0)
    )
    impossible = [f"{n}x{length}" for n, length in order if probs[(n, length)][0] == 0]
    if impossible:
        print(f"never dealt at this hand size (ranked strongest, by size): {', '.join(impossible)}")
    return 0
