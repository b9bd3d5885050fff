"""Trained models as arena agents: ``ppo:PATH`` loads a MaskablePPO zip saved by ``training.selfplay``."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


class PPOAgent:
    """Plays the greedy (deterministic) masked action of a saved MaskablePPO model."""

    def __init__(self, env: Any, path: str, deterministic: bool = True):
        from sb3_contrib import MaskablePPO
        p = Path(path)
        if p.is_dir():
            p = p / "final_model.zip"
        if not p.exists() and not p.with_suffix(".zip").exists():
            raise ValueError(f"no MaskablePPO model at {path} (expected a .zip saved by training.selfplay)")
        self.model = MaskablePPO.load(str(p), device="cpu")
        self.name = f"ppo:{path}"
        self.deterministic = deterministic
        expected = env.observation_space(env.possible_agents[0])["observation"].shape
        if self.model.observation_space.shape != expected:
            raise ValueError(f"model {path} expects observations of shape {self.model.observation_space.shape}, "
                             f"the env gives {expected}: was it trained on another game or variant?")

    def act(self, observation: dict[str, np.ndarray], rng: np.random.Generator) -> int:
        action, _ = self.model.predict(observation["observation"], action_masks=observation["action_mask"].astype(bool),
                                       deterministic=self.deterministic)
        return int(action)
