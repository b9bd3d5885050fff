"""Replays: ``cardenvs arena --replays DIR`` writes every game; each replays exactly through the AEC env."""

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from cardenvs import cli, replay
from cardenvs.arena import Results, run_tournament
from cardenvs.registry import make

# (game, agents, deals): every seating of every deal is written (2 or 6 games a deal here)
ARENAS = [
    ("twenty", "twenty.greedy,random", 3),
    ("twos", "twos.heuristic,random,random", 2),
    ("doudizhu", "doudizhu.rule,random,random", 2),
    ("two_way_street", "two_way_street.heuristic,random,random,random", 1),
]


def replay_by_hand(game: replay.Replay) -> tuple[list[float], list[float]]:
    """Play the replay's actions through a fresh AEC env, checking each recorded mover and every reward;
    returns the total rewards and the final scores (independent of :meth:`Replay.verify`)."""
    env = make(game.env_id, **game.options)
    env.reset(seed=game.seed, options=game.reset_options or None)
    totals = np.zeros(len(game.agents))
    for i, step in enumerate(game.steps):
        assert env.agent_selection == step.agent == f"player_{step.seat}", i
        assert env.unwrapped.action_name(step.action) == step.move
        assert env.observe(step.agent)["action_mask"][step.action] == 1, f"step {i}: illegal"
        env.step(step.action)
        rewards = [env.rewards[a] for a in env.possible_agents]
        assert rewards == step.rewards, f"step {i}"
        totals += rewards
    assert all(env.terminations[a] or env.truncations[a] for a in env.agents), "the game is not over"
    return totals.tolist(), env.unwrapped.scores().tolist()


@pytest.mark.parametrize("game, agents, deals", ARENAS, ids=[a[0] for a in ARENAS])
def test_arena_replays_play_back_exactly(tmp_path, capsys, game, agents, deals):
    folder, out = tmp_path / "replays", tmp_path / "results.json"
    code = cli.main(
        ["arena", game, "--agents", agents, "--games", str(deals), "--seed", "3", "--no-progress"]
        + ["--out", str(out), "--replays", str(folder)]
    )
    assert code == 0
    assert f"replays to {folder}" in capsys.readouterr().out
    results = Results.load(str(out))
    files = replay.replay_files(folder)
    assert [f.name for f in files] == [f"game_{i:06d}.json" for i in range(len(results.records))]
    for record, path in zip(results.records, files, strict=True):
        game_replay = replay.load(path)
        assert (game_replay.deal, game_replay.replay, game_replay.labels) == (record.deal, record.replay, record.seats)
        assert game_replay.scores == record.scores and game_replay.rewards == record.rewards
        assert len(game_replay.steps) == record.steps
        totals, scores = replay_by_hand(game_replay)
        assert totals == pytest.approx(record.rewards, abs=1e-12)
        assert scores == record.scores
        game_replay.verify()
    first = replay.load(files[0])
    assert first.decks and len(first.decks[0].split()) == len(make(first.env_id).unwrapped.deck)


