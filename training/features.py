"""Observation features for the learner: what the network sees instead of the env's raw vector.

The envs' observations hold raw counts and points (a Twenty score of 80, an n-Tally award of 120), which
an MLP learns from badly. A feature set maps one raw observation (plus the action mask) to a float32
vector; the training wrapper applies it to the learner's observations, the saved model records its name
(``model.observation_features``) and :class:`cardenvs.training.policies.PPOAgent` applies the same one in the arena.

* ``raw``: the env's vector unchanged (as float32).
* ``scaled``: every segment divided by its declared upper bound; segments whose bound is above 100
  (scores, awards) go through ``log1p(x) / log1p(bound)`` instead. Works for every game.
* and the feature sets a game declares (its spec's ``learner_features``), e.g. Twenty's ``twenty``
  (:mod:`cardenvs.games.twenty.features`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from cardenvs.core.observation import scale_by_bounds
from cardenvs.core.spec import load
from cardenvs.registry import env_ids, spec_of

FeatureFn = Callable[[Any, np.ndarray, np.ndarray], np.ndarray]


def raw(env: Any, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    return np.asarray(obs, dtype=np.float32)


def scaled(env: Any, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    return scale_by_bounds(env.layout.high, obs)


FEATURES: dict[str, FeatureFn] = {"raw": raw, "scaled": scaled}


def get_features(name: str | None, game: str | None = None) -> FeatureFn:
    """The feature function called ``name`` (``None`` means ``raw``): ``raw``, ``scaled``, or one the game
    declares (its spec's ``learner_features``, e.g. Twenty's ``twenty``)."""
    name = name or "raw"
    if game is not None:
        declared = spec_of(game).learner_features
    else:  # any game's declared feature sets, by name
        declared = {k: v for env_id in env_ids() for k, v in spec_of(env_id).learner_features.items()}
    if name in declared:
        return load(declared[name])
    if name not in FEATURES:
        raise ValueError(f"unknown observation features {name!r}; known: {sorted([*FEATURES, *declared])}")
    return FEATURES[name]


def feature_size(name: str | None, env: Any) -> int:
    """Length of the feature vector of ``name`` for this (unwrapped) env."""
    agent = env.possible_agents[0]
    mask = np.ones(env.action_space(agent).n, dtype=np.int8)
    return int(get_features(name, env.metadata["name"])(env, env.layout.zeros(), mask).shape[0])


def move_features(game: str) -> np.ndarray:
    """Features of every action of ``game`` for the DMC move network: the game's declared move features
    (its spec's ``move_features``), else a one-hot of the action (games with few actions: Twenty's ten card
    values, War, Two Way Street). numpy only, so a DMC agent plays with torch alone."""
    from cardenvs import make

    spec = spec_of(game)
    declared = spec.hook(spec.move_features)
    if declared is not None:
        return np.asarray(declared(), dtype=np.float32)
    n = make(spec.env_id).unwrapped.num_actions
    return np.eye(n, dtype=np.float32)
