"""Two Way Street (``seeds/001``, sections 2-4, and RULES.md "Two Way Street"), as numba functions over a
batched array state.

Plain words:

* 2 to 10 players, ``decks`` decks of 52 with ``jokers`` per deck (distinct red/black jokers, or
  colourless/identical ``JK``). Each hand: 10 cards to each player in blocks from the first declarer in
  seat order; the rest is the stock (top first). The first declarer is player_0 for the first hand and
  moves one seat left each hand.
* Declaration (3+ players): in seat order from the first declarer each player declares high (take
  tricks) or low (avoid them). Once ``floor(n/2) + 1`` players went one way, everyone not yet declared is
  *forced* the other way. Every player, declared or forced, then puts two chosen cards at the bottom of
  the stock and draws two from the top.
* Option ``declaration`` (not in the document; it measures what the high/low choice adds):
  ``"choose"`` (default) is the above. ``"random"``: each player's declaration is a fair coin drawn at
  the deal from stream :data:`DECLARATION_STREAM` ``+ k`` of the episode's deal seed (deal ``k``; bit
  ``i`` of one draw for the ``i``-th declarer), so a deal replays exactly. ``"forced"``: every declarer
  declares high whatever its hand, so the first ``floor(n/2) + 1`` in declaring order take the high side
  and the majority rule forces the rest low (x 3), as in a game where they chose so; the sides rotate with
  the first declarer. (Alternating high and low in declaring order was rejected: with an even number of
  players it gives every other seat the same side in every hand, so two agents seated alternately, as the
  skill study seats them, form two teams whose goals agree: the trick one side takes is the trick the
  other avoids.) In both, the player still takes its declaring turn, with only the imposed declaration
  legal (a player the majority rule forces has no declaring turn, as always), and still chooses its two
  discards; an imposed declaration scores as declared (x 2). Duels have no declaration turn (the bids set
  the direction), so the option needs 3+ players.
* Ten tricks. The first declarer leads trick 1; each next trick is led by the seat left of the previous
  leader (not the winner). Follow suit if able; a joker of the led suit's colour may replace it (any
  joker when jokers are not distinct). After a joker lead the first later player holding a card of a
  suit of that colour names the suit led, one it holds (colourless jokers: any suit it holds, or it plays
  another joker). Red joker > black (or colourless) joker > highest card of the suit led, ace high; among
  equal cards the earlier wins.
* Scoring (:func:`raw_score`, :func:`hand_scores`): raw = tricks (high) or N - tricks (low); a penalty
  from the sorted raw scores (cases A-D, RULES.md readings: A also covers s1 = s2 != s3; with 3 players a
  missing fourth counts as tied with the third; C's tie is every player whose raw score equals s2),
  refined = max(0, raw - penalty), final = 2 x refined (declared) or 3 x (forced); forced players in a
  case C tie score 1. Hands are played until a player reaches ``target``; the most points wins.
* Duels (2 players, :func:`duel_score`): the dealer bids hidden, the responder openly (no bid, or
  strength 1..10 high or low). Equal strength, opposite directions: redeal. The stronger high bid makes
  the opponent capture that many two-card tricks from the stock; a stronger low bid makes its bidder
  capture them. Both "no bid": the dealer chooses high or low. Only the stronger bidder discards two and
  draws two (both, dealer first, when the bids are identical). The dealer leads odd tricks, the responder
  even ones. High: the player with more tricks scores 2 per trick of difference; low: the player with
  fewer; equal: the dealer scores 1.

Readings this implementation chooses (beyond the scoring readings above): N for low hands follows the
document's table by player count (11+ players would be 1); a joker lead that no later player can name
keeps no suit led, so only jokers can beat it; captured stock cards are face up to both players; a redeal
keeps the dealer and deals the next deck of the episode; a duel redealt ``MAX_REDEALS`` (20) times in a
row truncates the match (its state is kept as it was, bids shown); when the match ends, the last trick
is taken like every other (it is in the finished tricks, the table is empty, ``trick_no`` is 10), so
every card is in one place after the final step too. ``target`` is at most :data:`MAX_TARGET`, so match
totals stay below :data:`MAX_TOTAL`, the bound of the ``scores`` observation segment: a hand scores at
most :data:`MAX_HAND_POINTS` (raw scores lie in -8..10, so refined <= 18, x 3 forced = 54; a duel at
most 2 x 20 tricks of difference = 40).

Dealing: deal ``k`` of the episode (every hand and every redeal takes the next ``k``) is
``params.stacked[k]`` (its first ``deck_len`` cards) if ``k < n_stacked``, else
:func:`cardenvs.core.rng.deal_deck` of the configuration's deck with the episode's deal seed (kept in the
state, since later hands are dealt inside :func:`apply`).

State (:data:`STATE`, one record per game, sized for 10 players and two decks with jokers;
:mod:`cardenvs.core.kernels` states the functions' contract): per-card-id hand counts, the stock (the
dealt deck with a head and an end: draws from the head, discards at the end), declarations, forced
flags, discards, tricks taken and the cards of finished tricks, the trick on the table, duel bids and
captures, match totals and counters.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core import kernels
from cardenvs.core.cards import BLACK_JOKER, JOKER, RED_JOKER  # noqa: F401 (JOKER re-exported)
from cardenvs.core.rng import EXTRA_STREAM, episode_deck, next_u64, stream

N_LOW = {2: 10, 3: 8, 4: 6, 5: 5, 6: 4, 7: 3, 8: 3, 9: 2, 10: 2}
N_LOW_TABLE = np.array([1, 1, 10, 8, 6, 5, 4, 3, 3, 2, 2], dtype=np.int64)  # by player count; 11+: 1
HAND_CARDS = 10
TRICKS = 10
BLACK_SUITS, RED_SUITS = (0, 1), (2, 3)  # S C | D H

# actions (one space for every phase)
HIGH, LOW = 0, 1
DISCARD0, SUIT0, PLAY0, BID0 = 2, 57, 61, 116
NUM_ACTIONS = BID0 + 21
# phases (``phase`` of the state; -1 once the match is over)
DECLARE, DISCARD, SUIT, PLAY, BID, CHOICE = range(6)
PHASE_OVER = -1
PHASES = ["declare", "discard", "suit", "play", "bid", "choice"]
MAX_REDEALS = 20
MAX_TOTAL = 10_000  # bound of the ``scores`` observation segment (match totals stay below it)
MAX_HAND_POINTS = 60  # no hand scores more (see the module docstring)
MAX_TARGET = MAX_TOTAL - MAX_HAND_POINTS  # totals stay below target + MAX_HAND_POINTS <= MAX_TOTAL

MAX_PLAYERS = 10
NUM_IDS = 55
# option ``declaration`` (``params.declaration``): how the 3+ player declarations are made
DECLARATIONS = ("choose", "random", "forced")
DECLARATION_CHOOSE, DECLARATION_RANDOM, DECLARATION_FORCED = range(3)
DECLARATION_STREAM = 2 * EXTRA_STREAM  # + deal k: the coins of deal k's declarers (``declaration="random"``)
MAX_DECK = 2 * 54
MAX_STACKED = 32
STOCK_SIZE = MAX_DECK + 2 * MAX_PLAYERS  # the dealt deck, then every discard of a hand at the end

# the events ``last_event`` records (for render)
EVENT_NONE, EVENT_TRICK, EVENT_HAND, EVENT_REDEAL = range(4)

STATE = np.dtype(
    [
        ("seed", np.uint64),  # the episode's deal seed
        ("players", np.int8),  # seats (params' players, kept for Python helpers)
        ("deal_no", np.int32),  # deals taken so far (hands and redeals)
        ("hand_no", np.int32),  # hands completed
        ("redeals", np.int16),  # duel redeals in a row
        ("over", np.bool_),
        ("truncated", np.bool_),
        ("phase", np.int8),
        ("current", np.int8),  # the seat to act
        ("first", np.int8),  # first declarer / dealer of this hand
        ("hands", np.int8, (MAX_PLAYERS, NUM_IDS)),  # counts per card id
        ("stock", np.int16, (STOCK_SIZE,)),  # stock = stock[stock_head:stock_end], top first
        ("stock_head", np.int16),
        ("stock_end", np.int16),
        ("direction", np.int8, (MAX_PLAYERS,)),  # -1 undeclared, HIGH, LOW
        ("forced", np.int8, (MAX_PLAYERS,)),  # 1: forced (numba records hold no nested bool arrays)
        ("declare_k", np.int8),  # declarations done (3+ players)
        ("discard_left", np.int8),  # discards the seat to act still owes
        ("discards", np.int8, (MAX_PLAYERS, 2)),  # each seat's discards this hand
        ("n_discards", np.int8, (MAX_PLAYERS,)),
        ("played", np.int8, (NUM_IDS,)),  # cards played to tricks this hand (counts)
        ("taken", np.int8, (MAX_PLAYERS,)),  # tricks won this hand (captured ones not included)
        ("taken_cards", np.int8, (TRICKS * MAX_PLAYERS,)),  # cards of finished tricks, trick k at k * n
        ("trick_winners", np.int8, (TRICKS,)),
        ("trick_no", np.int8),  # tricks finished this hand
        ("trick_on", np.bool_),  # a trick is on the table (False before the play of a hand)
        ("trick_leader", np.int8),
        ("trick_len", np.int8),
        ("trick_cards", np.int8, (MAX_PLAYERS,)),  # card i played by seat (leader + i) % n
        ("led_suit", np.int8),  # -1 until known (a joker lead waits for a player to name it)
        ("void", np.int8, (MAX_PLAYERS,)),  # suits (bits S C D H) each seat showed it lacks this hand
        ("bids", np.int8, (2,)),  # duel bids (-1: not yet)
        ("revealed", np.bool_),  # the dealer's bid is shown (after the responder's)
        ("duel_direction", np.int8),  # -1 not chosen, HIGH, LOW
        ("queue", np.int8, (2,)),  # duel discarders still to discard, first to act first
        ("n_queue", np.int8),
        ("captured", np.int8, (2, 2 * TRICKS)),  # stock cards captured in a duel
        ("captured_tricks", np.int8, (2,)),
        ("totals", np.float64, (MAX_PLAYERS,)),  # match scores
        ("last_hand", np.float64, (MAX_PLAYERS,)),  # the last finished hand's scores
        ("last_event", np.int8),
        ("imposed", np.int8, (MAX_PLAYERS,)),  # each seat's imposed declaration this hand (-1: its own choice)
    ]
)

# the observation's segments in the order of ``params.offsets`` (the env's layout names them)
OBS_SEGMENTS = (
    "hand",
    "trick",
    "suit_led",
    "declarations",
    "forced",
    "tricks",
    "played",
    "discarded",
    "captured",
    "scores",
    "phase",
    "first",
    "leader",
    "own_bid",
    "opponent_bid",
    "trick_number",
)
(
    O_HAND,
    O_TRICK,
    O_SUIT_LED,
    O_DECL,
    O_FORCED,
    O_TRICKS,
    O_PLAYED,
    O_DISCARDED,
    O_CAPTURED,
    O_SCORES,
    O_PHASE,
    O_FIRST,
    O_LEADER,
    O_OWN_BID,
    O_OPP_BID,
    O_TRICK_NUMBER,
) = range(len(OBS_SEGMENTS))

POLICIES = ("heuristic",)


PARAMS = np.dtype(
    [
        ("players", np.int8),
        ("decks", np.int8),
        ("jokers", np.int8),
        ("distinct", np.bool_),  # red and black jokers (else colourless / identical)
        ("target", np.int64),
        ("deck_len", np.int16),  # the configuration's deck: 52, 53, 54, 104, 106 or 108 cards
        ("deck", np.int16, (MAX_DECK,)),  # its first deck_len: the deck in canonical order (shuffled to deal)
        ("stacked", np.int16, (MAX_STACKED, MAX_DECK)),  # row k's first deck_len: deal k's deck
        ("n_stacked", np.int32),
        ("offsets", np.int32, (len(OBS_SEGMENTS),)),
        ("declaration", np.int8),  # DECLARATION_CHOOSE, _RANDOM or _FORCED
    ]
)
"""The constants of one configuration, one dtype for every deck (the kernels read the first ``deck_len``
cards of ``deck`` and ``stacked``): with a dtype for each deck length every kernel was compiled once a length."""


def make_params(
    players: int,
    decks: int,
    jokers: int,
    distinct: bool,
    target: int,
    deck: np.ndarray,
    offsets: np.ndarray,
    declaration: int = DECLARATION_CHOOSE,
) -> np.ndarray:
    """The constants of one configuration (``offsets``: the layout's segment starts in ``OBS_SEGMENTS``
    order; ``declaration``: an index into :data:`DECLARATIONS`)."""
    p = np.zeros(1, dtype=PARAMS)
    p["players"] = players
    p["decks"] = decks
    p["jokers"] = jokers
    p["distinct"] = distinct
    p["target"] = target
    p["deck_len"] = len(deck)
    p["deck"][0, : len(deck)] = deck
    p["n_stacked"] = 0
    p["offsets"][0] = offsets
    p["declaration"] = declaration
    return p


# ---------------------------------------------------------------- cards and tricks (numba, callable from Python)
@njit(cache=True)
def suit(card: int) -> int:
    """Suit index (S C D H) of a standard card; -1 for a joker."""
    return card % 4 if card < 52 else -1


@njit(cache=True)
def is_joker(card: int) -> bool:
    return card >= 52


def joker_suits(card: int) -> tuple[int, ...]:
    """Suits a led joker can stand for: its colour's, or any for a colourless joker."""
    return BLACK_SUITS if card == BLACK_JOKER else RED_SUITS if card == RED_JOKER else (0, 1, 2, 3)


