"""Deep Monte Carlo training (training/dmc.py): targets, move features, the Q networks over legal moves,
and tiny runs through a subprocess whose checkpoints the arena plays as ``dmc:PATH``."""

from __future__ import annotations

import csv
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cardenvs import vector  # noqa: E402
from cardenvs.training import dmc, dmc_actors, dmc_args, dmc_model  # noqa: E402
from cardenvs.training.features import move_features  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _run(*argv: str, timeout: int = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'src'}"}
    return subprocess.run([sys.executable, *argv], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


# ---------------------------------------------------------------- targets
@pytest.mark.parametrize("game, options", [("doudizhu_v0", {"bidding": False}), ("twos_v0", {}), ("twenty_v0", {})])
def test_each_decision_gets_its_own_seats_final_return(game, options):
    """Random play on a small batch: every decision that leaves the ring carries the final return of the
    seat that made it (losses included), as the plain sum of that seat's rewards over the episode."""
    num_envs = 4
    env = vector.make(game, num_envs, reward="win", **options)
    obs, info = env.reset(seed=3)
    ring = dmc_actors.EpisodeRing(num_envs, env.layout.size, env.num_players, capacity=512)
    rng = np.random.default_rng(0)
    log_seats: list[list[int]] = [[] for _ in range(num_envs)]
    log_rewards: list[list[np.ndarray]] = [[] for _ in range(num_envs)]
    checked = negative = 0
    for _ in range(400):
        ids, counts = env.legal_ids()
        actions = np.array([ids[b, rng.integers(counts[b])] for b in range(num_envs)])
        roles = dmc_model.roles_of(game, env.layout, obs["observation"])
        ring.add(obs["observation"], actions, info["to_move"], roles)
        for b in range(num_envs):
            log_seats[b].append(int(info["to_move"][b]))
        obs, rewards, terminated, truncated, info = env.step(actions)
        for b in range(num_envs):
            log_rewards[b].append(rewards[b].copy())
        done = terminated | truncated
        finished = ring.finish_step(rewards, done)
        assert len(finished) == int(done.sum())
        for (_, ep_actions, _, ep_targets), b in zip(finished, np.flatnonzero(done), strict=True):
            expected = dmc_actors.episode_targets(log_rewards[b], log_seats[b])
            np.testing.assert_array_equal(ep_targets, expected)
            # the win scale: each seat's return is its result in the final scores' order
            final = info["final_scores"][b]
            for seat, target in zip(log_seats[b], ep_targets, strict=True):
                others = np.delete(final, seat)
                if final[seat] > others.max():
                    assert target > 0
                elif final[seat] < final.max():
                    assert target < 0
            assert len(ep_actions) == len(log_seats[b])
            negative += int((ep_targets < 0).sum())
            checked += len(ep_targets)
            log_seats[b], log_rewards[b] = [], []
    assert checked > 50 and negative > 0  # losing seats got their losses


def test_doudizhu_roles_follow_the_landlord_seat():
    env = vector.make("doudizhu_v0", 64, bidding=False)
    obs, info = env.reset(seed=1)
    rng = np.random.default_rng(1)
    seen = set()
    for _ in range(30):
        roles = dmc_model.roles_of("doudizhu_v0", env.layout, obs["observation"])
        landlord_seat = 0  # bidding off: the first bidder (player_0 after reset(seed) games) may vary; read state
        for b in range(64):
            landlord_seat = int(env._b.state["landlord"][b])
            seat = int(info["to_move"][b])
            expected = 0 if seat == landlord_seat else 1 if seat == (landlord_seat + 1) % 3 else 2
            assert roles[b] == expected
            seen.add(expected)
        ids, counts = env.legal_ids()
        obs, *_, info = env.step(np.array([ids[b, rng.integers(counts[b])] for b in range(64)]))
    assert seen == {0, 1, 2}


# ---------------------------------------------------------------- move features and the Q network
def test_doudizhu_move_features_are_the_move_table():
    from cardenvs.games.doudizhu import moves

    table = move_features("doudizhu_v0")
    assert table.shape[0] == moves.NUM_ACTIONS
    n_types = len(moves.TYPES)
    for text in ("3", "333+44", "34567", "3333+45", "BR", "2222"):
        a = moves.MOVE_ID[text]
        row = table[a]
        counts = moves.MOVE_COUNTS[a]
        planes = row[:52].reshape(4, 13)  # "at least k of rank r", k-major
        np.testing.assert_array_equal(planes.sum(axis=0), counts[:13])
        np.testing.assert_array_equal(row[52:54], counts[13:15])
        assert row[54 + moves.MOVE_TYPE[a]] == 1 and row[54 : 54 + n_types].sum() == 1
        assert row[54 + n_types + moves.MOVE_MAIN[a]] == 1
        np.testing.assert_allclose(row[-15:], moves.MOVE_KICKERS[a] / 4)
    # 3333+45: the kickers are one 4 and one 5
    np.testing.assert_allclose(table[moves.MOVE_ID["3333+45"]][-15:][:3], [0, 0.25, 0.25])
    assert table[moves.PASS, :54].sum() == 0


def test_twos_move_features_are_the_move_table():
    from cardenvs.games.twos import moves

    table = move_features("twos_v0")
    n_shapes = len(moves.SHAPES)
    for a in (0, 17, 200, moves.PASS - 1):
        shape, top = moves.ACTIONS[a]
        row = table[a]
        assert row[shape] == 1 and row[:n_shapes].sum() == 1
        ranks = row[n_shapes : n_shapes + 13] * 4
        assert ranks.sum() == moves.SHAPE_N[shape] * moves.SHAPE_L[shape]  # cards the move takes
        assert ranks[top // 4] == moves.SHAPE_N[shape]
        assert row[n_shapes + 13 + top] == 1
    assert table[moves.PASS, -1] == 1 and table[moves.PASS, :-1].sum() == 0


@pytest.mark.parametrize("game", ["doudizhu_v0", "twos_v0"])
def test_q_network_scores_exactly_the_legal_moves(game):
    """``choose`` picks, among each state's legal ids only, the move of highest Q, as scoring every legal
    move one by one with the training forward pass says."""
    torch.manual_seed(0)
    args = dmc_args.Args(game=game)
    env = vector.make(game, 16)
    nets = dmc_model.build_nets(game, env.layout, args)
    nets.eval()
    features = dmc_model.StateFeatures(env.layout, "scaled")
    obs, info = env.reset(seed=7)
    rng = np.random.default_rng(2)
    for _ in range(5):
        raw = obs["observation"]
        roles = dmc_model.roles_of(game, env.layout, raw)
        ids, counts = env.legal_ids()
        x = features(raw)
        chosen = dmc_model.choose(nets, x, roles, ids, counts, 0.0, rng)
        for b in range(16):
            legal = ids[b, : counts[b]]
            assert chosen[b] in legal
            assert obs["action_mask"][b, chosen[b]]
            with torch.no_grad():
                q = nets[roles[b]](x[b : b + 1].repeat(len(legal), 1), torch.as_tensor(legal))
            assert chosen[b] == legal[int(torch.argmax(q))]
        obs, *_, info = env.step(chosen)


def test_choose_explores_with_each_states_own_epsilon():
    """``role_epsilon``'s per-state exploration: a state whose epsilon is 0 gets the greedy move, one whose
    epsilon is 1 a uniformly random legal one (over 40 draws, more than one of the 4 bids of a first bidder)."""
    torch.manual_seed(0)
    game = "doudizhu_v0"
    env = vector.make(game, 8)
    nets = dmc_model.build_nets(game, env.layout, dmc_args.Args(game=game)).eval()
    obs, _ = env.reset(seed=3)
    raw = obs["observation"]
    roles = dmc_model.roles_of(game, env.layout, raw)
    assert (roles == 3).all()  # every game starts with its first bid
    ids, counts = env.legal_ids()
    x = dmc_model.StateFeatures(env.layout, "scaled")(raw)
    greedy = dmc_model.choose(nets, x, roles, ids, counts, 0.0, None)  # type: ignore[arg-type]
    epsilon = np.tile([0.0, 1.0], 4)
    rng = np.random.default_rng(5)
    draws = np.array([dmc_model.choose(nets, x, roles, ids, counts, epsilon, rng) for _ in range(40)])
    assert (draws[:, epsilon == 0] == greedy[epsilon == 0]).all()
    for b in np.flatnonzero(epsilon == 1):
        assert set(draws[:, b]) <= set(ids[b, : counts[b]]) and len(set(draws[:, b])) > 1


# ---------------------------------------------------------------- tiny runs, the arena, resume, bad input
TINY = [
    "--set",
    "num_envs=16",
    "--set",
    "batch_size=64",
    "--set",
    "rollout_steps=8",
    "--set",
    "hidden=[32]",
    "--set",
    "move_hidden=16",
    "--set",
    "head_hidden=16",
    "--set",
    "eval_minutes=0",
]


@pytest.mark.slow
@pytest.mark.parametrize("game", ["doudizhu_v0", "twos_v0", "twenty_v0", "war_v0", "two_way_street_v0"])
def test_tiny_run_writes_a_checkpoint_the_arena_plays_and_resume_continues(tmp_path, game):
    out = str(tmp_path)
    first = _run(
        "-m", "cardenvs.training.dmc", "--set", f"game={game}", "--total-frames", "300", "--out", out,
        "--final-eval-games", "2", *TINY,
    )  # fmt: skip
    assert first.returncode == 0, first.stderr[-2000:]
    run_dir = next(tmp_path.iterdir())
    model = run_dir / "model.pt"
    frames_1 = dmc_model.load_checkpoint(model)["frames"]
    assert frames_1 >= 300
    assert (run_dir / "final_eval.json").exists() and (run_dir / "progress.csv").exists()
    seats = {"doudizhu_v0": 3, "twos_v0": 3, "two_way_street_v0": 4}.get(game, 2)
    agents = ",".join([f"dmc:{model}"] + ["random"] * (seats - 1))
    arena = _run("-m", "cardenvs", "arena", game, "--agents", agents, "--games", "2", "--seed", "1")
    assert arena.returncode == 0, arena.stderr[-2000:]
    assert f"dmc:{model}" in arena.stdout
    # without --resume an existing run is not overwritten
    again = _run("-m", "cardenvs.training.dmc", "--set", f"game={game}", "--total-frames", "300", "--out", out, *TINY)
    assert again.returncode == 2 and "--resume" in again.stderr
    resumed = _run(
        "-m", "cardenvs.training.dmc", "--set", f"game={game}", "--total-frames", str(frames_1 + 300), "--out", out,
        "--resume", "--final-eval-games", "0", *TINY,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert f"resumed at {frames_1:,} frames" in resumed.stdout
    assert dmc_model.load_checkpoint(model)["frames"] >= frames_1 + 300
    with open(run_dir / "eval.csv") as f:
        assert len(list(csv.reader(f))) == 2  # the header and the first run's final evaluation


@pytest.mark.slow
def test_actors_draw_opponent_seats_from_the_pool_reproducibly(tmp_path):
    """``opponent``/``opponent_share`` are weights of the one opponent pool (cardenvs.opponents); the same seed
    gives the same networks (the draws use the actors' seeded generator)."""
    flags = ["--set", "game=twos_v0", "--total-frames", "300", "--final-eval-games", "0", *TINY]
    flags += ["--set", "opponent=twos.heuristic", "--set", "opponent_share=0.5"]
    nets = []
    for out in ("a", "b"):
        run = _run("-m", "cardenvs.training.dmc", *flags, "--out", str(tmp_path / out))
        assert run.returncode == 0, run.stderr[-2000:]
        nets.append(dmc_model.load_checkpoint(next((tmp_path / out).iterdir()) / "model.pt")["nets"])
    assert nets[0].keys() == nets[1].keys()
    assert all(torch.equal(nets[0][k], nets[1][k]) for k in nets[0])


def test_a_mix_of_opponents_plays_each_games_untrained_roles_by_its_draw(monkeypatch):
    """``opponent: {name: weight}`` with ``train_roles``: each game draws one opponent of the mix per episode
    (from the actors' seeded generator), and that opponent makes every decision of the untrained roles of
    that game; the trained role's decisions are the networks'. Checked move by move on the env's
    ``agent_actions`` calls, over episodes that end and redraw."""
    args = dmc_args.Args(
        game="doudizhu_v0", options={"bidding": False}, num_envs=16, rollout_steps=40, hidden=[8],
        move_hidden=4, head_hidden=4, history_channels=0, train_roles=["landlord"],
        opponent={"doudizhu.rule": 1.0, "random": 2.0},
    )  # fmt: skip
    actors = dmc_actors.Actors(args, np.random.default_rng(5), deal_seed=7)
    nets = dmc_model.build_nets(args.game, actors.layout, args)
    nets.eval()
    names = actors.mix.opponents
    assert names == ["doudizhu.rule", "random"] and actors.pool.opponents[:2] == names
    calls, draws, steps = [], [], []
    real, real_step = actors.env.agent_actions, actors.env.step

    def roles():
        return dmc_model.roles_of(args.game, actors.layout, actors.obs["observation"])

    def recording(name, games=None):
        calls.append((name, np.asarray(games).copy(), actors.game_opponent.copy(), roles()))
        return real(name, games)

    def stepping(actions):
        steps.append(roles())
        return real_step(actions)

    monkeypatch.setattr(actors.env, "step", stepping)

    monkeypatch.setattr(actors.env, "agent_actions", recording)
    for _ in range(3):
        draws.append(actors.game_opponent.copy())
        actors.collect(nets)
    assert actors.episodes > 16  # games ended and drew again
    drawn = np.concatenate(draws)
    assert set(drawn.tolist()) == {0, 1} and (drawn == 1).mean() > 0.4  # both drawn, by weight
    farmer_decisions = 0
    for name, rows, game_opponent, roles in calls:
        assert (game_opponent[rows] == names.index(name)).all()  # each game's own draw plays it
        assert (roles[rows] != 0).all()  # never a landlord decision
    for step in steps:  # every farmer decision of every step went to its game's opponent
        farmer_decisions += int((step != 0).sum())
    assert farmer_decisions == sum(len(rows) for _, rows, _, _ in calls) > 0


@pytest.mark.slow
@pytest.mark.parametrize("opponent", ["doudizhu.rule", "rlcard.rule"])
def test_train_roles_learns_only_the_landlord_from_a_warm_start(tmp_path, opponent):
    """``init_from`` starts a run from a model's networks; with ``train_roles: [landlord]`` the opponent (our
    numba rule agent, or RLCard's, a Python agent played one game at a time) plays every farmer decision and
    only the landlord network changes: the farmers and the bidder are saved as they came, and the frames are
    landlord decisions."""
    if opponent == "rlcard.rule" and importlib.util.find_spec("rlcard") is None:
        pytest.skip("rlcard is not installed (pip install 'cardenvs[rlcard]')")
    base = ["--set", "game=doudizhu", "--set", "options={bidding: false}", "--final-eval-games", "0", *TINY]
    first = _run("-m", "cardenvs.training.dmc", *base, "--total-frames", "200", "--out", str(tmp_path / "a"))
    assert first.returncode == 0, first.stderr[-2000:]
    start = next((tmp_path / "a").iterdir()) / "model.pt"
    flags = ["--set", f"init_from={start}", "--set", "train_roles=[landlord]", "--set", f"opponent={opponent}"]
    second = _run("-m", "cardenvs.training.dmc", *base, *flags, "--total-frames", "300", "--out", str(tmp_path / "b"))
    assert second.returncode == 0, second.stderr[-2000:]
    assert f"networks from {start}" in second.stdout
    before = dmc_model.load_checkpoint(start)["nets"]
    data = dmc_model.load_checkpoint(next((tmp_path / "b").iterdir()) / "model.pt")
    after = data["nets"]
    assert data["frames"] >= 300
    names = dmc_model.role_names("doudizhu_v0")
    changed = {names[int(k.split(".")[0])] for k in before if not torch.equal(before[k], after[k])}
    assert changed == {"landlord"}
    with open(next((tmp_path / "b").iterdir()) / "progress.csv") as f:
        header = next(csv.reader(f))
    assert header[-len(names) :] == [f"loss_{n}" for n in names]


def test_combine_takes_each_named_role_from_its_model(tmp_path):
    """``dmc_combine``: the named roles' networks from their models, the others from the base; a model of
    other network sizes or another game is refused by name, and the result plays in the arena."""
    from cardenvs import arena, make
    from cardenvs.training.dmc_combine import combine, main

    layout = make("doudizhu_v0").unwrapped.layout
    paths = []
    for i, hidden in enumerate(([8], [8], [8], [16])):
        torch.manual_seed(i)
        args = dmc_args.Args(game="doudizhu_v0", hidden=hidden, move_hidden=4, head_hidden=4, history_channels=0)
        nets = dmc_model.build_nets("doudizhu_v0", layout, args)
        paths.append(tmp_path / f"m{i}" / "model.pt")
        paths[-1].parent.mkdir()
        dmc.save_checkpoint(paths[-1], nets, [torch.optim.Adam(n.parameters()) for n in nets], args, 100 + i, 1)
    out = tmp_path / "c" / "model.pt"
    got = combine(paths[0], {"landlord": paths[1], "farmer_before_landlord": paths[2]}, out)
    models = [dmc_model.load_checkpoint(p)["nets"] for p in paths[:3]]
    source = {"0.": 1, "1.": 0, "2.": 2, "3.": 0}  # landlord, farmer after, farmer before, bidder
    for key, value in dmc_model.load_checkpoint(out)["nets"].items():
        assert torch.equal(value, models[source[key[:2]]][key]), key
    assert got["frames"] == 100 + 101 + 102
    assert got["parts"]["landlord"] == str(paths[1]) and got["parts"]["bidder"] == str(paths[0])
    results = arena.run_tournament("doudizhu_v0", [f"dmc:{out}", "random", "random"], 2, seed=1, duplicate=True)
    assert results.stats()[results.agents[0]]["games"] == 12  # 2 deals x 6 seatings
    with pytest.raises(ValueError, match="other network settings"):
        combine(paths[0], {"landlord": paths[3]}, tmp_path / "x.pt")
    with pytest.raises(ValueError, match="unknown role 'king'"):
        combine(paths[0], {"king": paths[1]}, tmp_path / "x.pt")
    assert main([str(out), str(paths[0]), "landlord"]) == 2  # no ROLE=PATH


def test_dmc_agent_refuses_another_game_and_missing_files(tmp_path):
    from cardenvs import make

    with pytest.raises(ValueError, match="no DMC checkpoint"):
        dmc_model.DMCAgent(make("twos_v0"), str(tmp_path / "nothing.pt"))
    args = dmc_args.Args(game="twenty_v0", hidden=[8], move_hidden=4, head_hidden=4)
    env = make("twenty_v0")
    nets = dmc_model.build_nets("twenty_v0", env.unwrapped.layout, args)
    opts = [torch.optim.Adam(n.parameters()) for n in nets]
    dmc.save_checkpoint(tmp_path / "model.pt", nets, opts, args, 10, 0.1)
    agent = dmc_model.DMCAgent(env, str(tmp_path))  # the folder works too
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][agent.act(obs, np.random.default_rng(0))]
    with pytest.raises(ValueError, match="trained on twenty_v0, not twos_v0"):
        dmc_model.DMCAgent(make("twos_v0"), str(tmp_path / "model.pt"))


def test_a_model_saved_on_a_gpu_loads_and_plays_on_the_cpu_by_name(tmp_path, monkeypatch):
    """A checkpoint whose tensors were on CUDA (simulated: torch.save records every storage as ``cuda:0``)
    cannot be read as saved on a machine without a GPU; ``dmc:PATH`` reads it onto the CPU (``map_location``)
    and plays. And ``device: auto`` is CUDA exactly when torch sees one."""
    from cardenvs import make
    from cardenvs.agent import load_agent

    args = dmc_args.Args(game="twenty_v0", hidden=[8], move_hidden=4, head_hidden=4)
    env = make("twenty_v0")
    nets = dmc_model.build_nets("twenty_v0", env.unwrapped.layout, args)
    with monkeypatch.context() as m:
        m.setattr(torch.serialization, "location_tag", lambda storage: "cuda:0")
        dmc.save_checkpoint(tmp_path / "model.pt", nets, [torch.optim.Adam(n.parameters()) for n in nets], args, 1, 0)
    if not torch.cuda.is_available():
        with pytest.raises(RuntimeError, match="CUDA"):
            torch.load(tmp_path / "model.pt", weights_only=False)  # as saved: on a GPU this machine lacks
    agent = load_agent(f"dmc:{tmp_path / 'model.pt'}", env)
    assert all(p.device.type == "cpu" for p in agent.nets.parameters())
    env.reset(seed=3)
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][agent.act(obs, np.random.default_rng(0))]
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert dmc_model.resolve_device("auto") == torch.device("cuda")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert dmc_model.resolve_device("auto") == torch.device("cpu")


def test_state_features_are_the_ppo_scaled_features_and_old_checkpoints_keep_bounds(tmp_path):
    """``scaled`` state features equal :func:`training.features.scaled` row by row (Twenty: scores and
    n-Tally awards logarithmic), so a Twenty score of 80 is visible; a checkpoint saved without the
    ``features`` key (the first DMC runs) is read with ``bounds``, what it was trained on."""
    from cardenvs import make
    from cardenvs.training.features import scaled

    env = vector.make("twenty_v0", 32)
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    rows = []
    for _ in range(60):
        rows.append(obs["observation"].copy())
        ids, counts = env.legal_ids()
        obs, *_ = env.step(ids[np.arange(32), rng.integers(0, counts)])
    raw = np.concatenate(rows)
    assert raw[:, env.layout.slices["scores"]].max() > 50, "no scores to scale in the sample"
    single = make("twenty_v0").unwrapped
    expected = np.stack([scaled(single, row, None) for row in raw])
    got = dmc_model.StateFeatures(env.layout, "scaled")(raw).numpy()
    assert np.allclose(got, expected, atol=1e-6)
    scores = got[:, env.layout.slices["scores"]]
    assert scores.max() > 0.25  # log1p(50) / log1p(1e6) = 0.28; dividing by the bound gives 5e-5
    bounds = dmc_model.StateFeatures(env.layout, "bounds")(raw).numpy()
    assert np.allclose(bounds, raw / np.maximum(env.layout.high, 1.0), atol=1e-6)
    args = dmc_args.Args(game="twenty_v0", hidden=[8], move_hidden=4, head_hidden=4)
    nets = dmc_model.build_nets("twenty_v0", env.layout, args)
    dmc.save_checkpoint(tmp_path / "model.pt", nets, [torch.optim.Adam(n.parameters()) for n in nets], args, 1, 0)
    data = torch.load(tmp_path / "model.pt", weights_only=False)
    del data["args"]["features"]
    torch.save(data, tmp_path / "model.pt")
    assert dmc_model.DMCAgent(make("twenty_v0"), str(tmp_path)).args.features == "bounds"
    data["args"]["features"] = "scaled"
    torch.save(data, tmp_path / "model.pt")
    assert dmc_model.DMCAgent(make("twenty_v0"), str(tmp_path)).args.features == "scaled"


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--set", "target=score"], "target 'score'"),
        (["--set", "epsilon=2"], "epsilon=2"),
        (["--set", "game="], "no game: name one"),
        (["--set", "learning_rat=1"], "unknown config keys ['learning_rat']"),
        (["--set", "opponent_share=0.5"], "needs an opponent"),
        (["--set", "opponent={doudizhu.rule: -1}"], "weight -1 of 'doudizhu.rule'"),
        (["--set", "opponent={doudizhu.rule: 0}"], "no positive weight"),
        (["--set", "opponent={doudizhu.rule: 1, doudizhu.rulez: 1}"], "doudizhu.rulez"),
        (["--set", "game=chess"], "unknown game"),
        (["--set", "features=raw"], "features 'raw'"),
        (["--set", "horizon=4"], "horizon needs target points or margin"),
        (["--set", "target=margin", "--set", "horizon=-1"], "horizon=-1"),
        (["--set", "lr_schedule=cosine"], "lr_schedule 'cosine'"),
        (["--set", "train_roles=[king]", "--set", "opponent=doudizhu.rule"], "unknown role 'king' of doudizhu_v0"),
        (["--set", "train_roles=[landlord]"], "train_roles needs an opponent"),
        (["--set", "role_epsilon={king: 0.5}"], "role_epsilon: unknown role 'king' of doudizhu_v0"),
        (["--set", "train_roles=landlord", "--set", "opponent=doudizhu.rule"], "expected a list of roles"),
        (["--set", "init_from=x.pt", "--resume"], "init_from starts a new run"),
    ],
)
def test_bad_settings_are_named(flags, message):
    result = _run(
        "-m", "cardenvs.training.dmc", "--total-frames", "1", "--out", "/nonexistent/never",
        "--set", "game=doudizhu", *flags, timeout=120,
    )  # fmt: skip
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_cardenvs_train_algo_dmc_reads_the_dmc_config_and_passes_flags_through():
    result = _run(
        "-m", "cardenvs", "train", "twos", "--algo", "dmc", "--total-frames", "1", "--set", "target=score",
        timeout=120,
    )  # fmt: skip
    assert result.returncode == 2
    assert "target 'score'" in result.stderr  # reached training.dmc with configs/twos_dmc.yaml
    assert "Traceback" not in result.stderr


