"""The arena's batched engine (cardenvs.arena.batched): the same records as the AEC engine, game for game, on every
registered game; which tables it plays; the vector env's per-game seeds, reset options and single games."""

import json
import warnings

import numpy as np
import pytest

import cardenvs
from cardenvs import vector
from cardenvs.agent import BatchGames, acts_on_batches, load_agent, shipped_models
from cardenvs.arena import plan_tournament, run_tournament
from cardenvs.cli import main
from cardenvs.registry import make


def both_engines(env_id, agents, games, **kwargs):
    """Results.to_dict() of the AEC and the vector engine (the version string aside)."""
    out = []
    for engine in ("aec", "vector"):
        data = run_tournament(env_id, agents, games, seed=3, engine=engine, **kwargs).to_dict()
        data.pop("version")
        out.append(json.loads(json.dumps(data)))  # NaN-safe comparison of plain values
    return out


def assert_same(env_id, agents, games, **kwargs):
    aec, batched = both_engines(env_id, agents, games, **kwargs)
    assert len(aec["records"]) > 0
    for a, b in zip(aec["records"], batched["records"], strict=True):
        assert a == b
    assert json.dumps(aec, sort_keys=True) == json.dumps(batched, sort_keys=True)


TABLES = [
    pytest.param("twos_v0", ["random", "twos.heuristic", "random"], {}, id="twos"),
    pytest.param("twenty_v0", ["random", "twenty.greedy"], {}, id="twenty"),  # greedy draws on ties
    pytest.param("war_v0", ["war.flip", "random"], {}, id="war"),
    pytest.param(
        "two_way_street_v0",
        ["random", "two_way_street.heuristic", "random", "two_way_street.heuristic"],
        {},
        id="two_way_street",
    ),
    pytest.param("doudizhu_v0", ["random", "doudizhu.rule", "random"], {}, id="doudizhu-landlord-fixed"),
    pytest.param("doudizhu_v0", ["random", "doudizhu.rule", "random"], {"role_phase": True}, id="doudizhu-bidding"),
    pytest.param(
        "doudizhu_v0",
        ["doudizhu.rule", "random", "doudizhu.rule"],
        {"options": {"variant": "no_bidding_win"}},
        id="doudizhu-no-bidding-win",
    ),
    # tables of numba policies alone: every move inside the fused kernel (VectorEnv.play_policies), bar draws
    pytest.param("twos_v0", ["twos.heuristic"] * 3, {}, id="twos-policies"),
    pytest.param("twenty_v0", ["twenty.greedy"] * 2, {}, id="twenty-policies"),  # its ties go to the generator
    pytest.param("war_v0", ["war.flip"] * 2, {"options": {"max_turns": 40}}, id="war-policies-truncated"),
    pytest.param("two_way_street_v0", ["two_way_street.heuristic"] * 4, {}, id="two_way_street-policies"),
    pytest.param("doudizhu_v0", ["doudizhu.rule"] * 3, {"role_phase": True}, id="doudizhu-policies-bidding"),
]


@pytest.mark.parametrize("env_id,agents,kwargs", TABLES)
def test_batched_duplicate_deals_equal_the_aec_engine(env_id, agents, kwargs):
    assert_same(env_id, agents, 3, **kwargs)


@pytest.mark.parametrize(
    "env_id,agents",
    [
        ("twos_v0", ["random", "twos.heuristic", "random", "twos.heuristic"]),
        ("twenty_v0", ["twenty.greedy", "random", "random"]),
        ("doudizhu_v0", ["doudizhu.rule", "random", "random", "doudizhu.rule"]),
    ],
)
def test_batched_round_robin_and_rotation_equal_the_aec_engine(env_id, agents):
    assert_same(env_id, agents, 2, round_robin=True)
    assert_same(env_id, agents[: make(env_id).unwrapped.num_players], 5, duplicate=False)


DMC_TABLES = [
    ("doudizhu_v0", ["doudizhu.dmc", "doudizhu.rule", "random"]),
    ("twos_v0", ["twos.dmc", "random", "twos.heuristic"]),
]


@pytest.mark.parametrize("env_id,agents", DMC_TABLES)
def test_a_dmc_model_plays_the_same_games_batched(env_id, agents):
    pytest.importorskip("torch")
    if agents[0] not in shipped_models():
        pytest.skip(f"{agents[0]} is not shipped with this install")
    assert_same(env_id, agents, 2)


