"""Vector envs: random play with observation and mask at B = 1, 64, 1024 on one thread and two, as a ratio
to the game's own AEC env measured in the same run; Dou Dizhu also against RLCard's env and OpenSpiel's C++
whole games (``pyspiel.evaluate_bots`` with uniform random bots) when the ``bench`` extra is installed; the
rules alone without observations; where a step's time goes (the numba step kernel, the Python per batch,
the copies) as a ratio to the rules alone; state bytes per game and the memory of 4,096 Dou Dizhu games."""

from __future__ import annotations

import time

import numpy as np

from cardenvs import vector
from cardenvs.core import kernels
from cardenvs.registry import env_module, make

from .bench_doudizhu import _openspiel_steps, _rlcard_steps
from .common import aec_random_steps_per_second, row

SIZES = (1, 64, 1024)


def vector_random_steps_per_second(env_id: str, num_envs: int, threads: int, seconds: float) -> float:
    """Random legal actions (sampled in numpy from ``legal_ids``) stepped through the turn-based vector env,
    which writes every game's observation and mask each step."""
    v = vector.make(env_id, num_envs, threads=threads)
    v.reset(seed=0)
    rng = np.random.default_rng(0)
    rows = np.arange(num_envs)

    def one_step():
        ids, counts = v.legal_ids()
        v.step(ids[rows, (rng.random(num_envs) * counts).astype(np.int64)])

    for _ in range(5):  # warm-up: compilation is cached, loading is not
        one_step()
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        one_step()
        steps += num_envs
    return steps / (time.perf_counter() - start)


def rules_only_steps_per_second(env_id: str, num_envs: int, seconds: float) -> float:
    """Random play inside one numba call (legal moves and apply, no observation): the rules' own speed."""
    v = vector.make(env_id, num_envs)
    v.reset(seed=0)
    b = v._b
    rngs = np.arange(1, num_envs + 1, dtype=np.uint64).reshape(-1, 1) * np.uint64(0x9E3779B97F4A7C15)
    kernels.run("random", 1, b.state, b.params, b.all, 2, rngs, b.num_actions)
    steps, start = 0, time.perf_counter()
    per_call = 50
    while time.perf_counter() - start < seconds:
        kernels.run("random", 1, b.state, b.params, b.all, per_call, rngs, b.num_actions)
        steps += per_call * num_envs
    return steps / (time.perf_counter() - start)


def step_breakdown(env_id: str, num_envs: int, seconds: float) -> dict[str, float]:
    """Where a vector step's time goes, steps/s at one thread: the numba step kernel alone (move, rewards,
    autoreset, observation and mask of every game; actions drawn outside the timing), ``step()`` returning the
    env's buffers (``copy=False``: + the Python per batch) and ``step()`` as users get it (copies)."""
    out = {}
    for label, copy in (("kernel", False), ("step(copy=False)", False), ("step()", True)):
        v = vector.make(env_id, num_envs, copy=copy)
        v.reset(seed=0)
        b = v._b
        rng = np.random.default_rng(0)
        rows = np.arange(num_envs)
        for _ in range(3):  # warm-up: loading the compiled kernels is not part of a step
            ids, counts = v.legal_ids()
            v.step(ids[rows, (rng.random(num_envs) * counts).astype(np.int64)])
        timed, steps, start = 0.0, 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            ids, counts = v.legal_ids()
            actions = ids[rows, (rng.random(num_envs) * counts).astype(np.int64)].astype(np.int64)
            t = time.perf_counter()
            if label == "kernel":
                v.step_kernel(b.all, actions)
            else:
                v.step(actions)
            timed += time.perf_counter() - t
            steps += num_envs
        out[label] = steps / timed
    return out


def _openspiel_whole_games(seconds: float) -> float | None:
    """Decision steps per second of OpenSpiel's C++ whole games: ``evaluate_bots`` with uniform random bots
    (games per second times the mean decisions per game, counted on games played step by step)."""
    measured = _openspiel_steps(min(seconds, 2.0))
    if measured is None:
        return None
    import pyspiel

    game = pyspiel.load_game("dou_dizhu")
    bots = [pyspiel.make_uniform_random_bot(p, 100 + p) for p in range(3)]
    games, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        pyspiel.evaluate_bots(game.new_initial_state(), bots, games)
        games += 1
    return games * measured[1] / (time.perf_counter() - start)


