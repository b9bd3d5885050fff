"""Dou Dizhu, "Two Against One", as numba functions over a batched array state (``seeds/004``, RULES.md).

Rules, in plain words:

* 54 cards (two jokers), 17 to each player from the first bidder in seat order, 3 to the kitty.
* Bidding (``bidding=True``): from the first bidder, in seat order, each player bids once: 1, 2 or 3,
  higher than the current bid, or no bid; a 3 ends it. The highest bidder is the landlord. If all pass
  the hand is dead: every score is 0 and the episode ends (``rules="botzone"``: the first bidder is landlord
  at bid 1). Reset options ``landlord`` and ``bid`` skip the
  bidding; with ``bidding=False`` the first bidder is landlord at bid 1 unless they say otherwise.
* The kitty is then shown to everyone and taken by the landlord, who leads. Play goes round in seat
  order; a player beats the move on the table (:mod:`.moves`) or passes; the leader may not pass; a
  player who passed may play again in the same trick; two passes in a row end the trick and its last
  player leads. The first player out of cards wins for their side.
* Score: with bid N and M = bombs and rockets played by anyone, + 1 for a spring (the landlord wins and
  neither farmer played a card) or an anti-spring (a farmer wins and the landlord played only the
  opening lead): landlord wins +2 N 2^M, each farmer -N 2^M; farmers win: the reverse.

Rule sets (the env option ``rules``, :data:`moves.RULE_SETS`): what a combination is and what beats what.

* ``"standard"`` (the default; RULES.md and ``seeds/004``): the table of :mod:`.moves`. Kickers never share a
  rank with the main cards and never take all four cards of a rank; single kickers may repeat a rank
  (``3333+44``, ``333444+55``); the two jokers are never both kickers; pair kickers are of distinct ranks; a
  card set may read several ways, one action per reading. No space shuttle.
* ``"botzone"``: Botzone's ``FightTheLandlord2`` judge exactly (its classification, read in
  ``ailab-pku/botzone-local``; checked case by case against its verdicts in
  ``tests/test_doudizhu_botzone_rules.py``): single kickers, of a four or of an airplane, are of distinct
  ranks, and both jokers may be two of them (``3333+BR``, ``333444+BR``); an airplane's trios are every trio
  of the card set (``333444555666`` is the four-trio airplane only, ``444555666777+3338`` is nothing); the
  space shuttle: L >= 2 consecutive fours among 3..A alone (L <= 5, by the 20 cards of a hand), with 2L single
  kickers of distinct ranks outside the chain (L <= 3), or with 2L pairs of distinct ranks (L = 2). A shuttle
  follows a shuttle of the same kind and length with a lower chain, as airplanes do, and is no bomb: bombs and
  the rocket beat it. Every card set has one reading.

The action space per rule set, chosen as the least invasive way: Guandan's options (``wilds``, its ``FLAG_*``
bits) only filter one fixed table, but Botzone's shuttles and joker kickers are moves the standard table does
not have, so they need ids. They take ids after the bids (:mod:`.moves`: a ``rules="botzone"`` env has 21,669
more actions), the standard moves Botzone refuses stay in the table and are never legal there, and both rule
sets share one params record (the tables by action id, each rule set's groups of them; numba compiles once).
So the standard rule set's ids, action count, observations and heuristic play are unchanged; a shuttle on
the table sets none of the observation's 14 ``to_beat_type`` entries (its cards and main rank are shown).

Both rule sets share everything else (the deal, the trick, the scores; a shuttle doubles nothing) but one
thing of the bidding: when nobody bids, the hand is dead with the standard rules, while with ``"botzone"`` the
first bidder is landlord at bid 1, as Botzone's judge makes its seat 0.

Readings this implementation chooses: the first bidder is drawn from the deal's own stream (so it is part
of the deal); the cards a move takes from a hand are, at each rank, the landlord's kitty cards first (they
are public, so playing them reveals nothing about the rest of the hand), then the lowest card ids.

State (:data:`STATE`, one record per game; :mod:`cardenvs.core.kernels` states the functions' contract):
per-card hands and played cards of every seat, the kitty and which kitty cards the landlord still holds,
the bidding, the move to beat, the history of the play phase, bombs, winner.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core import encoding, kernels
from cardenvs.core.rng import EXTRA_STREAM, episode_deck, stream, uniform_index

from . import moves

HAND, KITTY = 17, 3
PLAYERS = 3
NUM_CARDS = 54
MAX_HISTORY = 256  # a move takes >= 1 card and at most two passes follow one: 54 * 3 < 256
MAX_STACKED = 16
HISTORY = 15  # moves of the history the observation shows
FIRST_BIDDER_STREAM = EXTRA_STREAM + 1
DECK = np.arange(NUM_CARDS, dtype=np.int16)
NUM_SEGMENTS = 17  # the observation's segments (the env's layout; offsets O_* below)

STATE = np.dtype(
    [
        ("hands", np.int8, (PLAYERS, NUM_CARDS)),
        ("counts", np.int8, (PLAYERS, 15)),  # the hands as rank counts (the generator's input), kept in step
        ("played", np.int8, (PLAYERS, NUM_CARDS)),
        ("played_ranks", np.int8, (PLAYERS, 15)),  # ``played`` as rank counts (the observation's), kept in step
        ("kitty", np.int16, (KITTY,)),
        ("kitty_in_hand", np.int8, (NUM_CARDS,)),  # public: kitty cards the landlord still holds
        ("kitty_ranks", np.int8, (15,)),  # ``kitty_in_hand`` as rank counts, kept in step
        ("first_bidder", np.int8),
        ("bidding", np.bool_),
        ("bids", np.int8, (PLAYERS,)),  # in bidding order (0 = no bid)
        ("n_bids", np.int8),
        ("bid", np.int8),
        ("landlord", np.int8),
        ("to_move", np.int8),
        ("last_move", np.int32),  # the move to beat (-1: leading; botzone ids pass 32767)
        ("last_player", np.int8),
        ("passes", np.int8),
        ("hist_move", np.int32, (MAX_HISTORY,)),  # the play phase: move id or PASS
        ("hist_player", np.int8, (MAX_HISTORY,)),
        ("n_hist", np.int16),
        ("moves_played", np.int16, (PLAYERS,)),
        ("bombs", np.int8),
        ("winner", np.int8),
        ("dead", np.bool_),
    ]
)

PARAMS = np.dtype(
    [
        ("bidding", np.bool_),
        ("no_dead_hand", np.bool_),  # rules="botzone": when nobody bids, the first bidder is landlord at bid 1
        # reset options of the AEC env (-1: not given)
        ("first_bidder", np.int8),
        ("landlord", np.int8),
        ("bid", np.int8),
        ("stacked", np.int16, (MAX_STACKED, NUM_CARDS)),
        ("n_stacked", np.int32),
        # the move table of every rule set by action id (moves.py: ALL_*), and the rule set's own groups of it
        # (moves.RuleTable; -1 padded), carried here so compiled code takes it as one argument
        ("move_counts", np.int8, (moves.NUM_ALL, 15)),
        ("move_need", np.uint64, (moves.NUM_ALL,)),  # the moves' cards as encoding.planes_bits
        ("main_need", np.uint64, (moves.NUM_ALL,)),
        ("move_type", np.int8, (moves.NUM_ALL,)),
        ("move_main", np.int8, (moves.NUM_ALL,)),
        ("move_length", np.int8, (moves.NUM_ALL,)),
        ("group_start", np.int32, (max(len(t.group_start) for t in moves.RULE_TABLES.values()),)),
        ("group_end", np.int32, (max(len(t.group_end) for t in moves.RULE_TABLES.values()),)),
        ("tl_index", np.int32, (len(moves.ALL_TYPES), 13)),
        ("tl_groups", np.int32, tuple(max(t.tl_groups.shape[i] for t in moves.RULE_TABLES.values()) for i in (0, 1))),
        ("bomb_groups", np.int32, (max(len(t.bomb_groups) for t in moves.RULE_TABLES.values()),)),
        ("rank_of", np.int8, (NUM_CARDS,)),
        ("cards_of_rank", np.int8, (15, 4)),  # card ids of each rank, ascending (-1 past the last)
        ("offsets", np.int64, (NUM_SEGMENTS,)),  # int64 as the offsets computed from them: one compiled writer
    ]
)

POLICIES = ("rule",)


def make_params(bidding: bool, offsets: np.ndarray, rules: str = "standard") -> np.ndarray:
    """The constants of one configuration (observation offsets from the env's layout; ``rules`` the rule set,
    :data:`moves.RULE_SETS`)."""
    p = np.zeros(1, dtype=PARAMS)
    p["bidding"] = bidding
    p["no_dead_hand"] = rules == "botzone"
    p["first_bidder"] = p["landlord"] = p["bid"] = -1
    m = moves
    table = m.RULE_TABLES[m.check_rules(rules)]
    cards_of_rank = np.full((15, 4), -1, dtype=np.int8)
    for r in range(15):
        ids = np.flatnonzero(m.RANK_OF_CARD[:NUM_CARDS] == r)
        cards_of_rank[r, : len(ids)] = ids
    for name in ("group_start", "group_end", "tl_groups", "bomb_groups"):
        p[name] = -1
    for name, values in (
        ("cards_of_rank", cards_of_rank),
        ("move_counts", m.ALL_COUNTS),
        ("move_need", m.ALL_NEED),
        ("main_need", m.ALL_MAIN_NEED),
        ("move_type", m.ALL_TYPE),
        ("move_main", m.ALL_MAIN),
        ("move_length", m.ALL_LENGTH),
        ("tl_index", table.tl_index),
        ("rank_of", m.RANK_OF_CARD[:NUM_CARDS]),
        ("offsets", offsets),
    ):
        p[name][0] = values
    for name, values in (
        ("group_start", table.group_start),
        ("group_end", table.group_end),
        ("bomb_groups", table.bomb_groups),
    ):
        p[name][0, : len(values)] = values
    p["tl_groups"][0, : table.tl_groups.shape[0], : table.tl_groups.shape[1]] = table.tl_groups
    return p


# ---------------------------------------------------------------- the state machine
@njit(cache=True)
def make_landlord(state, b, params, landlord, bid) -> None:
    """End the bidding: the landlord takes the kitty (shown to everyone) and leads. In place."""
    s = state[b]
    s.bidding = False
    s.landlord = landlord
    s.bid = bid
    for c in s.kitty:
        s.hands[landlord, c] = 1
        s.counts[landlord, params[0].rank_of[c]] += 1
        s.kitty_in_hand[c] = 1
        s.kitty_ranks[params[0].rank_of[c]] += 1
    s.to_move = landlord


@njit(cache=True)
def init(state, b, params, deal_seed) -> None:
    """Deal game ``b`` (deal 0 of ``deal_seed``, or the stacked deck) and set up the bidding. In place."""
    pr = params[0]
    deck = np.empty(NUM_CARDS, dtype=np.int16)
    episode_deck(pr.stacked, pr.n_stacked, DECK, deal_seed, np.int64(0), deck)
    first = pr.first_bidder
    if first < 0:
        first = uniform_index(stream(deal_seed, np.int64(FIRST_BIDDER_STREAM)), np.int64(PLAYERS))
    s = state[b]
    s.hands[:] = 0
    s.counts[:] = 0
    s.played[:] = 0
    s.played_ranks[:] = 0
    s.kitty_in_hand[:] = 0
    s.kitty_ranks[:] = 0
    for k in range(PLAYERS):
        p = (first + k) % PLAYERS
        for i in range(k * HAND, (k + 1) * HAND):
            s.hands[p, deck[i]] = 1
            s.counts[p, pr.rank_of[deck[i]]] += 1
    for i in range(KITTY):
        s.kitty[i] = deck[PLAYERS * HAND + i]
    s.first_bidder = first
    s.bidding = True
    s.bids[:] = 0
    s.n_bids = 0
    s.bid = 0
    s.landlord = -1
    s.to_move = first
    s.last_move = -1
    s.last_player = -1
    s.passes = 0
    s.n_hist = 0
    s.moves_played[:] = 0
    s.bombs = 0
    s.winner = -1
    s.dead = False
    if pr.landlord >= 0 or pr.bid >= 0 or not pr.bidding:
        make_landlord(state, b, params, first if pr.landlord < 0 else pr.landlord, 1 if pr.bid < 0 else pr.bid)


@njit(cache=True)
def to_move(state, b, params) -> int:
    return state[b].to_move


@njit(cache=True)
def is_over(state, b) -> bool:
    return state[b].dead or state[b].winner >= 0


@njit(cache=True)
def status(state, b, params) -> int:
    return kernels.OVER if is_over(state, b) else kernels.RUNNING


@njit(cache=True)
def legal_ids(state, b, params, ids) -> int:
    """Bids while bidding; else the moves that beat the move on the table, then pass when following."""
    s = state[b]
    if is_over(state, b):
        return 0
    if s.bidding:
        ids[0] = moves.BID_PASS
        n = 1
        for bid in range(s.bid + 1, 4):
            ids[n] = moves.BID_PASS + bid
            n += 1
        return n
    pr = params[0]
    hand = encoding.planes_bits(s.counts[s.to_move], 15, 4)
    n = moves.collect_moves(
        hand,
        s.last_move,
        ids,
        pr.move_need,
        pr.main_need,
        pr.move_type,
        pr.move_main,
        pr.move_length,
        pr.group_start,
        pr.group_end,
        pr.tl_index,
        pr.tl_groups,
        pr.bomb_groups,
    )
    if s.last_move >= 0:
        ids[n] = moves.PASS
        n += 1
    return n


@njit(cache=True)
def _apply_bid(state, b, params, bid) -> None:
    s = state[b]
    p = s.to_move
    s.bids[s.n_bids] = bid
    s.n_bids += 1
    if bid:
        s.bid = bid
        s.landlord = p
    if bid == 3 or s.n_bids == PLAYERS:
        if s.bid == 0 and params[0].no_dead_hand:
            make_landlord(state, b, params, np.int64(s.first_bidder), np.int64(1))
            return
        if s.bid == 0:
            s.dead = True
            s.bidding = False
            return
        make_landlord(state, b, params, np.int64(s.landlord), np.int64(s.bid))
        return
    s.to_move = (p + 1) % PLAYERS


@njit(cache=True)
def _apply_play(state, b, params, move) -> None:
    s = state[b]
    pr = params[0]
    p = s.to_move
    s.hist_move[s.n_hist] = move
    s.hist_player[s.n_hist] = p
    s.n_hist += 1
    if move == moves.PASS:
        s.passes += 1
        if s.passes == 2:  # both others passed: the trick's last player leads
            s.last_move = -1
            s.passes = 0
            s.to_move = s.last_player
            return
    else:
        left = 0
        for r in range(15):
            need = pr.move_counts[move, r]
            s.counts[p, r] -= need
            s.played_ranks[p, r] += need
            left += s.counts[p, r]
            # two passes: the kitty cards still in hand (public; only the landlord has any), then the lowest
            # card ids, so playing a rank never tells the farmers more about the landlord's hand
            for kitty_pass in (True, False):
                for k in range(4):
                    card = pr.cards_of_rank[r, k]
                    if need == 0 or card < 0:
                        break
                    if s.hands[p, card] and (s.kitty_in_hand[card] == 1) == kitty_pass:
                        s.hands[p, card] = 0
                        s.played[p, card] = 1
                        if kitty_pass:
                            s.kitty_in_hand[card] = 0
                            s.kitty_ranks[r] -= 1
                        need -= 1
        s.moves_played[p] += 1
        if pr.move_type[move] == moves.BOMB or pr.move_type[move] == moves.ROCKET:
            s.bombs += 1
        s.last_move = move
        s.last_player = p
        s.passes = 0
        if left == 0:
            s.winner = p
            return
    s.to_move = (p + 1) % PLAYERS


@njit(cache=True)
def apply(state, b, params, action) -> None:
    """The player to move bids or plays ``action`` (legal). In place."""
    if state[b].bidding:
        _apply_bid(state, b, params, action - moves.BID_PASS)
    else:
        _apply_play(state, b, params, action)


@njit(cache=True)
def scores(state, b, params, out) -> None:
    """Each player's score once the hand has a winner (zeros before, and for a dead hand)."""
    s = state[b]
    out[:] = 0.0
    if s.winner < 0:
        return
    landlord_wins = s.winner == s.landlord
    multiplier = s.bombs
    if landlord_wins:
        spring = True
        for f in range(PLAYERS):
            if f != s.landlord and s.moves_played[f] != 0:
                spring = False
        if spring:
            multiplier += 1
    elif s.moves_played[s.landlord] == 1:
        multiplier += 1  # anti-spring
    unit = float(s.bid) * 2.0**multiplier
    sign = 1.0 if landlord_wins else -1.0
    for p in range(PLAYERS):
        out[p] = 2 * unit * sign if p == s.landlord else -unit * sign


