"""The Twos bomb study: how often a dealt hand holds an ``n x L`` run, by simulation and exactly.

* :func:`run_census` -- the document's Rust program, in numba and parallel over the cores: shuffle a
  52-card deck, deal ``52 // hand_size`` hands from it, and count the hands that hold at least one
  ``n x L`` run (L consecutive ranks with at least n cards each, no wrap-around) for every n in 1..4 and
  L in 1..13. Runs are detected with the shared encoder (:func:`cardenvs.core.encoding.longest_runs`).
  The shuffles use xorshift64* streams seeded from a ``np.random.Generator``.
* :func:`run_probabilities` -- the same quantities exactly, and :func:`rarity_order` -- the valid bombs
  from most to least likely at a hand size (Twos' ``bomb_order="rarity"`` makes the rarest the strongest).
  Both live in :mod:`.bombs`, which the rules need; they are re-exported here.

* :func:`deck_probabilities` -- the same probabilities for a hand drawn from ``decks`` shuffled 52-card decks
  (4k cards of each rank), or with replacement (every card independent: the "effectively infinite deck" of
  the Twos document), exactly: the same dynamic program over the ranks with Python integers, weighting a
  rank holding c cards by C(4k, c) (of C(52k, h) hands), or by C(cards left, c) (of 13^h rank sequences).
  Runs ask for at least n cards of a rank, n up to 4, as with one deck. :func:`simulate_hands` draws such
  hands with NumPy (multivariate hypergeometric or multinomial rank counts) to check it, and
  :func:`order_of` ranks the valid bombs as :func:`rarity_order` does.

``cardenvs analyze bombs --hand-size 20 [--hands N]`` (a study the spec declares) prints the tables with the exact
probability and expected count beside each Monte Carlo count; ``--decks K`` or ``--with-replacement`` does
the same for hands from K decks or an infinite deck; ``--deck-sweep 1,2,4,8`` prints the valid bombs'
probabilities and rarity order at each K and with replacement, and whether the order changes.
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction
from math import comb

import numpy as np
from numba import get_num_threads, njit, prange
from tqdm import tqdm

from cardenvs.core import encoding
from cardenvs.core.kernels.parallel import CACHE_PARALLEL
from cardenvs.core.rng import uniform_index

from .bombs import MAX_L, MAX_N, RANKS, check_hand_size, is_bomb, rarity_order, run_probabilities

Shape = tuple[int, int]

HELP = "how often Twos hands hold each n x L run: Monte Carlo census, exact probabilities, the rarity order"
_RANK_OF_CARD = np.arange(52, dtype=np.int64) // 4  # cards 0..51 as 4 x 13 ranks (rank order is immaterial)


@njit(cache=CACHE_PARALLEL, parallel=True)
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


def check_source(hand_size: int, decks: int | None) -> None:
    """``decks``: a number of decks >= 1, or None for drawing with replacement."""
    if decks is not None and (isinstance(decks, bool) or not isinstance(decks, int) or decks < 1):
        raise ValueError(f"decks must be an integer >= 1, got {decks!r}")
    limit = 52 if decks is None else min(52, 52 * decks)
    if not 1 <= hand_size <= limit:
        raise ValueError(f"hand_size must be from 1 to {limit}, got {hand_size}")


def _no_run_weight(hand_size: int, n: int, length: int, decks: int | None) -> int:
    """Weight of the hands with no ``n x length`` run (module doc: the dynamic program, Python integers)."""
    most = hand_size if decks is None else min(hand_size, 4 * decks)
    # ways[k][s]: weight of rank prefixes using k cards whose current stretch of >= n ranks has length s
    ways = [[0] * length for _ in range(hand_size + 1)]
    ways[0][0] = 1
    for _ in range(RANKS):
        nxt = [[0] * length for _ in range(hand_size + 1)]
        for k in range(hand_size + 1):
            for s, w in enumerate(ways[k]):
                if not w:
                    continue
                for c in range(min(most, hand_size - k) + 1):
                    s2 = s + 1 if c >= n else 0
                    if s2 < length:
                        nxt[k + c][s2] += w * (comb(hand_size - k, c) if decks is None else comb(4 * decks, c))
        ways = nxt
    return sum(ways[hand_size])


def deck_probabilities(hand_size: int, decks: int | None = 1) -> dict[Shape, tuple[float, Fraction]]:
    """{(n, L): (probability, exact Fraction)} that a ``hand_size``-card hand holds an n x L run when drawn
    from ``decks`` shuffled decks, or with replacement (``decks=None``)."""
    check_source(hand_size, decks)
    total = RANKS**hand_size if decks is None else comb(52 * decks, hand_size)
    out = {}
    for n in range(1, MAX_N + 1):
        for length in range(1, MAX_L + 1):
            p = Fraction(total - _no_run_weight(hand_size, n, length, decks), total)
            out[(n, length)] = (float(p), p)
    return out


def order_of(probs: dict[Shape, tuple[float, Fraction]]) -> list[Shape]:
    """The valid bombs from most to least likely (ties: fewer cards first), as :func:`rarity_order`."""
    bombs = [s for s in probs if is_bomb(*s)]
    return sorted(bombs, key=lambda s: (-probs[s][1], s[0] * s[1], s[0]))


def longest_runs_of(counts: np.ndarray) -> np.ndarray:
    """``[H, MAX_N]``: the longest stretch of ranks with >= n cards, n = 1..MAX_N, of rank counts ``[H, 13]``."""
    out = np.zeros((counts.shape[0], MAX_N), dtype=np.int64)
    for n in range(1, MAX_N + 1):
        current = np.zeros(counts.shape[0], dtype=np.int64)
        for r in range(counts.shape[1]):
            current = np.where(counts[:, r] >= n, current + 1, 0)
            out[:, n - 1] = np.maximum(out[:, n - 1], current)
    return out


def simulate_hands(hand_size: int, hands: int, decks: int | None, seed: int = 0) -> dict[Shape, int]:
    """{(n, L): hands holding an n x L run} over ``hands`` hands drawn from ``decks`` shuffled decks (the
    rank counts of one hand, multivariate hypergeometric) or with replacement (``None``: multinomial)."""
    check_source(hand_size, decks)
    if hands < 1:
        raise ValueError(f"hands must be at least 1, got {hands}")
    rng = np.random.default_rng(seed)
    counts = np.zeros((MAX_N, MAX_L), dtype=np.int64)
    for start in range(0, hands, 200_000):
        size = min(200_000, hands - start)
        if decks is None:
            ranks = rng.multinomial(hand_size, np.full(RANKS, 1.0 / RANKS), size=size)
        else:
            ranks = rng.multivariate_hypergeometric(np.full(RANKS, 4 * decks), hand_size, size=size)
        longest = longest_runs_of(ranks)
        for n in range(MAX_N):
            for length in range(MAX_L):
                counts[n, length] += int((longest[:, n] > length).sum())
    return {(n, length): int(counts[n - 1, length - 1]) for n in range(1, MAX_N + 1) for length in range(1, MAX_L + 1)}


def parse_sweep(text: str) -> list[int]:
    try:
        decks = [int(part) for part in text.split(",")]
    except ValueError:
        raise ValueError(f"--deck-sweep {text!r}: expected deck counts separated by commas, e.g. 1,2,4,8") from None
    if not decks or any(k < 1 for k in decks):
        raise ValueError(f"--deck-sweep {text!r}: every deck count must be >= 1")
    return decks


def deck_sweep(hand_size: int, decks: list[int]) -> None:
    """The valid bombs' probabilities and rarity order at each deck count and with replacement."""
    sources: list[tuple[str, int | None]] = [(f"{k} deck{'s' if k > 1 else ''}", k) for k in decks]
    sources.append(("with replacement", None))
    for _, k in sources:
        check_source(hand_size, k)
    tables = {label: deck_probabilities(hand_size, k) for label, k in sources}
    orders = {label: order_of(probs) for label, probs in tables.items()}
    shapes = [s for s in orders[sources[0][0]] if any(tables[label][s][0] > 0 for label in tables)]
    print(f"{hand_size}-card hands: probability of holding each valid bomb (exact)")
    print(f"{'bomb':6s}" + "".join(f"{label:>18s}" for label in tables))
    for shape in shapes:
        print(f"{shape[0]}x{shape[1]:<4d}" + "".join(f"{tables[label][shape][0]:18.6e}" for label in tables))
    print("\nrarity order, weakest (most likely) to strongest, bombs that can be dealt:")
    first = [s for s in orders[sources[0][0]] if tables[sources[0][0]][s][0] > 0]
    for label, order in orders.items():
        dealt = [s for s in order if tables[label][s][0] > 0]
        same = [s for s in dealt if s in first] == [s for s in first if s in dealt]
        print(
            f"  {label:17s} {', '.join(f'{n}x{length}' for n, length in dealt)}"
            f"{'' if same else '   <- differs from ' + sources[0][0]}"
        )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hand-size", type=int, default=13)
    parser.add_argument("--hands", type=int, default=10_000_000, help="hands to simulate (default 10,000,000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--decks", type=int, default=1, help="hands drawn from this many shuffled decks (default 1)")
    source.add_argument(
        "--with-replacement", action="store_true", help="hands drawn with replacement (an infinite deck)"
    )
    source.add_argument(
        "--deck-sweep",
        metavar="K,K,...",
        help="the valid bombs' exact probabilities and rarity order at each deck count and with replacement",
    )


