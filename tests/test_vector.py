"""Vector envs: twins of the AEC envs (same seeds and actions -> same observations, masks, rewards, ends),
random-play invariants with threads, the learner view, bad inputs."""

import numpy as np
import pytest

import cardenvs
from cardenvs import vector
from cardenvs.core import kernels
from cardenvs.registry import env_module

from conftest import all_variants


def core_variants():
    return [p for p in all_variants() if env_module(p.values[0]).raw_env.CORE is not None]


CORE_VARIANTS = core_variants()
#: the variants whose threads test also runs 2 threads: each game's first. The parallel drivers are compiled
#: in every process that uses them (numba's cache of parallel functions can hand a process another one's code:
#: core/kernels/parallel.py), so one variant a game checks them; every variant checks the invariants on 1
FIRST_VARIANTS = {p.values[0]: p.values[1] for p in reversed(CORE_VARIANTS)}


def aec_rewards(env):
    return np.array([env.rewards[a] for a in env.possible_agents])


@pytest.mark.parametrize("env_id,options", CORE_VARIANTS)
def test_vector_equals_aec_over_whole_games(env_id, options):
    """Every game of the batch, over several deals each (autoreset included), equals an AEC env replaying it:
    the first deal from seed s + i, later ones from info["deal_seed"]."""
    B, seed = 6, 11
    v = vector.make(env_id, B, **options)
    obs, info = v.reset(seed=seed)
    envs = [env_module(env_id).raw_env(**options) for _ in range(B)]
    for i, e in enumerate(envs):
        e.reset(seed=seed + i)
    rng = np.random.default_rng(0)
    episodes_done = np.zeros(B, dtype=int)
    for step in range(3000):
        for i, e in enumerate(envs):
            agent = e.agent_selection
            o = e.observe(agent)
            assert info["to_move"][i] == e.agent_name_mapping[agent], (step, i)
            np.testing.assert_array_equal(o["observation"], obs["observation"][i], err_msg=f"step {step} game {i}")
            np.testing.assert_array_equal(o["action_mask"].astype(bool), obs["action_mask"][i])
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        obs, rewards, term, trunc, info = v.step(actions)
        for i, e in enumerate(envs):
            e.step(int(actions[i]))
            np.testing.assert_allclose(aec_rewards(e), rewards[i], err_msg=f"step {step} game {i}")
            assert bool(term[i]) == any(e.terminations.values()) and bool(trunc[i]) == any(e.truncations.values())
            if term[i] or trunc[i]:
                np.testing.assert_allclose([e.infos[a]["score"] for a in e.possible_agents], info["final_scores"][i])
                assert info["_final_scores"][i]
                episodes_done[i] += 1
                e.reset(options={"deal_seed": int(info["deal_seed"][i])})
        if episodes_done.min() >= 2:
            break
    assert episodes_done.min() >= 2, "games did not end"


