"""High Card, a game that lives outside the package: the proof that a game is one folder.

Nothing under ``src/``, ``agents/``, ``training/`` or ``benchmarks/`` names it. Its parts: the numba rules
(:mod:`.rules`), two numba policies (:mod:`.policies`), the determinizer for search (:mod:`.determinize`), the
AEC env (:mod:`.env`) and the web view (:mod:`.view`). This module is its one declaration, :data:`SPEC`; call
:func:`register` once per process, before naming the game anywhere (``docs/adding-a-game.md``)."""

from __future__ import annotations

from cardenvs.core.spec import GameSpec

SPEC = GameSpec(name="highcard", version=0, package=__name__, title="High Card", view=f"{__name__}.view")


def register() -> None:
    """Add High Card to cardenvs' registry (``make("highcard")``, agents ``highcard.*``, the arena, the web)."""
    from cardenvs.registry import register as register_game

    register_game(SPEC)
