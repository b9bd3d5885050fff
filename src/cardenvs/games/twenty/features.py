"""Twenty's rules read for players and learners: what each card would do now (:func:`action_outlook`), and
the ``twenty`` learner features of its spec.

``twenty`` features: the observation scaled by its bounds (:func:`cardenvs.core.observation.scale_by_bounds`,
without the ``replayed_hands`` segment, which came after the shipped model was trained) plus the tally and
the number of tally cards one-hot, the unseen cards, the score difference, and for each card value the
rules' outlook of playing it (points now, whether it clears the tally, the opponent's expected best reply).
The learner still has to find out what the outlook is worth; the greedy heuristic is the fixed rule
``points - reply - (1 for a Ten)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardenvs.core.observation import scale_by_bounds

from .rules import points_for
from .solver import expected_best_gain

FULL_DECK = np.array([4] * 9 + [16])  # cards per value A..T


def _unseen(parts, include_opponent: bool) -> np.ndarray:
    unseen = FULL_DECK - parts["seen"] - parts["own_hand"]
    if include_opponent:
        unseen = unseen - parts["opponent_hand"]
    return np.maximum(unseen, 0).astype(int)


def _exposed(parts) -> bool:
    size = int(parts["opponent_hand_size"][0])
    return size > 0 and int(parts["opponent_hand"].sum()) == size


def action_outlook(parts: dict[str, np.ndarray], actions=range(10)) -> np.ndarray:
    """Per card value A..T (rows): [points it scores now, 1 if it clears the tally, the opponent's expected
    best immediate reply after it]. The reply is exact when hands are exposed, otherwise its expectation
    over the unseen cards (:func:`expected_best_gain`); 0 when the opponent holds no card. Rows not in
    ``actions`` stay zero. The learners' Twenty features (``cardenvs.training.features``) read it."""
    tally, n = int(parts["tally"][0]), int(parts["tally_cards"][0])
    exposed = _exposed(parts)
    opp_size = int(parts["opponent_hand_size"][0])
    unseen = tuple(_unseen(parts, exposed))
    out = np.zeros((10, 3))
    for a in actions:
        v = int(a) + 1
        points, clears = points_for(tally, n, v)
        after_tally, after_n = (0, 0) if clears else (tally + v, n + 1)
        if opp_size == 0:
            reply = 0.0
        elif exposed:
            reply = max(points_for(after_tally, after_n, w + 1)[0] for w in range(10) if parts["opponent_hand"][w])
        else:
            reply = expected_best_gain(after_tally, after_n, unseen, opp_size)
        out[a] = points, clears, reply
    return out


def _one_hot(index: int, size: int) -> np.ndarray:
    out = np.zeros(size)
    out[min(max(index, 0), size - 1)] = 1.0
    return out


def learner_features(env: Any, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The ``twenty`` features (module docstring) of one observation and mask, as float32."""
    parts = env.layout.decode(obs)
    if "replayed_hands" in env.layout:  # added after the shipped model was trained: left out of these features
        cut = env.layout.slices["replayed_hands"].start
        base = scale_by_bounds(env.layout.high[:cut], obs[:cut])
    else:
        base = scale_by_bounds(env.layout.high, obs)
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
