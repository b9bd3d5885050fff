"""Self-play on the vector learner view (training.wrapper.make_vector_selfplay) and a smoke run of
training.selfplay (needs the train extra)."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import cardenvs
from cardenvs.training.wrapper import make_vector_selfplay

ROOT = Path(__file__).resolve().parents[1]
WAR_SINGLE_PASS = {"single_pass": True}  # exactly 26 battles; player_1's flip ends each, and the game


def play_war(venv, steps: int = 26) -> tuple[np.ndarray, list]:
    """The learner flips ``steps`` times in every game: its rewards [steps, B] and the step results."""
    rewards, results = [], []
    for _ in range(steps):
        venv.step_async(np.zeros(venv.num_envs, dtype=np.int64))
        obs, reward, dones, infos = venv.step_wait()
        rewards.append(reward)
        results.append((dones, infos))
    return np.array(rewards), results


def test_terminal_reward_arrives_when_the_opponent_ends_the_game():
    # learner in seat 0: the game's last action is player_1's flip, an opponent move inside the view
    venv = make_vector_selfplay("war", WAR_SINGLE_PASS, {"random": 1.0}, 16, seat=0, seed=0)
    venv.reset()
    rewards, results = play_war(venv)
    assert not any(dones.any() for dones, _ in results[:-1])
    dones, _ = results[-1]
    assert dones.all()
    assert (rewards[:-1] == 0).all()
    finals = venv.env._b.final_scores  # battles won by each seat
    np.testing.assert_array_equal(rewards[-1], np.sign(finals[:, 0] - finals[:, 1]))
    assert (rewards[-1] == 1).any() and (rewards[-1] == -1).any()  # wins and losses both arrive


def test_learner_seat_rotates_and_points_rewards_sum_to_score_change():
    venv = make_vector_selfplay("war", {**WAR_SINGLE_PASS, "reward": "points"}, {"random": 1.0}, 4, seed=1)
    venv.reset()
    games = np.arange(4)
    offset = venv.env.seat_offset()  # drawn from the reset seed
    for episode in range(3):
        np.testing.assert_array_equal(venv.env.learner_seat, (offset + games + episode) % 2)
        rewards, results = play_war(venv)
        dones, infos = results[-1]
        assert dones.all()
        seats = [info["learner_seat"] for info in infos]
        np.testing.assert_array_equal(seats, (offset + games + episode) % 2)
        finals = venv.env._b.final_scores[games, seats]
        np.testing.assert_array_equal(rewards.sum(axis=0), finals)  # battles won = sum of points rewards


HIDDEN_GAMES = ["twenty_v0", "twos_v0", "doudizhu_v0", "two_way_street_v0"]  # games with hidden hands


@pytest.mark.parametrize("env_id", HIDDEN_GAMES)
def test_opponents_see_only_their_own_observation_and_masks_match(env_id):
    spy_seen = []

    def spy(batch):
        """An opponent that checks it is shown the observations of games where an opponent is to move."""
        view = venv.env
        to_move = view._b.seats
        candidates = np.flatnonzero((to_move != view.learner_seat) & (view.ended == 0))
        for obs, mask in zip(batch["observation"], batch["action_mask"], strict=True):
            rows = candidates[(view._b.obs[candidates] == obs).all(axis=1) & (view._b.mask[candidates] == mask).all(1)]
            assert len(rows), "an opponent was shown an observation that is not its own"
            assert mask.any(), "an opponent was shown a mask that is not its own"
        spy_seen.append(len(batch["action_mask"]))
        return np.argmax(batch["action_mask"], axis=1)

    venv = make_vector_selfplay(env_id, {}, {spy: 1.0}, 4, seat=0, seed=3)
    obs = venv.reset()
    for _ in range(60):
        mask = venv.action_masks()
        view = venv.env
        assert (view._b.seats == view.learner_seat).all()  # the learner is to move in every game
        np.testing.assert_array_equal(mask, view._b.mask)
        np.testing.assert_array_equal(obs, view._b.obs)
        venv.step_async(np.argmax(mask, axis=1))
        obs, _, _, _ = venv.step_wait()
    assert spy_seen, "the opponents never moved"


def test_margin_shaping_adds_score_margin_changes():
    venv = make_vector_selfplay("war", WAR_SINGLE_PASS, {"random": 1.0}, 8, seat=0, seed=0, margin_shaping=0.5)
    venv.reset()
    rewards, results = play_war(venv)
    assert results[-1][0].all()
    finals = venv.env._b.final_scores
    margin = finals[:, 0] - finals[:, 1]
    # the win plus half the final battle margin (the shaping telescopes)
    np.testing.assert_allclose(rewards.sum(axis=0), np.sign(margin) + 0.5 * margin, atol=1e-4)


@pytest.mark.slow
def test_selfplay_smoke_run_writes_a_model_the_arena_plays(tmp_path):
    game = "twenty_v0"
    config = ROOT / "configs" / "twenty_ppo.yaml"
    cmd = [
        sys.executable,
        "-m",
        "cardenvs.training.selfplay",
        "--total-timesteps",
        "256",
        "--out",
        str(tmp_path),
        "--eval-every",
        "128",
        "--eval-games",
        "2",
        "--n-envs",
        "2",
        "--no-progress-bar",
        "--set",
        "ppo.n_steps=64",
        "--set",
        "ppo.batch_size=32",
        "--set",
        "final_eval_games=2",  # the config's 1,000 took 6 of CI's 13 minutes beside the other worker
        "--config",
        str(config),
    ]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    model = next(tmp_path.glob("*/final_model.zip"))
    assert (model.parent / "eval.csv").read_text().count("\n") >= 2
    from cardenvs.arena import run_tournament

    n = cardenvs.make(game).unwrapped.num_players
    results = run_tournament(game, [f"ppo:{model}"] + ["random"] * (n - 1), 2, seed=0)
    assert results.stats()[results.agents[0]]["games"] >= 2


def test_twenty_features_hold_the_hand_counted_outlook():
    from cardenvs.games.twenty.features import action_outlook
    from cardenvs.training.features import feature_size, get_features

    base = cardenvs.make("twenty_v0").unwrapped
    seen = np.zeros(10)
    seen[9] = 16  # every Ten card is seen: the opponent cannot reply with one
    obs = base.layout.encode(
        {
            "own_hand": [1, 0, 0, 0, 1, 0, 0, 0, 0, 0],
            "opponent_hand_size": [5],
            "tally": [15],
            "tally_cards": [3],
            "seen": seen,
            "scores": [40, 10],
        }
    )
    outlook = action_outlook(base.layout.decode(obs))
    # an Ace: tally 16 from 4 cards, no points, does not clear
    assert outlook[0, 0] == 0 and outlook[0, 1] == 0
    # a Five: Exact Twenty, 10 points, clears; a Ten would make 25: 5 points
    assert outlook[4, 0] == 10 and outlook[4, 1] == 1 and outlook[9, 0] == 5
    # after the Ace (16, 4 cards) every card the opponent can hold scores: a 4 is exact (10), below 4 the
    # fifth card is a Five Tally (15), 5..9 go beyond; so the expected best reply is large and positive
    assert 9 < outlook[0, 2] <= 15
    mask = np.array([1, 0, 0, 0, 1, 0, 0, 0, 0, 0], dtype=np.int8)
    x = get_features("twenty")(base, obs, mask)
    assert x.shape == (feature_size("twenty", base),) and x.dtype == np.float32
    # the features start with the scaled observation, less the replayed_hands segment (training/features.py)
    start = base.layout.size - (
        base.layout.slices["replayed_hands"].stop - base.layout.slices["replayed_hands"].start
        if "replayed_hands" in base.layout
        else 0
    )
    tally_one_hot = x[start : start + 20]
    assert tally_one_hot.argmax() == 15 and tally_one_hot.sum() == 1
    assert np.array_equal(x[-10:], mask)  # the mask is the last segment
    scaled = get_features("scaled")(base, obs, mask)
    assert scaled.min() >= 0 and scaled.max() <= 1


def test_unknown_features_name_the_known_ones():
    from cardenvs.training.features import get_features

    with pytest.raises(ValueError, match="unknown observation features 'nope'.*twenty"):
        get_features("nope")


def test_unknown_policy_is_refused_before_the_run_starts(tmp_path, capsys):
    from cardenvs.training.selfplay import main

    with pytest.raises(SystemExit):
        main(["--set", "game=twenty_v0", "--set", "policy=transformer", "--out", str(tmp_path)])
    assert "unknown policy 'transformer'; known: mlp, action_features" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # no run folder was made


def test_action_feature_policy_scores_alike_moves_alike_and_survives_save_load(tmp_path):
    import torch as th
    from sb3_contrib import MaskablePPO

    from cardenvs.games.doudizhu import moves
    from cardenvs.training.heads import ActionFeaturePolicy, action_features

    table = action_features("doudizhu")
    assert table.shape[0] == moves.NUM_ACTIONS
    single_3, single_4 = moves.MOVE_ID["3"], moves.MOVE_ID["4"]
    assert table[single_3, :54].sum() == 1 and table[moves.PASS, :54].sum() == 0
    assert np.abs(table[single_3] - table[single_4]).sum() == 4  # one plane and one main rank differ
    venv = make_vector_selfplay("doudizhu", {}, {"random": 1.0}, 2, seed=0)
    model = MaskablePPO(
        ActionFeaturePolicy,
        venv,
        n_steps=16,
        batch_size=32,
        n_epochs=1,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [32], "action_game": "doudizhu_v0"},
    )
    head = model.policy.action_net
    venv.seed(1)
    obs = venv.reset()
    x = th.as_tensor(obs, dtype=th.float32)
    with th.no_grad():
        logits = head(model.policy.mlp_extractor.forward_actor(model.policy.extract_features(x)))
    assert logits.shape == (2, moves.NUM_ACTIONS)
    for _ in range(5):  # the action chosen is always legal
        masks = venv.action_masks()
        actions, _ = model.predict(obs, action_masks=masks)
        assert masks[np.arange(2), actions].all()
        venv.step_async(actions)
        obs, _, _, _ = venv.step_wait()
    with th.no_grad():
        cached = head.embeddings()
    model.learn(64)  # gradient steps must invalidate the cached embeddings
    with th.no_grad():
        assert not th.equal(head.embeddings(), cached)
    path = tmp_path / "m.zip"
    model.save(path)
    loaded = MaskablePPO.load(path, device="cpu")
    with th.no_grad():
        assert th.allclose(loaded.policy.action_net.embeddings(), head.embeddings())
    masks = venv.action_masks()
    np.testing.assert_array_equal(
        loaded.predict(obs, action_masks=masks, deterministic=True)[0],
        model.predict(obs, action_masks=masks, deterministic=True)[0],
    )


def test_selfplay_takes_the_shared_budget_flags_and_its_old_spellings():
    pytest.importorskip("sb3_contrib")
    from cardenvs.training.selfplay import parse_args

    game = ["--set", "game=twenty"]
    args = parse_args([*game, "--steps", "700", "--minutes", "2.5", "--seed", "4", "--no-progress"])
    assert (args.total_timesteps, args.time_limit_minutes, args.seed, args.progress_bar) == (700, 2.5, 4, False)
    old = parse_args([*game, "--total-timesteps", "800", "--time-limit-minutes", "3", "--no-progress-bar"])
    assert (old.total_timesteps, old.time_limit_minutes, old.progress_bar) == (800, 3.0, False)


def test_plot_curves_reads_one_curve_per_opponent(tmp_path):
    """A DMC eval.csv has an opponent column (a row per opponent at each checkpoint): each opponent is a curve;
    an eval.csv without it is one curve."""
    from cardenvs.training.plot_curves import read_eval

    header = "frames,minutes,win_rate,win_rate_lo,win_rate_hi,mean_score"
    (tmp_path / "eval.csv").write_text(
        f"{header},opponent\n10,1.0,0.4,0.3,0.5,-1,guandan.heuristic\n10,1.0,0.2,0.1,0.3,-2,danzero:x.onnx\n"
        "20,2.0,0.5,0.4,0.6,0,guandan.heuristic\n"
    )
    curves = read_eval(tmp_path)
    assert list(curves) == ["guandan.heuristic", "danzero:x.onnx"]
    assert curves["guandan.heuristic"]["win_rate"] == [0.4, 0.5] and curves["danzero:x.onnx"]["frames"] == [10.0]
    (tmp_path / "eval.csv").write_text(f"{header}\n10,1.0,0.4,0.3,0.5,-1\n")
    assert read_eval(tmp_path) == {
        "": {k: [v] for k, v in zip(header.split(","), [10, 1, 0.4, 0.3, 0.5, -1], strict=True)}
    }
