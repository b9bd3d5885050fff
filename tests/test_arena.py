"""The arena: duplicate deals, intervals, ratings, workers, round robin, plots."""
import numpy as np
import pytest

import cardenvs
from cardenvs.agent import RandomAgent, known_agents, load_agent
from cardenvs.arena import Results, mean_ci, run_tournament, seatings


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
    env_id = "twos_v0" if "twos_v0" in cardenvs.ENV_IDS else "war_v0"
    n = cardenvs.make(env_id).unwrapped.num_players
    results = run_tournament(env_id, ["random"] * n, 40, seed=5)
    for st in results.stats().values():
        lo, hi = st["win_rate_ci"]
        assert abs(st["win_rate"] - 1 / n) < 0.15, st
        assert lo < st["win_rate"] < hi or lo == hi


HEURISTICS = [(g, a) for g, a in (("twenty_v0", "twenty.greedy"), ("twos_v0", "twos.heuristic"),
                                  ("doudizhu_v0", "doudizhu.rule"),
                                  ("two_way_street_v0", "two_way_street.heuristic"))
              if g in cardenvs.ENV_IDS and a in known_agents()]


@pytest.mark.parametrize("env_id,heuristic", HEURISTICS[:2] or [pytest.param("none", "none", marks=pytest.mark.skip(
    reason="no heuristic registered yet"))])
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
    env_id = "twenty_v0" if "twenty_v0" in cardenvs.ENV_IDS else "war_v0"
    n = cardenvs.make(env_id).unwrapped.num_players
    one = run_tournament(env_id, ["random"] * n, 8, seed=11, workers=1)
    two = run_tournament(env_id, ["random"] * n, 8, seed=11, workers=2)
    assert [r.__dict__ for r in one.records] == [r.__dict__ for r in two.records]


def test_round_robin_plays_every_table(tmp_path):
    results = run_tournament("war", ["random", "random", "random"], 3, seed=0, round_robin=True,
                             options={"single_pass": True})
    assert {r.table for r in results.records} == {0, 1, 2}
    assert all(st["games"] == 12 for st in results.stats().values())  # 2 tables x 3 deals x 2 seatings
    results.plot(str(tmp_path / "p.png"))
    assert (tmp_path / "p.png").stat().st_size > 1000
    again = Results.from_dict(results.to_dict())
    assert again.stats() == results.stats()


def test_agents_by_name_and_errors():
    env = cardenvs.make("war").unwrapped
    assert isinstance(load_agent("random", env), RandomAgent)
    assert isinstance(load_agent("cardenvs.agent:RandomAgent", env), RandomAgent)
    with pytest.raises(ValueError, match="unknown agent 'nope'; known agents: random"):
        load_agent("nope", env)
    with pytest.raises(ValueError, match="cannot load agent"):
        load_agent("no.such.module:Thing", env)
    with pytest.raises(ValueError, match="games must be at least 1"):
        run_tournament("war", ["random", "random"], 0)