@njit(cache=True)
def outcome(state, b, params, out) -> None:
    """+1 to each player of the winning side, -1 to each of the losing side; zeros for a dead hand."""
    s = state[b]
    out[:] = 0.0
    if s.winner < 0:
        return
    landlord_won = 1.0 if s.winner == s.landlord else -1.0
    for p in range(PLAYERS):
        out[p] = landlord_won if p == s.landlord else -landlord_won


# ---------------------------------------------------------------- the observation
(
    O_HAND,
    O_UNSEEN,
    O_KITTY,
    O_KITTY_HAND,
    O_BEAT,
    O_BEAT_TYPE,
    O_BEAT_MAIN,
    O_LAST,
    O_HISTORY,
    O_PLAYED,
    O_LEFT,
    O_LANDLORD,
    O_BID,
    O_BOMBS,
    O_BIDDING,
    O_BIDS,
    O_BID_POSITION,
) = range(NUM_SEGMENTS)
O_BEAT_TYPES = len(moves.TYPES)  # the to_beat_type segment's entries
BID_NOT_YET = 0  # ``bids`` one-hot per relative seat: not yet, no bid, 1, 2, 3 (entry 1 + bid)


#: the 54 entries of a rank-count encoding (at-least planes of 3..2, then the two jokers) as bits of
#: ``encoding.planes_bits(counts, 15, 4)`` -- the move table's ``move_need`` holds those bits for every move
PLANE_BITS = encoding.bit_positions(13, 4, singles=2)


