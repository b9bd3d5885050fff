"""Ray RLlib scale-out: the adapter's keys, dtypes and end-of-game observations; a local smoke run."""

import json

import numpy as np
import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.rllib")

from cardenvs.training.rllib_env import ROLES, RLlibCardEnv  # noqa: E402


def play_to_end(env, obs):
    while True:
        role = next(iter(obs))
        action = int(np.flatnonzero(obs[role]["action_mask"])[0])
        obs, rewards, terminateds, truncateds, infos = env.step({role: action})
        if terminateds["__all__"] or truncateds["__all__"]:
            return obs, rewards, terminateds, truncateds, infos


def test_adapter_keys_dtypes_and_spaces():
    env = RLlibCardEnv({"env_id": "twenty_v0", "heuristics": {"twenty.greedy": 1.0}, "seed": 0})
    obs, _ = env.reset()
    assert list(obs) == ["learner"]
    o = obs["learner"]
    assert set(o) == {"observations", "action_mask"}
    assert o["observations"].dtype == np.float32 and o["action_mask"].dtype == np.float32
    space = env.observation_spaces["learner"]
    assert space["observations"].dtype == np.float32 and space.contains(o)
    assert set(env.possible_agents) == set(ROLES)


def test_every_role_observes_the_end_on_termination_and_truncation():
    env = RLlibCardEnv({"env_id": "twenty_v0", "heuristics": {"random": 1.0}, "opponent_share": 1.0, "seed": 1})
    obs, _ = env.reset()
    obs, rewards, terminateds, truncateds, infos = play_to_end(env, obs)
    assert set(obs) == {"learner", "opponent"} and terminateds == {"learner": True, "opponent": True, "__all__": True}
    assert rewards["learner"] == -rewards["opponent"] and abs(rewards["learner"]) in (0.0, 1.0)
    # War truncated after 3 battles: both roles still get an observation, flagged truncated
    env = RLlibCardEnv({"env_id": "war_v0", "options": {"max_turns": 3}, "opponent_share": 1.0, "seed": 1})
    obs, _ = env.reset()
    obs, rewards, terminateds, truncateds, infos = play_to_end(env, obs)
    assert set(obs) == {"learner", "opponent"}
    assert truncateds == {"learner": True, "opponent": True, "__all__": True} and not terminateds["__all__"]
    assert all(o["observations"].dtype == np.float32 for o in obs.values())


def test_illegal_actions_are_counted():
    env = RLlibCardEnv({"env_id": "twenty_v0", "seed": 2})
    obs, _ = env.reset()
    illegal = int(np.flatnonzero(obs["learner"]["action_mask"] == 0)[0])
    with pytest.warns(UserWarning, match="illegal action"):  # env() ends the game with -1 for the offender
        obs, rewards, terminateds, _, infos = env.step({"learner": illegal})
    assert env.illegal_actions == 1 and infos["learner"]["illegal_actions"] == 1
    assert terminateds["__all__"] and rewards["learner"] == -1


def test_settings_come_from_the_one_config_loader(tmp_path, capsys):
    from cardenvs.training.rllib_selfplay import DEFAULTS, parse_args

    cfg = parse_args(
        ["--config", "configs/twenty_rllib.yaml", "--steps", "5000", "--minutes", "2", "--seed", "7",
         "--set", "lr=0.001", "--iterations", "3"]
    )  # fmt: skip
    assert (cfg["total_steps"], cfg["minutes"], cfg["seed"], cfg["lr"], cfg["iterations"]) == (5000, 2.0, 7, 0.001, 3)
    assert cfg["heuristics"] == {"twenty.greedy": 0.8, "random": 0.2} and set(cfg) == set(DEFAULTS)
    for argv, message in (
        (["--set", "lr_rate=1"], "unknown config keys ['lr_rate']"),
        (["--config", str(tmp_path / "none.yaml")], "does not exist"),
        (["--set", "heuristics=[random]"], "config key heuristics must be a mapping"),
        (["--steps", "0"], "argument --steps"),
    ):
        with pytest.raises(SystemExit):
            parse_args(argv)
        assert message in capsys.readouterr().err


@pytest.mark.slow
def test_smoke_run_two_env_runners_then_arena(tmp_path):
    from cardenvs.training.rllib_selfplay import main

    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        code = main(
            [
                "--config",
                "configs/twenty_rllib.yaml",
                "--iterations",
                "3",
                "--steps",
                "1",  # the step budget ends the run after its first iteration
                "--out",
                str(tmp_path),
                "--num-env-runners",
                "2",
                "--set",
                "train_batch_size_per_learner=256",
                "--set",
                "minibatch_size=64",
                "--set",
                "num_epochs=1",
                "--set",
                "num_envs_per_env_runner=1",
            ]
        )
        assert code == 0
    finally:
        ray.shutdown()
    log = json.loads((tmp_path / "twenty__rllib__1" / "log.json").read_text())
    assert len(log) == 1 and log[-1]["env_steps"] > 0
    assert all(row["illegal_actions"] == 0 for row in log)
    from cardenvs.arena import run_tournament

    checkpoint = tmp_path / "twenty__rllib__1" / "checkpoint"
    results = run_tournament("twenty", [f"rllib:{checkpoint}", "random"], 2, seed=0)
    assert results.stats()[results.agents[0]]["games"] == 4
