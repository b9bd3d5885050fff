"""PettingZoo api_test / seed_test and random-play invariants for every registered env and variant; the
base class's checks of options, seeds, reset options and stacked decks; docstrings against the spaces."""

import re

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import cardenvs
from cardenvs import legal_actions
from cardenvs.core.cards import format_cards
from cardenvs.core.play import play_episode
from cardenvs.core.seeds import deal_seed_of
from cardenvs.registry import env_module

from conftest import all_variants

VARIANTS = all_variants()


def codes_of(env):
    return format_cards(env.deck).split()


@pytest.mark.parametrize("env_id,options", VARIANTS)
def test_api_wrapped_and_raw(env_id, options):
    module = env_module(env_id)
    api_test(module.env(**options), num_cycles=200)
    api_test(module.raw_env(**options), num_cycles=200)


@pytest.mark.parametrize("env_id,options", VARIANTS)
def test_seed(env_id, options):
    module = env_module(env_id)
    seed_test(lambda: module.env(**options), num_cycles=200)


def random_games(env_id, options, check, games=3):
    """Seeded random play; ``check(env, phase)`` is called with phase "before" each step (so also after every
    step but the last) and "end" after the last step."""
    env = env_module(env_id).raw_env(**options)
    rng = np.random.default_rng(123)

    def choose(seat, obs):
        assert obs["action_mask"].dtype == np.int8
        legal = legal_actions(obs)
        assert len(legal) > 0, f"empty mask for player_{seat} while the game is on"
        check(env, "before")
        return int(rng.choice(legal))

    for game in range(games):
        play_episode(env, choose, seed=game)
        assert not env.agents, "the game did not end"
        assert abs(env.outcome().sum()) < 1e-9 or env_id == "doudizhu_v0"
        check(env, "end")


@pytest.mark.parametrize("env_id,options", VARIANTS)
def test_random_play_invariants(env_id, options):
    """Masks non-empty for the mover, games end, win-scale results sum to 0 (not Dou Dizhu's 2-against-1),
    cards conserved before every step."""

    def check(env, phase):
        if phase == "before":
            assert np.array_equal(np.sort(env.card_locations()), np.sort(env.deck)), "cards not conserved"

    random_games(env_id, options, check)


@pytest.mark.parametrize("env_id,options", VARIANTS)
def test_invariants_after_every_step(env_id, options):
    """After every step, the final one included (the state before a step is the state after the one
    before): every card of the game is somewhere, and every agent's observation lies in its observation
    space (bounds and dtype) with a mask that is empty unless it moves."""

    def check(env, phase):
        assert np.array_equal(np.sort(env.card_locations()), np.sort(env.deck)), f"cards not conserved ({phase})"
        for agent in env.possible_agents:
            obs = env.observe(agent)
            space = env.observation_space(agent)
            x = obs["observation"]
            outside = [
                seg.name
                for seg in env.layout.segments
                if not (0 <= env.layout.view(x, seg.name)).all() or (env.layout.view(x, seg.name) > seg.high).any()
            ]
            assert space["observation"].contains(x), f"{agent}'s {outside} leave the observation space ({phase})"
            assert space["action_mask"].contains(obs["action_mask"])
            if agent != env.agent_selection or phase == "end":
                assert not obs["action_mask"].any(), f"{agent} has legal actions but does not move ({phase})"

    random_games(env_id, options, check)


def play_out(env, rng, seed):
    """Reset with ``seed`` and play random legal moves to the end; the actions taken."""
    actions = []

    def choose(seat, obs):
        actions.append(int(rng.choice(legal_actions(obs))))
        return actions[-1]

    play_episode(env, choose, seed=seed)
    return actions


@pytest.mark.parametrize("env_id", cardenvs.ENV_IDS)
def test_same_seed_same_deal_regardless_of_play(env_id):
    """Deals depend on the reset seed only, not on the agents' actions: after two episodes from seed 5 played
    differently, an unseeded reset deals the same cards; and the first deal is the same after any play."""
    env = env_module(env_id).raw_env()
    firsts, nexts, plays = [], [], []
    for play_seed in (1, 2):
        env.reset(seed=5)
        firsts.append([env.observe(a)["observation"].copy() for a in env.possible_agents])
        plays.append(play_out(env, np.random.default_rng(play_seed), seed=5))
        env.reset()
        nexts.append([env.observe(a)["observation"].copy() for a in env.possible_agents])
    if env_id != "war_v0":  # War has no choices: both plays are the same
        assert plays[0] != plays[1], "the two plays should differ for the test to mean anything"
    for x, y in zip(firsts[0], firsts[1], strict=True):
        np.testing.assert_array_equal(x, y)
    for x, y in zip(nexts[0], nexts[1], strict=True):
        np.testing.assert_array_equal(x, y)