@pytest.mark.parametrize("env_id,options", CORE_VARIANTS)
def test_threads_give_the_same_results_and_invariants_hold(env_id, options):
    """Random play of 192 games with 2 threads equals 1 thread, step by step (each game's first variant,
    :data:`FIRST_VARIANTS`); over the run (thousands of deals for the short games) masks are non-empty, every
    card is conserved (checked in every game every 40 steps and in every game that just ended), win-scale
    results are zero-sum where the rules say."""
    B, STEPS = 192, 300
    runs = []
    counts_of_threads = (1, 2) if FIRST_VARIANTS.get(env_id, options) == options else (1,)
    for threads in counts_of_threads:
        v = vector.make(env_id, B, threads=threads, **options)
        obs, info = v.reset(seed=3)
        proto = env_module(env_id).raw_env(**options)
        deck = np.sort(proto.deck)
        rng = np.random.default_rng(1)
        trace = []
        ended = 0
        for step in range(STEPS):
            assert obs["action_mask"].any(axis=1).all(), "empty mask while a game is on"
            if threads == counts_of_threads[-1] and step % 40 == 0:
                for b in range(B):
                    np.testing.assert_array_equal(np.sort(proto.CORE.card_locations(v._b.state[b])), deck)
            ids, counts = v.legal_ids()
            assert (counts == obs["action_mask"].sum(axis=1)).all()
            actions = ids[np.arange(B), (rng.random(B) * counts).astype(int)]
            obs, rewards, term, trunc, info = v.step(actions)
            done = term | trunc
            ended += done.sum()
            if threads == counts_of_threads[-1]:  # the next deal of an ended game is whole too
                for b in np.flatnonzero(done):
                    np.testing.assert_array_equal(np.sort(proto.CORE.card_locations(v._b.state[b])), deck)
            if proto.config["reward"] == "win" and env_id != "doudizhu_v0":
                assert np.allclose(rewards[term].sum(axis=1), 0)
            if env_id == "doudizhu_v0" and proto.config["reward"] == "points":
                assert np.allclose(rewards.sum(axis=1), 0)
            trace.append((obs["observation"].copy(), rewards.copy(), term.copy()))
        runs.append(trace)
        assert ended > 0
    if len(runs) == 2:  # 2 threads against 1
        for (o1, r1, t1), (o2, r2, t2) in zip(*runs, strict=True):
            np.testing.assert_array_equal(o1, o2)
            np.testing.assert_array_equal(r1, r2)
            np.testing.assert_array_equal(t1, t2)


def test_bad_inputs_name_the_problem_and_leave_the_batch_usable():
    with pytest.raises(ValueError, match="num_envs"):
        vector.make("doudizhu", 0)
    v = vector.make("doudizhu", 4)
    with pytest.raises(RuntimeError, match="reset"):
        v.step(np.zeros(4, dtype=np.int64))
    obs, _ = v.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        v.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="integer"):
        v.step(np.zeros(4, dtype=np.float32))
    legal = [int(np.flatnonzero(m)[0]) for m in obs["action_mask"]]
    bad = list(legal)
    bad[2] = 0  # a single 3 is never legal while bidding
    before = v._b.state.copy()
    with pytest.raises(ValueError, match=r"illegal action 0 in game 2; legal: 28238 \(no bid\), 28239 \(bid 1\)"):
        v.step(np.array(bad))
    assert (v._b.state == before).all(), "a game was stepped"
    v.step(np.array(legal))  # still usable
    with pytest.raises(ValueError, match="learner"):
        vector.make("doudizhu", 2, learner=5)
    with pytest.raises(ValueError, match="threads=4096: numba has .* threads on this machine"):
        vector.make("doudizhu", 2, threads=4096)  # the search agents' rule too (test_search)
    with pytest.raises(ValueError, match="opponent 'twos.heuristic' for doudizhu_v0: .* plays twos, not doudizhu"):
        vector.make("doudizhu", 2, learner=0, opponents=["twos.heuristic"])
    with pytest.raises(ValueError, match="unknown agent 'nobody'.*or pass a callable"):
        vector.make("doudizhu", 2, learner=0, opponents=["nobody"])


def test_learner_view_receives_its_terminal_reward_from_an_opponent_move():
    """Learner at seat 0 against two numba rule agents (points reward): rewards over episodes equal the
    final scores of seat 0, losses included (the last move is often an opponent's)."""
    B = 16
    v = vector.make("doudizhu", B, learner=0, opponents=["doudizhu.rule"], bidding=False)
    obs, info = v.reset(seed=7)
    assert obs.shape == (B, v.single_observation_space.shape[0])
    total = np.zeros(B)
    finals = np.zeros(B)
    rng = np.random.default_rng(0)
    ended = 0
    losses = 0
    for _ in range(2000):
        masks = v.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, term, trunc, info = v.step(actions)
        total += rewards
        for b in np.flatnonzero(term):
            finals[b] += info["final_scores"][b, info["learner_seat"][b]]
            losses += info["final_scores"][b, 0] < 0
            ended += 1
        if ended > 40:
            break
    np.testing.assert_allclose(total, finals)
    assert losses > 0


