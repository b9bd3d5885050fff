"""Luck-adjusted arena estimates (cardenvs.arena.luck): the estimator on hand-counted units, unbiasedness on
tables whose answer is known (War, where nothing is decided; random against random), the JSON keys, the report,
and a clear error for each bad input."""

import dataclasses
import json
import math

import numpy as np
import pytest

from cardenvs import arena
from cardenvs.arena import luck
from cardenvs.cli import main

# one column (one seat, one reset option) whose reference mean is 0.5 with variance 0.25 over 100 deals
REF = {"mean": [0.5], "cov": [[0.25]]}


def test_estimate_removes_what_the_terms_explain():
    # y = x in every unit: each half fits beta = 1 on the other half, so every adjusted unit is
    # y - (x - 0.5) = 0.5 and the units vary by nothing; the interval is the reference mean's alone:
    # beta^2 * 0.25 / 100 = 0.0025 (half width 1.96 * 0.05 = 0.098). The plain variance of the mean is
    # var([1, 0, 0, 1]) / 4 = (1/3) / 4 = 1/12, so the ratio is (1/12) / 0.0025 = 33.3.
    y = np.array([1.0, 0.0, 0.0, 1.0])
    x = np.column_stack([y, np.zeros(4)])
    out = luck.estimate(y, x, np.ones((4, 1)), REF, 100)
    assert out["mean"] == pytest.approx(0.5)
    assert out["high"] - out["mean"] == pytest.approx(luck.Z95 * 0.05)
    assert out["variance_ratio"] == pytest.approx((1 / 12) / 0.0025)


def test_estimate_reports_a_ratio_below_one_as_it_is():
    # the halves disagree: units 0 and 2 (y 0, 1; x 0, 1) fit beta = 1, applied to units 1 and 3; units 1 and 3
    # (y 0, 1; x 1, 0) fit beta = -1, applied to units 0 and 2. Adjusted, with C = 0.5:
    # unit 0: 0 + (0 - 0.5) = -0.5; unit 1: 0 - (1 - 0.5) = -0.5; unit 2: 1 + (1 - 0.5) = 1.5;
    # unit 3: 1 - (0 - 0.5) = 1.5. The mean stays 0.5 (y's mean); the adjusted units' variance is 4/3, times
    # 3/2 for the one slope fitted (4 - 1 degrees of freedom less 1), so the adjusted variance of the mean is
    # (4/3) * (3/2) / 4 = 1/2 (the reference adds 0: the betas average to 0), the plain one (1/3) / 4 = 1/12:
    # the ratio is 1/6, reported, not swapped for the plain estimate.
    y = np.array([0.0, 0.0, 1.0, 1.0])
    x = np.column_stack([[0.0, 1.0, 1.0, 0.0], np.zeros(4)])
    out = luck.estimate(y, x, np.ones((4, 1)), REF, 100)
    assert out["mean"] == pytest.approx(0.5)
    assert out["variance_ratio"] == pytest.approx(1 / 6)


def test_war_duplicate_leaves_the_mean_exactly():
    """War decides nothing and its duplicate sets swap the two seats over the same cards: each set's win share
    is 1/2 and the deal term of a set (both seats' f) is the same in every set, so no term can move it."""
    res = arena.run_tournament("war_v0", ["war.flip", "random"], 12, seed=3, luck_adjusted=True, luck_reference=50)
    data = res.to_dict()
    for label in res.agents:
        plain, adjusted = data["stats"][label], data["stats"][label]["adjusted"]
        assert adjusted["win_rate"]["mean"] == plain["win_rate"] == 0.5
    margin = data["head_to_head"]["war.flip"]["random"]
    assert margin["adjusted"]["score_margin"]["mean"] == margin["score_margin"] == 0.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_war_without_duplicates_covers_the_truth(seed):
    """One seating per deal: the plain win rate is all luck; War is deterministic, so f (the rollout from the deal)
    is the result itself and the adjusted estimate is the reference deals' answer, 1/2 by symmetry, covered."""
    res = arena.run_tournament(
        "war_v0", ["war.flip", "random"], 16, seed=seed, duplicate=False, luck_adjusted=True, luck_reference=60
    )
    stats = res.to_dict()["stats"]
    for label in res.agents:
        plain, adjusted = stats[label], stats[label]["adjusted"]["win_rate"]
        assert adjusted["low"] <= 0.5 <= adjusted["high"]
        assert plain["win_rate_ci"][0] <= adjusted["mean"] <= plain["win_rate_ci"][1]
        assert math.isfinite(adjusted["variance_ratio"]) and adjusted["variance_ratio"] > 1


