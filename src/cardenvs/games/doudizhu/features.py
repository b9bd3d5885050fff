"""Dou Dizhu's moves described for learners (the ``move_features`` of its spec): one row per action, so a
network can score moves by their content (SB3's action-feature head, DMC's move network)."""

from __future__ import annotations

import numpy as np

from . import moves


def action_features() -> np.ndarray:
    """One row per Dou Dizhu action: the 54 card planes of the move, its type (one-hot over
    ``moves.TYPES``), its main rank (one-hot, 15), its size / 20, and one-hots for pass, no bid and bids 1-3."""
    from .env import MOVE_PLANES

    n, m, types = moves.NUM_ACTIONS, moves.NUM_MOVES, len(moves.TYPES)
    special = n - m
    out = np.zeros((n, 54 + types + 15 + 1 + special), dtype=np.float32)
    out[:, :54] = MOVE_PLANES
    out[np.arange(m), 54 + moves.MOVE_TYPE] = 1
    out[np.arange(m), 54 + types + moves.MOVE_MAIN] = 1
    out[:m, 54 + types + 15] = moves.MOVE_SIZE / 20
    out[np.arange(m, n), 54 + types + 16 + np.arange(special)] = 1
    return out


def move_features() -> np.ndarray:
    """:func:`action_features` and each move's kicker counts per rank / 4 (DMC's move network)."""
    kickers = np.zeros((moves.NUM_ACTIONS, 15), dtype=np.float32)
    kickers[: moves.NUM_MOVES] = moves.MOVE_KICKERS / 4
    return np.concatenate([action_features(), kickers], axis=1)
