"""``doudizhu.stakes_pimc`` (agents/doudizhu/stakes_search.py): over whole games with bidding, every bidding
decision (as the env's state says) is ``doudizhu.dmc_stakes``'s and every move of play is
``doudizhu.pimc(playouts=5000)``'s, given the same generator state."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import cardenvs
from cardenvs.agent import load_agent

pytest.importorskip("torch")


def test_bids_are_the_stakes_models_and_play_is_the_searchs():
    env = cardenvs.make("doudizhu", bidding=True)
    agent = load_agent("doudizhu.stakes_pimc", env)
    bidder, player = load_agent("doudizhu.dmc_stakes", env), load_agent("doudizhu.pimc(playouts=5000)", env)
    rng = np.random.default_rng(5)
    seen = {True: 0, False: 0}
    for seed in (1, 2):
        env.reset(seed=seed)
        for _ in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            bidding = bool(env.unwrapped.state.bidding)
            assert agent.bidding(observation) == bidding
            twin = bidder if bidding else player
            expected = int(twin.act(observation, copy.deepcopy(rng)))
            action = agent.act(observation, rng)
            assert action == expected
            seen[bidding] += 1
            env.step(action)
    assert seen[True] >= 2 and seen[False] >= 20


def test_it_plays_dou_dizhu_only():
    with pytest.raises(ValueError, match="plays doudizhu, not twos"):
        load_agent("doudizhu.stakes_pimc", cardenvs.make("twos"))
