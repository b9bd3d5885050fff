"""Bots as programs (``cmd:COMMAND``, :mod:`cardenvs.agent.program`): the line protocol round trip on every game,
a bot in another language, and every fault a program can make, each a recorded result and never a crash."""

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

import cardenvs
from cardenvs.agent import load_agent
from cardenvs.arena import run_tournament
from cardenvs.registry import env_ids

BOTS = Path(__file__).parent / "bots"
pytestmark = pytest.mark.usefixtures("needs_sandbox")  # tests/conftest.py: skips with the reason; fails in CI
PYTHON_BOT = f"cmd:{sys.executable} {BOTS / 'first_legal.py'}"


class FirstLegal:
    """The bots' logic as a Python agent: the legal move with the lowest id."""

    def __init__(self, env):
        self.name = "first_legal"

    def act(self, observation, rng):
        return int(np.flatnonzero(observation["action_mask"])[0])


def _games(results):
    return [(r.deal, r.replay, r.seats.index(results.agents[0]), r.outcome, r.scores, r.steps) for r in results.records]


@pytest.fixture
def python_class(monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "FirstLegal", FirstLegal)
    return f"{__name__}:FirstLegal"


@pytest.mark.parametrize("env_id", env_ids())
def test_a_program_plays_every_game_as_its_python_twin(env_id, python_class):
    """The same logic as a program and as a class: every game of a duplicate table is the same."""
    players = cardenvs.make(env_id).unwrapped.num_players
    others = ["random"] * (players - 1)
    program = run_tournament(env_id, [PYTHON_BOT, *others], games=2, seed=5, engine="aec")
    twin = run_tournament(env_id, [python_class, *others], games=2, seed=5, engine="aec")
    assert _games(program) == _games(twin)
    assert not program.faults()


def test_a_shell_and_awk_bot_plays_a_duplicate_table_as_the_python_one():
    shell = run_tournament("twos_v0", [f"cmd:{BOTS / 'first_legal.sh'}", "twos.heuristic", "random"], games=2, seed=2)
    python = run_tournament("twos_v0", [PYTHON_BOT, "twos.heuristic", "random"], games=2, seed=2)
    assert _games(shell) == _games(python)
    assert not shell.faults()


def test_the_message_holds_the_seats_own_view():
    env = cardenvs.make("doudizhu_v0")
    env.reset(seed=3)
    base = env.unwrapped
    agent = load_agent(PYTHON_BOT, base)
    seat = base.agent_name_mapping[base.agent_selection]
    observation = base.observe(base.agent_selection)
    from cardenvs.agent.program import decision_message

    message = json.loads(json.dumps(decision_message(base, seat, observation, agent.hand(seat))))
    assert message["game"] == "doudizhu_v0" and message["seat"] == seat
    assert len(message["hand"]) == 17  # the seat's own 17 cards, as codes
    assert [m["id"] for m in message["legal"]] == [int(a) for a in np.flatnonzero(observation["action_mask"])]
    assert set(message["observation"]) == set(base.layout.slices)
    assert agent.act(observation, np.random.default_rng(0)) == message["legal"][0]["id"]
    assert message["history"] == []
    env.step(message["legal"][0]["id"])
    later = decision_message(base, seat, base.observe(base.agent_selection), agent.hand(seat))
    assert later["history"] == [{"seat": seat, "move": message["legal"][0]["name"]}]
    agent.close()


FAULTS = {
    "start": "exit",
    "exit": "exit",
    "sleep": "timeout",
    "garbage": "garbage",
    "illegal": "illegal",
    "huge": "output",
    "deaf": "timeout",
}


@pytest.mark.parametrize("mode", sorted(FAULTS))
def test_a_fault_loses_the_game_and_the_table_goes_on(mode):
    bot = f"cmd:{sys.executable} {BOTS / 'faulty.py'} {mode}(move_ms=400)"
    results = run_tournament("twos_v0", [bot, "random", "random"], games=2, seed=1, engine="aec")
    assert len(results.records) == 12  # 2 deals x 6 seatings: every game was played or forfeited
    lost = [f for r in results.records for f in r.faults]
    assert lost and all(f["kind"] == FAULTS[mode] and f["forfeit"] for f in lost)
    label = results.agents[0]  # the arena's short label of the bot's name
    for r in results.records:
        if r.faults:
            assert r.outcome[r.seats.index(label)] == -1.0
    data = results.to_dict()
    assert data["faults"][label]["forfeits"][FAULTS[mode]] == len(lost)
    assert "games lost by a fault" in results.report()


