"""Guandan: the heuristic's return choice against a random legal return, on duplicate deals of the ``match``
variant (two hands; the second opens with the tribute and the return).

Per deal: every seat plays ``guandan.heuristic`` (the baseline), then the same deal with team ``t``'s returns
drawn uniformly from the legal ones (each team in turn). The first hand is the same in all three games, so a
difference is the return's: team ``t``'s points in the match minus the baseline's, over the deals where team
``t`` returned (it won the first hand and no tribute was resisted), with a normal 95% interval.

Usage: ``python -m benchmarks.guandan_return [DEALS]`` (default 3,000)."""

from __future__ import annotations

import sys
import time

import numpy as np

import cardenvs
from cardenvs.agent import load_agent
from cardenvs.core.play import play_episode
from cardenvs.games.guandan import rules


def main(deals: int) -> str:
    env = cardenvs.make("guandan", variant="match", reward="points")
    base = env.unwrapped
    heuristic = {seat: load_agent("guandan.heuristic", base) for seat in range(rules.PLAYERS)}

    def match(random_team: int, seed: int) -> tuple[np.ndarray, bool]:
        rng = np.random.default_rng([seed, 1])
        returned = False

        def choose(seat: int, obs: dict) -> int:
            nonlocal returned
            if base.state.phase == rules.RETURN and seat % 2 == random_team:
                returned = True
                return int(rng.choice(np.flatnonzero(obs["action_mask"])))
            return int(heuristic[seat].act(obs, rng))

        play_episode(env, choose, seed=seed)
        return base.scores(), returned

    start = time.process_time()
    diffs = []
    for seed in range(deals):
        baseline, _ = match(-1, seed)
        for team in (0, 1):
            scores, returned = match(team, seed)
            if returned:
                diffs.append(scores[team] - baseline[team])
    d = np.array(diffs, dtype=float)
    mean, half = d.mean(), 1.96 * d.std(ddof=1) / np.sqrt(len(d))
    return (
        f"{deals} deals, {len(d)} matches with a random-returning team: its points {mean:+.3f} "
        f"[{mean - half:+.3f}, {mean + half:+.3f}] per match against the heuristic's return "
        f"({np.mean(d != 0):.2f} of them changed); {time.process_time() - start:.0f} CPU s"
    )


if __name__ == "__main__":
    print(main(int(sys.argv[1]) if len(sys.argv) > 1 else 3000))
