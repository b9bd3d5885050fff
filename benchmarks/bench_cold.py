"""Cold start: CPU seconds of a new process's first AEC ``reset`` plus 50 random moves with an empty numba
cache (everything the game needs compiled), against the same with the cache that run filled (warm)."""

from __future__ import annotations

import tempfile

from cardenvs.cache import first_use_in_new_process
from cardenvs.registry import env_ids

from .common import row


def run(quick: bool = False) -> list[dict]:
    rows = []
    for env_id in ["war_v0"] if quick else env_ids():
        with tempfile.TemporaryDirectory() as cache_home:
            cold = first_use_in_new_process(env_id, cache_home)["cpu"]
            warm = first_use_in_new_process(env_id, cache_home)["cpu"]
        rows.append(
            row(
                f"{env_id} cold start (empty cache, reset + 50 moves)",
                cold,
                "CPU s",
                "the same with the cache it filled (warm)",
                cold / warm,
                f"warm: {warm:.2f} CPU s; a new process each, import included",
            )
        )
    return rows