@njit(cache=True)
def joker_allows(card: int, s: int) -> bool:
    """Whether a led joker ``card`` can stand for suit ``s`` (:func:`joker_suits` in numba)."""
    if card == BLACK_JOKER:
        return s < 2
    if card == RED_JOKER:
        return s >= 2
    return True


@njit(cache=True)
def card_power(card: int, led_suit: int) -> int:
    """Trick strength: red joker 200, other jokers 100, cards of the suit led 2..14, others 0."""
    if card == RED_JOKER:
        return 200
    if card >= 52:
        return 100
    return card // 4 + 2 if card % 4 == led_suit else 0


@njit(cache=True)
def winner_index(cards: np.ndarray, count: int, led_suit: int) -> int:
    """Index (in play order) of the card of ``cards[:count]`` that takes the trick; the earlier of equals."""
    best, best_power = 0, -1
    for i in range(count):
        power = card_power(cards[i], led_suit)
        if power > best_power:
            best, best_power = i, power
    return best


def trick_winner(cards: list[int], led_suit: int) -> int:
    """Index (in play order) of the card that takes the trick; the earlier of equals wins."""
    return int(winner_index(np.asarray(cards, dtype=np.int64), len(cards), led_suit))


@njit(cache=True)
def holds_suit(hand: np.ndarray, s: int) -> bool:
    """Whether the per-card counts ``hand`` hold a standard card of suit ``s``."""
    for c in range(s, 52, 4):
        if hand[c] > 0:
            return True
    return False