def test_dmc_takes_the_shared_budget_flags_and_its_old_spelling():
    from cardenvs.training.dmc_args import parse_args

    args = parse_args(["--set", "game=twos", "--steps", "900", "--minutes", "0.5", "--seed", "2", "--out", "x"])
    assert (args.total_frames, args.minutes, args.seed, args.out) == (900, 0.5, 2, "x")
    assert parse_args(["--set", "game=twos", "--total-frames", "300"]).total_frames == 300


@pytest.mark.parametrize("config", sorted(p.name for p in (ROOT / "configs").glob("*_dmc*.yaml")))
def test_every_dmc_config_parses(config):
    """Each DMC config of ``configs/`` is read whole by the trainer's parser (keys, values, roles, opponents)."""
    from cardenvs.training.dmc_args import parse_args

    args = parse_args(["--config", str(ROOT / "configs" / config)])
    assert args.game.endswith("_v0") and args.exp
    if config == "doudizhu_dmc_v2.yaml":  # issue 63, item 7: Guandan's long-run learner on Dou Dizhu
        assert args.snapshot_share == 0.2 and args.lr_schedule == "linear" and args.init_from


def test_linear_learning_rate_decays_over_the_larger_share_of_the_budget_used():
    from cardenvs.training.dmc import learning_rate
    from cardenvs.training.dmc_args import Args

    args = Args(learning_rate=0.001, total_frames=1000, minutes=10.0, lr_schedule="linear")
    assert learning_rate(args, 0, 0.0) == pytest.approx(0.001)
    assert learning_rate(args, 250, 1.0) == pytest.approx(0.00075)  # a quarter of the frames
    assert learning_rate(args, 100, 5.0) == pytest.approx(0.0005)  # half the minutes
    assert learning_rate(args, 1200, 3.0) == 0.0  # past the budget: no steps, not negative ones
    assert learning_rate(Args(learning_rate=0.001, total_frames=1000, lr_schedule="linear"), 900, 99.0) == (
        pytest.approx(0.0001)
    )  # no minutes budget: the frames alone
    assert learning_rate(Args(learning_rate=0.001, total_frames=1000), 900, 9.0) == 0.001  # constant


