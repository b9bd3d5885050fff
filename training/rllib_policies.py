"""RLlib checkpoints as arena agents: ``rllib:PATH`` plays the trained module's greedy masked action.

:class:`RLlibAgent` is registered as the agent kind ``rllib`` (entry-point group ``cardenvs.agents`` in
``pyproject.toml``); :meth:`RLlibAgent.from_module` makes one of a live module (a frozen copy of the learner,
which the trainer puts in the opponent pool as a snapshot)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np


class RLlibAgent:
    def __init__(self, env: Any, path: str):
        try:
            import torch  # noqa: F401  # the modules' framework
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
                "folder written by cardenvs.training.rllib_selfplay"
            )
        self.module = RLModule.from_checkpoint(str(module_dir))
        self.name = f"rllib:{path}"

    @classmethod
    def from_module(cls, module: Any, name: str) -> RLlibAgent:
        """The agent of a live RLModule (put in eval mode), called ``name``."""
        agent = cls.__new__(cls)
        agent.module, agent.name = module, name
        module.eval()
        return agent

    def act(self, observation: dict[str, np.ndarray], rng: np.random.Generator) -> int:
        batch = {key: np.asarray(observation[key])[None] for key in ("observation", "action_mask")}
        return int(self.act_batch(batch, (rng,))[0])

    def act_batch(
        self, observations: Mapping[str, np.ndarray], rngs: Sequence[np.random.Generator], games: Any = None
    ) -> np.ndarray:
        """:meth:`act` on ``k`` rows at once (the batch protocol of :mod:`cardenvs.agent`): one forward pass;
        the greedy move draws nothing from ``rngs``."""
        import torch
        from ray.rllib.core.columns import Columns

        mask = np.asarray(observations["action_mask"])
        obs = {
            "observation": torch.as_tensor(np.asarray(observations["observation"])),
            "action_mask": torch.as_tensor(mask.astype(np.int8, copy=False)),
        }
        with torch.no_grad():
            logits = self.module.forward_inference({Columns.OBS: obs})[Columns.ACTION_DIST_INPUTS].numpy()
        return np.argmax(np.where(mask > 0, logits, -np.inf), axis=1).astype(np.int64)