def test_later_deals_of_a_match_do_not_depend_on_play():
    """Twenty deals round 2 from deal 1 of the seed: the same hands and bonus whatever round 1's play."""
    env = env_module("twenty_v0").raw_env()
    starts = []
    for play_seed in (1, 2, 3):
        rng = np.random.default_rng(play_seed)
        env.reset(seed=7)
        for _ in env.agent_iter():
            parts = [env.layout.decode(env.observe(a)["observation"]) for a in env.possible_agents]
            if parts[0]["round"][0] == 1:
                starts.append([(p["own_hand"].tolist(), p["bonus"].tolist()) for p in parts])
                break
            env.step(int(rng.choice(legal_actions(env.observe(env.agent_selection)))))
    assert len(starts) == 3 and starts[0] == starts[1] == starts[2]


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


def spec_row(doc: str, name: str) -> str:
    rows = [line for line in doc.splitlines() if line.startswith(f"| {name} |")]
    assert len(rows) == 1, f"the spec table has no single '{name}' row"
    return rows[0]


@pytest.mark.parametrize("env_id", cardenvs.ENV_IDS)
def test_docstring_spec_table_matches_the_spaces(env_id):
    """The hand-written spec rows (agents, actions, observation) agree with the default env's spaces."""
    module = env_module(env_id)
    doc = module.__doc__
    env = module.raw_env()
    agent = env.possible_agents[0]
    space = env.observation_space(agent)
    n = env.action_space(agent).n
    actions = spec_row(doc, "actions")
    assert re.findall(r"Discrete\((\d+)\)", actions) == [str(n)], actions
    observation = spec_row(doc, "observation")
    obs_dtype = re.search(r"`Box` of the segments below \(`(\w+)`\)", observation)
    assert obs_dtype and obs_dtype.group(1) == space["observation"].dtype.name, observation
    assert space["observation"].shape == (env.layout.size,)
    mask = re.search(r"`(\w+)` mask", observation)
    assert mask and mask.group(1) == space["action_mask"].dtype.name == "int8", observation
    length = re.search(r"mask of length (\d+)", observation)
    if length:
        assert int(length.group(1)) == n == space["action_mask"].shape[0], observation
    agents = spec_row(doc, "agents")
    if "players" in env.config:  # the count is an option: the row names the pattern
        assert "`player_0` ... `player_{players-1}`" in agents, agents
    else:
        assert re.findall(r"`(player_\d+)`", agents) == env.possible_agents, agents


