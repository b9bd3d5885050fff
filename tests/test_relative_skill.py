"""Relative skill in ``cardenvs analyze skill`` (:mod:`cardenvs.analysis.skill.relative`) and its all-seeing
players (``GAME.pimc(oracle=true)``, ``twenty.oracle``)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from cardenvs import make
from cardenvs.agent import known_agents, load_agent
from cardenvs.analysis.skill import relative
from cardenvs.arena import GameRecord
from cardenvs.cli import main
from cardenvs.core.cards import card_code
from cardenvs.core.rng import stream
from cardenvs.core.seeds import seed64
from cardenvs.games.twenty.solver import solve_round
from cardenvs.registry import spec_of
from cardenvs.search import pimc, rollout_value, root_moves, seat_to_move


def test_relative_skill_of_a_hand_built_case():
    # per-deal results of the three players against the field, four deals:
    # beginner -1, -1, 0, -1 (mean -0.75); best 0, 1, 0, 0 (mean 0.25); fictive 1, 1, 1, 0 (mean 0.75)
    # learning effect 0.25 - (-0.75) = 1.0, chance effect 0.75 - 0.25 = 0.5, RS = 1.0 / (1.0 + 0.5) = 2/3
    results = np.array([[-1, -1, 0, -1], [0, 1, 0, 0], [1, 1, 1, 0]], dtype=float)
    out = relative.measure_relative(results, 200, np.random.default_rng(0))
    assert out["value"] == pytest.approx(2 / 3, abs=1e-6)
    assert out["learning_effect"]["value"] == pytest.approx(1.0)
    assert out["chance_effect"]["value"] == pytest.approx(0.5)
    assert [out["results"][r]["value"] for r in relative.PLAYERS] == [-0.75, 0.25, 0.75]
    lo, hi = out["ci"]
    assert 0 <= lo <= 2 / 3 <= hi <= 1


def test_degenerate_cases():
    # both effects 0: nothing separates the players (War, roulette): 0; an effect below 0 counts as 0
    assert relative.relative_skill(np.array([0.0]), np.array([0.0]))[0] == 0.0
    assert relative.relative_skill(np.array([-0.1]), np.array([0.2]))[0] == 0.0  # best below the beginner
    assert relative.relative_skill(np.array([0.3]), np.array([-0.1]))[0] == 1.0  # fictive below the best
    assert relative.relative_skill(np.array([-0.3]), np.array([-0.1]))[0] == 0.0
    assert relative.relative_skill(np.array([0.1]), np.array([0.3]))[0] == pytest.approx(0.25)  # 0.1 / 0.4
    with pytest.raises(ValueError, match=r"results must be \[3, deals\]"):
        relative.measure_relative(np.zeros((2, 5)), 10, np.random.default_rng(0))


def test_player_results_follow_the_measured_label():
    # deal 0: "x" in seat 0 (outcome 1) then seat 1 (outcome -1): mean 0; deal 1: 1 and 0: mean 0.5
    records = [
        GameRecord(0, 0, 0, ["x", "f#1"], [0, 0], [0, 0], [1.0, -1.0]),
        GameRecord(0, 1, 0, ["f#1", "x"], [0, 0], [0, 0], [1.0, -1.0]),
        GameRecord(1, 0, 0, ["x", "f#1"], [0, 0], [0, 0], [1.0, -1.0]),
        GameRecord(1, 1, 0, ["f#1", "x"], [0, 0], [0, 0], [0.0, 0.0]),
    ]
    assert relative.player_results(records, "x", 2).tolist() == [0.0, 0.5]
    with pytest.raises(ValueError, match="deal 2 has no game of x"):
        relative.player_results(records, "x", 3)


def test_war_comes_out_at_exactly_zero(tmp_path, capsys):
    argv = ["analyze", "skill", "war", "--relative-only", "--games", "4", "--bootstrap", "20"]
    assert main([*argv, "--out", str(tmp_path), "--no-progress"]) == 0
    table = capsys.readouterr().out
    assert "relative skill 0.000 [0.000, 0.000]" in table
    entry = json.loads((tmp_path / "war_v0.json").read_text())["variants"][0]["relative skill"]
    assert entry["value"] == 0.0 and entry["ci"] == [0.0, 0.0]
    assert entry["learning_effect"]["value"] == 0.0 and entry["chance_effect"]["value"] == 0.0
    # each plan: 4 deals x 2 seatings = 8 games; three plans
    assert entry["games"] == 24 and entry["field"] == "war.flip"


def test_beside_the_skill_share(tmp_path, capsys):
    argv = ["analyze", "skill", "war", "--relative-skill", "--games", "3", "--bootstrap", "20"]
    assert main([*argv, "--out", str(tmp_path), "--no-progress"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].lstrip().startswith("skill share") and lines[2].lstrip().startswith("relative skill")
    variant = json.loads((tmp_path / "war_v0.json").read_text())["variants"][0]
    assert "skill_share" in variant and variant["relative skill"]["value"] == 0.0


def test_every_game_declares_its_players():
    for env_id in ("war_v0", "twenty_v0", "twos_v0", "doudizhu_v0", "two_way_street_v0", "guandan_v0"):
        players = spec_of(env_id).relative_skill
        assert players is not None and len(set(players.names()[:3])) >= 2, env_id


def test_the_oracle_searches_the_true_state():
    env = make("twos_v0")
    env.reset(seed=5)
    base = env.unwrapped
    _, states, params, _ = base.core_state()
    seed, playouts = 11, 60
    moves = np.zeros(base.num_actions, dtype=np.int64)
    moves = moves[: root_moves(states, 0, params, moves)]
    seat = int(seat_to_move(states, 0, params))
    common = dict(num_actions=int(base.num_actions), num_players=int(base.num_players), playouts=playouts, seed=seed)
    seen = pimc(states, 0, params, oracle=True, **common)
    # by hand: every deal is the true state; deal d rolls out each move with stream 2d + 1 of the search seed
    seed_u = seed64(seed, "search")
    deals = max(1, playouts // len(moves))
    result = np.zeros(base.num_players)
    expected = np.zeros((deals, len(moves)))
    for d in range(deals):
        for i, move in enumerate(moves):
            sim = states[:1].copy()
            base.numba_core().apply(sim, 0, params, move)
            expected[d, i] = rollout_value(sim, params, seat, 0, stream(seed_u, 2 * d + 1), result, -1)
    np.testing.assert_allclose(seen.values, expected.mean(axis=0))
    # only when asked: the plain search re-deals the hidden hands, so its values differ
    plain = pimc(states, 0, params, **common)
    assert not np.allclose(plain.values, seen.values)
    assert (states == base.core_state().states).all()  # the search wrote nothing


def test_oracle_agents_say_so_and_are_refused_from_outside():
    env = make("twos_v0")
    env.reset(seed=0)
    assert load_agent("twos.pimc(oracle=true,playouts=20)", env).oracle
    assert not load_agent("twos.pimc(playouts=20)", env).oracle
    with pytest.raises(ValueError, match="not for names from outside"):
        load_agent("twos.pimc(oracle=true)", env, registered_only=True)
    twenty = make("twenty_v0")
    twenty.reset(seed=0)
    with pytest.raises(ValueError, match="not for names from outside"):
        load_agent("twenty.oracle", twenty, registered_only=True)
    # the web app's list leaves it out; cardenvs list keeps it
    assert "twenty.oracle" in known_agents("twenty") and "twenty.oracle" not in known_agents("twenty", cheating=False)
    assert "twenty.solver" in known_agents("twenty", cheating=False)


@pytest.mark.parametrize(
    "name, message",
    [
        ("twos.pimc(oracle=maybe)", "expected true or false"),
        ("twos.pimc(oracle=true,counting=false)", "no counting=false"),
        ("twos.ismcts(oracle=true)", "unknown parameter 'oracle'"),
    ],
)
def test_bad_oracle_options(name, message):
    env = make("twos_v0")
    env.reset(seed=0)
    with pytest.raises(ValueError, match=message):
        load_agent(name, env)


TWENTY_VALUE = {c: 1 if c == "A" else 10 if c in "TJQK" else int(c) for c in "A23456789TJQK"}


def _value_counts(codes) -> np.ndarray:
    out = np.zeros(10, dtype=np.int64)
    for code in codes:
        out[TWENTY_VALUE[code[0]] - 1] += 1
    return out


def test_twenty_oracle_plays_the_solver_on_the_true_cards():
    # two stacked decks that differ only in player_1's first two hands (exchanged): player_0's first
    # observation is the same, so a player reading it (twenty.solver) values both alike, while the oracle must
    # value each as solve_round does with the cards the deck dealt, counted here from the deck itself; then the
    # whole first hand is played by the oracle, each of its values checked against the solver on the true cards
    # still held (the opponent's remaining cards: its dealt hand less what it played)
    rng = np.random.default_rng(7)
    deck = [card_code(int(c)) for c in rng.permutation(52)]
    swapped = deck[:7] + deck[17:22] + deck[12:17] + deck[7:12] + deck[22:]
    round_two = [card_code(int(c)) for c in rng.permutation(52)]
    first_values, solver_values = [], []
    for stacked in (deck, swapped):
        env = make("twenty_v0")
        env.reset(seed=1, options={"deck": [stacked, round_two]})
        oracle, solver = load_agent("twenty.oracle", env), load_agent("twenty.solver", env)
        # dealt: bonus cards, then blocks of five alternately, player_0 (round 1's leader) first
        held = np.array(
            [[_value_counts(stacked[2 + 10 * h + 5 * p : 7 + 10 * h + 5 * p]) for p in (0, 1)] for h in range(5)]
        )
        first, second = (TWENTY_VALUE[code[0]] for code in stacked[:2])
        bonus = 10 if first == second else abs(first - second)
        tally, n_cards, last_scorer = 0, 0, -1
        for step in range(10):  # the round's first hand: five cards each, player_0 first
            seat = step % 2
            observation = env.last()[0]
            values = oracle.values(observation, np.random.default_rng(0))
            future = held if seat == 0 else held[:, ::-1]
            want = solve_round(
                future[0, 0],
                future[0, 1],
                tally=tally,
                n_cards=n_cards,
                hand_index=0,
                bonus=bonus,
                last_scorer=-1 if last_scorer < 0 else int(last_scorer != seat),
                leader_is_own=seat == 0,
                future=future,
                seed=0,
            )[2]
            assert np.array_equal(values, want), (step, values, want)
            if step == 0:
                first_values.append(values)
                solver_values.append(solver.values(observation, np.random.default_rng(0)))
            action = oracle.act(observation, np.random.default_rng(0))
            held[0, seat, action] -= 1
            tally += action + 1
            n_cards += 1
            if tally >= 20 or n_cards >= 5:
                last_scorer = seat
            if tally >= 20:
                tally, n_cards = 0, 0
            env.step(action)
    assert not np.array_equal(first_values[0], first_values[1])  # the oracle saw the hidden exchange
    assert np.array_equal(solver_values[0], solver_values[1])  # the same observation: the same values


@pytest.mark.parametrize(
    "argv, message",
    [
        (["twos", "--relative-players", "random,twos.heuristic,twos.heuristic"], "takes four agent names"),
        (["twos", "--relative-players", "random,twos.nonesuch,twos.heuristic,twos.heuristic"], "twos.nonesuch"),
        (["twos", "--relative-only", "--ladder", "random,twos.heuristic"], "leave out --ladder"),
    ],
)
def test_bad_relative_input_is_one_line(argv, message, capsys):
    assert main(["analyze", "skill", *argv, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_a_game_that_declares_no_players(monkeypatch):
    spec = dataclasses.replace(spec_of("war_v0"), relative_skill=None)
    monkeypatch.setattr(relative, "spec_of", lambda env_id: spec)
    with pytest.raises(ValueError, match="declares no relative-skill players"):
        relative.relative_players("war_v0")