@njit(cache=True)
def holds_suit_for(hand: np.ndarray, lead: int) -> bool:
    """Whether ``hand`` holds a card of a suit the led joker ``lead`` can stand for (it must name one)."""
    for s in range(4):
        if joker_allows(lead, s) and holds_suit(hand, s):
            return True
    return False


@njit(cache=True)
def play_ids(hand: np.ndarray, led_suit: int, distinct: bool, out: np.ndarray, base: int) -> int:
    """``base + c`` for every card ``c`` of ``hand`` (counts per card id) that may be played to a trick whose
    suit led is ``led_suit`` (-1: leading, or no suit named after a joker lead), ascending, into ``out``;
    returns how many. Writes only ``out``."""
    follow = led_suit >= 0 and holds_suit(hand, np.int64(led_suit))
    colour_joker = RED_JOKER if led_suit >= 2 else BLACK_JOKER
    n = 0
    for c in range(NUM_IDS):
        if hand[c] == 0:
            continue
        if follow:
            if c < 52:
                if c % 4 != led_suit:
                    continue
            elif distinct and c != colour_joker:
                continue
        out[n] = base + c
        n += 1
    return n


def legal_plays(hand: np.ndarray, led_suit: int, distinct_jokers: bool) -> list[int]:
    """Cards of ``hand`` (counts per card id) that may be played to a trick whose suit led is ``led_suit``
    (-1: leading, or no suit named after a joker lead)."""
    out = np.empty(NUM_IDS, dtype=np.int64)
    n = play_ids(np.asarray(hand, dtype=np.int8), led_suit, distinct_jokers, out, 0)
    return [int(c) for c in out[:n]]


