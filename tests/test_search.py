"""Search agents: PIMC and ISMCTS find the one winning move of hand-built positions, replay exactly under a
seed and a playout budget, take parameters by name, and play in the arena."""

import math

import numpy as np
import pytest
from numba import njit

import cardenvs
from cardenvs import search
from cardenvs.agent import known_agents, load_agent, parse_agent_name, split_agent_names
from cardenvs.cli import main
from cardenvs.core import kernels, seeds
from cardenvs.core.play import play_episode
from cardenvs.core.rng import stream
from cardenvs.games.doudizhu import moves as ddz_moves
from cardenvs.games.doudizhu import rules as ddz_rules
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
    ddz_rules.recount(s)
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


def two_way_street_last_tricks_position():
    """A duel (2 players, target 1), two tricks left, direction high, tricks 4 - 4. The dealer (seat 0)
    led the 5H to trick 9; the responder (seat 1, to move) holds RJ 3H and leads trick 10. Every heart but
    the KH and the black joker are already played, so:

    * 3H under the 5H loses trick 9, the RJ wins trick 10: 5 - 5, the dealer scores 1 for the tie and wins
      the match whatever its last card is;
    * the RJ (the red joker may replace hearts) wins trick 9, then the 3H wins trick 10 unless the dealer's
      last card is the KH (the only card left that beats it): 4 - 6, the responder scores 4 and wins.

    The only winning move is the RJ: in every determinization but those giving the dealer the KH (1 of 33
    hidden cards), it wins, and 3H never does."""
    from cardenvs.core.cards import parse_card, parse_cards
    from cardenvs.games.two_way_street import rules as tws

    env = cardenvs.make("two_way_street", players=2, target=1)
    env.reset(seed=0)
    base = env.unwrapped
    s = base.states[0]
    deck = list(np.asarray(base.params["deck"][0]))
    mine, dealer_card, led = parse_cards("RJ 3H"), parse_card("9S"), parse_card("5H")
    tricks = [  # (leader's card, follower's card); the dealer leads tricks 1, 3, 5, 7 and the responder 2, 4, 6, 8
        "4H 2H",
        "6H 7H",
        "8H 9H",
        "TH JH",
        "QH AH",
        "2S BJ",
        "3S 4S",
        "6C 5C",
    ]
    discards = {0: parse_cards("2C 3C"), 1: parse_cards("2D 3D")}
    trick_cards = [parse_cards(t) for t in tricks]
    seen = mine + [dealer_card, led] + [c for t in trick_cards for c in t] + discards[0] + discards[1]
    rest = [c for c in deck if c not in seen]
    assert len(rest) == 30 and parse_card("KH") in rest
    s["phase"], s["current"], s["first"], s["hand_no"], s["over"] = tws.PLAY, 1, 0, 0, False
    s["hands"][:] = 0
    s["hands"][1, mine] = 1
    s["hands"][0, dealer_card] = 1
    s["played"][:] = 0
    s["taken"][:] = 0
    s["taken_cards"][:] = -1
    s["trick_winners"][:] = -1
    for k, pair in enumerate(trick_cards):
        leader = k % 2  # trick k is led by seat (first + k) % 2
        s["played"][pair] += 1
        s["taken_cards"][2 * k : 2 * k + 2] = pair
        winner = (leader + tws.trick_winner(pair, tws.suit(pair[0]))) % 2
        s["trick_winners"][k] = winner
        s["taken"][winner] += 1
    assert list(s["taken"][:2]) == [4, 4]
    s["played"][led] += 1
    s["trick_no"], s["trick_on"], s["trick_leader"], s["trick_len"] = 8, True, 0, 1
    s["trick_cards"][:] = -1
    s["trick_cards"][0] = led
    s["led_suit"] = tws.suit(led)
    s["void"][:] = 0
    s["direction"][:2] = tws.HIGH
    s["forced"][:] = 0
    s["bids"][:] = 0  # both "no bid": the dealer chose high, both discarded two and drew two
    s["revealed"], s["duel_direction"], s["n_queue"] = True, tws.HIGH, 0
    s["captured_tricks"][:] = 0
    s["discards"][:] = -1
    for q in (0, 1):
        s["discards"][q] = discards[q]
    s["n_discards"][:2] = 2
    s["totals"][:] = 0
    held = [c for t in trick_cards for c in t] + [led, dealer_card] + mine  # the 20 dealt and 4 drawn cards
    s["stock"][:24] = held + discards[0][:1] + discards[1][:1] + discards[0][1:] + discards[1][1:]
    s["stock"][24:54] = rest
    s["stock"][54:58] = discards[0] + discards[1]
    s["stock_head"], s["stock_end"] = 24, 58
    ids = np.flatnonzero(base._core_legal_mask())
    assert [a - tws.PLAY0 for a in ids] == sorted(mine)
    return base, tws.PLAY0 + parse_card("RJ")


POSITIONS = {
    "doudizhu": doudizhu_bomb_position,
    "twos": twos_pair_position,
    "two_way_street": two_way_street_last_tricks_position,
}


@pytest.mark.parametrize("game", sorted(POSITIONS))
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


