"""Observation features for the learner: what the network sees instead of the env's raw vector.

The envs' observations hold raw counts and points (a Twenty score of 80, an n-Tally award of 120), which
an MLP learns from badly. A feature set maps one raw observation (plus the action mask) to a float32
vector; the training wrapper applies it to the learner's observations, the saved model records its name
(``model.observation_features``) and :class:`training.policies.PPOAgent` applies the same one in the arena.

* ``raw``: the env's vector unchanged (as float32).
* ``scaled``: every segment divided by its declared upper bound; segments whose bound is above 100
  (scores, awards) go through ``log1p(x) / log1p(bound)`` instead. Works for every game.
* ``twenty``: for Twenty, ``scaled`` (without the ``replayed_hands`` segment, which came after the shipped
  model was trained) plus the tally and the number of tally cards one-hot, the unseen
  cards, the score difference, and for each card value the rules' outlook of playing it
  (:func:`agents.twenty.action_outlook`: points now, whether it clears the tally, the opponent's expected
  best reply). The learner still has to find out what the outlook is worth; the greedy heuristic is the
  fixed rule ``points - reply - (1 for a Ten)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

FeatureFn = Callable[[Any, np.ndarray, np.ndarray], np.ndarray]


def raw(env: Any, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    return np.asarray(obs, dtype=np.float32)


LOG_ABOVE = 100.0  # segments with a larger bound (scores, awards) are scaled logarithmically


def scale_by_bounds(high: np.ndarray, obs: np.ndarray) -> np.ndarray:
    """Observation rows (any leading shape) with each entry divided by its segment's bound ``high``, or, for
    bounds above :data:`LOG_ABOVE`, mapped to ``log1p(x) / log1p(bound)``; negative entries count as 0."""
    high = np.maximum(np.asarray(high, dtype=np.float64), 1.0)
    x = np.maximum(np.asarray(obs, dtype=np.float64), 0.0)
    out = np.where(high > LOG_ABOVE, np.log1p(x) / np.log1p(high), x / high)
    return out.astype(np.float32)


def scaled(env: Any, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    return scale_by_bounds(env.layout.high, obs)


def _one_hot(index: int, size: int) -> np.ndarray:
    out = np.zeros(size)
    out[min(max(index, 0), size - 1)] = 1.0
    return out


def twenty(env: Any, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    from cardenvs.agents.twenty import FULL_DECK, action_outlook

    parts = env.layout.decode(obs)
    if "replayed_hands" in env.layout:  # added after the shipped model was trained: left out of these features
        cut = env.layout.slices["replayed_hands"].start
        base = scale_by_bounds(env.layout.high[:cut], obs[:cut])
    else:
        base = scaled(env, obs, mask)
    outlook = action_outlook(parts)  # (10, 3): points, clears, reply
    unseen = np.maximum(FULL_DECK - parts["seen"] - parts["own_hand"] - parts["opponent_hand"], 0)
    own, opp = parts["scores"].astype(np.float64)
    squash = lambda points: np.sign(points) * np.log1p(np.abs(points)) / np.log1p(120.0)  # noqa: E731
    return np.concatenate(
        [
            base,
            _one_hot(int(parts["tally"][0]), 20),
            _one_hot(int(parts["tally_cards"][0]), 10),
            unseen / FULL_DECK,
            [np.tanh((own - opp) / 30.0)],
            squash(outlook[:, 0]),
            outlook[:, 1],
            squash(outlook[:, 2]),
            squash(outlook[:, 0] - outlook[:, 2]),
            np.asarray(mask, dtype=np.float64),
        ]
    ).astype(np.float32)


FEATURES: dict[str, FeatureFn] = {"raw": raw, "scaled": scaled, "twenty": twenty}


def get_features(name: str | None) -> FeatureFn:
    """The feature function called ``name`` (``None`` means ``raw``)."""
    name = name or "raw"
    if name not in FEATURES:
        raise ValueError(f"unknown observation features {name!r}; known: {sorted(FEATURES)}")
    return FEATURES[name]


def feature_size(name: str | None, env: Any) -> int:
    """Length of the feature vector of ``name`` for this (unwrapped) env."""
    agent = env.possible_agents[0]
    mask = np.ones(env.action_space(agent).n, dtype=np.int8)
    return int(get_features(name)(env, env.layout.zeros(), mask).shape[0])