# ---------------------------------------------------------------- scoring (numba, callable from Python)
@njit(cache=True)
def raw_score(high: bool, tricks: int, players: int) -> int:
    """Tricks taken (high) or N - tricks (low), N from the document's table (11+ players: 1)."""
    if high:
        return tricks
    n_low = N_LOW_TABLE[players] if players < N_LOW_TABLE.shape[0] else 1
    return n_low - tricks


@njit(cache=True)
def penalty_of(raw: np.ndarray) -> tuple[int, int, int]:
    """(case 0..3 for A..D, penalty, s2) of a hand's raw scores (3+ players)."""
    s = raw.copy()  # sorted from high to low by insertion (np.sort costs a second to compile)
    for i in range(1, s.shape[0]):
        v, j = s[i], i - 1
        while j >= 0 and s[j] < v:
            s[j + 1] = s[j]
            j -= 1
        s[j + 1] = v
    s1, s2, s3 = s[0], s[1], s[2]
    s4 = s[3] if s.shape[0] > 3 else s[2]  # with 3 players the missing fourth ties with the third
    if s2 != s3:
        return 0, s3, s2
    if s3 != s4:
        return 1, s4, s2
    if s1 != s2:
        return 2, s2, s2
    for i in range(4, s.shape[0]):  # the highest raw score below the tied first four
        if s[i] != s1:
            return 3, s[i], s2
    return 3, s1, s2


def penalty_case(raw_scores: list[int]) -> tuple[str, int]:
    """(case letter, penalty) for a hand's raw scores (3+ players)."""
    case, penalty, _ = penalty_of(np.asarray(raw_scores, dtype=np.int64))
    return "ABCD"[case], int(penalty)


@njit(cache=True)
def hand_scores_into(raw: np.ndarray, forced: np.ndarray, out: np.ndarray) -> None:
    """Final scores of a hand into ``out`` (writes only ``out``): refined (raw - penalty, floored at 0) x 2,
    or x 3 when forced; forced players in a case C tie score 1."""
    case, penalty, s2 = penalty_of(raw)
    for i in range(raw.shape[0]):
        final = max(0, raw[i] - penalty) * (3 if forced[i] else 2)
        if case == 2 and forced[i] and raw[i] == s2:
            final = 1
        out[i] = final


def hand_scores(raw_scores: list[int], forced: list[bool]) -> list[int]:
    """Final scores of a hand: refined (raw - penalty, floored at 0) x 2, or x 3 when forced."""
    if len(raw_scores) != len(forced) or len(raw_scores) < 3:
        raise ValueError("hand_scores needs one raw score and one forced flag per player, 3 players or more")
    out = np.empty(len(raw_scores), dtype=np.int64)
    hand_scores_into(np.asarray(raw_scores, dtype=np.int64), np.asarray(forced, dtype=np.bool_), out)
    return [int(x) for x in out]


