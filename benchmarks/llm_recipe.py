"""What a served chat model does at the table (issue 64, item 5; docs/llm.md, "A local model from the package
registries"): one ``llm:`` seat against ``random`` in every other seat, then against the game's heuristic (its
first numba policy, ``twos.heuristic``, ``doudizhu.rule``, ...), on each game, a few games a table, with what the
seat did written as JSON. Not a CI test: it needs a served model (llama.cpp's ``llama-server``, or any
OpenAI-compatible endpoint); ``tests/test_llm_recipe.py`` plays it against the tests' scripted chat server.

    python -m benchmarks.llm_recipe --base-url http://127.0.0.1:8766/v1 --model smollm2-135m --games 1 \\
        --out docs/results/llm-recipe-smollm2.json

Each table is ``arena.run_tournament(game, [SEAT, OPP, OPP, ...], games, duplicate=False, engine="aec",
transcripts=DIR)``, the seat ``llm:MODEL(base_url=...,max_tokens=...,rethink=...,fallback=random,move_ms=...,
game_ms=...)`` (with a fallback every game finishes, and the warnings say when the fallback made the moves;
``--game-ms`` bounds a table's time where a call takes tens of seconds: once a game's calls have taken that long,
each further decision is a ``timeout`` fault and the fallback's move). Per table, read
from the arena's results (:meth:`~cardenvs.arena.Results.usage`, ``warnings``, ``stats``, the records'
``decisions`` and ``usage``) and the games' transcripts:

* ``decisions``: the seat's moves; ``asked``: those with more than one legal move (one call or more each; a single
  legal move is played without one);
* ``legal_read``: the asked decisions whose move the model made: an answer the parser read as a legal move, at
  the first try (``first_try``) or after rethinks; ``fallbacks``: the moves the fallback made after a fault;
* ``calls``, ``rethinks``, ``input_tokens``, ``output_tokens`` (the endpoint's counts), ``latency_ms_p50`` and
  ``latency_ms_p95`` (over every call of the table), ``faults`` by kind, the ``first_fault``, the arena's
  ``warnings``;
* ``win_rate`` of the model's seat (with fallback ``random``, a model that reads nothing is ``random``);
* ``answers``: the first :data:`SAMPLE_ANSWERS` answers, each cut to :data:`SAMPLE_CHARS` characters;
* ``consistent``: whether the counts agree (``asked == legal_read + fallbacks``, ``calls`` = the transcripts'
  answers, the arena's ``fallbacks`` = the transcripts' faults); ``seconds``: the table's wall time.

``--budget-min`` bounds the run: once that many minutes have passed no further table is started (the tables left
are listed under ``not_played``). The tables go every game against ``random``, then every game against its
heuristic. War is left out: its only move is always legal, so a seat is never asked.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from cardenvs import arena
from cardenvs.registry import make, short_name, spec_of

#: the games played, in order (War, whose only move is always legal, never asks a seat)
GAMES = ("twenty", "twos", "two_way_street", "doudizhu", "guandan")
#: answers kept per table as examples, and the characters kept of each
SAMPLE_ANSWERS, SAMPLE_CHARS = 3, 200


def heuristic_of(game: str) -> str:
    """The game's heuristic: its first numba policy's agent name (``twos.heuristic``, ``doudizhu.rule``)."""
    return spec_of(game).policy_agents()[0]


def seat_name(model: str, base_url: str, max_tokens: int, rethink: int, move_ms: int, game_ms: int) -> str:
    """The ``llm:`` agent name of the benchmark's seat (fallback ``random``: every game finishes)."""
    return (
        f"llm:{model}(base_url={base_url},max_tokens={max_tokens},rethink={rethink},fallback=random,"
        f"move_ms={move_ms},game_ms={game_ms})"
    )


def _number(x: float) -> float | None:
    """``x``, or None where it is not a number (an interval over one game): the JSON stays standard JSON."""
    return None if x is None or np.isnan(x) else float(x)


def read_transcripts(folder: Path) -> list[dict]:
    """Every decision of the games' transcripts (``game_NNNNNN.jsonl``), in the games' order."""
    entries = []
    for path in sorted(folder.glob("game_*.jsonl")):
        entries += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return entries


def table_figures(results: arena.Results, label: str, entries: list[dict]) -> dict[str, Any]:
    """What the seat ``label`` did in one table (module docstring), from the arena's results and the table's
    transcript entries (all of them the seat's: the other seats are not language models)."""
    usage = results.usage().get(label, {})
    decisions = sum(n for r in results.records for who, n in zip(r.seats, r.decisions, strict=False) if who == label)
    latencies = [x for r in results.records for x in r.usage.get(label, {}).get("latency_ms", [])]
    faulted = [e for e in entries if "fault" in e]
    answers = [a for e in entries for a in e["answers"]]
    read = len(entries) - len(faulted)
    fallbacks = int(usage.get("fallbacks", 0))
    calls = int(usage.get("calls", 0))
    stats = results.stats()[label]
    return {
        "games": stats["games"],
        "decisions": decisions,
        "asked": len(entries),
        "legal_read": read,
        "first_try": sum(1 for e in entries if "fault" not in e and len(e["answers"]) == 1),
        "fallbacks": fallbacks,
        "calls": calls,
        "rethinks": int(usage.get("rethinks", 0)),
        "input_tokens": int(usage.get("input_tokens", 0)),
        "output_tokens": int(usage.get("output_tokens", 0)),
        "latency_ms_p50": float(np.percentile(latencies, 50)) if latencies else None,
        "latency_ms_p95": float(np.percentile(latencies, 95)) if latencies else None,
        "faults": usage.get("faults", {}),
        "first_fault": faulted[0]["fault"] if faulted else None,
        "warnings": results.warnings(),
        "win_rate": _number(stats["win_rate"]),
        "win_rate_ci": [_number(x) for x in stats["win_rate_ci"]],
        "answers": [a[:SAMPLE_CHARS] for a in answers[:SAMPLE_ANSWERS]],
        "consistent": len(entries) == read + fallbacks and calls == len(answers) and fallbacks == len(faulted),
    }