@pytest.mark.parametrize("mode, detail", [("exit", "exited (status 1)"), ("kill", "killed by signal 9")])
def test_an_exit_fault_says_how_the_program_ended(mode, detail):
    # a program killed by a signal inside the sandbox (bubblewrap exits 128 + the signal) is told apart from exit(1)
    bot = f"cmd:{sys.executable} {BOTS / 'faulty.py'} {mode}(move_ms=400)"
    results = run_tournament("twos_v0", [bot, "random", "random"], games=1, seed=1, engine="aec", duplicate=False)
    faults = [f for r in results.records for f in r.faults]
    assert faults and all(f["kind"] == "exit" and detail in f["detail"] for f in faults), faults


def test_the_game_time_limit_ends_a_bot_whose_every_move_is_in_time():
    """game_ms: each decision after the first takes 1 s, a fifth of move_ms (5 s), but the game's 4 s are spent
    within a few decisions: the decision that runs out times out with the game's time left (under 4 s, so not
    the move's 5 s) as its limit, after at least one decision in time. The margins (4 s for the program's start
    and first answer, 4 s a decision beyond its 1 s) are what load cannot take; no wall clock is asserted."""
    bot = f"cmd:{sys.executable} {BOTS / 'faulty.py'} paced(move_ms=5000,game_ms=4000)"
    results = run_tournament("twos_v0", [bot, "random", "random"], games=1, seed=1, engine="aec", duplicate=False)
    [record] = results.records
    [fault] = record.faults
    assert fault["kind"] == "timeout" and fault["forfeit"], fault
    limit = int(fault["detail"].split("within ")[1].split(" ms")[0])
    assert limit < 4000, fault  # the game's time left, not the move's 5000 ms
    assert record.decisions[record.seats.index(results.agents[0])] >= 2  # the moves before it were in time


@pytest.mark.parametrize(("memory_mb", "faulted"), [(200, True), (2048, False)])
def test_the_memory_limit_faults_a_bot_that_asks_for_more(memory_mb, faulted):
    """memory_mb: the bot asks for 400 MB at its third decision; under 200 MB it gets a MemoryError and exits
    (an exit fault), under 2048 MB the same bot plays on."""
    bot = f"cmd:{sys.executable} {BOTS / 'faulty.py'} hog(memory_mb={memory_mb})"
    results = run_tournament("twos_v0", [bot, "random", "random"], games=1, seed=1, engine="aec", duplicate=False)
    lost = [f for r in results.records for f in r.faults]
    if faulted:
        assert lost and all(f["kind"] == "exit" for f in lost), lost
    else:
        assert lost == []


def test_with_a_fallback_the_fault_is_flagged_and_the_game_played_out():
    bot = f"cmd:{sys.executable} {BOTS / 'faulty.py'} garbage(fallback=random)"
    results = run_tournament("twos_v0", [bot, "random", "random"], games=1, seed=1, engine="aec")
    flagged = [f for r in results.records for f in r.faults]
    assert flagged and not any(f["forfeit"] for f in flagged)
    assert all(sorted(r.outcome) != [-1.0, 0.0, 0.0] for r in results.records)  # no game forfeited


def test_the_program_sees_none_of_the_callers_environment(monkeypatch):
    monkeypatch.setenv("CARDENVS_SECRET", "hunter2")
    bot = f"cmd:{sys.executable} {BOTS / 'faulty.py'} env"
    results = run_tournament("twos_v0", [bot, "random", "random"], games=1, seed=1, engine="aec")
    assert not results.faults()


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("cmd:", "no command"),
        ("cmd:/no/such/bot", "no program"),
        (f"cmd:{sys.executable}(speed=3)", "unknown parameter 'speed'"),
        (f"cmd:{sys.executable}(move_ms=0)", "must be positive"),
        (f"cmd:{sys.executable}(move_ms=fast)", "is not an integer"),
        ("cmd:'unclosed", "does not split"),
    ],
)
def test_bad_program_names_are_clear_errors(name, words):
    env = cardenvs.make("twos_v0").unwrapped
    with pytest.raises(ValueError, match=words):
        load_agent(name, env)


def test_programs_are_not_run_from_untrusted_names():
    env = cardenvs.make("twos_v0").unwrapped
    with pytest.raises(ValueError, match="not run here"):
        load_agent(PYTHON_BOT, env, registered_only=True)


def test_the_programs_folder_is_removed_with_it():
    env = cardenvs.make("twos_v0")
    env.reset(seed=1)
    agent = load_agent(PYTHON_BOT, env.unwrapped)
    agent.act(env.unwrapped.observe(env.unwrapped.agent_selection), np.random.default_rng(0))
    folder = agent._folder
    assert folder is not None and os.path.isdir(folder)
    agent.close()
    assert not os.path.exists(folder)
