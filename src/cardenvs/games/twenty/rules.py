"""Twenty as numba functions over a batched array state (the document in ``seeds/003`` and RULES.md "Twenty").

Rules, in plain words:

* Two players, ``rounds`` rounds (default 2); player_0 leads odd rounds, player_1 even ones. Card values:
  A = 1, 2..9 pip, T J Q K = 10 (a *Ten card*).
* A round starts with a fresh 52-card deck. The top two cards are revealed: the **End of Round Bonus**
  is the difference of their values, 10 if they are equal. They take no further part.
* Each player gets five cards; the players then put one card at a time on the tally, the round's leader
  first. The sum of the tally cards is the *tally*. After each card, the player who played it scores:

  - **Exact Twenty**: tally = 20 -> 10 points, the tally is cleared;
  - **Beyond Twenty**: tally > 20 -> tally - 20 points, the tally is cleared;
  - **Five Tally**: five tally cards with the tally below 20 -> 15 points; each further card with the
    tally still below 20 (Six, Seven, ... Tally) scores twice the last award: 30, 60, 120, ... These do
    not clear the tally.

* Tally cards carry over from one five-card hand to the next within a round; when both hands are empty
  both players get five new cards at once (2 + 10 x 5 = 52: the stock never runs out). At the end of the
  round the tally scores nothing, and the **last player who scored in the round** takes the bonus
  (nobody, if nobody scored).
* The match winner has more points after the last round; equal points is a draw.

Readings this implementation chooses (RULES.md): the n-Tally award for the n-th tally card below 20 is
``15 * 2 ** (n - 5)``, so an Exact Twenty on a sixth card scores 10 and clears; a card is played by its
value (which of several Ten cards goes is immaterial to the rules, the env plays the first one held).

Dealing (``options["deck"]``): per round, two bonus cards, then blocks of five alternately, the round's
leader first. With ``swap_deals`` round 2k reuses round 2k-1's deck, so the hands are exchanged: every
card of round 2k-1 is played, so a player who remembers it knows both players' round-2k hands in advance,
and the observation says so (segment ``replayed_hands``, in hidden and exposed modes alike). Deal k of
the episode (round k, or rounds 2k and 2k + 1 with ``swap_deals``) is ``stacked[k]`` if given, else the
dealing generator's deal k of the deal seed (:func:`cardenvs.core.rng.deal_deck`).

State (:data:`STATE`, one record per game; :mod:`cardenvs.core.kernels` states the functions' contract):
the round's deck (top first: bonus cards, then the stock from ``stock_pos``), each hand in the order
dealt, the tally and its cards, the cleared cards of the round, values seen this round, match scores, the
round and hand counters, the last scorer, the last play (for people) and the deal seed for later rounds.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit

from cardenvs.core import kernels
from cardenvs.core.cards import card_value_order
from cardenvs.core.observation import Layout, Segment
from cardenvs.core.rng import episode_deck

#: the observation: named segments (:mod:`cardenvs.core.observation`); :func:`observe` writes them at
#: the offsets ``LAYOUT.starts()`` the params carry
LAYOUT = Layout(
    [
        Segment("own_hand", 10, 5, "own cards by value A..T (counts)"),
        Segment("opponent_hand", 10, 5, "the opponent's cards by value when hands are exposed, else zeros"),
        Segment("opponent_hand_size", 1, 5, "cards in the opponent's hand"),
        Segment("tally", 1, 19, "the tally (sum of the tally cards)"),
        Segment("tally_cards", 1, 20, "number of tally cards"),
        Segment(
            "next_award",
            1,
            1e6,
            "points the next card would earn as an n-Tally if the tally stays below 20 "
            "(0 before the fifth card, then 15, doubling)",
        ),
        Segment("last_scorer", 2, 1, "who scored last this round: [self, opponent] (zeros: nobody yet)"),
        Segment("scores", 2, 1e6, "match points: [own, opponent]"),
        Segment("bonus", 1, 10, "this round's End of Round Bonus"),
        Segment("round", 1, 100, "round index (0-based)"),
        Segment("hand_index", 1, 4, "which five-card hand of the round (0..4)"),
        Segment("leading", 1, 1, "1 if the observer leads this round"),
        Segment("seen", 10, 16, "cards of each value already seen this round (played or revealed), own hand excluded"),
        Segment("stock", 1, 50, "cards left in the stock"),
        Segment(
            "replayed_hands",
            5 * 2 * 10,
            5,
            "with swap_deals, in round 2k (round 2k-1's deck, hands exchanged): "
            "the cards still to be played of each five-card hand of the round, [hand 0..4][own, opponent] by "
            "value A..T, known from round 2k-1 (the current hand's: the cards still held); zeros in other rounds",
            shape=(5, 2, 10),
        ),
    ]
)

VALUE_OF = card_value_order()  # card id -> 1..10
NUM_VALUES = 10
HAND_SIZE = 5
EXACT_POINTS = 10
FIVE_TALLY_POINTS = 15
DECK_SIZE = 52
PLAYERS = 2
MAX_ROUNDS = 100
MAX_STACKED = MAX_ROUNDS  # one deck per round at most
MAX_TALLY = 20  # tally cards below 20 number at most 19, plus the card that clears them
DECK = np.arange(DECK_SIZE, dtype=np.int16)
VALUES = VALUE_OF[:DECK_SIZE].astype(np.int8)  # the numba functions' table
POLICIES = ("greedy",)

STATE = np.dtype(
    [
        ("deck", np.int8, (DECK_SIZE,)),  # this round's deck, top first: two bonus cards, then the stock
        ("stock_pos", np.int8),  # the next stock card's index in ``deck``
        ("hands", np.int8, (PLAYERS, HAND_SIZE)),  # in the order dealt; the first ``hand_n[p]`` slots
        ("hand_n", np.int8, (PLAYERS,)),
        ("tally_cards", np.int8, (MAX_TALLY,)),  # the first ``tally_n``
        ("tally_n", np.int8),
        ("tally", np.int8),
        ("set_aside", np.int8, (DECK_SIZE,)),  # cleared tally cards of this round, the first ``set_aside_n``
        ("set_aside_n", np.int8),
        ("seen", np.int8, (NUM_VALUES,)),  # cards of each value 1..10 revealed or played this round
        ("bonus", np.int8),
        ("round_index", np.int16),  # 0-based; = rounds once the match is over (not "round": records have one)
        ("hand_index", np.int8),  # 0..4
        ("leader", np.int8),
        ("to_move", np.int8),
        ("last_scorer", np.int8),  # in this round (-1 nobody)
        ("scores", np.int64, (PLAYERS,)),
        ("over", np.bool_),
        ("last_player", np.int8),  # the last card played (for people): who, its value, the tally after, points
        ("last_value", np.int8),
        ("last_after", np.int8),
        ("last_points", np.int64),
        ("deal_seed", np.uint64),
    ]
)

# observation offsets (segments of the env's layout, in order)
NUM_SEGMENTS = 15
(
    O_OWN_HAND,
    O_OPP_HAND,
    O_OPP_SIZE,
    O_TALLY,
    O_TALLY_CARDS,
    O_NEXT_AWARD,
    O_LAST_SCORER,
    O_SCORES,
    O_BONUS,
    O_ROUND,
    O_HAND_INDEX,
    O_LEADING,
    O_SEEN,
    O_STOCK,
    O_REPLAYED_HANDS,
) = range(NUM_SEGMENTS)

PARAMS = np.dtype(
    [
        ("rounds", np.int16),
        ("swap_deals", np.bool_),
        ("exposed_hands", np.bool_),
        ("stacked", np.int16, (MAX_STACKED, DECK_SIZE)),
        ("n_stacked", np.int32),
        ("offsets", np.int32, (NUM_SEGMENTS,)),
    ]
)


def make_params(
    rounds: int = 2, swap_deals: bool = False, exposed_hands: bool = False, offsets: np.ndarray | None = None
) -> np.ndarray:
    """The constants of one configuration; ``offsets``: where the observation's segments start (default: the
    env's layout, :data:`LAYOUT`)."""
    if not 1 <= rounds <= MAX_ROUNDS:
        raise ValueError(f"twenty: rounds={rounds}; it accepts 1 to {MAX_ROUNDS}")
    if offsets is None:
        offsets = LAYOUT.starts()
    p = np.zeros(1, dtype=PARAMS)
    p["rounds"] = rounds
    p["swap_deals"] = swap_deals
    p["exposed_hands"] = exposed_hands
    p["offsets"][0] = offsets
    return p