def run(args: argparse.Namespace) -> int:
    if args.deck_sweep is not None:
        deck_sweep(args.hand_size, parse_sweep(args.deck_sweep))
        return 0
    decks: int | None = None if args.with_replacement else args.decks
    start = time.perf_counter()
    if decks == 1:
        probs = run_probabilities(args.hand_size)
    else:
        probs = deck_probabilities(args.hand_size, decks)
    exact_time = time.perf_counter() - start
    start = time.perf_counter()
    if decks == 1:
        counts = run_census(args.hand_size, args.hands, args.seed, progress=not args.no_progress)
        dealt = census_hands(args.hand_size, args.hands)
        how = "numba, parallel; compile included on a first run"
    else:
        counts = simulate_hands(args.hand_size, args.hands, decks, args.seed)
        dealt = args.hands
        how = "numpy rank counts, " + ("with replacement" if decks is None else f"from {decks} decks")
    census_time = time.perf_counter() - start
    print(
        f"{args.hand_size}-card hands: {dealt:,} simulated in {census_time:.2f} s ({how}), exact table in "
        f"{exact_time:.3f} s"
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
    order = rarity_order(args.hand_size) if decks == 1 else order_of(probs)
    print(
        "\nrarity order, weakest (most likely) to strongest: "
        + ", ".join(f"{n}x{length}" for n, length in order if probs[(n, length)][0] > 0)
    )
    impossible = [f"{n}x{length}" for n, length in order if probs[(n, length)][0] == 0]
    if impossible:
        print(f"never dealt at this hand size (ranked strongest, by size): {', '.join(impossible)}")
    return 0
