"""Twenty, a two-player tally game: the numba rules over a batched state (:mod:`.rules`), the numba greedy
heuristic (:mod:`.policies`), the hand and round solvers (:mod:`.solver`), the determinizer for search
(:mod:`.determinize`), learner features (:mod:`.features`), the env (:mod:`.env`).

This module is the game's one declaration, :data:`SPEC` (:class:`cardenvs.core.spec.GameSpec`)."""

from __future__ import annotations

from cardenvs.core.spec import GameSpec

SPEC = GameSpec(
    name="twenty",
    version=0,
    package=__name__,
    title="Twenty",
    learner_features={"twenty": "cardenvs.games.twenty.features:learner_features"},
    view="cardenvs.games.twenty.view",
    skill_ladder=("random", "twenty.greedy", "twenty.pimc(playouts=50)", "twenty.pimc(playouts=400)", "twenty.dmc"),
    skill_ladder_quick=("random", "twenty.greedy", "twenty.dmc"),
)