class FirstLegal:
    """A user's batch agent: the first legal action, or with probability 0.05 (its rng) an illegal one."""

    name = "first_legal"

    def __init__(self, env):
        self.env = env

    def act(self, observation, rng):
        mask = np.asarray(observation["action_mask"]).astype(bool)
        if rng.random() < 0.05 and not mask.all():
            return int(np.flatnonzero(~mask)[0])
        return int(np.flatnonzero(mask)[0])

    def act_batch(self, observations, rngs):
        return np.array([self.act({"action_mask": m}, rngs[i]) for i, m in enumerate(observations["action_mask"])])


class LowestLegal(FirstLegal):
    """The same, reading the vector env's legal id lists through ``games``."""

    def act_batch(self, observations, rngs, games: BatchGames):
        ids, counts = games.legal_ids()
        out = ids[:, 0].copy()
        for i in range(len(out)):
            if rngs[i].random() < 0.05 and counts[i] < self.env.num_actions:
                out[i] = np.flatnonzero(~observations["action_mask"][i])[0]
        return out


def test_a_user_batch_agent_and_illegal_moves_equal_the_aec_engine():
    """A ``module:Class`` agent with ``act_batch``; its illegal moves end games as in the AEC env (-1 for the
    offender, a warning)."""
    agents = [f"{__name__}:FirstLegal", "random", f"{__name__}:LowestLegal"]
    assert all(acts_on_batches(load_agent(name, make("twos").unwrapped)) for name in agents)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        aec, batched = both_engines("twos_v0", agents, 6)
    assert aec == batched
    assert any(r["illegal"] for r in aec["records"]), "no illegal move happened: the test tests nothing"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run_tournament("twos_v0", agents, 6, seed=3, engine="vector")
    assert any("illegal action" in str(w.message) for w in caught)


class Counted(FirstLegal):
    built = 0

    def __init__(self, env):
        super().__init__(env)
        Counted.built += 1


def test_batch_agents_are_built_once_per_tournament():
    """Every job of a tournament shares one agent (a DMC model loads once); the next tournament builds it
    anew (a model file rewritten in between, as training does with its checkpoint, is read again)."""
    agents = [f"{__name__}:Counted", "random", "random"]
    for _ in range(2):
        before = Counted.built
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run_tournament("twos", agents, 8, seed=1, engine="vector")  # 4 jobs of 2 deals
        assert Counted.built == before + 2  # one to check the name (plan_tournament), one to play


def test_the_engine_is_chosen_per_table():
    def batched(agents, **kwargs):
        return plan_tournament("twenty", agents, 2, **kwargs).batched

    assert batched(["random", "twenty.greedy"]) == [True]
    assert batched(["random", "twenty.greedy"], engine="aec") == [False]
    assert batched(["random", "twenty.solver"]) == [False]  # a Python agent without act_batch
    assert batched(["random", "twenty.pimc(playouts=10)"]) == [False]  # a search agent
    assert batched(["random", "twenty.greedy", "twenty.solver"], round_robin=True) == [True, False, False]


def test_replays_are_written_by_the_aec_engine(tmp_path):
    assert plan_tournament("war", ["random", "random"], 2, replays=str(tmp_path / "r")).batched == [False]
    with pytest.raises(ValueError, match="engine 'vector': replays are written by the aec engine"):
        plan_tournament("war", ["random", "random"], 2, replays=str(tmp_path / "r"), engine="vector")


