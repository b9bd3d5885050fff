"""Twos, a climbing game with bombs: move table and generator (:mod:`.moves`), the numba rules over a
batched state (:mod:`.rules`, with :func:`legal_moves`), numba heuristics (:mod:`.policies`),
determinization for search (:mod:`.determinize`), move features for learners (:mod:`.features`), the env
(:mod:`.env`).

This module is the game's one declaration, :data:`SPEC` (:class:`cardenvs.core.spec.GameSpec`); it
imports nothing heavy, so every game's spec is read at ``import cardenvs``."""

from __future__ import annotations

from cardenvs.core.spec import Baseline, GameSpec, RelativeSkill, lazy_attributes

SPEC = GameSpec(
    name="twos",
    version=0,
    package=__name__,
    title="Twos",
    move_features="cardenvs.games.twos.features:action_features",
    view="cardenvs.games.twos.view",
    # rising strength as measured (docs/luck-and-skill.md): PIMC at 400 playouts beats the shipped model
    skill_ladder=("random", "twos.heuristic", "twos.pimc(playouts=50)", "twos.dmc", "twos.pimc(playouts=400)"),
    skill_ladder_quick=("random", "twos.heuristic", "twos.pimc(playouts=50)", "twos.dmc"),
    # the best agent's search with the hidden hands shown is the all-seeing player (the same budget, so the chance
    # effect is what the information alone is worth to it); the heuristic is the field
    relative_skill=RelativeSkill(
        "random", "twos.pimc(playouts=200)", "twos.pimc(playouts=200,oracle=true)", "twos.heuristic"
    ),
    studies={"bombs": "cardenvs.games.twos.bomb_study"},
    baselines=(Baseline(("twos.heuristic", "random", "random"), 1000),),
    luck_value="heuristic",  # its self-play from a position: the value function of arena --luck-adjusted
)

#: names this package re-exports from its modules, imported on first use
__getattr__ = lazy_attributes(__name__, {"legal_moves": "rules"})