@pytest.mark.parametrize("env_id", cardenvs.ENV_IDS)
def test_ansi_render(env_id):
    env = env_module(env_id).env(render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert isinstance(text, str) and text.strip()


def test_make_and_ids():
    # tests parametrized over ENV_IDS cover exactly these games: a game dropping out of the registry fails here
    # (the registry reads each games/<game>/ folder's SPEC, in folder order)
    assert cardenvs.ENV_IDS == ("doudizhu_v0", "guandan_v0", "twenty_v0", "two_way_street_v0", "twos_v0", "war_v0")
    env = cardenvs.make("war", max_turns=10)
    assert env.metadata["name"] == "war_v0"
    from cardenvs import war_v0

    assert war_v0.env().metadata["name"] == "war_v0"
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        cardenvs.make("chess")
    with pytest.raises(ValueError, match="max_turns"):
        cardenvs.make("war", max_turns=0)


# ---------------------------------------------------------------- reset options, decks, seeds, order
@pytest.mark.parametrize("env_id", cardenvs.ENV_IDS)
def test_unknown_reset_options_are_errors(env_id):
    env = env_module(env_id).raw_env()
    with pytest.raises(ValueError, match="unknown reset option 'dek'; this env reads 'deck'"):
        env.reset(options={"dek": codes_of(env)})
    with pytest.raises(ValueError, match="unknown reset option 'options'"):
        env.reset(options={"options": 2})
    env.reset(seed=3, options={"options": 1})  # exactly what PettingZoo's api_test passes: no options
    first = env.observe(env.agent_selection)["observation"].copy()
    env.reset(seed=3)
    np.testing.assert_array_equal(first, env.observe(env.agent_selection)["observation"])
    with pytest.raises(ValueError, match="reset options must be a dict such as"):
        env.reset(options="deck")


def test_api_test_probe_is_what_pettingzoo_passes():
    """If PettingZoo changes its signature probe, the special case in CardEnv.reset must follow."""
    import inspect

    from pettingzoo.test import api_test as module

    from cardenvs.core.env import API_TEST_RESET_OPTIONS

    source = inspect.getsource(module).replace("'", '"')
    assert f"env.reset(seed=0, options={API_TEST_RESET_OPTIONS!r})".replace("'", '"') in source


@pytest.mark.parametrize(
    "env_id,options,dealt",
    [
        ("twos_v0", {}, 1),
        ("war_v0", {}, 1),
        ("doudizhu_v0", {}, 1),
        ("twenty_v0", {}, 2),
        ("twenty_v0", {"rounds": 3}, 3),
        ("twenty_v0", {"rounds": 4, "swap_deals": True}, 2),
    ],
)
def test_more_stacked_decks_than_an_episode_deals(env_id, options, dealt):
    env = env_module(env_id).raw_env(**options)
    codes = codes_of(env)
    env.reset(options={"deck": [codes] * dealt})  # as many as it deals: fine
    with pytest.raises(ValueError, match=f"holds {dealt + 1} decks but an episode.* deals {dealt} deck"):
        env.reset(options={"deck": [codes] * (dealt + 1)})


def test_two_way_street_takes_decks_up_to_its_stacked_limit():
    env = env_module("two_way_street_v0").raw_env()
    assert env.decks_per_episode() is None  # a match deals until the target
    codes = codes_of(env)
    limit = env.params["stacked"].shape[1]
    env.reset(options={"deck": [codes] * limit})
    with pytest.raises(ValueError, match=f"holds {limit + 1} decks; .* at most {limit} can be stacked"):
        env.reset(options={"deck": [codes] * (limit + 1)})


@pytest.mark.parametrize("env_id", cardenvs.ENV_IDS)
def test_deck_forms(env_id):
    env = env_module(env_id).raw_env()
    codes = codes_of(env)
    env.reset(options={"deck": codes})
    want = env.observe(env.agent_selection)["observation"].copy()
    for form in (
        " ".join(codes),
        ",".join(codes),
        ", ".join(codes),
        [",".join(codes)],
        [codes],
        tuple(codes),
        np.array(codes),
    ):
        env.reset(options={"deck": form})
        np.testing.assert_array_equal(env.observe(env.agent_selection)["observation"], want)
    with pytest.raises(ValueError, match=r"options\['deck'\]\[0\] is 0 \(int\); it takes a list of card codes"):
        env.reset(options={"deck": [int(c) for c in env.deck]})
    with pytest.raises(ValueError, match=r"options\['deck'\]\[0\] is None \(NoneType\)"):
        env.reset(options={"deck": [None] * len(codes)})
    with pytest.raises(ValueError, match=r"options\['deck'\]\[1\] is 5 \(int\); card codes are strings"):
        env.reset(options={"deck": [[codes[0], 5]]})
    with pytest.raises(ValueError, match=r"options\['deck'\] is 7 \(int\)"):
        env.reset(options={"deck": 7})
    with pytest.raises(ValueError, match=r"options\['deck'\] is empty"):
        env.reset(options={"deck": []})
    with pytest.raises(ValueError, match="mixes card codes and whole decks"):
        env.reset(options={"deck": [codes[0], " ".join(codes)]})


@pytest.mark.parametrize("env_id", cardenvs.ENV_IDS)
def test_order_errors_name_reset(env_id):
    env = env_module(env_id).env()
    with pytest.raises(RuntimeError, match=r"call reset\(\) before last\(\)"):
        env.last()
    with pytest.raises(RuntimeError, match=r"call reset\(\) before agent_iter\(\)"):
        env.agent_iter()
    play_out(env, np.random.default_rng(0), seed=0)
    for call, what in ((lambda: env.step(0), "step"), (lambda: env.step(None), "step"), (env.last, "last")):
        with pytest.raises(
            RuntimeError, match=rf"the game is over.*call reset\(\) to start another game before {what}"
        ):
            call()
    assert env.scores().shape == (env.num_players,)  # still readable after the game
    env.reset(seed=0)  # and the env goes on
    env.last()


def test_numpy_integers_are_integers():
    cardenvs.make("two_way_street", jokers=np.int64(1), players=np.int32(3))
    cardenvs.make("twenty", swap_deals=np.bool_(True), rounds=np.int64(2))
    cardenvs.make("twos", bomb_order=np.str_("rarity"))
    with pytest.raises(ValueError, match="jokers=True is not allowed"):
        cardenvs.make("two_way_street", jokers=True)
    with pytest.raises(ValueError, match="swap_deals=1 is not allowed"):
        cardenvs.make("twenty", swap_deals=1)
    env = cardenvs.make("war")
    env.reset(seed=np.int64(3))
    a = env.observe("player_0")["observation"].copy()
    env.reset(seed=3)
    np.testing.assert_array_equal(a, env.observe("player_0")["observation"])
    assert deal_seed_of(np.uint32(3)) == deal_seed_of(3)
    for bad in (-1, True, 1.5, "3"):
        with pytest.raises(ValueError, match=r"war_v0: reset seed=.*expected None or a non-negative integer"):
            env.reset(seed=bad)


@pytest.mark.parametrize("env_id", cardenvs.ENV_IDS)
def test_the_fast_legal_moves_equal_the_mask(env_id):
    """``env.legal_actions()`` (the ids the numba core listed with the mask) and ``cardenvs.legal_actions(obs)``
    (a bool view of the mask) equal the int8 mask's nonzero entries in every position of seeded random games,
    illegal-move endings and raw (Python-hook) paths included."""
    rng = np.random.default_rng(3)
    env = cardenvs.make(env_id)
    positions = 0
    for game in range(12):
        env.reset(seed=game)
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                assert len(env.legal_actions()) == 0
                env.step(None)
                continue
            expected = obs["action_mask"].nonzero()[0]
            np.testing.assert_array_equal(env.legal_actions(), expected)
            np.testing.assert_array_equal(legal_actions(obs), expected)
            positions += 1
            if game == 11 and positions % 7 == 0:  # an illegal move ends the game in env()
                illegal = np.flatnonzero(obs["action_mask"] == 0)
                if len(illegal):
                    with pytest.warns(UserWarning, match="illegal action"):
                        env.step(int(illegal[0]))
                    assert len(env.legal_actions()) == 0
                    continue
            env.step(int(rng.choice(expected)))
    assert positions > 50


@pytest.mark.parametrize("env_id", cardenvs.ENV_IDS)
def test_the_compiled_kernels_called_without_dispatch_equal_numbas_dispatcher(env_id):
    """The AEC env calls its step and observe kernels through their compiled entry points (no numba type
    dispatch per call, ``kernels.compiled``): in every position of seeded random games the same move applied
    through numba's dispatcher to a copy of the state gives the same mask, rewards and next observation, and
    a state array given in place of the env's (a copy holding another game) is the one read next."""
    from cardenvs.core import kernels

    rng = np.random.default_rng(5)
    env = cardenvs.make(env_id)
    base = env.unwrapped
    positions = 0
    for game in range(4):
        env.reset(seed=game)
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            p = base.agent_name_mapping[agent]
            fresh = np.zeros_like(obs["observation"])
            base.CORE.observe(base.states, 0, base.params, p, fresh)
            np.testing.assert_array_equal(obs["observation"], fresh)
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            states, scores = base.states.copy(), base._last_scores.copy()
            rewards, mask = np.zeros(base.num_players), np.zeros(base.num_actions, dtype=np.int8)
            ids = np.empty(base.num_actions, dtype=np.int64)
            kernels.aec_step(states, base.params, action, base._points, scores, rewards, mask, ids)
            env.step(action)
            np.testing.assert_array_equal(states, base.states)
            np.testing.assert_array_equal(mask, base._mask)
            np.testing.assert_array_equal(rewards, base._step_rewards)
            positions += 1
    assert positions > 30
    other = cardenvs.make(env_id)
    other.reset(seed=9)
    env.reset(seed=1)
    base.states = other.unwrapped.states.copy()  # another array: the kernels are looked up for it
    base.state = base.states.view(np.recarray)[0]
    base._after_change()
    np.testing.assert_array_equal(
        env.observe(env.agent_selection)["observation"], other.observe(other.agent_selection)["observation"]
    )
    action = int(other.legal_actions()[0])
    env.step(action)
    other.step(action)
    np.testing.assert_array_equal(base.states, other.unwrapped.states)
