"""War: the exact sweep probability and the numba game simulator against the AEC env."""

from __future__ import annotations

import time

from cardenvs.games.war.study import p_sweep, simulate_lengths
from cardenvs.registry import make

from .common import aec_random_steps_per_second, row


def run(quick: bool = False) -> list[dict]:
    p_sweep()  # warm
    start = time.perf_counter()
    p_sweep()
    sweep_time = time.perf_counter() - start
    games = 20_000 if quick else 200_000
    simulate_lengths(1000)  # compile
    start = time.perf_counter()
    sim = simulate_lengths(games, seed=1)
    sim_time = time.perf_counter() - start
    battles_per_s = sim["lengths"].sum() / sim_time
    aec_sps, _ = aec_random_steps_per_second(lambda: make("war_v0"), 1.0)
    aec_battles_per_s = aec_sps / 2  # two flips per battle (wars aside)
    return [
        row("war p_sweep exact (52 cards)", sweep_time * 1000, "ms", note="abstract incremental enumeration"),
        row(
            "war simulator battles",
            battles_per_s,
            "battles/s",
            "war_v0 AEC env",
            battles_per_s / aec_battles_per_s,
            f"{games} full games in numba (prange), vs the AEC env stepped from Python",
        ),
    ]
