"""How strong are the heuristics? Seeded matches of every game's heuristic against random players
(and Twenty's solver against greedy), with 95% intervals; the README's table comes from this command."""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

import numpy as np
from tqdm import tqdm

from cardenvs.agent import load_agent
from cardenvs.arena import run_tournament
from cardenvs.core import seeds
from cardenvs.core.env import play_episode
from cardenvs.registry import make

COMMAND = "baselines"
HELP = "the heuristics against random players (and solver vs greedy) with 95% intervals"


def doudizhu_role_rate(role: str, hands: int, seed: int, progress: bool = False) -> tuple[float, float, float]:
    """Win rate of doudizhu.rule as landlord (seat 0) or as a farmer (seat 1), random elsewhere, bid 1;
    ``progress``: a bar on stderr."""
    env = make("doudizhu").unwrapped
    rule, rnd = load_agent("doudizhu.rule", env), load_agent("random", env)
    seat = 0 if role == "landlord" else 1
    rng = np.random.default_rng(seed)
    wins = 0
    for g in tqdm(range(hands), desc=f"doudizhu.rule as {role}", unit="hand", disable=not progress):
        play_episode(
            env,
            lambda s, obs: (rule if s == seat else rnd).act(obs, rng),
            seed=seeds.linear_seed(seed, g, stream="baseline_hands"),
            options={"landlord": 0, "bid": 1},
        )
        wins += env.outcome()[seat] > 0
    p = wins / hands
    half = 1.96 * math.sqrt(p * (1 - p) / hands)
    return p, p - half, p + half


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every game count (default 1: the README's)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-progress", action="store_true", help="no progress lines and bars on stderr")


def run(args: argparse.Namespace) -> int:
    k = args.scale
    progress = not args.no_progress

    def n(x):
        return max(1, int(x * k))

    rows: list[tuple[str, list[str], int, dict[str, Any], bool]] = [
        ("twos", ["twos.heuristic", "random", "random"], n(1000), {}, False),
        ("twenty", ["twenty.greedy", "random"], n(500), {}, True),
        ("twenty", ["twenty.solver", "twenty.greedy"], n(500), {"exposed_hands": True, "swap_deals": True}, True),
        ("two_way_street", ["two_way_street.heuristic", "random", "random", "random"], n(100), {}, True),
        ("two_way_street", ["two_way_street.heuristic", "random"], n(200), {"players": 2}, True),
    ]
    for game, agents, games, options, duplicate in rows:
        if progress:
            print(f"{game}: {' vs '.join(agents)} {options or ''}", file=sys.stderr, flush=True)
        r = run_tournament(game, agents, games, seed=args.seed, options=options, duplicate=duplicate, progress=progress)
        st = r.stats()[r.agents[0]]
        lo, hi = st["win_rate_ci"]
        print(
            f"{game:15s} {' vs '.join(agents):55s} {str(options or ''):40s} {games:5d} deals: "
            f"win rate {st['win_rate']:.3f} [{lo:.3f}, {hi:.3f}]",
            flush=True,
        )
    for role in ("landlord", "farmer"):
        p, lo, hi = doudizhu_role_rate(role, n(2000), args.seed, progress)
        print(
            f"{'doudizhu':15s} doudizhu.rule as {role} vs random{'':30s} {n(2000):5d} hands: "
            f"win rate {p:.3f} [{lo:.3f}, {hi:.3f}]",
            flush=True,
        )
    return 0
