"""Two Way Street determinization for search (:func:`cardenvs.core.kernels.determinize`).

What seat ``p`` knows and keeps: its own hand and discards, the cards played (finished tricks and the
trick on the table), the captured stock cards of a duel, every hand's size, the declarations and forced
flags, the suit led, and the voids shown by play (``void``, kept by :mod:`.rules`: not following the suit
led, or playing after an unnamed joker lead without being asked to name a suit). Where its own discards
are: still in the stock at the places it put them, or (3+ players, when the stock runs short) drawn by
the declarer who took them from the stock and still held by that seat if it has not played such a card.

What is re-dealt: every other card in the other seats' hands and in the stock (``stock[stock_head:
stock_end]``, minus p's own discards), gathered in card-id order (so how they are split does not
matter), each card placed in turn, in shuffled order, at a random free place (a hand or a stock slot,
chosen in proportion to free places) among those that keep a completion possible: no card of a suit a
seat showed void goes to that seat (Hall's condition over the seats' free places is checked before each
placement, so the deal never gets stuck). The result is consistent, not exactly uniform over consistent
deals. Not used: the positive information of naming a suit (the namer holds one) and what bids or
declarations suggest. A duel dealer's bid still hidden from the responder is replaced by the
``heuristic``'s bid for the dealer's re-dealt hand. The episode's deal seed (later hands) is redrawn.
With ``declaration="random"`` the coins of the seats other than ``p`` that have not declared yet are
redrawn too (``p`` sees only its own coin, in its mask).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.encoding import counts_to_ids
from cardenvs.core.rng import next_u64, shuffle, uniform_index

from .policies import expected_tricks
from .rules import BID, DECLARATION_RANDOM, HAND_CARDS, HIGH, LOW, MAX_PLAYERS, NUM_IDS


@njit(cache=True)
def _accepts(void_bits: int, card: int) -> bool:
    return card >= 52 or not (void_bits >> (card % 4)) & 1


@njit(cache=True)
def _feasible_by_seats(cap, voids, counts, seats) -> bool:
    """Hall's condition: every set of seats can be filled from the cards left (by type: suit 0..3, joker 4)
    that some seat of the set accepts. ``2 ** len(seats)`` sets."""
    m = seats.shape[0]
    for subset in range(1, 1 << m):
        need = 0
        union_void = 15
        for i in range(m):
            if (subset >> i) & 1:
                need += cap[seats[i]]
                union_void &= voids[seats[i]]  # a type is acceptable to the set unless all are void in it
        have = counts[4]
        for t in range(4):
            if not (union_void >> t) & 1:
                have += counts[t]
        if need > have:
            return False
    return True


@njit(cache=True)
def _feasible_by_types(cap, voids, counts, seats) -> bool:
    """The same condition from the cards' side: every set of card types fits in the places that accept one
    of them (the stock accepts every card). 31 sets. With as many free places as cards left (always so
    here) the two are equivalent: both say the transport of cards to places has an exact solution (Hall's
    theorem, or max-flow min-cut)."""
    m = seats.shape[0]
    for types in range(1, 32):
        need = 0
        for t in range(5):
            if (types >> t) & 1:
                need += counts[t]
        have = cap[MAX_PLAYERS]
        for i in range(m):
            q = seats[i]
            if (types & 16) or (types & ~voids[q] & 15):  # q accepts a joker, or a suit it is not void in
                have += cap[q]
        if need > have:
            return False
    return True


@njit(cache=True)
def _feasible(cap, voids, counts, seats) -> bool:
    """Whether the cards left can still be placed (:func:`_feasible_by_seats`); from the side with fewer
    sets, and at once when no seat shows a void (every place accepts every card)."""
    m = seats.shape[0]
    any_void = False
    for i in range(m):
        if voids[seats[i]] != 0:
            any_void = True
    if not any_void:
        return True
    if m <= 4:
        return _feasible_by_seats(cap, voids, counts, seats)
    return _feasible_by_types(cap, voids, counts, seats)


@njit(cache=True)
def _heuristic_bid(hand) -> int:
    """The ``heuristic``'s duel bid (0 no bid, 1..10 high, 11..20 low) for the per-card counts ``hand``."""
    expected = expected_tricks(hand)
    if expected - 4 >= 1:
        return int(min(10.0, np.rint(expected - 4)))
    if 5 - expected >= 1:
        return 10 + int(min(10.0, np.rint(5 - expected)))
    return 0


