"""The line protocol's cost: decisions per second of a trivial bot through ``cmd:`` (a Python program that plays
the lowest legal id, one JSON message and one line back per decision) as a ratio to the same logic as an
in-process Python agent, measured in the same run on the same seeded Twos and Dou Dizhu games (AEC env).

Botzone's protocol (``botzone:``): decisions per second of Botzone's test bot (``tests/bots/botzone_smallest.py``,
run with ``python -S``) in all three seats of seeded Dou Dizhu games with bidding, run once per turn (Botzone's
usual mode: a process per decision, given the whole game) and kept running (Botzone's long-running mode: a
process per seat and game, given each turn's request alone), the second as a ratio to the first."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

import cardenvs
from cardenvs.agent import load_agent
from cardenvs.core.play import play_episode

from .common import row

BOT = Path(__file__).resolve().parents[1] / "tests" / "bots" / "first_legal.py"
BOTZONE_BOT = Path(__file__).resolve().parents[1] / "tests" / "bots" / "botzone_smallest.py"


class FirstLegal:
    """The bot's logic in process."""

    name = "first_legal"

    def act(self, observation: dict, rng: np.random.Generator) -> int:
        return int(np.flatnonzero(observation["action_mask"])[0])


def decisions_per_second(env_id: str, name: str | None, games: int) -> float:
    """``name``: the agent (None: the in-process bot), built for the env it plays in."""
    env = cardenvs.make(env_id)
    agent = FirstLegal() if name is None else load_agent(name, env.unwrapped)
    rng = np.random.default_rng(0)
    play_episode(env, lambda seat, obs: agent.act(obs, rng), seed=0)  # warm-up: kernels, the program started
    decisions, start = 0, time.perf_counter()
    for g in range(games):
        decisions += play_episode(env, lambda seat, obs: agent.act(obs, rng), seed=1 + g).steps
    rate = decisions / (time.perf_counter() - start)
    if hasattr(agent, "close"):
        agent.close()
    return rate


def botzone_decisions_per_second(modes: str, games: int) -> float:
    """Botzone's test bot in every seat (``modes``: its arguments, ``keep`` for the long-running mode)."""
    env = cardenvs.make("doudizhu_v0")
    name = f"botzone:{sys.executable} -S {BOTZONE_BOT} {modes}(language=py)"
    agents = [load_agent(name, env.unwrapped) for _ in range(3)]
    rng = np.random.default_rng(0)

    def play(seed: int) -> int:
        for agent in agents:
            agent.reset()  # a new game: Botzone's protocol starts again (a kept program is stopped)
        return play_episode(env, lambda seat, obs: agents[seat].act(obs, rng), seed=seed).steps

    play(0)  # warm-up: kernels, the file cache
    decisions, start = 0, time.perf_counter()
    for g in range(games):
        decisions += play(1 + g)
    rate = decisions / (time.perf_counter() - start)
    for agent in agents:
        agent.close()
    return rate


def run(quick: bool = False) -> list[dict]:
    games = 3 if quick else 30
    rows = []
    botzone_games = 2 if quick else 10
    per_turn = botzone_decisions_per_second("", botzone_games)
    kept = botzone_decisions_per_second("keep", botzone_games)
    rows.append(
        row(
            "programs doudizhu_v0: Botzone bot run once per turn (botzone:)",
            per_turn,
            "decisions/s",
            note=f"{botzone_games} games with bidding, the bot in all 3 seats, a process per decision",
        )
    )
    rows.append(
        row(
            "programs doudizhu_v0: Botzone bot kept running (botzone:, long-running mode)",
            kept,
            "decisions/s",
            "doudizhu_v0 Botzone bot run once per turn (same run)",
            kept / per_turn,
            f"{botzone_games} games with bidding, a process per seat and game, each turn's request alone",
        )
    )
    for env_id in ("twos_v0", "doudizhu_v0"):
        through = decisions_per_second(env_id, f"cmd:{sys.executable} {BOT}", games)
        inside = decisions_per_second(env_id, None, games)
        rows.append(row(f"programs {env_id}: first-legal bot in process", inside, "decisions/s", note=f"{games} games"))
        rows.append(
            row(
                f"programs {env_id}: first-legal bot through cmd:",
                through,
                "decisions/s",
                f"{env_id} the same bot in process (same run)",
                through / inside,
                f"{games} games, one JSON line each way per decision",
            )
        )
    return rows
