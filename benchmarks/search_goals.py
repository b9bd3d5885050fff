"""Issue 17's search goals on duplicate deals (a script, not a registered benchmark).

Deal ``d`` is the arena's (``arena.game_seed(seed, d)``, agent rng ``arena.agent_rng(seed, d, k)``), so the
same deals as ``cardenvs arena GAME --seed SEED``. Dou Dizhu (player_0 landlord at bid 1, as the arena's
duplicate mode): per deal, the searcher as landlord against two ``doudizhu.rule`` farmers, both farmers
searching against a ``doudizhu.rule`` landlord, and the all-rule game for the rule agent's own rates in the
same seats (``--opponent rlcard.rule``: RLCard's rule agent in place of ``doudizhu.rule``). Twos, Twenty
and Two Way Street: the searcher in each seat against the game's heuristic in every other seat
(``--options players=4`` for Two Way Street's four-player game), one game per seat a deal.

    python benchmarks/search_goals.py doudizhu "doudizhu.pimc(playouts=1500)" --deals 200 --seed 17
    python benchmarks/search_goals.py doudizhu "doudizhu.pimc(playouts=6000,ms=100)" --opponent rlcard.rule
    python benchmarks/search_goals.py twos "twos.ismcts(ms=100)" --deals 200 --seed 17
    python benchmarks/search_goals.py twenty "twenty.pimc(playouts=2000)" --deals 200 --seed 17
    python benchmarks/search_goals.py two_way_street "two_way_street.pimc(playouts=300)" --options players=4

Each searched move's wall time and CPU time (``time.process_time``, this process only) are reported: on a
machine shared with other jobs the wall time overstates what the move costs on one free core.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from common import Timed, ci, each_seat, landlord_and_farmers  # this folder is on the path of a script run from it

from cardenvs import make
from cardenvs.agent import load_agent
from cardenvs.arena import agent_rng, game_seed, play_one

HEURISTICS = {"twos": "twos.heuristic", "twenty": "twenty.greedy", "two_way_street": "two_way_street.heuristic"}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("game", choices=["doudizhu", "twos", "twenty", "two_way_street"])
    parser.add_argument("searcher")
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--out")
    parser.add_argument(
        "--opponent", default="doudizhu.rule", help="Dou Dizhu: the other seats' agent (rlcard.rule: RLCard's)"
    )
    parser.add_argument("--options", nargs="*", default=[], metavar="KEY=VALUE", help="env options (players=4)")
    args = parser.parse_args()
    options = {}
    for text in args.options:
        key, _, value = text.partition("=")
        options[key] = int(value) if value.isdigit() else {"true": True, "false": False}.get(value, value)
    env = make(args.game, **options)
    base = env.unwrapped
    searcher = Timed(load_agent(args.searcher, base))
    env.reset(seed=0)
    if hasattr(searcher.agent, "search"):
        searcher.agent.search(0)  # compile (or load the numba cache) before anything is timed
    rows = []
    start = time.time()
    if args.game == "doudizhu":
        rule = load_agent(args.opponent, base)
        searcher2 = Timed(load_agent(args.searcher, base))
        opts = {"landlord": 0, "bid": 1}
        for d in range(args.deals):
            r_rule = play_one(
                env, [rule, rule, rule], ["r", "r", "r"], game_seed(args.seed, d), agent_rng(args.seed, d, 0), opts
            )
            lord, farmers = landlord_and_farmers(env, searcher, searcher2, rule, args.seed, d)
            rows.append(
                {
                    "deal": d,
                    "rule_landlord_win": float(r_rule.outcome[0] > 0),
                    "search_landlord_win": lord,
                    "search_farmers_win": farmers,
                }
            )
            if d % 20 == 19:
                print(f"{d + 1} deals, {time.time() - start:.0f} s", flush=True)
        rl = [r["rule_landlord_win"] for r in rows]
        sl = [r["search_landlord_win"] for r in rows]
        sf = [r["search_farmers_win"] for r in rows]
        print(f"the other seats' agent: {args.opponent}")
        print(f"rule landlord vs rule farmers:     {ci(rl)}")
        print(f"search landlord vs rule farmers:   {ci(sl)}")
        print(f"  difference (paired):             {ci(np.subtract(sl, rl))}")
        print(f"rule farmers vs rule landlord:     {ci(1 - np.asarray(rl))}")
        print(f"search farmers vs rule landlord:   {ci(sf)}")
        print(f"  difference (paired):             {ci(np.subtract(sf, 1 - np.asarray(rl)))}")
        times, cpu = searcher.times + searcher2.times, searcher.cpu + searcher2.cpu
    else:
        heur = load_agent(HEURISTICS[args.game], base)
        n = base.num_players
        for d in range(args.deals):
            rows.append({"deal": d, "search_win": float(np.mean(each_seat(env, searcher, heur, args.seed, d)))})
            if d % 20 == 19:
                print(f"{d + 1} deals, {time.time() - start:.0f} s", flush=True)
        rate = ci([r["search_win"] for r in rows])
        print(f"search win rate vs {n - 1} x {HEURISTICS[args.game]} (parity 1/{n}), per deal over {n} seats: {rate}")
        times, cpu = searcher.times, searcher.cpu
    t, c = np.asarray(times) * 1000, np.asarray(cpu) * 1000
    wall = f"mean {t.mean():.1f}, p95 {np.percentile(t, 95):.1f}, max {t.max():.1f}"
    print(f"ms per move (wall): {wall} ({len(t)} moves)")
    print(f"ms per move (CPU):  mean {c.mean():.1f}, p95 {np.percentile(c, 95):.1f}, max {c.max():.1f}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"args": vars(args), "rows": rows, "ms": t.tolist(), "cpu_ms": c.tolist()}, f)


if __name__ == "__main__":
    main()
