"""The command line: every subcommand's --help, arena output, errors that say what to do, terminal play."""
import io
import json
import subprocess
import sys

import pytest

from cardenvs.arena import Results, run_tournament
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
    assert "unknown agent 'nobody'; known agents: random" in capsys.readouterr().err
    assert main(["arena", "war", "--agents", "random", "--no-progress"]) == 2
    assert "seats 2 players" in capsys.readouterr().err
    assert main(["arena", "war", "--agents", "random,random", "-o", "war_face_down=9", "--no-progress"]) == 2
    assert "war_face_down=9 is out of range" in capsys.readouterr().err
    assert main(["arena", "war", "--agents", "random,random", "-o", "oops"]) == 2
    assert "key=value" in capsys.readouterr().err


def test_arena_json_round_trip(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["arena", "war", "--agents", "random,random", "--games", "6", "--out", str(out),
                 "--no-progress", "-o", "max_turns=50"]) == 0
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


def test_console_script_entry_point():
    out = subprocess.run([sys.executable, "-m", "cardenvs.cli", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and "cardenvs" in out.stdout


def test_list_piped_into_head_exits_quietly():
    out = subprocess.run(f"'{sys.executable}' -m cardenvs.cli list | head -2", shell=True, capture_output=True,
                         text=True)
    assert out.stdout.startswith("cardenvs ") and len(out.stdout.splitlines()) == 2
    assert "Traceback" not in out.stderr and "BrokenPipe" not in out.stderr, out.stderr


def test_analyze_baselines_small(capsys):
    assert main(["analyze", "baselines", "--scale", "0.005"]) == 0
    out = capsys.readouterr().out
    assert out.count("win rate") == 7 and "doudizhu.rule as farmer" in out


@pytest.mark.parametrize("game", ["twenty_v0", "twos_v0", "doudizhu_v0", "two_way_street_v0"])
def test_play_every_game_through_stdin(game):
    options = {"target": 4} if game == "two_way_street_v0" else {}
    stdin = io.StringIO("this is not a move\n" + "#0\n" * 5000)
    stdout = io.StringIO()
    assert play_terminal(game, "random", options, 1, 7, True, stdin, stdout) == 0
    text = stdout.getvalue()
    assert "not accepted:" in text and "game over" in text