def test_random_against_itself_on_the_aec_engine(tmp_path):
    """Twenty, random against random: decision terms at every move (the aec engine records them); the true
    margin is 0 (the same agent), the adjusted one lies within the plain interval and covers 0 over seeds; the
    JSON carries the adjusted objects and each game's terms, and survives a save and load."""
    for seed in (0, 1):
        res = arena.run_tournament("twenty_v0", ["random", "random"], 16, seed=seed, luck_adjusted=True)
        assert any(any(r.luck["play_score"]) for r in res.records)  # the random moves got terms
        margin = res.to_dict()["head_to_head"]["random#1"]["random#2"]
        adjusted = margin["adjusted"]["score_margin"]
        assert adjusted["low"] <= 0.0 <= adjusted["high"]
        assert margin["score_margin_ci"][0] <= adjusted["mean"] <= margin["score_margin_ci"][1]
        assert math.isfinite(adjusted["variance_ratio"])
    path = tmp_path / "r.json"
    res.save(str(path))
    data = json.loads(path.read_text())
    for key in ("win_rate", "mean_score"):
        assert set(data["stats"]["random#1"]["adjusted"][key]) == {"mean", "low", "high", "variance_ratio"}
    assert set(data["luck"]) >= {"value", "deals", "win", "score"}
    assert set(data["records"][0]["luck"]) == {
        "options",
        "deal_win",
        "deal_score",
        "deal_outcome",
        "play_win",
        "play_score",
    }
    again = arena.Results.load(str(path))
    assert again.to_dict()["stats"] == data["stats"]
    assert "variance ratio" in again.report()


def test_without_the_flag_nothing_is_added():
    data = arena.run_tournament("war_v0", ["war.flip", "random"], 2, seed=0).to_dict()
    assert "luck" not in data and "luck" not in data["records"][0]
    assert "adjusted" not in data["stats"]["war.flip"]


def test_bad_input():
    with pytest.raises(ValueError, match="give luck_adjusted"):
        arena.plan_tournament("war_v0", ["war.flip", "random"], 2, luck_reference=20)
    with pytest.raises(ValueError, match="luck_reference must be an integer >= 2"):
        arena.plan_tournament("war_v0", ["war.flip", "random"], 2, luck_adjusted=True, luck_reference=1)
    with pytest.raises(ValueError, match="aec engine"):
        arena.plan_tournament("twenty_v0", ["random", "random"], 2, luck_adjusted=True, engine="vector")


def test_a_deal_file_is_refused(tmp_path):
    deals = tmp_path / "deals.json"
    with pytest.raises(ValueError, match="not drawn from the game's dealing"):
        arena.plan_tournament("war_v0", ["war.flip", "random"], 2, save_deals=str(deals), luck_adjusted=True)


def test_a_game_without_a_value_function_is_refused(monkeypatch):
    spec = dataclasses.replace(luck.spec_of("war_v0"), luck_value=None)
    monkeypatch.setattr(luck, "spec_of", lambda env_id: spec)
    with pytest.raises(ValueError, match="declares no value function"):
        arena.plan_tournament("war_v0", ["war.flip", "random"], 2, luck_adjusted=True)


def test_cli_errors_without_traceback(capsys):
    assert main(["arena", "war", "--agents", "war.flip,random", "--luck-reference", "20"]) == 2
    assert "--luck-reference is a setting of --luck-adjusted: give --luck-adjusted too" in capsys.readouterr().err
    assert main(["arena", "war", "--agents", "war.flip,random", "--luck-value", "flip"]) == 2
    assert "--luck-value is a setting of --luck-adjusted" in capsys.readouterr().err
    assert main(["arena", "war", "--agents", "war.flip,random", "--luck-adjusted", "--luck-value", "nope"]) == 2
    assert "luck_value 'nope': neither a numba policy of war (flip)" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["arena", "war", "--agents", "war.flip,random", "--luck-adjusted", "--luck-reference", "1"])
    assert exc.value.code == 2
    assert "argument --luck-reference: expected an integer >= 2" in capsys.readouterr().err


def test_cli_prints_the_adjusted_section(capsys):
    assert (
        main(["arena", "war", "--agents", "war.flip,random", "--games", "4", "--luck-adjusted", "--no-progress"]) == 0
    )
    out = capsys.readouterr().out
    assert "luck-adjusted (value function: war.flip self-play" in out and "variance ratio" in out


