"""The opponent pool, one for every trainer: opponents drawn by weight, snapshots of the learner among them.

``OpponentPool({"twenty.greedy": 0.5, "random": 0.2}, snapshot_weight=0.3, max_snapshots=5)``: each draw
picks an entry with probability proportional to its weight. An entry is anything the learner view
(:class:`cardenvs.vector.LearnerVectorEnv`) takes as an opponent: ``"random"``, a numba policy by name, any
other agent name, or a batched callable such as a frozen network. ``add_snapshot`` adds a frozen copy of the
learner: the newest ``max_snapshots`` snapshots share ``snapshot_weight`` equally, older ones drop to weight
0 (they stay in the pool, so indices never move). The pool only holds opponents and weights and draws
indices from a generator the caller owns; what an entry means is up to the env that plays it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["OpponentPool"]


def _check_weight(weight: Any, what: str) -> float:
    if isinstance(weight, bool) or not isinstance(weight, (int, float, np.integer, np.floating)) or weight < 0:
        raise ValueError(f"{what}: weight {weight!r} must be a number >= 0")
    return float(weight)


class OpponentPool:
    """Opponents and their weights; ``draw(rng, shape)`` returns entry indices drawn by weight."""

    def __init__(self, weights: Mapping[Any, float], snapshot_weight: float = 0.0, max_snapshots: int = 5):
        if not isinstance(weights, Mapping) or not weights:
            raise ValueError(f"opponent pool {weights!r}: give opponent -> weight (>= 0), at least one")
        self.opponents: list[Any] = []
        self.weights: list[float] = []
        for opponent, weight in weights.items():
            self.opponents.append(opponent)
            self.weights.append(_check_weight(weight, f"opponent pool entry {opponent!r}"))
        if sum(self.weights) <= 0:
            raise ValueError(f"opponent pool {dict(weights)!r}: no positive weight")
        self.snapshot_weight = _check_weight(snapshot_weight, "snapshot_weight")
        if isinstance(max_snapshots, bool) or not isinstance(max_snapshots, (int, np.integer)) or max_snapshots < 1:
            raise ValueError(f"max_snapshots={max_snapshots!r}: expected an integer >= 1")
        self.max_snapshots = int(max_snapshots)
        self.snapshots: list[int] = []  # pool indices of the snapshots, oldest first

    def __len__(self) -> int:
        return len(self.opponents)

    def add(self, opponent: Any, weight: float) -> int:
        """Add an opponent with its weight; returns its index in the pool."""
        weight = _check_weight(weight, f"opponent {opponent!r}")
        self.opponents.append(opponent)
        self.weights.append(weight)
        return len(self.opponents) - 1

    def set_weight(self, index: int, weight: float) -> None:
        """Change the weight of entry ``index``; the pool must keep a positive weight."""
        weight = _check_weight(weight, f"opponent pool entry {index}")
        old = self.weights[index]
        self.weights[index] = weight
        if sum(self.weights) <= 0:
            self.weights[index] = old
            raise ValueError("the opponent pool has no positive weight left")

    def add_snapshot(self, opponent: Any, weight: float | None = None) -> int:
        """Add a frozen copy of the learner; the newest ``max_snapshots`` share ``snapshot_weight`` (set to
        ``weight`` when given). Returns its index in the pool."""
        if weight is not None:
            self.snapshot_weight = _check_weight(weight, "snapshot_weight")
        index = self.add(opponent, 0.0)
        self.snapshots.append(index)
        kept = self.snapshots[-self.max_snapshots :]
        for snapshot in self.snapshots:
            self.weights[snapshot] = self.snapshot_weight / len(kept) if snapshot in kept else 0.0
        if sum(self.weights) <= 0:
            raise ValueError("the opponent pool has no positive weight left")
        return index

    def probabilities(self) -> np.ndarray:
        """Each entry's chance of being drawn."""
        weights = np.asarray(self.weights, dtype=np.float64)
        return weights / weights.sum()

    def draw(self, rng: np.random.Generator, shape: int | tuple[int, ...]) -> np.ndarray:
        """Entry indices of the given shape, drawn by weight from ``rng``."""
        return rng.choice(len(self.weights), size=shape, p=self.probabilities())

    def __repr__(self) -> str:
        entries = ", ".join(
            f"{getattr(o, '__name__', None) or getattr(o, 'name', o)!r}: {w:g}"  # a function's or an agent's name
            for o, w in zip(self.opponents, self.weights, strict=True)
        )
        return f"OpponentPool({{{entries}}})"