def test_replays_do_not_depend_on_workers(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    run_tournament("twenty", ["twenty.greedy", "random"], 3, seed=1, replays=str(one))
    run_tournament("twenty", ["twenty.greedy", "random"], 3, seed=1, workers=2, replays=str(two))
    names = [f.name for f in replay.replay_files(one)]
    assert names == [f.name for f in replay.replay_files(two)] and len(names) == 6
    for name in names:
        assert (one / name).read_text() == (two / name).read_text()


def test_dou_dizhu_bidding_and_round_robin_replays(tmp_path):
    results = run_tournament(
        "doudizhu", ["doudizhu.rule", "random", "random"], 1, seed=4, role_phase=True, replays=str(tmp_path / "b")
    )
    games = [replay.load(f) for f in replay.replay_files(tmp_path / "b")]
    assert len(games) == len(results.records) == 6
    assert any(s.move.startswith("bid") or s.move == "no bid" for s in games[0].steps[:3])
    for g in games:
        assert g.reset_options == {}
        g.verify()
    run_tournament(
        "twenty", ["twenty.greedy", "random", "twenty.solver"], 1, round_robin=True, replays=str(tmp_path / "r")
    )
    tables = [replay.load(f).table for f in replay.replay_files(tmp_path / "r")]
    assert tables == [0, 0, 1, 1, 2, 2]


@pytest.fixture
def twenty_replay(tmp_path) -> Path:
    run_tournament("twenty", ["twenty.greedy", "random"], 1, seed=0, replays=str(tmp_path / "t"))
    return replay.replay_files(tmp_path / "t")[0]


def edit(path: Path, change) -> Path:
    data = json.loads(path.read_text())
    change(data)
    out = path.with_name("edited.json")
    out.write_text(json.dumps(data))
    return out


def test_a_changed_reward_score_or_move_is_a_mismatch(twenty_replay):
    replay.load(twenty_replay).verify()

    def reward(d):
        d["steps"][-1]["rewards"][0] += 1

    def score(d):
        d["scores"][1] += 5

    with pytest.raises(replay.ReplayMismatch, match=r"step \d+ .*rewards"):
        replay.load(edit(twenty_replay, reward)).verify()
    with pytest.raises(replay.ReplayMismatch, match="final scores"):
        replay.load(edit(twenty_replay, score)).verify()

    game = replay.load(twenty_replay)
    env = game.env_at(0)
    other = [int(a) for a in env.unwrapped.legal_actions() if a != game.steps[0].action]

    def move(d):
        d["steps"][0]["action"] = other[0]

    with pytest.raises(replay.ReplayMismatch, match="step 0 .*names action"):
        replay.load(edit(twenty_replay, move)).verify()

    def short(d):
        d["steps"] = d["steps"][:-1]

    with pytest.raises(replay.ReplayMismatch, match="not over"):
        replay.load(edit(twenty_replay, short)).verify()


def test_env_at_steps_through_the_game(twenty_replay):
    game = replay.load(twenty_replay)
    assert game.env_at(0).unwrapped.scores().tolist() == [0.0, 0.0]
    end = game.env_at(len(game.steps))
    assert end.unwrapped.scores().tolist() == game.scores
    with pytest.raises(ValueError, match="not in this replay"):
        game.env_at(len(game.steps) + 1)


def test_bad_files_are_named(tmp_path, twenty_replay):
    (tmp_path / "x.json").write_text("{not json")
    with pytest.raises(ValueError, match="x.json is not JSON"):
        replay.load(tmp_path / "x.json")
    (tmp_path / "y.json").write_text('{"a": 1}')
    with pytest.raises(ValueError, match="not a cardenvs replay"):
        replay.load(tmp_path / "y.json")
    with pytest.raises(ValueError, match="is a folder"):
        replay.load(tmp_path)
    with pytest.raises(ValueError, match="replay .*missing.json does not exist"):
        replay.load(tmp_path / "missing.json")

    def unknown_game(d):
        d["env_id"] = "poker"

    with pytest.raises(ValueError, match="unknown game 'poker'"):
        replay.load(edit(twenty_replay, unknown_game))


def test_the_replays_folder_is_checked_before_playing(tmp_path, capsys):
    args = ["arena", "twenty", "--agents", "random,random", "--games", "1", "--no-progress", "--replays"]
    (tmp_path / "file").write_text("")
    assert cli.main(args + [str(tmp_path / "file")]) == 2
    assert "is a file" in capsys.readouterr().err
    assert cli.main(args + [str(tmp_path / "file" / "such")]) == 2
    assert "file is a file, not a folder" in capsys.readouterr().err
    assert cli.main(args + [str(tmp_path / "runs" / "replays")]) == 0  # the README's: missing folders are made
    assert len(list((tmp_path / "runs" / "replays").glob("game_*.json"))) == 2
    assert cli.main(args + [str(tmp_path / "r")]) == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cli.main(args + [str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "already holds replays" in err and "Traceback" not in err
