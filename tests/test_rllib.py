"""Ray RLlib on the one learner adapter: the vector learner view as RLlib's vector env (next-step autoreset,
mask beside the observation), snapshots of the learner in the one opponent pool, a local smoke run."""

import json

import gymnasium
import numpy as np
import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.rllib")

from cardenvs.opponents import OpponentPool  # noqa: E402
from cardenvs.training.rllib_policies import RLlibAgent  # noqa: E402
from cardenvs.training.rllib_selfplay import make_env  # noqa: E402
from cardenvs.vector import LearnerVectorEnv  # noqa: E402


def env_config(**extra):
    return {"env_id": "twenty_v0", "options": {}, "opponents": {"twenty.greedy": 1.0}, "num_envs": 3} | extra


def test_the_env_is_the_learner_view_with_its_mask_in_the_observation():
    env = make_env(env_config())
    assert isinstance(env.unwrapped, LearnerVectorEnv) and isinstance(env.unwrapped.pool, OpponentPool)
    assert env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    obs, _ = env.reset(seed=0)
    assert set(obs) == {"observation", "action_mask"} and obs["action_mask"].dtype == np.int8
    assert env.observation_space.contains(obs) and obs["action_mask"].shape == (3, env.single_action_space.n)
    again, _ = make_env(env_config()).reset(seed=0)
    np.testing.assert_array_equal(obs["observation"], again["observation"])
    ended = 0
    for _ in range(80):
        actions = np.argmax(obs["action_mask"], axis=1)
        obs, rewards, terminated, truncated, _ = env.step(actions)
        assert env.observation_space.contains(obs)
        done = terminated | truncated
        assert not obs["action_mask"][done].any(), "an ended game shows an all-0 mask (next-step autoreset)"
        assert obs["action_mask"][~done].any(axis=1).all()
        ended += int(done.sum())
    assert ended >= 3


def test_a_snapshot_of_the_module_plays_in_the_pool():
    """A frozen copy of the masked RLModule is an agent that plays batches (``act_batch``) in the pool: legal
    greedy moves, drawn from the pool, the same as its one-game ``act``."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from cardenvs.training.rllib_module import MaskedPPOTorchRLModule

    env = make_env(env_config(snapshot_weight=1.0))
    module = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        observation_space=env.single_observation_space,
        action_space=env.single_action_space,
        model_config={"fcnet_hiddens": [16]},
    ).build()
    moves = []
    agent = RLlibAgent.from_module(module, "snapshot_1")

    def watched(batch):  # the snapshot's batch call, as the learner view makes it for an agent in the pool
        actions = agent.act_batch(batch, ())
        assert batch["action_mask"][np.arange(len(actions)), actions].all(), "an illegal snapshot move"
        for i, action in enumerate(actions):
            row = {"observation": batch["observation"][i], "action_mask": batch["action_mask"][i].astype(np.int8)}
            assert agent.act(row, np.random.default_rng(0)) == action
        moves.append(len(actions))
        return actions

    pool = env.unwrapped.pool
    pool.add_snapshot(watched)
    pool.set_weight(0, 0.0)  # only the snapshot is drawn
    obs, _ = env.reset(seed=1)
    for _ in range(40):
        obs, *_ = env.step(np.argmax(obs["action_mask"], axis=1))
    assert sum(moves) >= 20


def test_settings_come_from_the_one_config_loader(tmp_path, capsys):
    from cardenvs.training.rllib_selfplay import DEFAULTS, parse_args

    cfg = parse_args(
        ["--config", "configs/twenty_rllib.yaml", "--steps", "5000", "--minutes", "2", "--seed", "7",
         "--set", "lr=0.001", "--iterations", "3"]
    )  # fmt: skip
    assert (cfg["total_steps"], cfg["minutes"], cfg["seed"], cfg["lr"], cfg["iterations"]) == (5000, 2.0, 7, 0.001, 3)
    assert cfg["opponents"] == {"twenty.greedy": 0.8, "random": 0.2} and set(cfg) == set(DEFAULTS)
    for argv, message in (
        (["--set", "lr_rate=1"], "unknown config keys ['lr_rate']"),
        (["--config", str(tmp_path / "none.yaml")], "does not exist"),
        (["--set", "opponents=[random]"], "config key opponents must be a mapping"),
        (["--steps", "0"], "argument --steps"),
        (["--set", "lr=0.001"], "no game: name one"),
    ):
        with pytest.raises(SystemExit):
            parse_args(argv)
        assert message in capsys.readouterr().err


@pytest.mark.slow
def test_smoke_run_two_env_runners_snapshots_then_arena(tmp_path):
    from cardenvs.training.rllib_selfplay import main

    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        code = main(
            [
                "--config",
                "configs/twenty_rllib.yaml",
                "--iterations",
                "2",
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
                "num_envs_per_env_runner=2",
                "--set",
                "snapshot_win_rate=-1.0",  # a snapshot after every iteration
            ]
        )
        assert code == 0
    finally:
        ray.shutdown()
    log = json.loads((tmp_path / "twenty__rllib__1" / "log.json").read_text())
    assert len(log) == 2 and log[-1]["env_steps"] > 0
    assert [row["snapshots"] for row in log] == [0, 1]
    assert log[0]["snapshot_taken_by_runners"] == 2  # both env runners' pools hold the snapshot
    from cardenvs.arena import run_tournament

    checkpoint = tmp_path / "twenty__rllib__1" / "checkpoint"
    results = run_tournament("twenty", [f"rllib:{checkpoint}", "random"], 2, seed=0)
    assert results.stats()[results.agents[0]]["games"] == 4
