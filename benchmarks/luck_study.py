"""Deals needed for an interval width, plain against luck-adjusted (``cardenvs arena --luck-adjusted``,
:mod:`cardenvs.arena.luck`): each table of :data:`TABLES` is played once with the adjusted estimates on, in the
duplicate mode (every seating of a deal: the arena's default) and with one seating per deal (``--no-duplicate``),
and its first agent's win rate and mean score and its score margin over the second agent are reported plain and
adjusted, with the variance ratio and the deals each needs for the table's interval widths (deals scale as the
variance: ``deals_adjusted = deals_plain / variance_ratio``).

    python -m benchmarks.luck_study                      # every table (docs/luck-adjusted.md's numbers)
    python -m benchmarks.luck_study --tables twenty --scale 0.2
    python -m benchmarks.luck_study --out docs/study/luck  # also a JSON summary per table
    python -m benchmarks.luck_study --coverage 40          # how often the intervals cover a known truth
    python -m benchmarks.luck_study --coverage 200 --out docs/study/luck  # with every seed's numbers as JSON
    python -m benchmarks.luck_study --coverage 40 --coverage-table search  # the same with a search's sampled terms
    python -m benchmarks.luck_study --value model          # the value function: each game's shipped model
    python -m benchmarks.luck_study --ceiling              # what any unbiased term could remove at most

``--ceiling`` plays each table's duplicate deals twice, the same deals with independent generators for the
agents, and reports the correlation ``rho`` of the first agent's per-deal results between the two plays. With the
deal fixed, every decision term has mean zero, so no term can remove the part of the variance that the deal
decides (``rho`` of it): the variance ratio of any luck-adjusted estimate whose deal term is constant over the
duplicate set (every score and margin of a zero-sum game, and the win rate where one seat wins each game) is at
most ``1 / rho``, whatever the value function. A table of deterministic agents has ``rho = 1``.

Each row's command is the ``cardenvs arena`` line that plays the same games (the same seed and counts).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cardenvs.agent import load_agent
from cardenvs.arena import deal_games, game_seed, play_one, run_tournament
from cardenvs.registry import make


@dataclass(frozen=True)
class Table:
    name: str
    env_id: str
    agents: tuple[str, ...]
    deals: int  # duplicate deals
    single_deals: int  # deals with one seating each
    win_width: float  # the full 95% interval widths to reach: win rate, score margin
    margin_width: float


TABLES = (
    Table("doudizhu", "doudizhu_v0", ("doudizhu.dmc", "doudizhu.rule", "doudizhu.rule"), 300, 1000, 0.05, 0.2),
    Table("twos", "twos_v0", ("twos.pimc(playouts=50)", "twos.heuristic", "twos.heuristic"), 150, 600, 0.05, 0.05),
    Table("twenty", "twenty_v0", ("twenty.greedy", "twenty.dmc"), 400, 1000, 0.05, 5.0),
    Table(
        "two_way_street",
        "two_way_street_v0",
        ("two_way_street.heuristic", "random", "two_way_street.heuristic", "random"),
        40,
        150,
        0.05,
        1.0,
    ),
)


def needed(width: float, deals: int, target: float) -> float:
    """Deals for a full interval width ``target``, from a run of ``deals`` that reached ``width``."""
    return deals * (width / target) ** 2 if width > 0 and math.isfinite(width) else math.nan


def value_name(table: Table, value: str) -> str | None:
    """The ``luck_value`` of a run: the game's own (``default``) or its shipped model (``model``: GAME.dmc)."""
    return None if value == "default" else f"{table.name}.dmc"


