"""Search over a model that reads the game's state (issue 63): a Guandan DMC model with ``features: danzero``
(DanZero's 513 computed from the rules' state) scores a search's positions through
``action_values(obs, ids, counts, state, games)``, with the features of each row's seat to move.

* its Q of a position equals the Q :meth:`DMCAgent.act` plays by (to 1e-6, its greedy move act's), for the
  positions of a seeded random game asked in one shuffled batch, and through the search's own
  :func:`cardenvs.search.drivers.model_action_values`; feeding another seat's features changes them (the
  mutation check of that comparison);
* the search's determinized deals hold the rules' state dtype, and the seat to move reads the same 513 there as
  in the true state (it reads only what it may know); every row a search asks is its game's seat to move;
* ``guandan.pimc`` with ``leaf``, ``rollout`` and ``prior`` over such a model plays legal moves to the end of a
  hand and replays it exactly;
* an observation-only model is asked as before (no state), with the same search result.

The models are tiny and untrained (seeded initial weights, saved as the trainer saves them): what is tested is
the plumbing, which any weights show."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from test_learned_search import _play  # noqa: E402  # one game of named agents, its moves

import cardenvs  # noqa: E402
from cardenvs import search  # noqa: E402
from cardenvs.agent import load_agent  # noqa: E402
from cardenvs.core import kernels  # noqa: E402
from cardenvs.core.play import play_episode  # noqa: E402
from cardenvs.games.guandan import danzero_features, rules  # noqa: E402
from cardenvs.search.drivers import model_action_values  # noqa: E402
from cardenvs.training import dmc, dmc_args, dmc_model  # noqa: E402


def _tiny_model(path, features: str, seed: int = 0):
    """A tiny Guandan DMC checkpoint (seeded initial weights, in a forked torch generator) at ``path``."""
    args = dmc_args.Args(
        game="guandan_v0", features=features, hidden=[16], move_hidden=8, head_hidden=8, history_channels=0
    )
    layout = cardenvs.make("guandan").unwrapped.layout
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        nets = dmc_model.build_nets(args.game, layout, args)
    dmc.save_checkpoint(path, nets, [torch.optim.Adam(nets.parameters())], args, 0, 0.0)
    return path


@pytest.fixture(scope="module")
def danzero_path(tmp_path_factory):
    return _tiny_model(tmp_path_factory.mktemp("danzero") / "model.pt", "danzero", seed=1)


@pytest.fixture(scope="module")
def scaled_path(tmp_path_factory):
    return _tiny_model(tmp_path_factory.mktemp("scaled") / "model.pt", "scaled", seed=2)


def _positions(path, seed: int, every: int = 3):
    """The agent of ``path`` and every ``every``-th decision of a seeded random hand (random legal moves):
    (observation, legal ids, the env's state, act's move, the Q act chose by, from the networks' ``q_pairs``)."""
    env = cardenvs.make("guandan")
    env.reset(seed=0)
    agent = dmc_model.DMCAgent(env, str(path))
    rng = np.random.default_rng(seed)
    recorded: list[torch.Tensor] = []
    nets = agent.nets
    originals = [net.q_pairs for net in nets]

    def spy(original):
        def q_pairs(*a):
            out = original(*a)
            recorded.append(out.clone())
            return out

        return q_pairs

    out = []
    step = 0

    def choose(seat, observation):
        nonlocal step
        legal = np.flatnonzero(observation["action_mask"])
        if step % every == 0 and len(legal) > 1:
            recorded.clear()
            chosen = agent.act(observation, rng)
            assert len(recorded) == 1  # one role: one network asked once
            state = env.unwrapped.core_state()[1].copy()
            out.append((observation["observation"].copy(), legal, state, chosen, recorded[0].numpy().astype(float)))
        step += 1
        return int(rng.choice(legal))

    for net, original in zip(nets, originals, strict=True):
        net.q_pairs = spy(original)
    try:
        play_episode(env, choose, seed=seed)
    finally:
        for net, original in zip(nets, originals, strict=True):
            net.q_pairs = original
    assert len(out) >= 10
    return agent, out


def _batch_values(agent, positions, order):
    """``action_values`` of all the positions in one call, the rows in the order ``order`` and their states
    stacked in position order (``games`` maps each row to its position's state)."""
    obs = np.stack([positions[i][0] for i in order])
    width = max(len(p[1]) for p in positions)
    ids = np.zeros((len(order), width), dtype=np.int64)
    counts = np.array([len(positions[i][1]) for i in order])
    for row, i in enumerate(order):
        ids[row, : counts[row]] = positions[i][1]
    state = np.concatenate([p[2] for p in positions])
    return agent.action_values(obs, ids, counts, state=state, games=np.asarray(order, dtype=np.int64)), counts


def _largest_gap(agent, positions, order) -> float:
    q, counts = _batch_values(agent, positions, order)
    return max(
        float(np.abs(q[row, : counts[row]] - positions[i][4]).max()) for row, i in enumerate(order)
    )  # fmt: skip


class WrongSeat:
    """The danzero feature set read for the partner of the seat to move (the mutation: another seat's 513)."""

    def __init__(self, features):
        self.features, self.size = features, features.size

    def rows(self, state, games=None):
        moved = state.copy()
        moved["to_move"] = (moved["to_move"] + 2) % 4
        return self.features.rows(moved, games)


def test_action_values_equal_the_q_act_plays_by_and_another_seats_features_change_them(danzero_path):
    agent, positions = _positions(danzero_path, seed=63)
    assert agent.reads_state and agent.extra is not None
    order = np.random.default_rng(5).permutation(len(positions))
    assert _largest_gap(agent, positions, order) < 1e-6
    q, counts = _batch_values(agent, positions, order)
    for row, i in enumerate(order):
        assert positions[i][1][int(np.argmax(q[row, : counts[row]]))] == positions[i][3]  # act's greedy move
        assert np.isneginf(q[row, counts[row] :]).all()
    # through the search's own call, on each position's state (game 0 of a batch of one)
    base = agent.base
    params, observation = base.params, (int(base.layout.size), base.layout.dtype)
    for _obs, legal, state, _chosen, q_act in positions[:5]:
        ids, q_search = model_action_values(agent, state, params, np.zeros(1, np.int64), observation, base.num_actions)
        assert np.array_equal(ids[0, : len(legal)], legal)
        np.testing.assert_allclose(q_search[0, : len(legal)], q_act, atol=1e-6, rtol=0)
    # the mutation check: the partner's 513 in place of the seat to move's are caught by the same comparison
    right = agent.extra
    agent.extra = WrongSeat(right)
    try:
        assert _largest_gap(agent, positions, order) > 1e-3
    finally:
        agent.extra = right
    with pytest.raises(ValueError, match="from the game's state"):
        agent.action_values(*_batch_args(positions))
    with pytest.raises(ValueError, match="observation rows but 1 games"):
        agent.action_values(*_batch_args(positions), state=positions[0][2], games=[0])


def _batch_args(positions):
    obs = np.stack([p[0] for p in positions])
    width = max(len(p[1]) for p in positions)
    ids = np.zeros((len(positions), width), dtype=np.int64)
    counts = np.array([len(p[1]) for p in positions])
    for row, p in enumerate(positions):
        ids[row, : counts[row]] = p[1]
    return obs, ids, counts


def test_determinized_deals_keep_the_seat_to_moves_features():
    """The deals a search samples are the rules' state dtype, and the 513 of the seat to move are the same there
    as in the true state: it reads its own hand and public facts only, which a determinization keeps."""
    env = cardenvs.make("guandan")
    base = env.unwrapped
    rng = np.random.default_rng(2)
    checked = 0

    def choose(seat, observation):
        nonlocal checked
        legal = np.flatnonzero(observation["action_mask"])
        state, params = base.core_state()[1], base.params
        if len(legal) > 1 and rng.random() < 0.2:
            true_rows = danzero_features.state_rows(state, [0])
            for d in range(3):
                det = search.determinized(state, 0, params, int(search.seat_to_move(state, 0, params)), 99, d)
                assert det.dtype == rules.STATE
                if d == 0:
                    others = [q for q in range(4) if q != det["to_move"][0]]
                    moved = not np.array_equal(det["hands"][0, others], state["hands"][0, others])
                    checked += moved  # a deal that re-dealt the hidden hands
                np.testing.assert_array_equal(danzero_features.state_rows(det, [0]), true_rows)
        return int(rng.choice(legal))

    play_episode(env, choose, seed=8)
    assert checked >= 5


class Spy:
    """A state-reading model that checks each row it is asked for is its game's seat to move, then asks the real
    model."""

    def __init__(self, model, params, actions: int):
        self.model, self.params, self.actions = model, params, actions
        self.reads_state = True
        self.rows = 0

    def action_values(self, observations, ids, counts, state=None, games=None):
        assert state is not None and state.dtype == rules.STATE and len(games) == len(observations)
        size = observations.shape[1]
        for i, b in enumerate(games):
            seat = int(search.seat_to_move(state, int(b), self.params))
            obs = np.zeros(size, dtype=observations.dtype)
            kernels.observe_one(
                state, int(b), self.params, seat, obs, np.zeros(self.actions, np.int8), np.zeros(1, np.int64),
                self.actions + 1, np.zeros(self.actions, np.int64),
            )  # fmt: skip
            assert np.array_equal(obs, observations[i]), f"row {i} is not game {b}'s seat to move"
        self.rows += len(observations)
        return self.model.action_values(observations, ids, counts, state=state, games=games)


@pytest.mark.parametrize("leaf, rollout", [(True, 0), (True, -1), (False, -1)])
def test_a_search_asks_each_rows_own_game_and_seat(danzero_path, leaf, rollout):
    env = cardenvs.make("guandan")
    env.reset(seed=4)
    base = env.unwrapped
    agent = dmc_model.DMCAgent(env, str(danzero_path))
    heuristic = load_agent("guandan.heuristic", base)
    rng = np.random.default_rng(4)
    for _ in range(12):  # into the hand: plays to beat, passes, a history
        env.step(heuristic.act(env.observe(env.agent_selection), rng))
    spy = Spy(agent, base.params, int(base.num_actions))
    _, states, params, layout = base.core_state()
    result = search.pimc_learned(
        states, 0, params, num_actions=int(base.num_actions), num_players=4, model=spy,
        observation=(int(layout.size), layout.dtype), leaf=leaf, rollout=rollout, playouts=40, seed=3,
    )  # fmt: skip
    assert spy.rows > 0 and result.action in result.actions


def test_guandan_pimc_over_a_danzero_model_plays_a_hand_and_replays_it(danzero_path):
    m = f"dmc:{danzero_path}"
    names = [
        f"guandan.pimc(playouts=30,seed=5,leaf={m})",
        f"guandan.pimc(playouts=30,seed=5,leaf={m},rollout={m})",
        f"guandan.pimc(playouts=30,seed=5,prior={m},top=3,weight=0.5)",
        f"guandan.pimc(playouts=8,seed=5,rollout={m})",
    ]
    first = _play("guandan", names, seed=21)  # every move legal, the hand ends
    assert len(first) > 20
    assert _play("guandan", names, seed=21) == first


def test_an_observation_only_model_is_asked_as_before(scaled_path):
    """A model without a state feature set is asked with the observations alone (as before state was passed),
    ignores a state given, and the search result is the one the old three-argument protocol gives."""
    env = cardenvs.make("guandan")
    env.reset(seed=6)
    base = env.unwrapped
    agent = dmc_model.DMCAgent(env, str(scaled_path))
    assert not agent.reads_state

    class OldProtocol:
        asked = 0

        def action_values(self, observations, ids, counts):
            OldProtocol.asked += len(observations)
            return agent.action_values(observations, ids, counts)

    heuristic = load_agent("guandan.heuristic", base)
    rng = np.random.default_rng(6)
    for _ in range(9):
        env.step(heuristic.act(env.observe(env.agent_selection), rng))
    _, states, params, layout = base.core_state()
    common = dict(num_actions=int(base.num_actions), num_players=4, observation=(int(layout.size), layout.dtype))
    runs = [
        search.pimc_learned(states, 0, params, model=m, leaf=True, rollout=-1, playouts=60, seed=9, **common)
        for m in (agent, OldProtocol())
    ]
    assert OldProtocol.asked > 0
    assert runs[0].action == runs[1].action
    np.testing.assert_array_equal(runs[0].values, runs[1].values)
    obs, ids, counts = _one_position(base)
    alone = agent.action_values(obs, ids, counts)
    np.testing.assert_array_equal(agent.action_values(obs, ids, counts, state=states, games=[0]), alone)


def _one_position(base):
    observation = base.observe(base.agent_selection)
    legal = np.flatnonzero(observation["action_mask"])
    return observation["observation"][None, :], legal[None, :], np.array([len(legal)])


@pytest.mark.parametrize("target", ["win", "points", "margin", "win_points"])
def test_end_values_are_the_trainers_targets(tmp_path, target):
    """A game that ends is worth, on a ``win_points`` model's scale, the trainer's target of that return; on
    the other models' the outcome, as before."""
    from cardenvs.training.dmc_actors import episode_targets

    args = dmc_args.Args(game="guandan_v0", hidden=[8], move_hidden=4, head_hidden=4, history_channels=0)
    args.target, args.target_scale = target, 2.0
    nets = dmc_model.build_nets(args.game, cardenvs.make("guandan").unwrapped.layout, args)
    dmc.save_checkpoint(tmp_path / "model.pt", nets, [torch.optim.Adam(nets.parameters())], args, 0, 0.0)
    agent = dmc_model.DMCAgent(cardenvs.make("guandan"), str(tmp_path / "model.pt"))
    points = np.array([[3.0, -3.0, 3.0, -3.0], [-1.0, 1.0, -1.0, 1.0], [2.0, -2.0, 2.0, -2.0]])
    outcomes = np.sign(points[:, 1])
    got = agent.end_values(outcomes, points, 1)
    if target != "win_points":  # the outcome, as searches scored every end before
        np.testing.assert_array_equal(got, outcomes)
    else:
        want = [episode_targets([row], [1], points_weight=args.points_weight)[0] for row in points]
        np.testing.assert_allclose(got, np.asarray(want) / 2.0)
        np.testing.assert_allclose(got, [-(1 + 1) / 2, (1 + 1 / 3) / 2, -(1 + 2 / 3) / 2])  # seat 1: g = -3, 1, -2


def test_a_search_scores_the_ends_of_its_deals_on_the_models_scale(tmp_path):
    """With a ``win_points`` model a deal that ends is worth the win plus a third of the levels (Guandan: up to
    2), not the outcome's +-1 that would make winning the hand look worse than the model's value of it."""
    args = dmc_args.Args(game="guandan_v0", hidden=[8], move_hidden=4, head_hidden=4, history_channels=0)
    args.target = "win_points"
    with torch.random.fork_rng():  # seeded weights: the hand played (and whether its searches meet an end) is fixed
        torch.manual_seed(0)
        nets = dmc_model.build_nets(args.game, cardenvs.make("guandan").unwrapped.layout, args)
    dmc.save_checkpoint(tmp_path / "model.pt", nets, [torch.optim.Adam(nets.parameters())], args, 0, 0.0)
    env = cardenvs.make("guandan")
    base = env.unwrapped
    agent = load_agent(f"guandan.pimc(playouts=200,leaf=dmc:{tmp_path / 'model.pt'})", base)
    model, ends = agent.model, []
    real = model.end_values

    def spy(outcomes, points, seat):
        values = real(outcomes, points, seat)
        ends.append((outcomes.copy(), points[:, seat].copy(), values))
        return values

    model.end_values = spy
    rng = np.random.default_rng(1)
    for seed in (12, 13, 14):  # hands until a search meets deals that end (the first did, run alone)
        play_episode(env, lambda seat, obs: agent.act(obs, rng), seed=seed)
        if ends:
            break
    assert ends, "no deal of three hands' searches ended"
    for outcomes, points, values in ends:
        assert np.array_equal(np.sign(points), outcomes)  # a Guandan hand's points carry its result
        np.testing.assert_allclose(values, outcomes + points / 3)
        assert (np.abs(values) > 1).all()  # every finished hand gains 1 to 3 levels: beyond the outcome's +-1
