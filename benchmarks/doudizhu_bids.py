"""How a Dou Dizhu model bids: ``python benchmarks/doudizhu_bids.py MODEL [MODEL ...] [--deals N] [--seed S]``.

Each MODEL (an agent name: ``doudizhu.dmc``, ``dmc:PATH``, ``doudizhu.rule`` ...) plays all three seats of the
bidding of ``--deals`` deals (the deals of ``reset(seed=S + k)``), greedily. Printed per model: how often each
bid is chosen over all its bidding decisions, and by the first bidder alone (no bid before it: a function of
the hand only), the final bid's distribution and the share of dead hands (nobody bid). Only the bidding is
played, so it takes a second or so per thousand deals for a DMC model.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter

import numpy as np

from cardenvs import make
from cardenvs.agent import load_agent
from cardenvs.games.doudizhu import moves

BIDS = ("no bid", "1", "2", "3")


def bidding(name: str, deals: int, seed: int) -> dict[str, Counter]:
    """Counts of the bids ``name`` chooses in every seat of the bidding of ``deals`` deals."""
    env = make("doudizhu_v0", bidding=True)
    agent = load_agent(name, env)
    rng = np.random.default_rng(seed)
    every, first, final = Counter(), Counter(), Counter()
    for k in range(deals):
        env.reset(seed=seed + k)
        first_decision = True
        while env.unwrapped.state.bidding and not any(env.terminations.values()):
            observation = env.observe(env.agent_selection)
            action = int(agent.act(observation, rng))
            bid = BIDS[action - moves.BID_PASS]
            every[bid] += 1
            if first_decision:
                first[bid] += 1
                first_decision = False
            env.step(action)
        state = env.unwrapped.state
        final["dead" if state.dead else BIDS[int(state.bid)]] += 1
    return {"every decision": every, "first bidder": first, "final bid": final}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="+", help="agent names (doudizhu.dmc, dmc:PATH, doudizhu.rule ...)")
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for name in args.models:
        try:
            counts = bidding(name, args.deals, args.seed)
        except ValueError as exc:
            print(f"error: {name}: {exc}", file=sys.stderr)
            return 2
        print(name)
        for label, counter in counts.items():
            total = sum(counter.values())
            keys = BIDS[1:] + ("dead",) if label == "final bid" else BIDS
            shares = ", ".join(f"{key} {counter[key] / total:.3f}" for key in keys)
            print(f"  {label:15s} ({total:5d}): {shares}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
