"""High Card as numba functions over a batched array state (the contract: :mod:`cardenvs.core.kernels`).

Rules, in plain words:

* The thirteen spades, 2 low, ace high. Each of ``players`` players (2 or 3) is dealt ``hand_size`` cards
  from the top of the deck, player_0 first; the rest stay face down, out of play.
* A trick: from its leader on, in seat order, every player plays one card of their hand face up. The
  highest card takes the trick, and its player leads the next one; player_0 leads the first.
* After ``hand_size`` tricks the game is over: the most tricks wins (equal most share the win).

Readings this implementation chooses: a finished trick leaves the table at once, so its cards show only as
played (``played``), not by whom; the score is tricks taken.

State (:data:`STATE`, one record per game): each seat's hand as per-rank flags (the core's encoder,
:func:`cardenvs.core.encoding.ids_to_rank_counts`), the undealt cards, the card each seat put in the trick
under way, the cards of finished tricks, tricks taken, the leader and the seat to move.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core import kernels
from cardenvs.core.cards import ACE_HIGH, rank_order
from cardenvs.core.encoding import ids_to_rank_counts
from cardenvs.core.observation import Layout, Segment
from cardenvs.core.rng import episode_deck

RANKS = 13
MAX_PLAYERS = 3
MAX_HAND = 6  # two players of six or three of four use 12 of the 13 cards
DECK = np.arange(RANKS, dtype=np.int16) * 4  # the spades' card ids (suit 0), 2 first
RANK_OF = rank_order(ACE_HIGH)  # card id -> rank 0 (two) .. 12 (ace)
NO_CARD = -1
POLICIES = ("highest", "lowest")

#: the observation; :func:`observe` writes the segments at the offsets the params carry (``LAYOUT.starts()``)
LAYOUT = Layout(
    [
        Segment("own_hand", RANKS, 1, "own cards, one flag per rank (2..A)", shape=(RANKS,)),
        Segment("trick", RANKS, 1, "cards in the trick under way", shape=(RANKS,)),
        Segment("played", RANKS, 1, "cards of finished tricks", shape=(RANKS,)),
        Segment("tricks", MAX_PLAYERS, MAX_HAND, "tricks taken: self, then the next seats in order (0 past n)"),
    ]
)
O_HAND, O_TRICK, O_PLAYED, O_TRICKS = range(4)

STATE = np.dtype(
    [
        ("hands", np.int8, (MAX_PLAYERS, RANKS)),  # 1 where the seat holds that rank
        ("stock", np.int8, (RANKS,)),  # 1 for the undealt cards
        ("trick", np.int8, (MAX_PLAYERS,)),  # rank each seat put in the trick under way (NO_CARD: none yet)
        ("played", np.int8, (RANKS,)),  # 1 for the cards of finished tricks
        ("taken", np.int8, (MAX_PLAYERS,)),
        ("tricks_done", np.int8),
        ("in_trick", np.int8),  # cards in the trick under way
        ("leader", np.int8),
        ("to_move", np.int8),
    ]
)

PARAMS = np.dtype(
    [
        ("players", np.int8),
        ("hand_size", np.int8),
        ("stacked", np.int16, (1, RANKS)),  # options["deck"]: one deal per episode
        ("n_stacked", np.int32),
        ("offsets", np.int32, (4,)),
    ]
)


def make_params(players: int, hand_size: int, offsets: np.ndarray) -> np.ndarray:
    """The constants of one configuration (the env checks that the hands fit in the suit)."""
    p = np.zeros(1, dtype=PARAMS)
    p["players"], p["hand_size"] = players, hand_size
    p["offsets"][0] = offsets
    return p


@njit(cache=True)
def init(state, b, params, deal_seed) -> None:
    """Deal game ``b`` (the stacked deck, else deal 0 of ``deal_seed``). In place."""
    pr, s = params[0], state[b]
    deck = np.empty(RANKS, dtype=np.int16)
    episode_deck(pr.stacked, pr.n_stacked, DECK, deal_seed, 0, deck)
    k = pr.hand_size
    s.hands[:] = 0
    for p in range(pr.players):
        s.hands[p] = ids_to_rank_counts(deck[p * k : (p + 1) * k], RANK_OF, RANKS)
    s.stock[:] = ids_to_rank_counts(deck[pr.players * k :], RANK_OF, RANKS)
    s.trick[:] = NO_CARD
    s.played[:] = 0
    s.taken[:] = 0
    s.tricks_done = s.in_trick = s.leader = s.to_move = 0


@njit(cache=True)
def to_move(state, b, params) -> int:
    """The seat to play (reads only)."""
    return state[b].to_move


@njit(cache=True)
def status(state, b, params) -> int:
    """OVER after ``hand_size`` tricks, else RUNNING (reads only)."""
    return kernels.OVER if state[b].tricks_done == params[0].hand_size else kernels.RUNNING


@njit(cache=True)
def legal_ids(state, b, params, ids) -> int:
    """The ranks the seat to move holds (action = rank), ascending, into ``ids``; how many (0 once over)."""
    if status(state, b, params) != kernels.RUNNING:
        return 0
    hand = state[b].hands[state[b].to_move]
    n = 0
    for r in range(RANKS):
        if hand[r]:
            ids[n] = r
            n += 1
    return n


@njit(cache=True)
def apply(state, b, params, action) -> None:
    """The seat to move plays rank ``action``; the last card of a trick settles it. In place."""
    s, players = state[b], params[0].players
    p = s.to_move
    s.hands[p, action] = 0
    s.trick[p] = action
    s.in_trick += 1
    if s.in_trick < players:
        s.to_move = (p + 1) % players
        return
    winner = 0
    for q in range(players):
        s.played[s.trick[q]] = 1
        if s.trick[q] > s.trick[winner]:
            winner = q
    s.trick[:] = NO_CARD
    s.in_trick = 0
    s.taken[winner] += 1
    s.tricks_done += 1
    s.leader = s.to_move = winner


@njit(cache=True)
def scores(state, b, params, out) -> None:
    """Tricks taken by each seat into ``out``."""
    for p in range(params[0].players):
        out[p] = state[b].taken[p]


@njit(cache=True)
def outcome(state, b, params, out) -> None:
    """Once over, the most tricks win (:func:`kernels.win_share`); zeros while running."""
    out[:] = 0.0
    if status(state, b, params) == kernels.OVER:
        sc = np.empty(params[0].players, dtype=np.float64)
        scores(state, b, params, sc)
        kernels.win_share(sc, out)


@njit(cache=True)
def observe(state, b, params, p, obs) -> None:
    """Seat ``p``'s observation (:data:`LAYOUT`) into the zeroed row ``obs``."""
    s, pr = state[b], params[0]
    off = pr.offsets
    for r in range(RANKS):
        obs[off[O_HAND] + r] = s.hands[p, r]
        obs[off[O_PLAYED] + r] = s.played[r]
    for q in range(pr.players):
        if s.trick[q] != NO_CARD:
            obs[off[O_TRICK] + s.trick[q]] = 1
        obs[off[O_TRICKS] + (q - p) % pr.players] = s.taken[q]


def card_locations(record) -> np.ndarray:
    """Every card of one game, wherever it is (hands, trick, finished tricks, stock), as card ids."""
    ranks = [np.flatnonzero(record["hands"][p]) for p in range(MAX_PLAYERS)]
    ranks += [record["trick"][record["trick"] != NO_CARD], np.flatnonzero(record["played"])]
    ranks.append(np.flatnonzero(record["stock"]))
    return DECK[np.concatenate(ranks).astype(np.int64)].astype(np.int64)
