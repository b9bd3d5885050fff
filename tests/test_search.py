"""Search agents: PIMC and ISMCTS find the one winning move of hand-built positions, replay exactly under a
seed and a playout budget, take parameters by name, and play in the arena."""

import numpy as np
import pytest

import cardenvs
from cardenvs import search
from cardenvs.agent import known_agents, load_agent, parse_agent_name, split_agent_names
from cardenvs.cli import main
from cardenvs.core.env import play_episode
from cardenvs.games.doudizhu import moves as ddz_moves
from cardenvs.games.twos import moves as twos_moves


def doudizhu_bomb_position():
    """Landlord (seat 0) holds 7777 + 3; farmer 2 just played a single 2 and holds one A; farmer 1 holds 5 6.
    Passing lets farmer 2 lead the A and go out; the bomb 7777 keeps the lead and the 3 goes out: the only
    winning move is the bomb. Every other card is played (by seat 1)."""
    env = cardenvs.make("doudizhu")
    env.reset(seed=0, options={"landlord": 0, "bid": 1})
    base = env.unwrapped
    s = base.states[0]
    rank = np.asarray(ddz_moves.RANK_OF_CARD)[:54]

    def cards(ranks):  # card ids of the given ranks (one card per entry, lowest free id first)
        out = []
        for r in ranks:
            out.append(next(c for c in np.flatnonzero(rank == r) if c not in out and c not in used))
        used.update(out)
        return out

    used: set[int] = set()
    lord = cards([4, 4, 4, 4, 0])  # 7777 3 (rank 0 = 3, rank 4 = 7)
    f1 = cards([2, 3])  # 5 6
    f2 = cards([11])  # A
    two = cards([12])  # the 2 on the table, played by seat 2
    s["hands"][:] = 0
    s["played"][:] = 0
    s["kitty_in_hand"][:] = 0
    for q, held in enumerate((lord, f1, f2)):
        s["hands"][q, held] = 1
    s["played"][2, two] = 1
    for c in range(54):
        if c not in used:
            s["played"][1, c] = 1
    for q in range(3):
        s["counts"][q] = np.bincount(rank[np.flatnonzero(s["hands"][q])], minlength=15)
    s["to_move"] = 0
    s["last_move"] = ddz_moves.MOVE_ID["2"]
    s["last_player"] = 2
    s["passes"] = 0
    s["hist_move"][0] = ddz_moves.MOVE_ID["2"]
    s["hist_player"][0] = 2
    s["n_hist"] = 1
    s["moves_played"][:] = [3, 5, 4]
    return base, ddz_moves.MOVE_ID["7777"]


def twos_pair_position():
    """Seat 0 leads holding 4S 5S 5C; seats 1 and 2 hold one card each, and every card they could hold (the
    unseen ones, out of play included) is a 6 or higher. A single loses (the next seat beats it and goes
    out); the pair 55 cannot be beaten, then the 4 goes out: the only winning move is the pair."""
    env = cardenvs.make("twos")
    env.reset(seed=0)
    base = env.unwrapped
    s = base.states[0]
    value = {code: v for v in range(52) for code in [twos_moves.value_code(v)]}
    mine = [value["4S"], value["5S"], value["5C"]]
    s["hands"][:] = 0
    s["played"][:] = 0
    s["out_of_play"][:] = 0
    s["hands"][0, mine] = 1
    high = [v for v in range(52) if v >= 12]  # ranks 6 and up (rank 3 = six)
    s["hands"][1, high[0]] = 1
    s["hands"][2, high[1]] = 1
    s["out_of_play"][high[2:15]] = 1
    for v in range(52):
        if not (s["hands"][:, v].any() or s["out_of_play"][v]):
            s["played"][v % 3 if v not in mine else 0, v] = 1
    s["played"][0, 0] = 1  # seat 0 led the first trick with the 3S
    s["played"][1, 0] = s["played"][2, 0] = 0
    s["leader"] = 0
    s["to_move"] = 0
    s["to_beat_shape"] = s["to_beat_top"] = s["last_player"] = -1
    s["passed"][:] = 0
    s["n_trick"] = 0
    ids = np.flatnonzero(base._core_legal_mask())
    pair = [a for a in ids if a != twos_moves.PASS and twos_moves.ACTIONS[a, 0] == twos_moves.SHAPE_INDEX[(2, 1)]]
    assert len(pair) == 1 and len(ids) >= 3
    return base, int(pair[0])


POSITIONS = {"doudizhu": doudizhu_bomb_position, "twos": twos_pair_position}


@pytest.mark.parametrize("game", ["doudizhu", "twos"])
@pytest.mark.parametrize("method", ["pimc", "ismcts"])
def test_search_finds_the_only_winning_move(game, method):
    base, winning = POSITIONS[game]()
    before = base.states.copy()
    fn = getattr(search, method)
    result = fn(
        base.states, 0, base.params, num_actions=base.num_actions, num_players=base.num_players, playouts=60, seed=1
    )
    assert result.action == winning
    assert result.values[list(result.actions).index(winning)] == pytest.approx(result.values.max())
    assert np.array_equal(base.states, before), "search wrote to the true state"


