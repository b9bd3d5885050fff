"""A game's pairings study (:class:`cardenvs.core.spec.Pairings`, declared in its spec's ``studies``): every
pair of agents over duplicate deals under each of the game's option sets, the first agent's mean point margin
over the second with a 95% interval over duplicate sets (Twenty's ``cardenvs analyze twenty-variants``: the
solver against greedy and random, hands hidden and exposed)."""

from __future__ import annotations

import argparse
import sys

from cardenvs.arena import run_tournament
from cardenvs.core.spec import Pairings


class PairingsStudy:
    """The ``cardenvs analyze`` subcommand of one game's :class:`Pairings` (``HELP``, ``add_arguments``,
    ``run``, as a study module has them)."""

    def __init__(self, env_id: str, pairings: Pairings):
        self.env_id, self.pairings = env_id, pairings
        self.HELP = pairings.help

    def margins(self, matches: int, seed: int, workers: int = 1, progress: bool = False) -> list[dict]:
        """Every pairing under every option set; with ``progress`` a line per pairing and the arena's bar on
        stderr (a search agent's pairings take minutes at the default size)."""
        study = self.pairings
        rows: list[dict] = []
        total = len(study.variants) * len(study.pairs)
        for label, options in study.variants.items():
            for a, b in study.pairs:
                if progress:
                    print(f"[{len(rows) + 1}/{total}] {study.column} {label}: {a} vs {b}", file=sys.stderr, flush=True)
                results = run_tournament(
                    self.env_id, [a, b], matches, seed=seed, workers=workers, options=options, progress=progress
                )
                h2h = results.head_to_head()[a][b]
                rows.append(
                    {
                        "variant": label,
                        "agent": a,
                        "opponent": b,
                        "margin": h2h["score_margin"],
                        "ci": h2h["score_margin_ci"],
                        "win_rate": results.stats()[a]["win_rate"],
                        "games": h2h["games"],
                    }
                )
        return rows

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        default = self.pairings.matches
        parser.add_argument(
            "--matches", type=int, default=default, help=f"duplicate deals per pairing (default {default})"
        )
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--workers", type=int, default=1)
        parser.add_argument("--no-progress", action="store_true", help="no progress lines and bars on stderr")

    def run(self, args: argparse.Namespace) -> int:
        study = self.pairings
        rows = self.margins(args.matches, args.seed, args.workers, progress=not args.no_progress)
        print(f"{study.title}, {args.matches} duplicate deals per pairing (seed {args.seed})")
        print(
            f"{study.column:8s} {'agent':14s} {'vs':14s} {'mean margin':>12s} {'95% CI':>20s} {'win rate':>9s} "
            f"{'games':>6s}"
        )
        for r in rows:
            lo, hi = r["ci"]
            print(
                f"{r['variant']:8s} {r['agent']:14s} {r['opponent']:14s} {r['margin']:12.2f} [{lo:8.2f}, {hi:8.2f}] "
                f"{r['win_rate']:9.3f} {r['games']:6d}"
            )
        first = {r["variant"]: r["margin"] for r in rows if (r["agent"], r["opponent"]) == study.pairs[0]}
        print()
        for label, text in study.summary.items():
            print(f"{text}: {first[label]:+.2f} points")
        return 0
