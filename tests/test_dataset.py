"""``cardenvs dataset``: a teacher's decisions as chat records, seeded, loadable with Hugging Face ``datasets``."""

from __future__ import annotations

import json

import datasets
import numpy as np
import pytest

import cardenvs
from cardenvs.agent import load_agent
from cardenvs.agent.dataset import dataset_records
from cardenvs.agent.prompts import read_answer
from cardenvs.cli import main
from cardenvs.core.env import legal_actions
from cardenvs.core.play import play_on
from cardenvs.core.seeds import generator, seed_from

TEACHER = "twos.heuristic"
ARGS = ["dataset", "twos", "--teacher", TEACHER, "--games", "2", "--seed", "4"]


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dataset")
    paths = [folder / "a.jsonl", folder / "b.jsonl"]
    for path in paths:
        assert main([*ARGS, "--out", str(path)]) == 0
    return paths


def _records(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_same_command_same_bytes_and_no_overwrite(written, capsys):
    a, b = written
    assert a.read_bytes() == b.read_bytes() and a.stat().st_size > 0
    before = a.read_bytes()
    assert main([*ARGS, "--out", str(a)]) == 2
    assert "exists; pass --force" in capsys.readouterr().err and a.read_bytes() == before
    assert main([*ARGS[:-1], "5", "--out", str(a), "--force"]) == 0
    assert a.read_bytes() != before
    assert main(["dataset", "twos", "--teacher", "nobody", "--out", str(a.parent / "c.jsonl")]) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err and not (a.parent / "c.jsonl").exists()


def test_records_are_the_teachers_moves(written):
    records = _records(written[1])
    assert {r["game"] for r in records} == {"twos_v0"}
    seeds = list(dict.fromkeys(r["seed"] for r in records))
    assert len(seeds) == 2
    env = cardenvs.make("twos_v0")
    base = env.unwrapped
    teacher = load_agent(TEACHER, env)
    checked = 0
    for g, seed in enumerate(seeds):  # replay: the teacher in every seat, from the record's reset seed
        by_step = {r["step"]: r for r in records if r["seed"] == seed}
        env.reset(seed=seed)
        rng = generator(4, g, 0, stream="arena_agents")

        def choose(seat, observation, by_step=by_step, rng=rng):
            nonlocal checked
            action = int(teacher.act(observation, rng))
            legal = [int(a) for a in legal_actions(observation)]
            record = by_step.get(len(base.actions_taken))
            assert (record is not None) == (len(legal) > 1)  # every decision with a choice, and only those
            if record is not None:
                assert record["seat"] == seat and record["legal"] == [base.action_name(a) for a in legal]
                system, user, answer = record["messages"]
                assert (system["role"], user["role"], answer["role"]) == ("system", "user", "assistant")
                assert read_answer(base, answer["content"], observation) == action
                checked += 1
            return action

        play_on(env, choose)
    assert checked == len(records)


@pytest.mark.parametrize(
    ("teacher", "opponents"), [("random", None), ("twos.heuristic", "random"), ("random", "twos.heuristic")]
)
def test_a_drawing_teacher_replays_from_the_documented_streams(teacher, opponents):
    """Game ``g`` of seed ``S``: reset with ``seed_from(S, g, stream="arena_deal")``, every agent drawing from
    ``generator(S, g, 0, stream="arena_agents")`` in turn (the module docstring); with ``opponents``, the
    teacher in seat ``g mod players``. Replayed so, the records are the teacher's decisions, every one."""
    seed, games = 7, 3
    records = list(dataset_records("twos", teacher, games, seed=seed, opponents=opponents))
    env = cardenvs.make("twos_v0")
    base = env.unwrapped
    n = base.num_players
    teachers = [load_agent(teacher, env) for _ in range(n)]
    others = [load_agent(opponents, env) for _ in range(n)] if opponents else teachers
    expected = []
    for g in range(games):
        deal = seed_from(seed, g, stream="arena_deal")
        env.reset(seed=deal)
        rng = generator(seed, g, 0, stream="arena_agents")
        seats = set(range(n)) if opponents is None else {g % n}
        players = [teachers[s] if s in seats else others[s] for s in range(n)]

        def choose(seat, observation, players=players, rng=rng, seats=seats, deal=deal):
            action = int(players[seat].act(observation, rng))
            legal = [int(a) for a in legal_actions(observation)]
            if seat in seats and len(legal) > 1:
                expected.append((deal, len(base.actions_taken), seat, [base.action_name(a) for a in legal], action))
            return action

        play_on(env, choose)
    assert len({e[0] for e in expected}) == games and len(expected) > 10
    got = [(r["seed"], r["step"], r["seat"], r["legal"]) for r in records]
    assert got == [e[:4] for e in expected]
    moves = [r["messages"][-1]["content"] for r in records]
    assert moves == [f"Final Answer: {base.action_name(e[4])}" for e in expected]
    assert teacher != "random" or len({e[4] for e in expected}) > 5  # the teacher's moves are drawn


def test_loads_with_datasets(written):
    rows = datasets.load_dataset("json", data_files=str(written[0]), split="train")
    records = _records(written[0])
    assert len(rows) == len(records)
    assert rows[0]["messages"] == records[0]["messages"] and rows[0]["legal"] == records[0]["legal"]
    assert rows[0]["messages"][-1]["content"].startswith("Final Answer: ")


def test_unlisted_moves_and_opponents(tmp_path):
    out = tmp_path / "war.jsonl"
    args = ["dataset", "twenty", "--teacher", "twenty.greedy", "--opponents", "random", "--games", "2"]
    assert main([*args, "--legal", "none", "--out", str(out)]) == 0
    records = _records(out)
    assert records and {r["seat"] for r in records} == {0, 1}
    assert {r["seat"] for r in records if r["seed"] == records[0]["seed"]} == {0}  # game 0: the teacher in seat 0
    assert all("legal" not in json.loads(r["messages"][1]["content"]) for r in records)
    assert all(len(r["legal"]) > 1 for r in records)


def test_a_move_named_by_digits_is_answered_by_its_name():
    """Dou Dizhu's single 9 (move id 6) is answered ``Final Answer: 9``, which reads back as that move (an id
    written bare would read as the single 6)."""
    from cardenvs import make
    from cardenvs.agent.dataset import answer_of

    base = make("doudizhu_v0").unwrapped
    assert base.action_name(6) == "9" and answer_of(base, 6) == "Final Answer: 9"
    mask = np.zeros(base.num_actions, dtype=bool)
    mask[[3, 6]] = True  # the singles 6 and 9
    observation = {"observation": np.zeros(1), "action_mask": mask}
    assert read_answer(base, answer_of(base, 6), observation) == 6
