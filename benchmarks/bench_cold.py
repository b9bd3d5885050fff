"""Cold start: CPU seconds of a new process's first AEC ``reset`` plus 50 random moves with an empty numba
cache (everything the game needs compiled), against the same with the cache that run filled (warm)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

from cardenvs.cache import FIRST_USE_PROGRAM
from cardenvs.registry import env_ids

from .common import row


def first_use_cpu_seconds(env_id: str, cache_home: str) -> float:
    environ = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "CARDENVS_NUMBA_CACHE_SET")}
    environ["XDG_CACHE_HOME"] = cache_home
    out = subprocess.run(
        [sys.executable, "-c", FIRST_USE_PROGRAM, env_id], env=environ, capture_output=True, text=True, check=True
    ).stdout
    return float(json.loads(out.strip().splitlines()[-1])["cpu"])


def run(quick: bool = False) -> list[dict]:
    rows = []
    for env_id in ["war_v0"] if quick else env_ids():
        with tempfile.TemporaryDirectory() as cache_home:
            cold = first_use_cpu_seconds(env_id, cache_home)
            warm = first_use_cpu_seconds(env_id, cache_home)
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