def study(table: Table, duplicate: bool, seed: int, scale: float, value: str = "default") -> dict:
    deals = max(4, round((table.deals if duplicate else table.single_deals) * scale))
    start = time.perf_counter()
    res = run_tournament(
        table.env_id,
        list(table.agents),
        deals,
        seed=seed,
        duplicate=duplicate,
        luck_adjusted=True,
        luck_value=value_name(table, value),
    )
    seconds = time.perf_counter() - start
    data = res.to_dict()
    first, second = res.agents[0], res.agents[1]
    stats, pair = data["stats"][first], data["head_to_head"][first][second]
    rows = {}
    for key, plain, ci, adjusted, target in (
        ("win rate", stats["win_rate"], stats["win_rate_ci"], stats["adjusted"]["win_rate"], table.win_width),
        (
            "mean score",
            stats["mean_score"],
            stats["mean_score_ci"],
            stats["adjusted"]["mean_score"],
            table.margin_width,
        ),
        (
            f"score margin over {second}",
            pair["score_margin"],
            pair["score_margin_ci"],
            pair["adjusted"]["score_margin"],
            table.margin_width,
        ),
    ):
        plain_deals = needed(ci[1] - ci[0], deals, target)
        ratio = adjusted["variance_ratio"]
        rows[key] = {
            "plain": [plain, *ci],
            "adjusted": [adjusted["mean"], adjusted["low"], adjusted["high"]],
            "variance_ratio": ratio,
            "width": target,
            "deals_plain": plain_deals,
            "deals_adjusted": plain_deals / ratio if ratio and math.isfinite(ratio) else math.nan,
        }
    agents = ",".join(table.agents)
    flags = "" if duplicate else " --no-duplicate"
    if value_name(table, value):
        flags += f" --luck-value {value_name(table, value)}"
    return {
        "table": table.name,
        "mode": "duplicate" if duplicate else "one seating per deal",
        "value": res.luck["value"] if res.luck else None,
        "deals": deals,
        "games": len(res.records),
        "seconds": round(seconds, 1),
        "reference_deals": res.luck["deals"] if res.luck else None,
        "command": f'cardenvs arena {table.name} --agents "{agents}" --games {deals} --seed {seed}{flags} '
        "--luck-adjusted",
        "first": first,
        "rows": rows,
    }


def ceiling(table: Table, seed: int, scale: float) -> dict:
    """The table's duplicate deals played twice with independent agent generators (module docstring): per
    estimate (the first agent's win rate and mean score, its margin over the second) the correlation ``rho`` of
    the per-deal results and the bound ``1 / rho`` on the variance ratio of terms that have mean zero given the
    deal."""
    deals = max(4, round(table.deals * scale))
    env = make(table.env_id)
    base = env.unwrapped  # the env the agents play on (a search reads its state)
    agents = [load_agent(name, base) for name in table.agents]
    games = deal_games(base, range(deals), True, False)
    found = np.zeros((2, 3, deals))  # play, estimate, deal
    count = np.zeros((3, deals))
    start = time.perf_counter()
    for play in range(2):
        for d, k, perm, reset_options in games:
            rng = np.random.default_rng([seed, play, d, k])  # the agents' draws: independent between the plays
            labels = [str(i) for i in perm]
            r = play_one(env, [agents[i] for i in perm], labels, game_seed(seed, d), rng, reset_options or None, d, k)
            mine, other = labels.index("0"), labels.index("1")
            found[play, 0, d] += 1.0 if r.outcome[mine] > 0 else 0.0
            found[play, 1, d] += r.scores[mine]
            found[play, 2, d] += r.scores[mine] - r.scores[other]
            if play == 0:
                count[:, d] += 1
    found /= count
    rows = {}
    for i, key in enumerate(("win rate", "mean score", f"score margin over {table.agents[1]}")):
        a, b = found[0, i], found[1, i]
        rho = float(np.corrcoef(a, b)[0, 1]) if a.std() > 0 and b.std() > 0 else math.nan
        if np.array_equal(a, b):
            rho = 1.0  # the same results in both plays: the agents drew nothing that mattered
        rows[key] = {"rho": rho, "bound": 1.0 / rho if rho > 0 else math.inf}
    return {
        "table": table.name,
        "deals": deals,
        "games": 2 * len(games),
        "seconds": round(time.perf_counter() - start, 1),
        "rows": rows,
    }


