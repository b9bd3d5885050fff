"""The one AEC play loop of the project (:func:`play_on`) and whole games played with it (:func:`play_episode`):
the arena, terminal play, the web app, replays, studies, benchmarks and tests play through them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from pettingzoo import AECEnv


@dataclass
class Episode:
    """What :func:`play_episode` saw of a game played to its end; lists are per seat (``possible_agents``
    order)."""

    #: actions the agents took (the dead steps that step finished agents out are not counted)
    steps: int
    #: each seat's rewards summed over the game (``reward`` from ``last()`` on every turn, the last included)
    rewards: list[float]
    #: ``infos[agent]["score"]`` when each seat's game ended (0 for an env without scores)
    scores: list[float]
    #: the game ended by truncation (a turn limit) rather than by its rules
    truncated: bool = False
    #: the seat whose illegal action ended the game (an ``env()`` built with ``illegal_action="terminate"``)
    illegal: int | None = None


def play_episode(
    env: AECEnv,
    choose: Callable[[int, dict[str, np.ndarray]], int],
    *,
    seed: int | None = None,
    options: dict | None = None,
) -> Episode:
    """Reset ``env`` and play the game to its end with :func:`play_on` (the arena, terminal play, studies,
    benchmarks and tests play whole games this way)."""
    env.reset(seed=seed, options=options)
    return play_on(env, choose)


def play_on(
    env: AECEnv,
    choose: Callable[[int, dict[str, np.ndarray]], int],
    *,
    until: Callable[[int], bool] | None = None,
    moves: int | None = None,
) -> Episode:
    """The one AEC play loop of the project: from where ``env`` is, ``choose(seat, observation)`` gives the
    action of the seat to move (``observation`` is its ``{"observation", "action_mask"}`` dict), and finished
    agents are stepped out with ``None``, as the AEC loop requires. It stops at the game's end, before the
    seat to move when ``until(seat)`` is true (the web app's agents stop at the person's turn), or after
    ``moves`` actions (a replay stepped to a position). Works with any PettingZoo AEC env, seats being
    ``possible_agents`` indices; the :class:`Episode` counts what this call saw.
    """
    seats = {agent: i for i, agent in enumerate(env.possible_agents)}
    n = len(seats)
    rewards, scores = [0.0] * n, [0.0] * n
    steps, truncated, illegal = 0, False, None
    for agent in env.agent_iter():
        observation, reward, terminated, trunc, info = env.last()
        seat = seats[agent]
        rewards[seat] += reward
        if terminated or trunc:
            scores[seat] = float(info.get("score", 0.0))
            truncated = truncated or trunc
            if info.get("illegal_action"):
                illegal = seat
            env.step(None)
            continue
        if (moves is not None and steps >= moves) or (until is not None and until(seat)):
            break
        env.step(choose(seat, observation))
        steps += 1
    return Episode(steps, rewards, scores, truncated, illegal)
