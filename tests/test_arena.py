"""The arena: duplicate deals, intervals, ratings, workers, round robin, plots, Dou Dizhu's roles."""

import importlib
import math
import warnings
from collections import defaultdict

import numpy as np
import pytest

import cardenvs
from cardenvs.agent import RandomAgent, known_agents, load_agent
from cardenvs.arena import Z95, Results, check_output_path, mean_ci, plan_tournament, run_tournament, seatings

# every heuristic the README names, with its game: all must load (a missing one is a failure, not a skip)
HEURISTICS = [
    ("twenty_v0", "twenty.greedy"),
    ("twos_v0", "twos.heuristic"),
    ("doudizhu_v0", "doudizhu.rule"),
    ("two_way_street_v0", "two_way_street.heuristic"),
]


def test_seatings():
    assert seatings(2, True) == [(0, 1), (1, 0)]
    assert len(seatings(3, True)) == 6 and len(set(seatings(3, True))) == 6
    assert seatings(4, True) == [(0, 1, 2, 3), (1, 2, 3, 0), (2, 3, 0, 1), (3, 0, 1, 2)]
    assert seatings(4, False) == [(0, 1, 2, 3)]


def test_mean_ci():
    m, lo, hi = mean_ci([0, 1] * 50)
    assert m == 0.5 and lo == pytest.approx(0.5 - 1.96 * np.std([0, 1] * 50, ddof=1) / 10, rel=1e-3)
    assert hi - m == pytest.approx(m - lo)


def test_duplicate_replays_the_same_deal_in_every_seating():
    results = run_tournament("war", ["random", "random"], 5, seed=2)
    assert len(results.records) == 10
    for deal in range(5):
        a, b = [r for r in results.records if r.deal == deal]
        assert a.seats == list(reversed(b.seats))
        assert a.scores == b.scores  # War has no choices: the same deal plays out the same way
    st = results.stats()
    assert st["random#1"]["win_rate"] == st["random#2"]["win_rate"]  # luck of the deal cancels exactly


def test_identical_agents_share_wins_equally():
    """Twos has exactly one winner a game, so three identical agents' win rates sum to 1; each interval is
    the mean over duplicate sets (deals) +- 1.96 standard errors of the per-deal win shares, and holds 1/3."""
    n = 3
    results = run_tournament("twos_v0", ["random"] * n, 40, seed=5)
    stats = results.stats()
    assert sum(st["win_rate"] for st in stats.values()) == pytest.approx(1.0)
    for label, st in stats.items():
        per_deal = defaultdict(list)
        for r in results.records:
            per_deal[r.deal].append(1.0 if r.outcome[r.seats.index(label)] > 0 else 0.0)
        shares = [np.mean(v) for v in per_deal.values()]
        assert st["units"] == 40 and st["games"] == 40 * 6
        assert st["win_rate"] == pytest.approx(np.mean(shares))
        half = Z95 * np.std(shares, ddof=1) / math.sqrt(len(shares))
        lo, hi = st["win_rate_ci"]
        assert half > 0 and lo == pytest.approx(st["win_rate"] - half) and hi == pytest.approx(st["win_rate"] + half)
        assert lo < 1 / n < hi, st


def test_every_heuristic_is_known():
    names = known_agents()
    for env_id, heuristic in HEURISTICS + [("twenty_v0", "twenty.solver"), ("war_v0", "war.flip")]:
        assert heuristic in names
        assert heuristic in known_agents(env_id)
        assert load_agent(heuristic, cardenvs.make(env_id).unwrapped) is not None


def test_heuristic_names_come_from_the_games_policies():
    """Every numba policy of every game is an agent GAME.NAME, the generic PolicyAgent, listed once."""
    from cardenvs.agent import PolicyAgent, policy_agent_names
    from cardenvs.registry import env_ids, spec_of

    want = [name for e in env_ids() for name in spec_of(e).policy_agents()]
    assert sorted(policy_agent_names()) == sorted(want) and "war.flip" in want
    assert all(known_agents().count(name) == 1 for name in want)
    for name in want:
        env = cardenvs.make(name.split(".")[0]).unwrapped
        agent = load_agent(name, env)
        assert isinstance(agent, PolicyAgent) and agent.name == name


def test_war_flip_plays_in_the_arena():
    """war.flip (the numba policy, through the generic agent) plays whole games in the arena and, having
    no choice to make, plays them exactly as random does on the same deals."""
    flip = run_tournament("war", ["war.flip", "random"], 4, seed=3)
    rand = run_tournament("war", ["random", "random"], 4, seed=3)
    assert flip.stats()["war.flip"]["games"] == 8
    assert [r.scores for r in flip.records] == [r.scores for r in rand.records]


