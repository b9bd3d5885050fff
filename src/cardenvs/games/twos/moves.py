"""Twos combinations, the action table and the numba move generator.

Cards are handled by **value** ``v = 4 * rank + suit`` with ranks on the Twos line ``3 4 ... K A 2``
(rank 0 is the three, 12 the two) and suits ``S < C < D < H``: the value orders every card of the game.

A combination is an ``n x L`` block: ``L`` consecutive ranks with ``n`` cards of each (no wrap-around).
Shapes (RULES.md): singles 1x1, pairs 2x1, triples 3x1, runs 1xL (L >= 3); bombs are four of a kind 4x1
and every multiple run n x L with n >= 2 and L >= 3. Shapes that no hand of at most 26 cards can hold
(n * L > 26) are left out. The *top card* is the combination's highest-valued card.

Action table: one action per (shape, top card) -- the top card's rank must leave room for ``L - 1`` ranks
below it and its suit for ``n - 1`` lower suits -- plus a final **pass**. The cards an action plays are
the top card, the ``n - 1`` lowest suits the player holds below it at the top rank, and the ``n`` lowest
suits held at each lower rank (RULES.md: a higher card of the same rank never weakens a later
combination, so nothing is lost). The table is built from these rules at import; ``NUM_ACTIONS`` is 733.

Beating: a non-bomb is beaten by the same shape with a higher top card, or by any bomb; a bomb only by a
stronger bomb -- a stronger shape in the bomb order in force, or the same shape with a higher top card.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core import encoding
from cardenvs.core.cards import RANKS, SUITS, TWO_HIGH, parse_cards, rank_order

NUM_RANKS = 13
NUM_VALUES = 52
MAX_CARDS = 26  # the largest hand: two players x 26

# card id <-> value
_TWOS_RANK = rank_order(TWO_HIGH)
ID_TO_VALUE = np.array([_TWOS_RANK[c] * 4 + c % 4 for c in range(52)], dtype=np.int64)
VALUE_TO_ID = np.argsort(ID_TO_VALUE).astype(np.int64)
VALUE_RANK = np.arange(NUM_VALUES, dtype=np.int64) // 4  # for the shared encoder's rank_counts


def _shapes() -> list[tuple[int, int]]:
    shapes = [(1, 1), (2, 1), (3, 1), (4, 1)]
    shapes += [(1, length) for length in range(3, 14)]
    shapes += [(n, length) for n in (2, 3, 4) for length in range(3, 14) if n * length <= MAX_CARDS]
    return shapes


SHAPES = _shapes()
SHAPE_INDEX = {s: i for i, s in enumerate(SHAPES)}
SHAPE_N = np.array([s[0] for s in SHAPES], dtype=np.int64)
SHAPE_L = np.array([s[1] for s in SHAPES], dtype=np.int64)
SHAPE_IS_BOMB = np.array([(n == 4 and length == 1) or (n >= 2 and length >= 3) for n, length in SHAPES], dtype=np.bool_)
BOMB_SHAPES = [s for s, b in zip(SHAPES, SHAPE_IS_BOMB, strict=True) if b]


def shape_name(shape: tuple[int, int]) -> str:
    return f"{shape[0]}x{shape[1]}"


def _action_table() -> np.ndarray:
    rows = []
    for si, (n, length) in enumerate(SHAPES):
        for top_rank in range(length - 1, NUM_RANKS):
            for top_suit in range(n - 1, 4):
                rows.append((si, top_rank * 4 + top_suit))
    return np.array(rows, dtype=np.int64)


ACTIONS = _action_table()  # (shape index, top value) per action id
PASS = len(ACTIONS)
NUM_ACTIONS = PASS + 1
ACTION_ID = {(int(s), int(t)): i for i, (s, t) in enumerate(ACTIONS)}


@njit(cache=True)
def action_cards(hand: np.ndarray, shape_n: int, shape_l: int, top: int, out: np.ndarray) -> int:
    """Fill ``out`` with the values the action (shape, top) plays from ``hand`` (0/1 per value);
    return how many, or -1 if the hand cannot make it."""
    top_rank = top // 4
    top_suit = top % 4
    if hand[top] == 0:
        return -1
    k = 0
    low = top_rank - shape_l + 1
    if low < 0:
        return -1
    for r in range(low, top_rank):
        taken = 0
        for s in range(4):
            if taken == shape_n:
                break
            if hand[4 * r + s]:
                out[k] = 4 * r + s
                k += 1
                taken += 1
        if taken < shape_n:
            return -1
    taken = 0
    for s in range(top_suit):
        if taken == shape_n - 1:
            break
        if hand[4 * top_rank + s]:
            out[k] = 4 * top_rank + s
            k += 1
            taken += 1
    if taken < shape_n - 1:
        return -1
    out[k] = top
    return k + 1


@njit(cache=True)
def collect_moves(
    hand: np.ndarray,
    beat_shape: int,
    beat_top: int,
    bomb_strength: np.ndarray,
    actions: np.ndarray,
    shape_n: np.ndarray,
    shape_l: np.ndarray,
    value_rank: np.ndarray,
    ids: np.ndarray,
) -> int:
    """The move generator: ids of the legal actions of ``hand`` (0/1 per value) against (``beat_shape``,
    ``beat_top``), -1 when leading, written ascending to ``ids`` with pass last when following (``ids`` is
    written in place, nothing else); returns how many.

    ``bomb_strength[shape]`` is the shape's place in the bomb order (-1 for non-bombs). It walks the action
    table's blocks (:func:`_action_table`: one block per shape, top ranks ascending, then top suits) rather
    than every action: a shape is skipped whole when it cannot beat the table or when the hand's longest run
    of ranks holding ``n`` cards each is shorter than the shape, a top rank when the ``L`` ranks ending there
    do not each hold ``n`` cards; a top card is then playable when the hand holds ``n - 1`` lower suits of its
    rank (the cards :func:`action_cards` takes). The ids follow from that layout, so ``actions`` itself is
    not read (the test against the table read action by action holds the two together)."""
    n_ranks = 13
    counts = encoding.rank_counts(hand, value_rank, n_ranks)  # the shared encoder: cards per rank
    # run_end[n - 1, r]: how many consecutive ranks ending at r hold at least n cards each; longest[n - 1]
    # the longest such run
    run_end = np.zeros((4, n_ranks), dtype=np.int64)
    longest = np.zeros(4, dtype=np.int64)
    for n in range(1, 5):
        for r in range(n_ranks):
            if counts[r] >= n:
                run_end[n - 1, r] = run_end[n - 1, r - 1] + 1 if r > 0 else 1
                longest[n - 1] = max(longest[n - 1], run_end[n - 1, r])
    following = beat_shape >= 0
    beat_strength = bomb_strength[beat_shape] if following else -1
    k = 0
    first = 0  # the first action id of shape si's block
    for si in range(shape_n.shape[0]):
        n = shape_n[si]
        length = shape_l[si]
        suits = 5 - n  # top suits n - 1 .. 3
        block = (n_ranks - length + 1) * suits
        strength = bomb_strength[si]
        # the lowest top card that beats the table with this shape (-1: any; 52: none)
        lowest = -1
        if following:
            if strength >= 0:
                if beat_strength >= 0 and strength < beat_strength:
                    lowest = 52
                elif beat_strength >= 0 and strength == beat_strength:
                    lowest = beat_top + 1
            elif si == beat_shape:
                lowest = beat_top + 1
            else:
                lowest = 52
        if lowest < 52 and longest[n - 1] >= length:
            for r in range(max(length - 1, lowest // 4), n_ranks):
                if run_end[n - 1, r] < length:
                    continue
                below = 0  # suits of rank r held below t
                for t in range(4):
                    v = 4 * r + t
                    if hand[v]:
                        if below >= n - 1 and v >= lowest:
                            ids[k] = first + (r - length + 1) * suits + t - (n - 1)
                            k += 1
                        below += 1
        first += block
    if following:
        ids[k] = first  # pass, the last id
        k += 1
    return k


def legal_mask_for(hand_values: np.ndarray, to_beat: tuple[int, int] | None, bomb_strength: np.ndarray) -> np.ndarray:
    """:func:`collect_moves` of a hand (``to_beat``: the (shape, top) to beat, None to lead) as a new ``int8``
    mask over every action id (pass included)."""
    shape, top = to_beat if to_beat is not None else (-1, -1)
    ids = np.empty(ACTIONS.shape[0] + 1, dtype=np.int64)
    k = collect_moves(hand_values, shape, top, bomb_strength, ACTIONS, SHAPE_N, SHAPE_L, VALUE_RANK, ids)
    mask = np.zeros(ACTIONS.shape[0] + 1, dtype=np.int8)
    mask[ids[:k]] = 1
    return mask


def cards_of(hand_values: np.ndarray, action: int) -> np.ndarray:
    """The values an action plays from a hand."""
    si, top = ACTIONS[action]
    buf = np.empty(52, dtype=np.int64)
    k = action_cards(hand_values, SHAPE_N[si], SHAPE_L[si], top, buf)
    if k < 0:
        raise ValueError(f"the hand cannot play {describe(action)}")
    return buf[:k].copy()


def classify(values) -> tuple[int, int] | None:
    """(shape index, top value) of a set of card values, or None if it is not a combination."""
    values = sorted(int(v) for v in values)
    if not values or len(set(values)) != len(values):
        return None
    counts = np.bincount(np.array(values) // 4, minlength=NUM_RANKS)
    ranks = np.flatnonzero(counts)
    n = int(counts[ranks[0]])
    if any(counts[r] != n for r in ranks) or ranks[-1] - ranks[0] + 1 != len(ranks):
        return None
    shape = (n, len(ranks))
    if shape not in SHAPE_INDEX:
        return None
    return SHAPE_INDEX[shape], values[-1]


def value_code(v: int) -> str:
    return RANKS[VALUE_TO_ID[v] // 4] + SUITS[v % 4]


def parse_values(text: str) -> list[int]:
    """Card codes -> values; ``ValueError`` names a bad code or a joker."""
    ids = parse_cards(text)
    for c in ids:
        if c >= 52:
            raise ValueError(f"Twos is played without jokers; got {text!r}")
    return [int(ID_TO_VALUE[c]) for c in ids]


def describe(action: int) -> str:
    if action == PASS:
        return "pass"
    si, top = ACTIONS[action]
    return f"{shape_name(SHAPES[si])} to {value_code(top)}"


def beats(candidate: tuple[int, int], target: tuple[int, int], bomb_strength: np.ndarray) -> bool:
    """Whether combination ``candidate`` (shape, top) beats ``target`` under a bomb order."""
    cs, ct = candidate
    ts, tt = target
    if bomb_strength[cs] >= 0:
        if bomb_strength[ts] < 0:
            return True
        return (bomb_strength[cs], ct) > (bomb_strength[ts], tt)
    return cs == ts and ct > tt
