"""Observation layouts declared once as named segments.

An env declares its flat observation vector as a list of :class:`Segment` (name, size, upper bound,
optional shape); the :class:`Layout` turns that into offsets, the gymnasium ``Box``, a decoder for agents
and tests, and the Markdown table for the env's docstring, so the documentation cannot drift.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from gymnasium import spaces


@dataclass(frozen=True)
class Segment:
    """One named part of an observation: ``size`` entries in ``0..high``, reshaped to ``shape`` on decode."""

    name: str
    size: int
    high: float = 1
    doc: str = ""
    shape: tuple[int, ...] | None = None

    def __post_init__(self):
        if self.shape is not None and int(np.prod(self.shape)) != self.size:
            raise ValueError(f"segment {self.name!r}: shape {self.shape} does not hold {self.size} entries")


class Layout:
    """Offsets of named segments in a flat observation vector.

    The dtype is ``int8`` when every bound fits in it, otherwise ``float32``.
    """

    def __init__(self, segments: Iterable[Segment]):
        self.segments = tuple(segments)
        names = [s.name for s in self.segments]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate segment names in layout: {names}")
        self.slices: dict[str, slice] = {}
        start = 0
        for seg in self.segments:
            self.slices[seg.name] = slice(start, start + seg.size)
            start += seg.size
        self.size = start
        max_high = max((s.high for s in self.segments), default=1)
        self.dtype = np.int8 if max_high <= 127 else np.float32
        high = np.empty(self.size, dtype=np.float64)
        for seg in self.segments:
            high[self.slices[seg.name]] = seg.high
        self.high = high.astype(self.dtype)
        self._by_name = {s.name: s for s in self.segments}

    def __contains__(self, name: str) -> bool:
        return name in self.slices

    def starts(self, names: Iterable[str] | None = None) -> np.ndarray:
        """Where each segment starts (``names``: these segments in this order; default: all, in layout
        order), int64: the offsets a game's numba ``observe`` writes at (its params carry them)."""
        chosen = [s.name for s in self.segments] if names is None else list(names)
        return np.array([self.slices[name].start for name in chosen], dtype=np.int64)

    def zeros(self) -> np.ndarray:
        return np.zeros(self.size, dtype=self.dtype)

    def space(self) -> spaces.Box:
        return spaces.Box(low=0, high=self.high, shape=(self.size,), dtype=self.dtype)

    def view(self, vector: np.ndarray, name: str) -> np.ndarray:
        """A writable view of one segment of ``vector`` (flat)."""
        return vector[self.slices[name]]

    def get(self, vector: np.ndarray, name: str) -> np.ndarray:
        """One segment, reshaped to its declared shape."""
        seg = self._by_name[name]
        part = vector[self.slices[name]]
        return part.reshape(seg.shape) if seg.shape else part

    def decode(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """The observation vector as ``{segment name: array}``."""
        vector = np.asarray(vector)
        if vector.shape != (self.size,):
            raise ValueError(f"observation has shape {vector.shape}, layout expects ({self.size},)")
        return {seg.name: self.get(vector, seg.name) for seg in self.segments}

    def encode(self, parts: dict[str, np.ndarray]) -> np.ndarray:
        """Inverse of :meth:`decode` (missing segments are zero)."""
        unknown = set(parts) - set(self.slices)
        if unknown:
            raise ValueError(f"unknown segments {sorted(unknown)}; layout has {list(self.slices)}")
        out = self.zeros()
        for name, value in parts.items():
            out[self.slices[name]] = np.asarray(value).reshape(-1)
        return out

    def markdown(self) -> str:
        """The layout as a Markdown table (for env docstrings)."""
        rows = ["| segment | offset | size | range | meaning |", "|---|---|---|---|---|"]
        for seg in self.segments:
            sl = self.slices[seg.name]
            high = int(seg.high) if float(seg.high).is_integer() else seg.high
            rows.append(f"| `{seg.name}` | {sl.start} | {seg.size} | 0..{high} | {seg.doc} |")
        return "\n".join(rows)


LOG_ABOVE = 100.0  # segments with a larger bound (scores, awards) are scaled logarithmically


def bound_scaling(high: np.ndarray, logarithmic: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """How learners scale observations, the one definition: ``(log, divisor)`` per entry. An entry with
    ``log`` goes through ``log1p`` first; every entry is then divided by ``divisor`` (its bound, or the
    ``log1p`` of its bound), so each lands in [0, 1]. Bounds above :data:`LOG_ABOVE` are logarithmic unless
    ``logarithmic`` is False (bounds only)."""
    high = np.maximum(np.asarray(high, dtype=np.float64), 1.0)
    log = (high > LOG_ABOVE) if logarithmic else np.zeros(high.shape, dtype=bool)
    return log, np.where(log, np.log1p(high), high)


def scale_by_bounds(high: np.ndarray, obs: np.ndarray) -> np.ndarray:
    """Observation rows (any leading shape) scaled by :func:`bound_scaling` (negative entries count as 0),
    as float32."""
    log, divisor = bound_scaling(high)
    x = np.maximum(np.asarray(obs, dtype=np.float64), 0.0)
    return (np.where(log, np.log1p(x), x) / divisor).astype(np.float32)