def test_a_broken_agents_package_is_an_error_not_an_empty_list(monkeypatch):
    """cardenvs.agents is part of the package: when it fails to import, the error shows (no silent empty list)."""
    real = importlib.import_module

    def broken(name, *args, **kwargs):
        if name == "cardenvs.agents":
            raise ModuleNotFoundError("No module named 'numpy_extra'", name="numpy_extra")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(importlib, "import_module", broken)
    with pytest.raises(ModuleNotFoundError, match="numpy_extra"):
        known_agents()


@pytest.mark.parametrize("env_id,heuristic", HEURISTICS)
def test_skewed_tournament_ranks_heuristic_first(env_id, heuristic):
    n = cardenvs.make(env_id).unwrapped.num_players
    results = run_tournament(env_id, [heuristic] + ["random"] * (n - 1), 30, seed=1)
    stats = results.stats()
    assert stats[heuristic]["win_rate"] > max(s["win_rate"] for k, s in stats.items() if k != heuristic)
    ratings = results.ratings()
    assert ratings[heuristic]["mu"] == max(r["mu"] for r in ratings.values())
    h2h = results.head_to_head()
    assert all(h2h[heuristic][other]["beat_rate"] > 0.5 for other in h2h[heuristic])


def test_workers_reproduce_a_single_worker():
    one = run_tournament("twenty_v0", ["random"] * 2, 8, seed=11, workers=1)
    two = run_tournament("twenty_v0", ["random"] * 2, 8, seed=11, workers=2)
    assert [r.__dict__ for r in one.records] == [r.__dict__ for r in two.records]


def test_round_robin_plays_every_table(tmp_path):
    results = run_tournament(
        "war", ["random", "random", "random"], 3, seed=0, round_robin=True, options={"single_pass": True}
    )
    assert {r.table for r in results.records} == {0, 1, 2}
    assert all(st["games"] == 12 for st in results.stats().values())  # 2 tables x 3 deals x 2 seatings
    results.plot(str(tmp_path / "p.png"))
    assert (tmp_path / "p.png").stat().st_size > 1000
    again = Results.from_dict(results.to_dict())
    assert again.stats() == results.stats()


class NotAnAgent:
    def __init__(self, env):
        self.env = env


class NoEnv:
    def __init__(self):
        pass


def test_agents_by_name_and_errors():
    env = cardenvs.make("war").unwrapped
    assert isinstance(load_agent("random", env), RandomAgent)
    assert isinstance(load_agent("cardenvs.agent:RandomAgent", env), RandomAgent)
    with pytest.raises(
        ValueError,
        match="unknown agent 'nope'; known agents for war: random, war.flip, or danzero:PATH, dmc:PATH, douzero:PATH, "
        "ppo:PATH",
    ):
        load_agent("nope", env)
    with pytest.raises(ValueError, match="cannot load agent 'no.such.module:Thing': No module named 'no'"):
        load_agent("no.such.module:Thing", env)
    # a kind no installed package registers (as in a copy of the source that was never pip-installed)
    with pytest.raises(ValueError, match="'nokind' is neither an agent kind \\(danzero:PATH, dmc:PATH, .*\\) nor"):
        load_agent("nokind:runs/model.pt", env)
    with pytest.raises(ValueError, match="os:path is a module, not a class"):
        load_agent("os:path", env)
    with pytest.raises(ValueError, match="os:getcwd is a builtin_function_or_method, not a class"):
        load_agent("os:getcwd", env)
    with pytest.raises(ValueError, match="NoEnv\\(env\\) does not take the env"):
        load_agent("test_arena:NoEnv", env)
    with pytest.raises(ValueError, match="NotAnAgent is not an agent"):
        load_agent("test_arena:NotAnAgent", env)
    with pytest.raises(ValueError, match="write module:Class"):
        load_agent(":RandomAgent", env)


def test_an_agent_of_another_game_is_refused_up_front():
    twos = cardenvs.make("twos").unwrapped
    with pytest.raises(
        ValueError, match="agent 'twenty.greedy' plays twenty, not twos; agents for twos: random, twos.heuristic"
    ):
        load_agent("twenty.greedy", twos)
    with pytest.raises(ValueError, match="plays twenty, not twos"):
        plan_tournament("twos", ["random", "twenty.greedy", "random"], 2)