def test_targets_are_each_seats_return_to_go_hand_counted():
    """A scripted three-step game of two seats: seat 0 scores 2 at step 0, seat 1 scores 5 at step 1,
    seat 0 scores 1 at step 2. Points to go: step 0 (seat 0) 3, step 1 (seat 1) 5, step 2 (seat 0) 1;
    margins to go: 3 - 5 = -2, 5 - 1 = 4, 1 - 0 = 1."""
    rewards = [np.array([2.0, 0.0]), np.array([0.0, 5.0]), np.array([1.0, 0.0])]
    seats = [0, 1, 0]
    np.testing.assert_array_equal(dmc_actors.episode_targets(rewards, seats), [3, 5, 1])
    np.testing.assert_array_equal(dmc_actors.episode_targets(rewards, seats, margin=True), [-2, 4, 1])
    # horizon 2: steps t and t + 1 only. Points: 2 + 0, 5 + 0, 1; margins: 2 - 5, 5 - 1, 1
    np.testing.assert_array_equal(dmc_actors.episode_targets(rewards, seats, horizon=2), [2, 5, 1])
    np.testing.assert_array_equal(dmc_actors.episode_targets(rewards, seats, margin=True, horizon=2), [-3, 4, 1])
    np.testing.assert_array_equal(dmc_actors.episode_targets(rewards, seats, horizon=1), [2, 5, 1])
    np.testing.assert_array_equal(dmc_actors.episode_targets(rewards, seats, horizon=3), [3, 5, 1])
    ring = dmc_actors.EpisodeRing(1, 4, 2, capacity=8, margin=True, horizon=2)
    out = []
    for t in range(3):
        ring.add(np.zeros((1, 4), dtype=np.int8), np.array([t]), np.array([seats[t]]), np.array([0]))
        out += ring.finish_step(rewards[t][None, :], np.array([t == 2]))
    np.testing.assert_array_equal(out[0][3], [-3, 4, 1])
    ring = dmc_actors.EpisodeRing(1, 4, 2, capacity=8, margin=True)
    out = []
    for t in range(3):
        ring.add(np.zeros((1, 4), dtype=np.int8), np.array([t]), np.array([seats[t]]), np.array([0]))
        out += ring.finish_step(rewards[t][None, :], np.array([t == 2]))
    ((_, actions, _, targets),) = out
    np.testing.assert_array_equal(actions, [0, 1, 2])
    np.testing.assert_array_equal(targets, [-2, 4, 1])


