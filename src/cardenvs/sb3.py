"""Stable-Baselines3 adapter of the learner vector env (needs the ``train`` extra).

``SB3VecEnv(cardenvs.vector.make(env_id, B, learner=..., opponents=[...]))`` is an SB3 ``VecEnv`` with
``action_masks()``, so sb3-contrib's ``MaskablePPO`` trains on B numba games directly::

    from sb3_contrib import MaskablePPO
    from cardenvs import vector
    from cardenvs.sb3 import SB3VecEnv

    venv = SB3VecEnv(vector.make("twos", 16, learner="rotate", opponents=["twos.heuristic"]))
    MaskablePPO("MlpPolicy", venv, n_steps=128).learn(10_000)

Ended games reset at once (SB3's convention too): ``infos[i]["terminal_observation"]`` holds the learner's
last observation and ``infos[i]["TimeLimit.truncated"]`` marks truncations.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from .vector import LearnerVectorEnv


class SB3VecEnv(VecEnv):
    """An SB3 ``VecEnv`` over a :class:`cardenvs.vector.LearnerVectorEnv`."""

    def __init__(self, env: LearnerVectorEnv):
        if not isinstance(env, LearnerVectorEnv):
            raise ValueError("SB3VecEnv wraps the learner view: cardenvs.vector.make(env_id, B, learner=...)")
        self.env = env  # before VecEnv's init, which reads render_mode through get_attr
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)
        self._seed: int | None = None
        self._actions = np.zeros(env.num_envs, dtype=np.int64)

    def seed(self, seed: int | None = None) -> Sequence[None]:
        self._seed = seed
        return [None] * self.num_envs

    def reset(self) -> np.ndarray:
        obs, _ = self.env.reset(seed=self._seed)
        self._seed = None
        return obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).astype(np.int64).reshape(self.num_envs)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        obs, rewards, terminated, truncated, info = self.env.step(self._actions)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            infos[i]["terminal_observation"] = info["final_obs"][i].copy()
            infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        return obs.copy(), rewards.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        return self.env.action_masks().copy()

    def close(self) -> None:
        self.env.close()

    def _indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self, attr_name) or hasattr(self.env, attr_name)

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        value = getattr(self.env, attr_name)
        return [value] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self.env, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        idx = self._indices(indices)
        if method_name == "action_masks":
            masks = self.env.action_masks()
            return [masks[i].copy() for i in idx]
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result] * len(idx)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._indices(indices))