#: the coverage checks' tables: (env id, agents, duplicate, luck samples, what is played)
COVERAGE = {
    "random": ("twenty_v0", ["random", "random"], False, None, "twenty, random against random, one seating per deal"),
    "search": (
        "twos_v0",
        ["twos.pimc(playouts=10)", "twos.pimc(playouts=10)", "twos.heuristic"],
        True,
        2,
        "twos, PIMC (10 playouts) against itself and the heuristic, duplicate deals, 2 resamples per search",
    ),
}


def coverage(seeds: int, deals: int, table: str = "random") -> tuple[list[str], dict]:
    """``seeds`` tournaments of ``deals`` deals of a :data:`COVERAGE` table whose first two agents are the same
    (the seats alternating, or every seating): how often the plain and the adjusted 95% intervals of the first
    label's score margin over the second cover the truth, 0, and the adjusted mean's average (unbiased: about
    0). ``random``: random play's known distribution; ``search``: a search's sampled one. Returns the report's
    line and a summary with every seed's numbers (``--out`` writes it as ``coverage-TABLE-DEALS.json``)."""
    env_id, agents, duplicate, samples, what = COVERAGE[table]
    covered = {"plain": 0, "adjusted": 0}
    means, plain_means, ratios, per_seed = [], [], [], []
    start = time.perf_counter()
    first, second = (f"{agents[0]}#1", f"{agents[0]}#2")
    for seed in range(seeds):
        res = run_tournament(
            env_id, agents, deals, seed=seed, duplicate=duplicate, luck_adjusted=True, luck_samples=samples
        )
        pair = res.to_dict()["head_to_head"][first][second]
        low, high = pair["score_margin_ci"]
        adjusted = pair["adjusted"]["score_margin"]
        covered["plain"] += low <= 0.0 <= high
        covered["adjusted"] += adjusted["low"] <= 0.0 <= adjusted["high"]
        means.append(adjusted["mean"])
        plain_means.append(pair["score_margin"])
        ratios.append(adjusted["variance_ratio"])
        per_seed.append(
            {
                "seed": seed,
                "plain": [pair["score_margin"], low, high],
                "adjusted": [adjusted["mean"], adjusted["low"], adjusted["high"]],
                "variance_ratio": adjusted["variance_ratio"],
            }
        )
    seconds = time.perf_counter() - start
    error = {k: statistics.stdev(v) / math.sqrt(seeds) for k, v in (("plain", plain_means), ("adjusted", means))}
    gaps = [a - p for a, p in zip(means, plain_means, strict=True)]
    summary = {
        "table": table,
        "what": what,
        "agents": agents,
        "seeds": [0, seeds - 1],
        "deals_per_seed": deals,
        "seconds": round(seconds, 1),
        "command": (
            f"python -m benchmarks.luck_study --coverage {seeds} --coverage-deals {deals} "
            f"--coverage-table {table} --out docs/study/luck"
        ),
        "covered": covered,
        "mean_plain": statistics.mean(plain_means),
        "mean_adjusted": statistics.mean(means),
        "standard_error": error,
        "adjusted_minus_plain": [statistics.mean(gaps), statistics.stdev(gaps) / math.sqrt(seeds)],
        "variance_ratio": {"median": statistics.median(ratios), "min": min(ratios), "max": max(ratios)},
        "per_seed": per_seed,
    }
    lines = [
        f"coverage: {what}, {seeds} seeds x {deals} deals, "
        f"{seconds:.0f} s: the 95% interval of the score margin covers 0 in {covered['plain']}/{seeds} (plain) "
        f"and {covered['adjusted']}/{seeds} (adjusted); means average {statistics.mean(plain_means):+.3f} plain "
        f"(standard error {error['plain']:.3f}) and {statistics.mean(means):+.3f} adjusted ({error['adjusted']:.3f}), "
        f"adjusted minus plain {statistics.mean(gaps):+.3f} ({statistics.stdev(gaps) / math.sqrt(seeds):.3f}); "
        f"variance ratio median {statistics.median(ratios):.2f}, range "
        f"{min(ratios):.2f} to {max(ratios):.2f}"
    ]
    return lines, summary