@njit(cache=True)
def duel_score(high: bool, dealer_tricks: int, responder_tricks: int) -> tuple[int, int]:
    """(dealer points, responder points) of a duel hand, tricks including captured ones."""
    if dealer_tricks == responder_tricks:
        return 1, 0
    dealer_ahead = dealer_tricks > responder_tricks
    diff = 2 * abs(dealer_tricks - responder_tricks)
    dealer_scores = dealer_ahead if high else not dealer_ahead
    return (diff, 0) if dealer_scores else (0, diff)


# ---------------------------------------------------------------- the state machine (all in place)
@njit(cache=True)
def _start_trick(state, b, leader) -> None:
    """An empty trick led by ``leader``. In place."""
    s = state[b]
    s.trick_on = True
    s.trick_leader = leader
    s.trick_len = 0
    s.led_suit = -1
    s.current = leader
    s.phase = PLAY


@njit(cache=True)
def _start_play(state, b) -> None:
    """Trick 1, led by the first declarer / dealer. In place."""
    state[b].trick_no = 0
    _start_trick(state, b, np.int64(state[b].first))


@njit(cache=True)
def _next_declarer(state, b, n) -> None:
    """The next seat declares, or is forced and goes to its discards; after the last, play starts. In place."""
    s = state[b]
    if s.declare_k == n:
        _start_play(state, b)
        return
    p = (s.first + s.declare_k) % n
    s.current = p
    highs = 0
    lows = 0
    for q in range(n):
        if s.direction[q] == HIGH:
            highs += 1
        elif s.direction[q] == LOW:
            lows += 1
    majority = n // 2 + 1
    if highs >= majority or lows >= majority:
        s.direction[p] = LOW if highs >= majority else HIGH
        s.forced[p] = 1
        s.phase = DISCARD
        s.discard_left = 2
    else:
        s.phase = DECLARE


@njit(cache=True)
def _impose_declarations(s, declaration, n, k) -> None:
    """Fill ``s.imposed`` for deal ``k``: -1 everywhere (``"choose"``), or each seat's declaration by its
    place ``i`` in declaring order: a coin, bit ``63 - i`` of one draw of stream ``DECLARATION_STREAM + k``
    of the deal seed (``"random"``), or high (``"forced"``). In place."""
    s.imposed[:] = -1
    if declaration == DECLARATION_CHOOSE or n == 2:
        return
    coins = next_u64(stream(s.seed, DECLARATION_STREAM + k))
    for i in range(n):
        p = (s.first + i) % n
        if declaration == DECLARATION_RANDOM:
            s.imposed[p] = HIGH if (coins >> np.uint64(63 - i)) & np.uint64(1) == 0 else LOW
        else:
            s.imposed[p] = HIGH


@njit(cache=True)
def _start_hand(state, b, params) -> None:
    """Deal the episode's next deck and start the hand's declarations (duels: the bids). In place."""
    s = state[b]
    pr = params[0]
    n = pr.players
    length = pr.deck_len
    s.first = s.hand_no % n
    k = np.int64(s.deal_no)
    s.deal_no += 1
    episode_deck(pr.stacked, pr.n_stacked, pr.deck, s.seed, k, s.stock[:length])
    s.hands[:] = 0
    for i in range(n):
        p = (s.first + i) % n
        for j in range(i * HAND_CARDS, (i + 1) * HAND_CARDS):
            s.hands[p, s.stock[j]] += 1
    s.stock_head = n * HAND_CARDS
    s.stock_end = length
    s.direction[:] = -1
    s.forced[:] = 0
    s.n_discards[:] = 0
    s.void[:] = 0
    s.played[:] = 0
    s.taken[:] = 0
    s.trick_no = 0
    s.trick_on = False
    s.trick_leader = -1
    s.trick_len = 0
    s.led_suit = -1
    s.bids[:] = -1
    s.revealed = False
    s.duel_direction = -1
    s.n_queue = 0
    s.captured_tricks[:] = 0
    s.declare_k = 0
    s.discard_left = 0
    _impose_declarations(s, pr.declaration, n, k)
    if n == 2:
        s.phase = BID
        s.current = s.first
    else:
        _next_declarer(state, b, n)


@njit(cache=True)
def init(state, b, params, deal_seed) -> None:
    """Start the match of game ``b`` (deal 0 of ``deal_seed``, or the stacked deck). In place."""
    s = state[b]
    s.seed = deal_seed
    s.players = params[0].players
    s.deal_no = 0
    s.hand_no = 0
    s.redeals = 0
    s.over = False
    s.truncated = False
    s.totals[:] = 0.0
    s.last_hand[:] = 0.0
    s.last_event = EVENT_NONE
    s.trick_winners[:] = -1
    s.trick_cards[:] = -1
    s.discards[:] = -1
    _start_hand(state, b, params)


