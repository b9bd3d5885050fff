"""PettingZoo api_test / seed_test and random-play invariants for every registered env and variant."""
import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import cardenvs
from cardenvs.agent import legal_actions
from cardenvs.registry import env_module

from conftest import all_variants

VARIANTS = all_variants()


@pytest.mark.parametrize("env_id,options", VARIANTS)
def test_api_wrapped_and_raw(env_id, options):
    module = env_module(env_id)
    api_test(module.env(**options), num_cycles=200)
    api_test(module.raw_env(**options), num_cycles=200)


@pytest.mark.parametrize("env_id,options", VARIANTS)
def test_seed(env_id, options):
    module = env_module(env_id)
    seed_test(lambda: module.env(**options), num_cycles=200)


@pytest.mark.parametrize("env_id,options", VARIANTS)
def test_random_play_invariants(env_id, options):
    """Cards conserved every step, masks non-empty for the mover, games end, win-scale results sum to 0."""
    env = env_module(env_id).raw_env(**options)
    base_deck = np.sort(env.deck)
    rng = np.random.default_rng(123)
    for game in range(3):
        env.reset(seed=game)
        steps = 0
        for agent in env.agent_iter(max_iter=200_000):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            assert obs["action_mask"].dtype == np.int8
            legal = legal_actions(obs)
            assert len(legal) > 0, f"empty mask for {agent} while the game is on"
            assert np.array_equal(np.sort(env.card_locations()), base_deck), "cards not conserved"
            env.step(int(rng.choice(legal)))
            steps += 1
        assert not env.agents, "the game did not end"
        assert abs(env.outcome().sum()) < 1e-9 or env_id == "doudizhu_v0"


@pytest.mark.parametrize("env_id", cardenvs.ENV_IDS)
def test_same_seed_same_deal_regardless_of_play(env_id):
    """Deal k depends on the reset seed only, not on the agents' actions."""
    env = env_module(env_id).raw_env()
    env.reset(seed=5)
    first = [env.observe(a)["observation"].copy() for a in env.possible_agents]
    env.reset(seed=5)
    again = [env.observe(a)["observation"] for a in env.possible_agents]
    for x, y in zip(first, again):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("env_id", cardenvs.ENV_IDS)
def test_bad_options_and_decks(env_id):
    module = env_module(env_id)
    with pytest.raises(ValueError, match="unknown option 'no_such_option'"):
        module.env(no_such_option=1)
    with pytest.raises(ValueError, match="reward"):
        module.env(reward="money")
    env = module.raw_env()
    deck = [int(c) for c in env.deck]
    from cardenvs.core.cards import format_cards
    codes = format_cards(deck).split()
    with pytest.raises(ValueError, match="bad card code 'ZZ'"):
        env.reset(options={"deck": ["ZZ"] + codes[1:]})
    with pytest.raises(ValueError, match="missing"):
        env.reset(options={"deck": codes[:-1]})
    with pytest.raises(ValueError, match="doubled"):
        env.reset(options={"deck": codes[:-1] + [codes[0]]})


@pytest.mark.parametrize("env_id", cardenvs.ENV_IDS)
def test_illegal_and_out_of_range_actions(env_id):
    module = env_module(env_id)
    raw = module.raw_env()
    raw.reset(seed=0)
    with pytest.raises(ValueError, match="outside the action space"):
        raw.step(raw.num_actions)
    illegal = np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"] == 0)
    if len(illegal):
        with pytest.raises(ValueError, match="illegal action"):
            raw.step(int(illegal[0]))
        wrapped = module.env()
        wrapped.reset(seed=0)
        offender = wrapped.agent_selection
        with pytest.warns(UserWarning, match="illegal action"):
            wrapped.step(int(illegal[0]))
        assert all(wrapped.terminations.values())
        assert wrapped._cumulative_rewards[offender] == -1
        assert all(r == 0 for a, r in wrapped._cumulative_rewards.items() if a != offender)


@pytest.mark.parametrize("env_id", cardenvs.ENV_IDS)
def test_order_enforcing_and_spaces(env_id):
    env = env_module(env_id).env()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    with pytest.raises(RuntimeError, match="reset"):
        env.observe("player_0")
    agent = env.possible_agents[0]
    assert env.observation_space(agent) is env.observation_space(agent)
    assert env.action_space(agent) is env.action_space(agent)


@pytest.mark.parametrize("env_id", cardenvs.ENV_IDS)
def test_docstring_matches_layout(env_id):
    module = env_module(env_id)
    env = module.raw_env()
    for seg in env.layout.segments:
        assert f"`{seg.name}`" in module.__doc__, f"segment {seg.name} missing from the docstring"
    for opt in env.all_options():
        assert f"`{opt.name}`" in module.__doc__


@pytest.mark.parametrize("env_id", cardenvs.ENV_IDS)
def test_ansi_render(env_id):
    env = env_module(env_id).env(render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert isinstance(text, str) and text.strip()


def test_make_and_ids():
    assert "war_v0" in cardenvs.ENV_IDS
    env = cardenvs.make("war", max_turns=10)
    assert env.metadata["name"] == "war_v0"
    from cardenvs import war_v0
    assert war_v0.env().metadata["name"] == "war_v0"
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        cardenvs.make("chess")
    with pytest.raises(ValueError, match="max_turns"):
        cardenvs.make("war", max_turns=0)