def test_learner_view_with_a_callable_opponent_and_rotation():
    calls = []

    def first_legal(batch):
        calls.append(len(batch["action_mask"]))
        return np.array([int(np.flatnonzero(m)[0]) for m in batch["action_mask"]])

    v = vector.make("doudizhu", 8, learner="rotate", opponents=[first_legal, "random"])
    obs, info = v.reset(seed=1)
    seats = set(info["learner_seat"].tolist())
    assert seats == {0, 1, 2}
    for _ in range(200):
        masks = v.action_masks()
        actions = np.array([int(np.flatnonzero(m)[-1]) for m in masks])
        obs, rewards, term, trunc, info = v.step(actions)
        # the observation returned is the learner's own: its seat is to move
        assert (v._b.seats == info["learner_seat"]).all()
    assert calls and max(calls) <= 8


def test_learner_view_plays_a_python_agent_by_name_one_agent_per_game():
    """``opponents=["twenty.hand_solver"]`` (a Python agent, no numba policy) plays one agent per game, each on its
    own game's observation; a seeded batch replays exactly, and each game's rewards to the learner end as its
    result on the win scale (+1, 0 or -1). (It used twenty.solver, whose search made it 24 s; a Python agent
    is what is tested, and twenty.hand_solver is one.)"""
    from cardenvs.vector import AgentOpponent

    def run(seed, steps=None):
        v = vector.make("twenty", 4, learner=0, opponents=["twenty.hand_solver"])
        obs, info = v.reset(seed=seed)
        (opponent,) = v.callables
        assert isinstance(opponent, AgentOpponent)
        seen, total, ended = [], np.zeros(4), 0
        while ended < 4 and (steps is None or len(seen) < steps):
            actions = np.array([int(np.flatnonzero(m)[0]) for m in v.action_masks()])
            obs, rewards, terminated, truncated, info = v.step(actions)
            seen.append(obs.copy())
            total += rewards
            ended += int((terminated | truncated).sum())
        assert sorted(opponent.players) == [0, 1, 2, 3] and opponent.decisions.min() > 0
        if steps is None:
            assert set(total) <= {-1.0, 0.0, 1.0}, total
        return np.array(seen), opponent

    first, opponent = run(5)
    again, _ = run(5)
    np.testing.assert_array_equal(first, again)
    for env, agent in opponent.players.values():  # each game's own env and agent
        assert agent.name == "twenty.hand_solver" and agent.env is env
    other, _ = run(6, steps=20)  # another seed: other episodes (their first 20 steps suffice to tell)
    assert not np.array_equal(first[:20], other)


def test_numba_dealing_matches_aec_first_deal():
    v = vector.make("doudizhu", 3)
    obs, _ = v.reset(seed=40)
    for i in range(3):
        e = cardenvs.make("doudizhu")
        e.reset(seed=40 + i)
        np.testing.assert_array_equal(e.states[0]["hands"], v._b.state[i]["hands"])
    assert v.state_bytes_per_game < 2000
    assert kernels.RUNNING == 0