@njit(cache=True)
def to_move(state, b, params) -> int:
    """The seat to act (reads only)."""
    return state[b].current


@njit(cache=True)
def status(state, b, params) -> int:
    """RUNNING, OVER (a player reached ``target``) or TRUNCATED (``MAX_REDEALS`` duel redeals in a row)."""
    s = state[b]
    if s.over:
        return kernels.OVER
    if s.truncated:
        return kernels.TRUNCATED
    return kernels.RUNNING


@njit(cache=True)
def legal_ids(state, b, params, ids) -> int:
    """The legal actions of the seat to move, ascending, into ``ids`` (writes only ``ids``); returns how many
    (0 once over)."""
    s = state[b]
    if s.over or s.truncated:
        return 0
    phase = s.phase
    hand = s.hands[s.current]
    if phase == DECLARE and params[0].declaration != DECLARATION_CHOOSE:
        ids[0] = s.imposed[s.current]
        return 1
    if phase == DECLARE or phase == CHOICE:
        ids[0] = HIGH
        ids[1] = LOW
        return 2
    if phase == BID:
        for i in range(21):
            ids[i] = BID0 + i
        return 21
    if phase == DISCARD:
        n = 0
        for c in range(NUM_IDS):
            if hand[c] > 0:
                ids[n] = DISCARD0 + c
                n += 1
        return n
    if phase == SUIT:
        lead = s.trick_cards[0]
        n = 0
        for st in range(4):
            if joker_allows(lead, st) and holds_suit(hand, st):
                ids[n] = SUIT0 + st
                n += 1
        if not params[0].distinct:  # colourless jokers: another joker may be played instead
            for c in range(52, NUM_IDS):
                if hand[c] > 0:
                    ids[n] = PLAY0 + c
                    n += 1
        return n
    return play_ids(hand, s.led_suit, params[0].distinct, ids, PLAY0)


# inlined (numba IR) into _end_trick, and it into _play: compiled on their own, each level re-optimised the
# whole next deal below it, about 1.5 CPU s of the first use
@njit(cache=True, inline="always")
def _end_hand(state, b, params) -> None:
    """Score the hand, add it to the totals; end the match at ``target`` or deal the next hand. In place."""
    s = state[b]
    pr = params[0]
    n = pr.players
    if n == 2:
        dealer = s.first
        d, r = duel_score(
            s.duel_direction == HIGH,
            s.taken[dealer] + s.captured_tricks[dealer],
            s.taken[1 - dealer] + s.captured_tricks[1 - dealer],
        )
        s.last_hand[dealer] = d
        s.last_hand[1 - dealer] = r
    else:
        raw = np.empty(n, dtype=np.int64)
        for p in range(n):
            raw[p] = raw_score(s.direction[p] == HIGH, s.taken[p], n)
        final = np.empty(n, dtype=np.int64)
        hand_scores_into(raw, s.forced[:n], final)
        for p in range(n):
            s.last_hand[p] = final[p]
    best = -1.0
    for p in range(n):
        s.totals[p] += s.last_hand[p]
        best = max(best, s.totals[p])
    s.hand_no += 1
    s.last_event = EVENT_HAND
    if best >= pr.target:
        s.over = True
        s.phase = PHASE_OVER
        s.trick_on = False  # the last trick is in ``taken_cards`` like the others: nothing on the table
        return
    _start_hand(state, b, params)


@njit(cache=True, inline="always")
def _end_trick(state, b, params) -> None:
    """The trick's winner takes it; the seat left of its leader leads the next, or the hand ends. In place."""
    s = state[b]
    n = params[0].players
    winner = (s.trick_leader + winner_index(s.trick_cards, s.trick_len, s.led_suit)) % n
    s.taken[winner] += 1
    for i in range(n):
        s.taken_cards[s.trick_no * n + i] = s.trick_cards[i]
    s.trick_winners[s.trick_no] = winner
    s.trick_no += 1
    s.last_event = EVENT_TRICK
    if s.trick_no == TRICKS:
        _end_hand(state, b, params)
        return
    _start_trick(state, b, (s.trick_leader + 1) % n)


@njit(cache=True)
def _play(state, b, params, p, card) -> None:
    """Seat ``p`` plays ``card`` to the trick; the next seat may have to name the suit of a joker lead.
    In place."""
    s = state[b]
    n = params[0].players
    s.hands[p, card] -= 1
    s.played[card] += 1
    s.trick_cards[s.trick_len] = card
    s.trick_len += 1
    if s.trick_len == 1 and card < 52:
        s.led_suit = card % 4
    if s.trick_len == n:
        _end_trick(state, b, params)
        return
    q = (p + 1) % n
    s.current = q
    lead = s.trick_cards[0]
    if s.led_suit < 0 and lead >= 52 and holds_suit_for(s.hands[q], lead):
        s.phase = SUIT


