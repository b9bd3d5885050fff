"""Twos agent ``twos.heuristic``.

* Go out at once when a legal combination empties the hand.
* Lead the combination that sheds the most cards, lowest top card first, keeping bombs and twos back:
  no bomb, no two, and no card of a bomb the hand holds (a four of a kind, or a rank in a multiple run:
  three or more consecutive ranks with two or more cards each).
* Follow with the cheapest non-bomb that beats, again without twos or cards of the hand's bombs.
* Spend twos and bombs only when an opponent is close to going out (3 cards or fewer) or when that
  wins the hand; otherwise pass.
"""

from __future__ import annotations

import numpy as np

from cardenvs.games.twos import moves

DANGER = 3
MIN_RUN = 3  # a multiple run spans at least three ranks


def bomb_ranks(rank_counts: np.ndarray) -> np.ndarray:
    """Ranks (0 = three .. 12 = two) whose cards belong to a bomb of the hand: a four of a kind, or a
    stretch of ``MIN_RUN`` or more consecutive ranks with at least two cards each (a multiple run)."""
    out = rank_counts == 4
    start = 0
    for r in range(len(rank_counts) + 1):
        if r == len(rank_counts) or rank_counts[r] < 2:
            if r - start >= MIN_RUN:
                out[start:r] = True
            start = r + 1
    return out


class HeuristicAgent:
    name = "twos.heuristic"

    def __init__(self, env):
        self.env = env

    def act(self, observation, rng: np.random.Generator) -> int:
        parts = self.env.layout.decode(observation["observation"])
        hand = parts["hand"].astype(np.int8)
        legal = np.flatnonzero(observation["action_mask"])
        plays = [int(a) for a in legal if a != moves.PASS]
        can_pass = moves.PASS in legal
        if not plays:
            return moves.PASS
        held = int(hand.sum())
        rank_counts = np.bincount(np.flatnonzero(hand) // 4, minlength=13)
        kept = bomb_ranks(rank_counts)
        danger = int(parts["cards_left"][1:].min()) <= DANGER
        options = []
        for a in plays:
            si, top = moves.ACTIONS[a]
            cards = moves.cards_of(hand, a)
            if len(cards) == held:
                return a  # out: the game is won
            bomb = bool(moves.SHAPE_IS_BOMB[si])
            uses_two = bool((cards // 4 == 12).any())
            breaks_bomb = (not bomb) and bool(kept[cards // 4].any())
            options.append((a, len(cards), int(top), bomb, uses_two, breaks_bomb))
        cheap = [o for o in options if not (o[3] or o[4] or o[5])]
        leading = not can_pass
        if leading:
            pool = cheap or options
            # most cards first, then the lowest top card; spend bombs last
            return min(pool, key=lambda o: (o[3], -o[1], o[2]))[0]
        if cheap:
            return min(cheap, key=lambda o: o[2])[0]
        if danger:
            return min(options, key=lambda o: (o[3], o[2]))[0]  # twos before bombs, cheapest first
        return moves.PASS


AGENTS = {"heuristic": HeuristicAgent}