def test_time_budget_is_kept(search_clock):
    env = cardenvs.make("doudizhu")
    env.reset(seed=2, options={"landlord": 0, "bid": 1})  # the opening lead: 104 moves
    base = env.unwrapped
    kwargs = dict(num_actions=base.num_actions, num_players=3)
    for fn in (search.pimc, search.ismcts):
        done = []  # (compiling takes no time on this clock)
        for step in (0.010, 0.005):  # the clock moves 10, then 5 ms a reading (conftest.SearchClock)
            search_clock(step)
            result = fn(base.states, 0, base.params, ms=30, **kwargs)
            # it stops at its first reading at or past 30 ms, a batch and two readings later at most
            assert 0.030 <= result.seconds <= 0.030 + 3 * step, (fn.__name__, step, result.seconds)
            done.append(result.playouts)
        # more than one batch with readings 5 ms apart (pimc: 104 playouts a deal), and more than at 10 ms
        assert done[1] > done[0] and done[1] > (104 if fn is search.pimc else 10), (fn.__name__, done)


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
        ("twos.pimc(playouts=0)", "playouts=0; expected an integer from 1 to 10,000,000"),
        ("twos.pimc(playouts=10000001)", "playouts=10000001; expected an integer from 1 to 10,000,000"),
        ("twos.pimc(ms=-3)", "ms=-3.0; expected a number of milliseconds above 0 and at most 600,000"),
        ("twos.ismcts(ms=inf)", "ms=inf; expected a number of milliseconds above 0 and at most 600,000"),
        ("twos.ismcts(ms=nan)", "ms=nan; expected a number of milliseconds above 0 and at most 600,000"),
        ("twos.pimc(ms=600001)", "ms=600001.0; expected a number of milliseconds above 0 and at most 600,000"),
        ("twos.pimc(threads=0)", "threads=0: expected an integer from 1 to"),
        ("twos.pimc(threads=4096)", "threads=4096: numba has"),
        ("twos.pimc(seed=-1)", "seed=-1; expected an integer >= 0"),
        ("twos.pimc(rollout=greedy)", "rollout='greedy' is not a heuristic of twos (heuristic)"),
        ("twos.pimc(playouts=5", "write parameters as NAME(key=value,...)"),
        ("twos.pimc(playouts)", "parameter 'playouts' must look like key=value"),
        ("twos.pimc(seed=1,seed=2)", "parameter 'seed' is given twice"),
        ("twos.heuristic(x=1)", "takes no parameters"),
        ("twos.pimcx(playouts=5)", "unknown agent 'twos.pimcx' (did you mean twos.pimc"),
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
    listed = "twos.ismcts(playouts=None, ms=None, seed=0, threads=1, trees=1, c=0.7, rollout=heuristic, to_end=false)"
    assert listed in capsys.readouterr().out


def test_budgets_are_checked_by_the_search_functions_too():
    """The module functions apply the same ranges as the agents (a non-finite ``ms`` would never return)."""
    env = cardenvs.make("twos")
    env.reset(seed=1)
    base = env.unwrapped
    kwargs = dict(num_actions=base.num_actions, num_players=base.num_players)
    for fn in (search.pimc, search.ismcts):
        for bad in ({"ms": math.inf}, {"ms": 0}, {"playouts": 0}, {"playouts": 10**9}, {"threads": 4096}):
            with pytest.raises(ValueError, match="expected|numba has"):
                fn(base.states, 0, base.params, **kwargs, **bad)


def test_seeds_of_any_size_are_accepted_as_the_envs_accept_them(capsys):
    """The envs take any seed >= 0 (2**64 included); so do the search agents, in the API and the arena, and
    seeds below 2**64 keep the moves they always gave."""
    env = cardenvs.make("twos")
    env.reset(seed=2**64)
    rng = np.random.default_rng(0)
    agent = load_agent(f"twos.pimc(playouts=20,seed={2**64})", env.unwrapped)
    assert env.unwrapped.observe(env.agent_selection)["action_mask"][agent.act(env.observe(env.agent_selection), rng)]
    big = load_agent(f"twos.ismcts(playouts=20,seed={2**70 + 3})", env.unwrapped)
    big.act(env.observe(env.agent_selection), np.random.default_rng(0))
    assert seeds.seed64(5) == np.uint64(5) and seeds.seed64(2**64) != seeds.seed64(2**64 + 1)
    agents = f"twos.pimc(playouts=10,seed={2**64}),random,random"
    assert main(["arena", "twos", "--agents", agents, "--games", "1", "--no-progress", "--seed", str(2**64)]) == 0
    assert f"twos.pimc(playouts=10,seed={2**64})" in capsys.readouterr().out


# ---------------------------------------------------------------- rollout horizons
@njit
def _horizon_of(state, params):
    return kernels.horizon(state, 0, params)


@njit
def _horizon_value_of(state, params, out):
    kernels.horizon_value(state, 0, params, out)


