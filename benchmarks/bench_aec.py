"""AEC steps per second of random masked play through ``env()`` for every registered env, as a ratio to
PettingZoo's own ``connect_four_v3`` measured in the same run with the same loop."""

from __future__ import annotations

import cardenvs
from cardenvs.registry import make

from .common import SAMPLER_NOTE, aec_random_steps_per_second, row


def run(quick: bool = False) -> list[dict]:
    seconds = 1.0 if quick else 3.0
    rows = []
    reference = None
    try:
        from pettingzoo.classic import connect_four_v3

        ref_sps, _ = aec_random_steps_per_second(connect_four_v3.env, seconds)
        reference = "connect_four_v3"
        rows.append(
            row("aec_random_steps connect_four_v3", ref_sps, "steps/s", note="PettingZoo reference; " + SAMPLER_NOTE)
        )
    except ImportError as exc:  # pygame missing: ours alone, no ratio, and the reason
        ref_sps = None
        print(
            f"PettingZoo's connect_four_v3 not measured: {exc} (pip install 'cardenvs[bench]'); no ratios",
            flush=True,
        )
    for env_id in cardenvs.ENV_IDS:
        sps, games = aec_random_steps_per_second(lambda env_id=env_id: make(env_id), seconds)
        rows.append(
            row(
                f"aec_random_steps {env_id}",
                sps,
                "steps/s",
                reference,
                sps / ref_sps if ref_sps else None,
                f"{games} games; " + SAMPLER_NOTE,
            )
        )
    return rows
