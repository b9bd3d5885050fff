"""Random playouts of Dou Dizhu entirely in numba: no Python per decision (the speed reference).

Each game deals a shuffled deck (xorshift64* stream per game), makes seat 0 the landlord (bid 1, kitty
taken) and plays uniformly random legal moves, pass included when following, until a hand is empty. It
uses the same move table and generator (:func:`.moves.collect_moves`) as the env.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.rng import uniform_index

from . import moves
from .moves import collect_moves


@njit(cache=True)
def random_playouts(games: int, seed: int, rank_of: np.ndarray, move_counts: np.ndarray, main_counts: np.ndarray,
                    move_type: np.ndarray, move_main: np.ndarray, move_length: np.ndarray, group_start: np.ndarray,
                    group_end: np.ndarray, tl_index: np.ndarray, tl_groups: np.ndarray,
                    bomb_groups: np.ndarray) -> tuple[int, int]:
    """Play ``games`` random games; returns (decision steps, landlord wins)."""
    rng = np.array([np.uint64(seed) | np.uint64(1)], dtype=np.uint64)
    ids = np.empty(move_counts.shape[0], dtype=np.int64)
    deck = np.arange(54)
    steps = 0
    landlord_wins = 0
    for _ in range(games):
        for i in range(53, 0, -1):
            j = uniform_index(rng, i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        hands = np.zeros((3, 15), dtype=np.int8)
        for k in range(54):
            seat = 0 if k >= 51 else k // 17  # seat 0 takes the kitty
            hands[seat, rank_of[deck[k]]] += 1
        left = np.array([20, 17, 17])
        to_move, last, last_player, passes = 0, -1, -1, 0
        while True:
            n = moves_found = 0
            moves_found = collect_moves(hands[to_move], last, ids, move_counts, main_counts, move_type, move_main,
                                        move_length, group_start, group_end, tl_index, tl_groups, bomb_groups)
            n = moves_found + (1 if last >= 0 else 0)
            pick = uniform_index(rng, n)
            steps += 1
            if pick == moves_found:  # pass
                passes += 1
                if passes == 2:
                    last, passes, to_move = -1, 0, last_player
                    continue
            else:
                m = ids[pick]
                for r in range(15):
                    hands[to_move, r] -= move_counts[m, r]
                    left[to_move] -= move_counts[m, r]
                last, last_player, passes = m, to_move, 0
                if left[to_move] == 0:
                    if to_move == 0:
                        landlord_wins += 1
                    break
            to_move = (to_move + 1) % 3
    return steps, landlord_wins


def run(games: int, seed: int = 0) -> tuple[int, int]:
    m = moves
    return random_playouts(games, seed, m.RANK_OF_CARD, m.MOVE_COUNTS, m.MOVE_MAIN_COUNTS, m.MOVE_TYPE, m.MOVE_MAIN,
                           m.MOVE_LENGTH, m.GROUP_START, m.GROUP_END, m.TL_INDEX, m.TL_GROUPS, m.BOMB_GROUPS)