def test_tournament_arguments_are_checked_before_playing():
    with pytest.raises(ValueError, match="games must be an integer >= 1, got 0"):
        run_tournament("war", ["random", "random"], 0)
    with pytest.raises(ValueError, match="workers must be an integer >= 1, got 0"):
        run_tournament("war", ["random", "random"], 1, workers=0)
    with pytest.raises(ValueError, match="seed=-1; expected None or a non-negative integer"):
        run_tournament("war", ["random", "random"], 1, seed=-1)
    plan = plan_tournament("war", ["random", "random"], 3, seed=np.int64(4))
    assert plan.seed == 4 and plan.games_per_deal == 2


def test_output_paths_are_checked(tmp_path):
    check_output_path(str(tmp_path / "r.json"), "results", json_with_csv=True)
    with pytest.raises(ValueError, match="the folder .*missing does not exist"):
        check_output_path(str(tmp_path / "missing" / "r.json"), "results")
    with pytest.raises(ValueError, match="is a folder"):
        check_output_path(str(tmp_path), "plot")
    with pytest.raises(ValueError, match="ends in .csv"):
        check_output_path(str(tmp_path / "r.csv"), "results", json_with_csv=True)


# ---------------------------------------------------------------- Dou Dizhu: fixed landlord or bidding
def landlord_and_bid(record) -> tuple[int | None, int | None]:
    """The landlord's seat and the final bid of a Dou Dizhu record (roles: 0 landlord, 1 farmer)."""
    if record.roles is None:
        return None, None
    seat = record.roles.index(0)
    assert record.roles.count(0) == 1 and all(role == 1 for p, role in enumerate(record.roles) if p != seat)
    return seat, int(record.role_values["bid"][seat])


def test_doudizhu_duplicate_mode_fixes_the_landlord_and_reports_roles():
    results = run_tournament("doudizhu", ["doudizhu.rule", "random", "random"], 4, seed=2)
    assert {landlord_and_bid(r) for r in results.records} == {(0, 1)}
    roles = results.role_stats()
    assert all(st["landlord"] == 8 and st["landlord_share"] == pytest.approx(1 / 3) for st in roles.values())
    assert "roles (duplicate mode: player_0 is landlord at bid 1" in results.report()


def test_doudizhu_duplicate_mode_with_bidding():
    """The same deals, agents permuted over the seats, the bidding on: identical deterministic agents reach the
    same landlord seat, bid and scores in every seating of a deal, and the deals differ in who bids."""
    results = run_tournament("doudizhu", ["doudizhu.rule"] * 3, 8, seed=3, role_phase=True)
    assert results.role_phase and len(results.records) == 8 * 6
    by_deal = defaultdict(set)
    for r in results.records:
        by_deal[r.deal].add((*landlord_and_bid(r), tuple(r.scores)))
    assert all(len(v) == 1 for v in by_deal.values())
    outcomes = {next(iter(v))[:2] for v in by_deal.values()}
    assert len(outcomes) > 1 and outcomes != {(0, 1)}
    mixed = run_tournament("doudizhu", ["doudizhu.rule", "random", "random"], 10, seed=1, role_phase=True)
    roles = mixed.role_stats()
    assert sum(st["landlord"] for st in roles.values()) + roles["doudizhu.rule"]["dead"] == 10 * 6
    pairs = [landlord_and_bid(r) for r in mixed.records]
    assert {lord for lord, _ in pairs} >= {0, 1, 2} and {bid for _, bid in pairs} - {None} != {1}
    report = mixed.report()
    assert "bidding on" in report and "roles (the agents bid for the landlord)" in report
    again = Results.from_dict(mixed.to_dict())
    assert again.role_phase and again.role_stats() == roles and "roles" in mixed.to_dict()


def test_bidding_errors_and_the_override_warning():
    for duplicate in (True, False):
        with pytest.raises(ValueError, match="war_v0 has no role phase"):
            plan_tournament("war", ["random", "random"], 1, role_phase=True, duplicate=duplicate)
    with pytest.raises(ValueError, match="need the option bidding=True"):
        plan_tournament("doudizhu", ["random"] * 3, 1, options={"bidding": False}, role_phase=True)
    with pytest.warns(UserWarning, match=r"override the option bidding=True.*--role-phase \(--bidding"):
        plan_tournament("doudizhu", ["random"] * 3, 1, options={"bidding": True})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plan_tournament("doudizhu", ["random"] * 3, 1)  # the default: no option overridden by the user
        plan_tournament("doudizhu", ["random"] * 3, 1, options={"bidding": True}, role_phase=True)
        plan_tournament("doudizhu", ["random"] * 3, 1, options={"bidding": True}, duplicate=False)
