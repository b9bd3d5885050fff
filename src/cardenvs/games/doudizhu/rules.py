"""Dou Dizhu, "Two Against One", as functions over a small state (``seeds/004`` and RULES.md).

Rules, in plain words:

* 54 cards (two jokers), 17 to each player from the first bidder in seat order, 3 to the kitty.
* Bidding (``bidding=True``): from the first bidder, in seat order, each player bids once: 1, 2 or 3,
  higher than the current bid, or no bid; a 3 ends it. The highest bidder is the landlord. If all pass
  the hand is dead: every score is 0 and the episode ends. Reset options ``landlord`` and ``bid`` skip the
  bidding; with ``bidding=False`` the first bidder is landlord at bid 1 unless they say otherwise.
* The kitty is then shown to everyone and taken by the landlord, who leads. Play goes round in seat
  order; a player beats the move on the table (:mod:`.moves`) or passes; the leader may not pass; a
  player who passed may play again in the same trick; two passes in a row end the trick and its last
  player leads. The first player out of cards wins for their side.
* Score: with bid N and M = bombs and rockets played by anyone, + 1 for a spring (the landlord wins and
  neither farmer played a card) or an anti-spring (a farmer wins and the landlord played only the
  opening lead): landlord wins +2 N 2^M, each farmer -N 2^M; farmers win: the reverse.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import moves

HAND, KITTY = 17, 3
PLAYERS = 3


@dataclass
class DouDizhuState:
    hands: np.ndarray  # int8[3, 54] per card
    kitty: np.ndarray  # card ids
    first_bidder: int
    played: np.ndarray = field(default_factory=lambda: np.zeros((PLAYERS, 54), dtype=np.int8))
    kitty_in_hand: np.ndarray = field(default_factory=lambda: np.zeros(54, dtype=np.int8))  # public
    bidding: bool = True
    bids: list[int] = field(default_factory=list)  # (0 = no bid) in bidding order
    bid: int = 0
    landlord: int = -1
    to_move: int = 0
    last_move: int = -1  # the move to beat (-1: leading)
    last_player: int = -1
    passes: int = 0
    history: list[tuple[int, int]] = field(default_factory=list)  # (player, move or PASS) of the play phase
    hist_move: np.ndarray = field(default_factory=lambda: np.full(512, -1, dtype=np.int64))  # the same, as arrays
    hist_player: np.ndarray = field(default_factory=lambda: np.full(512, -1, dtype=np.int64))
    moves_played: np.ndarray = field(default_factory=lambda: np.zeros(PLAYERS, dtype=np.int64))
    bombs: int = 0
    winner: int = -1
    dead: bool = False


def deal(deck: np.ndarray, first_bidder: int) -> DouDizhuState:
    hands = np.zeros((PLAYERS, 54), dtype=np.int8)
    for k in range(PLAYERS):
        p = (first_bidder + k) % PLAYERS
        hands[p, deck[k * HAND:(k + 1) * HAND]] = 1
    return DouDizhuState(hands, np.asarray(deck[PLAYERS * HAND:]), first_bidder, to_move=first_bidder)


def bid_mask(state: DouDizhuState) -> np.ndarray:
    mask = np.zeros(moves.NUM_ACTIONS, dtype=np.int8)
    mask[moves.BID_PASS] = 1
    for b in range(state.bid + 1, 4):
        mask[moves.BID_PASS + b] = 1
    return mask


def make_landlord(state: DouDizhuState, landlord: int, bid: int) -> None:
    """End the bidding: the landlord takes the kitty (shown to everyone) and leads."""
    state.bidding = False
    state.landlord = landlord
    state.bid = bid
    state.hands[landlord, state.kitty] = 1
    state.kitty_in_hand[state.kitty] = 1
    state.to_move = landlord


def apply_bid(state: DouDizhuState, bid: int) -> None:
    p = state.to_move
    state.bids.append(bid)
    if bid:
        state.bid = bid
        state.landlord = p
    if bid == 3 or len(state.bids) == PLAYERS:
        if state.bid == 0:
            state.dead = True
            state.bidding = False
            return
        make_landlord(state, state.landlord, state.bid)
        return
    state.to_move = (p + 1) % PLAYERS


def play_mask(state: DouDizhuState) -> np.ndarray:
    mask = np.zeros(moves.NUM_ACTIONS, dtype=np.int8)
    moves.legal_mask(state.hands[state.to_move], state.last_move, mask)
    if state.last_move >= 0:
        mask[moves.PASS] = 1
    return mask


_TAKEN = np.zeros(20, dtype=np.int64)


def apply_play(state: DouDizhuState, move: int) -> None:
    p = state.to_move
    n = len(state.history)
    state.hist_move[n], state.hist_player[n] = move, p
    state.history.append((p, move))
    if move == moves.PASS:
        state.passes += 1
        if state.passes == 2:  # both others passed: the trick's last player leads
            state.last_move, state.passes = -1, 0
            state.to_move = state.last_player
            return
    else:
        k = moves.take_cards(state.hands[p], moves.MOVE_COUNTS[move], moves.RANK_OF_CARD, _TAKEN)
        state.played[p, _TAKEN[:k]] = 1
        state.kitty_in_hand[_TAKEN[:k]] = 0
        state.moves_played[p] += 1
        if moves.MOVE_TYPE[move] in (moves.BOMB, moves.ROCKET):
            state.bombs += 1
        state.last_move, state.last_player, state.passes = move, p, 0
        if not state.hands[p].any():
            state.winner = p
            return
    state.to_move = (p + 1) % PLAYERS


def scores(state: DouDizhuState) -> np.ndarray:
    """Each player's score once the hand has a winner (zeros before, and for a dead hand)."""
    out = np.zeros(PLAYERS)
    if state.winner < 0:
        return out
    landlord_wins = state.winner == state.landlord
    farmers = [p for p in range(PLAYERS) if p != state.landlord]
    multiplier = state.bombs
    if landlord_wins and all(state.moves_played[f] == 0 for f in farmers):
        multiplier += 1  # spring
    if not landlord_wins and state.moves_played[state.landlord] == 1:
        multiplier += 1  # anti-spring
    unit = state.bid * 2 ** multiplier
    sign = 1 if landlord_wins else -1
    out[state.landlord] = 2 * unit * sign
    for f in farmers:
        out[f] = -unit * sign
    return out


def all_cards(state: DouDizhuState) -> np.ndarray:
    held = [np.flatnonzero(state.hands[p]) for p in range(PLAYERS)]
    played = [np.flatnonzero(state.played[p]) for p in range(PLAYERS)]
    kitty = [state.kitty] if state.bidding or state.dead else []  # not yet taken by the landlord
    return np.concatenate(held + played + kitty)
