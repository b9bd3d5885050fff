"""The line protocol's cost: decisions per second of a trivial bot through ``cmd:`` (a Python program that plays
the lowest legal id, one JSON message and one line back per decision) as a ratio to the same logic as an
in-process Python agent, measured in the same run on the same seeded Twos and Dou Dizhu games (AEC env)."""

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


def run(quick: bool = False) -> list[dict]:
    games = 3 if quick else 30
    rows = []
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