def run(quick: bool = False) -> list[dict]:
    seconds = 1.0 if quick else 3.0
    rows = []
    env_ids = [
        e
        for e in ("doudizhu_v0", "twos_v0", "twenty_v0", "war_v0", "two_way_street_v0")
        if env_module(e).raw_env.numba_core() is not None
    ]
    for env_id in env_ids:
        aec, _ = aec_random_steps_per_second(lambda env_id=env_id: make(env_id), seconds)
        rows.append(
            row(f"vector {env_id} AEC reference", aec, "steps/s", note="env() random play, same loop as bench aec")
        )
        for threads in (1, 2):
            for size in SIZES:
                sps = vector_random_steps_per_second(env_id, size, threads, seconds)
                rows.append(
                    row(
                        f"vector {env_id} B={size} threads={threads}",
                        sps,
                        "steps/s",
                        f"{env_id} AEC env",
                        sps / aec,
                        "observation and mask of every game every step",
                    )
                )
        rules = rules_only_steps_per_second(env_id, 1024, seconds)
        rows.append(
            row(f"vector {env_id} rules only, B=1024", rules, "steps/s", note="legal moves and apply, no observation")
        )
        for label, sps in step_breakdown(env_id, 1024, seconds).items():
            rows.append(
                row(
                    f"vector {env_id} B=1024 {label}",
                    sps,
                    "steps/s",
                    f"{env_id} rules only",
                    sps / rules,
                    "one thread; time of the call alone (random actions drawn outside it)",
                )
            )
        v = vector.make(env_id, 1)
        rows.append(row(f"vector {env_id} state bytes per game", v.state_bytes_per_game, "bytes"))
    if "doudizhu_v0" in env_ids:
        rl = _rlcard_steps(seconds)
        name = "vector doudizhu_v0 B="
        stepped = [r for r in rows if r["benchmark"].startswith(name) and "threads=" in r["benchmark"]]
        best = max(r["value"] for r in stepped)  # the envs as users step them (not the kernel alone)
        if rl:
            rows.append(
                row(
                    "vector doudizhu_v0 best (observations)",
                    best,
                    "steps/s",
                    "RLCard doudizhu env (same run)",
                    best / rl,
                    f"RLCard env measured at {rl:,.0f} steps/s",
                )
            )
        else:
            rows.append(
                row(
                    "vector doudizhu_v0 best (observations)",
                    best,
                    "steps/s",
                    note="RLCard not installed (pip install 'cardenvs[bench]'): no ratio",
                )
            )
        # the issue-28 comparison: B=1024, one thread, step() alone returning the env's buffers (copy=False:
        # the caller reads them before the next step; the default copies 28,242 mask entries a game)
        buffers = next(r["value"] for r in rows if r["benchmark"] == "vector doudizhu_v0 B=1024 step(copy=False)")
        rows.append(
            row(
                "vector doudizhu_v0 B=1024 step(copy=False), 1 thread",
                buffers,
                "steps/s",
                "RLCard doudizhu env (same run)" if rl else None,
                buffers / rl if rl else None,
                "step() timed alone, returning the env's buffers"
                + ("" if rl else "; RLCard not installed (pip install 'cardenvs[bench]'): no ratio"),
            )
        )
        rules = rules_only_steps_per_second("doudizhu_v0", 1024, seconds)
        osp = _openspiel_whole_games(seconds)
        if osp:
            rows.append(
                row(
                    "vector doudizhu_v0 rules only, B=1024, 1 thread",
                    rules,
                    "steps/s",
                    "OpenSpiel C++ whole games (same run)",
                    rules / osp,
                    f"evaluate_bots with uniform random bots: {osp:,.0f} decisions/s",
                )
            )
        else:
            rows.append(
                row(
                    "vector doudizhu_v0 rules only, B=1024, 1 thread",
                    rules,
                    "steps/s",
                    note="OpenSpiel not installed (pip install 'cardenvs[bench]'): no ratio",
                )
            )
        v = vector.make("doudizhu_v0", 4096)
        b = v._b
        held = sum(
            a.nbytes
            for a in (
                b.state,
                b.obs,
                b.mask,
                b.legal,
                b.num_legal,
                b.seats,
                b.last_scores,
                b.final_scores,
                b.deal_seeds,
                b.episodes,
                b.rngs,
                v.rewards,
            )
        )
        rows.append(
            row(
                "vector doudizhu_v0 4,096 games held",
                held / 2**20,
                "MiB",
                note="state, observations, masks, legal ids and rewards",
            )
        )
    return rows