def markdown(out: dict) -> list[str]:
    lines = [
        f"{out['table']}, {out['mode']}: {out['deals']} deals ({out['games']} games), {out['seconds']} s; "
        f"`{out['command']}`",
        "",
        f"| {out['first']} | plain [95% CI] | adjusted [95% CI] | variance ratio | width | deals plain | "
        "deals adjusted |",
        "|---|---|---|---|---|---|---|",
    ]
    for key, row in out["rows"].items():
        p, a = row["plain"], row["adjusted"]
        lines.append(
            f"| {key} | {p[0]:.3f} [{p[1]:.3f}, {p[2]:.3f}] | {a[0]:.3f} [{a[1]:.3f}, {a[2]:.3f}] | "
            f"{row['variance_ratio']:.2f} | {row['width']:g} | {row['deals_plain']:.0f} | {row['deals_adjusted']:.0f} |"
        )
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", default=",".join(t.name for t in TABLES), help="comma-separated table names")
    parser.add_argument("--modes", default="duplicate,single", help="duplicate, single or both (comma-separated)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every table's deals (a quick look)")
    parser.add_argument("--out", help="a folder for one JSON summary per table and mode")
    parser.add_argument("--coverage", type=int, metavar="SEEDS", help="only the coverage check, over SEEDS seeds")
    parser.add_argument("--coverage-deals", type=int, default=20, help="deals per coverage seed (default 20)")
    parser.add_argument(
        "--coverage-table", choices=tuple(COVERAGE), default="random", help="the coverage table (default random)"
    )
    parser.add_argument(
        "--value", choices=("default", "model"), default="default", help="the game's value function or its model"
    )
    parser.add_argument("--ceiling", action="store_true", help="only the replicate correlations (module docstring)")
    args = parser.parse_args(argv)
    if args.coverage is not None:
        if args.coverage < 2 or args.coverage_deals < 2:
            parser.error("--coverage and --coverage-deals must be at least 2")
        load = os.getloadavg()
        lines, summary = coverage(args.coverage, args.coverage_deals, args.coverage_table)
        summary["load_average"] = {"start": list(load), "end": list(os.getloadavg())}
        print("\n".join(lines))
        if args.out:
            folder = Path(args.out)
            folder.mkdir(parents=True, exist_ok=True)
            name = f"coverage-{args.coverage_table}-{args.coverage_deals}.json"
            (folder / name).write_text(json.dumps(summary, indent=1) + "\n")
        return
    known = {t.name: t for t in TABLES}
    names = [n.strip() for n in args.tables.split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if unknown:
        parser.error(f"unknown table {unknown[0]!r}; known: {', '.join(known)}")
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not modes or any(m not in ("duplicate", "single") for m in modes):
        parser.error(f"--modes {args.modes!r}: expected duplicate, single or both")
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (1, 5, 15 min)")
    folder = Path(args.out) if args.out else None
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        if args.ceiling:
            out = ceiling(known[name], args.seed, args.scale)
            print(
                f"{name}: {out['deals']} duplicate deals played twice ({out['games']} games), {out['seconds']} s: "
                + "; ".join(f"{k} rho {r['rho']:.3f}, bound {r['bound']:.2f}" for k, r in out["rows"].items()),
                flush=True,
            )
            if folder is not None:
                (folder / f"{name}-ceiling.json").write_text(json.dumps(out, indent=1) + "\n")
            continue
        for mode in modes:
            out = study(known[name], mode == "duplicate", args.seed, args.scale, args.value)
            print("\n".join(markdown(out)) + "\n", flush=True)
            if folder is not None:
                suffix = "" if args.value == "default" else f"-{args.value}"
                (folder / f"{name}-{mode}{suffix}.json").write_text(json.dumps(out, indent=1) + "\n")
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (1, 5, 15 min)")


if __name__ == "__main__":
    main()
