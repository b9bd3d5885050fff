"""The self-play wrapper and a smoke run of training.selfplay (needs the train extra)."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import cardenvs
from cardenvs.core.cards import format_cards, make_deck
from cardenvs.training.opponents import OpponentPool
from cardenvs.training.wrapper import SelfPlayEnv

ROOT = Path(__file__).resolve().parents[1]


def single_pass_deck(player_0_wins: bool) -> list[str]:
    """A War deck where one player's every card outranks the other's: a 26-0 single pass."""
    deck = sorted(make_deck(), key=lambda c: c // 4)  # low ranks first
    low, high = deck[:26], deck[26:]
    first, second = (high, low) if player_0_wins else (low, high)
    return format_cards(first + second).split()


@pytest.mark.parametrize("learner_wins", [True, False])
def test_terminal_reward_arrives_when_the_opponent_ends_the_game(learner_wins):
    # learner in seat 0: the game's last action is player_1's flip, an opponent move inside the wrapper
    env = SelfPlayEnv("war_v0", {"single_pass": True}, OpponentPool({"random": 1.0}), seat=0, seed=0)
    env.reset(options={"deck": single_pass_deck(player_0_wins=learner_wins)})
    rewards = []
    while True:
        _, r, term, trunc, info = env.step(0)
        rewards.append(r)
        if term or trunc:
            break
    assert len(rewards) == 26 and term and not trunc
    assert rewards[-1] == (1.0 if learner_wins else -1.0)
    assert sum(rewards[:-1]) == 0
    assert info["outcome"] == rewards[-1]


def test_learner_seat_rotates_and_points_rewards_sum_to_score_change():
    env = SelfPlayEnv("war_v0", {"single_pass": True, "reward": "points"}, seat="rotate", seed=1)
    for episode in range(4):
        env.reset()
        assert env.learner_seat == episode % 2
        total = 0.0
        while True:
            _, r, term, trunc, info = env.step(0)
            total += r
            if term or trunc:
                break
        assert total == info["score"]  # battles won = sum of points rewards


class Spy:
    """An opponent that records what it is shown."""

    name = "spy"

    def __init__(self, env):
        self.env = env
        self.seen = []

    def act(self, observation, rng):
        self.seen.append((self.env.agent_selection, observation))
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[0])


HIDDEN_GAMES = ["twenty_v0", "twos_v0", "doudizhu_v0", "two_way_street_v0"]  # games with hidden hands


@pytest.mark.parametrize("env_id", HIDDEN_GAMES)
def test_opponents_see_only_their_own_observation_and_masks_match(env_id):
    env = SelfPlayEnv(env_id, {}, OpponentPool({"random": 1.0}), seat=0, seed=3)
    obs, _ = env.reset()
    spy = Spy(env.base)
    env.opponents = {s: spy for s in env.opponents}
    learner = env.learner
    for _ in range(60):
        mask = env.action_masks()
        np.testing.assert_array_equal(mask, env.aec.observe(learner)["action_mask"].astype(bool))
        np.testing.assert_array_equal(obs, env.aec.observe(learner)["observation"])
        obs, _, term, trunc, _ = env.step(int(np.flatnonzero(mask)[0]))
        if term or trunc:
            break
    assert spy.seen, "the opponents never moved"
    for agent, seen in spy.seen:
        assert agent != learner
        assert seen["action_mask"].any(), "an opponent was shown a mask that is not its own"


def test_pool_weights_and_snapshots():
    pool = OpponentPool({"random": 1.0, "x": 0.0})
    with pytest.raises(ValueError, match=">= 0"):
        OpponentPool({"random": -1})
    env = cardenvs.make("war")
    rng = np.random.default_rng(0)
    assert all(pool.sample(rng, env.unwrapped).name == "random" for _ in range(20))
    pool.add_snapshot("a.zip", 2.0)
    assert pool.names()[-1] == "ppo:a.zip"


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
        "vec_env=dummy",
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


def test_margin_shaping_adds_score_margin_changes():
    env = SelfPlayEnv("war_v0", {"single_pass": True}, seat=0, seed=0, margin_shaping=0.5)
    env.reset(options={"deck": single_pass_deck(player_0_wins=True)})
    total = 0.0
    while True:
        _, r, term, trunc, _ = env.step(0)
        total += r
        if term or trunc:
            break
    assert total == pytest.approx(1.0 + 0.5 * 26)  # the win plus half the 26-0 battle margin


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
    env = SelfPlayEnv("doudizhu_v0", {}, OpponentPool({"random": 1.0}), seed=0)
    model = MaskablePPO(
        ActionFeaturePolicy,
        env,
        n_steps=32,
        batch_size=32,
        n_epochs=1,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [32], "action_game": "doudizhu_v0"},
    )
    head = model.policy.action_net
    obs, _ = env.reset(seed=1)
    x = th.as_tensor(obs[None], dtype=th.float32)
    with th.no_grad():
        logits = head(model.policy.mlp_extractor.forward_actor(model.policy.extract_features(x)))
    assert logits.shape == (1, moves.NUM_ACTIONS)
    for _ in range(5):  # the action chosen is always legal
        action, _ = model.predict(obs, action_masks=env.action_masks())
        assert env.action_masks()[action]
        obs, _, term, trunc, _ = env.step(int(action))
        if term or trunc:
            obs, _ = env.reset()
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
    masks = env.action_masks()
    assert (
        loaded.predict(obs, action_masks=masks, deterministic=True)[0]
        == model.predict(obs, action_masks=masks, deterministic=True)[0]
    )


def test_selfplay_takes_the_shared_budget_flags_and_its_old_spellings():
    pytest.importorskip("sb3_contrib")
    from cardenvs.training.selfplay import parse_args

    args = parse_args(["--steps", "700", "--minutes", "2.5", "--seed", "4", "--no-progress"])
    assert (args.total_timesteps, args.time_limit_minutes, args.seed, args.progress_bar) == (700, 2.5, 4, False)
    old = parse_args(["--total-timesteps", "800", "--time-limit-minutes", "3", "--no-progress-bar"])
    assert (old.total_timesteps, old.time_limit_minutes, old.progress_bar) == (800, 3.0, False)
