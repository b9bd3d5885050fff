"""The cold-start probe: a game's first use as a newcomer meets it, and what numba compiles on the way.

:func:`first_use_in_new_process` runs :func:`first_use` in a new Python process whose numba cache
(:mod:`cardenvs.cache`) is an empty folder (a cold start) or the folder an earlier run filled (a warm one);
``cardenvs bench --only cold`` reports it and ``tests/test_cold_start.py`` checks what it compiles.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

from .cache import MARKER
from .core.env import legal_actions
from .registry import make

#: the uses :func:`first_use` can make of a game: its AEC env, or its vector env (a batch of FIRST_USE_BATCH)
FIRST_USES = ("aec", "vector")
FIRST_USE_BATCH = 64


def first_use(env_id: str, moves: int = 50, use: str = "aec") -> dict:
    """A game's first use as a newcomer meets it: with ``use="aec"``, ``make``, ``reset(seed=0)`` and up to
    ``moves`` random moves through the AEC env; with ``use="vector"``, ``vector.make(env_id,
    FIRST_USE_BATCH)``, ``reset(seed=0)`` and ``moves`` steps of random legal moves in every game. Returns
    ``cpu``, the CPU seconds this process has used so far (interpreter start and imports included),
    ``moves``, and ``compiles``: every function of this package that numba compiled on the way, as ``[name,
    argument types]`` in order. Run in a new process with an empty cache (:func:`first_use_in_new_process`),
    that is the cold start ``cardenvs bench --only cold`` reports and ``tests/test_cold_start.py`` checks;
    with the cache that run filled, the warm start."""
    if use not in FIRST_USES:
        raise ValueError(f"use must be one of {FIRST_USES}, got {use!r}")
    from numba.core import event

    compiles: list[list[str]] = []

    class Recorder(event.Listener):
        def on_start(self, ev) -> None:
            func = ev.data["dispatcher"].py_func
            if func.__module__.partition(".")[0] == __package__:
                compiles.append([f"{func.__module__}.{func.__qualname__}", str(ev.data["args"])])

        def on_end(self, ev) -> None:
            pass

    recorder = Recorder()
    event.register("numba:compile", recorder)
    rng = np.random.default_rng(0)
    made = 0
    try:
        if use == "vector":
            from . import vector  # here: the AEC use imports only what a newcomer's first AEC loop imports

            batch = vector.make(env_id, FIRST_USE_BATCH)
            batch.reset(seed=0)
            games = np.arange(FIRST_USE_BATCH)
            for _ in range(moves):
                ids, counts = batch.legal_ids()
                batch.step(ids[games, rng.integers(counts)])
                made += 1
        else:
            env = make(env_id)
            env.reset(seed=0)
            for _agent in env.agent_iter():
                obs, _reward, terminated, truncated, _info = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                legal = legal_actions(obs)
                env.step(int(legal[rng.integers(len(legal))]))
                made += 1
                if made == moves:
                    break
    finally:
        event.unregister("numba:compile", recorder)
    return {"cpu": time.process_time(), "moves": made, "compiles": compiles}


def first_use_in_new_process(env_id: str, cache_home: str, use: str = "aec") -> dict:
    """:func:`first_use` of ``env_id`` (``use``: ``"aec"`` or ``"vector"``) in a new Python process whose numba
    cache is under ``cache_home`` (an empty folder: a cold start; the folder a previous call filled: a warm
    one), whatever cache this process uses."""
    if use not in FIRST_USES:
        raise ValueError(f"use must be one of {FIRST_USES}, got {use!r}")
    import json
    import subprocess

    environ = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", MARKER)}
    environ["XDG_CACHE_HOME"] = cache_home
    program = (
        "import json, sys; from cardenvs.coldstart import first_use; "
        "print(json.dumps(first_use(sys.argv[1], use=sys.argv[2])))"
    )
    out = subprocess.run(
        [sys.executable, "-c", program, env_id, use], env=environ, capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])
