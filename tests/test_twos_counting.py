"""Twos search without card counting (``twos.pimc(counting=false)``): its determinizer deals every card the
seat does not hold, played ones included, keeping every hand's size; the default one never deals a played
card. The agent parameter parses, and bad values or games without the option are clear errors."""

import numpy as np
import pytest

from cardenvs import search
from cardenvs.agent import load_agent
from cardenvs.core import kernels
from cardenvs.core.rng import stream
from cardenvs.games.twos import determinize as twos_det
from cardenvs.games.twos import rules as twos_rules
from cardenvs.games.twos.env import raw_env


def position(seed: int, steps: int, **options):
    """A Twos game after ``steps`` seeded random moves (fewer if it ends first)."""
    env = raw_env(**options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if any(env.terminations.values()):
            break
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    return env


def sample(env, p: int, seed: int, counting: bool):
    rng = stream(np.uint64(seed), 0)
    if not counting:
        rng = np.array([rng[0], kernels.FORGET_SEEN], dtype=np.uint64)
    out = np.zeros(1, dtype=env.states.dtype)
    twos_det.determinize(env.states, 0, env.params, p, rng, out, 0)
    return out[0]


@pytest.mark.parametrize("options", [{}, {"players": 4}, {"players": 2, "hand_size": 26}])
def test_only_the_non_counting_determinizer_deals_played_cards(options):
    players = options.get("players", 3)
    env = position(seed=5, steps=12, **options)
    s = env.states[0]
    assert s["winner"] < 0
    played = s["played"][:players].any(axis=0)
    assert played.sum() >= 6, "the position should have cards played"
    p = int(s["to_move"])
    sizes = s["hands"][:players].sum(axis=1)
    dealt_played = {True: 0, False: 0}
    for seed in range(60):
        for counting in (True, False):
            d = sample(env, p, seed, counting)
            hands = d["hands"][:players]
            assert np.array_equal(hands[p], s["hands"][p])  # own hand kept
            assert np.array_equal(hands.sum(axis=1), sizes)  # every hand's size kept
            assert hands.sum(axis=0).max() <= 1  # no card in two hands
            others = np.delete(hands, p, axis=0).any(axis=0)
            dealt_played[counting] += int((others & played).sum())
            if counting:  # the played cards stay where they are, none in a hand
                assert np.array_equal(d["played"], s["played"])
    assert dealt_played[True] == 0
    assert dealt_played[False] > 0


def test_the_non_counting_worlds_play_to_the_end():
    """Worlds holding played cards run in the rules engine: the heuristic plays each to a winner."""
    env = position(seed=2, steps=15)
    s = env.states[0]
    p = int(s["to_move"])
    for seed in range(20):
        world = np.array([sample(env, p, seed, counting=False)])
        result = np.zeros(3)
        search.rollout_value(world, env.params, p, 0, stream(np.uint64(seed), 1), result, -1)  # heuristic, to the end
        assert sorted(result.tolist()) == [-0.5, -0.5, 1.0]
        assert world[0]["winner"] >= 0


def test_counting_false_searches_and_replays_under_a_seed():
    env = position(seed=3, steps=9)
    moves = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
    agents = [load_agent("twos.pimc(playouts=60,counting=false)", env) for _ in range(2)]
    actions = [a.act(env.observe(env.agent_selection), np.random.default_rng(7)) for a in agents]
    assert actions[0] == actions[1] and actions[0] in moves
    assert agents[0].last.actions.tolist() == moves.tolist()


def test_counting_parses_and_defaults_to_true():
    env = raw_env()
    env.reset(seed=0)
    assert load_agent("twos.pimc", env).parameters["counting"] is True
    assert load_agent("twos.pimc(counting=false)", env).parameters["counting"] is False
    assert load_agent("twos.pimc(counting=True)", env).parameters["counting"] is True
    assert search.SearchAgent(env, "pimc", counting=False).parameters["counting"] is False


@pytest.mark.parametrize(
    "name, message",
    [
        ("twos.pimc(counting=maybe)", "twos.pimc: counting='maybe'; expected true or false"),
        ("twos.pimc(counting=0)", "twos.pimc: counting='0'; expected true or false"),
        ("twos.ismcts(counting=false)", "unknown parameter 'counting'"),
        ("twos.pimc(leaf=dmc,counting=false)", "counting=false works with heuristic rollouts, not a learned model"),
    ],
)
def test_bad_counting_values_are_clear_errors(name, message):
    env = raw_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_agent(name, env)


def test_games_whose_determinizer_cannot_forget_refuse_counting_false():
    from cardenvs.games.doudizhu.env import raw_env as doudizhu_env

    env = doudizhu_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="doudizhu's determinizer cannot ignore the cards seen"):
        load_agent("doudizhu.pimc(counting=false)", env)
    assert load_agent("doudizhu.pimc(counting=true)", env).parameters["counting"] is True


def test_default_determinizer_is_unchanged_by_the_option_word():
    """A one-word stream (the default search) and a second word without the bit give the same world."""
    env = position(seed=4, steps=10)
    p = int(env.states[0]["to_move"])
    a = sample(env, p, 9, counting=True)
    rng = np.array([stream(np.uint64(9), 0)[0], 0], dtype=np.uint64)
    out = np.zeros(1, dtype=env.states.dtype)
    twos_det.determinize(env.states, 0, env.params, p, rng, out, 0)
    assert out[0].tobytes() == a.tobytes()
    assert twos_rules.card_locations(a).size == 52