@njit(cache=True)
def observe(state, b, params, p, obs) -> None:
    """Seat ``p``'s observation (the env's layout) into the zeroed row ``obs``, in one compiled pass."""
    s = state[b]
    pr = params[0]
    off = pr.offsets
    rank_of = pr.rank_of
    kitty_shown = not s.bidding and not s.dead
    own = s.counts[p]
    # the rank counts of the hand, of every seat's played cards, of the kitty cards the landlord still holds
    # (all kept in step) and of the cards not seen, turned into planes bits rank by rank in locals (no
    # buffer: an allocation costs as much as a plane); the kitty's bits card by card
    column = encoding.COLUMN
    hand_bits = played0 = played1 = played2 = kitty_hand_bits = unseen_bits = np.uint64(0)
    seen_kitty_hand = kitty_shown and s.landlord != p
    played, in_hand = s.played_ranks, s.kitty_ranks
    for r in range(15):
        a0, a1, a2, a4 = played[0, r], played[1, r], played[2, r], in_hand[r]
        o = own[r]
        seen = o + a0 + a1 + a2 + (a4 if seen_kitty_hand else 0)
        unseen = max(0, min((4 if r < 13 else 1) - seen, 4))
        shift = np.uint64(r)
        hand_bits |= column[max(0, min(o, 4))] << shift
        played0 |= column[min(a0, 4)] << shift
        played1 |= column[min(a1, 4)] << shift
        played2 |= column[min(a2, 4)] << shift
        kitty_hand_bits |= column[min(a4, 4)] << shift
        unseen_bits |= column[unseen] << shift
    encoding.write_bits(hand_bits, PLANE_BITS, obs, off[O_HAND])
    if kitty_shown:
        kitty_bits = np.uint64(0)
        for c in s.kitty:
            bit = np.uint64(1) << np.uint64(rank_of[c])
            while kitty_bits & bit:  # the next plane up: another kitty card of this rank
                bit <<= np.uint64(16)
            kitty_bits |= bit
        encoding.write_bits(kitty_bits, PLANE_BITS, obs, off[O_KITTY])
        encoding.write_bits(kitty_hand_bits, PLANE_BITS, obs, off[O_KITTY_HAND])
        obs[off[O_LANDLORD] + (s.landlord - p) % 3] = 1
    encoding.write_bits(unseen_bits, PLANE_BITS, obs, off[O_UNSEEN])
    if s.last_move >= 0:
        encoding.write_bits(pr.move_need[s.last_move], PLANE_BITS, obs, off[O_BEAT])
        if pr.move_type[s.last_move] < O_BEAT_TYPES:  # a shuttle (botzone rules) sets no type
            obs[off[O_BEAT_TYPE] + pr.move_type[s.last_move]] = 1
        obs[off[O_BEAT_MAIN] + pr.move_main[s.last_move]] = 1
    # the history, newest first, then the last move of the next and of the previous seat (their newest
    # entries); offsets and tables read into locals once (obs may alias them as far as numba knows, so a
    # read inside the loop is reloaded after every store)
    need, hist_move, hist_player = pr.move_need, s.hist_move, s.hist_player
    at_history, at_last = off[O_HISTORY], off[O_LAST]
    n = s.n_hist
    for k in range(min(n, HISTORY)):
        move = hist_move[n - 1 - k]
        if move != moves.PASS:
            encoding.write_bits(need[move], PLANE_BITS, obs, at_history + 54 * k)
    found_next = False
    found_previous = False
    for i in range(n - 1, -1, -1):
        rel = hist_player[i] - p
        if rel < 0:
            rel += 3
        if rel == 1 and not found_next:
            found_next = True
            if hist_move[i] != moves.PASS:
                encoding.write_bits(need[hist_move[i]], PLANE_BITS, obs, at_last)
        elif rel == 2 and not found_previous:
            found_previous = True
            if hist_move[i] != moves.PASS:
                encoding.write_bits(need[hist_move[i]], PLANE_BITS, obs, at_last + 54)
        if found_next and found_previous:
            break
    for k in range(3):
        q = (p + k) % 3
        encoding.write_bits(
            played0 if q == 0 else played1 if q == 1 else played2, PLANE_BITS, obs, off[O_PLAYED] + 54 * k
        )
        left = 0
        for r in range(15):
            left += s.counts[q, r]
        obs[off[O_LEFT] + k] = left
    obs[off[O_BID] + s.bid] = 1
    obs[off[O_BOMBS]] = min(s.bombs, 20)
    obs[off[O_BIDDING]] = 1 if s.bidding else 0
    for i in range(PLAYERS):  # bids are stored in bidding order: bidder i sits at first_bidder + i
        rel = (s.first_bidder + i - p) % 3
        obs[off[O_BIDS] + 5 * rel + (1 + s.bids[i] if i < s.n_bids else BID_NOT_YET)] = 1
    obs[off[O_BID_POSITION] + (p - s.first_bidder) % 3] = 1


