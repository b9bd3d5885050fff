"""RLlib checkpoints as arena agents: ``rllib:PATH`` plays the trained module's greedy masked action.

:class:`RLlibAgent` is registered as the agent kind ``rllib`` (entry-point group ``cardenvs.agents`` in
``pyproject.toml``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


class RLlibAgent:
    def __init__(self, env: Any, path: str):
        try:
            import torch
            from ray.rllib.core.rl_module.rl_module import RLModule
        except ModuleNotFoundError as exc:
            extra = "train" if exc.name == "torch" else "scale"
            raise ValueError(
                f"agent 'rllib:{path}' needs {exc.name}, which is not installed (pip install 'cardenvs[{extra}]')"
            ) from exc
        from ray.rllib.core import DEFAULT_MODULE_ID

        module_dir = Path(path) / "learner_group" / "learner" / "rl_module" / DEFAULT_MODULE_ID
        if not module_dir.exists():
            raise ValueError(
                f"no RLlib module under {path} (expected {module_dir}); pass the checkpoint "
                "folder written by training.rllib_selfplay"
            )
        self.module = RLModule.from_checkpoint(str(module_dir))
        self.torch = torch
        self.name = f"rllib:{path}"

    def act(self, observation: dict[str, np.ndarray], rng: np.random.Generator) -> int:
        from ray.rllib.core.columns import Columns

        t = self.torch
        obs = {
            "observation": t.as_tensor(observation["observation"])[None],
            "action_mask": t.as_tensor(observation["action_mask"])[None],
        }
        with t.no_grad():
            out = self.module.forward_inference({Columns.OBS: obs})
        logits = out[Columns.ACTION_DIST_INPUTS][0].numpy()
        logits = np.where(observation["action_mask"] > 0, logits, -np.inf)
        return int(np.argmax(logits))
