"""CPU milliseconds a move of an agent, in its seats of one game against another agent (the even seats against
the odd ones), timed at the decisions with more than one legal move; the first decision (numba's compiling) is
not timed.

    python benchmarks/search_move_ms.py guandan "guandan.pimc(playouts=1200,prior=dmc,top=4,weight=0.5)" \\
        guandan.heuristic --option episode=match --moves 40

Issue 63: the play agent's move in a Guandan match, with the game's search horizon (the end of the hand) and with
``to_end=true`` (rollouts of the whole remaining match).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import cardenvs
from cardenvs.agent import load_agent
from cardenvs.config import parse_assignment


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("agent", help="the agent timed, in the even seats")
    parser.add_argument("opponent", help="the agent of the odd seats")
    parser.add_argument("--option", action="append", default=[], help="an env option, key=value (repeat)")
    parser.add_argument("--moves", type=int, default=40, help="decisions timed (default 40)")
    parser.add_argument("--seed", type=int, default=63, help="the deal's seed (default 63)")
    args = parser.parse_args(argv)
    if args.moves < 1:
        parser.error("--moves must be >= 1")
    try:
        options = dict(parse_assignment(text, "--option", "episode=match") for text in args.option)
        env = cardenvs.make(args.game, **options)
        env.reset(seed=args.seed)
        timed, other = load_agent(args.agent, env), load_agent(args.opponent, env)
    except ValueError as exc:  # a bad option, game or agent name (ConfigError is a ValueError)
        parser.error(str(exc))
    rng = np.random.default_rng(args.seed)
    seconds: list[float] = []
    first = True
    while len(seconds) < args.moves and env.agents:  # the timed moves, or the game's end
        seat = env.agents.index(env.agent_selection)
        observation = env.observe(env.agent_selection)
        if seat % 2 == 0 and observation["action_mask"].sum() > 1:
            start = time.process_time()
            action = timed.act(observation, rng)
            if not first:
                seconds.append(time.process_time() - start)
            first = False
        else:
            action = other.act(observation, rng)
        env.step(int(action))
    if not seconds:
        parser.exit(1, f"{parser.prog}: the game ended before a move of {args.agent} could be timed\n")
    ms = np.array(seconds) * 1000
    print(
        f"{args.agent}: {len(ms)} moves with a choice, {ms.mean():.1f} ms CPU a move on average "
        f"(median {np.median(ms):.1f}, max {ms.max():.1f}); options {options}, seed {args.seed}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
