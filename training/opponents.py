"""The opponent pool: heuristics, random, and frozen snapshots of the learner, sampled by weight.

``OpponentPool({"twenty.greedy": 0.5, "random": 0.2}, snapshot_weight=0.3, max_snapshots=5)``: each draw
picks an entry with probability proportional to its weight; all snapshots together share
``snapshot_weight`` (the newest ``max_snapshots`` are kept, drawn uniformly). Built agents are cached per
name, so sampling is cheap.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardenvs.agent import load_agent


class OpponentPool:
    def __init__(self, weights: dict[str, float], snapshot_weight: float = 0.0, max_snapshots: int = 5):
        if not weights and snapshot_weight <= 0:
            raise ValueError("the opponent pool needs at least one agent with a positive weight")
        bad = {k: w for k, w in weights.items() if w < 0}
        if bad:
            raise ValueError(f"opponent weights must be >= 0; got {bad}")
        self.weights = dict(weights)
        self.snapshot_weight = float(snapshot_weight)
        self.max_snapshots = int(max_snapshots)
        self.snapshots: list[str] = []
        self._cache: dict[tuple[str, int], Any] = {}

    def add_snapshot(self, path: str, weight: float | None = None) -> None:
        if weight is not None:
            self.snapshot_weight = float(weight)
        self.snapshots.append(path)
        self.snapshots = self.snapshots[-self.max_snapshots :]

    def names(self) -> list[str]:
        return list(self.weights) + [f"ppo:{p}" for p in self.snapshots]

    def sample(self, rng: np.random.Generator, env: Any) -> Any:
        names = list(self.weights)
        weights = [self.weights[n] for n in names]
        if self.snapshots and self.snapshot_weight > 0:
            names.append("<snapshot>")
            weights.append(self.snapshot_weight)
        p = np.asarray(weights, dtype=np.float64)
        if p.sum() <= 0:
            raise ValueError(f"the opponent pool has no positive weight: {dict(zip(names, weights, strict=True))}")
        name = names[int(rng.choice(len(names), p=p / p.sum()))]
        if name == "<snapshot>":
            name = "ppo:" + self.snapshots[int(rng.integers(len(self.snapshots)))]
        key = (name, id(env))
        if key not in self._cache:
            self._cache[key] = load_agent(name, env)
        return self._cache[key]
