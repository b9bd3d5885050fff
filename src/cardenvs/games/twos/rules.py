"""Twos as numba functions over a batched array state (the document in ``seeds/000`` and RULES.md "Twos").

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
hand size (:func:`.bombs.rarity_order`), rarest strongest.

State (:data:`STATE`, one record per game, sized for :data:`MAX_PLAYERS`; :mod:`cardenvs.core.kernels`
states the functions' contract): hands and played cards of every seat and the cards out of play, all
0/1 per card *value* (:mod:`.moves`); the seat to move; the combination to beat (shape index and top
value, -1 when leading) and who played it; who has passed in this trick; the trick's plays so far (for
``render``); the winner; who led the first trick (it held the lowest card dealt, which determinization
needs). :data:`PARAMS` holds one configuration: players, hand size, ``pass_locks_out``, the bomb order,
the stacked decks of the AEC env's ``options["deck"]``, the observation offsets and the move tables the
generator (:func:`.moves.collect_moves`) reads.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numba import njit

from cardenvs.core import kernels
from cardenvs.core.rng import episode_deck

from . import moves
from .bombs import rarity_order, run_probabilities

CLASSIC_ORDER = [(2, 3), (4, 1), (2, 4), (2, 5), (3, 3), (2, 6), (3, 4), (2, 7), (4, 3), (3, 5), (3, 6), (4, 4)]

MAX_PLAYERS = 4
NUM_CARDS = 52
MAX_STACKED = 16
# a trick holds at most 52 plays, and between two plays at most players - 2 passes (one more ends it)
MAX_TRICK = 256
DECK = np.arange(NUM_CARDS, dtype=np.int16)  # card ids, as make_deck() gives them
NUM_SHAPES = len(moves.SHAPES)
NUM_BOMB_SHAPES = len(moves.BOMB_SHAPES)
POLICIES = ("heuristic",)


@cache
def bomb_order(order: str, hand_size: int) -> tuple[tuple[int, int], ...]:
    """Every bomb shape of the action table, weakest first, under ``order`` at ``hand_size``."""
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
        result[anchor + 1 : anchor + 1] = group
    return tuple(result)


def bomb_strength(order: str, hand_size: int) -> np.ndarray:
    """Per shape index of the action table: its place in the bomb order (-1 for non-bombs)."""
    strength = np.full(len(moves.SHAPES), -1, dtype=np.int64)
    for place, shape in enumerate(bomb_order(order, hand_size)):
        strength[moves.SHAPE_INDEX[shape]] = place
    return strength


STATE = np.dtype(
    [
        ("hands", np.int8, (MAX_PLAYERS, NUM_CARDS)),  # by value; seats >= players stay empty
        ("played", np.int8, (MAX_PLAYERS, NUM_CARDS)),
        ("out_of_play", np.int8, (NUM_CARDS,)),  # values never dealt
        ("to_move", np.int8),
        ("to_beat_shape", np.int8),  # shape index of the combination to beat (-1: leading)
        ("to_beat_top", np.int8),  # its top value (-1: leading)
        ("last_player", np.int8),  # who played it (-1 before the first play)
        ("passed", np.int8, (MAX_PLAYERS,)),  # 1: has passed in this trick (since the last play if passing unlocks)
        ("trick_player", np.int8, (MAX_TRICK,)),  # the trick's turns so far: seat, action (pass included)
        ("trick_action", np.int16, (MAX_TRICK,)),
        ("n_trick", np.int16),
        ("winner", np.int8),
        ("leader", np.int8),  # who led the first trick: the holder of the lowest card dealt (public)
    ]
)

# observation segments, in the env's layout order (offsets depend on the number of players)
O_HAND, O_PLAYED, O_SHAPE, O_TOP, O_BY, O_PASSED, O_LEFT, O_BOMB_ORDER = range(8)

PARAMS = np.dtype(
    [
        ("players", np.int32),
        ("hand_size", np.int32),
        ("pass_locks_out", np.bool_),
        ("bomb_strength", np.int64, (NUM_SHAPES,)),  # place in the bomb order per shape (-1: not a bomb)
        ("bomb_places", np.int8, (NUM_BOMB_SHAPES,)),  # the same per moves.BOMB_SHAPES (the observation)
        ("stacked", np.int16, (MAX_STACKED, NUM_CARDS)),
        ("n_stacked", np.int32),
        ("offsets", np.int32, (8,)),
        # the move tables (moves.py), carried here so compiled code takes them as one argument
        ("actions", np.int64, moves.ACTIONS.shape),
        ("shape_n", np.int64, (NUM_SHAPES,)),
        ("shape_l", np.int64, (NUM_SHAPES,)),
        ("shape_is_bomb", np.int8, (NUM_SHAPES,)),
        ("value_rank", np.int64, (NUM_CARDS,)),
        ("id_to_value", np.int64, (NUM_CARDS,)),
    ]
)


def make_params(players: int, hand_size: int, pass_locks_out: bool, order: str, offsets: np.ndarray) -> np.ndarray:
    """The constants of one configuration (observation offsets from the env's layout for ``players``)."""
    if not 2 <= players <= MAX_PLAYERS or not 1 <= hand_size <= NUM_CARDS // players:
        raise ValueError(f"twos: {players} players with {hand_size} cards each is not a game")
    p = np.zeros(1, dtype=PARAMS)
    strength = bomb_strength(order, hand_size)
    p["players"] = players
    p["hand_size"] = hand_size
    p["pass_locks_out"] = pass_locks_out
    for name, table in (
        ("bomb_strength", strength),
        ("bomb_places", [strength[moves.SHAPE_INDEX[s]] for s in moves.BOMB_SHAPES]),
        ("offsets", offsets),
        ("actions", moves.ACTIONS),
        ("shape_n", moves.SHAPE_N),
        ("shape_l", moves.SHAPE_L),
        ("shape_is_bomb", moves.SHAPE_IS_BOMB),
        ("value_rank", moves.VALUE_RANK),
        ("id_to_value", moves.ID_TO_VALUE),
    ):
        p[name][0] = table
    return p


# ---------------------------------------------------------------- the state machine
@njit(cache=True)
def init(state, b, params, deal_seed) -> None:
    """Deal game ``b`` (deal 0 of ``deal_seed``, or the stacked deck): blocks of ``hand_size`` from the top,
    player_0 first, the rest out of play; the holder of the lowest card leads. In place."""
    pr = params[0]
    deck = np.empty(NUM_CARDS, dtype=np.int16)
    episode_deck(pr.stacked, pr.n_stacked, DECK, deal_seed, np.int64(0), deck)
    s = state[b]
    s.hands[:] = 0
    s.played[:] = 0
    s.out_of_play[:] = 0
    players = pr.players
    dealt = players * pr.hand_size
    lowest = NUM_CARDS
    leader = 0
    for i in range(NUM_CARDS):
        v = pr.id_to_value[deck[i]]
        if i < dealt:
            p = i // pr.hand_size
            s.hands[p, v] = 1
            if v < lowest:
                lowest = v
                leader = p
        else:
            s.out_of_play[v] = 1
    s.to_move = leader
    s.leader = leader
    s.to_beat_shape = -1
    s.to_beat_top = -1
    s.last_player = -1
    s.passed[:] = 0
    s.n_trick = 0
    s.winner = -1


@njit(cache=True)
def to_move(state, b, params) -> int:
    """The seat to act (reads only)."""
    return state[b].to_move


@njit(cache=True)
def status(state, b, params) -> int:
    """``kernels.OVER`` once someone is out of cards, else ``kernels.RUNNING`` (reads only)."""
    return kernels.OVER if state[b].winner >= 0 else kernels.RUNNING


@njit(cache=True)
def legal_ids(state, b, params, ids) -> int:
    """The combinations of the seat to move that beat the one on the table (any when leading), ascending,
    then pass (id 732) when following; written to ``ids`` (the state is only read); returns how many (0 once
    over)."""
    s = state[b]
    if s.winner >= 0:
        return 0
    pr = params[0]
    return moves.collect_moves(
        s.hands[s.to_move],
        s.to_beat_shape,
        s.to_beat_top,
        pr.bomb_strength,
        pr.actions,
        pr.shape_n,
        pr.shape_l,
        pr.value_rank,
        ids,
    )


@njit(cache=True)
def apply(state, b, params, action) -> None:
    """The seat to move plays ``action`` (legal); play goes to the next seat that may still act, or the
    trick ends and its last player leads. In place."""
    s = state[b]
    pr = params[0]
    players = pr.players
    p = s.to_move
    if s.n_trick < MAX_TRICK:
        s.trick_player[s.n_trick] = p
        s.trick_action[s.n_trick] = action
        s.n_trick += 1
    if action == moves.PASS:
        s.passed[p] = 1
    else:
        si = pr.actions[action, 0]
        top = pr.actions[action, 1]
        hand = s.hands[p]
        buf = np.empty(NUM_CARDS, dtype=np.int64)
        k = moves.action_cards(hand, pr.shape_n[si], pr.shape_l[si], top, buf)
        for i in range(k):
            hand[buf[i]] = 0
            s.played[p, buf[i]] = 1
        s.to_beat_shape = si
        s.to_beat_top = top
        s.last_player = p
        if not pr.pass_locks_out:
            s.passed[:] = 0  # only passes since the last play count
        left = 0
        for v in range(NUM_CARDS):
            left += hand[v]
        if left == 0:
            s.winner = p
            return
    q = (p + 1) % players
    while pr.pass_locks_out and s.passed[q] and q != s.last_player:
        q = (q + 1) % players
    if q == s.last_player:  # everyone else passed since the last play: the trick is won
        s.to_beat_shape = -1
        s.to_beat_top = -1
        s.passed[:] = 0
        s.n_trick = 0
    s.to_move = q


@njit(cache=True)
def scores(state, b, params, out) -> None:
    """1 for the first player out, 0 for everyone else (all 0 while the game is on). Writes ``out``."""
    out[:] = 0.0
    w = state[b].winner
    if w >= 0:
        out[w] = 1.0


@njit(cache=True)
def outcome(state, b, params, out) -> None:
    """The winner +1, every other seat -1/(players-1) (:func:`kernels.win_share` of the scores); zeros
    while the game is on. Writes ``out``."""
    out[:] = 0.0
    if state[b].winner < 0:
        return
    sc = np.zeros(params[0].players, dtype=np.float64)
    scores(state, b, params, sc)
    kernels.win_share(sc, out[: sc.shape[0]])


@njit(cache=True)
def observe(state, b, params, p, obs) -> None:
    """Seat ``p``'s observation (the env's layout for ``players``; seats relative to ``p``) into the zeroed
    row ``obs``, in place."""
    s = state[b]
    pr = params[0]
    off = pr.offsets
    n = pr.players
    for v in range(NUM_CARDS):
        obs[off[O_HAND] + v] = s.hands[p, v]
    for k in range(n):
        q = (p + k) % n
        left = 0
        for v in range(NUM_CARDS):
            obs[off[O_PLAYED] + NUM_CARDS * k + v] = s.played[q, v]
            left += s.hands[q, v]
        obs[off[O_PASSED] + k] = s.passed[q]
        obs[off[O_LEFT] + k] = left
    if s.to_beat_shape >= 0:
        obs[off[O_SHAPE] + s.to_beat_shape] = 1
        obs[off[O_TOP] + s.to_beat_top] = 1
        obs[off[O_BY] + (s.last_player - p) % n] = 1
    for i in range(NUM_BOMB_SHAPES):
        obs[off[O_BOMB_ORDER] + i] = pr.bomb_places[i]


# ---------------------------------------------------------------- helpers for people and tests (Python)
def card_locations(record) -> np.ndarray:
    """Every card of one game wherever it is (hands, played, out of play), as card ids."""
    values = [np.flatnonzero(record["hands"][p]) for p in range(MAX_PLAYERS)]
    values += [np.flatnonzero(record["played"][p]) for p in range(MAX_PLAYERS)]
    values.append(np.flatnonzero(record["out_of_play"]))
    return moves.VALUE_TO_ID[np.concatenate(values)]


def trick(record) -> list[tuple[int, int]]:
    """The current trick's turns as (seat, action) pairs, oldest first (pass is ``moves.PASS``)."""
    n = int(record["n_trick"])
    return list(zip(record["trick_player"][:n].tolist(), record["trick_action"][:n].tolist(), strict=True))


def legal_moves(hand: str, to_beat: str | None = None, bomb_order: str = "classic", hand_size: int = 13) -> list[str]:
    """The legal moves of ``hand`` against ``to_beat`` (both space-separated card codes), as the cards each
    canonical action plays, plus ``"pass"`` when there is something to beat.

    >>> legal_moves("5S 6C 7H 7S", "4H")
    ['5S', '6C', '7S', '7H', 'pass']
    """
    values = moves.parse_values(hand)
    if len(set(values)) != len(values):
        raise ValueError(f"hand {hand!r} holds a card twice")
    hand_values = np.zeros(52, dtype=np.int8)
    hand_values[values] = 1
    target = None
    if to_beat is not None:
        target = moves.classify(moves.parse_values(to_beat))
        if target is None:
            raise ValueError(f"to_beat {to_beat!r} is not a Twos combination")
    mask = moves.legal_mask_for(hand_values, target, bomb_strength(bomb_order, hand_size))
    out = []
    for action in np.flatnonzero(mask):
        if action == moves.PASS:
            out.append("pass")
        else:
            out.append(" ".join(moves.value_code(v) for v in moves.cards_of(hand_values, int(action))))
    return out
