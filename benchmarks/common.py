"""What the benchmarks share: the loop of every AEC measurement, a row of results, and the search scripts'
timed agent, interval and games of a deal (``search_goals.py`` and ``learned_search.py`` import this module as
``common``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from cardenvs.arena import agent_rng, game_seed, mean_ci, play_one
from cardenvs.core.play import play_episode

SAMPLER_NOTE = (
    "legal actions sampled with np.flatnonzero(mask.view(np.bool_)) (about 4 us on a 27,000-long "
    "mask; np.flatnonzero on the int8 mask itself ~60 us, gymnasium's masked sample ~22 us)"
)


def aec_random_steps_per_second(
    make_env: Callable[[], Any], seconds: float, seed: int = 0, env_legal_ids: bool = False
) -> tuple[float, int]:
    """Random masked play through the AEC API (``last()`` builds observation and mask every step) for about
    ``seconds``; returns (steps per second, games finished). Dead steps are not counted as steps. The legal
    moves come from the mask (the same for any PettingZoo env), or with ``env_legal_ids`` from the env's own
    list (``env.legal_actions()``, as RLCard's loop reads its ``legal_actions``)."""
    env = make_env()
    rng = np.random.default_rng(seed)

    def choose(seat: int, observation: dict) -> int:
        if env_legal_ids:
            legal = env.legal_actions()
        else:
            legal = np.flatnonzero(observation["action_mask"].view(np.bool_))
        return int(legal[rng.integers(len(legal))])

    play_episode(env, choose, seed=seed)  # warm-up (numba compilation, caches)
    steps = games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        steps += play_episode(env, choose, seed=int(rng.integers(2**31))).steps
        games += 1
    return steps / (time.perf_counter() - start), games


def row(
    benchmark: str, value: float, unit: str, reference: str | None = None, ratio: float | None = None, note: str = ""
) -> dict:
    return {
        "benchmark": benchmark,
        "value": float(value),
        "unit": unit,
        "reference": reference,
        "ratio": None if ratio is None else float(ratio),
        "note": note,
    }


class Timed:
    """Wraps an agent and records the wall time and the CPU time (this process only) of each ``act``."""

    def __init__(self, agent):
        self.agent = agent
        self.name = agent.name
        self.times: list[float] = []
        self.cpu: list[float] = []

    def act(self, observation, rng):
        t, c = time.perf_counter(), time.process_time()
        a = self.agent.act(observation, rng)
        self.times.append(time.perf_counter() - t)
        self.cpu.append(time.process_time() - c)
        return a


def ci(values) -> str:
    """``"mean [low, high] (n=N)"``, the 95% interval of :func:`cardenvs.arena.mean_ci`."""
    mean, low, high = mean_ci(values)
    return f"{mean:.3f} [{low:.3f}, {high:.3f}] (n={len(values)})"


def landlord_and_farmers(env, one, two, rule, seed: int, d: int) -> tuple[float, float]:
    """Deal ``d`` of Dou Dizhu (the arena's deal ``d`` of ``seed``, player_0 landlord at bid 1) twice: ``one`` as
    landlord against two ``rule`` farmers, then ``one`` and ``two`` as farmers against a ``rule`` landlord;
    1.0 where the landlord won the first, where the farmers won the second."""
    deal, fixed = game_seed(seed, d), {"landlord": 0, "bid": 1}
    lord = play_one(env, [one, rule, rule], ["s", "r", "r"], deal, agent_rng(seed, d, 1), fixed)
    farm = play_one(env, [rule, one, two], ["r", "s", "s"], deal, agent_rng(seed, d, 2), fixed)
    return float(lord.outcome[0] > 0), float(farm.outcome[1] > 0)


def each_seat(env, agent, heuristic, seed: int, d: int) -> list[float]:
    """The arena's deal ``d`` of ``seed`` once per seat, ``agent`` in it and ``heuristic`` in the others; 1.0
    where ``agent`` won."""
    n = env.unwrapped.num_players
    wins = []
    for seat in range(n):
        seats, labels = [heuristic] * n, ["h"] * n
        seats[seat], labels[seat] = agent, "s"
        record = play_one(env, seats, labels, game_seed(seed, d), agent_rng(seed, d, seat))
        wins.append(float(record.outcome[seat] > 0))
    return wins