def test_the_ring_grows_for_episodes_longer_than_it():
    """Episodes of 5 and 13 steps in a ring of 4: the ring doubles as needed and every decision keeps its
    observation, action and target (rewards: 1 to seat 0 at every step, so step t's target is the number of
    steps left)."""
    ring = dmc_actors.EpisodeRing(2, 3, 2, capacity=4)
    lengths = (5, 13)
    out: dict[int, tuple] = {}
    for t in range(13):
        obs = np.array([[t, 0, 0], [t, 1, 0]], dtype=np.int8)
        ring.add(obs, np.array([t, 100 + t]), np.array([0, 0]), np.array([0, 0]))
        done = np.array([t + 1 == lengths[0], t + 1 == lengths[1]])
        finished = ring.finish_step(np.array([[1.0, 0.0], [1.0, 0.0]]), done)
        for item, b in zip(finished, np.flatnonzero(done), strict=True):
            out[int(b)] = item
    assert ring.capacity >= 13
    for b, n in enumerate(lengths):
        obs, actions, _, targets = out[b]
        np.testing.assert_array_equal(obs[:, 0], np.arange(n))
        np.testing.assert_array_equal(actions, np.arange(n) + 100 * b)
        np.testing.assert_array_equal(targets, np.arange(n, 0, -1))