def test_ladder_rating_less_what_the_deal_terms_explain():
    """Hand-built counts against one anchor rated 0: 40 deals, one meeting each; the agent is ahead exactly
    when the deal term says so (terms +1/2 and -1/2, beat 1 and 0 alternating in pairs so both halves see
    both). Each half's slope is 1, so every adjusted count is 1/2: the rating is the anchor's, 0, and the
    bootstrap interval collapses to a point while the plain one does not."""
    from cardenvs.analysis import grading

    beat = np.array([[1.0], [1.0], [0.0], [0.0]] * 10)
    terms = beat - 0.5
    met = np.ones_like(beat)
    weights = grading.resample_weights(40, 200, np.random.default_rng(0))
    ratings = np.zeros(1)
    plain = np.percentile(grading.fit_rating(weights @ beat, weights @ met, ratings), [2.5, 97.5])
    adjusted = grading._adjusted_rating(beat, met, terms, weights, ratings, float(plain[1] - plain[0]))
    assert adjusted["mean"] == 0.0 and adjusted["low"] == 0.0 and adjusted["high"] == 0.0
    assert plain[1] - plain[0] > 50  # the plain interval is wide: half the deals won, half lost
    assert math.isnan(adjusted["variance_ratio"])  # the adjusted width is 0: no finite ratio to report


def test_ladder_reference_refuses_the_flag(capsys):
    assert main(["ladder", "war", "--reference", "--luck-adjusted"]) == 2
    assert "--luck-adjusted places an agent" in capsys.readouterr().err


# ---------------------------------------------------------------- value functions and sampled distributions
def _deal_position(env_id: str, seed: int, deal: int):
    from cardenvs.registry import make

    base = make(env_id).unwrapped
    base.reset(seed=arena.game_seed(seed, deal))
    _, states, params, _ = base.core_state()
    return base, states[:1].copy(), params


@pytest.mark.parametrize("name", ["doudizhu.rule", "doudizhu.dmc"])
def test_value_function_is_its_players_self_play(name):
    """f after a deal is the game that player (the numba rule agent, or the shipped model's greedy moves, both
    draw nothing) plays in every seat from that deal: the arena's record of the same deal, seat for seat."""
    from cardenvs.arena.values import load_value

    res = arena.run_tournament("doudizhu_v0", [name] * 3, 3, seed=5, duplicate=False)
    for r in res.records:
        base, position, params = _deal_position("doudizhu_v0", 5, r.deal)
        value = load_value(base, name)
        assert value.kind == ("model" if name.endswith("dmc") else "policy")
        wins, scores, outcome = value(position, params, np.zeros(1, dtype=np.uint64))
        assert scores[0].tolist() == r.scores
        assert outcome[0].tolist() == r.outcome
        assert wins[0].tolist() == [1.0 if o > 0 else 0.0 for o in r.outcome]


def test_a_search_against_itself_gets_sampled_terms():
    """Twos, one PIMC against itself (the true margin is 0): PIMC declares ``stateless``, so each of its moves
    gets the term f(s, a) - mean_j f(s, a_j) over resamples from the luck_samples stream; the terms exist,
    the run replays exactly, and the adjusted margin covers 0 with a finite variance ratio."""
    agents = ["twos.pimc(playouts=12)", "twos.pimc(playouts=12)", "twos.heuristic"]
    kwargs = dict(seed=2, luck_adjusted=True, luck_samples=2, luck_reference=40)
    res = arena.run_tournament("twos_v0", agents, 6, **kwargs)
    assert any(any(r.luck["play_score"]) for r in res.records)
    margin = res.to_dict()["head_to_head"]["twos.pimc(playouts=12)#1"]["twos.pimc(playouts=12)#2"]
    adjusted = margin["adjusted"]["score_margin"]
    assert adjusted["low"] <= 0.0 <= adjusted["high"]
    assert math.isfinite(adjusted["variance_ratio"])
    again = arena.run_tournament("twos_v0", agents, 6, **kwargs)
    assert [r.luck for r in again.records] == [r.luck for r in res.records]
    # the resamples draw from their own stream: the games are those of the plain tournament
    plain = arena.run_tournament("twos_v0", agents, 6, seed=2)
    assert [r.scores for r in plain.records] == [r.scores for r in res.records]
    # --luck-samples 0: the search's moves get no term
    unsampled = arena.run_tournament("twos_v0", agents, 6, **{**kwargs, "luck_samples": 0})
    assert not any(any(r.luck["play_score"]) for r in unsampled.records)