@pytest.mark.slow
def test_sb3_adapter_trains_maskable_ppo_in_a_subprocess(tmp_path):
    """MaskablePPO learns for a few hundred steps on the SB3 adapter of the learner view (subprocess)."""
    pytest.importorskip("sb3_contrib")
    import subprocess
    import sys

    code = """
import numpy as np
from sb3_contrib import MaskablePPO
from cardenvs import vector
from cardenvs.sb3 import SB3VecEnv
venv = SB3VecEnv(vector.make("doudizhu", 4, learner="rotate", opponents=["doudizhu.rule"], bidding=False))
venv.seed(3)
model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, seed=0,
                    policy_kwargs={"net_arch": [32]})
model.learn(total_timesteps=300)
assert model.num_timesteps >= 256, model.num_timesteps
obs = venv.reset()
action, _ = model.predict(obs, action_masks=venv.action_masks())
assert venv.action_masks()[np.arange(4), action].all()
print("trained", model.num_timesteps)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "trained" in out.stdout


def test_policy_actions_are_the_heuristics_choices_and_change_nothing():
    """``policy_actions`` gives, for each game, the move the game's heuristic agent makes in the AEC env on
    the same deal (game i after reset(seed=s) is the AEC deal of seed s + i), over several steps, and leaves
    the batch untouched."""
    from cardenvs import make
    from cardenvs.agent import load_agent

    venv = vector.make("twos_v0", 6)
    obs, info = venv.reset(seed=40)
    aecs = []
    for i in range(6):
        env = make("twos_v0")
        env.reset(seed=40 + i)
        aecs.append((env, load_agent("twos.heuristic", env)))
    rng = np.random.default_rng(0)
    for _ in range(12):
        before = obs["observation"].copy()
        actions = venv.policy_actions("twos.heuristic")
        np.testing.assert_array_equal(obs["observation"], before)  # nothing was stepped
        assert np.array_equal(venv.policy_actions("heuristic", np.arange(6)), actions)
        for i, (env, agent) in enumerate(aecs):
            assert actions[i] == agent.act(env.observe(env.agent_selection), rng)
            env.step(int(actions[i]))
        obs, _, terminated, _, info = venv.step(actions)
        if terminated.any():
            break
    assert venv.policy_actions("random", [0, 5]).shape == (2,)
    with pytest.raises(ValueError, match="not a numba policy of twos_v0; known: random, twos.heuristic"):
        venv.policy_actions("doudizhu.rule")
    with pytest.raises(ValueError, match="indices in 0..5"):
        venv.policy_actions("random", [6])
    with pytest.raises(ValueError, match="call reset"):
        vector.make("twos_v0", 2).policy_actions("random")


def test_agent_actions_takes_numba_policies_and_any_other_agent_by_name():
    """``agent_actions``: a numba policy's moves are ``policy_actions``'; another agent (``twenty.solver``, in
    Python) gives for each game the move it chooses on that game's own AEC position; nothing is stepped; an
    unknown name is an error that names it."""
    from cardenvs.agent import load_agent

    v = vector.make("doudizhu", 6, bidding=False)
    v.reset(seed=3)
    for _ in range(5):
        ids, counts = v.legal_ids()
        v.step(ids[np.arange(6), counts - 1])
    before = v._b.state.copy()
    np.testing.assert_array_equal(v.agent_actions("doudizhu.rule", [1, 4]), v.policy_actions("doudizhu.rule", [1, 4]))
    assert (v._b.state == before).all()
    with pytest.raises(ValueError, match="no-such-agent"):
        v.agent_actions("no-such-agent")

    t = vector.make("twenty", 4)
    t.reset(seed=8)
    got = t.agent_actions("twenty.solver", [0, 2, 3])
    for g, action in zip([0, 2, 3], got, strict=True):
        env = t.game_env(g)
        seat = env.agent_selection
        expected = load_agent("twenty.solver", env).act(env.observe(seat), np.random.default_rng(0))
        assert action == expected and env.observe(seat)["action_mask"][action]


def test_agent_actions_replay_after_a_seeded_reset_with_the_new_reset_options():
    """A Python agent of ``agent_actions`` draws from the reset seed, counted from each ``reset``: the same
    seed replays the same moves, and the games' envs take the reset options written into the params."""
    v = vector.make("doudizhu", 3, bidding=False)

    def play(seed, options=None):
        v.reset(seed=seed) if options is None else v.reset(options={"seeds": [seed] * 3, **options})
        moves = []
        for _ in range(3):
            actions = v.agent_actions("doudizhu.pimc(playouts=60)")
            moves.append(actions.copy())
            v.step(actions)
        return np.array(moves)

    first = play(5)
    (agent,) = v._agents.values()
    assert agent.decisions.tolist() == [3, 3, 3]
    np.testing.assert_array_equal(play(5), first)
    play(5, {"landlord": 2})
    for env, _ in agent.players.values():
        np.testing.assert_array_equal(env.params, v._b.params)
    assert v._b.state["landlord"].tolist() == [2, 2, 2]
