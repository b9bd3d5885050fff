"""Shipping a stronger model under the name users already use (issue 63, item 5): a game spec's
``shipped_runs`` pins a shipped name to a run folder of ``training/results`` before the newest-run rule, so the
new Guandan model plays as ``guandan.dmc`` and the one it replaces as ``guandan.dmc_v1``; found on disk as
:func:`shipped_models` finds every model (here a temporary results folder), listed among the agent names, loaded
by name. A pin to a folder that is not there is an error, not a quiet fallback to the old model."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from cardenvs import make
from cardenvs.agent import known_agents, load_agent, loader, shipped_models

ROOT = Path(__file__).resolve().parents[1]
OLD = ROOT / "training" / "results" / "guandan__dmc__1" / "model.pt"
#: the learner of issue 63 as committed for --resume (DanZero's state features: another network than OLD's)
NEW = ROOT / "docs" / "study" / "guandan-learner" / "checkpoints" / "guandan__dmc_v2_small__1" / "model.pt"
PINS = {"guandan.dmc": "guandan__dmc_v2_small__1", "guandan.dmc_v1": "guandan__dmc__1"}


@pytest.fixture
def results(tmp_path, monkeypatch):
    """A results folder holding the old Guandan model and the new one, in place of the package's."""
    folder = tmp_path / "results"
    for run, model in (("guandan__dmc__1", OLD), ("guandan__dmc_v2_small__1", NEW)):
        (folder / run).mkdir(parents=True)
        shutil.copy(model, folder / run / "model.pt")
    monkeypatch.setattr(loader, "_results_folders", lambda: [folder])
    monkeypatch.setattr(loader, "_SHIPPED_LOADED", {})  # no model loaded by another test under the same name
    return folder


def test_without_pins_the_newest_run_of_each_experiment_plays(results, monkeypatch):
    monkeypatch.setattr(loader, "pinned_runs", dict)
    (results / "guandan__dmc__3").mkdir()
    shutil.copy(OLD, results / "guandan__dmc__3" / "model.pt")
    assert shipped_models() == {"guandan.dmc": results / "guandan__dmc__3" / "model.pt"}


def test_a_pinned_model_takes_the_name_and_the_one_it_replaces_keeps_a_versioned_one(results, monkeypatch):
    monkeypatch.setattr(loader, "pinned_runs", lambda: PINS)
    assert shipped_models() == {
        "guandan.dmc": results / "guandan__dmc_v2_small__1" / "model.pt",
        "guandan.dmc_v1": results / "guandan__dmc__1" / "model.pt",
    }
    (results / "guandan__dmc__2").mkdir()  # a newer run of the experiment does not take a pinned name
    shutil.copy(OLD, results / "guandan__dmc__2" / "model.pt")
    assert shipped_models()["guandan.dmc"].parent.name == "guandan__dmc_v2_small__1"
    assert {"guandan.dmc", "guandan.dmc_v1"} <= set(known_agents("guandan"))
    env = make("guandan_v0")
    env.reset(seed=5)
    new, old = load_agent("guandan.dmc", env), load_agent("guandan.dmc_v1", env)
    assert (new.name, old.name) == ("guandan.dmc", "guandan.dmc_v1")
    assert new.args.features != old.args.features  # two networks: the new one reads DanZero's state features
    obs = env.observe(env.agent_selection)
    for agent in (new, old):
        assert obs["action_mask"][agent.act(obs, np.random.default_rng(0))] == 1


def test_a_pin_to_a_missing_run_is_an_error(results, monkeypatch):
    monkeypatch.setattr(loader, "pinned_runs", lambda: {**PINS, "guandan.dmc": "guandan__dmc_v9__1"})
    with pytest.raises(ValueError, match="guandan.dmc is pinned to the run guandan__dmc_v9__1, which has no model.pt"):
        shipped_models()


def test_the_package_pins_only_runs_it_ships():
    """Every pin of the installed package names a run with its model (else every agent listing would fail)."""
    folders = loader._results_folders()
    assert loader.pinned_runs() == PINS  # Guandan's spec (shipped_runs): its model of issue 63, the one it replaced
    for name, run in loader.pinned_runs().items():
        assert any((f / run / "model.pt").is_file() for f in folders), (name, run)
    assert shipped_models()["guandan.dmc"].is_file()


def test_a_model_that_reads_the_state_plays_the_env_it_was_loaded_for(results, monkeypatch):
    """``guandan.dmc`` computes DanZero's features from its env's state (``reads_state``): loaded for a second
    env (the arena loads for each lane or probe env), it must read that env's games, not the first env's (a
    shared cached agent read the first env: stale features, or out-of-bounds reads of a never-reset state).
    A model of the observation alone (``guandan.dmc_v1``) may be shared."""
    monkeypatch.setattr(loader, "pinned_runs", lambda: PINS)
    first, second = make("guandan_v0"), make("guandan_v0")
    first.reset(seed=1)
    second.reset(seed=2)
    a, b = load_agent("guandan.dmc", first), load_agent("guandan.dmc", second)
    assert a.reads_state and b.reads_state
    assert a.base is first.unwrapped and b.base is second.unwrapped
    obs = second.observe(second.agent_selection)
    alone = load_agent(f"dmc:{results / 'guandan__dmc_v2_small__1' / 'model.pt'}", second)
    rows = [
        agent._rows(np.asarray(obs["observation"])[None, :], agent.base.core_state()[1], [0]) for agent in (b, alone)
    ]
    assert np.array_equal(rows[0], rows[1])  # the features of the game being played, as a model loaded for it reads
    assert load_agent("guandan.dmc_v1", first) is load_agent("guandan.dmc_v1", second)
