"""Dou Dizhu speed: AEC random play through ``env()`` and the numba playout loop, against RLCard's and
OpenSpiel's Dou Dizhu measured in the same run (the ``bench`` extra, also in ``dev``); without them the rows
have no ratio and say which extra is missing (a figure from elsewhere is not a measurement)."""

from __future__ import annotations

import time

import numpy as np

from cardenvs.games.doudizhu.playout import run as playouts
from cardenvs.registry import make

from .common import aec_random_steps_per_second, row

MISSING = "not measured: {} is not installed (pip install 'cardenvs[bench]')"


def _rlcard_steps(seconds: float) -> float | None:
    try:
        import rlcard
    except ImportError:
        return None
    env = rlcard.make("doudizhu", config={"seed": 0})
    rng = np.random.default_rng(0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        state, player = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"].keys())
            state, player = env.step(legal[rng.integers(len(legal))])
            steps += 1
    return steps / (time.perf_counter() - start)


def _openspiel_steps(seconds: float) -> tuple[float, float] | None:
    """OpenSpiel's dou_dizhu stepped from Python with random legal moves: (decision steps per second, mean
    decisions per game), or None without pyspiel."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("dou_dizhu")
    rng = np.random.default_rng(0)
    steps, games, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
                continue
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            steps += 1
        games += 1
    return steps / (time.perf_counter() - start), steps / max(games, 1)


def run(quick: bool = False) -> list[dict]:
    seconds = 1.5 if quick else 4.0
    # each env's own legal-move list, as RLCard's loop reads its state["legal_actions"]
    aec, games = aec_random_steps_per_second(lambda: make("doudizhu_v0"), seconds, env_legal_ids=True)
    rl = _rlcard_steps(seconds)
    rl_name = "RLCard doudizhu env (same run)" if rl else None
    playouts(20, seed=1)  # compile
    n = 2_000 if quick else 10_000
    start = time.perf_counter()
    steps, _ = playouts(n, seed=2)
    playout_sps = steps / (time.perf_counter() - start)
    measured = _openspiel_steps(seconds)
    osp = measured[0] if measured else None
    os_name = "OpenSpiel dou_dizhu stepped from Python (same run)" if osp else None
    return [
        row(
            "doudizhu AEC random steps (env())",
            aec,
            "steps/s",
            rl_name,
            aec / rl if rl else None,
            f"{games} hands with bidding; observation and mask every step; legal moves from env.legal_actions()"
            + ("" if rl else "; RLCard " + MISSING.format("rlcard")),
        ),
        row(
            "doudizhu numba random playouts (1 core)",
            playout_sps,
            "steps/s",
            os_name,
            playout_sps / osp if osp else None,
            f"{n} hands, no Python per decision" + ("" if osp else "; OpenSpiel " + MISSING.format("open_spiel")),
        ),
    ]