SHIPPED = sorted((ROOT / "training" / "results").glob("*__dmc__*/model.pt"))
# models shipped beside the default ones: dmc:PATH (the landlord trained against RLCard's rule agent),
# doudizhu.dmc_stakes (the whole game trained for its points) and guandan.dmc (issue 63's run, pinned by name)
ALSO_SHIPPED = [
    model
    for exp in ("dmc_rlcard", "dmc_stakes", "dmc_v2_small")
    for model in sorted((ROOT / "training" / "results").glob(f"*__{exp}__*/model.pt"))
]


@pytest.mark.parametrize("model", SHIPPED + ALSO_SHIPPED, ids=lambda p: p.parent.name)
def test_shipped_models_load_and_beat_random_players(model):
    """Each model kept under ``training/results`` loads as ``dmc:PATH`` on a fresh clone and, in the arena's
    duplicate deals, wins well above parity against random players in every other seat."""
    from cardenvs import arena, make

    game = dmc_model.load_checkpoint(model)["game"]
    n = make(game).unwrapped.num_players
    results = arena.run_tournament(game, [f"dmc:{model}"] + ["random"] * (n - 1), 20, seed=3, duplicate=True)
    stats = results.stats()[results.agents[0]]
    assert stats["win_rate"] > 1 / n + 0.3, stats


