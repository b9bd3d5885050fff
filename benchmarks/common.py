"""The benchmark loop shared by every AEC measurement."""
from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np

SAMPLER_NOTE = ("legal actions sampled with np.flatnonzero(mask.view(np.bool_)) (about 4 us on a 27,000-long "
                "mask; np.flatnonzero on the int8 mask itself ~60 us, gymnasium's masked sample ~22 us)")


def aec_random_steps_per_second(make_env: Callable[[], Any], seconds: float, seed: int = 0) -> tuple[float, int]:
    """Random masked play through the AEC API (``last()`` builds observation and mask every step) for about
    ``seconds``; returns (steps per second, games finished). Dead steps are not counted as steps."""
    env = make_env()
    rng = np.random.default_rng(seed)
    steps = games = 0
    env.reset(seed=seed)
    # warm-up (numba compilation, caches)
    for agent in env.agent_iter(max_iter=200):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"].view(np.bool_)))))
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        env.reset(seed=int(rng.integers(2**31)))
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"].view(np.bool_))
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        games += 1
    return steps / (time.perf_counter() - start), games


def row(benchmark: str, value: float, unit: str, reference: str | None = None, ratio: float | None = None,
        note: str = "") -> dict:
    return {"benchmark": benchmark, "value": float(value), "unit": unit, "reference": reference,
            "ratio": None if ratio is None else float(ratio), "note": note}
