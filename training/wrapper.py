"""Self-play for SB3: the vector learner view (:class:`cardenvs.vector.LearnerVectorEnv`) as an SB3 ``VecEnv``.

:func:`make_vector_selfplay` gives ``n_envs`` numba games stepped together. The learner occupies one seat
(``seat="rotate"``: game ``b``'s learner sits in seat ``(b + episode) % n``; or a fixed seat index); every
other seat of every deal is played inside ``step`` by an opponent drawn from the one opponent pool
(:class:`cardenvs.opponents.OpponentPool`), each shown only its own observation. ``reset``'s seed fixes
the deals, the seats and the opponents drawn. The learner receives its own rewards: every reward of its
seat, including the terminal one when an opponent's move ends the game (losses included). ``features``
names the observation features the learner sees (:mod:`cardenvs.training.features`; default: the env's raw vector)
and ``margin_shaping`` adds a dense reward.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from cardenvs.opponents import OpponentPool
from cardenvs.registry import make

from .features import feature_size, get_features
from .policies import PPOAgent


def make_vector_selfplay(
    env_id: str,
    options: dict | None,
    opponents: dict[Any, float],
    n_envs: int,
    seat: str | int = "rotate",
    seed: int | None = None,
    margin_shaping: float = 0.0,
    features: str | None = None,
    snapshot_weight: float = 0.0,
    max_snapshots: int = 5,
    threads: int = 1,
):
    """Self-play on the numba vector env: an SB3 ``VecEnv`` of ``n_envs`` games stepped together.

    Each seat of each deal draws its opponent from the pool (``opponents``: agent name -> weight):
    heuristics and ``random`` run as numba policies (no Python per game), other agent names
    (``twenty.solver``) as one agent per game, ``ppo:PATH`` and frozen snapshots of the learner
    (``add_snapshot``, also through ``env_method``) as MaskablePPO models called once per round on the batch
    of games where they are to move, the newest ``max_snapshots`` sharing ``snapshot_weight``. Optional dense
    shaping: ``margin_shaping`` x change of (own score - mean of the others' scores). Features and shaping
    are applied to the batch; the learner receives its own rewards, terminal ones included.
    """
    from cardenvs import vector
    from cardenvs.sb3 import SB3VecEnv

    if seat == "random":
        raise ValueError("seat='random' is not supported; use 'rotate' (every seat in turn) or a seat index")
    base = make(env_id, **(options or {})).unwrapped

    def model(path: str) -> Any:  # a saved MaskablePPO model: the learner view plays it with act_batch
        return PPOAgent(base, path)

    pool = OpponentPool(dict(opponents), snapshot_weight, max_snapshots)  # ppo:PATH is an agent name there
    venv = vector.make(env_id, n_envs, learner=seat, opponents=pool, threads=threads, **(options or {}))
    feature_fn = get_features(features)
    rows = np.arange(n_envs)

    def margins(scores: np.ndarray, seats: np.ndarray) -> np.ndarray:
        own = scores[rows, seats]
        return own - (scores.sum(axis=1) - own) / max(1, scores.shape[1] - 1)

    class VectorSelfPlayEnv(SB3VecEnv):
        def __init__(self):
            super().__init__(venv)
            if features not in (None, "raw"):
                size = feature_size(features, base)
                self.observation_space = gym.spaces.Box(-np.inf, np.inf, (size,), dtype=np.float32)
            self._margin = np.zeros(n_envs)
            self.pool = pool
            self.seed(seed)

        def _features(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
            if features in (None, "raw"):
                return obs
            return np.stack([feature_fn(base, o, m) for o, m in zip(obs, masks, strict=True)])

        def reset(self):
            obs = self._features(super().reset(), venv.action_masks())
            self._margin = margins(venv.scores, venv.learner_seat)
            return obs

        def step_wait(self):
            seats = venv.learner_seat.copy()
            obs, rewards, dones, infos = super().step_wait()
            if margin_shaping:
                scores = venv.scores.copy()
                ended = np.flatnonzero(dones)
                scores[ended] = venv._b.final_scores[ended]
                margin = margins(scores, seats)
                rewards = rewards + np.float32(margin_shaping) * (margin - self._margin).astype(np.float32)
                self._margin = margins(venv.scores, venv.learner_seat)
            no_mask = np.zeros((1, venv.single_action_space.n), dtype=bool)
            for i in np.flatnonzero(dones):
                infos[i]["terminal_observation"] = self._features(infos[i]["terminal_observation"][None], no_mask)[0]
                infos[i]["learner_seat"] = int(seats[i])
            return self._features(obs, venv.action_masks()), rewards, dones, infos

        def add_snapshot(self, path: str, weight: float | None = None) -> None:
            """A saved model joins the pool as a snapshot (``weight``: the snapshots' new total weight)."""
            pool.add_snapshot(model(path), weight)

        def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
            if method_name == "add_snapshot":
                self.add_snapshot(*method_args, **method_kwargs)
                return [None] * len(self._indices(indices))
            return super().env_method(method_name, *method_args, indices=indices, **method_kwargs)

    return VectorSelfPlayEnv()
