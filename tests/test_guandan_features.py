"""DanZero's 513 state features in numba (:mod:`cardenvs.games.guandan.danzero_features`) against the Python path
they replace for learners (:class:`cardenvs.games.guandan.danzero.SeatMemory` rebuilt from each seat's
observations, then :func:`cardenvs.games.guandan.danzero.state_features`), on seeded games."""

from __future__ import annotations

import numpy as np
import pytest

from cardenvs.games.guandan import danzero, moves
from cardenvs.games.guandan import danzero_features as fast
from cardenvs.games.guandan.env import LAYOUT


def reference_row(memory: danzero.SeatMemory, obs: np.ndarray) -> np.ndarray:
    """What :class:`danzero.DanZeroAgent` computes for a play decision (its ``choose``), the 513 state features."""
    parts = LAYOUT.decode(obs)
    memory.update(parts)
    team_levels = np.asarray(parts["levels"]).reshape(2, 13)
    level = int(np.argmax(parts["hand_level"]))
    levels = (int(np.argmax(team_levels[0])), int(np.argmax(team_levels[1])), level)
    return danzero.state_features(memory.record, parts["hand"], parts["played"].reshape(4, 54), levels)


def play_and_compare(seed: int, policy: str, reset_options: dict | None = None, **options) -> int:
    """One episode of ``guandan_v0`` (``options``) by ``policy`` in every seat; at every play decision of every
    seat the fast row must equal the reference. Returns the decisions compared."""
    from cardenvs import guandan_v0
    from cardenvs.agent import load_agent

    env = guandan_v0.env(**options)
    env.reset(seed=seed, options=reset_options)
    agent = load_agent(policy, env)
    memories = {name: danzero.SeatMemory() for name in env.possible_agents}
    rng = np.random.default_rng(seed)
    compared = 0
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        if legal[0] < moves.CARD0:  # a play decision (a pattern or the pass), where DanZero's features are read
            expected = reference_row(memories[name], obs["observation"])
            got = fast.state_rows(env.unwrapped.core_state()[1], [0])[0]
            if not np.array_equal(got, expected):
                bad = np.flatnonzero(got != expected)
                raise AssertionError(f"seed {seed}, {name}, decision {compared}: columns {bad[:10]} differ")
            compared += 1
        env.step(agent.act(obs, rng))
    return compared


@pytest.mark.parametrize("policy", ["random", "guandan.heuristic"])
def test_fast_rows_equal_the_python_reference(policy: str) -> None:
    """Seeded whole hands, random and heuristic play (players going out, 接风, the record's -1 entries)."""
    compared = sum(play_and_compare(seed, policy) for seed in range(12))
    assert compared > 500


def test_fast_rows_equal_the_reference_after_a_tribute() -> None:
    """Hands with a previous order (tribute and return first) and other levels."""
    for seed in range(6):
        options = {"previous_order": [seed % 4, (seed + 1) % 4, (seed + 2) % 4, (seed + 3) % 4], "levels": ["5", "K"]}
        options["declarer"] = seed % 2
        assert play_and_compare(100 + seed, "random", options) > 0


def test_fast_rows_equal_the_reference_over_a_match() -> None:
    """Whole matches (tribute, return, levels moving): the seats' memories live on from hand to hand."""
    assert play_and_compare(5, "guandan.heuristic", episode="match", max_hands=3) > 100


def test_rows_read_nothing_of_the_other_hands() -> None:
    """Moving cards between the other seats' hands changes no feature of the seat to move."""
    from cardenvs import guandan_v0

    env = guandan_v0.env()
    env.reset(seed=7)
    rng = np.random.default_rng(0)
    for _ in range(40):  # into the play
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    states = env.unwrapped.core_state()[1].copy()
    before = fast.state_rows(states, [0])[0]
    p = int(states[0]["to_move"])
    a, b = (p + 1) % 4, (p + 2) % 4
    states[0]["hands"][a], states[0]["hands"][b] = states[0]["hands"][b].copy(), states[0]["hands"][a].copy()
    assert np.array_equal(fast.state_rows(states, [0])[0], before)


def reference_wild_flags(hand: np.ndarray, level: int) -> np.ndarray:
    """The pure-Python reference of :func:`danzero.wild_flags` (the product computes them in numba,
    :func:`danzero.write_wild_flags`), written from DanZero's client as that function's docstring reads."""
    out = np.zeros(12, dtype=np.float32)
    wild = 4 * level  # the level's heart, DanZero column
    if hand[wild] == 0:
        return out
    out[0] = 1
    held = np.array(hand[:52] != 0).reshape(13, 4)  # [rank, suit H S C D]
    held[level, 0] = False
    for suit in range(4):
        if any(int((~held[start : start + 5, suit]).sum()) <= 1 for start in range(8)):
            out[1] = 1
            break
    suits_held = held.sum(axis=1)
    most = int(suits_held.max())
    out[max(2, 8 - most) : 8] = 1 if most >= 1 else 0
    if most == 0:
        out[7] = 1
    run = 0
    for r in range(13):
        n = suits_held[r]
        if n == 0:
            run = 0
            continue
        run += 1
        if r >= 1:
            m = suits_held[r - 1]
            if (n == 2 and m >= 3) or (n >= 3 and m == 2):
                out[9] = 1
            elif n == 2 and m == 2:
                out[11] = 1
        if r >= 2:
            a, b, c = suits_held[r - 2], suits_held[r - 1], n
            if (a == 1 and b >= 2 and c >= 2) or (a >= 2 and b == 1 and c >= 2) or (a >= 2 and b >= 2 and c == 1):
                out[10] = 1
    if run >= 4:
        out[8] = 1
    return out


def test_wild_flags_equal_the_reference() -> None:
    """The 12 flags on random hands and levels."""
    rng = np.random.default_rng(3)
    for _ in range(300):
        hand = rng.integers(0, 3, size=54) * (rng.random(54) < 0.4)
        level = int(rng.integers(13))
        row = np.zeros(fast.SIZE, dtype=np.int8)
        own = danzero.cards_vector(hand)
        row[:54] = own
        danzero.write_wild_flags(row, 0, level, fast.AT_WILD)
        assert np.array_equal(row[fast.AT_WILD : fast.AT_WILD + 12], reference_wild_flags(own, level))
        assert np.array_equal(danzero.wild_flags(own, level), reference_wild_flags(own, level))
