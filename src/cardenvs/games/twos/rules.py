"""Twos as functions over a small state (the document in ``seeds/000`` and RULES.md "Twos").

Rules, in plain words:

* ``players`` (2..4, default 3) get ``hand_size`` cards each (default 13) from a 52-card deck without
  jokers; the rest is out of play and unseen. Cards rank 3 < 4 < ... < K < A < 2, and within a rank
  S < C < D < H.
* The holder of the lowest card dealt leads the first trick, with any combination (see
  :mod:`.moves`). Play passes left (increasing seat). Each player either beats the combination on the
  table or passes; the leader of a trick must play.
* ``pass_locks_out=True`` (default, the document's TODO): a player who passed is out until the next trick.
  With ``False`` they may play again later in the trick. Either way the trick ends when everyone else
  has passed since the last play; the last player to play wins it and leads the next.
* A bomb (four of a kind, or a multiple run n x L with n >= 2, L >= 3) beats any non-bomb; bombs compare by
  the bomb order in force, equal shapes by top card.
* The first player with no cards wins at once.

Bomb orders (``bomb_order``): ``"classic"`` is the document's list, weakest first: 2x3, 4x1, 2x4, 2x5,
3x3, 2x6, 3x4, 2x7, 4x3, 3x5, 3x6, 4x4; a shape the list does not name goes just above the strongest
listed shape that is more common at the configured hand size (several such shapes: the more common one
weaker). ``"rarity"`` ranks every bomb shape by its exact probability of being dealt at the configured
hand size (:func:`cardenvs.analysis.bombs.rarity_order`), rarest strongest.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from . import moves

CLASSIC_ORDER = [(2, 3), (4, 1), (2, 4), (2, 5), (3, 3), (2, 6), (3, 4), (2, 7), (4, 3), (3, 5), (3, 6), (4, 4)]


@lru_cache(maxsize=None)
def bomb_order(order: str, hand_size: int) -> tuple[tuple[int, int], ...]:
    """Every bomb shape of the action table, weakest first, under ``order`` at ``hand_size``."""
    from cardenvs.analysis.bombs import rarity_order, run_probabilities
    shapes = set(moves.BOMB_SHAPES)
    if order == "rarity":
        return tuple(s for s in rarity_order(hand_size) if s in shapes)
    if order != "classic":
        raise ValueError(f"bomb_order must be 'classic' or 'rarity', got {order!r}")
    probs = {s: p for s, (p, _) in run_probabilities(hand_size).items()}
    result = list(CLASSIC_ORDER)
    extra = [s for s in moves.BOMB_SHAPES if s not in CLASSIC_ORDER]
    # anchor: the strongest listed shape more common than the unlisted one (-1: below every listed shape)
    anchored: dict[int, list[tuple[int, int]]] = {}
    for s in extra:
        anchor = max((i for i, listed in enumerate(CLASSIC_ORDER) if probs[listed] > probs[s]), default=-1)
        anchored.setdefault(anchor, []).append(s)
    for anchor in sorted(anchored, reverse=True):
        group = sorted(anchored[anchor], key=lambda s: (-probs[s], s[0] * s[1], s[0]))
        result[anchor + 1:anchor + 1] = group
    return tuple(result)


def bomb_strength(order: str, hand_size: int) -> np.ndarray:
    """Per shape index of the action table: its place in the bomb order (-1 for non-bombs)."""
    strength = np.full(len(moves.SHAPES), -1, dtype=np.int64)
    for place, shape in enumerate(bomb_order(order, hand_size)):
        strength[moves.SHAPE_INDEX[shape]] = place
    return strength


@dataclass
class TwosState:
    players: int
    pass_locks_out: bool
    hands: np.ndarray  # int8[players, 52] by value
    played: np.ndarray  # int8[players, 52]
    out_of_play: np.ndarray  # values never dealt
    to_move: int = 0
    to_beat: tuple[int, int] | None = None  # (shape index, top value)
    last_player: int = -1
    passed: np.ndarray = None  # bool[players]
    trick: list[tuple[int, int]] = field(default_factory=list)  # (player, action) this trick
    winner: int = -1


def deal(deck_ids: np.ndarray, players: int, hand_size: int, pass_locks_out: bool) -> TwosState:
    """Blocks of ``hand_size`` from the top, player_0 first; the holder of the lowest card leads."""
    values = moves.ID_TO_VALUE[np.asarray(deck_ids)]
    hands = np.zeros((players, 52), dtype=np.int8)
    for p in range(players):
        hands[p, values[p * hand_size:(p + 1) * hand_size]] = 1
    state = TwosState(players, pass_locks_out, hands, np.zeros((players, 52), dtype=np.int8),
                      np.sort(values[players * hand_size:]), passed=np.zeros(players, dtype=bool))
    lowest = min(range(players), key=lambda p: int(np.flatnonzero(hands[p])[0]))
    state.to_move = lowest
    return state


def legal_mask(state: TwosState, strength: np.ndarray) -> np.ndarray:
    return moves.legal_mask_for(state.hands[state.to_move], state.to_beat, strength)


def apply(state: TwosState, action: int) -> None:
    """The player to move plays ``action`` (assumed legal); advances to the next player or trick."""
    p = state.to_move
    state.trick.append((p, action))
    if action == moves.PASS:
        state.passed[p] = True
    else:
        cards = moves.cards_of(state.hands[p], action)
        state.hands[p, cards] = 0
        state.played[p, cards] = 1
        state.to_beat = (int(moves.ACTIONS[action][0]), int(moves.ACTIONS[action][1]))
        state.last_player = p
        if not state.pass_locks_out:
            state.passed[:] = False  # only passes since the last play count
        if not state.hands[p].any():
            state.winner = p
            return
    q = (p + 1) % state.players
    while state.pass_locks_out and state.passed[q] and q != state.last_player:
        q = (q + 1) % state.players
    if q == state.last_player:  # everyone else passed since the last play: the trick is won
        state.to_beat = None
        state.passed[:] = False
        state.trick = []
    state.to_move = q


def card_values(state: TwosState) -> np.ndarray:
    """Every card, wherever it is (hands, played, out of play), as values."""
    return np.concatenate([np.flatnonzero(state.hands[p]) for p in range(state.players)]
                          + [np.flatnonzero(state.played[p]) for p in range(state.players)] + [state.out_of_play])
