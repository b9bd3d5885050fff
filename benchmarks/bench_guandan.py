"""Guandan's random-play speed: seeded uniformly random legal actions through the AEC env (``last()`` builds the
observation and mask every step) and through the turn-based vector env (every game's observation and mask each
step), as steps and hands per second, on one thread; and the rules alone (one numba call, no observation).
``cardenvs bench --only guandan`` reports the AEC env as a ratio to RLCard's Dou Dizhu env (Guandan is the
bigger game; RLCard has no Guandan) and the rules alone, measured in the same run.

    python -m benchmarks.bench_guandan [--seconds 3]

A hand of random play takes about 150 steps (suit choices and tribute actions count as steps).

Beside the field's engine: with a JDK (``java`` on PATH) and a checkout of OpenGuanDan (GameAI-NJUPT/OpenGuanDan,
whose ``guandan-java/`` holds its Python table over its Java move generator, ``guandan-java-action.jar``) named
by the environment variable ``OPENGUANDAN`` (the checkout's root), a row compares play steps per second (a play
or a pass, each a whole move: our suit choices and tribute actions are not counted, nor are their tribute
calls) of uniformly random play: ours through the AEC env, theirs through their table's ``play`` calls (a
random index of its ``actionList``), each warmed up first, in the same run, on one thread each (their Java
worker is a second process). Without them the row says what is missing. Their code is run from the checkout,
never copied here. ``python -m benchmarks.bench_guandan --openguandan`` prints that row alone."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

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


def play_steps(seconds: float) -> float:
    """Our play steps per second (plays and passes: pattern or pass actions) of random play through the AEC env."""
    from cardenvs.games.guandan import moves

    env = make("guandan_v0")
    rng = np.random.default_rng(1)
    count = [0]

    def choose(seat: int, observation: dict) -> int:
        legal = np.flatnonzero(observation["action_mask"].view(np.bool_))
        action = int(legal[rng.integers(len(legal))])
        count[0] += action <= moves.PASS
        return action

    play_episode(env, choose, seed=0)  # warm-up: compiled code loaded
    count[0] = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        play_episode(env, choose, seed=int(rng.integers(2**31)))
    return count[0] / (time.perf_counter() - start)


#: the loop run in OpenGuanDan's ``guandan-java`` folder: its table played at random, play calls counted (our code,
#: calling their table's public methods as their smoke test does)
OPENGUANDAN_LOOP = """
import json, logging, random, sys, time
sys.path.insert(0, ".")
from engine.environment import Environment
logging.getLogger().setLevel(logging.CRITICAL)
random.seed(0)
def fresh():
    env = Environment()
    for i in range(4):
        env.add_player(f"p{i}", i)
    env.start()
    return env
def pick(env):
    r = env.legal_moves.valid_range
    return random.randrange(r.start, r.stop) if r.stop > r.start else 0
def walk(env, seconds):
    steps, deadline = 0, time.perf_counter() + seconds
    start = time.perf_counter()
    while time.perf_counter() < deadline:
        f = env.loop
        if f == env.play:
            steps += 1
            env.play({"actIndex": pick(env)})
        elif f in (env.tribute, env.back):
            f({"actIndex": pick(env)})
        elif f in (env.enter_tribute_stage, env.start_new_episode_back_2, env.start):
            f()
        else:
            env = fresh()
        if env.results is not None:
            env = fresh()
    return steps / (time.perf_counter() - start)
walk(fresh(), 1.0)  # warm-up: the JVM, its worker, the bridge's cache
print(json.dumps({"steps": walk(fresh(), float(sys.argv[1]))}))
"""


def openguandan_steps(seconds: float) -> tuple[float | None, str]:
    """OpenGuanDan's play steps per second (module docstring), or None and what is missing."""
    root = os.environ.get("OPENGUANDAN", "")
    if not root:
        return None, "set OPENGUANDAN to a checkout of GameAI-NJUPT/OpenGuanDan for the comparison"
    folder = Path(root) / "guandan-java"
    if not (folder / "guandan-java-action.jar").is_file() or not (folder / "engine").is_dir():
        return None, f"OPENGUANDAN={root}: no guandan-java/engine and guandan-java-action.jar there"
    if shutil.which("java") is None:
        return None, "no java on PATH (a JDK: Debian's default-jdk-headless)"
    try:
        done = subprocess.run(
            [sys.executable, "-c", OPENGUANDAN_LOOP, str(seconds)],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=seconds + 120,
        )
        return float(json.loads(done.stdout.strip().splitlines()[-1])["steps"]), ""
    except (subprocess.TimeoutExpired, ValueError, IndexError, KeyError) as exc:
        return None, f"OpenGuanDan's loop failed ({type(exc).__name__})"


def field_row(seconds: float) -> dict:
    """Our play steps per second as a ratio to OpenGuanDan's engine, both measured now."""
    from .common import row

    theirs, missing = openguandan_steps(seconds)
    ours = play_steps(seconds)
    note = "plays and passes of uniformly random play (suit choices and tribute not counted); AEC env"
    if theirs is None:
        return row("guandan play steps vs OpenGuanDan's engine", ours, "play steps/s", note=f"{note}; {missing}")
    return row(
        "guandan play steps vs OpenGuanDan's engine",
        ours,
        "play steps/s",
        "OpenGuanDan table + Java move generator (same run)",
        ours / theirs,
        f"{note}; OpenGuanDan {theirs:,.0f} play steps/s",
    )


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
        field_row(seconds),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="measuring time of each row")
    parser.add_argument("--openguandan", action="store_true", help="only the row beside OpenGuanDan's engine")
    args = parser.parse_args()
    if args.openguandan:
        print(json.dumps(field_row(args.seconds)))
        return
    rows = [("AEC env", *aec(args.seconds))]
    for num_envs in (64, 1024):
        rows.append((f"vector env, {num_envs} games", *vectorized(num_envs, args.seconds)))
    rows.append(("rules alone, 1024 games", *rules_only(1024, args.seconds)))
    for label, steps, hands in rows:
        print(f"{label:26s} {steps:12,.0f} steps/s {hands:10,.1f} hands/s")


if __name__ == "__main__":
    main()