def test_models_are_shipped():
    assert {p.parent.name for p in SHIPPED} >= {
        "doudizhu__dmc__2",
        "doudizhu__dmc__4",
        "doudizhu__dmc__9",
        "doudizhu__dmc__12",
        "doudizhu__dmc__13",
        "twos__dmc__2",
        "twenty__dmc__1",
        "two_way_street__dmc__1",
        "guandan__dmc__1",
    }
    assert {p.parent.name for p in ALSO_SHIPPED} == {
        "doudizhu__dmc_rlcard__8",
        "doudizhu__dmc_stakes__1",
        "guandan__dmc_v2_small__1",
    }
    from cardenvs.agent import shipped_models

    assert shipped_models()["doudizhu.dmc"].parent.name == "doudizhu__dmc__13"  # the newest run is the default
    assert shipped_models()["doudizhu.dmc_stakes"].parent.name == "doudizhu__dmc_stakes__1"  # the whole game's
    assert shipped_models()["guandan.dmc"].parent.name == "guandan__dmc_v2_small__1"  # pinned (its spec's shipped_runs)
    assert shipped_models()["guandan.dmc_v1"].parent.name == "guandan__dmc__1"  # the model it replaced


def test_the_stakes_model_is_the_points_trained_bidder():
    """``doudizhu.dmc_stakes`` is the run of ``configs/doudizhu_dmc_stakes.yaml`` (bidding on, the points target),
    and its bidder no longer bids 3 on every hand: on 40 deals it passes as first bidder on some, where
    ``doudizhu.dmc``'s passes less often."""
    from cardenvs import make
    from cardenvs.agent import load_agent, shipped_models
    from cardenvs.games.doudizhu import moves

    data = dmc_model.load_checkpoint(shipped_models()["doudizhu.dmc_stakes"])
    assert data["args"]["target"] == "points" and data["args"]["options"] == {"bidding": True}
    env = make("doudizhu_v0", bidding=True)
    passes = {}
    for name in ("doudizhu.dmc_stakes", "doudizhu.dmc"):
        agent = load_agent(name, env)
        first = []
        for k in range(40):
            env.reset(seed=900 + k)
            first.append(agent.act(env.observe(env.agent_selection), np.random.default_rng(0)))
        passes[name] = sum(a == moves.BID_PASS for a in first)
    assert passes["doudizhu.dmc_stakes"] > passes["doudizhu.dmc"], passes


