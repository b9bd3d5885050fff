"""Search guided by a learned model (``GAME.pimc(leaf=dmc)``, ``GAME.pimc(rollout=dmc)``): the leaf values and
the model's rollouts equal a step-by-step reference on the kernels' own AEC functions (with a stand-in model,
so no torch is needed for those), every shipped DMC model guides a search through a whole game with legal
moves, a game replays exactly under a seed, and a missing model or torch is a clear error."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

import cardenvs
from cardenvs import search
from cardenvs.agent import load_agent, shipped_models
from cardenvs.core import kernels, seeds
from cardenvs.core.play import play_episode
from cardenvs.core.rng import splitmix64, stream


class LinearModel:
    """A stand-in model: Q(row, move) = weights . observation + scale * move id (its greedy move is the
    highest id with ``scale > 0``, the lowest with ``scale < 0``)."""

    def __init__(self, size: int, scale: float, seed: int = 0):
        self.weights = np.random.default_rng(seed).normal(size=size)
        self.scale = scale
        self.asked = 0

    def value(self, obs: np.ndarray, ids: np.ndarray) -> np.ndarray:
        return float(self.weights @ obs.astype(np.float64)) + self.scale * ids

    def action_values(self, observations, ids, counts):
        self.asked += len(observations)
        out = np.full(ids.shape, -np.inf)
        for i in range(len(observations)):
            out[i, : counts[i]] = self.value(observations[i], ids[i, : counts[i]])
        return out


def position(game: str, seed: int, moves: int = 2):
    """A game a few moves in (the heuristic playing), its base env."""
    env = cardenvs.make(game)
    env.reset(seed=seed)
    heuristic = load_agent(f"{game}.{env.unwrapped.CORE.POLICIES[0]}", env.unwrapped)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        env.step(heuristic.act(env.observe(env.agent_selection), rng))
    return env.unwrapped


def reference_values(base, model: LinearModel, seed: int, leaf: bool, replies: int, mix: float = 1.0) -> np.ndarray:
    """Deal 0 of :func:`search.pimc_learned`, step by step on the kernels' AEC functions: each legal move
    on the determinization, then the replies (heuristic ``replies`` or, with -1, the model's greedy move)
    until the seat acts again (``leaf``) or the game ends; the model's best Q there, or the outcome."""
    state, params = base.states, base.params
    seat = int(search.seat_to_move(state, 0, params))
    seed_u = seeds.seed64(seed, "search")
    det = search.determinized(state, 0, params, seat, seed_u, 0)
    players, actions = int(base.num_players), int(base.num_actions)
    size, dtype = int(base.layout.size), base.layout.dtype
    out = []
    for move in search.drivers._legal(state, 0, params, actions):
        sim = det.copy()
        rngs = stream(seed_u, 1).reshape(1, 1)
        rewards, last, mask, ids = (
            np.zeros(players),
            np.zeros(players),
            np.zeros(actions, np.int8),
            np.zeros(actions, np.int64),
        )
        st, to_move, _ = kernels.aec_step(sim, params, move, False, last, rewards, mask, ids)
        while st == kernels.RUNNING and (to_move != seat or not leaf):
            if replies >= 0:
                chosen = np.zeros(1, dtype=np.int64)
                kernels.policy_range(sim, params, np.zeros(1, np.int64), 2 + replies, rngs, actions, chosen)
                action = int(chosen[0])
            else:
                legal = np.flatnonzero(mask)
                action = int(legal[np.argmax(model.value(observe(sim, params, to_move, size, dtype, actions), legal))])
            st, to_move, _ = kernels.aec_step(sim, params, action, False, last, rewards, mask, ids)
        if st != kernels.RUNNING:
            out.append(rewards[seat])
        else:
            obs = observe(sim, params, seat, size, dtype, actions)
            value = model.value(obs, np.flatnonzero(mask)).max()
            if mix < 1.0:  # the same leaf played on by heuristic `replies` for every seat, to the end
                rngs = stream(splitmix64(seed_u), 1).reshape(1, 1)
                while st == kernels.RUNNING:
                    chosen = np.zeros(1, dtype=np.int64)
                    kernels.policy_range(sim, params, np.zeros(1, np.int64), 2 + replies, rngs, actions, chosen)
                    st, _, _ = kernels.aec_step(sim, params, int(chosen[0]), False, last, rewards, mask, ids)
                value = mix * value + (1.0 - mix) * rewards[seat]
            out.append(value)
    return np.array(out)


def observe(sim, params, seat, size, dtype, actions) -> np.ndarray:
    obs = np.zeros(size, dtype=dtype)
    scratch = np.zeros(actions, np.int64)
    kernels.observe_one(
        sim, 0, params, seat, obs, np.zeros(actions, np.int8), np.zeros(1, np.int64), actions + 1, scratch
    )
    return obs


@pytest.mark.parametrize("game", ["twos", "doudizhu"])
@pytest.mark.parametrize("leaf, replies, mix", [(True, 0, 1.0), (True, -1, 1.0), (False, -1, 1.0), (True, 0, 0.25)])
def test_learned_values_equal_a_step_by_step_reference(game, leaf, replies, mix):
    base = position(game, seed=5)
    before = base.states.copy()
    model = LinearModel(int(base.layout.size), scale=1e-3 if replies == 0 else -1e-3)
    moves = search.drivers._legal(base.states, 0, base.params, int(base.num_actions))
    assert len(moves) > 1
    result = search.pimc_learned(
        base.states,
        0,
        base.params,
        num_actions=int(base.num_actions),
        num_players=int(base.num_players),
        model=model,
        observation=(int(base.layout.size), base.layout.dtype),
        leaf=leaf,
        rollout=replies,
        playouts=len(moves),  # one deal: deal 0
        seed=7,
        mix=mix,
    )
    assert result.extra["deals"] == 1 and model.asked > 0
    assert np.array_equal(result.actions, moves)
    expected = reference_values(base, model, seed=7, leaf=leaf, replies=replies, mix=mix)
    if mix < 1.0:  # the rollouts count: the values differ from the model's alone
        assert not np.allclose(expected, reference_values(base, model, seed=7, leaf=leaf, replies=replies))
    np.testing.assert_allclose(result.values, expected, rtol=1e-12, atol=1e-12)
    assert result.action == moves[int(np.argmax(expected))]
    assert np.array_equal(base.states, before), "search wrote to the true state"


@pytest.mark.parametrize("game", ["twos", "doudizhu"])
def test_a_prior_keeps_the_models_best_moves_and_their_plain_values(game):
    """``prior``: PIMC compares only the ``top`` moves the model values highest in the seat's observation, and
    each kept move's value is the one plain PIMC gives it (a move's deals and rollouts do not depend on the
    other moves compared)."""
    from cardenvs.search import SearchAgent

    base = position(game, seed=3, moves={"twos": 0, "doudizhu": 3}[game])  # a lead (Dou Dizhu: past the bidding)
    moves = search.drivers._legal(base.states, 0, base.params, int(base.num_actions))
    assert len(moves) > 3
    model = LinearModel(int(base.layout.size), scale=1.0)  # Q grows with the id: the top moves are the highest
    agent = SearchAgent(base, "pimc", model_loader=lambda name: model, prior="dmc:stand-in", top=3, playouts=30)
    kept, q = agent.prior_moves()
    assert list(kept) == list(moves[-3:]) and model.asked == 1
    np.testing.assert_allclose(q, model.value(observe_seat(base), kept))
    result = agent.search(11)
    assert list(result.actions) == list(kept) and result.extra["deals"] == 10
    plain = search.pimc(
        base.states, 0, base.params, num_actions=int(base.num_actions), num_players=int(base.num_players),
        playouts=10 * len(moves), seed=11,
    )  # fmt: skip
    np.testing.assert_array_equal(result.values, plain.values[np.isin(moves, kept)])
    with pytest.raises(ValueError, match="must be legal moves"):
        search.pimc(base.states, 0, base.params, num_actions=int(base.num_actions), num_players=3, candidates=[-1])


def observe_seat(base) -> np.ndarray:
    seat = int(search.seat_to_move(base.states, 0, base.params))
    return observe(base.states, base.params, seat, int(base.layout.size), base.layout.dtype, int(base.num_actions))


@pytest.mark.parametrize("game", ["twos", "doudizhu"])
def test_a_weighted_prior_plays_the_best_search_value_plus_weight_times_q(game):
    """``prior=...,weight=W``: the same search over the same kept moves, and the move played maximises the
    search's mean value plus W x the model's Q (W = 0: the search's own choice)."""
    from cardenvs.search import SearchAgent

    base = position(game, seed=3, moves={"twos": 0, "doudizhu": 3}[game])
    model = LinearModel(int(base.layout.size), scale=-0.05)  # the model prefers low ids, a little
    picks = {}
    for weight in (0.0, 0.5, 1000.0):
        agent = SearchAgent(
            base, "pimc", model_loader=lambda name: model, prior="dmc:stand-in", top=6, playouts=60, weight=weight
        )
        result = agent.search(11)
        kept, q = agent.prior_moves()
        assert list(result.actions) == list(kept)
        expected = int(kept[np.argmax(result.values + weight * q)])
        assert result.action == expected
        picks[weight] = result.action
    assert picks[1000.0] == int(kept[np.argmax(q)])  # the model decides when it weighs most
    assert picks[0.0] == int(kept[np.argmax(result.values)])  # the search's values alone
    assert picks[0.0] != picks[1000.0]  # the position is one where they disagree, so the weight matters


def test_a_heuristic_rollout_without_a_leaf_is_plain_pimc_and_refused_here():
    base = position("twos", seed=1)
    with pytest.raises(ValueError, match="call pimc"):
        search.pimc_learned(
            base.states, 0, base.params, num_actions=int(base.num_actions), num_players=3,
            model=LinearModel(int(base.layout.size), 0.0), observation=(int(base.layout.size), base.layout.dtype),
            leaf=False, rollout=0, playouts=10,
        )  # fmt: skip


SHIPPED = sorted({name.partition(".")[0] for name in shipped_models()})  # games (doudizhu ships two models)


def test_models_are_shipped_for_search():
    assert {"doudizhu", "twos"} <= set(SHIPPED)


def _play(game: str, names: list[str], seed: int) -> list[int]:
    """One game: ``names[k]`` in seat k (the game's first heuristic past the list); the moves played."""
    env = cardenvs.make(game)
    base = env.unwrapped
    heuristic = f"{game}.{base.CORE.POLICIES[0]}"
    agents = [load_agent(n, base) for n in names]
    agents += [load_agent(heuristic, base)] * (base.num_players - len(agents))
    rng = np.random.default_rng(seed)
    played: list[int] = []

    def policy(seat, obs):
        action = agents[seat].act(obs, rng)
        assert obs["action_mask"][action]
        played.append(action)
        return action

    play_episode(env, policy, seed=seed)
    assert not env.agents, "the game did not end"
    return played


@pytest.mark.parametrize("game", SHIPPED)
def test_every_shipped_model_guides_a_search_to_the_end_of_a_game(game):
    pytest.importorskip("torch")
    names = [f"{game}.pimc(playouts=24,leaf=dmc)", f"{game}.pimc(playouts=24,rollout=dmc,leaf=dmc)"]
    assert len(_play(game, names, seed=3)) >= 2


def test_a_time_budget_is_kept_with_a_model(search_clock):
    pytest.importorskip("torch")
    env = cardenvs.make("doudizhu")
    env.reset(seed=2, options={"landlord": 0, "bid": 1})  # the opening lead: 104 moves
    agent = load_agent("doudizhu.pimc(ms=40,leaf=dmc)", env.unwrapped)
    search_clock(0.010)
    result = agent.search(2)
    # readings 10 ms apart: start at 0.01; deal 1 from 0.02 to 0.03 (10 ms a deal), 20 ms spent at 0.04, so
    # a batch of max(1, int(20 ms / 4 / 10 ms)) = 1; deal 2 from 0.05 to 0.06, 50 ms spent at 0.07: stop
    assert result.extra["deals"] == 2 and result.playouts == 2 * 104
    assert result.seconds == pytest.approx(0.07)  # read at 0.08
    # 4 ms apart: 12 ms spent after deal 1 (4 ms a deal), a batch of int(28 / 4 / 4) = 1; 24 ms after deal 2,
    # int(16 / 4 / 4) = 1; 36 ms after deal 3, max(1, int(4 / 4 / 4)) = 1; 48 ms after deal 4: stop
    search_clock(0.004)
    assert agent.search(2).extra["deals"] == 4
    # 2 ms apart with a cap of 30 deals: batches grow, 1, int(34 / 4 / 2) = 4, int(28 / 4 / 0.5) = 14, then
    # the 11 left of the cap (int(22 / 4 / (2 / 14)) = 38 would fit), before the time is up
    agent = load_agent("doudizhu.pimc(ms=40,playouts=3120,leaf=dmc)", env.unwrapped)
    search_clock(0.002)
    result = agent.search(2)
    assert result.extra["deals"] == 30 and result.seconds == pytest.approx(0.026)


def test_a_seed_replays_a_game_exactly():
    pytest.importorskip("torch")
    names = ["twos.pimc(playouts=30,seed=5,rollout=dmc)", "twos.pimc(playouts=30,seed=5,leaf=dmc)"]
    first = _play("twos", names, seed=11)
    assert first == _play("twos", names, seed=11)
    other = _play("twos", [n.replace("seed=5", "seed=6") for n in names], seed=11)
    assert first != other or len(first) < 10


@pytest.mark.parametrize(
    "name, message",
    [
        ("twos.pimc(leaf=heuristic)", "leaf='heuristic': expected dmc or dmc:PATH"),
        ("twos.ismcts(rollout=dmc)", "a learned model guides only pimc"),
        ("twos.pimc(leaf=dmc:/no/such/model.pt)", "no DMC checkpoint at /no/such/model.pt"),
        ("twos.pimc(rollout=dmc,leaf=dmc:/x.pt)", "rollout and leaf name different models"),
        ("twos.pimc(leaf=dmc,threads=2)", "a search with a learned model runs on one"),
        ("twos.pimc(leaf=cardenvs.agent:RandomAgent)", "does not score moves"),
        ("twos.pimc(mix=0.5)", "mix=0.5 weighs a leaf model against heuristic rollouts"),
        ("twos.pimc(rollout=dmc,leaf=dmc,mix=0.5)", "mix=0.5 weighs a leaf model against heuristic rollouts"),
        ("twos.pimc(leaf=dmc,mix=1.5)", "mix=1.5 must be a number from 0 to 1"),
        ("twos.pimc(top=3)", "top=3 counts the moves a prior keeps: give prior=dmc"),
        ("twos.pimc(prior=heuristic)", "prior='heuristic': expected dmc or dmc:PATH"),
        ("twos.pimc(prior=dmc,leaf=dmc)", "with heuristic rollouts and no leaf"),
        ("twos.pimc(prior=dmc,top=0)", "top=0 must be an integer >= 1"),
        ("twos.pimc(weight=0.5)", "weight=0.5 weighs a prior's values: give prior=dmc"),
        ("twos.pimc(prior=dmc,weight=-1)", "weight=-1.0 must be a finite number >= 0"),
    ],
)
def test_bad_models_are_clear_errors(name, message):
    if "no such" in name:
        pytest.importorskip("torch")
    game = name.partition(".")[0]
    with pytest.raises(ValueError) as exc:
        load_agent(name, cardenvs.make(game).unwrapped)
    assert message in str(exc.value)


def test_a_game_without_a_shipped_model_names_the_shipped_ones(monkeypatch):
    """Every game with a search agent ships a model now: without one (shipped_models patched to leave
    Two Way Street's out), ``leaf=dmc`` says so and lists what is shipped."""
    import cardenvs.agent.loader

    shipped = {k: v for k, v in shipped_models().items() if not k.startswith("two_way_street.")}
    monkeypatch.setattr(cardenvs.agent.loader, "shipped_models", lambda: shipped)
    with pytest.raises(ValueError) as exc:
        load_agent("two_way_street.pimc(leaf=dmc)", cardenvs.make("two_way_street").unwrapped)
    assert "no DMC model is shipped for two_way_street (shipped: " in str(exc.value)
    assert "twos.dmc" in str(exc.value) and "dmc:PATH" in str(exc.value)


def test_names_from_untrusted_input_load_no_model_file_outside_the_models_folder(tmp_path):
    """The web loads names with ``registered_only``: a search's model obeys it as a ``KIND:PATH`` agent does."""
    env = cardenvs.make("twos").unwrapped
    for name, message in [
        ("twos.pimc(leaf=dmc:/etc/passwd)", "models (KIND:PATH) load here only from a models folder"),
        ("twos.pimc(leaf=cardenvs.agent:RandomAgent)", "module:Class agents are not loaded here"),
    ]:
        with pytest.raises(ValueError, match=re.escape(message)):
            load_agent(name, env, registered_only=True)
    with pytest.raises(ValueError, match="no model by that name in the models folder"):
        load_agent("twos.pimc(leaf=dmc:../x.pt)", env, registered_only=True, models_dir=tmp_path)


def test_without_torch_the_error_names_the_extra():
    code = (
        "import sys\n"
        "sys.modules['torch'] = None\n"
        "import cardenvs\n"
        "from cardenvs.agent import load_agent\n"
        "try:\n"
        "    load_agent('twos.pimc(leaf=dmc)', cardenvs.make('twos').unwrapped)\n"
        "except ValueError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert "leaf=dmc" not in out.stderr, out.stderr
    assert "needs the train extra" in out.stdout, out.stdout + out.stderr
