"""Self-play training on the numba vector env (training.selfplay) and the one opponent pool."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cardenvs import vector
from cardenvs.opponents import OpponentPool

ROOT = Path(__file__).resolve().parents[1]


def test_vector_selfplay_rewards_are_the_learners_own_and_snapshots_join_the_pool(tmp_path):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from cardenvs.training.wrapper import make_vector_selfplay

    venv = make_vector_selfplay("twos", {}, {"twos.heuristic": 1.0}, 8, seed=4)
    obs = venv.reset()
    assert obs.shape == (8, venv.observation_space.shape[0])
    total, finals, ended = np.zeros(8), np.zeros(8), 0
    rng = np.random.default_rng(0)
    for _ in range(400):
        masks = venv.action_masks()
        venv.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        obs, rewards, dones, infos = venv.step_wait()
        total += rewards
        for i in np.flatnonzero(dones):
            finals[i] += venv.env._b.final_scores[i, infos[i]["learner_seat"]] * 1.5 - 0.5  # win: +1, loss: -1/2
            ended += 1
    assert ended > 20
    np.testing.assert_allclose(total, finals, atol=1e-5)
    # a snapshot of a (tiny) model joins the pool and plays through the batched callable
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=32, n_epochs=1, policy_kwargs={"net_arch": [16]})
    path = tmp_path / "snap.zip"
    model.save(str(path))
    venv.env_method("add_snapshot", str(path), 1.0)
    assert venv.env.pool is venv.pool and venv.pool.weights[-1] == 1.0 and venv.pool.snapshots == [1]
    venv.reset()
    for _ in range(50):
        masks = venv.action_masks()
        venv.step_async(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
        venv.step_wait()
    assert (venv.env.seat_kinds < 0).any(), "no seat drew the snapshot"
    # the snapshot is a PPOAgent playing batches: act_batch is act row by row
    from cardenvs import make
    from cardenvs.training.policies import PPOAgent

    agent = PPOAgent(make("twos_v0"), str(path))
    obs, masks = venv.reset(), venv.action_masks()
    rows = zip(obs, masks, strict=True)
    one_by_one = [agent.act({"observation": o, "action_mask": m.astype(np.int8)}, rng) for o, m in rows]
    np.testing.assert_array_equal(agent.act_batch({"observation": obs, "action_mask": masks}, ()), one_by_one)


def test_pool_weights_and_snapshots():
    with pytest.raises(ValueError, match=">= 0"):
        OpponentPool({"random": -1})
    with pytest.raises(ValueError, match="no positive weight"):
        OpponentPool({"random": 0.0})
    pool = OpponentPool({"random": 1.0, "heuristic": 0.0}, snapshot_weight=0.6, max_snapshots=2)
    rng = np.random.default_rng(0)
    assert (pool.draw(rng, 50) == 0).all()  # a zero weight is never drawn
    first, second, third = (pool.add_snapshot(f"snap{k}") for k in range(3))
    # the newest two snapshots share 0.6; the oldest stays in the pool at weight 0
    np.testing.assert_allclose(pool.weights, [1.0, 0.0, 0.0, 0.3, 0.3])
    assert (first, second, third) == (2, 3, 4) and pool.snapshots == [2, 3, 4]
    pool.add_snapshot("snap3", 2.0)
    np.testing.assert_allclose(pool.weights, [1.0, 0.0, 0.0, 0.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="no positive weight left"):
        OpponentPool({"random": 1.0}).set_weight(0, 0.0)
    # the learner view plays the pool it is given: entries added to it directly are drawn too
    venv = vector.make("twos", 8, learner="rotate", opponents=OpponentPool({"random": 1.0}))
    venv.pool.add("twos.heuristic", 0.0)
    venv.set_opponent_weight(1, 1.0)
    venv.set_opponent_weight(0, 0.0)
    venv.reset(seed=0)
    heuristic = venv.pool_kinds[1]
    seats = np.arange(venv.seat_kinds.shape[1])
    others = venv.seat_kinds[seats[None, :] != venv.learner_seat[:, None]]
    assert (others == heuristic).all()


@pytest.mark.slow
def test_pools_with_python_agents_train_through_the_sb3_adapter():
    pytest.importorskip("sb3_contrib")
    from cardenvs.training.wrapper import make_vector_selfplay

    venv = make_vector_selfplay("twenty", {}, {"twenty.solver": 1.0, "random": 1.0}, 4, seed=2)
    venv.reset()
    ended = 0
    for _ in range(80):
        venv.step_async(np.argmax(venv.action_masks(), axis=1))
        _, _, dones, _ = venv.step_wait()
        ended += int(dones.sum())
    assert ended > 0
    assert (venv.env.seat_kinds < 0).any(), "no seat drew the Python agent"


@pytest.mark.slow
def test_selfplay_on_the_vector_env_writes_a_model_the_arena_plays(tmp_path):
    pytest.importorskip("sb3_contrib")
    cmd = [
        sys.executable,
        "-m",
        "cardenvs.training.selfplay",
        "--config",
        str(ROOT / "configs" / "twos_ppo.yaml"),
        "--total-timesteps",
        "512",
        "--out",
        str(tmp_path),
        "--eval-every",
        "256",
        "--eval-games",
        "2",
        "--no-progress-bar",
        "--set",
        "final_eval_games=2",
        "--set",
        "ppo.n_steps=32",
        "--set",
        "ppo.batch_size=64",
        "--set",
        "snapshot_weight=0.5",
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    model = tmp_path / "twos__ppo__1" / "final_model.zip"
    assert model.exists()
    arena = subprocess.run(
        [
            sys.executable,
            "-m",
            "cardenvs.cli",
            "arena",
            "twos",
            "--agents",
            f"ppo:{model},twos.heuristic,random",
            "--games",
            "2",
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert arena.returncode == 0, arena.stderr[-3000:]
    assert "ppo:" in arena.stdout
