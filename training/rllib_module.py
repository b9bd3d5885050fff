"""Action masking for RLlib's new API stack: PPO's default torch RLModule plus log(mask) on the logits.

Observations are ``{"observation": vector, "action_mask": 0/1}``
(:class:`cardenvs.training.rllib_selfplay.WithMask`, any numeric dtypes: they are cast to float32 here); the
networks are built on the inner ``observation`` space
and the mask is applied to the action distribution inputs in every forward pass (exploration, inference and
training), so illegal actions get probability 0. A game that has ended shows an all-0 mask: every action
then gets the same finite logit (the env ignores that action). Our own class over
``DefaultPPOTorchRLModule`` (Ray's example subclasses a deprecated module).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns

MASK_FLOOR = -1e9  # log(0) clamped: finite, so no NaNs in the loss


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    def __init__(self, *, observation_space=None, action_space=None, **kwargs):
        self.observation_space_with_mask = observation_space
        inner = observation_space["observation"]
        inner = gym.spaces.Box(inner.low.astype(np.float32), inner.high.astype(np.float32), dtype=np.float32)
        super().__init__(observation_space=inner, action_space=action_space, **kwargs)

    def setup(self):
        super().setup()
        self.observation_space = self.observation_space_with_mask

    @staticmethod
    def _split(batch):
        obs = batch[Columns.OBS]
        if not isinstance(obs, dict):
            return None, batch
        batch = dict(batch)
        batch[Columns.OBS] = obs["observation"].float()
        return obs["action_mask"].float(), batch

    @staticmethod
    def _mask(out, mask):
        if mask is not None:
            out[Columns.ACTION_DIST_INPUTS] = out[Columns.ACTION_DIST_INPUTS] + torch.clamp(
                torch.log(mask), min=MASK_FLOOR
            )
        return out

    def _forward(self, batch, **kwargs):
        mask, batch = self._split(batch)
        return self._mask(super()._forward(batch, **kwargs), mask)

    def _forward_train(self, batch, **kwargs):
        mask, batch = self._split(batch)
        return self._mask(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch, embeddings=None):
        _, batch = self._split(batch)
        return super().compute_values(batch, embeddings)
