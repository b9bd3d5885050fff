"""Twos' moves described for learners (the ``move_features`` of its spec): one row per action."""

from __future__ import annotations

import numpy as np

from . import moves


def action_features() -> np.ndarray:
    """One row per Twos action: its shape (one-hot over ``moves.SHAPES``), how many cards it takes of each
    rank (/ 4), its top card (one-hot over the 52 values), whether it is a bomb, and pass."""
    n_shapes = len(moves.SHAPES)
    out = np.zeros((moves.NUM_ACTIONS, n_shapes + 13 + 52 + 2), dtype=np.float32)
    for a, (shape, top) in enumerate(moves.ACTIONS):
        n, length = moves.SHAPE_N[shape], moves.SHAPE_L[shape]
        top_rank = top // 4
        out[a, shape] = 1
        out[a, n_shapes + top_rank - length + 1 : n_shapes + top_rank + 1] = n / 4
        out[a, n_shapes + 13 + top] = 1
        out[a, -2] = float(moves.SHAPE_IS_BOMB[shape])
    out[moves.PASS, -1] = 1
    return out
