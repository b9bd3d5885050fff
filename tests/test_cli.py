"""The command line: every subcommand's --help, arena output, errors that say what to do, terminal play."""

import io
import json
import subprocess
import sys

import pytest

from cardenvs.arena import Results
from cardenvs.cli import build_parser, main
from cardenvs.play import play_terminal


def subcommands():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return list(sub.choices)


@pytest.mark.parametrize("command", ["list", "arena", "play", "analyze", "bench", "train"])
def test_help(command, capsys):
    assert command in subcommands()
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    assert "usage: cardenvs" in capsys.readouterr().out


def test_analyze_war_help_and_run(capsys):
    with pytest.raises(SystemExit):
        main(["analyze", "war", "--help"])
    assert main(["analyze", "war", "--games", "500"]) == 0
    out = capsys.readouterr().out
    assert "3.132436174322294e-09" in out and "160 million" not in out
    assert "one sweep (either player) in about 159,620,172 games" in out


def test_list(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "war_v0" in out and "war_face_down" in out and "random" in out


def test_errors_say_what_to_do(capsys):
    assert main(["arena", "chess", "--agents", "random,random"]) == 2
    assert "unknown game 'chess'; known games" in capsys.readouterr().err
    assert main(["arena", "war", "--agents", "random,nobody", "--no-progress"]) == 2
    assert "unknown agent 'nobody'; known agents for war: random" in capsys.readouterr().err
    assert main(["arena", "war", "--agents", "random", "--no-progress"]) == 2
    assert "seats 2 players" in capsys.readouterr().err
    assert main(["arena", "war", "--agents", "random,random", "-o", "war_face_down=9", "--no-progress"]) == 2
    assert "war_face_down=9 is out of range" in capsys.readouterr().err
    assert main(["arena", "war", "--agents", "random,random", "-o", "oops"]) == 2
    assert "key=value" in capsys.readouterr().err


def test_arena_json_round_trip(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert (
        main(
            [
                "arena",
                "war",
                "--agents",
                "random,random",
                "--games",
                "6",
                "--out",
                str(out),
                "--no-progress",
                "-o",
                "max_turns=50",
            ]
        )
        == 0
    )
    data = json.loads(out.read_text())
    assert data["options"] == {"max_turns": 50} and data["seed"] == 0 and data["version"]
    loaded = Results.load(str(out))
    assert loaded.stats() == Results.from_dict(data).stats()
    assert loaded.to_dict()["stats"] == data["stats"]
    assert (tmp_path / "r.csv").read_text().startswith("agent,games,wins")


def test_play_through_stdin_with_bad_input():
    stdin = io.StringIO("nonsense\n#7\n" + "flip\n" * 20000)
    stdout = io.StringIO()
    assert play_terminal("war_v0", "random", {"max_turns": 30}, 0, 3, False, stdin, stdout) == 0
    text = stdout.getvalue()
    assert "not accepted: 'nonsense' is not a legal move" in text
    assert "#7 is not a listed code" in text
    assert "game over" in text


def test_play_prints_the_real_scores():
    """War single pass from seed 3: the scores printed are the battles each player won (not None)."""
    import cardenvs
    from cardenvs.core.play import play_episode

    stdout = io.StringIO()
    assert play_terminal("war", "random", {"single_pass": True}, 0, 3, False, io.StringIO("flip\n" * 30), stdout) == 0
    env = cardenvs.make("war", single_pass=True)
    play_episode(env, lambda seat, obs: 0, seed=3)
    won = [int(x) for x in env.scores()]
    assert 0 < sum(won) <= 26  # tied battles go to nobody
    text = stdout.getvalue()
    assert "None" not in text
    assert f"game over: scores player_0 {won[0]} (you), player_1 {won[1]};" in text


def test_console_script_entry_point():
    out = subprocess.run([sys.executable, "-m", "cardenvs.cli", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and "cardenvs" in out.stdout


def test_list_piped_into_head_exits_quietly():
    out = subprocess.run(
        f"'{sys.executable}' -m cardenvs.cli list | head -2", shell=True, capture_output=True, text=True
    )
    assert out.stdout.startswith("cardenvs ") and len(out.stdout.splitlines()) == 2
    assert "Traceback" not in out.stderr and "BrokenPipe" not in out.stderr, out.stderr


def test_analyze_baselines_small(capsys):
    assert main(["analyze", "baselines", "--scale", "0.005"]) == 0
    out = capsys.readouterr().out
    assert out.count("win rate") == 8 and "doudizhu.rule as farmer" in out


@pytest.mark.parametrize("game", ["twenty_v0", "twos_v0", "doudizhu_v0", "two_way_street_v0", "guandan_v0"])
def test_play_every_game_through_stdin(game):
    options = {"target": 4} if game == "two_way_street_v0" else {}
    stdin = io.StringIO("this is not a move\n" + "#0\n" * 5000)
    stdout = io.StringIO()
    assert play_terminal(game, "random", options, 1, 7, True, stdin, stdout) == 0
    text = stdout.getvalue()
    assert "not accepted:" in text and "game over" in text


# ---------------------------------------------------------------- user mistakes: one line, status 2, nothing run
@pytest.fixture
def nothing_runs(monkeypatch):
    """Fail the test if a tournament or a game starts: the mistakes below must be found before."""
    from cardenvs import arena, play

    def ran(*args, **kwargs):
        raise AssertionError("the command ran although its arguments were wrong")

    monkeypatch.setattr(arena, "run_plan", ran)
    monkeypatch.setattr(play, "run_play", ran)


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def error_of(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("cardenvs: error: ") and "Traceback" not in err and err.count("\n") == 1, err
    return err


ARENA = ["arena", "twos", "--agents", "random,random,random", "--no-progress", "--games", "2"]


def test_config_mistakes(tmp_path, capsys, nothing_runs):
    empty = write(tmp_path, "empty.yaml", "")
    assert f"config file {empty} is empty: it sets nothing" in error_of(capsys, ARENA + ["--config", empty])
    bad = write(tmp_path, "bad.yaml", "game: twos\noptions: [3\n")
    assert "is not valid YAML: expected ',' or ']'" in error_of(capsys, ARENA + ["--config", bad])
    null = write(tmp_path, "null.yaml", "game: twos\noptions:\n")
    assert "options must be a mapping of twos_v0 options" in error_of(capsys, ARENA + ["--config", null])
    listed = write(tmp_path, "list.yaml", "game: twos\noptions: [players, 3]\n")
    assert "got list" in error_of(capsys, ARENA + ["--config", listed])
    assert "is a folder, not a regular file" in error_of(capsys, ARENA + ["--config", str(tmp_path)])
    extra = write(tmp_path, "extra.yaml", "game: twos_v0\nseed: 5\nbogus_key: 1\noptions: {}\n")
    assert "unknown key 'seed'" in error_of(capsys, ARENA + ["--config", extra])
    other = write(tmp_path, "war.yaml", "game: war_v0\noptions: {}\n")
    assert "is for war_v0, but the command plays twos_v0" in error_of(capsys, ARENA + ["--config", other])
    assert "is for war_v0" in error_of(capsys, ["play", "twos", "--config", other])
    assert "looks like a training config" in error_of(capsys, ARENA + ["--config", "configs/twos_ppo.yaml"])
    plain = write(tmp_path, "plain.yaml", "players: 3\nbogus_key: 1\n")
    assert "unknown option 'bogus_key'" in error_of(capsys, ARENA + ["--config", plain])
    assert "is not valid YAML" in error_of(capsys, ARENA + ["-o", "players=[3"])
    assert "given twice" in error_of(capsys, ARENA + ["-o", "players=3", "-o", "players=4"])


def test_config_options_are_used(tmp_path, capsys):
    config = write(tmp_path, "c.yaml", "game: war\noptions: {max_turns: 7}\n")
    out = tmp_path / "r.json"
    assert (
        main(
            [
                "arena",
                "war",
                "--agents",
                "random,random",
                "--games",
                "2",
                "--no-progress",
                "--config",
                config,
                "-o",
                "war_face_down=2",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert json.loads(out.read_text())["options"] == {"max_turns": 7, "war_face_down": 2}


def test_path_and_agent_mistakes(tmp_path, capsys, nothing_runs):
    missing = tmp_path / "nowhere"
    assert "--out: cannot write the results" in error_of(capsys, ARENA + ["--out", str(missing / "r.json")])
    assert "--plot: cannot write the plot" in error_of(capsys, ARENA + ["--plot", str(missing / "r.png")])
    assert "is a folder" in error_of(capsys, ARENA + ["--out", str(tmp_path)])
    assert "os:path is a module, not a class" in error_of(
        capsys, ["arena", "twos", "--agents", "os:path,random,random", "--no-progress"]
    )
    assert "agent 'twenty.greedy' plays twenty, not twos" in error_of(
        capsys, ["arena", "twos", "--agents", "twenty.greedy,random,random", "--no-progress"]
    )
    assert "empty name" in error_of(capsys, ["arena", "twos", "--agents", "random,,random", "--no-progress"])
    assert "war_v0 has no role phase" in error_of(capsys, ["arena", "war", "--agents", "random,random", "--role-phase"])
    assert "--seat 5 is not a seat of war_v0" in error_of(capsys, ["play", "war", "--seat", "5"])
    assert "plays twenty, not war" in error_of(capsys, ["play", "war", "--agents", "twenty.greedy"])


@pytest.mark.parametrize(
    "argv,flag",
    [
        (ARENA + ["--seed", "-1"], "--seed"),
        (ARENA + ["--games", "0"], "--games"),
        (ARENA + ["--workers", "0"], "--workers"),
        (["play", "war", "--seed", "-2"], "--seed"),
        (["play", "war", "--seat", "-1"], "--seat"),
    ],
)
def test_numbers_name_their_flag(argv, flag, capsys, nothing_runs):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert f"argument {flag}: expected an integer >=" in capsys.readouterr().err


def test_a_bug_keeps_its_traceback(monkeypatch):
    """A ValueError once the checked work runs is a bug: it is not turned into a one-line user error."""
    from cardenvs import arena, play

    def bug(*args, **kwargs):
        raise ValueError("a bug deep inside")

    monkeypatch.setattr(arena, "run_plan", bug)
    monkeypatch.setattr(play, "run_play", bug)
    with pytest.raises(ValueError, match="a bug deep inside"):
        main(ARENA)
    with pytest.raises(ValueError, match="a bug deep inside"):
        main(["play", "war"])


def test_train_refuses_a_config_of_another_game(tmp_path, capsys, monkeypatch):
    pytest.importorskip("sb3_contrib")
    import cardenvs.training.selfplay

    calls = []
    monkeypatch.setattr(cardenvs.training.selfplay, "main", lambda argv: calls.append(argv) or 0)
    assert "trains twenty_v0, but the command names twos_v0" in error_of(
        capsys, ["train", "twos", "--config", "configs/twenty_ppo.yaml"]
    )
    assert "--set game=war trains war_v0" in error_of(
        capsys, ["train", "twos", "--config", "configs/twos_ppo.yaml", "--set", "game=war"]
    )
    assert "is not valid YAML" in error_of(capsys, ["train", "twos", "--config", write(tmp_path, "b.yaml", "a: [")])
    empty = write(tmp_path, "empty.yaml", "# nothing yet\n")
    assert f"training config {empty} is empty" in error_of(capsys, ["train", "twos", "--config", empty])
    assert "--algo 'nosuch' is not an installed trainer; known: ppo (= sb3), dmc" in error_of(
        capsys, ["train", "twos", "--algo", "nosuch"]
    )
    assert "--backend 'nosuch' is not an installed trainer" in error_of(capsys, ["train", "twos", "--backend=nosuch"])
    assert not calls
    no_game = write(tmp_path, "no_game.yaml", "exp: mine\n")
    assert main(["train", "twos", "--config", no_game, "--total-timesteps", "10"]) == 0  # the trainer's old flag
    assert calls == [["--config", no_game, "--set", "game=twos_v0", "--total-timesteps", "10"]]


def test_selfplay_config_keys_are_checked(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    from cardenvs.training.selfplay import parse_args

    for sets, message in (
        (["game=twenty", "ppo.learnin_rate=1"], "unknown ppo keys ['learnin_rate']"),
        (["options=[1]"], "config key options must be a mapping"),
        (["game=twos", "options.players=9"], "players=9 is out of range"),
        (["game=chess"], "unknown game 'chess'"),
        (["game=twenty", "options.bogus=1"], "unknown option 'bogus'"),
        (["bogus_key=1"], "unknown config keys ['bogus_key']"),
        (["seed=1"], "no game: name one"),
    ):
        with pytest.raises(SystemExit):
            parse_args([arg for s in sets for arg in ("--set", s)])
        assert message in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parse_args(["--config", write(tmp_path, "bad.yaml", "seed: [")])
    assert "is not valid YAML" in capsys.readouterr().err
    assert parse_args(["--config", "configs/twos_ppo.yaml"]).game == "twos_v0"


def test_arena_bidding_reports_roles_and_warns_of_overrides(capsys):
    assert (
        main(
            [
                "arena",
                "doudizhu",
                "--agents",
                "doudizhu.rule,random,random",
                "--games",
                "3",
                "--no-progress",
                "--bidding",
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    assert "bidding on" in captured.out and "roles (the agents bid for the landlord)" in captured.out
    assert "warning" not in captured.err
    assert (
        main(
            [
                "arena",
                "doudizhu",
                "--agents",
                "doudizhu.rule,random,random",
                "--games",
                "1",
                "--no-progress",
                "-o",
                "bidding=true",
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    assert "roles (duplicate mode: player_0 is landlord at bid 1" in captured.out
    assert captured.err.startswith("cardenvs: warning: doudizhu_v0: the duplicate mode plays every deal")
    assert "override the option bidding=True" in captured.err


# ---------------------------------------------------------------- named variants
def test_variant_option_applies_the_named_variant_and_explicit_options_override_it():
    import cardenvs
    from cardenvs import vector

    config = cardenvs.make("twenty", variant="exposed_swap").unwrapped.config
    assert config["exposed_hands"] is True and config["swap_deals"] is True
    config = cardenvs.make("war", variant="short", max_turns=50).unwrapped.config
    assert config["max_turns"] == 50 and config["reward"] == "points"  # the explicit option wins
    assert cardenvs.make("war", variant="default").unwrapped.config == cardenvs.make("war").unwrapped.config
    assert vector.make("war", 2, variant="short").reset(seed=0) is not None
    with pytest.raises(ValueError, match="unknown variant 'exposed_swapped'; known variants: default, exposed_swap"):
        cardenvs.make("twenty", variant="exposed_swapped")
    with pytest.raises(ValueError, match=r"accepted options: .*variant \(one of default, exposed_swap"):
        cardenvs.make("twenty", variantt="exposed_swap")


def test_variant_on_the_command_line(tmp_path, capsys):
    assert main(["list"]) == 0
    assert "variants (-o variant=NAME): three_down=" in capsys.readouterr().out
    out = tmp_path / "r.json"
    argv = ["arena", "war", "--agents", "random,random", "--games", "2", "--no-progress", "--out", str(out)]
    assert main(argv + ["-o", "variant=short", "-o", "max_turns=30"]) == 0
    assert json.loads(out.read_text())["options"] == {"variant": "short", "max_turns": 30}
    assert "unknown variant 'nosuch'; known variants: default, three_down" in error_of(
        capsys, argv + ["-o", "variant=nosuch"]
    )


# ---------------------------------------------------------------- leaving a terminal game
@pytest.mark.parametrize("leave", ["quit\n", "EXIT\n", ""])  # typed, in capitals, or the input closing (EOF)
def test_play_quit_exits_0_with_a_goodbye_and_bad_input_reprompts(leave, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("nonsense\n#99\nhelp\n" + leave))
    assert main(["play", "twenty", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "not accepted: 'nonsense'" in out and "#99 is not a listed code" in out
    assert out.count("> ") == 4  # three bad inputs, each answered with the prompt again
    assert "goodbye: game left unfinished" in out and "game over" not in out


# ---------------------------------------------------------------- cardenvs train: one grammar for every trainer
TRAINER_MODULES = {
    "ppo": "cardenvs.training.selfplay",
    "dmc": "cardenvs.training.dmc",
    "rllib": "cardenvs.training.rllib_selfplay",
}
#: each trainer's config keys of the shared budget flags --steps and --minutes
BUDGET_KEYS = {
    "ppo": ("total_timesteps", "time_limit_minutes"),
    "dmc": ("total_frames", "minutes"),
    "rllib": ("total_steps", "minutes"),
}


def test_train_help_lists_the_shared_flags(capsys):
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    out = capsys.readouterr().out
    for flag in ("--algo", "--config", "--set", "--steps", "--minutes", "--out", "--seed"):
        assert flag in out
    assert "python -m cardenvs.training.dmc --help" in out  # where each trainer's own flags are listed


@pytest.mark.parametrize("algo", ["ppo", "dmc", "rllib"])
def test_the_shared_flags_reach_every_trainer(algo, tmp_path, monkeypatch):
    pytest.importorskip("ray" if algo == "rllib" else "sb3_contrib" if algo == "ppo" else "torch")
    import importlib

    module = importlib.import_module(TRAINER_MODULES[algo])
    calls = []
    monkeypatch.setattr(module, "main", lambda argv: calls.append(argv) or 0)
    flags = ["--steps", "500", "--minutes", "1.5", "--out", str(tmp_path), "--seed", "3", "--set", "exp=mine"]
    assert main(["train", "twenty", "--algo", algo, *flags]) == 0
    config = f"configs/twenty_{algo}.yaml"
    assert calls == [
        ["--config", config, "--set", "game=twenty_v0", "--set", "exp=mine", "--steps", "500", "--minutes", "1.5",
         "--out", str(tmp_path), "--seed", "3"]
    ]  # fmt: skip
    settings = module.parse_args(calls[0])  # the trainer reads them into its own config keys
    settings = settings if isinstance(settings, dict) else vars(settings)
    steps, minutes = BUDGET_KEYS[algo]
    assert (settings[steps], settings[minutes]) == (500, 1.5)
    assert (settings["out"], settings["seed"], settings["exp"], settings["game"]) == (
        str(tmp_path),
        3,
        "mine",
        "twenty_v0",
    )
    # --backend is the old spelling of --algo; trainer flags not shared pass through as they are
    calls.clear()
    assert main(["train", "twenty", "--backend", algo, "--set", "game=twenty", "--eval-games", "4"]) == 0
    assert calls == [["--config", config, "--set", "game=twenty_v0", "--set", "game=twenty", "--eval-games", "4"]]


#: tiny settings of each trainer (a few seconds of training)
TINY_TRAINERS = {
    "ppo": ["--set", "n_envs=2", "--set", "ppo.n_steps=64", "--set", "ppo.batch_size=32", "--set", "eval_every=100000",
            "--set", "eval_games=1", "--set", "final_eval_games=1", "--no-progress"],
    "dmc": ["--set", "num_envs=16", "--set", "batch_size=64", "--set", "rollout_steps=8", "--set", "hidden=[32]",
            "--set", "move_hidden=16", "--set", "head_hidden=16", "--set", "eval_minutes=0",
            "--set", "final_eval_games=0"],
}  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("algo, counted", [("ppo", 128), ("dmc", 128)])
def test_train_steps_runs_the_budget_or_names_the_count_it_rounds_up_to(algo, counted, tmp_path):
    """--steps 100 with rollouts of 64 x 2 timesteps (ppo) or batches of 64 frames (dmc): the trainer says it
    rounds up to 128 and the run trains exactly 128, not a whole config-sized rollout more."""
    pytest.importorskip("sb3_contrib" if algo == "ppo" else "torch")
    cmd = [sys.executable, "-m", "cardenvs", "train", "twos", "--algo", algo, "--steps", "100", "--out", str(tmp_path)]
    out = subprocess.run([*cmd, *TINY_TRAINERS[algo]], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.count("rounded up to 128") == 1, out.stdout
    run_dir = next(tmp_path.iterdir())
    if algo == "ppo":
        final = (run_dir / "eval.csv").read_text().splitlines()[-1]
        assert int(final.split(",")[0]) == counted  # the final evaluation's timesteps: model.num_timesteps
        assert f"({counted:,} timesteps)" in out.stdout
    else:
        from cardenvs.training.dmc_model import load_checkpoint

        assert load_checkpoint(run_dir / "model.pt")["frames"] == counted
        assert f"({counted:,} frames)" in out.stdout


def test_rllib_names_the_steps_it_sampled_when_they_are_not_the_budget():
    from cardenvs.training.rllib_selfplay import DEFAULTS, steps_note

    cfg = {**DEFAULTS, "total_steps": 2048, "train_batch_size_per_learner": 4000}
    assert steps_note(cfg, 1, 4000) == (
        "total_steps (--steps) 2,048: sampled 4,000 env steps in 1 iteration (each iteration samples about "
        "train_batch_size_per_learner=4,000 env steps)"
    )
    assert "another budget" in steps_note({**cfg, "total_steps": 10**6}, 50, 200_000)
    assert steps_note(cfg, 1, 2048) is None and steps_note({**cfg, "total_steps": None}, 3, 12_000) is None


@pytest.mark.parametrize(
    "argv,flag",
    [
        (["--steps", "0"], "--steps"),
        (["--minutes", "-1"], "--minutes"),
        (["--minutes", "inf"], "--minutes"),
        (["--seed", "-1"], "--seed"),
    ],
)
def test_train_budget_mistakes_name_their_flag(argv, flag, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["train", "twenty", *argv])
    assert exc.value.code == 2 and f"argument {flag}" in capsys.readouterr().err


@pytest.mark.parametrize(
    "algo,module,extra",
    [("ppo", "sb3_contrib", "train"), ("dmc", "torch", "train"), ("rllib", "ray", "scale")],
)
def test_a_missing_extra_is_one_line_naming_it(algo, module, extra, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, module, None)  # as if not installed: find_spec None, import fails
    argv = ["train", "twenty"] + (["--algo", algo] if algo != "ppo" else [])
    err = error_of(capsys, argv)
    assert f"cardenvs train --algo {algo} needs the {extra} extra: pip install 'cardenvs[{extra}]'" in err
    assert f"({module} not installed)" in err


def test_a_missing_extra_found_only_on_import_is_one_line_too(capsys, monkeypatch):
    from cardenvs import cli

    monkeypatch.setattr(cli.train, "_missing_extra", lambda algo, backend: None)
    monkeypatch.setitem(sys.modules, "torch", None)
    for name in [m for m in sys.modules if m.startswith("cardenvs.training.dmc")]:
        monkeypatch.delitem(sys.modules, name)  # imported again: import torch fails
    err = error_of(capsys, ["train", "twenty", "--algo", "dmc"])
    assert (
        "cardenvs train --algo dmc needs the train extra: pip install 'cardenvs[train]' (torch does not import)" in err
    )


def test_a_bug_in_a_trainer_keeps_its_traceback(monkeypatch):
    pytest.importorskip("sb3_contrib")
    import cardenvs.training.selfplay

    def bug(argv):
        raise ModuleNotFoundError("No module named 'helpers_typo'", name="helpers_typo")

    monkeypatch.setattr(cardenvs.training.selfplay, "main", bug)
    with pytest.raises(ModuleNotFoundError, match="helpers_typo"):
        main(["train", "twenty"])
    monkeypatch.setitem(sys.modules, "cardenvs.training.selfplay", None)  # the trainer itself does not import
    with pytest.raises(ModuleNotFoundError, match="cardenvs.training.selfplay"):
        main(["train", "twenty"])


# ---------------------------------------------------------------- progress on stderr for long commands
def test_every_study_has_a_no_progress_flag(capsys):
    from cardenvs.cli.games import _analyses

    for study in _analyses():
        with pytest.raises(SystemExit):
            main(["analyze", study, "--help"])
        assert "--no-progress" in capsys.readouterr().out, study


def test_analyze_twenty_variants_shows_progress(capsys):
    # the study's report (it was also run with 4 matches in test_twenty.py: one run does for both)
    assert main(["analyze", "twenty-variants", "--matches", "1"]) == 0
    captured = capsys.readouterr()
    out = captured.out
    assert out.count("twenty.solver") >= 4 and "skill gained by exposing hands" not in out
    assert "solver's margin over greedy with hands exposed" in out and "sampled opponent hands" in out
    assert "exposed " in out and "hidden " in out
    assert "[1/6] hands hidden: twenty.solver vs twenty.greedy" in captured.err
    assert "[6/6] hands exposed: twenty.greedy vs random" in captured.err
    assert "2/2" in captured.err  # the arena's bar: 1 deal x 2 seatings per pairing
    assert "solver's margin over greedy with hands exposed" in captured.out and "[1/6]" not in captured.out


def test_analyze_bombs_and_war_show_progress_with_the_same_counts(capsys):
    from cardenvs.games.twos.bomb_study import run_census

    assert run_census(13, 5000, seed=2, progress=True) == run_census(13, 5000, seed=2)  # chunks in pieces: same counts
    assert "hands dealt" in capsys.readouterr().err
    assert main(["analyze", "war", "--games", "300"]) == 0
    assert "war games" in capsys.readouterr().err
    assert main(["analyze", "war", "--games", "300", "--no-progress"]) == 0
    assert capsys.readouterr().err == ""


def test_bench_shows_progress_while_a_benchmark_runs(tmp_path, capsys, monkeypatch):
    from cardenvs import cli

    (tmp_path / "slowbench.py").write_text(
        "import time\n\ndef run(quick):\n    time.sleep(0.5)\n"
        "    return [{'benchmark': 'nap', 'value': 1.0, 'unit': 'naps/s'}]\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(cli.tools, "_checkout_benchmarks", lambda: {"nap": "slowbench:run"})
    monkeypatch.setattr(cli.tools, "plugins", lambda group: {})
    monkeypatch.setattr(cli.tools, "BENCH_TICK_SECONDS", 0.1)
    assert main(["bench"]) == 0
    captured = capsys.readouterr()
    assert "[1/1] running nap (slowbench:run) ..." in captured.err and "nap still running" in captured.err
    assert "naps/s" in captured.out
    assert main(["bench", "--no-progress"]) == 0
    assert capsys.readouterr().err == ""
