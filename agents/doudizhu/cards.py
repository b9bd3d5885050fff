"""Dou Dizhu's cards as the field's agents read them: rank counts from the observation's 54-entry planes and
back, RLCard's card strings, and the observation's parts checked for what these agents can play."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from cardenvs.games.doudizhu import moves

RANKS = moves.RANK_CHARS  # "3456789TJQKA2BR", RLCard's rank characters too
#: rank counts of the whole deck (four of each rank 3..2, one of each joker)
DECK_COUNTS = np.array([4] * 13 + [1, 1], dtype=np.int64)


def plane_counts(plane: np.ndarray) -> np.ndarray:
    """Rank counts (15) of a set of cards in the observation's 54-entry encoding ("at least k of rank r",
    k-major, then the two jokers)."""
    plane = np.asarray(plane, dtype=np.int64)
    counts = np.empty(15, dtype=np.int64)
    counts[:13] = plane[:52].reshape(4, 13).sum(axis=0)
    counts[13:] = plane[52:54]
    return counts


def cards_text(counts: np.ndarray) -> str:
    """Rank counts as RLCard writes cards: ranks low to high, ``"33345BR"``; empty for no cards."""
    return "".join(RANKS[r] * int(c) for r, c in enumerate(counts))


def counts_plane(counts: np.ndarray) -> np.ndarray:
    """Rank counts in the observation's 54-entry encoding (the inverse of :func:`plane_counts`)."""
    counts = np.asarray(counts)
    plane = np.zeros(54, dtype=np.int8)
    plane[:52] = (counts[None, :13] > np.arange(4)[:, None]).reshape(52)
    plane[52:] = counts[13:15] > 0
    return plane


def decode_parts(env: Any, observation: Mapping[str, np.ndarray], name: str) -> dict[str, np.ndarray]:
    """The observation's parts (the env's layout), or a ``ValueError`` where agent ``name`` cannot play: a
    bidding decision, or no landlord yet."""
    parts = env.layout.decode(observation["observation"])
    if parts["bidding"][0]:
        raise ValueError(
            f"{name} cannot bid: the game it was made for has no bidding. Play it with bidding=False, or in the "
            "arena's duplicate mode without --bidding (player_0 is landlord at bid 1)"
        )
    if not parts["landlord"].any():
        raise ValueError(f"{name}: the observation names no landlord")
    return parts


def landlord_seat(parts: Mapping[str, np.ndarray]) -> int:
    """The landlord's relative seat (0: the observer)."""
    return int(np.argmax(parts["landlord"]))
