"""Issue 29's learned-value search goal (and issue 63's search over the Guandan model): two agents on the same
duplicate deals, paired by deal (a script, not a registered benchmark). An agent is any name
(:func:`cardenvs.agent.load_agent`): a search (``GAME.pimc(...)``) or a model alone (``dmc:PATH``).

Deal ``d`` is the arena's (``arena.game_seed(seed, d)``, agent rng ``arena.agent_rng(seed, d, k)``). Dou Dizhu
(player_0 landlord at bid 1): per deal, each agent as landlord against two ``doudizhu.rule`` farmers and as
both farmers against a ``doudizhu.rule`` landlord (4 games). Guandan (teams of two, partners opposite): per deal,
each agent's pair (two instances) in seats 0 and 2 against two ``guandan.heuristic`` in 1 and 3, then in 1 and 3
(4 games, single hands; 1.0 where the agent's team won the hand). Other games: each agent in each seat against
the game's heuristic in the others (2 x players games). Per deal, the win rate of A minus B's, with a 95%
interval; the two agents' games alternate, so load on a shared machine falls on both alike. Each agent's wall
and CPU time per move (``time.process_time`` over its ``act`` calls, this process only) are printed.

    OMP_NUM_THREADS=1 python benchmarks/learned_search.py doudizhu "doudizhu.pimc(ms=20,leaf=dmc)" \\
        "doudizhu.pimc(ms=20)" --minutes 7 --seed 29
    OMP_NUM_THREADS=1 python benchmarks/learned_search.py guandan "guandan.pimc(playouts=400,leaf=dmc:M)" \\
        dmc:M --minutes 25 --seed 63
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


def partners(env, one, two, heuristic, seed: int, d: int) -> list[float]:
    """Deal ``d`` of a game of two teams of two, partners opposite (Guandan): ``one`` and ``two`` in seats 0 and
    2 against ``heuristic`` in 1 and 3, then in 1 and 3; 1.0 where their team won."""
    deal, wins = game_seed(seed, d), []
    for first in (0, 1):
        seats = [one, heuristic, two, heuristic] if first == 0 else [heuristic, one, heuristic, two]
        labels = ["s", "h", "s", "h"] if first == 0 else ["h", "s", "h", "s"]
        record = play_one(env, seats, labels, deal, agent_rng(seed, d, first))
        wins.append(float(record.outcome[first] > 0))
    return wins


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("game")
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--deals", type=int, default=10_000)
    parser.add_argument("--minutes", type=float, default=7.0)
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--out")
    args = parser.parse_args()
    env = make(args.game)
    base = env.unwrapped
    heuristic = load_agent(f"{args.game}.{base.policy_names()[0]}", base)
    arms = {k: [Timed(load_agent(name, base)) for _ in range(2)] for k, name in (("a", args.a), ("b", args.b))}
    env.reset(seed=0)
    for timed in arms["a"] + arms["b"]:  # compile, load caches and the model before anything is timed
        if hasattr(timed.agent, "search"):
            timed.agent.search(0)
        else:
            timed.agent.act(env.observe(env.agent_selection), np.random.default_rng(0))
    rows = []
    start = time.time()
    for d in range(args.deals):
        if time.time() - start > 60 * args.minutes:
            break
        row: dict = {"deal": d}
        for k, (one, two) in arms.items():
            if args.game == "doudizhu":
                row[f"{k}_landlord"], row[f"{k}_farmers"] = landlord_and_farmers(env, one, two, heuristic, args.seed, d)
                row[k] = (row[f"{k}_landlord"] + row[f"{k}_farmers"]) / 2
            elif args.game == "guandan":
                row[k] = float(np.mean(partners(env, one, two, heuristic, args.seed, d)))
            else:
                row[k] = float(np.mean(each_seat(env, one, heuristic, args.seed, d)))
        rows.append(row)
        if d % 20 == 19:
            print(f"{d + 1} deals, {time.time() - start:.0f} s", flush=True)
    print(f"{args.game}, {len(rows)} deals, seed {args.seed}, {(time.time() - start) / 60:.1f} min")
    keys = ["landlord", "farmers"] if args.game == "doudizhu" else []
    for k, name in (("a", args.a), ("b", args.b)):
        print(f"{name}: {ci([r[k] for r in rows])}", *(f"{p} {ci([r[f'{k}_{p}'] for r in rows])}" for p in keys))
        t = np.asarray([x for timed in arms[k] for x in timed.times]) * 1000
        cpu = np.asarray([x for timed in arms[k] for x in timed.cpu]) * 1000
        print(f"  ms per move: mean {t.mean():.1f}, p95 {np.percentile(t, 95):.1f} ({len(t)} moves)")
        print(f"  CPU ms per move: mean {cpu.mean():.1f}, p95 {np.percentile(cpu, 95):.1f}, max {cpu.max():.1f}")
    print(f"A - B, paired by deal: {ci([r['a'] - r['b'] for r in rows])}")
    for p in keys:
        print(f"  {p}: {ci([r[f'a_{p}'] - r[f'b_{p}'] for r in rows])}")
    if args.out:
        cpu = {k: [x for timed in arms[k] for x in timed.cpu] for k in arms}
        with open(args.out, "w") as f:
            json.dump({"args": vars(args), "rows": rows, "cpu_seconds_per_move": cpu}, f)


if __name__ == "__main__":
    main()
