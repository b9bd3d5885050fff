"""Trained models as arena agents: ``ppo:PATH`` loads a MaskablePPO zip saved by ``cardenvs.training.selfplay``.

:class:`PPOAgent` is registered as the agent kind ``ppo`` (entry-point group ``cardenvs.agents`` in
``pyproject.toml``), which is how ``cardenvs.agent.load_agent`` finds it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np


class PPOAgent:
    """Plays the greedy (deterministic) masked action of a saved MaskablePPO model, on the observation
    features it was trained with (``model.observation_features``, see :mod:`cardenvs.training.features`)."""

    def __init__(self, env: Any, path: str, deterministic: bool = True):
        try:
            from sb3_contrib import MaskablePPO
        except ModuleNotFoundError as exc:
            raise ValueError(
                f"agent 'ppo:{path}' needs {exc.name}, which is not installed (pip install 'cardenvs[train]')"
            ) from exc
        p = Path(path)
        if p.is_dir():
            p = p / "final_model.zip"
        if not p.exists() and not p.with_suffix(".zip").exists():
            raise ValueError(f"no MaskablePPO model at {path} (expected a .zip saved by cardenvs.training.selfplay)")
        self.model = MaskablePPO.load(str(p), device="cpu")
        self.name = f"ppo:{path}"
        self.deterministic = deterministic
        from .features import feature_size, get_features

        self.base = env.unwrapped
        self.features_name = getattr(self.model, "observation_features", None)
        self.features = get_features(self.features_name)
        expected = (feature_size(self.features_name, self.base),)
        if self.model.observation_space.shape != expected:
            raise ValueError(
                f"model {path} expects observations of shape {self.model.observation_space.shape}, "
                f"the env gives {expected}: was it trained on another game or variant?"
            )

    def act(self, observation: dict[str, np.ndarray], rng: np.random.Generator) -> int:
        x = observation["observation"]
        if self.features_name not in (None, "raw"):
            x = self.features(self.base, x, observation["action_mask"])
        action, _ = self.model.predict(
            x, action_masks=observation["action_mask"].astype(bool), deterministic=self.deterministic
        )
        return int(action)

    def act_batch(
        self, observations: Mapping[str, np.ndarray], rngs: Sequence[np.random.Generator], games: Any = None
    ) -> np.ndarray:
        """:meth:`act` on ``k`` rows at once (the batch protocol of :mod:`cardenvs.agent`): one ``predict``
        for all of them; the greedy move draws nothing from ``rngs``."""
        x, masks = np.asarray(observations["observation"]), np.asarray(observations["action_mask"]).astype(bool)
        if self.features_name not in (None, "raw"):
            x = np.stack([self.features(self.base, o, m) for o, m in zip(x, masks, strict=True)])
        actions, _ = self.model.predict(x, action_masks=masks, deterministic=self.deterministic)
        return np.asarray(actions, dtype=np.int64).reshape(len(masks))
