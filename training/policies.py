"""Trained models as arena agents: ``ppo:PATH`` loads a MaskablePPO zip saved by ``cardenvs.training.selfplay``.

:class:`PPOAgent` is registered as the agent kind ``ppo`` (entry-point group ``cardenvs.agents`` in
``pyproject.toml``), which is how ``cardenvs.agent.load_agent`` finds it."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cardenvs.core.userfiles import read_bytes

#: the largest MaskablePPO zip read (the shipped ones are under 2 MB)
MAX_MODEL_BYTES = 256 * 1024 * 1024
#: the pickled (cloudpickle) entries of a MaskablePPO zip's ``data``, each replaced by :func:`plain_objects`
PICKLED_ENTRIES = (
    "policy_class",
    "observation_space",
    "action_space",
    "lr_schedule",
    "clip_range",
    "rollout_buffer_class",
    "_last_obs",
    "_last_episode_starts",
    "_last_original_obs",
    "ep_info_buffer",
    "ep_success_buffer",
    "env",
)


def plain_objects(raw: bytes, path: Path) -> dict[str, Any]:
    """``custom_objects`` for ``MaskablePPO.load`` that stand in for every pickled entry of the zip's ``data``,
    so that loading a model unpickles nothing (stable-baselines3 would ``cloudpickle.loads`` them, and a
    crafted zip would run its code): the policy is MaskablePPO's, the spaces are rebuilt from the readable
    fields saved beside the pickles (a Box's shape and dtype, a Discrete's ``n``), the schedules are constants
    (they only matter for training), the rest is dropped. A pickled entry of another name is refused."""
    import json
    import zipfile

    import gymnasium
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            info = archive.getinfo("data")
            if info.file_size > MAX_MODEL_BYTES:
                raise ValueError("its data entry is too large")
            data = json.loads(archive.read(info))
        observation, action = data["observation_space"], data["action_space"]
        dtype = np.dtype(observation["dtype"])
        shape = tuple(int(n) for n in observation["_shape"])
        n = int(action["n"])
    except (zipfile.BadZipFile, KeyError, TypeError, ValueError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path} is not a MaskablePPO model of cardenvs.training.selfplay ({exc})") from None
    if dtype.kind not in "fiu" or len(shape) != 1 or n < 1:
        raise ValueError(f"{path}: expected a flat numeric observation space and a discrete action space")
    for key, value in data.items():
        if isinstance(value, dict) and ":serialized:" in value and key not in PICKLED_ENTRIES:
            raise ValueError(f"{path}: its {key!r} is a pickle, which a cardenvs PPO model never holds (refused)")
    replaced: dict[str, Any] = dict.fromkeys(PICKLED_ENTRIES)
    replaced.update(
        policy_class=MaskableActorCriticPolicy,
        observation_space=_flat_box(shape, dtype),
        action_space=gymnasium.spaces.Discrete(n),
        lr_schedule=_constant,
        clip_range=0.2,
    )
    return replaced


def _flat_box(shape: tuple[int, ...], dtype: np.dtype) -> Any:
    """The model's flat observation space, of its dtype (float features, or the vector env's int8 rows)."""
    import gymnasium

    scalar = dtype.type
    if dtype.kind == "f":
        return gymnasium.spaces.Box(-np.inf, np.inf, shape, scalar)
    bounds = np.iinfo(dtype)
    return gymnasium.spaces.Box(bounds.min, bounds.max, shape, scalar)


def _constant(progress: float) -> float:
    """A learning-rate schedule for a model that only plays."""
    return 0.0


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
        if not p.exists() and p.with_suffix(".zip").exists():
            p = p.with_suffix(".zip")
        if not p.exists():
            raise ValueError(f"no MaskablePPO model at {path} (expected a .zip saved by cardenvs.training.selfplay)")
        raw = read_bytes(p, "MaskablePPO model", MAX_MODEL_BYTES)
        self.model = MaskablePPO.load(io.BytesIO(raw), device="cpu", custom_objects=plain_objects(raw, p))
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
