"""Guandan's random-play speed: seeded uniformly random legal actions through the AEC env (``last()`` builds the
observation and mask every step) and through the turn-based vector env (every game's observation and mask each
step), as steps and hands per second, on one thread; and the rules alone (one numba call, no observation).
``cardenvs bench --only guandan`` reports the AEC env as a ratio to RLCard's Dou Dizhu env (Guandan is the
bigger game; RLCard has no Guandan) and the rules alone, measured in the same run.

    python -m benchmarks.bench_guandan [--seconds 3]

A hand of random play takes about 150 steps (suit choices and tribute actions count as steps)."""

from __future__ import annotations

import argparse
import time

import numpy as np

from cardenvs import vector
from cardenvs.core import kernels
from cardenvs.core.play import play_episode
from cardenvs.registry import make


def aec(seconds: float) -> tuple[float, float]:
    env = make("guandan_v0")
    rng = np.random.default_rng(0)

    def choose(seat: int, observation: dict) -> int:
        legal = np.flatnonzero(observation["action_mask"].view(np.bool_))
        return int(legal[rng.integers(len(legal))])

    play_episode(env, choose, seed=0)  # warm-up: compiled code loaded
    steps = hands = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += play_episode(env, choose, seed=int(rng.integers(2**31))).steps
        hands += 1
    elapsed = time.perf_counter() - start
    return steps / elapsed, hands / elapsed


def vectorized(num_envs: int, seconds: float) -> tuple[float, float]:
    v = vector.make("guandan_v0", num_envs)
    v.reset(seed=0)
    rng = np.random.default_rng(0)
    rows = np.arange(num_envs)

    def one_step() -> int:
        ids, counts = v.legal_ids()
        _, _, terminated, truncated, _ = v.step(ids[rows, (rng.random(num_envs) * counts).astype(np.int64)])
        return int((terminated | truncated).sum())

    for _ in range(5):
        one_step()
    steps = hands = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        hands += one_step()
        steps += num_envs
    elapsed = time.perf_counter() - start
    return steps / elapsed, hands / elapsed


def rules_only(num_envs: int, seconds: float) -> tuple[float, float]:
    v = vector.make("guandan_v0", num_envs)
    v.reset(seed=0)
    b = v._b
    rngs = np.arange(1, num_envs + 1, dtype=np.uint64).reshape(-1, 1) * np.uint64(0x9E3779B97F4A7C15)
    kernels.run("random", 1, b.state, b.params, b.all, 2, rngs, b.num_actions)
    steps = hands = 0
    per_call = 50
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        hands += kernels.run("random", 1, b.state, b.params, b.all, per_call, rngs, b.num_actions)
        steps += per_call * num_envs
    elapsed = time.perf_counter() - start
    return steps / elapsed, hands / elapsed


def run(quick: bool = False) -> list[dict]:
    from .bench_doudizhu import MISSING, _rlcard_steps
    from .common import row

    seconds = 1.5 if quick else 4.0
    steps, hands = aec(seconds)
    rl = _rlcard_steps(seconds)
    rules, _ = rules_only(1024, seconds)
    return [
        row(
            "guandan AEC random steps (env())",
            steps,
            "steps/s",
            "RLCard doudizhu env (same run)" if rl else None,
            steps / rl if rl else None,
            f"{hands * seconds:.0f} hands; observation and mask every step"
            + ("" if rl else "; RLCard " + MISSING.format("rlcard")),
        ),
        row("guandan rules alone, random play (1 thread)", rules, "steps/s", note="1,024 games, no observation"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="measuring time of each row")
    args = parser.parse_args()
    rows = [("AEC env", *aec(args.seconds))]
    for num_envs in (64, 1024):
        rows.append((f"vector env, {num_envs} games", *vectorized(num_envs, args.seconds)))
    rows.append(("rules alone, 1024 games", *rules_only(1024, args.seconds)))
    for label, steps, hands in rows:
        print(f"{label:26s} {steps:12,.0f} steps/s {hands:10,.1f} hands/s")


if __name__ == "__main__":
    main()
