"""Twos, a climbing game with bombs: move table and generator (:mod:`.moves`, with :func:`legal_moves`),
the numba rules over a batched state (:mod:`.rules`), numba heuristics (:mod:`.policies`), determinization
for search (:mod:`.determinize`), move features for learners (:mod:`.features`), the env (:mod:`.env`).

This module is the game's one declaration, :data:`SPEC` (:class:`cardenvs.core.spec.GameSpec`); it
imports nothing heavy, so every game's spec is read at ``import cardenvs``."""

from __future__ import annotations

import importlib
from typing import Any

from cardenvs.core.spec import GameSpec

SPEC = GameSpec(
    name="twos",
    version=0,
    package=__name__,
    title="Twos",
    move_features="cardenvs.games.twos.features:action_features",
    view="cardenvs.games.twos.view",
)

#: names this package re-exports from its modules, imported on first use
_LAZY = {"legal_moves": "moves"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
