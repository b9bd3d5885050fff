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
    # how moves are named, for a reader not shown them (the prompts' Moves section)
    move_names="A move is named `NxL to CARD`: L consecutive ranks with N cards of each, CARD the highest card of "
    "them. `1x1` is a single, `2x1` a pair, `3x1` a triple, `4x1` four of a kind (a bomb), `1xL` (L of 3 or more) a "
    "run of single cards, `NxL` with N of 2 or more and L of 3 or more a run of pairs, triples or fours (a bomb). "
    "Ranks go 3 4 5 6 7 8 9 T J Q K A 2 and suits S C D H, lowest first; a card is its rank and suit (`TD`, the ten "
    "of diamonds). Below the top card a move plays the lowest suits you hold of each rank: `2x3 to 7D` plays your "
    "two lowest 5s, your two lowest 6s, and 7D with your lowest other 7. `pass` passes. An answer may also list the "
    "cards to play, in any order (`5S 5C`).",
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
