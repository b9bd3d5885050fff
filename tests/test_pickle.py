"""Every env can be copied and pickled mid-game (multiprocessing and subprocess vector wrappers, Ray and saving
a game half-way all pickle envs): the copy plays on exactly as the original does.

For every game and every declared variant: an AEC env after k steps and a vector env (turn-based, learner view,
learner view with an opponent pool) after k batch steps are pickled and deep-copied; the original and both
copies then take the same actions, and their observations, masks, rewards and ends are equal to the end. The
same across processes: pickled here, loaded and played on in a new Python process.
"""

import copy
import hashlib
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import cardenvs
from cardenvs import vector
from cardenvs.registry import env_module, raw_env_class

from conftest import all_variants

VARIANTS = all_variants()
STEPS_BEFORE = 7  # steps (AEC) or batch steps (vector) taken before the copy


def aec_after(env_id: str, options: dict, steps: int = STEPS_BEFORE):
    env = env_module(env_id).raw_env(**options)
    env.reset(seed=11)
    rng = np.random.default_rng(5)
    for _ in range(steps):
        if not env.agents:
            break
        play_aec(env, rng, 1)
    return env, rng


def play_aec(env, rng: np.random.Generator, moves: int = 10_000) -> list:
    """Up to ``moves`` random legal moves (``rng``); returns what the env showed after each."""
    seen = []
    for _ in range(moves):
        if not env.agents:
            break
        agent = env.agent_selection
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        seen.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, terminated, truncated))
        seen.append((dict(env.rewards), dict(env.terminations), dict(env.truncations), dict(env._cumulative_rewards)))
    return seen


def digest(seen: list) -> str:
    return hashlib.sha256(repr(seen).encode()).hexdigest()


@pytest.mark.parametrize("env_id,options", VARIANTS)
def test_aec_env_pickled_and_copied_mid_game_plays_on_the_same(env_id, options):
    env, rng = aec_after(env_id, options)
    assert env.agents, "the game ended before the copy: take fewer steps"
    state = rng.bit_generator.state
    copies = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    runs = []
    for played in [env, *copies]:
        rng.bit_generator.state = state
        runs.append(play_aec(played, rng))
        assert not played.agents, "the game did not end"
    assert runs[1] == runs[0] and runs[2] == runs[0]
    for played in copies:  # the record view is a view of the copy's own states, not of the original's
        assert np.shares_memory(played.state, played.states) and not np.shares_memory(played.states, env.states)
        assert played.render_text() == env.render_text()


def vector_envs(env_id: str, options: dict) -> dict:
    policy = raw_env_class(env_id).CORE.POLICIES[0]  # the game's first numba heuristic
    return {
        "turn": vector.make(env_id, 4, **options),
        "learner": vector.make(env_id, 4, learner="rotate", **options),
        "pool": vector.make(env_id, 4, learner=0, opponents={"random": 1.0, policy: 1.0}, **options),
    }


def play_vector(venv, rng: np.random.Generator, steps: int) -> list:
    """``steps`` batch steps of random legal moves; returns every output (autoreset included)."""
    seen = []
    for _ in range(steps):
        ids, counts = venv.legal_ids()
        choice = rng.integers(np.maximum(np.minimum(counts, ids.shape[1]), 1))
        actions = ids[np.arange(len(ids)), choice].astype(np.int64)
        obs, rewards, terminated, truncated, info = venv.step(actions)
        if isinstance(obs, dict):  # the turn-based view
            seen.append((obs["observation"].tobytes(), obs["action_mask"].tobytes(), rewards.tobytes()))
        else:  # the learner view: its masks through action_masks()
            seen.append((obs.tobytes(), venv.action_masks().tobytes(), rewards.tobytes()))
        seen.append((terminated.tobytes(), truncated.tobytes()))
        seen.append([(key, np.asarray(info[key]).tobytes()) for key in sorted(info)])
    return seen


@pytest.mark.parametrize("env_id,options", VARIANTS)
def test_vector_envs_pickled_and_copied_mid_game_play_on_the_same(env_id, options):
    for view, venv in vector_envs(env_id, options).items():
        venv.reset(seed=3)
        rng = np.random.default_rng(8)
        play_vector(venv, rng, STEPS_BEFORE)
        state = rng.bit_generator.state
        copies = [pickle.loads(pickle.dumps(venv)), copy.deepcopy(venv)]
        runs = []
        for played in [venv, *copies]:
            rng.bit_generator.state = state
            runs.append(play_vector(played, rng, 60))  # through the ends of games: autoreset included
        assert runs[1] == runs[0], f"{view}: the pickled copy played differently"
        assert runs[2] == runs[0], f"{view}: the deep copy played differently"


PLAY_ON = """
import pickle, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import test_pickle
for kind, blob in pickle.load(sys.stdin.buffer):
    played = pickle.loads(blob)
    rng = np.random.default_rng(99)
    seen = test_pickle.play_aec(played, rng) if kind == "aec" else test_pickle.play_vector(played, rng, 60)
    print(kind, test_pickle.digest(seen))
"""


@pytest.mark.parametrize("env_id", cardenvs.ENV_IDS)
def test_pickled_in_one_process_played_on_in_another(env_id):
    """The AEC env and the learner view with an opponent pool, pickled here mid-game, loaded in a new Python
    process (one for both) and played on there: the same outputs as playing on here."""
    aec, _ = aec_after(env_id, {})
    venv = vector_envs(env_id, {})["pool"]
    venv.reset(seed=3)
    play_vector(venv, np.random.default_rng(8), STEPS_BEFORE)
    both = [("aec", aec), ("vector", venv)]
    blobs = [(kind, pickle.dumps(played)) for kind, played in both]  # before either is played on here
    out = subprocess.run(
        [sys.executable, "-c", PLAY_ON, os.path.dirname(__file__)],
        input=pickle.dumps(blobs),
        capture_output=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr.decode()[-3000:]
    there = dict(line.split() for line in out.stdout.decode().splitlines() if line.startswith(("aec ", "vector ")))
    for kind, played in both:
        rng = np.random.default_rng(99)
        here = play_aec(played, rng) if kind == "aec" else play_vector(played, rng, 60)
        assert there[kind] == digest(here), f"{kind}: played on differently in a new process"
