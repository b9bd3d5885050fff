"""War: the numba rules over a batched state (:mod:`.rules`), its one policy (:mod:`.policies`), the env
(:mod:`.env`).

This module is the game's one declaration, :data:`SPEC` (:class:`cardenvs.core.spec.GameSpec`)."""

from __future__ import annotations

from cardenvs.core.spec import GameSpec, RelativeSkill

SPEC = GameSpec(
    name="war",
    version=0,
    package=__name__,
    title="War",
    # how moves are named, for a reader not shown them (the prompts' Moves section)
    move_names="There is one move, `flip`: put your next card on the table (face down or face up, as the battle "
    "asks). It is always legal.",
    view="cardenvs.games.war.view",
    skill_ladder=("random", "war.flip"),  # no decisions: the calibration of cardenvs analyze skill
    # no decisions: every player plays every deal alike, knowing the cards or not, so relative skill is 0
    relative_skill=RelativeSkill("random", "war.flip", "war.flip", "war.flip"),
    studies={"war": "cardenvs.games.war.study"},
    luck_value="flip",  # its self-play from a position: the value function of arena --luck-adjusted
)
