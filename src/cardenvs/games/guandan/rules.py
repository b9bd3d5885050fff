"""Guandan (掼蛋), two teams of two with two decks, as numba functions over a batched array state.

Rules, in plain words:

* Four players; ``player_0`` and ``player_2`` are team 0, ``player_1`` and ``player_3`` team 1. Turns go
  ``player_i`` to ``player_{i+1}``, wrapping. Two 54-card decks (108 cards) are dealt 27 to each player:
  a deck is dealt in blocks of 27 to ``player_0``, ``player_1``, ``player_2``, ``player_3``.
* Each team has a level, a rank from 2 to A (both start at 2). A hand is played at the level of its
  *declarer*, the team whose player went out first in the previous hand (the first hand of a match: 2).
  At that level the level rank sits above the ace and below the jokers for singles, pairs, triples, full
  houses and bombs of one rank, and keeps its natural place in sequences; its two hearts are wild.
  Which plays exist and which beats which is :mod:`.moves`' business (rules 5-13 of the specification).
* A trick: the leader plays anything (and may not pass); each next player holding cards beats the last
  play or passes, and may play again after passing. The trick ends when every other player still holding
  cards has passed since its last play; that player leads. A player with no cards is out and skipped; if a
  trick ends on a play that emptied its player's hand, that player's partner leads (接风).
* The hand ends at once when both players of a team are out. The first finisher's team wins it and gains
  3 levels if the partner finished second, 2 if third, 1 if last; no level passes A. The points reward
  is +gain to each winner and -gain to each loser.
* A match (``episode="match"``) plays hands until a team wins it: a team at A winning a hand played at A
  with its partner not last (``a_win="double"``: only a 1-2). Every hand played at A is an attempt for each
  team at A; an attempt that does not win fails, and after ``a_attempts`` failures (0: never) the team
  goes back to 2 and its count restarts. After ``max_hands`` hands the match is truncated.
* Tribute, before every hand that has a previous one (``tribute=True``): after a double (1-2) both losers
  pay, else the last player pays the first finisher (after a 1-4 that is the first finisher's partner). If
  the payers hold both red jokers between them the tribute is resisted: no tribute, no return, the red
  jokers and their holders are shown, the previous first finisher leads. Otherwise each payer gives its
  highest card by card order at the new hand's level, never a wild (it chooses the suit: a card action).
  A double's higher card goes to the first finisher, the lower to the second. Each receiver then gives a
  card back to its payer (a card action; ``return_rule``). After a single tribute the payer leads, after
  a double the payer whose card the first finisher got. Without tribute the previous first finisher leads.

Readings this implementation takes (the options name the alternatives):

* The first leader of a match (and of a hand episode without ``previous_order``) is drawn from the deal's
  own stream :data:`FIRST_LEADER_STREAM` (so it is part of the deal), unless the reset option
  ``first_leader`` names one. A stacked deck is the whole deal: the leader is then drawn from a stream
  seeded by the deck's order (:func:`stacked_seed`), whatever the deal seed. ``first_leader`` is refused
  beside ``previous_order``: such a hand's leader follows from the tribute.
* ``hand_levels="random"`` (hand episodes only; a learner's view of the level game, whose hands are played at
  every level): each team's level is drawn uniformly from 2..A and the declarer from the two teams, from the
  deal's own stream :data:`LEVELS_STREAM` (a stacked deck's order seeds it, as for the first leader), so a
  duplicate deal is played at the same levels by every seating. The default ``"two"`` plays at 2, 2 (or the
  reset options ``levels`` and ``declarer``, which are refused beside ``"random"``).
* The return card (``return_rule``): ``"max10"`` (default) a card of rank 2..10 that is not of the level
  rank (so never a wild) and not a joker, the receiver's choice; with none, one of its lowest cards by card
  order. ``"max10_partner"``: that limit only when returning to one's own partner (after a 1-4), any card
  to an opponent. ``"any"``: any card.
* Equal double tribute (``equal_tribute``): ``"seat"`` (default) the payer seated right after the first
  finisher pays the first finisher; ``"random"`` a coin from the deal's stream :data:`EQUAL_TRIBUTE_STREAM`
  ``+ k`` (deal ``k`` of the episode).
* The tribute card's suit is the payer's choice (one card action per suit it holds at the forced rank);
  the tribute rank is judged at the new hand's level (its level cards count high, its wilds never paid).
* Resistance is automatic whenever the payers hold both red jokers; no other excuse.
* Wild cards (``wilds``): on by default. ``wilds=False`` (the ``no_wilds`` variant, not a reading of the
  sources: a way to measure what the wild cards add) makes the level rank's two hearts plain cards of the level
  rank: they play only as themselves (in sets, bombs, sequences and straight flushes of hearts), and a payer's
  highest card may be one of them.
* Winning at A (``a_win``): ``"not_last"`` (default: 1-2 or 1-3), ``"double"`` (1-2 only). When both teams
  are at A a hand at A is an attempt for both, and either may win the match with it. A team at A winning a
  hand played at the other team's level only becomes the declarer. Failures count over the match, not in a
  row; the level rises first, then a team with ``a_attempts`` failures goes back to 2.
* Passing: no lock-out; a skip of a player who is out is not a pass. The hand ends the moment a team has
  both players out; the remaining players' order never matters (after a double both count as last).
* Tribute visibility: each payer's card is shown to all once every payer has paid, each returned card once
  every receiver has returned; until then only its giver sees it (rule 27: the cards travel face down).
  Counts are always public.
* A play is chosen as a pattern of :mod:`.moves` (reading, natural ranks, wild count), then the suits of
  its natural cards rank by rank where they are still open: the same seat moves again while the play is
  *pending*, and only that seat's observation shows the pending pattern and the cards chosen so far.
* ``tribute=False``: no tribute ever; the previous first finisher leads.
* The observation (rule 32 asks for every play of the hand: player, exact cards and reading) keeps each seat's
  played cards of the hand as counts (``played``: the union of all its plays, so every card gone and who played
  it), each seat's cards left, the play to beat with who made it and the passes since, and the last
  :data:`HISTORY` (8) plays in full (who, exact cards, kind and key), newest first. A seat without memory
  cannot know the order, the grouping and the readings of the plays older than those 8 (which cards went
  together in one play, e.g. that a seat broke a pair or played a straight, and as what a wild card was read),
  nor who passed when, beyond the passes since the play to beat. That is enough for the card counting the
  game turns on (the unseen cards and each seat's count are exact) and for the trick in play; what is left out
  is evidence about the shape of the other hands. It keeps the layout the shipped model (``guandan.dmc``) was
  trained on; an agent that wants every play keeps what it saw: while it holds cards, at most 3 plays come
  between two of its turns, fewer than the 8 ``history`` shows.

State (:data:`STATE`, one record per game; :mod:`cardenvs.core.kernels` states the functions' contract):
per-card-kind counts of every hand and of every seat's played cards, levels, declarer, A failures, the
tribute in progress, the trick (the play to beat, who made it, passes since), the pending play, the plays
of the hand (player, pattern, exact cards), the finishing order, the previous hand's order, match counters
and points.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from cardenvs.core import kernels
from cardenvs.core.rng import EXTRA_STREAM, episode_deck, splitmix64, stream, uniform_index

from . import moves

PLAYERS = 4
NUM_CARDS = 54  # card kinds: 52 suited cards, BJ, RJ (two copies of each)
DECK_SIZE = 108
HAND = 27
ACE = 12  # rank index of the ace: the top level
BLACK_JOKER, RED_JOKER = 52, 53
MAX_STACKED = 16
MAX_PLAYS = DECK_SIZE  # every play takes at least one card
MAX_PLAY_CARDS = 10  # the largest play: a bomb of ten
HISTORY = 8  # plays of the hand the observation shows, newest first
MAX_SHOWN_COUNT = 100  # failed attempts and hands played are clipped here in the observation
FIRST_LEADER_STREAM = EXTRA_STREAM + 1
LEVELS_STREAM = EXTRA_STREAM + 2  # hand_levels="random": the hand's two levels and its declarer
EQUAL_TRIBUTE_STREAM = EXTRA_STREAM + 1000  # + the deal's index in the episode
DECK = np.array(list(range(NUM_CARDS)) * 2, dtype=np.int16)
POLICIES = ("heuristic", "random", "return_search")

# phases
PAY, RETURN, PLAY, DONE = 0, 1, 2, 3
# options as numbers
HAND_EPISODE, MATCH_EPISODE = 0, 1
RETURN_RULES = ("max10", "max10_partner", "any")
RETURN_MAX10, RETURN_MAX10_PARTNER, RETURN_ANY = range(3)
EQUAL_TRIBUTES = ("seat", "random")
EQUAL_SEAT, EQUAL_RANDOM = range(2)
A_WINS = ("not_last", "double")
A_WIN_NOT_LAST, A_WIN_DOUBLE = range(2)
FLAG_JOKER_FULLHOUSE, FLAG_SF_AS_STRAIGHT, FLAG_NO_WILDS = 1, 2, 4  # moves' flags bits

STATE = np.dtype(
    [
        ("hands", np.int8, (PLAYERS, NUM_CARDS)),  # copies held of each card kind
        ("played", np.int8, (PLAYERS, NUM_CARDS)),  # copies each seat played this hand
        ("n_cards", np.int8, (PLAYERS,)),
        ("levels", np.int8, (2,)),  # each team's level (rank index 0 = two .. 12 = ace)
        ("declarer", np.int8),  # the team whose level this hand is played at
        ("hand_level", np.int8),
        ("a_failures", np.int16, (2,)),
        ("phase", np.int8),
        ("to_move", np.int8),
        ("leader", np.int8),  # who led the hand's first trick
        ("previous", np.int8, (PLAYERS,)),  # the previous hand's finishing order (seats; -1: none)
        ("out_order", np.int8, (PLAYERS,)),  # seats in the order they went out
        ("n_out", np.int8),
        ("last_pid", np.int16),  # the pattern to beat (-1: leading)
        ("last_player", np.int8),
        ("last_play", np.int16),  # its index in the plays of the hand
        ("passes", np.int8),  # passes since the last play
        ("pending", np.int16),  # the pattern chosen while its suits are open (-1: none)
        ("chosen", np.int8, (NUM_CARDS,)),  # the pending play's cards fixed so far
        ("hist_player", np.int8, (MAX_PLAYS,)),  # the plays of the hand (passes are not kept)
        ("hist_pid", np.int16, (MAX_PLAYS,)),
        ("hist_cards", np.int8, (MAX_PLAYS, MAX_PLAY_CARDS)),  # card ids, -1 past the play's size
        ("n_hist", np.int16),
        ("n_payers", np.int8),
        ("payers", np.int8, (2,)),  # in paying order (seat order from after the previous first finisher)
        ("paid", np.int8, (2,)),  # the card each payer paid (-1: not yet)
        ("n_paid", np.int8),
        ("tribute_shown", np.bool_),  # every payer has paid: the cards are shown and handed over
        ("return_seats", np.int8, (2,)),  # receivers in returning order (first finisher, then second)
        ("return_to", np.int8, (2,)),  # the payer each gives back to
        ("returned", np.int8, (2,)),
        ("n_returned", np.int8),
        ("returns_shown", np.bool_),
        ("resisted", np.bool_),
        ("red_jokers", np.int8, (PLAYERS,)),  # red jokers shown at a resistance, by seat
        ("hand_winner", np.int8),  # team of the last finished hand's first finisher (-1: none yet)
        ("gain", np.int8),  # its levels gained (3, 2, 1)
        ("hands_played", np.int16),
        ("match_winner", np.int8),
        ("status", np.int8),  # kernels.RUNNING, OVER, TRUNCATED
        ("score", np.int32, (PLAYERS,)),  # hand points so far
        ("deal_seed", np.uint64),
        ("deal_k", np.int16),  # the current hand's deal index in the episode
    ]
)

SEGMENTS = (
    "hand",
    "cards_left",
    "phase",
    "to_beat",
    "to_beat_kind",
    "to_beat_key",
    "to_beat_by",
    "passes",
    "history",
    "played",
    "out_place",
    "levels",
    "hand_level",
    "declarer",
    "a_failures",
    "previous_place",
    "tribute_paid",
    "tribute_returned",
    "resisted",
    "red_jokers",
    "pending_kind",
    "pending_key",
    "pending_natural",
    "pending_wilds",
    "pending_chosen",
    "hands_played",
)
(
    O_HAND,
    O_LEFT,
    O_PHASE,
    O_BEAT,
    O_BEAT_KIND,
    O_BEAT_KEY,
    O_BEAT_BY,
    O_PASSES,
    O_HISTORY,
    O_PLAYED,
    O_OUT,
    O_LEVELS,
    O_HAND_LEVEL,
    O_DECLARER,
    O_FAILURES,
    O_PREVIOUS,
    O_PAID,
    O_RETURNED,
    O_RESISTED,
    O_RED_JOKERS,
    O_PENDING_KIND,
    O_PENDING_KEY,
    O_PENDING_NATURAL,
    O_PENDING_WILDS,
    O_PENDING_CHOSEN,
    O_HANDS_PLAYED,
) = range(len(SEGMENTS))
NUM_SEGMENTS = len(SEGMENTS)
NUM_KINDS = 10
NUM_KEYS = 16  # pattern keys: rank index 0..14, then the level key
HISTORY_ENTRY = PLAYERS + NUM_CARDS + NUM_KINDS + NUM_KEYS  # who (relative), cards, kind, key

PARAMS = np.dtype(
    [
        ("episode", np.int8),
        ("max_hands", np.int16),
        ("tribute", np.bool_),
        ("flags", np.int64),
        ("return_rule", np.int8),
        ("equal_tribute", np.int8),
        ("a_attempts", np.int16),
        ("a_win", np.int8),
        ("random_levels", np.bool_),  # hand_levels="random"
        # reset options of the AEC env
        ("levels", np.int8, (2,)),
        ("declarer", np.int8),
        ("previous", np.int8, (PLAYERS,)),  # -1: none
        ("first_leader", np.int8),  # -1: drawn
        ("stacked", np.int16, (MAX_STACKED, DECK_SIZE)),
        ("n_stacked", np.int32),
        ("offsets", np.int64, (NUM_SEGMENTS,)),
    ]
)


def move_flags(config: Any) -> int:
    """The move generator's flags (:mod:`.moves`) of an env's options."""
    return (
        (FLAG_JOKER_FULLHOUSE if config["joker_fullhouse"] else 0)
        | (FLAG_SF_AS_STRAIGHT if config["sf_as_straight"] else 0)
        | (0 if config["wilds"] else FLAG_NO_WILDS)
    )


def make_params(config: dict, offsets: np.ndarray) -> np.ndarray:
    """The constants of one configuration (the env's checked options; observation offsets from its layout)."""
    p = np.zeros(1, dtype=PARAMS)
    p["episode"] = MATCH_EPISODE if config["episode"] == "match" else HAND_EPISODE
    p["max_hands"] = config["max_hands"]
    p["tribute"] = config["tribute"]
    p["flags"] = move_flags(config)
    p["return_rule"] = RETURN_RULES.index(config["return_rule"])
    p["equal_tribute"] = EQUAL_TRIBUTES.index(config["equal_tribute"])
    p["a_attempts"] = config["a_attempts"]
    p["a_win"] = A_WINS.index(config["a_win"])
    p["random_levels"] = config["hand_levels"] == "random"
    p["previous"] = -1
    p["first_leader"] = -1
    p["offsets"][0] = offsets
    return p


# ---------------------------------------------------------------- small helpers
@njit(cache=True)
def card_order(card, level) -> int:
    """A card's place in the card order at ``level`` (rule 5): natural ranks 0..12 by rank, the level rank
    13, the black joker 14, the red joker 15 (suits never count)."""
    if card == RED_JOKER:
        return 15
    if card == BLACK_JOKER:
        return 14
    r = card // 4
    if r == level:
        return 13
    return r


@njit(cache=True)
def is_wild(card, level, flags) -> bool:
    """Whether ``card`` is a wild card at ``level`` (the level rank's heart; never with ``FLAG_NO_WILDS``)."""
    return card == moves.wild_card(level, flags)


@njit(cache=True)
def next_active(state, b, p) -> int:
    """The next seat after ``p`` still holding cards (``p`` itself if no other does)."""
    s = state[b]
    for k in range(1, PLAYERS + 1):
        q = (p + k) % PLAYERS
        if s.n_cards[q] > 0:
            return q
    return p


@njit(cache=True)
def stacked_seed(deck) -> np.uint64:
    """The seed of a stacked deck's first-leader draw: its order, mixed (so the deck alone is the deal)."""
    seed = np.uint64(0)
    for i in range(deck.shape[0]):
        seed = splitmix64(seed ^ np.uint64(deck[i]))
    return seed


# ---------------------------------------------------------------- a hand's start
@njit(cache=True)
def _begin_play(state, b, leader) -> None:
    s = state[b]
    s.phase = PLAY
    s.leader = leader
    s.to_move = leader
    s.last_pid = -1
    s.last_player = -1
    s.last_play = -1
    s.passes = 0


@njit(cache=True)
def _own_seed(s, pr, deck, k) -> np.uint64:
    """The seed of deal ``k``'s own draws (its first leader, its levels): a stacked deck's order, else the deal
    seed."""
    return stacked_seed(deck) if k < pr.n_stacked else s.deal_seed


@njit(cache=True)
def _start_hand(state, b, params, k) -> None:
    """Deal hand ``k`` of the episode (deal ``k``: the stacked deck or the dealing generator), then the tribute,
    or the play when there is none. The levels, declarer and previous order are already set. In place."""
    s, pr = state[b], params[0]
    deck = np.empty(DECK_SIZE, dtype=np.int16)
    episode_deck(pr.stacked, pr.n_stacked, DECK, s.deal_seed, np.int64(k), deck)
    s.deal_k = k
    s.hands[:] = 0
    s.played[:] = 0
    for q in range(PLAYERS):
        for i in range(q * HAND, (q + 1) * HAND):
            s.hands[q, deck[i]] += 1
        s.n_cards[q] = HAND
    if pr.random_levels and k == 0:  # a hand episode's levels and declarer are part of its deal
        draws = stream(_own_seed(s, pr, deck, k), np.int64(LEVELS_STREAM))
        s.levels[0] = uniform_index(draws, np.int64(ACE + 1))
        s.levels[1] = uniform_index(draws, np.int64(ACE + 1))
        s.declarer = uniform_index(draws, np.int64(2))
    s.hand_level = s.levels[s.declarer]
    s.out_order[:] = -1
    s.n_out = 0
    s.pending = -1
    s.chosen[:] = 0
    s.n_hist = 0
    # the previous hand's last trick ends with it: nothing to beat during the tribute and the return
    s.last_pid = -1
    s.last_player = -1
    s.last_play = -1
    s.passes = 0
    s.n_payers = 0
    s.payers[:] = -1
    s.paid[:] = -1
    s.n_paid = 0
    s.tribute_shown = False
    s.return_seats[:] = -1
    s.return_to[:] = -1
    s.returned[:] = -1
    s.n_returned = 0
    s.returns_shown = False
    s.resisted = False
    s.red_jokers[:] = 0
    first = s.previous[0]
    if first < 0:  # no previous hand: the reset option or the deal's own draw
        leader = pr.first_leader
        if leader < 0:
            leader = uniform_index(stream(_own_seed(s, pr, deck, k), np.int64(FIRST_LEADER_STREAM)), np.int64(PLAYERS))
        _begin_play(state, b, np.int64(leader))
        return
    if not pr.tribute:
        _begin_play(state, b, np.int64(first))
        return
    if s.previous[1] == (first + 2) % PLAYERS:  # a double: both losers pay, in seat order after the first
        s.n_payers = 2
        s.payers[0] = (first + 1) % PLAYERS
        s.payers[1] = (first + 3) % PLAYERS
    else:
        s.n_payers = 1
        s.payers[0] = s.previous[3]
    red = 0
    for i in range(s.n_payers):
        red += s.hands[s.payers[i], RED_JOKER]
    if red >= 2:  # resistance: shown, no tribute, the previous first finisher leads
        s.resisted = True
        for i in range(s.n_payers):
            s.red_jokers[s.payers[i]] = s.hands[s.payers[i], RED_JOKER]
        _begin_play(state, b, np.int64(first))
        return
    s.phase = PAY
    s.to_move = s.payers[0]


@njit(cache=True)
def init(state, b, params, deal_seed) -> None:
    """Start game ``b``: levels, declarer and previous order from the reset options (a match starts at 2, 2),
    then deal 0 and its tribute. In place."""
    s, pr = state[b], params[0]
    s.deal_seed = deal_seed
    s.levels[0] = pr.levels[0]
    s.levels[1] = pr.levels[1]
    s.declarer = pr.declarer
    for q in range(PLAYERS):  # loops, not slice copies: numba's shape check costs seconds to compile
        s.previous[q] = pr.previous[q]
    if s.previous[0] >= 0:
        s.declarer = s.previous[0] % 2
    s.a_failures[:] = 0
    s.hand_winner = -1
    s.gain = 0
    s.hands_played = 0
    s.match_winner = -1
    s.status = kernels.RUNNING
    s.score[:] = 0
    _start_hand(state, b, params, np.int64(0))


# ---------------------------------------------------------------- the kernel contract
@njit(cache=True)
def to_move(state, b, params) -> int:
    return state[b].to_move


@njit(cache=True)
def status(state, b, params) -> int:
    return state[b].status


@njit(cache=True)
def _sort_ascending(ids, n) -> None:
    for i in range(1, n):
        v = ids[i]
        j = i - 1
        while j >= 0 and ids[j] > v:
            ids[j + 1] = ids[j]
            j -= 1
        ids[j + 1] = v


@njit(cache=True, inline="always")  # inlined: its constant ``highest`` would otherwise compile it twice
def _extreme_card_ids(hand, level, flags, highest, ids) -> int:
    """The card actions of the hand's cards at its highest (else lowest) card order at ``level``, each suit;
    the highest leaves out the wilds (rule 24's tribute), the lowest counts every card (rule 26's fallback)."""
    extreme = -1 if highest else 99
    for c in range(NUM_CARDS):
        if hand[c] > 0 and not (highest and is_wild(c, level, flags)):
            order = card_order(c, np.int64(level))
            extreme = max(extreme, order) if highest else min(extreme, order)
    n = 0
    for c in range(NUM_CARDS):
        if hand[c] > 0 and not (highest and is_wild(c, level, flags)) and card_order(c, np.int64(level)) == extreme:
            ids[n] = moves.CARD0 + c
            n += 1
    return n


@njit(cache=True)
def _pay_ids(state, b, params, ids) -> int:
    """The tribute cards the payer to move may give: its highest non-wild card by card order, each suit."""
    s = state[b]
    return _extreme_card_ids(s.hands[s.to_move], s.hand_level, params[0].flags, True, ids)


@njit(cache=True)
def _return_ids(state, b, params, ids) -> int:
    """The cards the receiver to move may give back (``return_rule``)."""
    s, pr = state[b], params[0]
    p = s.to_move
    hand = s.hands[p]
    level = s.hand_level
    to = s.return_to[s.n_returned]
    limited = pr.return_rule == RETURN_MAX10 or (pr.return_rule == RETURN_MAX10_PARTNER and to == (p + 2) % PLAYERS)
    n = 0
    if limited:
        for c in range(4 * 9):  # ranks 2..10
            if hand[c] > 0 and c // 4 != level:
                ids[n] = moves.CARD0 + c
                n += 1
        return n if n > 0 else _extreme_card_ids(hand, level, pr.flags, False, ids)
    for c in range(NUM_CARDS):
        if hand[c] > 0:
            ids[n] = moves.CARD0 + c
            n += 1
    return n


@njit(cache=True)
def legal_ids(state, b, params, ids) -> int:
    """The legal actions of the seat to move, ascending, into ``ids`` (0 once over): a tribute card, a return
    card, the open suit choices of a pending play, or the patterns that lead or beat the play on the table
    (then pass when following). Reads only."""
    s, pr = state[b], params[0]
    if s.status != kernels.RUNNING:
        return 0
    if s.phase == PAY:
        return _pay_ids(state, b, params, ids)
    if s.phase == RETURN:
        return _return_ids(state, b, params, ids)
    p = s.to_move
    if s.pending >= 0:
        chosen = s.chosen.copy()
        codes = np.empty(moves.NUM_SUIT_CODES, dtype=np.int64)
        n = moves.next_suit_choice(s.hands[p], s.pending, s.hand_level, pr.flags, chosen, codes)
        for i in range(n):
            ids[i] = moves.SUIT0 + codes[i]
        _sort_ascending(ids, n)
        return n
    n = moves.legal_patterns(s.hands[p], s.hand_level, np.int64(s.last_pid), pr.flags, ids)
    if s.last_pid >= 0:
        ids[n] = moves.PASS
        n += 1
    return n


@njit(cache=True)
def _pay(state, b, params, card) -> None:
    s, pr = state[b], params[0]
    p = s.to_move
    s.hands[p, card] -= 1
    s.n_cards[p] -= 1
    s.paid[s.n_paid] = card
    s.n_paid += 1
    if s.n_paid < s.n_payers:
        s.to_move = s.payers[s.n_paid]
        return
    first, second = s.previous[0], s.previous[1]
    to_first = 0  # index of the payer whose card the first finisher gets
    if s.n_payers == 2:
        high0 = card_order(np.int64(s.paid[0]), np.int64(s.hand_level))
        high1 = card_order(np.int64(s.paid[1]), np.int64(s.hand_level))
        if high1 > high0:
            to_first = 1
        elif high1 == high0 and pr.equal_tribute == EQUAL_RANDOM:
            coin = stream(s.deal_seed, np.int64(EQUAL_TRIBUTE_STREAM) + np.int64(s.deal_k))
            to_first = int(uniform_index(coin, np.int64(2)))
        # equal with "seat": payers[0] sits right after the first finisher
    s.return_seats[0] = first
    s.return_to[0] = s.payers[to_first]
    if s.n_payers == 2:
        s.return_seats[1] = second
        s.return_to[1] = s.payers[1 - to_first]
    for j in range(s.n_payers):  # the tribute cards are shown and handed over
        card_j = s.paid[to_first if j == 0 else 1 - to_first]
        s.hands[s.return_seats[j], card_j] += 1
        s.n_cards[s.return_seats[j]] += 1
    s.tribute_shown = True
    s.leader = s.payers[to_first]
    s.phase = RETURN
    s.to_move = s.return_seats[0]


@njit(cache=True)
def _return(state, b, card) -> None:
    s = state[b]
    p = s.to_move
    s.hands[p, card] -= 1
    s.n_cards[p] -= 1
    s.returned[s.n_returned] = card
    s.n_returned += 1
    if s.n_returned < s.n_payers:
        s.to_move = s.return_seats[s.n_returned]
        return
    for j in range(s.n_payers):  # the returns are shown and handed over
        s.hands[s.return_to[j], s.returned[j]] += 1
        s.n_cards[s.return_to[j]] += 1
    s.returns_shown = True
    _begin_play(state, b, np.int64(s.leader))


@njit(cache=True)
def _end_hand(state, b, params) -> None:
    """Both players of a team are out: points, then (a match) levels, A attempts and the next hand."""
    s, pr = state[b], params[0]
    first = s.out_order[0]
    winners = first % 2
    partner = (first + 2) % PLAYERS
    gain = 1
    if s.out_order[1] == partner:
        gain = 3
    elif s.n_out >= 3 and s.out_order[2] == partner:
        gain = 2
    for q in range(PLAYERS):
        s.score[q] += gain if q % 2 == winners else -gain
    s.hand_winner = winners
    s.gain = gain
    s.hands_played += 1
    s.pending = -1
    if pr.episode == HAND_EPISODE:
        s.status = kernels.OVER
        s.phase = DONE
        return
    at_ace = s.hand_level == ACE
    won = at_ace and s.levels[winners] == ACE and (gain == 3 if pr.a_win == A_WIN_DOUBLE else gain >= 2)
    if won:
        s.match_winner = winners
        s.status = kernels.OVER
        s.phase = DONE
        return
    if at_ace:
        for t in range(2):
            if s.levels[t] == ACE:
                s.a_failures[t] += 1
    s.levels[winners] = min(s.levels[winners] + gain, ACE)
    if pr.a_attempts > 0:
        for t in range(2):
            if s.a_failures[t] >= pr.a_attempts:
                s.levels[t] = 0
                s.a_failures[t] = 0
    if s.hands_played >= pr.max_hands:
        s.status = kernels.TRUNCATED
        s.phase = DONE
        return
    # the next hand: the whole finishing order (those not out in seat order) becomes the previous one
    order = s.out_order.copy()
    n = s.n_out
    for q in range(PLAYERS):
        found = False
        for i in range(n):
            if order[i] == q:
                found = True
        if not found:
            order[n] = q
            n += 1
    for q in range(PLAYERS):
        s.previous[q] = order[q]
    s.declarer = winners
    _start_hand(state, b, params, np.int64(s.deal_k + 1))


@njit(cache=True)
def _play(state, b, params) -> None:
    """The seat to move plays the pending pattern with the cards ``chosen`` (complete). In place."""
    s = state[b]
    p = s.to_move
    i = s.n_hist
    s.hist_player[i] = p
    s.hist_pid[i] = s.pending
    k = 0
    for c in range(NUM_CARDS):
        for _ in range(s.chosen[c]):
            s.hist_cards[i, k] = c
            k += 1
        s.hands[p, c] -= s.chosen[c]
        s.played[p, c] += s.chosen[c]
        s.n_cards[p] -= s.chosen[c]
    for j in range(k, MAX_PLAY_CARDS):
        s.hist_cards[i, j] = -1
    s.n_hist += 1
    s.last_pid = s.pending
    s.last_player = p
    s.last_play = i
    s.passes = 0
    s.pending = -1
    s.chosen[:] = 0
    if s.n_cards[p] == 0:
        s.out_order[s.n_out] = p
        s.n_out += 1
        if s.n_cards[(p + 2) % PLAYERS] == 0:
            _end_hand(state, b, params)
            return
    s.to_move = next_active(state, b, p)


@njit(cache=True)
def _pass(state, b) -> None:
    s = state[b]
    p = s.to_move
    s.passes += 1
    others = 0  # players still holding cards, the last play's player left out
    for q in range(PLAYERS):
        if q != s.last_player and s.n_cards[q] > 0:
            others += 1
    if s.passes >= others:  # everyone else passed: the trick ends
        last = s.last_player
        _begin_play(state, b, np.int64(last if s.n_cards[last] > 0 else (last + 2) % PLAYERS))
        return
    s.to_move = next_active(state, b, p)


@njit(cache=True)
def apply(state, b, params, action) -> None:
    """The seat to move takes ``action`` (legal): pays or returns a card, passes, chooses a pattern or the
    suits of its pending play; a play is made once its cards are all fixed. In place."""
    s, pr = state[b], params[0]
    if s.phase == PAY:
        _pay(state, b, params, action - moves.CARD0)
        return
    if s.phase == RETURN:
        _return(state, b, action - moves.CARD0)
        return
    if action == moves.PASS:
        _pass(state, b)
        return
    # the moves' functions get a copy of ``chosen`` here as in legal_ids (one compiled signature each)
    chosen = np.zeros(NUM_CARDS, dtype=np.int8)
    if s.pending < 0:
        s.pending = action
    else:
        for c in range(NUM_CARDS):
            chosen[c] = s.chosen[c]
        moves.apply_suit_choice(s.pending, s.hand_level, pr.flags, chosen, action - moves.SUIT0)
    codes = np.empty(moves.NUM_SUIT_CODES, dtype=np.int64)
    complete = moves.next_suit_choice(s.hands[s.to_move], s.pending, s.hand_level, pr.flags, chosen, codes) == 0
    for c in range(NUM_CARDS):
        s.chosen[c] = chosen[c]
    if complete:
        _play(state, b, params)


@njit(cache=True)
def scores(state, b, params, out) -> None:
    """Each seat's hand points so far (+gain to each winner of a hand, -gain to each loser)."""
    for q in range(PLAYERS):
        out[q] = state[b].score[q]


@njit(cache=True)
def outcome(state, b, params, out) -> None:
    """Once over: +1 to each player of the winning team (the hand's first finisher's, or the match winner's),
    -1 to the others; zeros while running and after a truncation."""
    s = state[b]
    out[:] = 0.0
    if s.status != kernels.OVER:
        return
    team = s.match_winner if params[0].episode == MATCH_EPISODE else s.hand_winner
    for q in range(PLAYERS):
        out[q] = 1.0 if q % 2 == team else -1.0


# ---------------------------------------------------------------- the observation
@njit(cache=True)
def _write_pattern(obs, at_kind, at_key, pid) -> None:
    obs[at_kind + moves.PAT_KIND[pid]] = 1
    obs[at_key + moves.PAT_KEY[pid]] = 1


@njit(cache=True)
def observe(state, b, params, p, obs) -> None:
    """Seat ``p``'s observation (the env's layout; seats relative to ``p``: 0 itself, 1 next, 2 partner,
    3 previous) into the zeroed row ``obs``. Only public information and ``p``'s own cards."""
    s, pr = state[b], params[0]
    off = pr.offsets
    for c in range(NUM_CARDS):
        obs[off[O_HAND] + c] = s.hands[p, c]
    for q in range(PLAYERS):
        rel = (q - p) % PLAYERS
        obs[off[O_LEFT] + rel] = s.n_cards[q]
        for c in range(NUM_CARDS):
            obs[off[O_PLAYED] + NUM_CARDS * rel + c] = s.played[q, c]
    if s.phase < DONE:
        obs[off[O_PHASE] + s.phase] = 1
    if s.last_pid >= 0:
        for j in range(MAX_PLAY_CARDS):
            c = s.hist_cards[s.last_play, j]
            if c < 0:
                break
            obs[off[O_BEAT] + c] += 1
        _write_pattern(obs, off[O_BEAT_KIND], off[O_BEAT_KEY], s.last_pid)
        obs[off[O_BEAT_BY] + (s.last_player - p) % PLAYERS] = 1
        obs[off[O_PASSES]] = s.passes
    at = off[O_HISTORY]
    for k in range(min(s.n_hist, HISTORY)):
        i = s.n_hist - 1 - k
        base = at + HISTORY_ENTRY * k
        obs[base + (s.hist_player[i] - p) % PLAYERS] = 1
        for j in range(MAX_PLAY_CARDS):
            c = s.hist_cards[i, j]
            if c < 0:
                break
            obs[base + PLAYERS + c] += 1
        _write_pattern(obs, base + PLAYERS + NUM_CARDS, base + PLAYERS + NUM_CARDS + NUM_KINDS, s.hist_pid[i])
    for i in range(s.n_out):
        obs[off[O_OUT] + PLAYERS * ((s.out_order[i] - p) % PLAYERS) + i] = 1
    own = p % 2
    obs[off[O_LEVELS] + s.levels[own]] = 1
    obs[off[O_LEVELS] + 13 + s.levels[1 - own]] = 1
    obs[off[O_HAND_LEVEL] + s.hand_level] = 1
    obs[off[O_DECLARER] + (0 if s.declarer == own else 1)] = 1
    obs[off[O_FAILURES]] = min(s.a_failures[own], MAX_SHOWN_COUNT)
    obs[off[O_FAILURES] + 1] = min(s.a_failures[1 - own], MAX_SHOWN_COUNT)
    if s.previous[0] >= 0:
        double = s.previous[1] == (s.previous[0] + 2) % PLAYERS
        for i in range(PLAYERS):
            place = 3 if double and i >= 2 else i
            obs[off[O_PREVIOUS] + PLAYERS * ((s.previous[i] - p) % PLAYERS) + place] = 1
    for i in range(s.n_paid):
        if s.tribute_shown or s.payers[i] == p:
            obs[off[O_PAID] + NUM_CARDS * ((s.payers[i] - p) % PLAYERS) + s.paid[i]] = 1
    for j in range(s.n_returned):
        if s.returns_shown or s.return_seats[j] == p:
            obs[off[O_RETURNED] + NUM_CARDS * ((s.return_seats[j] - p) % PLAYERS) + s.returned[j]] = 1
    if s.resisted:
        obs[off[O_RESISTED]] = 1
        for q in range(PLAYERS):
            obs[off[O_RED_JOKERS] + (q - p) % PLAYERS] = s.red_jokers[q]
    if s.pending >= 0 and s.to_move == p:  # the mover's own decision in progress
        _write_pattern(obs, off[O_PENDING_KIND], off[O_PENDING_KEY], s.pending)
        for r in range(15):
            obs[off[O_PENDING_NATURAL] + r] = moves.PAT_NATURAL[s.pending, r]
        obs[off[O_PENDING_WILDS]] = moves.PAT_WILDS[s.pending]
        for c in range(NUM_CARDS):
            obs[off[O_PENDING_CHOSEN] + c] = s.chosen[c]
    obs[off[O_HANDS_PLAYED]] = min(s.hands_played, MAX_SHOWN_COUNT)


# ---------------------------------------------------------------- helpers for people and tests (Python)
def card_locations(record) -> np.ndarray:
    """Every card of one game wherever it is: the hands, the played cards, and tribute or return cards given
    but not yet handed over (108 card ids)."""
    counts = np.asarray(record["hands"], dtype=np.int64).sum(axis=0) + np.asarray(record["played"]).sum(axis=0)
    cards = [np.repeat(np.arange(NUM_CARDS), counts)]
    if not record["tribute_shown"]:
        cards.append(np.asarray(record["paid"][: record["n_paid"]], dtype=np.int64))
    if not record["returns_shown"]:
        cards.append(np.asarray(record["returned"][: record["n_returned"]], dtype=np.int64))
    return np.concatenate(cards).astype(np.int64)