def test_sampled_terms_have_mean_zero_at_a_position():
    """At one Twos position, the sampled term of a PIMC move, averaged over many independent decisions (the
    taken move drawn like the resamples), is 0 within its interval: f(s, a) and mean_j f(s, a_j) have the same
    mean when a and the a_j are draws of the same search."""
    from cardenvs.agent import load_agent
    from cardenvs.arena.luck import DecisionTerms
    from cardenvs.arena.values import load_value

    base, _, _ = _deal_position("twos_v0", 0, 0)
    agent = load_agent("twos.pimc(playouts=6)", base)
    value = load_value(base, "heuristic")
    observation = base.observe(base.agent_selection)
    sums = []
    for t in range(60):
        terms = DecisionTerms(value, base.num_players, seed=1000 + t, samples=1)
        action = agent.act(observation, np.random.default_rng(t))
        terms.decision(base, agent, observation, action)
        sums.append(terms.scores.copy())
    sums = np.array(sums)  # [decisions, seats]
    assert (sums != 0).sum() >= 20  # the search's moves differ, and so do the rollouts after them
    for seat in range(base.num_players):
        half = luck.Z95 * sums[:, seat].std(ddof=1) / math.sqrt(len(sums))
        assert abs(sums[:, seat].mean()) <= max(half, 1e-12)


def test_bad_value_functions_and_samples_are_refused():
    with pytest.raises(ValueError, match="does not score moves"):
        arena.plan_tournament("twenty_v0", ["random", "random"], 2, luck_adjusted=True, luck_value="random")
    with pytest.raises(ValueError, match="neither a numba policy of twenty"):
        arena.plan_tournament("twenty_v0", ["random", "random"], 2, luck_adjusted=True, luck_value="twos.heuristic")
    with pytest.raises(ValueError, match="luck_samples must be an integer >= 0"):
        arena.plan_tournament("twenty_v0", ["random", "random"], 2, luck_adjusted=True, luck_samples=-1)
    with pytest.raises(ValueError, match="give luck_adjusted"):
        arena.plan_tournament("twenty_v0", ["random", "random"], 2, luck_samples=2)


def test_decision_rollouts_seat_the_table_where_they_can():
    """The decision terms' rollouts play random seats randomly and heuristic seats with their own heuristic
    (the kernels' kinds: 1 random, 2 + k policy k); other agents (a search) play the value function's policy;
    a model's value function plays every seat itself. Rollouts that seat random play are averaged over
    ``rollouts`` repeats, the others are not repeated (a heuristic's rollout draws nothing to average)."""
    from cardenvs.agent import load_agent
    from cardenvs.arena.luck import DecisionTerms, rollout_seats
    from cardenvs.arena.values import load_value
    from cardenvs.registry import make

    base = make("doudizhu_v0").unwrapped
    names = list(base.policy_names())
    agents = [load_agent(n, base) for n in ("random", "doudizhu.rule", "doudizhu.pimc(playouts=5)")]
    rule = load_value(base, "rule")
    assert rollout_seats(rule, agents).tolist() == [1, 2 + names.index("rule"), 2 + rule.index]
    assert rollout_seats(load_value(base, "doudizhu.dmc"), agents) is None
    assert DecisionTerms(rule, 3, 0, seats=rollout_seats(rule, agents), rollouts=16).repeats == 16
    assert DecisionTerms(rule, 3, 0, seats=rollout_seats(rule, agents[1:] * 2)[:3], rollouts=16).repeats == 1


def test_the_pages_coverage_figures_are_the_committed_runs():
    """docs/luck-adjusted.md's coverage figures are those of the JSON each run wrote (issue 53, item 10):
    the command, the interval counts and the variance ratios' median and range."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    page = " ".join((root / "docs" / "luck-adjusted.md").read_text().split())
    runs = sorted((root / "docs" / "study" / "luck").glob("coverage-*.json"))
    assert len(runs) == 3
    for path in runs:
        run = json.loads(path.read_text())
        seeds = run["seeds"][1] - run["seeds"][0] + 1
        assert len(run["per_seed"]) == seeds
        covered = {k: sum(r[k][1] <= 0.0 <= r[k][2] for r in run["per_seed"]) for k in ("plain", "adjusted")}
        assert covered == run["covered"]
        assert (
            f"covers 0 in {covered['plain']}/{seeds} plain and {covered['adjusted']}/{seeds} adjusted"
            in page.replace("covers the true 0", "covers 0").replace("tournaments plain", "plain")
        )
        ratio = run["variance_ratio"]
        assert f"{ratio['median']:.2f} ({ratio['min']:.2f} to {ratio['max']:.2f})" in page
        flag = f"--coverage-deals {run['deals_per_seed']}"
        assert flag in page
