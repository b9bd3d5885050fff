"""How strong are the heuristics? Each game's declared matches (its spec's ``baselines``: a heuristic
against random players, Twenty's solver against greedy, a role fixed) with 95% intervals; the README's table
comes from this command."""

from __future__ import annotations

import argparse
import math
import sys

import numpy as np
from tqdm import tqdm

from cardenvs.agent import load_agent
from cardenvs.arena import run_tournament
from cardenvs.core import seeds
from cardenvs.core.play import play_episode
from cardenvs.core.spec import Baseline
from cardenvs.registry import env_ids, make, spec_of

COMMAND = "baselines"
HELP = "the heuristics against random players (and solver vs greedy) with 95% intervals"


def deal_by_deal_rate(env_id: str, row: Baseline, games: int, seed: int, progress: bool = False) -> float:
    """The win rate of ``row.agents[row.seat]`` over ``games`` deals played one by one with the row's reset
    options (hand ``g`` from the ``baseline_hands`` seed stream); ``progress``: a bar on stderr."""
    env = make(env_id, **row.options).unwrapped
    agents = {name: load_agent(name, env) for name in row.agents}
    rng = np.random.default_rng(seed)
    wins = 0
    for g in tqdm(range(games), desc=row.label, unit="hand", disable=not progress):
        play_episode(
            env,
            lambda s, obs: agents[row.agents[s]].act(obs, rng),
            seed=seeds.linear_seed(seed, g, stream="baseline_hands"),
            options=row.reset_options,
        )
        wins += env.outcome()[row.seat] > 0
    return wins / games


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every game count (default 1: the README's)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-progress", action="store_true", help="no progress lines and bars on stderr")


def run(args: argparse.Namespace) -> int:
    progress = not args.no_progress
    for env_id in env_ids():
        game = spec_of(env_id).name
        for row in spec_of(env_id).baselines:
            games = max(1, int(row.games * args.scale))
            label = row.label or " vs ".join(row.agents)
            if progress:
                print(f"{game}: {label} {row.options or ''}", file=sys.stderr, flush=True)
            if row.reset_options is None:
                r = run_tournament(
                    env_id,
                    list(row.agents),
                    games,
                    seed=args.seed,
                    options=row.options,
                    duplicate=row.duplicate,
                    progress=progress,
                )
                st = r.stats()[r.agents[row.seat]]
                p, (lo, hi) = st["win_rate"], st["win_rate_ci"]
            else:
                p = deal_by_deal_rate(env_id, row, games, args.seed, progress)
                half = 1.96 * math.sqrt(p * (1 - p) / games)
                lo, hi = p - half, p + half
            print(
                f"{game:15s} {label:55s} {str(row.options or ''):40s} {games:5d} deals: "
                f"win rate {p:.3f} [{lo:.3f}, {hi:.3f}]",
                flush=True,
            )
    return 0