# ---------------------------------------------------------------- scoring (also called from Python)
@njit(cache=True)
def bonus_value(first: int, second: int) -> int:
    """End of Round Bonus from the two revealed cards' values."""
    d = abs(first - second)
    return d if d else 10


@njit(cache=True)
def n_tally_award(n_cards: int) -> int:
    """Points for the ``n_cards``-th tally card with the tally still below 20 (0 below five cards)."""
    return FIVE_TALLY_POINTS << (n_cards - 5) if n_cards >= 5 else 0


@njit(cache=True)
def card_points(tally: int, n_cards: int, value: int) -> tuple[int, bool]:
    """(points, clears) for adding a card of ``value`` to a tally of ``n_cards`` cards summing ``tally``."""
    new = tally + value
    if new == 20:
        return EXACT_POINTS, True
    if new > 20:
        return new - 20, True
    return n_tally_award(n_cards + 1), False


#: :func:`card_points` for Python callers (the solver, the Python agents), memoised: a compiled function
#: costs more to call from Python than this one-line rule does to compute.
points_for = lru_cache(maxsize=None)(card_points)


# ---------------------------------------------------------------- the state machine
@njit(cache=True)
def _deal_hands(state, b) -> None:
    """Both players get five cards: the leader the first block, the follower the next. In place."""
    s = state[b]
    for k in range(PLAYERS):
        p = (s.leader + k) % PLAYERS
        for i in range(HAND_SIZE):
            s.hands[p, i] = s.deck[s.stock_pos + i]
        s.hand_n[p] = HAND_SIZE
        s.stock_pos += HAND_SIZE
    s.hand_index += 1


