"""A game is one folder: High Card (``tests/example_game/``), registered from here, goes through every consumer.

PettingZoo's ``api_test`` and ``seed_test``, the checks every built-in game passes (``test_api``,
``test_vector``: invariants, docstrings, the vector env against the AEC env over whole games, threads), the
arena with its numba policy and a search agent, a tiny Deep Monte Carlo run in a subprocess and the web
app's watch page. ``docs/adding-a-game.md`` walks through the folder; the last test checks that nothing
outside it names the game.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import example_game
import numpy as np
import pytest
import test_api
import test_vector
from pettingzoo.test import api_test, seed_test

import cardenvs
from cardenvs import registry
from cardenvs.agent import known_agents, load_agent
from cardenvs.arena import run_tournament
from cardenvs.core.play import play_episode

ROOT = Path(__file__).resolve().parents[1]
GAME = example_game.SPEC.env_id  # "highcard_v0"
TEXT_SUFFIXES = (".py", ".pyi", ".yaml", ".toml", ".md", ".html", ".js", ".css", ".cfg", ".txt", ".json")
VARIANTS = [pytest.param({}, id="default"), pytest.param({"players": 3, "hand_size": 4}, id="three")]


@pytest.fixture(autouse=True, scope="module")
def registered():
    """High Card is in the registry while this module's tests run, and only then: tests of other modules
    that list every registered game (in the same pytest worker) see the built-in games alone."""
    example_game.register()
    yield
    registry._SPECS.pop(GAME)  # the registry has no unregister: a game outside the package stays for good


def test_the_registry_knows_it_by_id_and_short_name():
    assert registry.resolve_id("highcard") == GAME and registry.spec_of(GAME) is example_game.SPEC
    assert GAME in registry.env_ids() and GAME not in cardenvs.ENV_IDS  # ENV_IDS: the games cardenvs ships
    env = cardenvs.make("highcard", players=3, hand_size=4)
    assert env.unwrapped.num_players == 3
    with pytest.raises(ValueError, match="3 hands of 5 need 15 cards; the suit has 13"):
        cardenvs.make("highcard", players=3)
    assert {"highcard.highest", "highcard.lowest", "highcard.pimc", "highcard.ismcts"} <= set(known_agents(GAME))


@pytest.mark.parametrize("options", VARIANTS)
def test_pettingzoo_api_and_seed(options):
    module = registry.env_module(GAME)
    api_test(module.env(**options), num_cycles=200)
    api_test(module.raw_env(**options), num_cycles=200)
    seed_test(lambda: module.env(**options), num_cycles=200)


#: the checks of every built-in game (tests/test_api.py, tests/test_vector.py), run on High Card
CHECKS_OF_A_VARIANT = [
    test_api.test_random_play_invariants,
    test_api.test_invariants_after_every_step,
    test_vector.test_vector_equals_aec_over_whole_games,
    test_vector.test_threads_give_the_same_results_and_invariants_hold,
]
CHECKS_OF_A_GAME = [
    test_api.test_same_seed_same_deal_regardless_of_play,
    test_api.test_bad_options_and_decks,
    test_api.test_illegal_and_out_of_range_actions,
    test_api.test_order_enforcing_and_spaces,
    test_api.test_docstring_matches_layout,
    test_api.test_docstring_spec_table_matches_the_spaces,
    test_api.test_ansi_render,
    test_api.test_unknown_reset_options_are_errors,
    test_api.test_deck_forms,
    test_api.test_order_errors_name_reset,
]


@pytest.mark.parametrize("options", VARIANTS)
@pytest.mark.parametrize("check", CHECKS_OF_A_VARIANT, ids=lambda f: f.__name__)
def test_the_checks_of_every_variant(check, options):
    check(GAME, options)


@pytest.mark.parametrize("check", CHECKS_OF_A_GAME, ids=lambda f: f.__name__)
def test_the_checks_of_every_game(check):
    check(GAME)


def test_the_rules_on_a_stacked_deck():
    """player_0 holds 2S..6S, player_1 7S..JS (top of the deck first): player_1 takes every trick."""
    env = cardenvs.make("highcard", illegal_action="raise")
    deck = "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"
    episode = play_episode(env, lambda seat, obs: int(np.flatnonzero(obs["action_mask"])[0]), options={"deck": deck})
    assert episode.steps == 10 and episode.scores == [0.0, 5.0] and episode.rewards == [-1.0, 1.0]
    env.reset(options={"deck": deck})
    env.step(4)  # player_0 leads its 6S; player_1 answers with the lowest card (7S) and leads the next trick
    env.step(int(load_agent("highcard.lowest", env).act(env.observe("player_1"), np.random.default_rng(0))))
    assert env.unwrapped.state.taken.tolist()[:2] == [0, 1] and env.agent_selection == "player_1"
    assert env.unwrapped.layout.decode(env.observe("player_0")["observation"])["played"].nonzero()[0].tolist() == [4, 5]


def test_search_sees_only_what_its_seat_sees():
    """The determinizer re-deals the other hand and the stock, keeps the seat's own hand and the hand sizes."""
    from cardenvs import search

    env = cardenvs.make("highcard")
    env.reset(seed=4)
    env.step(int(np.flatnonzero(env.observe("player_0")["action_mask"])[0]))
    base = env.unwrapped
    before = base.states[0].copy()
    hidden = before["hands"][0] + before["stock"]
    deals = [search.determinized(base.states, 0, base.params, 1, seed=9, k=k)[0] for k in range(20)]
    for deal in deals:
        assert (deal["hands"][1] == before["hands"][1]).all() and (deal["trick"] == before["trick"]).all()
        assert deal["hands"][0].sum() == before["hands"][0].sum()
        assert ((deal["hands"][0] + deal["stock"]) == hidden).all()
    assert len({deal["hands"][0].tobytes() for deal in deals}) > 1
    agent = load_agent("highcard.pimc(playouts=50)", env)
    assert env.observe("player_1")["action_mask"][agent.act(env.observe("player_1"), np.random.default_rng(1))]