@njit(cache=True)
def _after_discards(state, b, params) -> None:
    """The seat that discarded draws two from the top; the next declarer or discarder, or play, follows.
    In place."""
    s = state[b]
    n = params[0].players
    p = s.current
    s.hands[p, s.stock[s.stock_head]] += 1
    s.hands[p, s.stock[s.stock_head + 1]] += 1
    s.stock_head += 2
    if n == 2:
        s.queue[0] = s.queue[1]
        s.n_queue -= 1
        if s.n_queue > 0:
            s.current = s.queue[0]
            s.discard_left = 2
        else:
            _start_play(state, b)
    else:
        s.declare_k += 1
        _next_declarer(state, b, n)


@njit(cache=True)
def _resolve_bids(state, b, params) -> None:
    """Both duel bids are in: redeal, or set the direction, the captures and who discards. In place."""
    s = state[b]
    dealer = s.first
    responder = 1 - dealer
    bd = s.bids[dealer]
    br = s.bids[responder]
    sd = bd if bd <= 10 else bd - 10
    sr = br if br <= 10 else br - 10
    high_d = bd <= 10
    high_r = br <= 10
    s.revealed = True
    if sd == sr and sd > 0 and high_d != high_r:
        s.redeals += 1
        s.last_event = EVENT_REDEAL
        if s.redeals >= MAX_REDEALS:
            s.truncated = True
            return
        _start_hand(state, b, params)
        return
    s.redeals = 0
    if sd != sr:
        stronger = dealer if sd > sr else responder
        strength = max(sd, sr)
        high = high_d if stronger == dealer else high_r
        s.duel_direction = HIGH if high else LOW
        capturer = 1 - stronger if high else stronger
        for i in range(2 * strength):
            s.captured[capturer, i] = s.stock[s.stock_head + i]
        s.stock_head += 2 * strength
        s.captured_tricks[capturer] += strength
        s.queue[0] = stronger
        s.n_queue = 1
    else:
        s.queue[0] = dealer
        s.queue[1] = responder
        s.n_queue = 2
        s.duel_direction = (HIGH if high_d else LOW) if sd > 0 else -1
    s.direction[0] = s.duel_direction
    s.direction[1] = s.duel_direction
    if s.duel_direction < 0:
        s.phase = CHOICE
        s.current = dealer
    else:
        s.phase = DISCARD
        s.current = s.queue[0]
        s.discard_left = 2


@njit(cache=True)
def apply(state, b, params, action) -> None:
    """The seat to move plays ``action`` (legal). In place."""
    s = state[b]
    p = s.current
    phase = s.phase
    if phase == DECLARE:
        s.direction[p] = HIGH if action == HIGH else LOW
        s.phase = DISCARD
        s.discard_left = 2
    elif phase == CHOICE:
        s.duel_direction = HIGH if action == HIGH else LOW
        s.direction[0] = s.duel_direction
        s.direction[1] = s.duel_direction
        s.phase = DISCARD
        s.current = s.queue[0]
        s.discard_left = 2
    elif phase == DISCARD:
        card = action - DISCARD0
        s.hands[p, card] -= 1
        s.stock[s.stock_end] = card
        s.stock_end += 1
        s.discards[p, s.n_discards[p]] = card
        s.n_discards[p] += 1
        s.discard_left -= 1
        if s.discard_left == 0:
            _after_discards(state, b, params)
    elif phase == BID:
        s.bids[p] = action - BID0
        if p == s.first:
            s.current = 1 - p
        else:
            _resolve_bids(state, b, params)
    elif phase == SUIT:
        s.phase = PLAY
        if action < PLAY0:
            s.led_suit = action - SUIT0
            return
    else:
        _show_void(state, b, params, p, action - PLAY0)
    if phase == SUIT or phase == PLAY:  # a card (after a joker lead, a colourless joker instead of a suit)
        _play(state, b, params, p, action - PLAY0)


@njit(cache=True)
def _show_void(state, b, params, p, card) -> None:
    """Before seat ``p`` plays ``card`` in the play phase: record in ``void[p]`` the suits the play shows it
    lacks (public: everyone saw the trick). Not following the suit led shows that suit is void (a joker
    hides it where a joker may replace the suit: the colour's joker, any joker when they are not
    distinct); playing after an unnamed joker lead without being asked to name shows every suit the
    joker could stand for is void. In place (``void`` only)."""
    s = state[b]
    if s.trick_len == 0:
        return
    if s.led_suit >= 0:
        if card < 52:
            if card % 4 != s.led_suit:
                s.void[p] |= 1 << s.led_suit
        elif params[0].distinct and card != (RED_JOKER if s.led_suit >= 2 else BLACK_JOKER):
            s.void[p] |= 1 << s.led_suit
        return
    lead = s.trick_cards[0]
    if lead >= 52:  # reached the play phase directly: it held no suit the joker could stand for
        for st in range(4):
            if joker_allows(lead, st):
                s.void[p] |= 1 << st


@njit(cache=True)
def scores(state, b, params, out) -> None:
    """Each seat's match total into ``out`` (writes only ``out``)."""
    s = state[b]
    for p in range(out.shape[0]):
        out[p] = s.totals[p]