@njit(cache=True)
def start_round(state, b) -> None:
    """Begin round ``round_index`` from the deck in ``deck`` (top first). In place."""
    s = state[b]
    s.leader = s.round_index % 2
    s.to_move = s.leader
    v0 = VALUES[s.deck[0]]
    v1 = VALUES[s.deck[1]]
    s.bonus = bonus_value(v0, v1)
    s.stock_pos = 2
    s.tally = 0
    s.tally_n = 0
    s.set_aside_n = 0
    s.last_scorer = -1
    s.hand_index = -1
    s.seen[:] = 0
    s.seen[v0 - 1] += 1
    s.seen[v1 - 1] += 1
    s.hand_n[:] = 0
    _deal_hands(state, b)


@njit(cache=True)
def _next_round(state, b, params) -> None:
    """Round ``round_index``'s deck into ``deck`` (with ``swap_deals`` an odd round keeps the deck), then
    start it. In place."""
    s = state[b]
    pr = params[0]
    r = s.round_index
    if not (pr.swap_deals and r % 2 == 1):
        k = r // 2 if pr.swap_deals else r
        episode_deck(pr.stacked, pr.n_stacked, DECK, s.deal_seed, k, s.deck)
    start_round(state, b)


@njit(cache=True)
def init(state, b, params, deal_seed) -> None:
    """Start a match in game ``b``: round 0 from deal 0 (stacked or of ``deal_seed``). In place."""
    s = state[b]
    s.deal_seed = deal_seed
    s.round_index = 0
    s.scores[:] = 0
    s.over = False
    s.last_player = -1
    s.last_value = 0
    s.last_after = 0
    s.last_points = 0
    _next_round(state, b, params)


@njit(cache=True)
def to_move(state, b, params) -> int:
    """The seat to play (reads only)."""
    return state[b].to_move


@njit(cache=True)
def status(state, b, params) -> int:
    """OVER after the last round, else RUNNING (reads only)."""
    return kernels.OVER if state[b].over else kernels.RUNNING


@njit(cache=True)
def legal_ids(state, b, params, ids) -> int:
    """The values held by the player to move, as actions ``value - 1``, ascending, into ``ids``; returns how
    many (0 once the match is over)."""
    s = state[b]
    if s.over:
        return 0
    p = s.to_move
    held = 0  # bit a: a card of value a + 1 is held
    for i in range(s.hand_n[p]):
        held |= 1 << (VALUES[s.hands[p, i]] - 1)
    n = 0
    for a in range(NUM_VALUES):
        if held >> a & 1:
            ids[n] = a
            n += 1
    return n


@njit(cache=True)
def apply(state, b, params, action) -> None:
    """The player to move puts their first card of value ``action + 1`` (held) on the tally; at the end of
    a round the bonus goes to the last scorer and the next round starts. In place."""
    s = state[b]
    p = s.to_move
    value = action + 1
    n = s.hand_n[p]
    i = 0
    while i < n and VALUES[s.hands[p, i]] != value:
        i += 1
    if i == n:
        raise ValueError("twenty: the player to move holds no card of that value")
    card = s.hands[p, i]
    for j in range(i, n - 1):
        s.hands[p, j] = s.hands[p, j + 1]
    s.hand_n[p] = n - 1
    s.seen[value - 1] += 1
    points, clears = card_points(s.tally, s.tally_n, value)
    s.tally_cards[s.tally_n] = card
    s.tally_n += 1
    s.tally += value
    s.last_player = p
    s.last_value = value
    s.last_after = s.tally
    s.last_points = points
    if points:
        s.scores[p] += points
        s.last_scorer = p
    if clears:
        for j in range(s.tally_n):
            s.set_aside[s.set_aside_n] = s.tally_cards[j]
            s.set_aside_n += 1
        s.tally_n = 0
        s.tally = 0
    s.to_move = 1 - p
    if s.hand_n[0] or s.hand_n[1]:
        return
    if s.stock_pos < DECK_SIZE:
        _deal_hands(state, b)
        s.to_move = s.leader
        return
    # round over: the bonus to the last scorer
    if s.last_scorer >= 0:
        s.scores[s.last_scorer] += s.bonus
    s.round_index += 1
    if s.round_index >= params[0].rounds:
        s.over = True
        return
    _next_round(state, b, params)


