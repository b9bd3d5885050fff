"""Guandan determinization: re-deal the cards a seat cannot see (:func:`cardenvs.core.kernels.determinize`).

What seat ``p`` has observed, and so keeps: its own hand; every card played (``played``, public); every hand's
size; every public field (levels, the trick, the plays of the hand, who is out). Beyond that the tribute tells
it where some cards are, and each such fact is kept:

* a tribute card, once shown, is in its receiver's hand (unless played since, or given back as the return);
* a returned card, once shown, is in its payer's hand (unless played since);
* after a resistance, the red jokers shown are in their holders' hands (unless played since);
* a payer whose tribute card ``p`` saw held no higher card (by card order at the hand's level, wilds aside)
  when it paid, so no such card is dealt to it now (the card given back to it excepted: it is kept as above).

Cards still travelling unseen by ``p`` (a tribute card before every payer has paid, a returned card before
every receiver has returned, ``p``'s own excepted) are re-dealt too: their giver gets one card more, and then
gives what the rules let it give: a payer its highest card (a suit drawn at random), a receiver a card its
return rule allows (drawn at random). Deals in which the payers would have held both red jokers (a
resistance that did not happen) are drawn again, up to :data:`MAX_TRIES` times.

The other cards are dealt uniformly at random among the deals that keep all of the above: the cards that
fewer seats may hold go first, each to a free place of a seat that may hold it, all such places alike (exact
for these nested constraints). The pool of unseen cards is built in card-id order from public fields and
``p``'s hand only, so two states that differ only in how the hidden cards are split give the same result for
the same stream. Inferences from the other players' choices (a pass that suggests a weak hand) are not used.
The seat ``p`` is the seat to move, as in every search: a pending play of another seat is left as it is.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core import kernels
from cardenvs.core.rng import shuffle, uniform_index

from . import moves
from .rules import (
    DECK_SIZE,
    MATCH_EPISODE,
    NUM_CARDS,
    PLAYERS,
    RED_JOKER,
    _pay_ids,
    _return_ids,
    card_order,
    is_wild,
)

MAX_TRIES = 100
COPIES = 2


@njit(cache=True)
def _payer_index(s, q) -> int:
    for i in range(s.n_payers):
        if s.payers[i] == q:
            return i
    return -1


@njit(cache=True)
def _known(s, p, must) -> None:
    """``must[q, c]``: copies of card ``c`` seat ``q`` (not ``p``) is known to hold (module docstring)."""
    must[:] = 0
    if s.tribute_shown:
        for j in range(s.n_payers):
            receiver = s.return_seats[j]
            card = s.paid[_payer_index(s, s.return_to[j])]
            must[receiver, card] += 1
            seen = s.returns_shown or receiver == p
            if j < s.n_returned and seen and s.returned[j] == card:
                must[receiver, card] -= 1  # given back
    if s.returns_shown:
        for j in range(s.n_payers):
            must[s.return_to[j], s.returned[j]] += 1
    if s.resisted:
        for q in range(PLAYERS):
            must[q, RED_JOKER] += s.red_jokers[q]
    for q in range(PLAYERS):
        for c in range(NUM_CARDS):
            must[q, c] = max(0, must[q, c] - s.played[q, c])
        if q == p:
            must[q, :] = 0


@njit(cache=True)
def _resisted_anyway(s) -> bool:
    """Would the payers of this world have held both red jokers when the tribute began?"""
    red = 0
    for i in range(s.n_payers):
        q = s.payers[i]
        red += s.hands[q, RED_JOKER] + s.played[q, RED_JOKER]
        if i < s.n_paid and s.paid[i] == RED_JOKER:
            red += 1
    if s.returns_shown:
        for j in range(s.n_payers):
            if s.returned[j] == RED_JOKER:
                red -= 1
    return red >= 2


@njit(cache=True)
def determinize(state, b, params, p, rng, out, ob) -> None:
    """Write to ``out[ob]`` game ``b`` with every card seat ``p`` cannot see re-dealt from ``rng`` (see the
    module docstring); ``state`` is only read (``out`` may be ``state`` itself with ``ob == b``)."""
    out[ob] = state[b]
    s = out[ob]
    if s.status != kernels.RUNNING:
        return
    level = s.hand_level
    flags = params[0].flags
    must = np.zeros((PLAYERS, NUM_CARDS), dtype=np.int64)
    _known(s, p, must)
    # cards travelling unseen by p: (giver, index) of tribute and return cards p has not seen
    hidden_paid = np.zeros(2, dtype=np.bool_)
    hidden_returned = np.zeros(2, dtype=np.bool_)
    slots = np.zeros(PLAYERS, dtype=np.int64)
    for q in range(PLAYERS):
        if q != p:
            slots[q] = s.n_cards[q]
    if not s.tribute_shown:
        for i in range(s.n_paid):
            if s.payers[i] != p:
                hidden_paid[i] = True
                slots[s.payers[i]] += 1
    if not s.returns_shown:
        for j in range(s.n_returned):
            if s.return_seats[j] != p:
                hidden_returned[j] = True
                slots[s.return_seats[j]] += 1
    # the pool: every copy not in p's hand, not played, not known elsewhere, not travelling in p's sight
    left = np.full(NUM_CARDS, COPIES, dtype=np.int64)
    for c in range(NUM_CARDS):
        left[c] -= s.hands[p, c]
        for q in range(PLAYERS):
            left[c] -= s.played[q, c] + must[q, c]
    if not s.tribute_shown:
        for i in range(s.n_paid):
            if not hidden_paid[i]:
                left[s.paid[i]] -= 1
    if not s.returns_shown:
        for j in range(s.n_returned):
            if not hidden_returned[j]:
                left[s.returned[j]] -= 1
    pool = np.empty(DECK_SIZE, dtype=np.int64)
    n_pool = 0
    for c in range(NUM_CARDS):
        for _ in range(max(0, left[c])):
            pool[n_pool] = c
            n_pool += 1
    # a payer whose tribute p saw may hold nothing above it (its order; -1: no such limit)
    ceiling = np.full(PLAYERS, 99, dtype=np.int64)
    for i in range(s.n_paid):
        q = s.payers[i]
        if q != p and not hidden_paid[i]:
            ceiling[q] = card_order(s.paid[i], level)
    # most restricted first: a card's rank is how many seats may hold it (ties in shuffled order)
    eligible = np.zeros(NUM_CARDS, dtype=np.int64)
    for c in range(NUM_CARDS):
        for q in range(PLAYERS):
            if q != p and (is_wild(c, level, flags) or card_order(c, level) <= ceiling[q]):
                eligible[c] += 1
    order = np.empty(DECK_SIZE, dtype=np.int64)
    free = np.empty(PLAYERS, dtype=np.int64)
    ids = np.empty(moves.NUM_ACTIONS, dtype=np.int64)
    for _ in range(MAX_TRIES):
        shuffle(pool[:n_pool], rng)
        k = 0
        for seats in range(PLAYERS + 1):
            for i in range(n_pool):
                if eligible[pool[i]] == seats:
                    order[k] = pool[i]
                    k += 1
        for q in range(PLAYERS):
            if q != p:
                free[q] = slots[q]
                for c in range(NUM_CARDS):
                    s.hands[q, c] = must[q, c]
                    free[q] -= must[q, c]
        for i in range(n_pool):
            c = order[i]
            room = 0
            for q in range(PLAYERS):
                if q != p and free[q] > 0 and (is_wild(c, level, flags) or card_order(c, level) <= ceiling[q]):
                    room += free[q]
            unrestricted = room == 0  # only for a state no deal explains: any free place
            if unrestricted:
                for q in range(PLAYERS):
                    if q != p and free[q] > 0:
                        room += free[q]
            pick = uniform_index(rng, room)
            for q in range(PLAYERS):
                if q == p or free[q] <= 0:
                    continue
                if not unrestricted and not (is_wild(c, level, flags) or card_order(c, level) <= ceiling[q]):
                    continue
                if pick < free[q]:
                    s.hands[q, c] += 1
                    free[q] -= 1
                    break
                pick -= free[q]
        _give_hidden(s, out, ob, params, hidden_paid, hidden_returned, rng, ids)
        if s.n_payers == 0 or s.resisted or not _resisted_anyway(s):
            return


@njit(cache=True)
def _give_hidden(s, out, ob, params, hidden_paid, hidden_returned, rng, ids) -> None:
    """The cards still travelling unseen: each giver (dealt one card more) gives what the rules let it."""
    to_move, n_paid, n_returned = s.to_move, s.n_paid, s.n_returned
    for i in range(n_paid):
        if hidden_paid[i]:
            s.to_move = s.payers[i]
            n = _pay_ids(out, ob, params, ids)
            card = ids[uniform_index(rng, n)] - moves.CARD0
            s.hands[s.payers[i], card] -= 1
            s.paid[i] = card
    for j in range(n_returned):
        if hidden_returned[j]:
            s.to_move = s.return_seats[j]
            s.n_returned = j
            n = _return_ids(out, ob, params, ids)
            card = ids[uniform_index(rng, n)] - moves.CARD0
            s.hands[s.return_seats[j], card] -= 1
            s.returned[j] = card
    s.to_move, s.n_returned = to_move, n_returned


# ---------------------------------------------------------------- the search's horizon: the end of a match's hand
@njit(cache=True)
def horizon(state, b, params) -> int:
    """Hands played, in a match (:func:`cardenvs.core.kernels.horizon`): a search rollout stops at the end of its
    hand and scores it there (:func:`horizon_value`) instead of playing the match's later hands (10 to 30 of them),
    whose deals the move searched cannot change: each rollout was a whole match (the play agent's move in a match
    took about 360 ms of CPU, now about 16: ``benchmarks/search_move_ms.py``). A single hand (``episode=hand``)
    has none (-1): its end is the episode's."""
    if params[0].episode == MATCH_EPISODE:
        return state[b].hands_played
    return -1


@njit(cache=True)
def horizon_value(state, b, params, out) -> None:
    """The hand just ended, on the win scale: +1 to each player of the team that won it (``hand_winner``), -1 to
    the others, the outcome of the same hand played as a single hand (:func:`.rules.outcome`), so a match's hands
    are searched as the single hands the search was measured on; what a hand is worth to the match beyond its win
    (its level points, the levels) is left to a learned prior's values (``prior=dmc``: the win plus a third of the
    levels)."""
    team = state[b].hand_winner
    for q in range(PLAYERS):
        out[q] = 1.0 if q % 2 == team else -1.0
