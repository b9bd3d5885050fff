"""Twenty: full random-play matches per second through the AEC API, and the solver's speed."""

from __future__ import annotations

import time

from cardenvs.registry import make

from .common import aec_random_steps_per_second, row


def run(quick: bool = False) -> list[dict]:
    seconds = 1.0 if quick else 3.0
    sps, games = aec_random_steps_per_second(lambda: make("twenty_v0"), seconds)
    from cardenvs.arena import run_tournament

    start = time.perf_counter()
    n = 10 if quick else 40
    run_tournament(
        "twenty_v0", ["twenty.solver", "twenty.greedy"], n, options={"exposed_hands": True, "swap_deals": True}
    )
    solver_time = time.perf_counter() - start
    return [
        row("twenty random matches (2 rounds)", games / seconds, "matches/s", note=f"{sps:,.0f} AEC steps/s"),
        row(
            "twenty solver vs greedy, exposed",
            2 * n / solver_time,
            "matches/s",
            note="exact negamax over each pair of five-card hands, memoised",
        ),
    ]