def test_shipped_models_play_by_name_with_torch_alone():
    """``twos.dmc`` needs torch and nothing else of the train extra (a clean venv with torch found
    heads.py importing sb3_contrib): with SB3 and sb3-contrib unimportable it still plays a game."""
    code = (
        "import sys\n"
        "for name in ('stable_baselines3', 'sb3_contrib'):\n"
        "    sys.modules[name] = None\n"
        "from cardenvs.cli import main\n"
        "raise SystemExit(main(['arena', 'twos', '--agents', 'twos.dmc,random,random', '--games', '1', "
        "'--no-progress']))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "twos.dmc" in out.stdout


# ---------------------------------------------------------------- Guandan's long-run learner (issue 63)
def test_win_points_targets_are_the_win_and_a_share_of_the_points():
    """``target: win_points``: a Guandan hand whose team 0 goes out 1-3 (2 levels): each decision's target is
    sign + w * points of its seat's return, here +-(1 + 2/3); a seat whose return is 0 gets 0."""
    rewards = [np.zeros(4), np.zeros(4), np.array([2.0, -2.0, 2.0, -2.0])]
    seats = [0, 1, 2]
    got = dmc_actors.episode_targets(rewards, seats, points_weight=1 / 3)
    np.testing.assert_allclose(got, [1 + 2 / 3, -1 - 2 / 3, 1 + 2 / 3])
    np.testing.assert_allclose(dmc_actors.episode_targets([np.zeros(2)], [0], points_weight=0.5), [0.0])
    ring = dmc_actors.EpisodeRing(1, 4, 4, capacity=8, points_weight=1 / 3)
    out = []
    for t in range(3):
        ring.add(np.zeros((1, 4), dtype=np.int8), np.array([t]), np.array([seats[t]]), np.array([0]))
        out += ring.finish_step(rewards[t][None, :], np.array([t == 2]))
    np.testing.assert_allclose(out[0][3], [1 + 2 / 3, -1 - 2 / 3, 1 + 2 / 3])
    assert dmc_args.env_reward("win_points") == "points"


def _guandan_args(**changes):
    base = dict(game="guandan_v0", num_envs=8, rollout_steps=20, hidden=[8], move_hidden=4, head_hidden=4)
    base |= dict(history_channels=0)
    return dmc_args.Args(**{**base, **changes})


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--set", "opponent=danzero:/tmp/x.onnx", "--set", "opponent_share=0.5"], "is a judge"),
        (["--set", "opponent={guandan.heuristic: 1, gdws:bot: 1}", "--set", "opponent_share=0.5"], "is a judge"),
        (["--set", "opponent=random", "--set", "opponent_share=0.5", "--eval-against", "random"], "eval-only"),
        (["--set", "snapshot_share=0.5"], "snapshot_share and snapshot_minutes go together"),
        (
            [
                "--set",
                "snapshot_share=0.5",
                "--set",
                "snapshot_minutes=1",
                "--set",
                "opponent_share=0.5",
                "--set",
                "opponent=random",
            ],
            "must stay below 1",
        ),  # fmt: skip
        (["--set", "features=twenty"], "features 'twenty'"),
        (["--set", "target=win_points", "--set", "horizon=3"], "horizon needs target points or margin"),
    ],
)
def test_judges_never_teach_and_bad_learner_settings_are_named(flags, message, capsys):
    """An eval-only opponent (eval_opponents, --eval-against) or a judge's kind (danzero:, gdws:) is refused as
    an opponent of the actors; the Actors assert it again."""
    with pytest.raises(SystemExit):
        dmc_args.parse_args(["--set", "game=guandan", "--total-frames", "1", *flags])
    assert message in capsys.readouterr().err
    with pytest.raises(ValueError, match="eval-only"):
        dmc_actors.Actors(
            _guandan_args(opponent="random", opponent_share=0.5, eval_opponents=["random"]),
            np.random.default_rng(0),
            deal_seed=1,
        )


