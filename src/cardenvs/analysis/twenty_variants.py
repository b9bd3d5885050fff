"""Twenty: the solver's margin over greedy with hands exposed, beside the other pairings.

Plays every pair of ``twenty.solver``, ``twenty.greedy`` and ``random`` over duplicate deals with
``swap_deals=True`` (each match plays a deck twice with the hands exchanged, and the arena replays each
match with the seats swapped), once with hands hidden and once exposed, and prints the mean point margin
of the first agent over the second with a 95% interval over duplicate sets.

What it measures: what the round solver (:func:`cardenvs.games.twenty.solver.solve_round`, via
``twenty.solver``) gains over one-ply greedy play, with hands exposed and with hands hidden. The solver is
exact in round 2 (every card is known from round 1, hidden or exposed) and in the last hand of a round;
elsewhere it estimates the later deals by sampling and, with hands hidden, averages over sampled opponent
hands. So the margins are those of this solver, not of perfect play; the difference between the exposed
and hidden rows is what seeing the opponent's hand is worth to this solver, not to a perfect player.
"""

from __future__ import annotations

import argparse
import sys

from cardenvs.arena import run_tournament

COMMAND = "twenty-variants"
HELP = "solver, greedy and random against each other, hands hidden and exposed: point margins with 95% CIs"
PAIRS = [("twenty.solver", "twenty.greedy"), ("twenty.solver", "random"), ("twenty.greedy", "random")]


def margins(matches: int, seed: int, workers: int = 1, progress: bool = False) -> list[dict]:
    """Every pairing, hands hidden then exposed; with ``progress`` a line per pairing and the arena's bar on
    stderr (the solver's pairings take minutes at the default size)."""
    rows: list[dict] = []
    for exposed in (False, True):
        for a, b in PAIRS:
            if progress:
                hands = "exposed" if exposed else "hidden"
                print(f"[{len(rows) + 1}/{2 * len(PAIRS)}] hands {hands}: {a} vs {b}", file=sys.stderr, flush=True)
            results = run_tournament(
                "twenty_v0",
                [a, b],
                matches,
                seed=seed,
                workers=workers,
                options={"swap_deals": True, "exposed_hands": exposed},
                progress=progress,
            )
            h2h = results.head_to_head()[a][b]
            rows.append(
                {
                    "hands": "exposed" if exposed else "hidden",
                    "agent": a,
                    "opponent": b,
                    "margin": h2h["score_margin"],
                    "ci": h2h["score_margin_ci"],
                    "win_rate": results.stats()[a]["win_rate"],
                    "games": h2h["games"],
                }
            )
    return rows


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--matches", type=int, default=200, help="duplicate deals per pairing (default 200)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--no-progress", action="store_true", help="no progress lines and bars on stderr")


def run(args: argparse.Namespace) -> int:
    rows = margins(args.matches, args.seed, args.workers, progress=not args.no_progress)
    print(f"Twenty, swap_deals=True, {args.matches} duplicate deals per pairing (seed {args.seed})")
    print(f"{'hands':8s} {'agent':14s} {'vs':14s} {'mean margin':>12s} {'95% CI':>20s} {'win rate':>9s} {'games':>6s}")
    for r in rows:
        lo, hi = r["ci"]
        print(
            f"{r['hands']:8s} {r['agent']:14s} {r['opponent']:14s} {r['margin']:12.2f} [{lo:8.2f}, {hi:8.2f}] "
            f"{r['win_rate']:9.3f} {r['games']:6d}"
        )
    hidden = {(r["agent"], r["opponent"]): r["margin"] for r in rows if r["hands"] == "hidden"}
    exposed = {(r["agent"], r["opponent"]): r["margin"] for r in rows if r["hands"] == "exposed"}
    print(
        f"\nsolver's margin over greedy with hands exposed (round solver: exact in round 2 and in last hands, "
        f"sampled later deals elsewhere): {exposed[PAIRS[0]]:+.2f} points"
    )
    print(
        f"solver's margin over greedy with hands hidden (the same solver averaged over sampled opponent "
        f"hands; exact in round 2): {hidden[PAIRS[0]]:+.2f} points"
    )
    return 0
