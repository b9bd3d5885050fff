"""Guandan (掼蛋), two teams of two with two decks and wild cards: the play patterns and their suit decisions
(:mod:`.moves`), the numba rules over a batched state with tribute, levels and the match (:mod:`.rules`), its
numba policies (:mod:`.policies`), determinization for search (:mod:`.determinize`), the env (:mod:`.env`),
the web view (:mod:`.view`). Teams are fixed by seat (``player_0`` and ``player_2``
against ``player_1`` and ``player_3``), so the game declares no roles.

This module is the game's one declaration, :data:`SPEC` (:class:`cardenvs.core.spec.GameSpec`); it imports
nothing heavy."""

from __future__ import annotations

from cardenvs.core.spec import Baseline, GameSpec, RelativeSkill

SPEC = GameSpec(
    name="guandan",
    version=0,
    package=__name__,
    title="Guandan",
    view="cardenvs.games.guandan.view",
    move_features="cardenvs.games.guandan.features:move_features",
    # DanZero's 513 state features of the seat to move, in numba over the rules' state (DMC's features: danzero)
    learner_features={"danzero": "cardenvs.games.guandan.danzero_features:LEARNER_FEATURES"},
    # rising strength as measured on duplicate deals: heuristic partnerships win 0.98 of hands against random
    # ones, PIMC at 300 playouts 0.64 against heuristic ones, the shipped DMC model 0.75 (training/README.md)
    skill_ladder=("random", "guandan.heuristic", "guandan.pimc(playouts=300)", "guandan.dmc"),
    skill_ladder_quick=("random", "guandan.heuristic"),
    # the best agent is the shipped model (PIMC at 200 playouts scored below the heuristic's own place); the
    # all-seeing player is search on the true hands, a different algorithm from the model, as in Dou Dizhu
    relative_skill=RelativeSkill(
        "random", "guandan.dmc", "guandan.pimc(playouts=200,oracle=true)", "guandan.heuristic"
    ),
    # a heuristic partnership (seats 0 and 2) against a random one, each deal also with the sides swapped
    baselines=(
        Baseline(
            ("guandan.heuristic", "random", "guandan.heuristic", "random"),
            500,
            duplicate=True,
            label="a guandan.heuristic partnership vs random",
        ),
    ),
    luck_value="heuristic",  # its self-play from a position: the value function of arena --luck-adjusted
    # bots of the Guandan competition platform (WebSocket clients) run unchanged: gdws:COMMAND
    program_protocols={"gdws": "cardenvs.games.guandan.platform:Protocol"},
)