@njit(cache=True)
def scores(state, b, params, out) -> None:
    """The running match points into ``out``."""
    s = state[b]
    for p in range(PLAYERS):
        out[p] = s.scores[p]


@njit(cache=True)
def outcome(state, b, params, out) -> None:
    """Into ``out``: once over, more match points wins (+1 / -1), equal points draw (0 each); zeros before."""
    out[:] = 0.0
    if not state[b].over:
        return
    sc = np.empty(PLAYERS, dtype=np.float64)
    scores(state, b, params, sc)
    kernels.win_share(sc, out)


# ---------------------------------------------------------------- the observation
@njit(cache=True)
def observe(state, b, params, p, obs) -> None:
    """Seat ``p``'s observation (the env's layout) into the zeroed row ``obs``."""
    s = state[b]
    pr = params[0]
    off = pr.offsets
    q = 1 - p
    for i in range(s.hand_n[p]):
        obs[off[O_OWN_HAND] + VALUES[s.hands[p, i]] - 1] += 1
    if pr.exposed_hands:
        for i in range(s.hand_n[q]):
            obs[off[O_OPP_HAND] + VALUES[s.hands[q, i]] - 1] += 1
    obs[off[O_OPP_SIZE]] = s.hand_n[q]
    obs[off[O_TALLY]] = s.tally
    obs[off[O_TALLY_CARDS]] = s.tally_n
    obs[off[O_NEXT_AWARD]] = n_tally_award(s.tally_n + 1)
    if s.last_scorer >= 0:
        obs[off[O_LAST_SCORER] + (0 if s.last_scorer == p else 1)] = 1
    obs[off[O_SCORES]] = s.scores[p]
    obs[off[O_SCORES] + 1] = s.scores[q]
    obs[off[O_BONUS]] = s.bonus
    obs[off[O_ROUND]] = min(s.round_index, pr.rounds - 1)
    obs[off[O_HAND_INDEX]] = max(0, s.hand_index)
    obs[off[O_LEADING]] = 1 if s.leader == p else 0
    for v in range(NUM_VALUES):
        obs[off[O_SEEN] + v] = s.seen[v]
    obs[off[O_STOCK]] = DECK_SIZE - s.stock_pos
    if pr.swap_deals and s.round_index % 2 == 1 and not s.over:
        _replayed_hands_into(state, b, p, obs, off[O_REPLAYED_HANDS])


@njit(cache=True)
def _replayed_hands_into(state, b, p, obs, start) -> None:
    """With ``swap_deals``, in round 2k (round 2k-1's deck with the hands exchanged): the cards still to be
    played of each five-card hand of the round, ``[hand][own, opponent][value - 1]`` counts at
    ``obs[start:]``; a player who remembers round 2k-1 knows them all (its own round-2k hands are the ones
    the opponent played out in round 2k-1, the opponent's are its own). Writes only ``obs``."""
    s = state[b]
    for h in range(s.hand_index, HAND_SIZE):
        for k in range(PLAYERS):  # 0: the observer, 1: the opponent
            q = p if k == 0 else 1 - p
            base = start + (PLAYERS * h + k) * NUM_VALUES
            if h == s.hand_index:  # the hand in play: what is still held
                for i in range(s.hand_n[q]):
                    obs[base + VALUES[s.hands[q, i]] - 1] += 1
            else:  # dealt later from the deck: the leader's block of five, then the follower's
                first = 2 + 2 * HAND_SIZE * h + (0 if q == s.leader else HAND_SIZE)
                for i in range(first, first + HAND_SIZE):
                    obs[base + VALUES[s.deck[i]] - 1] += 1


# ---------------------------------------------------------------- helpers for people and tests (Python)
def hand_cards(record, p: int) -> list[int]:
    """Player ``p``'s hand of one game (a record of :data:`STATE`), in the order dealt."""
    return [int(c) for c in record["hands"][p, : record["hand_n"][p]]]


def card_locations(record) -> np.ndarray:
    """Every card of the current round's deck (bonus, hands, stock, tally, set aside)."""
    deck = np.asarray(record["deck"], dtype=np.int64)
    parts = [
        deck[:2],
        *(np.asarray(hand_cards(record, p), dtype=np.int64) for p in range(PLAYERS)),
        deck[int(record["stock_pos"]) :],
        np.asarray(record["tally_cards"][: record["tally_n"]], dtype=np.int64),
        np.asarray(record["set_aside"][: record["set_aside_n"]], dtype=np.int64),
    ]
    return np.concatenate(parts)
