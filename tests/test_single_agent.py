"""The single-agent ``gymnasium.Env`` (``cardenvs.single_agent``) and the learner view's seat rotation.

Gymnasium's and SB3's checkers pass on every game; ``reset(seed=...)`` fully determines an episode; every seat
is learnt across seeded resets (in this env and in the vector learner view, a batch of one included); an
illegal action is a clear error, or with ``illegal_action="terminate"`` ends the episode with -1;
MaskablePPO trains on it.
"""

import pickle

import numpy as np
import pytest

import cardenvs
from cardenvs import vector
from cardenvs.core.seeds import deal_seed_of
from cardenvs.registry import raw_env_class

from conftest import all_variants

GAMES = cardenvs.ENV_IDS


def play(env, seed: int, rng_seed: int = 0) -> list:
    """One episode of random legal moves; everything the env returned."""
    rng = np.random.default_rng(rng_seed)
    obs, info = env.reset(seed=seed)
    seen = [obs.tobytes(), sorted(info.items())]
    while True:
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, reward, terminated, truncated, info = env.step(action)
        seen.append((action, obs.tobytes(), reward, terminated, truncated, repr(sorted(info.items()))))
        if terminated or truncated:
            return seen


@pytest.mark.parametrize("env_id,options", all_variants())
def test_gymnasium_and_sb3_checkers_pass(env_id, options):
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    # the checkers step with random actions that ignore the mask: an illegal one ends the episode (documented)
    env = cardenvs.single_agent(env_id, illegal_action="terminate", render_mode="ansi", **options)
    check_env(env)
    sb3_check_env(env, warn=True)


@pytest.mark.parametrize("env_id", GAMES)
def test_a_seeded_reset_determines_the_episode(env_id):
    policy = raw_env_class(env_id).CORE.POLICIES[0]
    runs = [play(cardenvs.single_agent(env_id, opponents={"random": 1.0, policy: 1.0}), seed=7) for _ in range(2)]
    assert runs[0] == runs[1]
    env = cardenvs.single_agent(env_id, opponents={"random": 1.0, policy: 1.0})
    assert play(env, seed=8) != runs[0]
    assert play(env, seed=7) == runs[0]  # the same env, reset again with the same seed
    _, info = env.reset(seed=7)
    assert info["deal_seed"] == deal_seed_of(7)  # the AEC env's deal after reset(seed=7)
    # reset() without a seed continues the generator of the last seeded reset: a seeded first reset replays
    others = []
    for _ in range(2):
        env = cardenvs.single_agent(env_id)
        env.reset(seed=3)
        others.append([env.reset()[1]["deal_seed"] for _ in range(3)])
    assert others[0] == others[1] and len(set(others[0])) == 3


@pytest.mark.parametrize("env_id", GAMES)
def test_every_seat_is_learnt_over_seeded_resets(env_id):
    n = raw_env_class(env_id)().num_players
    env = cardenvs.single_agent(env_id)
    seats = [env.reset(seed=s)[1]["learner_seat"] for s in range(30)]
    assert set(seats) == set(range(n)), seats
    one = vector.make(env_id, 1, learner="rotate")  # the vector learner view, a batch of one
    seats_one = [int(one.reset(seed=s)[1]["learner_seat"][0]) for s in range(30)]
    assert seats_one == seats  # the same rotation: the single env is that view


def test_two_games_of_three_player_twos_learn_every_seat_at_reset():
    """Before, only autoreset rotated: two games on 3-player Twos learnt seats 0 and 1 after every reset."""
    venv = vector.make("twos", 2, learner="rotate")
    at_reset = {int(s) for seed in range(30) for s in venv.reset(seed=seed)[1]["learner_seat"]}
    assert at_reset == {0, 1, 2}
    for seed in range(5):  # within a batch, the games still take consecutive seats
        seats = venv.reset(seed=seed)[1]["learner_seat"]
        assert seats[1] == (seats[0] + 1) % 3


def test_a_fixed_seat_stays():
    env = cardenvs.single_agent("twos", seat=2)
    assert {env.reset(seed=s)[1]["learner_seat"] for s in range(10)} == {2}
    with pytest.raises(ValueError, match="learner=3"):
        cardenvs.single_agent("twos", seat=3)


def test_illegal_actions_raise_or_terminate():
    env = cardenvs.single_agent("twos")
    obs, _ = env.reset(seed=1)
    mask = env.action_masks()
    illegal = int(np.flatnonzero(~mask)[0])
    with pytest.raises(ValueError, match=rf"twos_v0: illegal action {illegal} \(.*\) for the learner; legal actions"):
        env.step(illegal)
    with pytest.raises(ValueError, match="out of range"):
        env.step(env.action_space.n)
    with pytest.raises(ValueError, match="not an action id"):
        env.step(1.5)
    assert (env.action_masks() == mask).all()  # nothing was played
    env.step(int(np.flatnonzero(mask)[0]))  # and the episode goes on

    env = cardenvs.single_agent("twos", illegal_action="terminate")
    env.reset(seed=1)
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)
    with pytest.raises(ValueError, match="illegal_action='ignore'"):
        cardenvs.single_agent("twos", illegal_action="ignore")
    with pytest.raises(ValueError, match="no options"):
        env.reset(seed=0, options={"deck": "x"})


def test_the_terminal_reward_and_final_scores_arrive():
    """Points rewards (War: cards held, 26 each at the deal) sum to the learner's change of score, the
    terminal reward included, also when an opponent's move ends the game."""
    env = cardenvs.single_agent("war", reward="points", max_turns=30)
    for seed in range(5):
        rng = np.random.default_rng(seed)
        _, info = env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            _, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            total += reward
            done = terminated or truncated
        assert total == info["final_scores"][info["learner_seat"]] - 26


def test_render_modes(capsys):
    env = cardenvs.single_agent("twenty", render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and text
    capsys.readouterr()
    env = cardenvs.single_agent("twenty", render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    assert text in capsys.readouterr().out  # printed at reset too


def test_pickled_mid_episode_plays_on_the_same():
    env = cardenvs.single_agent("doudizhu", opponents=["doudizhu.rule"])
    env.reset(seed=4)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    copy = pickle.loads(pickle.dumps(env))
    for played in (env, copy):
        rng = np.random.default_rng(1)
        outs = []
        done = False
        while not done:
            obs, reward, terminated, truncated, _ = played.step(int(rng.choice(np.flatnonzero(played.action_masks()))))
            outs.append((obs.tobytes(), reward))
            done = terminated or truncated
        played.outs = outs
    assert copy.outs == env.outs


@pytest.mark.slow
def test_maskable_ppo_runs_2048_steps():
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    env = cardenvs.single_agent("twos", opponents=["twos.heuristic"])
    model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=2048)
    assert model.num_timesteps == 2048
    obs, _ = env.reset(seed=0)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]