@njit(cache=True)
def outcome(state, b, params, out) -> None:
    """Into ``out`` (writes only ``out``): once the match is over, the most points wins (tied leaders share
    +1, the others share -1); zeros before and after a truncation."""
    out[:] = 0.0
    s = state[b]
    if not s.over:
        return
    kernels.win_share(s.totals[: params[0].players], out)


# ---------------------------------------------------------------- the observation
@njit(cache=True)
def observe(state, b, params, p, obs) -> None:
    """Seat ``p``'s observation (the env's layout, seats relative to ``p``) into the zeroed row ``obs``
    (writes only ``obs``)."""
    s = state[b]
    pr = params[0]
    n = pr.players
    off = pr.offsets
    # offsets read once: obs may alias params as far as numba knows, so an offset read in the loop is
    # reloaded after every store (measured: 80 ns against 50 for these two loops)
    at_hand, at_played = off[O_HAND], off[O_PLAYED]
    hand, played = s.hands[p], s.played
    # copied through views with unsigned indices: no negative-index wraparound to check per element
    # (measured: 139 ns against 152 for the whole observation)
    hand_out = obs[at_hand : at_hand + NUM_IDS]
    played_out = obs[at_played : at_played + NUM_IDS]
    for c in range(np.uint64(NUM_IDS)):
        hand_out[c] = hand[c]
    for c in range(np.uint64(NUM_IDS)):
        played_out[c] = played[c]
    if s.trick_on:
        for i in range(s.trick_len):
            rel = (s.trick_leader + i - p + n) % n
            obs[off[O_TRICK] + NUM_IDS * rel + s.trick_cards[i]] = 1
        if s.led_suit >= 0:
            obs[off[O_SUIT_LED] + s.led_suit] = 1
        elif s.trick_len > 0:
            obs[off[O_SUIT_LED] + 4] = 1
        obs[off[O_LEADER] + (s.trick_leader - p + n) % n] = 1
    shown = n > 2 or s.revealed
    for q in range(n):
        rel = (q - p + n) % n
        if s.direction[q] >= 0 and shown:
            obs[off[O_DECL] + 2 * rel + s.direction[q]] = 1
        obs[off[O_FORCED] + rel] = 1 if s.forced[q] else 0
        tricks = s.taken[q] + (s.captured_tricks[q] if n == 2 else 0)
        obs[off[O_TRICKS] + rel] = tricks
        obs[off[O_SCORES] + rel] = s.totals[q]
    for i in range(s.n_discards[p]):
        obs[off[O_DISCARDED] + s.discards[p, i]] += 1
    if n == 2:
        for q in range(2):
            rel = (q - p + n) % n
            for i in range(2 * s.captured_tricks[q]):
                obs[off[O_CAPTURED] + NUM_IDS * rel + s.captured[q, i]] += 1
    if 0 <= s.phase < 6:
        obs[off[O_PHASE] + s.phase] = 1
    obs[off[O_FIRST] + (s.first - p + n) % n] = 1
    if n == 2:
        if s.bids[p] >= 0:
            obs[off[O_OWN_BID] + s.bids[p]] = 1
        other = 1 - p
        # the dealer's bid is hidden until the responder has bid; the responder's is open
        if s.bids[other] >= 0 and (other != s.first or s.revealed):
            obs[off[O_OPP_BID] + s.bids[other]] = 1
    obs[off[O_TRICK_NUMBER]] = s.trick_no


# ---------------------------------------------------------------- helpers for people and tests (Python)
def _counts_to_ids(counts) -> np.ndarray:
    return np.repeat(np.arange(NUM_IDS), np.asarray(counts, dtype=np.int64))


def stock_cards(record) -> np.ndarray:
    """The stock of one game, top first."""
    return np.asarray(record["stock"][record["stock_head"] : record["stock_end"]], dtype=np.int64)


def captured_cards(record, q: int) -> np.ndarray:
    """The stock cards seat ``q`` captured this hand (duels)."""
    return np.asarray(record["captured"][q][: 2 * record["captured_tricks"][q]], dtype=np.int64)


def trick_cards(record) -> np.ndarray:
    """The cards of the trick on the table, in play order."""
    if not record["trick_on"]:
        return np.zeros(0, dtype=np.int64)
    return np.asarray(record["trick_cards"][: record["trick_len"]], dtype=np.int64)


def card_locations(record) -> np.ndarray:
    """Every card of one game wherever it is: hands, stock, finished tricks, the trick on the table,
    captured stock cards."""
    n = int(record["players"])
    parts = [_counts_to_ids(record["hands"][q]) for q in range(MAX_PLAYERS)]
    parts.append(stock_cards(record))
    parts.append(np.asarray(record["taken_cards"][: record["trick_no"] * n], dtype=np.int64))
    parts.append(trick_cards(record))
    parts += [captured_cards(record, q) for q in range(2)]
    return np.concatenate(parts)
