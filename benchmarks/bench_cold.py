"""Cold start: CPU seconds of a new process's first use of a game with an empty numba cache (everything that
use needs compiled), against the same with the cache that run filled (warm). Two uses: the AEC env's first
``reset`` plus 50 random moves, and the vector env's (64 games) first ``reset`` plus 50 random steps."""

from __future__ import annotations

import tempfile

from cardenvs.coldstart import FIRST_USE_BATCH, first_use_in_new_process
from cardenvs.registry import env_ids

from .common import row

WHAT = {"aec": "reset + 50 moves", "vector": f"vector env of {FIRST_USE_BATCH}, reset + 50 steps"}


def run(quick: bool = False) -> list[dict]:
    rows = []
    for env_id in ["war_v0"] if quick else env_ids():
        for use in ["aec"] if quick else list(WHAT):
            with tempfile.TemporaryDirectory() as cache_home:
                cold = first_use_in_new_process(env_id, cache_home, use)["cpu"]
                warm = first_use_in_new_process(env_id, cache_home, use)["cpu"]
            rows.append(
                row(
                    f"{env_id} cold start (empty cache, {WHAT[use]})",
                    cold,
                    "CPU s",
                    "the same with the cache it filled (warm)",
                    cold / warm,
                    f"warm: {warm:.2f} CPU s; a new process each, import included",
                )
            )
    return rows