def play_table(game: str, opponent: str, seat: str, games: int, seed: int) -> dict[str, Any]:
    """One table: the seat in one chair, ``opponent`` in every other, ``games`` games rotated over the seats."""
    players = len(make(game).possible_agents)
    agents = [seat] + [opponent] * (players - 1)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="llm_recipe_") as folder:
        results = arena.run_tournament(
            game, agents, games, seed=seed, duplicate=False, engine="aec", transcripts=folder
        )
        entries = read_transcripts(Path(folder))
    figures = table_figures(results, results.agents[0], entries)
    return {
        "game": short_name(game),
        "opponent": opponent,
        "players": players,
        **figures,
        "seconds": round(time.monotonic() - started, 1),
    }


def run(
    base_url: str,
    model: str,
    games: int = 1,
    seed: int = 0,
    max_tokens: int = 64,
    rethink: int = 1,
    move_ms: int = 120_000,
    game_ms: int = 3_600_000,
    game_names: tuple[str, ...] = GAMES,
    budget_min: float = 25.0,
    note: str = "",
) -> dict[str, Any]:
    """Every table (module docstring) until ``budget_min`` minutes have passed; the results as a dict."""
    seat = seat_name(model, base_url, max_tokens, rethink, move_ms, game_ms)
    plan = [(g, "random") for g in game_names] + [(g, heuristic_of(g)) for g in game_names]
    out: dict[str, Any] = {
        "model": model,
        "seat": seat,
        "games_per_table": games,
        "seed": seed,
        "note": note,
        "started": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cores": os.cpu_count(),
        "load_average_start": round(os.getloadavg()[0], 2),
        "tables": [],
        "not_played": [],
    }
    started = time.monotonic()
    for game, opponent in plan:
        if time.monotonic() - started > budget_min * 60:
            out["not_played"].append(f"{game} vs {opponent}")
            continue
        out["tables"].append(play_table(game, opponent, seat, games, seed))
    out["load_average_end"] = round(os.getloadavg()[0], 2)
    out["minutes"] = round((time.monotonic() - started) / 60, 1)
    return out


def markdown(result: dict[str, Any]) -> str:
    """The run as the table docs/llm.md shows: one row per table."""
    rows = [
        "| game | against | games | decisions | asked | legal read | fallbacks | calls | tokens in / out "
        "| latency p50 / p95 | faults |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for t in result["tables"]:
        latency = (
            "-"
            if t["latency_ms_p50"] is None
            else f"{t['latency_ms_p50'] / 1000:.1f} / {t['latency_ms_p95'] / 1000:.1f} s"
        )
        faults = ", ".join(f"{n} {kind}" for kind, n in t["faults"].items()) or "none"
        rows.append(
            f"| {t['game']} | {t['opponent']} | {t['games']} | {t['decisions']} | {t['asked']} | {t['legal_read']} "
            f"| {t['fallbacks']} | {t['calls']} | {t['input_tokens']:,} / {t['output_tokens']:,} | {latency} "
            f"| {faults} |"
        )
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8766/v1", help="the endpoint, up to /v1")
    parser.add_argument("--model", required=True, help="the model's name, as the endpoint takes it")
    parser.add_argument("--games", type=int, default=1, help="games per table")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-tokens", type=int, default=64, help="the most tokens of one answer")
    parser.add_argument("--rethink", type=int, default=1)
    parser.add_argument("--move-ms", type=int, default=120_000, help="milliseconds for one call")
    parser.add_argument("--game-ms", type=int, default=3_600_000, help="milliseconds for all of a game's calls")
    parser.add_argument("--only", nargs="+", default=list(GAMES), help="the games, in order")
    parser.add_argument("--budget-min", type=float, default=25.0, help="no table is started after this")
    parser.add_argument("--note", default="", help="kept in the JSON: how the model was served")
    parser.add_argument("--out", help="write the results here as JSON")
    args = parser.parse_args()
    result = run(
        args.base_url,
        args.model,
        args.games,
        args.seed,
        args.max_tokens,
        args.rethink,
        args.move_ms,
        args.game_ms,
        tuple(args.only),
        args.budget_min,
        args.note,
    )
    print(markdown(result))
    for t in result["tables"]:
        if not t["consistent"]:
            print(f"INCONSISTENT counts: {t['game']} vs {t['opponent']}")
        for warning in t["warnings"]:
            print(f"{t['game']} vs {t['opponent']}: WARNING: {warning}")
    print(
        f"{result['minutes']} min; load average {result['load_average_start']} -> {result['load_average_end']} "
        f"on {result['cores']} cores; not played: {', '.join(result['not_played']) or 'none'}"
    )
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1, allow_nan=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