@pytest.mark.parametrize("name", ["twos.pimc(playouts=40,seed=5)", "twos.ismcts(playouts=40,seed=5)"])
def test_same_seed_same_moves(name):
    def actions(agent_name):
        env = cardenvs.make("twos")
        agents = [load_agent(agent_name, env.unwrapped), load_agent("twos.heuristic", env.unwrapped)]
        played = []

        def policy(seat, obs):
            a = agents[min(seat, 1)].act(obs, rng)
            played.append(a)
            return a

        rng = np.random.default_rng(3)
        play_episode(env, policy, seed=11)
        return played

    first = actions(name)
    assert first == actions(name)
    assert first != actions(name.replace("seed=5", "seed=6")) or len(first) < 10


def test_pimc_threads_give_the_same_result():
    env = cardenvs.make("doudizhu")
    env.reset(seed=4, options={"landlord": 0, "bid": 1})
    base = env.unwrapped
    kwargs = dict(num_actions=base.num_actions, num_players=3, playouts=400, seed=9)
    one = search.pimc(base.states, 0, base.params, threads=1, **kwargs)
    two = search.pimc(base.states, 0, base.params, threads=2, **kwargs)
    assert one.action == two.action and np.array_equal(one.values, two.values)


def test_time_budget_is_kept():
    env = cardenvs.make("doudizhu")
    env.reset(seed=2, options={"landlord": 0, "bid": 1})
    base = env.unwrapped
    for fn in (search.pimc, search.ismcts):
        fn(base.states, 0, base.params, num_actions=base.num_actions, num_players=3, playouts=10)  # compile
        result = fn(base.states, 0, base.params, num_actions=base.num_actions, num_players=3, ms=30)
        assert result.seconds < 0.2 and result.playouts > 10


def test_agent_names_and_parameters():
    assert split_agent_names("a,b(x=1,y=2), c") == ["a", "b(x=1,y=2)", "c"]
    assert parse_agent_name("twos.pimc(playouts=5, seed=2)") == ("twos.pimc", {"playouts": "5", "seed": "2"})
    assert {"twos.pimc", "twos.ismcts", "doudizhu.pimc", "doudizhu.ismcts"} <= set(known_agents())
    assert "war.pimc" not in known_agents()
    env = cardenvs.make("twos").unwrapped
    agent = load_agent("twos.ismcts(playouts=7,c=1.5,rollout=heuristic)", env)
    assert agent.parameters["playouts"] == 7 and agent.parameters["c"] == 1.5
    assert agent.name == "twos.ismcts(playouts=7,c=1.5,rollout=heuristic)"


@pytest.mark.parametrize(
    "name, message",
    [
        ("twos.pimc(playout=5)", "unknown parameter 'playout'; twos.pimc accepts playouts=None, ms=None, seed=0"),
        ("twos.pimc(playouts=abc)", "playouts='abc' is not an integer"),
        ("twos.pimc(playouts=0)", "playouts=0 must be an integer >= 1"),
        ("twos.pimc(ms=-3)", "ms=-3.0 must be > 0"),
        ("twos.pimc(rollout=greedy)", "rollout='greedy' is not a heuristic of twos (heuristic)"),
        ("twos.pimc(playouts=5", "write parameters as NAME(key=value,...)"),
        ("twos.pimc(playouts)", "parameter 'playouts' must look like key=value"),
        ("twos.pimc(seed=1,seed=2)", "parameter 'seed' is given twice"),
        ("twos.heuristic(x=1)", "takes no parameters"),
        ("doudizhu.pimc(playouts=5)", "plays doudizhu, not twos"),
    ],
)
def test_bad_parameters_are_clear_errors(name, message):
    with pytest.raises(ValueError) as exc:
        load_agent(name, cardenvs.make("twos").unwrapped)
    assert message in str(exc.value)


def test_search_agents_in_the_arena_cli(capsys):
    agents = "twos.pimc(playouts=30,seed=1),twos.heuristic,twos.ismcts(playouts=30)"
    assert main(["arena", "twos", "--agents", agents, "--games", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "twos.pimc(playouts=30,seed=1)" in out and "twos.ismcts(playouts=30)" in out
    assert main(["arena", "twos", "--agents", "twos.pimc(bogus=1),random,random", "--games", "1"]) == 2
    assert "unknown parameter 'bogus'" in capsys.readouterr().err
    assert main(["list"]) == 0
    assert "twos.ismcts(playouts=None, ms=None, seed=0, threads=1, trees=1, c=0.7, rollout=heuristic)" in (
        capsys.readouterr().out
    )
