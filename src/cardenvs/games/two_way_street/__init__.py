"""Two Way Street, trick-taking with high/low declarations: the numba rules over a batched state and the
scoring (:mod:`.rules`: :func:`duel_score`, :func:`hand_scores`, :func:`raw_score`), the numba heuristic
(:mod:`.policies`), the determinizer for search (:mod:`.determinize`), the env (:mod:`.env`).

This module is the game's one declaration, :data:`SPEC` (:class:`cardenvs.core.spec.GameSpec`)."""

from __future__ import annotations

import importlib
from typing import Any

from cardenvs.core.spec import GameSpec

SPEC = GameSpec(
    name="two_way_street",
    version=0,
    package=__name__,
    title="Two Way Street",
    view="cardenvs.games.two_way_street.view",
)

#: names this package re-exports from its modules, imported on first use
_LAZY = {"duel_score": "rules", "hand_scores": "rules", "raw_score": "rules"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
