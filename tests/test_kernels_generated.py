"""The generated kernels (core/kernels/): the generic functions' implementations and the batch loops' parallel
drivers are copies of templates, not written out. The drivers must give what the serial loops give, and both
kinds must load from numba's cache in the next process (a closure over a numba function would not: its cache
key pickles a uuid drawn per process, numba issue #6264)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cardenvs import cache, vector
from cardenvs.core import kernels

B = 64  # at least vector.SMALL_BATCH, so that threads=2 runs the parallel drivers


def first_legal(view: dict) -> np.ndarray:
    """An external opponent: the lowest legal action of each game."""
    return np.argmax(view["action_mask"], axis=1)


@pytest.mark.parametrize("opponent", ["random", first_legal], ids=["numba-opponent", "callable-opponent"])
def test_learner_view_on_two_threads_equals_one(opponent):
    """The learner view's loops (``advance``, and ``apply`` for a callable opponent) on two threads give the
    same observations, rewards and ends as on one, step by step."""
    runs = []
    for threads in (1, 2):
        env = vector.make("war", B, learner=0, opponents=(opponent,), threads=threads)
        assert env._b.threads == threads
        obs, _ = env.reset(seed=11)
        trace = [obs]
        for _ in range(40):
            obs, rewards, terminated, truncated, _ = env.step(np.argmax(env.action_masks(), axis=1))
            trace += [obs, rewards, terminated, truncated]
        runs.append(trace)
    for one, two in zip(*runs, strict=True):
        np.testing.assert_array_equal(one, two)


def test_random_play_on_two_threads_equals_one():
    """The ``random`` loop's driver sums the chunks' counts of ended games and plays the same games."""
    env = vector.make("war", B)
    env.reset(seed=3)
    b = env._b
    results = []
    for threads in (1, 2):
        state = b.state.copy()
        rngs = np.arange(1, B + 1, dtype=np.uint64).reshape(-1, 1) * np.uint64(0x9E3779B97F4A7C15)
        ended = kernels.run("random", threads, state, b.params, b.all, 400, rngs, b.num_actions)
        results.append((ended, state, rngs))
    (ended1, state1, rngs1), (ended2, state2, rngs2) = results
    assert ended1 == ended2 > 0
    assert state1.tobytes() == state2.tobytes()
    np.testing.assert_array_equal(rngs1, rngs2)


def test_the_arena_table_loop_on_two_threads_equals_one():
    """The batched arena's ``table`` loop (numba policies in every seat) plays the same games, rewards and steps
    on two threads as on one."""
    results = []
    for threads in (1, 2):
        env = vector.VectorEnv("twos_v0", B, autoreset=False, threads=threads)
        env.reset(seed=4)
        assert env._b.threads == threads
        kinds = np.full((B, env.num_players), 2, dtype=np.int64)  # every seat: twos.heuristic
        pending, total = np.zeros((B, env.num_players)), np.zeros((B, env.num_players))
        steps = np.zeros(B, dtype=np.int64)
        over = env.play_policies(env._b.all, kinds, pending, total, steps)
        results.append((over, env._b.state.copy(), total, steps, env.terminated.copy()))
    (over1, state1, total1, steps1, ended1), (over2, state2, total2, steps2, ended2) = results
    assert len(over1) == B and ended1.all() and steps1.min() > 0  # heuristics never draw: every game ends
    np.testing.assert_array_equal(over1, over2)
    assert state1.tobytes() == state2.tobytes()
    np.testing.assert_array_equal(total1, total2)
    np.testing.assert_array_equal(steps1, steps2)


# Runs all seven batch loops on two threads and compiles a function (not cached) that calls generic functions,
# which makes numba look their implementations up in the cache; prints each driver's cache hits and misses.
PROBE = """
import json
import sys
import numba
import numpy as np
import cardenvs
from cardenvs import vector
from cardenvs.core import kernels

assert cardenvs.__file__.startswith(sys.argv[1]), cardenvs.__file__
first_legal = lambda view: np.argmax(view["action_mask"], axis=1)
v = vector.make("war", 64, threads=2)
obs, _ = v.reset(seed=0)                                          # reset, observe
v.step(first_legal(obs))                                          # step
learner = vector.make("war", 64, learner=0, opponents=(first_legal,), threads=2)
learner.reset(seed=1)
learner.step(np.argmax(learner.action_masks(), axis=1))           # advance, apply
b = v._b
rngs = np.ones((64, 1), dtype=np.uint64)
kernels.run("random", 2, b.state, b.params, b.all, 3, rngs, b.num_actions)
t = vector.VectorEnv("war_v0", 64, autoreset=False, threads=2, max_turns=5)
t.reset(seed=2)
kinds = np.full((64, 2), 2, dtype=np.int64)                       # every seat: war.flip
t.play_policies(t._b.all, kinds, np.zeros((64, 2)), np.zeros((64, 2)), np.zeros(64, dtype=np.int64))  # table


@numba.njit
def fresh(state, params):
    kernels.init(state, 0, params, np.uint64(3))
    return kernels.status(state, 0, params) + kernels.to_move(state, 0, params)


fresh(b.state, b.params)
print(json.dumps({loop: [sum(d.stats.cache_hits.values()), sum(d.stats.cache_misses.values())]
                  for loop, d in kernels.PARALLEL.items()}))
"""


def run_probe(copy: Path, cache_home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", cache.MARKER)}
    env.update(PYTHONPATH=str(copy), XDG_CACHE_HOME=str(cache_home))
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(copy)], env=env, cwd=copy, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_generated_kernels_load_from_the_cache_in_the_next_process(tmp_path):
    """A cold process compiles the implementations into the cache; the next one loads them from it and writes
    no file: the implementations it looks up are found (a closure's entry would miss and be appended again,
    one more file per process). The parallel drivers are compiled in each process and never written
    (``kernels.parallel.CACHE_PARALLEL``: numba's cache of parallel functions is not safe across processes).
    The processes import a copy of the package: the cache folder is keyed by its source, which an edit in the
    checkout meanwhile would change."""
    copy, cache_home = tmp_path / "src", tmp_path / "cache"
    shutil.copytree(Path(cache.__file__).parent, copy / "cardenvs", ignore=shutil.ignore_patterns("__pycache__"))
    cold = run_probe(copy, cache_home)
    assert cold == {loop: [0, 1] for loop in kernels.PARALLEL}  # compiled once each, no cache hit
    files = {p.relative_to(cache_home) for p in cache_home.rglob("*.nb[ic]")}
    names = {p.name for p in files}
    assert not [n for n in names if n.startswith("parallel.") and "_parallel-" in n]
    for name in ("init", "status", "to_move", "apply", "legal_ids", "observe", "scores", "outcome", "policy"):
        assert any(n.startswith(f"dispatch.{name}.overload-") and n.endswith(".nbi") for n in names), name
    warm = run_probe(copy, cache_home)
    assert warm == {loop: [0, 1] for loop in kernels.PARALLEL}
    assert {p.relative_to(cache_home) for p in cache_home.rglob("*.nb[ic]")} == files
