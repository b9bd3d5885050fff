"""Guandan's return (issue 63, item 3): the searched return (``policies.searched_return``, the agent
``guandan.return_search``'s) plays the best card of its own search, the heuristic's card on ties; the agents'
choices at the RETURN phase are those the results page states; and ``docs/results/guandan-return.md`` is generated
from its committed run (``benchmarks/guandan_return.py``)."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import cardenvs
from cardenvs.agent import load_agent
from cardenvs.core.rng import next_u64
from cardenvs.core.seeds import policy_stream
from cardenvs.games.guandan import moves, policies, rules
from cardenvs.games.guandan.policies import return_values, searched_return

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bench():
    """``benchmarks.guandan_return`` imported by its name (its numba kernels are cached: loaded from the cache,
    numba re-imports their module by name, which a module made from a file path has not got)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return importlib.import_module("benchmarks.guandan_return")


def return_states(bench, variant: str, count: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The first ``count`` deals' states at their first return (heuristics everywhere), with their params."""
    env = cardenvs.make("guandan", **({"variant": variant} if variant == "match" else {"episode": "match"}))
    base = env.unwrapped
    out = []
    for deal in range(100):
        env.reset(seed=deal)
        st, params = base.core_state().states.copy(), base.core_state().params.copy()
        if bench.play_to_return(st, params, bench.ANY_TEAM):
            out.append((st, params))
        if len(out) == count:
            return out
    raise AssertionError("too few deals with a return")


def test_the_searched_return_is_its_searchs_best_card(bench):
    differs = kept = 0
    for st, params in return_states(bench, "match", 16):
        ids = np.empty(moves.NUM_ACTIONS, dtype=np.int64)
        values = np.zeros(moves.NUM_ACTIONS)
        n = return_values(st, 0, params, np.uint64(5), 2, ids, values)
        ids, values = ids[:n], values[:n]
        heuristic = int(policies.heuristic(st, 0, params, np.zeros(1, np.uint64)))
        chosen = int(searched_return(st, 0, params, np.uint64(5), 2))
        assert chosen in ids and heuristic in ids
        if values[list(ids).index(heuristic)] == values.max():
            assert chosen == heuristic  # a tie keeps the heuristic's card
            kept += heuristic != ids[int(np.argmax(values))]  # ... where it is not the first best
        else:
            assert chosen == ids[int(np.argmax(values))]  # the first best card
            differs += 1
        assert chosen == int(searched_return(st, 0, params, np.uint64(5), 2))  # the seed decides
        # the values are the hand points the seat scores, over two deals: at most 3 levels won or lost
        assert np.all(np.abs(values) <= 3) and np.all(values == np.round(values * 2) / 2)
    assert differs > 0 and kept > 0  # both cases met: the search moves away, a tie keeps the heuristic's card


def test_the_searched_return_is_only_for_the_return(bench):
    env = cardenvs.make("guandan", variant="match")
    env.reset(seed=0)
    st, params = env.unwrapped.core_state().states.copy(), env.unwrapped.core_state().params
    with pytest.raises(ValueError, match="not in the RETURN phase"):
        searched_return(st, 0, params, np.uint64(0), 4)


def test_pimc_returns_the_lowest_card_in_the_two_hand_match(bench):
    """The page's table: in the two-hand ``match`` variant every rollout is truncated (outcome 0), so
    ``guandan.pimc`` ties every return and plays the lowest legal id; a whole match's rollouts score."""
    for variant in ("match", "whole"):
        for st, params in return_states(bench, variant, 2):
            env = cardenvs.make("guandan", **({"variant": "match"} if variant == "match" else {"episode": "match"}))
            base = env.unwrapped
            env.reset(seed=0)
            base.set_state(st[0], params=params)
            agent = load_agent("guandan.pimc(playouts=40)", base)
            obs = base.observe(base.agent_selection)
            action = agent.act(obs, np.random.default_rng(0))
            assert st[0]["phase"] == rules.RETURN
            if variant == "match":
                assert np.all(agent.last.values == 0) and action == np.flatnonzero(obs["action_mask"])[0]
            else:
                assert np.any(agent.last.values != 0)


def test_the_page_is_the_committed_run(bench):
    run = json.loads((ROOT / "docs" / "study" / "guandan-return" / "run.json").read_text())
    page = (ROOT / "docs" / "results" / "guandan-return.md").read_text()
    assert page == bench.render_page(run)
    assert f"`{run['command']}`" in page and run["date"] in page
    for study in ("two_hand", "whole"):
        s = run[study]
        assert f"--{study.replace('_', '-')} {s['deals']}" in run["command"]
        for arm, v in s["summary"]["points"].items():
            assert v[1] <= v[0] <= v[2]
            rows = [line for line in page.splitlines() if line.startswith(f"| {bench.arm_text(arm)} |")]
            assert any(bench.figure(v) in row for row in rows), arm
        points = {a: np.asarray(x) for a, x in s["points"].items()}
        assert s["summary"]["points"]["searched"] == bench.paired(points["searched"] - points["heuristic"])
    assert run["two_hand"]["with_return"] == len(run["two_hand"]["points"]["heuristic"])
    assert all(len(w) == run["whole"]["deals"] for w in run["whole"]["wins"].values())


def test_a_small_run_writes_its_json(bench, tmp_path):
    out = tmp_path / "run.json"
    bench.main(["--two-hand", "4", "--whole", "1", "--models", "", "--search-deals", "2", "--json", str(out)])
    run = json.loads(out.read_text())
    assert run["arms"] == ["heuristic", "searched", "random"]
    assert run["whole"]["deals"] == 1 and len(run["whole"]["points"]["searched"]) == 1
    assert run["two_hand"]["with_return"] == len(run["two_hand"]["points"]["random"])
    assert run["command"].endswith("--search-deals 2 --json " + str(out))
    assert bench.render_page(run).startswith("# Guandan: what the return costs")


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--two-hand", "x"], "invalid int value: 'x'"),
        (["--whole", "-1"], "--whole must be >= 0"),
        (["--search-deals", "0"], "--search-deals must be >= 1"),
    ],
)
def test_argument_errors_are_one_line(bench, argv, says, capsys):
    with pytest.raises(SystemExit):
        bench.main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert says in err[-1]


def test_the_return_search_agent_plays_the_searched_return(bench):
    """``guandan.return_search`` returns the searched card (seeded by one draw of its stream), and moves as the
    heuristic everywhere else."""
    env = cardenvs.make("guandan", variant="match")
    base = env.unwrapped
    env.reset(seed=0)
    agent = load_agent("guandan.return_search", base)
    heuristic_agent = load_agent("guandan.heuristic", base)
    changed = 0
    for st, params in return_states(bench, "match", 6):
        base.set_state(st[0], params=params)
        action = agent.act(base.observe(base.agent_selection), np.random.default_rng(3))
        seed = next_u64(np.array([policy_stream(np.random.default_rng(3))], dtype=np.uint64))
        assert action == searched_return(st, 0, params, seed, policies.SEARCH_DEALS)
        changed += action != heuristic_agent.act(base.observe(base.agent_selection), np.random.default_rng(3))
    assert changed > 0
    env.reset(seed=1)  # the first hand: no tribute; every move is the heuristic's, no draw made
    for _ in range(40):
        obs = env.observe(env.agent_selection)
        rng = np.random.default_rng(5)
        action = agent.act(obs, rng)
        assert action == heuristic_agent.act(obs, np.random.default_rng(5))
        assert rng.bit_generator.state == np.random.default_rng(5).bit_generator.state
        env.step(action)
