"""Dou Dizhu's roles (the ``roles`` of its :data:`~cardenvs.games.doudizhu.SPEC`): the landlord and the farmers.

The arena reports win rates by role (:func:`of_game`); DMC trains one network per part a learner plays
(:func:`of_observation`): the landlord, the farmer who plays right after it, the farmer before it, and the
bidder.
"""

from __future__ import annotations

from typing import Any

import numpy as np

LANDLORD, FARMER = 0, 1


def of_game(layout: Any, obs: np.ndarray) -> tuple[list[int] | None, dict[str, list[float]]]:
    """After a hand, from player_0's observation ``obs`` (whose relative seats are the seats): each seat's role
    (0 landlord, 1 farmer) and the final bid on the landlord's seat (NaN on the farmers'); None for a dead
    hand (nobody bid)."""
    landlord = obs[layout.slices["landlord"]].tolist()
    if not any(landlord):
        return None, {}
    seat = next(p for p, on in enumerate(landlord) if on)
    players = len(landlord)
    bids = obs[layout.slices["bid"]].tolist()
    bid = float(bids.index(max(bids)))
    roles = [LANDLORD if p == seat else FARMER for p in range(players)]
    return roles, {"bid": [bid if p == seat else float("nan") for p in range(players)]}


def of_observation(layout: Any, obs: np.ndarray) -> np.ndarray:
    """The learner's part from its observations ``[N, D]``: 0 landlord, 1 the farmer right after it, 2 the
    farmer before it, 3 bidding. The ``landlord`` segment is relative (0 = the observer, 1 = the next seat,
    2 = the previous): the landlord at 2 means the observer plays right after the landlord."""
    landlord = obs[:, layout.slices["landlord"]]
    bidding = obs[:, layout.slices["bidding"]][:, 0] > 0
    role = np.where(landlord[:, 0] > 0, 0, np.where(landlord[:, 2] > 0, 1, 2))
    return np.where(bidding, 3, role).astype(np.int64)
