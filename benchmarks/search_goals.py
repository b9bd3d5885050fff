"""Issue 17's search goals on duplicate deals (a script, not a registered benchmark).

Deal ``d`` is the arena's (``arena.game_seed(seed, d)``, agent rng ``arena.agent_rng(seed, d, k)``), so the
same deals as ``cardenvs arena GAME --seed SEED``. Dou Dizhu (player_0 landlord at bid 1, as the arena's
duplicate mode): per deal, the searcher as landlord against two ``doudizhu.rule`` farmers, both farmers
searching against a ``doudizhu.rule`` landlord, and the all-rule game for the rule agent's own rates in the
same seats. Twos: the searcher in each seat against two ``twos.heuristic`` (3 games a deal).

    python benchmarks/search_goals.py doudizhu "doudizhu.pimc(ms=100)" --deals 200 --seed 17
    python benchmarks/search_goals.py twos "twos.ismcts(ms=100)" --deals 200 --seed 17
"""

from __future__ import annotations

import argparse
import json
import math
import time

import numpy as np

from cardenvs import make
from cardenvs.agent import load_agent
from cardenvs.arena import agent_rng, game_seed, play_one


class Timed:
    """Wraps an agent and records the wall time of each ``act``."""

    def __init__(self, agent):
        self.agent = agent
        self.name = agent.name
        self.times: list[float] = []

    def act(self, observation, rng):
        t = time.perf_counter()
        a = self.agent.act(observation, rng)
        self.times.append(time.perf_counter() - t)
        return a


def ci(values) -> str:
    x = np.asarray(values, dtype=float)
    half = 1.959963984540054 * x.std(ddof=1) / math.sqrt(len(x)) if len(x) > 1 else math.nan
    return f"{x.mean():.3f} [{x.mean() - half:.3f}, {x.mean() + half:.3f}] (n={len(x)})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("game", choices=["doudizhu", "twos"])
    parser.add_argument("searcher")
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--out")
    args = parser.parse_args()
    env = make(args.game)
    base = env.unwrapped
    searcher = Timed(load_agent(args.searcher, base))
    env.reset(seed=0)
    searcher.agent.search(0)  # compile (or load the numba cache) before anything is timed
    rows = []
    start = time.time()
    if args.game == "doudizhu":
        rule = load_agent("doudizhu.rule", base)
        searcher2 = Timed(load_agent(args.searcher, base))
        opts = {"landlord": 0, "bid": 1}
        for d in range(args.deals):
            seed = game_seed(args.seed, d)
            r_rule = play_one(env, [rule, rule, rule], ["r", "r", "r"], seed, agent_rng(args.seed, d, 0), opts)
            r_lord = play_one(env, [searcher, rule, rule], ["s", "r", "r"], seed, agent_rng(args.seed, d, 1), opts)
            r_farm = play_one(env, [rule, searcher, searcher2], ["r", "s", "s"], seed, agent_rng(args.seed, d, 2), opts)
            rows.append(
                {
                    "deal": d,
                    "rule_landlord_win": float(r_rule.outcome[0] > 0),
                    "search_landlord_win": float(r_lord.outcome[0] > 0),
                    "search_farmers_win": float(r_farm.outcome[1] > 0),
                }
            )
            if d % 20 == 19:
                print(f"{d + 1} deals, {time.time() - start:.0f} s", flush=True)
        rl = [r["rule_landlord_win"] for r in rows]
        sl = [r["search_landlord_win"] for r in rows]
        sf = [r["search_farmers_win"] for r in rows]
        print(f"rule landlord vs rule farmers:     {ci(rl)}")
        print(f"search landlord vs rule farmers:   {ci(sl)}")
        print(f"  difference (paired):             {ci(np.subtract(sl, rl))}")
        print(f"rule farmers vs rule landlord:     {ci(1 - np.asarray(rl))}")
        print(f"search farmers vs rule landlord:   {ci(sf)}")
        print(f"  difference (paired):             {ci(np.subtract(sf, 1 - np.asarray(rl)))}")
        times = searcher.times + searcher2.times
    else:
        heur = load_agent("twos.heuristic", base)
        for d in range(args.deals):
            seed = game_seed(args.seed, d)
            wins = []
            for k in range(3):
                seats = [heur, heur, heur]
                seats[k] = searcher
                labels = ["h", "h", "h"]
                labels[k] = "s"
                r = play_one(env, seats, labels, seed, agent_rng(args.seed, d, k))
                wins.append(float(r.outcome[k] > 0))
            rows.append({"deal": d, "search_win": float(np.mean(wins))})
            if d % 20 == 19:
                print(f"{d + 1} deals, {time.time() - start:.0f} s", flush=True)
        rate = ci([r["search_win"] for r in rows])
        print(f"search win rate vs two heuristics (parity 1/3), per deal over 3 seats: {rate}")
        times = searcher.times
    t = np.asarray(times) * 1000
    p95 = np.percentile(t, 95)
    print(f"ms per searched move: mean {t.mean():.1f}, p95 {p95:.1f}, max {t.max():.1f} ({len(t)} moves)")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"args": vars(args), "rows": rows, "ms": t.tolist()}, f)


if __name__ == "__main__":
    main()
