"""Dou Dizhu agent ``doudizhu.rule``.

* Bidding: a strength score from twos, jokers and bombs (2 each for a bomb or the red joker, 1.5 the
  black joker, 1 a two): bid 3 from 7, 2 from 5, 1 from 3.5, else no bid (never below the current bid).
* Planning: the hand's *plan size* is the number of combinations a greedy decomposition needs (rocket,
  bombs, the longest straights, trios with a single or pair attached, pairs, singles).
* Leading: the move after which the plan is smallest, ties by the lowest main rank; bombs last.
* Following: the cheapest non-bomb that beats (smallest plan afterwards, then lowest main rank). As a
  farmer it lets its partner's move stand unless it can go out. Bombs and the rocket only when they
  empty the hand or an opponent is down to 4 cards or fewer; otherwise it passes.
"""

from __future__ import annotations

import numpy as np

from cardenvs.games.doudizhu import moves

BOMB_TYPES = (moves.BOMB, moves.ROCKET)


def counts_from_planes(planes: np.ndarray) -> np.ndarray:
    out = np.zeros(15, dtype=np.int64)
    out[:13] = planes[:52].reshape(4, 13).sum(axis=0)
    out[13:] = planes[52:54]
    return out


def plan_size(counts: np.ndarray) -> int:
    c = np.array(counts, dtype=np.int64)
    n = 0
    if c[13] and c[14]:
        n += 1
        c[13] = c[14] = 0
    quads = c[:13] == 4
    n += int(quads.sum())
    c[:13][quads] = 0
    while True:  # peel the longest straight of 5+ among 3..A
        best_len, best_start, run = 0, 0, 0
        for r in range(12):
            run = run + 1 if c[r] >= 1 else 0
            if run > best_len:
                best_len, best_start = run, r - run + 1
        if best_len < 5:
            break
        c[best_start : best_start + best_len] -= 1
        n += 1
    trios = int((c == 3).sum())
    small = int((c == 2).sum() + (c == 1).sum())
    return n + trios + small - min(trios, small)


class RuleAgent:
    name = "doudizhu.rule"

    def __init__(self, env):
        self.env = env

    def act(self, observation, rng: np.random.Generator) -> int:
        layout = self.env.layout
        parts = layout.decode(observation["observation"])
        legal = np.flatnonzero(observation["action_mask"])
        hand = counts_from_planes(parts["hand"])
        if parts["bidding"][0]:
            return self._bid(hand, legal)
        plays = [int(m) for m in legal if m < moves.NUM_MOVES]
        can_pass = moves.PASS in legal
        held = int(hand.sum())
        for m in plays:
            if moves.MOVE_SIZE[m] == held:
                return m  # out
        landlord_rel = int(np.argmax(parts["landlord"]))
        left = parts["cards_left"]
        opponents = [1, 2] if landlord_rel == 0 else [landlord_rel]
        danger = min(int(left[o]) for o in opponents) <= 4

        def after(m):
            return plan_size(hand - moves.MOVE_COUNTS[m])

        normal = [m for m in plays if moves.MOVE_TYPE[m] not in BOMB_TYPES]
        bombs = [m for m in plays if moves.MOVE_TYPE[m] in BOMB_TYPES]
        if not can_pass:  # leading
            pool = normal or bombs
            return min(pool, key=lambda m: (after(m), moves.MOVE_MAIN[m], -moves.MOVE_SIZE[m]))
        # following: who played the move to beat? the previous player if it is their last action
        beat = parts["to_beat"]
        by_previous = np.array_equal(parts["last_moves"][1], beat)
        owner = 2 if by_previous else 1
        partner_owns = landlord_rel != 0 and owner != landlord_rel
        if partner_owns:
            return moves.PASS
        if normal:
            return min(normal, key=lambda m: (after(m), moves.MOVE_MAIN[m]))
        if bombs and danger:
            return min(bombs, key=lambda m: (moves.MOVE_TYPE[m], moves.MOVE_MAIN[m]))
        return moves.PASS

    @staticmethod
    def _bid(hand: np.ndarray, legal: np.ndarray) -> int:
        strength = hand[12] + 1.5 * hand[13] + 2 * hand[14] + 2 * int((hand[:13] == 4).sum())
        want = 3 if strength >= 7 else 2 if strength >= 5 else 1 if strength >= 3.5 else 0
        for bid in range(want, 0, -1):
            if moves.BID_PASS + bid in legal:
                return moves.BID_PASS + bid
        return moves.BID_PASS


AGENTS = {"rule": RuleAgent}