def test_eval_against_adds_eval_only_opponents():
    args = dmc_args.parse_args(
        ["--set", "game=guandan", "--eval-against", "random", "--eval-against", "guandan.heuristic"]
    )
    assert args.eval_opponents == ["random", "guandan.heuristic"]


def test_past_selves_play_their_seats_from_the_pool(monkeypatch):
    """``snapshot_share``: a snapshot joins THE opponent pool after the networks' entry, taking its weight from the
    networks; the actors play its seats with its own frozen networks (greedy), never the agent loader."""
    args = _guandan_args(snapshot_share=0.4, snapshot_minutes=1.0, max_snapshots=2)
    actors = dmc_actors.Actors(args, np.random.default_rng(3), deal_seed=5)
    nets = dmc_model.build_nets(args.game, actors.layout, args).eval()
    assert actors.pool.opponents == [dmc_actors.NETWORKS] and not actors.snapshots()
    past = actors.add_snapshot(nets, frames=10)
    assert actors.snapshots() == [past] and past.nets is not nets
    np.testing.assert_allclose(actors.pool.probabilities(), [0.6, 0.4])
    for p_new, p_old in zip(past.nets.parameters(), nets.parameters(), strict=True):
        assert torch.equal(p_new, p_old)
    calls = []
    real = dmc_model.choose

    def recording(used, *rest):
        calls.append(used)
        return real(used, *rest)

    monkeypatch.setattr(dmc_actors, "choose", recording)  # the name the actors call
    actors.draw_opponent_seats(np.arange(args.num_envs))
    assert (actors.seat_entry == 1).any() and (actors.seat_entry == 0).any()
    actors.collect(nets)
    assert any(used is past.nets for used in calls) and any(used is nets for used in calls)
    actors.add_snapshot(nets, 20)
    actors.add_snapshot(nets, 30)
    np.testing.assert_allclose(actors.pool.probabilities(), [0.6, 0.0, 0.2, 0.2])  # the newest two share it


def test_a_danzero_features_model_plays_alike_in_the_aec_env_and_in_batches(tmp_path):
    """``features: danzero``: the agent appends the 513 from the env's state (AEC: its one game; batched: the
    batch's games) and chooses the same moves either way; without the state it refuses to score."""
    from cardenvs import guandan_v0
    from cardenvs.agent import BatchGames

    args = _guandan_args(features="danzero", hidden=[16])
    layout = guandan_v0.env().unwrapped.layout
    nets = dmc_model.build_nets(args.game, layout, args)
    assert nets[0].state_mlp[0].in_features == layout.size + 513
    path = tmp_path / "model.pt"
    dmc.save_checkpoint(path, nets, [torch.optim.Adam(nets.parameters())], args, 0, 0.0)
    batch = vector.make("guandan_v0", 6)
    obs, _ = batch.reset(seed=11)
    rng = np.random.default_rng(0)
    for _ in range(30):
        batch.step(batch.agent_actions("random"))
    obs = {"observation": batch._b.obs.copy(), "action_mask": batch._b.mask.copy()}
    env = guandan_v0.env()
    env.reset(seed=0)
    agent = dmc_model.DMCAgent(env, str(path))
    together = agent.act_batch(obs, [rng] * 6, games=BatchGames(batch, np.arange(6), batch._b.mask))
    for b in range(6):
        env.unwrapped.set_state(batch.state[b], params=batch._b.params)
        row = {"observation": obs["observation"][b], "action_mask": obs["action_mask"][b].astype(np.int8)}
        assert agent.act(row, rng) == together[b]
    with pytest.raises(ValueError, match="from the game's state"):
        agent.act_batch(obs, [rng] * 6)


@pytest.mark.slow
def test_the_long_run_config_smoke_runs_evaluates_and_resumes_with_its_past_selves(tmp_path):
    """configs/guandan_dmc_v2.yaml through a subprocess, tiny: danzero features, DanZero's network size,
    win_points, past selves (saved with the checkpoint, back in the pool after --resume), an eval-only opponent
    given on the command line with a row of its own in eval.csv."""
    out = str(tmp_path)
    tiny = ["--set", "num_envs=16", "--set", "eval_minutes=0", "--set", "snapshot_minutes=0.000001"]
    first = _run(
        "-m", "cardenvs.training.dmc", "--config", "configs/guandan_dmc_v2.yaml", "--total-frames", "2048",
        "--out", out, "--final-eval-games", "2", "--eval-against", "random", *tiny,
    )  # fmt: skip
    assert first.returncode == 0, first.stderr[-2000:]
    assert "joins the opponent pool" in first.stdout
    run_dir = tmp_path / "guandan__dmc_v2__1"
    saved = torch.load(run_dir / "snapshots.pt", weights_only=True)
    assert 1 <= len(saved) <= 5
    with open(run_dir / "eval.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["opponent"] for r in rows] == ["guandan.heuristic", "random"]
    data = dmc_model.load_checkpoint(run_dir / "model.pt")
    assert data["args"]["features"] == "danzero" and data["args"]["hidden"] == [512] * 5
    resumed = _run(
        "-m", "cardenvs.training.dmc", "--config", "configs/guandan_dmc_v2.yaml", "--total-frames", "3072",
        "--out", out, "--final-eval-games", "0", "--resume", *tiny,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert f"{len(saved)} past selves back in the opponent pool" in resumed.stdout
    assert dmc_model.load_checkpoint(run_dir / "model.pt")["frames"] >= 3072