def _two_way_street_mid_hand(players=4, seed=3, steps=30):
    env = cardenvs.make("two_way_street", players=players)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    step = 0
    while True:  # ``steps`` random moves, then on to a seat with a choice
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        if step >= steps and len(legal) > 1:
            return env.unwrapped
        env.step(int(rng.choice(legal)))
        step += 1


def test_two_way_street_horizon_value_is_hand_counted():
    """4 seats, target 20: one seat on 20 and the others on 0 is the outcome itself (+1, -1/3 each); totals
    10, 5, 5, 0 (mean 5) are worth 4 / (3 * 20) = 1/15 a point above the mean."""
    base = cardenvs.make("two_way_street").unwrapped
    base.reset(seed=0)
    state = base.states.copy()
    out = np.zeros(4)
    for totals, expected in (([20, 0, 0, 0], [1, -1 / 3, -1 / 3, -1 / 3]), ([10, 5, 5, 0], [1 / 3, 0, 0, -1 / 3])):
        state[0]["totals"][:4] = totals
        _horizon_value_of(state, base.params, out)
        assert out == pytest.approx(expected)
        assert out.sum() == pytest.approx(0.0)


def test_rollouts_stop_at_the_end_of_the_hand_unless_to_end():
    base = _two_way_street_mid_hand()
    n = base.num_players
    start = base.states.copy()
    mark = int(_horizon_of(start, base.params))
    assert mark == start[0]["hand_no"]
    sim, result = start.copy(), np.zeros(n)
    value = search.rollout_value(sim, base.params, 0, 0, stream(np.uint64(7), 1), result, mark)
    s = sim[0]
    assert s["hand_no"] == mark + 1 and not s["over"]  # stopped at the first position of the next hand
    assert (s["direction"][:n] == -1).all() and s["trick_no"] == 0  # nobody has declared or played in it
    expected = n / ((n - 1) * 20) * (s["totals"][:n] - s["totals"][:n].mean())
    assert result == pytest.approx(expected) and value == pytest.approx(expected[0])
    sim = start.copy()
    search.rollout_value(sim, base.params, 0, 0, stream(np.uint64(7), 1), result, -1)  # to the end
    assert sim[0]["over"] and sim[0]["hand_no"] > mark + 1
    assert result.sum() == pytest.approx(0) and result.max() > 0  # the match's outcome: someone won


def _guandan_mid_hand(seed=5, steps=12, **options):
    env = cardenvs.make("guandan", **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    return env.unwrapped


def test_guandan_match_rollouts_stop_at_the_end_of_the_hand():
    """In a match a rollout stops at the first position of the next hand, scored as the hand it played: +1 to
    the team that won it, -1 to the other (a match's first hand, at 2 against 2, never ends the match); to the
    end it plays hands after it. A single hand declares no horizon."""
    base = _guandan_mid_hand(episode="match")
    start = base.states.copy()
    mark = int(_horizon_of(start, base.params))
    assert mark == start[0]["hands_played"] == 0
    sim, result = start.copy(), np.zeros(4)
    seat = int(start[0]["to_move"])
    value = search.rollout_value(sim, base.params, seat, 0, stream(np.uint64(7), 1), result, mark)
    s = sim[0]
    assert s["hands_played"] == 1 and s["status"] == kernels.RUNNING
    expected = [1.0 if q % 2 == s["hand_winner"] else -1.0 for q in range(4)]
    assert list(result) == expected and value == expected[seat]
    sim = start.copy()
    search.rollout_value(sim, base.params, seat, 0, stream(np.uint64(7), 1), result, -1)  # to the end
    assert sim[0]["hands_played"] > 1
    hand = _guandan_mid_hand()
    assert _horizon_of(hand.states, hand.params) == -1


def test_games_without_a_horizon_roll_out_to_the_end():
    base = cardenvs.make("twos").unwrapped
    base.reset(seed=0)
    assert _horizon_of(base.states, base.params) == -1


@pytest.mark.parametrize("method", ["pimc", "ismcts"])
def test_to_end_changes_the_search_only_where_a_horizon_is(method):
    """Twos has no horizon: ``to_end`` leaves its search as it was. Two Way Street's search differs with it:
    its values are match outcomes (-1/3 or 1 for the seat, with 4 seats) instead of standings."""
    env = cardenvs.make("twos")
    env.reset(seed=2)
    a, b = (load_agent(f"twos.{method}(playouts=60,to_end={t})", env) for t in ("false", "true"))
    ra, rb = a.search(5), b.search(5)
    assert ra.action == rb.action and np.array_equal(ra.values, rb.values)
    base = _two_way_street_mid_hand()
    near = load_agent("two_way_street.pimc(playouts=40)", base).search(5)
    far = load_agent("two_way_street.pimc(playouts=40,to_end=true)", base).search(5)
    assert not np.array_equal(near.values, far.values)
    assert np.all(np.abs(near.values) < 1)  # standings a few points apart
    assert np.array_equal(near.actions, far.actions)


def test_to_end_is_checked():
    env = cardenvs.make("two_way_street").unwrapped
    with pytest.raises(ValueError, match="to_end='maybe'; expected true or false"):
        load_agent("two_way_street.pimc(to_end=maybe)", env)
