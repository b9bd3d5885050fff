"""Twos agent ``twos.heuristic``.

* Go out at once when a legal combination empties the hand.
* Lead the combination that sheds the most cards, lowest top card first, keeping bombs and twos back
  (and not breaking up a four of a kind).
* Follow with the cheapest non-bomb that beats, again without twos or broken bombs.
* Spend twos and bombs only when an opponent is close to going out (3 cards or fewer) or when that
  wins the hand; otherwise pass.
"""
from __future__ import annotations

import numpy as np

from cardenvs.games.twos import moves

DANGER = 3


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
        quads = set(np.flatnonzero(rank_counts == 4))
        danger = int(parts["cards_left"][1:].min()) <= DANGER
        options = []
        for a in plays:
            si, top = moves.ACTIONS[a]
            cards = moves.cards_of(hand, a)
            if len(cards) == held:
                return a  # out: the game is won
            bomb = bool(moves.SHAPE_IS_BOMB[si])
            uses_two = bool((cards // 4 == 12).any())
            breaks_quad = (not bomb) and any(r in quads for r in set(cards // 4))
            options.append((a, len(cards), int(top), bomb, uses_two, breaks_quad))
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
