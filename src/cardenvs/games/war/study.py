"""War: the exact sweep probability and a Monte Carlo study of game lengths.

* :func:`p_sweep` -- the probability that one given player wins every turn of a single pass (26 turns
  with the standard deck), by Norvig's *abstract incremental enumeration*: a deck is abstracted to
  ``deck[i]`` = number of ranks with exactly ``i`` cards left, and the distribution over abstract decks is
  advanced one turn at a time, keeping only the branches where player A won. Exact rational arithmetic is
  available (``exact=True``); the standard deck gives 3.132436174322294e-09.
* :func:`brute_force_p_sweep` -- the twin the tests compare against on small decks: every distinct
  arrangement of the deck (multiset permutations), counted.
* :func:`simulate_lengths` -- numba Monte Carlo of full games under the env's own rules
  (:mod:`.rules`), returning the battles each game took and whether it was truncated.

``cardenvs analyze war`` (the spec's ``studies``) prints all three for the chosen rule options.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from fractions import Fraction
from itertools import permutations

import numpy as np
from numba import njit, prange
from tqdm import tqdm

from cardenvs.core.cards import make_deck
from cardenvs.core.kernels.parallel import CACHE_PARALLEL

from . import rules

HELP = "exact sweep probability and simulated game lengths of War"


def _remove(deck: tuple[int, ...], i: int) -> tuple[int, ...]:
    """Take one card of a rank that has ``i`` cards left."""
    out = list(deck)
    out[i] -= 1
    if i - 1 > 0:
        out[i - 1] += 1
    return tuple(out)


def _check_deck(name: str, ranks: int, suits: int) -> None:
    if ranks < 1 or suits < 1 or (ranks * suits) % 2:
        raise ValueError(f"{name} needs an even, non-empty deck; got ranks={ranks}, suits={suits}")


def p_sweep(ranks: int = 13, suits: int = 4, exact: bool = False) -> float | Fraction:
    """Probability that player A wins every one of the ``ranks * suits // 2`` turns."""
    _check_deck("p_sweep", ranks, suits)
    one = Fraction(1) if exact else 1.0
    start = (0,) * suits + (ranks,)
    dist: dict[tuple[int, ...], Fraction | float] = {start: one}
    cards = ranks * suits
    for _ in range(cards // 2):
        nxt: dict[tuple[int, ...], Fraction | float] = defaultdict(lambda: 0 * one)
        for deck, p in dist.items():
            n = sum(i * c for i, c in enumerate(deck))
            for i in range(1, len(deck)):
                if not deck[i]:
                    continue
                p_i = one * (i * deck[i]) / n  # A picks a card of a rank with i left
                deck1 = _remove(deck, i)
                for j in range(1, len(deck1)):
                    if not deck1[j]:
                        continue
                    p_j = one * (j * deck1[j]) / (n - 1)
                    # B's card has the same rank as A's with probability 1/deck1[j] when j == i - 1
                    p_tie = one / deck1[j] if j == i - 1 else 0 * one
                    p_a_wins = (one - p_tie) / 2
                    if p_a_wins:
                        nxt[_remove(deck1, j)] += p * p_i * p_j * p_a_wins
        dist = nxt
    return sum(dist.values(), 0 * one)


def brute_force_p_sweep(ranks: int, suits: int) -> Fraction:
    """Exact sweep probability by enumerating every distinct arrangement of a small deck."""
    _check_deck("brute_force_p_sweep", ranks, suits)
    deck = tuple(r for r in range(ranks) for _ in range(suits))
    if len(deck) > 10:
        raise ValueError(f"brute force is for decks of at most 10 cards; got {len(deck)}")
    arrangements = set(permutations(deck))
    sweeps = sum(all(d[i] > d[i + 1] for i in range(0, len(d), 2)) for d in arrangements)
    return Fraction(sweeps, len(arrangements))


@njit(cache=CACHE_PARALLEL, parallel=True)
def _simulate(
    state: np.ndarray, decks: np.ndarray, seeds: np.ndarray, params: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Game ``g`` dealt from ``decks[g]`` (shuffle stream ``seeds[g]``) into ``state[g]`` and played out."""
    n = decks.shape[0]
    lengths = np.zeros(n, dtype=np.int64)
    results = np.zeros(n, dtype=np.int64)
    for g in prange(n):
        rules.deal(state, g, decks[g], seeds[g])
        rules.play_out(state, g, params)
        lengths[g] = state[g].battles
        results[g] = state[g].result
    return lengths, results


def simulate_lengths(
    games: int,
    seed: int = 0,
    war_face_down: int = 1,
    shuffle_won: bool = False,
    single_pass: bool = False,
    max_turns: int = 5000,
    progress: bool = False,
) -> dict[str, np.ndarray]:
    """Play ``games`` random deals to the end; returns ``lengths`` (battles), ``truncated`` and ``result``
    (-1 running at truncation, 0 / 1 winner, 2 draw). ``progress``: a bar on stderr."""
    rng = np.random.default_rng(seed)
    deck = make_deck()
    params = rules.make_params(war_face_down, shuffle_won, single_pass, max_turns)
    lengths, results = [], []
    bar = tqdm(total=games, desc="war games", unit="game", disable=not progress)
    for start in range(0, games, 20_000):
        count = min(20_000, games - start)
        decks = np.stack([rng.permutation(deck) for _ in range(count)]).astype(np.int16)
        seeds = rng.integers(1, 2**62, size=count)
        battles, result = _simulate(np.zeros(count, dtype=rules.STATE), decks, seeds, params)
        lengths.append(battles)
        results.append(result)
        bar.update(count)
    bar.close()
    lengths_all = np.concatenate(lengths)
    results_all = np.concatenate(results)
    return {"lengths": lengths_all, "result": results_all, "truncated": results_all == rules.NO_RESULT}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=20_000, help="games to simulate (default 20000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--war-face-down", type=int, default=1, choices=range(4))
    parser.add_argument("--shuffle-won", action="store_true")
    parser.add_argument("--max-turns", type=int, default=5000)
    parser.add_argument("--ranks", type=int, default=13, help="ranks in the deck for the sweep probability")
    parser.add_argument("--suits", type=int, default=4, help="suits in the deck for the sweep probability")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def run(args: argparse.Namespace) -> int:
    p = p_sweep(args.ranks, args.suits)
    print(f"P(a given player sweeps a single pass) = {p:.15e}  (deck of {args.ranks} ranks x {args.suits} suits)")
    print(f"one sweep (either player) in about {1 / (2 * p):,.0f} games")
    sim = simulate_lengths(
        args.games, args.seed, args.war_face_down, args.shuffle_won, False, args.max_turns, not args.no_progress
    )
    lengths = sim["lengths"]
    ended = ~sim["truncated"]
    print(
        f"\nsimulated {args.games:,} full games (war_face_down={args.war_face_down}, "
        f"shuffle_won={args.shuffle_won}, max_turns={args.max_turns}, seed={args.seed}):"
    )
    if ended.any():
        done = lengths[ended]
        print(
            f"  battles per finished game: mean {done.mean():.1f}, median {np.median(done):.0f}, "
            f"99th percentile {np.percentile(done, 99):.0f}"
        )
    print(f"  share that never ended (truncated at {args.max_turns}): {sim['truncated'].mean():.4f}")
    draws = (sim["result"] == rules.DRAW).mean()
    print(f"  share drawn (both out of cards in a war): {draws:.4f}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    parser = argparse.ArgumentParser(description=HELP)
    add_arguments(parser)
    raise SystemExit(run(parser.parse_args()))