def test_duplicate_arena_with_the_policy_random_and_search():
    agents = ["highcard.highest", "random", "highcard.pimc(playouts=30)"]
    results = run_tournament("highcard", agents, 20, seed=3, options={"players": 3, "hand_size": 4})
    assert len(results.records) == 20 * 6  # each deal in the six seatings of three agents
    assert not any(r.illegal for r in results.records)
    stats = results.stats()
    assert all(stats[a]["games"] == 120 for a in results.agents)
    assert stats[agents[2]]["win_rate"] > stats["random"]["win_rate"], results.table()
    assert "highcard.pimc(playouts=30)" in results.report()


def test_arena_workers_take_the_registered_game():
    """Worker processes (spawned: they start without the caller's registrations) play the outside game."""
    one = run_tournament("highcard", ["highcard.highest", "random"], 4, seed=1)
    two = run_tournament("highcard", ["highcard.highest", "random"], 4, seed=1, workers=2)
    assert [r.outcome for r in two.records] == [r.outcome for r in one.records]


#: a tiny DMC run (tests/test_dmc.py's budget)
TINY_DMC = {
    "num_envs": 16,
    "batch_size": 64,
    "rollout_steps": 8,
    "hidden": "[32]",
    "move_hidden": 16,
    "head_hidden": 16,
    "eval_minutes": 0,
}


@pytest.mark.slow
def test_a_tiny_dmc_run_in_a_subprocess(tmp_path):
    """The trainer takes a game by name from the registry: the subprocess registers High Card, then runs
    ``cardenvs.training.dmc.main``; the arena plays the checkpoint."""
    pytest.importorskip("torch")
    argv = ["--set", "game=highcard", "--total-frames", "300", "--out", str(tmp_path), "--final-eval-games", "2"]
    for key, value in TINY_DMC.items():
        argv += ["--set", f"{key}={value}"]
    code = (
        "import sys, example_game; example_game.register(); "
        f"from cardenvs.training import dmc; sys.exit(dmc.main({argv!r}))"
    )
    path = os.pathsep.join(str(p) for p in (ROOT / "tests", ROOT, ROOT / "src"))
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    model = tmp_path / "highcard__dmc__1" / "model.pt"  # the run name {game}__{exp}__{seed}
    assert model.exists() and (model.parent / "final_eval.json").exists(), sorted(tmp_path.rglob("*"))
    results = run_tournament("highcard", [f"dmc:{model}", "random"], 2, seed=5)
    assert len(results.records) == 4 and not any(r.illegal for r in results.records)


def test_the_web_apps_watch_page():
    pytest.importorskip("starlette", reason="the web extra is not installed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # starlette's deprecation note on httpx
        from starlette.testclient import TestClient
    from cardenvs.web import create_app

    client = TestClient(create_app(), base_url="http://127.0.0.1:8000")
    assert 'id="game-highcard"' in client.get("/").text
    query = {"mode": "watch", "game": "highcard", "agents": "highcard.highest,random", "seed": 6}
    response = client.get("/new", params=query, follow_redirects=False)
    assert response.status_code == 303, response.text
    sid = response.headers["location"].rsplit("/", 1)[1]
    page = client.get(f"/game/{sid}")
    assert page.status_code == 200 and "<svg" in page.text
    views = [client.get(f"/api/game/{sid}").json()]
    assert all(len(seat["cards"]) == 5 for seat in views[0]["seats"])
    for _ in range(3):
        response = client.post(f"/api/game/{sid}/next", json={"step": views[-1]["step"]})
        assert response.status_code == 200, response.text
        views.append(response.json())
    assert [v["step"] for v in views] == [0, 1, 2, 3] and len(views[-1]["log"]) == 3
    assert views[-1]["log"][0]["agent"] == "highcard.highest"
    seat_view = client.post(f"/api/game/{sid}/view", json={"viewer": 1}).json()
    assert seat_view["seats"][0]["cards"] is None and len(seat_view["seats"][1]["cards"]) in (3, 4)
    assert sum(seat["count"] for seat in seat_view["seats"]) == 10 - 3
    assert "hidden cards" in seat_view["text"]


def test_nothing_outside_its_folder_names_the_game():
    files = [ROOT / "pyproject.toml"]
    for folder in ("src", "agents", "training", "benchmarks", "configs"):
        files += [
            path
            for path in (ROOT / folder).rglob("*")
            if path.suffix in TEXT_SUFFIXES and not any(part.endswith(".egg-info") for part in path.parts)
        ]  # build metadata (SOURCES.txt lists every file, tests included) is not the package's source
    names = ("highcard", "high card", "example_game")
    named = [str(p.relative_to(ROOT)) for p in files if any(n in p.read_text(errors="replace").lower() for n in names)]
    assert named == []
