"""What the benchmarks share: the loop of every AEC measurement, a row of results, and the search scripts'
timed agent and interval (``search_goals.py`` and ``learned_search.py`` import this module as ``common``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from cardenvs.arena import mean_ci
from cardenvs.core.play import play_episode

SAMPLER_NOTE = (
    "legal actions sampled with np.flatnonzero(mask.view(np.bool_)) (about 4 us on a 27,000-long "
    "mask; np.flatnonzero on the int8 mask itself ~60 us, gymnasium's masked sample ~22 us)"
)


def aec_random_steps_per_second(
    make_env: Callable[[], Any], seconds: float, seed: int = 0, env_legal_ids: bool = False
) -> tuple[float, int]:
    """Random masked play through the AEC API (``last()`` builds observation and mask every step) for about
    ``seconds``; returns (steps per second, games finished). Dead steps are not counted as steps. The legal
    moves come from the mask (the same for any PettingZoo env), or with ``env_legal_ids`` from the env's own
    list (``env.legal_actions()``, as RLCard's loop reads its ``legal_actions``)."""
    env = make_env()
    rng = np.random.default_rng(seed)

    def choose(seat: int, observation: dict) -> int:
        if env_legal_ids:
            legal = env.legal_actions()
        else:
            legal = np.flatnonzero(observation["action_mask"].view(np.bool_))
        return int(legal[rng.integers(len(legal))])

    play_episode(env, choose, seed=seed)  # warm-up (numba compilation, caches)
    steps = games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        steps += play_episode(env, choose, seed=int(rng.integers(2**31))).steps
        games += 1
    return steps / (time.perf_counter() - start), games


def row(
    benchmark: str, value: float, unit: str, reference: str | None = None, ratio: float | None = None, note: str = ""
) -> dict:
    return {
        "benchmark": benchmark,
        "value": float(value),
        "unit": unit,
        "reference": reference,
        "ratio": None if ratio is None else float(ratio),
        "note": note,
    }


class Timed:
    """Wraps an agent and records the wall time and the CPU time (this process only) of each ``act``."""

    def __init__(self, agent):
        self.agent = agent
        self.name = agent.name
        self.times: list[float] = []
        self.cpu: list[float] = []

    def act(self, observation, rng):
        t, c = time.perf_counter(), time.process_time()
        a = self.agent.act(observation, rng)
        self.times.append(time.perf_counter() - t)
        self.cpu.append(time.process_time() - c)
        return a


def ci(values) -> str:
    """``"mean [low, high] (n=N)"``, the 95% interval of :func:`cardenvs.arena.mean_ci`."""
    mean, low, high = mean_ci(values)
    return f"{mean:.3f} [{low:.3f}, {high:.3f}] (n={len(values)})"
