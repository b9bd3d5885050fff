"""The arena's two engines on the same tournaments: games per second of ``cardenvs arena`` with the vector
engine (every game of a job at once, :mod:`cardenvs.arena.batched`) as a ratio to the AEC engine (one game at a
time) measured in the same run, for three copies of a game's heuristic and, with torch, a shipped DMC model
against two heuristics. Both engines give the same records; the time is the tournament's (``run_plan``:
agents built, games played, records made), after one small warm-up tournament each."""

from __future__ import annotations

import importlib.util
import time

from cardenvs.agent import shipped_models
from cardenvs.arena import plan_tournament, run_plan
from cardenvs.registry import short_name

from .common import row

TABLES = [
    ("doudizhu_v0", ["doudizhu.rule"] * 3),
    ("twos_v0", ["twos.heuristic"] * 3),
]


def describe(agents: list[str]) -> str:
    """``["doudizhu.dmc", "doudizhu.rule", "doudizhu.rule"]`` -> ``dmc + 2 rule``."""
    names = [a.partition(".")[2] or a for a in agents]
    return " + ".join(f"{names.count(n)} {n}" if names.count(n) > 1 else n for n in dict.fromkeys(names))


def games_per_second(env_id: str, agents: list[str], deals: int, engine: str) -> float:
    run_plan(plan_tournament(env_id, agents, 2, seed=1, engine=engine))  # warm-up: kernels, agents loaded
    plan = plan_tournament(env_id, agents, deals, seed=0, engine=engine)
    start = time.perf_counter()
    results = run_plan(plan)
    return len(results.records) / (time.perf_counter() - start)


def run(quick: bool = False) -> list[dict]:
    deals = 100 if quick else 1000
    tables = list(TABLES)
    if importlib.util.find_spec("torch") is not None and "doudizhu.dmc" in shipped_models():
        tables.append(("doudizhu_v0", ["doudizhu.dmc", "doudizhu.rule", "doudizhu.rule"]))
    rows = []
    for env_id, agents in tables:
        n = deals if "doudizhu.dmc" not in agents else deals // 5
        aec = games_per_second(env_id, agents, n, "aec")
        batched = games_per_second(env_id, agents, n, "vector")
        table = f"arena {short_name(env_id)}: {describe(agents)}"
        rows.append(row(f"{table}, AEC engine", aec, "games/s", note=f"{n} duplicate deals"))
        rows.append(
            row(
                f"{table}, vector engine",
                batched,
                "games/s",
                f"{env_id} AEC engine (same run)",
                batched / aec,
                f"{n} duplicate deals, one vector env per job",
            )
        )
    return rows
