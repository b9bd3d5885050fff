"""The vector learner view as Ray RLlib's env: no adapter of its own, two lines of glue.

RLlib's single-agent env runners take a ``gymnasium.vector.VectorEnv`` from a *vector entry point*
(``config.env_runners(gym_env_vectorize_mode="vector_entry_point")``) and expect Gymnasium's next-step
autoreset. :func:`make_env` is that entry point: the one learner adapter
(:class:`cardenvs.vector.LearnerVectorEnv`, ``autoreset_mode="next_step"``, the learner's seat rotating)
over the one opponent pool (:class:`cardenvs.opponents.OpponentPool`), with the learner's action mask put
beside its observation (:class:`WithMask`), since RLlib's networks see only observations.
:func:`snapshot_opponent` turns a copy of the learner's RLModule into a batched opponent for that pool.
"""

from __future__ import annotations

from typing import Any, cast

import gymnasium as gym
import numpy as np

from cardenvs import vector
from cardenvs.opponents import OpponentPool


class WithMask(gym.vector.VectorWrapper):
    """Observations ``{"observation": [B, D], "action_mask": int8 [B, A]}``: the learner view's vectors and
    its masks (an ended game's mask is all 0 in next-step mode)."""

    def __init__(self, env: vector.LearnerVectorEnv):
        super().__init__(env)
        actions = cast(gym.spaces.Discrete, env.single_action_space)
        mask = gym.spaces.Box(0, 1, shape=(int(actions.n),), dtype=np.int8)
        self.single_observation_space = gym.spaces.Dict(
            {"observation": env.single_observation_space, "action_mask": mask}
        )
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, env.num_envs)

    def _with_mask(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        return {"observation": obs, "action_mask": self.env.unwrapped.action_masks().view(np.int8)}

    # gymnasium's VectorWrapper.reset also takes a list of seeds, which the VectorEnv it wraps does not
    def reset(self, *, seed: int | None = None, options: dict | None = None):  # type: ignore[override]
        obs, info = self.env.reset(seed=seed, options=options)
        return self._with_mask(obs), info

    def step(self, actions: Any):
        obs, rewards, terminated, truncated, info = self.env.step(np.asarray(actions, dtype=np.int64))
        return self._with_mask(obs), rewards, terminated, truncated, info


def make_env(config: dict[str, Any]) -> WithMask:
    """RLlib's vector entry point: ``config`` holds ``env_id``, ``options``, ``opponents`` (agent name ->
    weight), ``snapshot_weight``, ``max_snapshots`` and ``num_envs`` (RLlib adds it)."""
    pool = OpponentPool(dict(config["opponents"]), config.get("snapshot_weight", 0.0), config.get("max_snapshots", 5))
    env = vector.make(
        config["env_id"],
        int(config.get("num_envs", 1)),
        learner="rotate",
        opponents=pool,
        autoreset_mode="next_step",
        **dict(config.get("options", {})),
    )
    return WithMask(env)


def snapshot_opponent(module: Any, name: str):
    """A frozen RLModule (a copy of the learner) as a batched opponent: its greedy masked actions."""
    import torch
    from ray.rllib.core.columns import Columns

    module.eval()

    def act(batch: dict[str, np.ndarray]) -> np.ndarray:
        mask = batch["action_mask"]
        obs = {
            "observation": torch.as_tensor(batch["observation"]),
            "action_mask": torch.as_tensor(mask.view(np.int8)),
        }
        with torch.no_grad():
            logits = module.forward_inference({Columns.OBS: obs})[Columns.ACTION_DIST_INPUTS].numpy()
        return np.argmax(np.where(mask, logits, -np.inf), axis=1).astype(np.int64)

    act.__name__ = name
    return act