@njit(cache=True)
def determinize(state, b, params, p, rng, out, ob) -> None:
    """Write to ``out[ob]`` game ``b`` with the cards seat ``p`` cannot see re-dealt from ``rng`` (module
    docstring). Reads only what ``p`` observed, plus the hidden cards as a set; writes ``out[ob]`` only."""
    out[ob] = state[b]
    s = state[b]
    o = out[ob]
    o.seed = next_u64(rng)
    if s.over or s.truncated:
        return
    pr = params[0]
    n = pr.players
    deck_len = pr.deck_len
    # p's own discards: their stock positions; drawn ones are pinned in the drawer's hand
    pinned = np.zeros((MAX_PLAYERS, NUM_IDS), dtype=np.int64)
    keep_slot = np.zeros(s.stock.shape[0], dtype=np.bool_)
    if s.n_discards[p] > 0:
        if n == 2:
            offset = 2 if (p != s.first and s.n_discards[s.first] > 0) else 0
        else:
            offset = 2 * ((p - s.first + n) % n)
        for i in range(s.n_discards[p]):
            pos = deck_len + offset + i
            if pos >= s.stock_head:
                keep_slot[pos] = True
            elif n > 2:  # drawn by the declarer who took stock places pos (duels never draw discards)
                q = (s.first + (pos - n * HAND_CARDS) // 2) % n
                if q != p:
                    pinned[q, s.stock[pos]] += 1
        # still held unless q played cards of that id since (p saw every card each seat played)
        for k in range(s.trick_no):
            for j in range(n):
                q = (s.first + k + j) % n
                c = s.taken_cards[k * n + j]
                if pinned[q, c] > 0:
                    pinned[q, c] -= 1
        if s.trick_on:
            for j in range(s.trick_len):
                q = (s.trick_leader + j) % n
                c = s.trick_cards[j]
                if pinned[q, c] > 0:
                    pinned[q, c] -= 1
    # the hidden pool, by card id
    pool_counts = np.zeros(NUM_IDS, dtype=np.int64)
    cap = np.zeros(MAX_PLAYERS + 1, dtype=np.int64)  # free places per seat, then the stock's
    for q in range(n):
        if q == p:
            continue
        for c in range(NUM_IDS):
            k = s.hands[q, c] - pinned[q, c]
            pool_counts[c] += k
            cap[q] += k
    stock_slots = np.empty(s.stock.shape[0], dtype=np.int64)
    n_slots = 0
    for pos in range(s.stock_head, s.stock_end):
        if not keep_slot[pos]:
            pool_counts[s.stock[pos]] += 1
            stock_slots[n_slots] = pos
            n_slots += 1
    cap[MAX_PLAYERS] = n_slots
    pool = counts_to_ids(pool_counts)
    shuffle(pool, rng)
    seats = np.empty(n - 1, dtype=np.int64)
    m = 0
    for q in range(n):
        if q != p:
            seats[m] = q
            m += 1
    voids = np.zeros(MAX_PLAYERS + 1, dtype=np.int64)
    for q in range(n):
        voids[q] = s.void[q] if q != p else 0
    counts = np.zeros(5, dtype=np.int64)  # cards left by type: suits, jokers
    for c in pool:
        counts[4 if c >= 52 else c % 4] += 1
    for q in range(n):
        if q != p:
            for c in range(NUM_IDS):
                o.hands[q, c] = pinned[q, c]
    places = np.empty(MAX_PLAYERS + 1, dtype=np.int64)
    filled = 0
    for c in pool:
        t = 4 if c >= 52 else c % 4
        counts[t] -= 1
        # a place drawn in proportion to free places among those that accept the card; if it would
        # leave no completion, the first place (seats in order, then the stock) that does
        n_places = 0
        weight = 0
        for i in range(m):
            q = seats[i]
            if cap[q] > 0 and _accepts(int(voids[q]), int(c)):
                places[n_places] = q
                n_places += 1
                weight += cap[q]
        if cap[MAX_PLAYERS] > 0:
            places[n_places] = MAX_PLAYERS
            n_places += 1
            weight += cap[MAX_PLAYERS]
        r = uniform_index(rng, weight)
        chosen = places[n_places - 1]
        for j in range(n_places):
            r -= cap[places[j]]
            if r < 0:
                chosen = places[j]
                break
        cap[chosen] -= 1
        if not _feasible(cap, voids, counts, seats):
            cap[chosen] += 1
            for j in range(n_places):
                cap[places[j]] -= 1
                if _feasible(cap, voids, counts, seats):
                    chosen = places[j]
                    break
                cap[places[j]] += 1
        if chosen == MAX_PLAYERS:
            o.stock[stock_slots[filled]] = c
            filled += 1
        else:
            o.hands[chosen, c] += 1
    if n == 2 and s.phase == BID and not s.revealed and p != s.first and s.bids[s.first] >= 0:
        o.bids[s.first] = _heuristic_bid(o.hands[s.first])
    if pr.declaration == DECLARATION_RANDOM:
        for q in range(n):
            if q != p and s.direction[q] < 0:
                o.imposed[q] = HIGH if next_u64(rng) >> np.uint64(63) == 0 else LOW


# ---------------------------------------------------------------- the rollouts' horizon
@njit(cache=True)
def horizon(state, b, params) -> int:
    """Hands played (:func:`cardenvs.core.kernels.horizon`): a search rollout stops at the end of its hand
    and scores the match there (:func:`horizon_value`), instead of playing the hands after it, whose deals
    the move searched cannot influence and which only add noise (and, at 10 seats, about 50 hands of play)."""
    return state[b].hand_no


@njit(cache=True)
def horizon_value(state, b, params, out) -> None:
    """The match standings on the win scale: seat ``i`` gets ``n / ((n - 1) target) * (total_i - mean
    total)``, zero-sum, and exactly the outcome (+1 for the winner, -1/(n-1) for the others) when one seat
    has ``target`` points and the others none; each point more than the table's mean is worth the same."""
    s = state[b]
    n = params[0].players
    mean = 0.0
    for p in range(n):
        mean += s.totals[p]
    mean /= n
    scale = n / ((n - 1) * params[0].target)
    for p in range(n):
        out[p] = scale * (s.totals[p] - mean)
