"""Whole Guandan matches (issue 53, item 3): every stage of a match (tribute, double tribute, resistance,
return, hands at A, failed attempts at A and the fall back to 2, the match's end) rendered at every step."""

import numpy as np

from cardenvs.agent.base import PolicyAgent
from cardenvs.games.guandan import rules as R
from cardenvs.games.guandan.env import raw_env


def test_a_tribute_in_a_later_hand_renders():
    """The crash measured from outside: the second hand's tribute rendered the previous hand's last play from a
    history just emptied (IndexError)."""
    env = raw_env(episode="match", render_mode="ansi")
    env.reset(seed=0)
    agent = PolicyAgent(env, "heuristic")
    rng = np.random.default_rng(0)
    while not (env.state.hands_played >= 1 and env.state.phase == R.PAY):
        env.step(agent.act(env.observe(env.agent_selection), rng))
    text = env.render()
    assert "tribute" in text and "to beat" not in text
