"""Guandan's numba policies (``rules.POLICIES``): the agents ``guandan.heuristic``, ``guandan.random`` and
``guandan.return_search`` in the arena and the web, the vector envs' opponents and the search rollouts, one
function each.

``random`` picks uniformly among the legal actions of the seat to move (tribute and return cards, pass,
patterns, suit choices alike), drawing one number from ``rng``.

``heuristic`` plays like a careful beginner; it reads only what the seat to move can see (its hand, the play to
beat and who made it, every seat's card count) and draws no random numbers (ties go to the lowest action id):

* Tribute: of the cards it may pay, the one whose loss breaks no straight flush of its hand. Return: the
  lowest card it may give back that no pair, triple or run of five ranks of its hand needs. Measured beyond
  the unit tests (``docs/results/guandan-return.md``, ``benchmarks/guandan_return.py``: duplicate deals,
  heuristics everywhere, one team's returns made otherwise): a random legal return scores within noise of
  this rule (+0.06 [-0.10, +0.21] points a two-hand match, 0.48 [0.44, 0.53] of whole matches), the searched
  return of ``return_search`` well above it.
* *Bombs* it keeps: bombs of one rank, straight flushes and the four jokers; four or more natural cards of a
  rank, or three and a wild, are a bomb rank; the cards of a five-card suited run it holds whole, or with one
  wild, are a straight flush. Wilds are kept too.
* It goes out at once when a legal play empties its hand.
* Leading: the play that sheds the most low value, no bomb and nothing that breaks one or spends a wild while
  another play exists: each card counts its card order minus the ten's (so 2..9 count below zero and
  longer plays of low cards come before singles), a rank left with one card after holding more costs a
  little. When an opponent holds one or two cards, plays it could answer with all its cards (size at most its
  count) cost much more.
* Following its partner: it passes (always on a bomb), unless the opponent after it holds no more cards than
  the partner's play has (it could go out on it): then it follows as against an opponent.
* Following an opponent: the lowest play that beats (by strength, then the value it sheds) among those that
  break nothing; one that breaks a bomb or spends a wild only when an opponent holds ``DANGER`` cards or
  fewer; a bomb (the weakest that beats) only then, or when it leaves ``LATE`` cards or fewer in its hand
  (to win the lead back late). Otherwise it passes.
* Suit decisions: the suits whose cards no straight flush of the hand needs, keeping a second copy where it
  can.

``return_search`` is the heuristic but at the RETURN phase, where it searches (:func:`searched_return`, seeded by
one draw from ``rng``): :data:`SEARCH_DEALS` times the cards the seat cannot see are re-dealt consistently with
what it knows (:func:`.determinize.determinize`: the tribute it received, the cards shown, every hand's count); on
each deal every legal return is applied and the hand played out by the heuristic for every seat and decision (the
other receiver's return included) to the end of the hand in progress. A return is worth the mean change of the
seat's hand points (``+g`` to each winner, ``-g`` to each loser); the heuristic's card is kept unless another's
mean is strictly higher (then the first such maximum, the lowest action id). The heuristic draws nothing, so every
card meets the same deals and the same play. Among heuristic players it scores +0.30 [+0.15, +0.45] points a
two-hand match and 0.61 [0.57, 0.65] of whole matches against the heuristic's return; among players of a DMC model
(whose play its rollouts do not model) no gain was measured (``docs/results/guandan-return.md``). A return costs
about ``SEARCH_DEALS`` x its legal cards hand playouts (some 50 ms).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core import kernels
from cardenvs.core.rng import next_u64, stream, uniform_index

from . import moves
from .determinize import determinize
from .rules import PAY, PLAYERS, POLICIES, RETURN, apply, card_order, legal_ids, status

# a policy's number is its place in rules.POLICIES, whose order decides the search rollouts' default (the
# first); the heuristic keeps a number after the names there while it is not listed
RANDOM = POLICIES.index("random")
HEURISTIC = POLICIES.index("heuristic") if "heuristic" in POLICIES else len(POLICIES)
RETURN_SEARCH = POLICIES.index("return_search")
SEARCH_DEALS = 16  # determinizations of a searched return
DANGER = 6  # an opponent with this many cards or fewer is about to go out
LATE = 8  # a bomb that leaves this many cards or fewer wins the lead back late
KEEP_ORDER = 8  # card order of the ten: lower cards are what a lead wants to shed
BREAK_COST = 3  # a rank left with one card after holding two or more
WILD_COST = 20
SHORT_COST = 30  # a lead an opponent with one or two cards could answer with its last cards
SF_COST = 10  # a suit choice or tribute that takes the last copy of a straight flush's card
RUN = 5  # ranks in a straight
NATURAL, RANK_INDEX = moves.NUM_NATURAL_RANKS, moves.NUM_RANK_INDEX
RUN_ORDER = np.array(moves.RUN_ORDER, dtype=np.int64)


@njit(cache=True)
def random_legal(state, b, params, rng) -> int:
    """A uniformly random legal action of the seat to move of game ``b`` (reads the state; draws once)."""
    ids = np.empty(moves.NUM_ACTIONS, dtype=np.int64)
    n = legal_ids(state, b, params, ids)
    return ids[uniform_index(rng, n)]


# ---------------------------------------------------------------- what a hand keeps
@njit(cache=True)
def rank_counts(hand, level, wild) -> np.ndarray:
    """Natural cards of each rank index (0..12 the ranks, 13 ``BJ``, 14 ``RJ``), the wilds (card ``wild``,
    :func:`moves.wild_card`; -1: none) left out."""
    counts = np.zeros(RANK_INDEX, dtype=np.int64)
    for c in range(moves.NUM_CARDS):
        if c < 4 * NATURAL:
            counts[c // 4] += hand[c]
        else:
            counts[NATURAL + c - 4 * NATURAL] += hand[c]
    if wild >= 0:
        counts[level] -= hand[wild]
    return counts


@njit(cache=True)
def straight_flush_cards(hand, wild) -> np.ndarray:
    """1 for each card id that belongs to a straight flush the hand holds: five suited ranks in a row (the ace
    also low) held whole, or all but one when the hand has a wild (card ``wild``; -1: none). Returns a new
    int8[54]."""
    spare = 1 if wild >= 0 and hand[wild] > 0 else 0
    keep = np.zeros(moves.NUM_CARDS, dtype=np.int8)
    for suit in range(moves.NUM_SUITS):
        for start in range(RUN_ORDER.shape[0] - RUN + 1):
            held = 0
            for i in range(start, start + RUN):
                c = 4 * RUN_ORDER[i] + suit
                if c != wild and hand[c] > 0:
                    held += 1
            if held >= RUN - spare:
                for i in range(start, start + RUN):
                    c = 4 * RUN_ORDER[i] + suit
                    if c != wild and hand[c] > 0:
                        keep[c] = 1
    return keep


@njit(cache=True)
def in_runs(counts) -> np.ndarray:
    """True for each natural rank inside five ranks in a row (the ace also low) that the hand all holds."""
    out = np.zeros(NATURAL, dtype=np.bool_)
    for start in range(RUN_ORDER.shape[0] - RUN + 1):
        whole = True
        for i in range(start, start + RUN):
            if counts[RUN_ORDER[i]] == 0:
                whole = False
        if whole:
            for i in range(start, start + RUN):
                out[RUN_ORDER[i]] = True
    return out


@njit(cache=True)
def _lead_value(pid, level, counts) -> int:
    """The value a play sheds: its natural cards' card orders minus the ten's, plus ``BREAK_COST`` for each rank
    it leaves with one card, plus ``WILD_COST`` a wild (lower: rather played)."""
    value = WILD_COST * moves.PAT_WILDS[pid]
    for r in range(RANK_INDEX):
        n = moves.PAT_NATURAL[pid, r]
        if n == 0:
            continue
        value += n * (moves.card_order(r, level) - KEEP_ORDER)
        if counts[r] - n == 1:
            value += BREAK_COST
    return value


@njit(cache=True)
def _breaks(pid, level, counts, protected, wilds) -> bool:
    """Does non-bomb pattern ``pid`` break a bomb of the hand or spend a wild? A bomb rank (four naturals, or
    three and a wild) played in part, or more cards of a rank than those no straight flush needs."""
    if moves.PAT_WILDS[pid] > 0:
        return True
    for r in range(NATURAL):
        n = moves.PAT_NATURAL[pid, r]
        if n == 0:
            continue
        bomb_rank = counts[r] >= 4 or (counts[r] == 3 and wilds > 0)
        if bomb_rank and n < counts[r]:
            return True
        if n > counts[r] - protected[r]:
            return True
    return False


# ---------------------------------------------------------------- the phases' small choices
@njit(cache=True)
def _card_choice(hand, level, wild, ids, n, returning) -> int:
    """A tribute card (the one no straight flush needs, a spare copy first) or a return card (the lowest by
    card order that no pair, triple or run needs)."""
    counts = rank_counts(hand, level, wild)
    keep = straight_flush_cards(hand, wild)
    runs = in_runs(counts)
    best, best_cost, best_order = -1, 0, 0
    for i in range(n):
        c = ids[i] - moves.CARD0
        cost = SF_COST if keep[c] and hand[c] == 1 else 0
        order = card_order(c, level)
        if returning:
            r = c // 4 if c < 4 * NATURAL else NATURAL + c - 4 * NATURAL
            if counts[r] >= 2 or (r < NATURAL and runs[r]):
                cost += SF_COST
        else:
            order = 0  # the tribute's rank is forced
        if best < 0 or (cost, order) < (best_cost, best_order):
            best, best_cost, best_order = ids[i], cost, order
    return best


@njit(cache=True)
def _suit_choice(hand, pid, wild, chosen, ids, n) -> int:
    """Of the suit vectors offered for the pending play's open rank, the one that takes fewest last copies of
    straight-flush cards, then fewest last copies of any card."""
    rank = -1
    for r in range(NATURAL):
        need = moves.PAT_NATURAL[pid, r]
        have = 0
        for suit in range(moves.NUM_SUITS):
            c = 4 * r + suit
            if c != wild:
                have += chosen[c]
        if need > have:
            rank = r
            break
    keep = straight_flush_cards(hand, wild)
    best, best_cost = -1, 0
    for i in range(n):
        code = ids[i] - moves.SUIT0
        cost = 0
        for suit in range(moves.NUM_SUITS):
            k = moves.SUIT_CODE_COUNTS[code, suit]
            c = 4 * rank + suit
            if k > 0 and hand[c] - chosen[c] - k <= 0:
                cost += SF_COST if keep[c] else 1
        if best < 0 or cost < best_cost:
            best, best_cost = ids[i], cost
    return best


# ---------------------------------------------------------------- plays
@njit(cache=True)
def heuristic(state, b, params, rng) -> int:
    """``guandan.heuristic`` for the seat to move of game ``b`` (reads the state; writes nothing)."""
    s = state[b]
    me = s.to_move
    level = s.hand_level
    wild = moves.wild_card(level, params[0].flags)
    hand = s.hands[me]
    ids = np.empty(moves.NUM_ACTIONS, dtype=np.int64)
    n = legal_ids(state, b, params, ids)
    if s.phase == PAY or s.phase == RETURN:
        return _card_choice(hand, level, wild, ids, n, s.phase == RETURN)
    if s.pending >= 0:
        return _suit_choice(hand, s.pending, wild, s.chosen, ids, n)
    can_pass = ids[n - 1] == moves.PASS
    plays = n - 1 if can_pass else n
    held = s.n_cards[me]
    for i in range(plays):
        if moves.PAT_SIZE[ids[i]] == held:
            return ids[i]  # out
    if plays == 0:
        return moves.PASS
    counts = rank_counts(hand, level, wild)
    wilds = hand[wild] if wild >= 0 else 0
    keep = straight_flush_cards(hand, wild)
    protected = np.zeros(NATURAL, dtype=np.int64)
    for c in range(4 * NATURAL):
        protected[c // 4] += keep[c]
    fewest = 99  # an opponent's cards, those out left aside
    for k in (1, 3):
        q = (me + k) % PLAYERS
        if 0 < s.n_cards[q] < fewest:
            fewest = s.n_cards[q]
    danger = fewest <= DANGER
    if not can_pass:  # leading: (class, value, -size): class 0 clean, 1 breaking or wild, 2 bomb
        best, b_class, b_value, b_size = -1, 0, 0, 0
        for i in range(plays):
            pid = ids[i]
            size = moves.PAT_SIZE[pid]
            bomb = moves.PAT_KIND[pid] >= moves.FIRST_BOMB_KIND
            cls = 2 if bomb else (1 if _breaks(pid, level, counts, protected, wilds) else 0)
            value = _lead_value(pid, level, counts)
            if bomb:
                value = moves.strength(pid, level)
            elif fewest <= 2 and size <= fewest:
                value += SHORT_COST
            if best < 0 or (cls, value, -size) < (b_class, b_value, -b_size):
                best, b_class, b_value, b_size = pid, cls, value, size
        return best
    partner = (me + 2) % PLAYERS
    if s.last_player == partner:
        after = (me + 1) % PLAYERS  # the opponent still to answer the partner's play
        if moves.PAT_KIND[s.last_pid] >= moves.FIRST_BOMB_KIND:
            return moves.PASS
        if s.n_cards[after] == 0 or s.n_cards[after] > moves.PAT_SIZE[s.last_pid]:
            return moves.PASS
    best, b_class, b_strength, b_value = -1, 0, 0, 0
    for i in range(plays):
        pid = ids[i]
        bomb = moves.PAT_KIND[pid] >= moves.FIRST_BOMB_KIND
        cls = 2 if bomb else (1 if _breaks(pid, level, counts, protected, wilds) else 0)
        strength = moves.strength(pid, level)
        value = _lead_value(pid, level, counts)
        if best < 0 or (cls, strength, value) < (b_class, b_strength, b_value):
            best, b_class, b_strength, b_value = pid, cls, strength, value
    if b_class == 0:
        return best
    if b_class == 1:
        return best if danger else moves.PASS
    if danger or held - moves.PAT_SIZE[best] <= LATE:
        return best
    return moves.PASS


# ---------------------------------------------------------------- the searched return
@njit(cache=True)
def play_out_hand(sim, b, params) -> None:
    """Play game ``b`` of ``sim`` with the heuristic for every seat (in place) until the hand in progress ends
    (the match's next hand begins, or the episode is over or truncated)."""
    hand = sim[b].hands_played
    rng = np.zeros(1, dtype=np.uint64)  # the heuristic draws nothing
    while status(sim, b, params) == kernels.RUNNING and sim[b].hands_played == hand:
        apply(sim, b, params, heuristic(sim, b, params, rng))


@njit(cache=True)
def return_values(state, b, params, seed, deals, ids, values) -> int:
    """The legal returns of the seat to move of game ``b`` into ``ids`` and each one's mean change of that
    seat's hand points over ``deals`` determinizations into ``values`` (``return_search`` in the module
    docstring); returns how many.
    Reads ``state``; writes only ``ids`` and ``values``."""
    seat = state[b].to_move
    n = legal_ids(state, b, params, ids)
    det = np.zeros(1, dtype=state.dtype)
    sim = np.zeros(1, dtype=state.dtype)
    values[:n] = 0.0
    for d in range(deals):
        determinize(state, b, params, seat, stream(seed, d), det, 0)
        before = det[0].score[seat]
        for i in range(n):
            sim[0] = det[0]
            apply(sim, 0, params, ids[i])
            play_out_hand(sim, 0, params)
            values[i] += sim[0].score[seat] - before
    for i in range(n):
        values[i] /= max(deals, 1)
    return n


@njit(cache=True)
def searched_return(state, b, params, seed, deals) -> int:
    """The searched return of the seat to move of game ``b``, which must be in the RETURN phase: the
    heuristic's card unless another's mean over ``deals`` determinizations (stream ``d`` of ``seed``) is
    strictly higher (``return_search`` in the module docstring). Reads ``state`` only."""
    if state[b].phase != RETURN:
        raise ValueError("searched_return: the game is not in the RETURN phase")
    ids = np.empty(moves.NUM_ACTIONS, dtype=np.int64)
    values = np.zeros(moves.NUM_ACTIONS, dtype=np.float64)
    n = return_values(state, b, params, seed, deals, ids, values)
    rng = np.zeros(1, dtype=np.uint64)
    best = heuristic(state, b, params, rng)
    best_value = -np.inf
    for i in range(n):
        if ids[i] == best:
            best_value = values[i]
    for i in range(n):
        if values[i] > best_value:
            best, best_value = ids[i], values[i]
    return best


@njit(cache=True)
def policy(state, b, params, which, rng) -> int:
    """The game's numba policies by number (their places in ``rules.POLICIES``: :data:`HEURISTIC`,
    :data:`RANDOM`, :data:`RETURN_SEARCH`); -1 once the game is over."""
    if status(state, b, params) != kernels.RUNNING:
        return -1
    if which == RANDOM:
        return random_legal(state, b, params, rng)
    if which == RETURN_SEARCH and state[b].phase == RETURN:
        return searched_return(state, b, params, next_u64(rng), SEARCH_DEALS)
    return heuristic(state, b, params, rng)
