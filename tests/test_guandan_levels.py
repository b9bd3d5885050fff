"""Guandan hands at every level (issue 63, the level game): ``hand_levels="random"`` draws each team's level (2..A)
and the declarer from the deal, so a learner trained on single hands meets the levels a match is played at (one
trained at 2, 2 alone won none of 200 matches against DanZero). The drawn hand is the hand the reset options
``levels`` and ``declarer`` would give: the same deal, leader and legal moves, at the drawn levels."""

from __future__ import annotations

import numpy as np
import pytest

from cardenvs import make
from cardenvs.core.cards import RANKS


def levels_of(env) -> tuple[int, int, int, int]:
    s = env.unwrapped.core_state().states[0]
    return int(s["levels"][0]), int(s["levels"][1]), int(s["declarer"]), int(s["hand_level"])


def play_random(env, seed: int) -> list[tuple[str, tuple[int, ...]]]:
    """The seats to move and their legal moves along a seeded random game."""
    rng, seen = np.random.default_rng(seed), []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = tuple(np.flatnonzero(obs["action_mask"]))
        seen.append((agent, legal))
        env.step(int(rng.choice(legal)))
    return seen


def test_random_levels_cover_every_level_and_both_declarers():
    env = make("guandan_v0", hand_levels="random")
    drawn = []
    for seed in range(120):
        env.reset(seed=seed)
        a, b, declarer, hand_level = levels_of(env)
        assert hand_level == (a, b)[declarer]
        obs = env.observe(env.agent_selection)["observation"]
        levels = env.unwrapped.layout.get(obs, "levels")  # the observer's team's level, then the other's
        own = int(env.agent_selection[-1]) % 2
        assert levels[0, (a, b)[own]] == 1 and levels[1, (a, b)[1 - own]] == 1
        drawn.append((a, b, declarer))
    assert {d[0] for d in drawn} == set(range(13)) and {d[1] for d in drawn} == set(range(13))
    assert {d[2] for d in drawn} == {0, 1}
    env.reset(seed=7)
    again = levels_of(env)
    env.reset(seed=7)
    assert levels_of(env) == again  # part of the deal: the same seed, the same levels


def test_by_default_every_hand_is_at_two():
    env = make("guandan_v0")
    for seed in range(20):
        env.reset(seed=seed)
        assert levels_of(env)[:2] == (0, 0) and levels_of(env)[3] == 0


@pytest.mark.parametrize("seed", [3, 11, 40])
def test_a_drawn_hand_is_the_hand_the_reset_options_give(seed):
    drawn = make("guandan_v0", hand_levels="random")
    drawn.reset(seed=seed)
    a, b, declarer, _ = levels_of(drawn)
    fixed = make("guandan_v0")
    fixed.reset(seed=seed, options={"levels": [RANKS[a], RANKS[b]], "declarer": declarer})
    assert levels_of(fixed) == levels_of(drawn)
    drawn.reset(seed=seed)
    assert play_random(drawn, 5) == play_random(fixed, 5)


def test_random_levels_with_a_match_or_given_levels_is_an_error():
    with pytest.raises(ValueError, match="hand_levels='random' is for hand episodes"):
        make("guandan_v0", hand_levels="random", episode="match")
    env = make("guandan_v0", hand_levels="random")
    with pytest.raises(ValueError, match="reset option levels beside hand_levels='random'"):
        env.reset(seed=1, options={"levels": ["5", "2"]})
