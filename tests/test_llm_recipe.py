"""The local model recipe's benchmark (``benchmarks/llm_recipe.py``) against the tests' scripted chat server
(``chatserver.py``): its counts say what the seat did (legal moves read, first tries, rethinks, fallbacks, calls)
and agree with each other; and the tables docs/llm.md shows are the committed runs' JSON
(``docs/results/llm-recipe-*.json``), rendered by the benchmark."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from chatserver import ChatServer

ROOT = Path(__file__).resolve().parents[1]
SPEC = importlib.util.spec_from_file_location("llm_recipe", ROOT / "benchmarks" / "llm_recipe.py")
assert SPEC is not None and SPEC.loader is not None
recipe = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(recipe)


@pytest.fixture(scope="module")
def runs() -> dict[str, dict]:
    """One game of Twos against random per behaviour of the server: the scripted player (``twin``), an unreadable
    first answer then the scripted one (``garbage``), and never a readable one (``garbage-always``)."""
    with ChatServer() as server:
        return {
            model: recipe.run(server.url, model, games=1, game_names=("twos",), budget_min=60)
            for model in ("twin", "garbage", "garbage-always")
        }


def only_table(run: dict, opponent: str = "random") -> dict:
    tables = [t for t in run["tables"] if t["opponent"] == opponent]
    assert len(tables) == 1
    return tables[0]


def test_plan_every_game_against_random_then_its_heuristic(runs):
    assert [(t["game"], t["opponent"]) for t in runs["twin"]["tables"]] == [
        ("twos", "random"),
        ("twos", "twos.heuristic"),
    ]
    assert recipe.heuristic_of("doudizhu") == "doudizhu.rule"
    assert "war" not in recipe.GAMES  # its only move is always legal: a seat is never asked


def test_a_model_that_answers_legally_at_once(runs):
    t = only_table(runs["twin"])
    assert t["asked"] > 0 and t["decisions"] >= t["asked"]
    assert t["legal_read"] == t["first_try"] == t["asked"] == t["calls"]
    assert t["fallbacks"] == t["rethinks"] == 0 and t["faults"] == {} and t["first_fault"] is None
    assert t["warnings"] == [] and t["consistent"]
    assert t["input_tokens"] > 0 and t["latency_ms_p50"] <= t["latency_ms_p95"]
    assert all("Final Answer:" in a for a in t["answers"]) and len(t["answers"]) <= recipe.SAMPLE_ANSWERS


def test_a_model_read_after_a_rethink(runs):
    t = only_table(runs["garbage"])
    assert t["legal_read"] == t["asked"] > 0 and t["first_try"] == 0
    assert t["rethinks"] == t["asked"] and t["calls"] == 2 * t["asked"] and t["fallbacks"] == 0 and t["consistent"]


def test_a_model_never_read_is_the_fallback_and_says_so(runs):
    t = only_table(runs["garbage-always"])
    assert t["legal_read"] == t["first_try"] == 0 and t["fallbacks"] == t["asked"] > 0
    assert t["calls"] == 2 * t["asked"] and t["faults"] == {"garbage": t["asked"]} and t["consistent"]
    assert t["first_fault"]["kind"] == "garbage"
    assert any("measured the fallback" in w for w in t["warnings"])


def test_the_results_are_standard_json(runs):
    for run in runs.values():
        json.dumps(run, allow_nan=False)  # raises on a NaN
        assert run["tables"][0]["win_rate_ci"] == [None, None]  # one game: no interval


def test_the_markdown_has_a_row_per_table(runs):
    lines = recipe.markdown(runs["garbage-always"]).splitlines()
    assert len(lines) == 2 + len(runs["garbage-always"]["tables"])
    t = only_table(runs["garbage-always"])
    assert lines[2].startswith(f"| twos | random | 1 | {t['decisions']} | {t['asked']} | 0 | {t['asked']} |")


RESULTS = sorted((ROOT / "docs" / "results").glob("llm-recipe-*.json"))


@pytest.mark.parametrize("path", RESULTS, ids=[p.stem for p in RESULTS])
def test_the_docs_show_the_committed_runs(path):
    """docs/llm.md's table of a real model's run is the committed JSON as the benchmark renders it, and the run's
    counts agree (a figure in the docs that no run gave, or a run whose counts disagree, fails here)."""
    result = json.loads(path.read_text(encoding="utf-8"))
    assert all(t["consistent"] for t in result["tables"])
    assert recipe.markdown(result) in (ROOT / "docs" / "llm.md").read_text(encoding="utf-8")


def test_runs_are_committed():
    assert len(RESULTS) >= 2, "docs/results/llm-recipe-*.json: the runs of both registry models"