# ---------------------------------------------------------------- helpers for people and tests (Python)
def recount(record) -> None:
    """Set the rank counts a game keeps in step (``counts``, ``played_ranks``, ``kitty_ranks``) from its
    per-card fields (``hands``, ``played``, ``kitty_in_hand``), for a position written by hand."""
    rank = np.asarray(moves.RANK_OF_CARD[:NUM_CARDS])
    for q in range(PLAYERS):
        record["counts"][q] = np.bincount(rank[np.flatnonzero(record["hands"][q])], minlength=15)
        record["played_ranks"][q] = np.bincount(rank[np.flatnonzero(record["played"][q])], minlength=15)
    record["kitty_ranks"][:] = np.bincount(rank[np.flatnonzero(record["kitty_in_hand"])], minlength=15)


def card_locations(record) -> np.ndarray:
    """Every card of one game wherever it is (hands, played, the kitty until the landlord takes it)."""
    held = [np.flatnonzero(record["hands"][p]) for p in range(PLAYERS)]
    played = [np.flatnonzero(record["played"][p]) for p in range(PLAYERS)]
    kitty = [np.asarray(record["kitty"], dtype=np.int64)] if record["bidding"] or record["dead"] else []
    return np.concatenate(held + played + kitty)


def swap_equal_cards(record, seat: int, taken, named) -> None:
    """After a move of ``seat`` took the cards ``taken``: make it have taken ``named`` instead, each where
    ``seat`` still holds it and a taken card of its rank is not named (a program that named its cards; the
    ranks, and so the observation and the legal moves, are unchanged). In place, on one game's record."""
    rank = moves.RANK_OF_CARD
    named = [int(c) for c in named]
    spare = [int(c) for c in taken if int(c) not in named]
    for card in named:
        other = next((c for c in spare if rank[c] == rank[card]), None)
        if other is None or not record["hands"][seat][card]:
            continue
        spare.remove(other)
        record["hands"][seat][card], record["played"][seat][card] = 0, 1
        record["hands"][seat][other], record["played"][seat][other] = 1, 0
    if record["landlord"] == seat:  # the kitty cards it still holds, as the rules keep them
        kitty = np.asarray(record["kitty"], dtype=np.int64)
        record["kitty_in_hand"][kitty] = record["hands"][seat][kitty]
        record["kitty_ranks"][:] = np.bincount(rank[np.flatnonzero(record["kitty_in_hand"])], minlength=15)