def test_forcing_the_vector_engine_names_the_agent_that_cannot_batch(capsys):
    with pytest.raises(ValueError, match="engine 'vector': agent twenty.solver cannot act on a batch"):
        plan_tournament("twenty", ["random", "twenty.solver"], 2, engine="vector")
    with pytest.raises(ValueError, match="engine='fast': expected one of auto, vector, aec"):
        plan_tournament("twenty", ["random", "random"], 2, engine="fast")
    assert main(["arena", "twenty", "--agents", "twenty.solver,random", "--engine", "vector", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "twenty.solver cannot act on a batch" in err
    assert main(["arena", "war", "--agents", "random,war.flip", "--games", "2", "--engine", "vector"]) == 0


# ---------------------------------------------------------------- the vector env's side
@pytest.mark.parametrize("env_id", cardenvs.ENV_IDS)
def test_vector_games_from_given_seeds_play_once_as_the_aec_env(env_id):
    """``reset(options={"seeds": ...})`` deals game i as the AEC env reset with that seed; with
    ``autoreset=False`` a game that ends stays ended (its scores, outcome and state kept) and is not stepped."""
    seeds = [5, 9, 5, 12]
    v = vector.VectorEnv(env_id, len(seeds), autoreset=False)
    obs, info = v.reset(options={"seeds": seeds})
    envs = [make(env_id) for _ in seeds]
    for e, s in zip(envs, seeds, strict=True):
        e.reset(seed=s)
    rng = np.random.default_rng(0)
    done = np.zeros(len(seeds), dtype=bool)
    for _ in range(3000):
        for i, e in enumerate(envs):
            if not done[i]:
                o = e.observe(e.agent_selection)
                assert np.array_equal(o["observation"], obs["observation"][i])
                assert np.array_equal(o["action_mask"].astype(bool), obs["action_mask"][i])
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in obs["action_mask"]])
        for i, e in enumerate(envs):
            if not done[i]:
                e.step(int(actions[i]))
        obs, rewards, terminated, truncated, info = v.step(actions)
        ended = terminated | truncated
        assert not obs["action_mask"][ended].any() and (rewards[done] == 0).all()
        done = ended
        if done.all():
            break
    assert done.all()
    for i, e in enumerate(envs):
        assert np.array_equal(info["final_scores"][i], e.unwrapped.scores())
        assert np.array_equal(v.outcome()[i], e.unwrapped.outcome())
        assert np.array_equal(v.game_env(i).states, e.unwrapped.states)
    assert info["deal_number"].tolist() == [0] * len(seeds)  # nothing was dealt again


def test_vector_reset_options_apply_to_every_game():
    v = vector.VectorEnv("doudizhu", 3, autoreset=False)
    obs, info = v.reset(options={"seeds": [1, 2, 3], "landlord": 2, "bid": 3})
    e = make("doudizhu")
    e.reset(seed=2, options={"landlord": 2, "bid": 3})
    assert info["to_move"].tolist() == [2, 2, 2]
    assert np.array_equal(obs["observation"][1], e.observe("player_2")["observation"])
    v.reset(options={"seeds": [1, 2, 3]})  # the options hold until the next reset
    e.reset(seed=2)
    assert np.array_equal(v.game_env(1).states, e.unwrapped.states)
    with pytest.raises(ValueError, match="vector reset option 'deck' is not accepted"):
        v.reset(options={"deck": "AS"})
    with pytest.raises(ValueError, match="a seed or options\\['seeds'\\], not both"):
        v.reset(seed=1, options={"seeds": [1, 2, 3]})
    with pytest.raises(ValueError, match="must hold 3 integers >= 0"):
        v.reset(options={"seeds": [1, 2]})
    with pytest.raises(ValueError, match="landlord"):
        v.reset(options={"seeds": [1, 2, 3], "landlord": 7})


def test_policy_actions_take_given_streams():
    v = vector.VectorEnv("twenty", 4)
    v.reset(seed=0)
    streams = np.arange(1, 5, dtype=np.uint64)
    before = streams.copy()
    first = v.policy_actions("random", [0, 1, 2, 3], streams)
    assert (streams != before).all()  # random draws once per game, from its given stream
    again = v.policy_actions("random", [0, 1, 2, 3], before.copy())
    assert np.array_equal(first, again)
    with pytest.raises(ValueError, match="streams must be a uint64 array of shape"):
        v.policy_actions("random", [0, 1], np.zeros(3, dtype=np.uint64))


def test_tables_of_policies_play_inside_the_kernel(monkeypatch):
    """A table of heuristics that never draw plays every move in VectorEnv.play_policies: act_batch, the
    per-step Python path, is never called; with a policy that draws on ties (Twenty's greedy), only those
    decisions come back to it, fewer than the moves."""
    from cardenvs.agent import PolicyAgent

    calls = []
    original = PolicyAgent.act_batch

    def counted(self, observations, rngs, games=None):
        calls.append(len(games.indices))
        return original(self, observations, rngs, games=games)

    monkeypatch.setattr(PolicyAgent, "act_batch", counted)
    results = run_tournament("twos_v0", ["twos.heuristic"] * 3, 4, seed=5, engine="vector")
    assert calls == [] and sum(r.steps for r in results.records) > 100
    results = run_tournament("twenty_v0", ["twenty.greedy"] * 2, 4, seed=5, engine="vector")
    assert 0 < sum(calls) < sum(r.steps for r in results.records)
