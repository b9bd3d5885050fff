"""Guandan plays: the rank-pattern table built from the rules, the numba move generator and the suit decisions.

Cards are :mod:`cardenvs.core.cards` ids (``4 * rank + suit``, ranks 2..A, suits S C D H; 52 = ``BJ``,
53 = ``RJ``); a hand is ``int8[54]`` counts (two decks: 0..2 copies of a card). ``level`` is a natural rank
index 0..12 (0 = two); the two copies of the level rank's heart (card ``4 * level + 3``) are the wilds, every
other card is *natural*. Patterns count natural cards by rank index: 0..12 the natural ranks, 13 ``BJ``, 14 ``RJ``.

## The plays and the readings implemented here

| kind (tag) | size | key |
|---|---|---|
| single, pair, triple | 1, 2, 3 | the rank, in card order |
| full house (``fh``) | 5 | the triple's rank |
| straight, tube, plate | 5, 6, 6 | the top card's natural rank (A-2-3-4-5 tops at the 5) |
| bomb | 4..10 | size, then the rank in card order |
| straight flush (``sf``) | 5 | the top card, as a straight |
| the four jokers (``jokers``) | 4 | - |

* Rule 5: card order 2 < ... < A < the level rank < ``BJ`` < ``RJ`` (singles to bombs); equal never beats.
* Rule 6: sequences in natural order, the level rank in its natural place, the ace high or low (A-2-3-4-5,
  A-A-2-2-3-3, A-A-A-2-2-2), no wrap (K-A-2 is not consecutive). R13: 2-3-4-5-6 is an ordinary straight.
* Rule 7 and R14: a wild stands for any card but a joker, itself included (``7H`` in a heart straight flush at
  level 7). Wilds standing for nothing else, a lone wild or two wilds as a pair, are level cards: their
  patterns have the key ``LEVEL_KEY`` ("the level rank", whichever it is) and are never a lower card.
* Rule 9: jokers are singles, like pairs, a full house's like pair (R1: ``FLAG_JOKER_FULLHOUSE``, on by
  default) and the four jokers; never three jokers, ``BJ RJ``, or a wild with a joker.
* Rule 10 and R15: five of a rank (natural, or completed by wilds) are a bomb, never a full house; a triple with
  two wilds is both a five-bomb and a full house (the wilds a pair of anything).
* Rule 11 and R2: five in a row whose natural cards are all of one suit are a straight flush (the wilds take
  that suit) and not a straight; natural cards of two suits or more make a straight. ``FLAG_SF_AS_STRAIGHT``
  (off by default) lets a straight flush also be played as a straight.
* Rule 12: a card set with wilds may read several ways (``8S 8D 9S 9D 2H`` at level 2: full house of 8s or of
  9s); every reading is its own pattern, hence its own action.
* Rule 13: same kind and a higher key, or a bomb that outranks: 4 < 5 of a kind < straight flush < 6 < ... < 10
  of a kind < the four jokers; straight flushes by top card, suits never break a tie.

``flags``: bit 0 ``FLAG_JOKER_FULLHOUSE`` (R1), bit 1 ``FLAG_SF_AS_STRAIGHT`` (R2); ``DEFAULT_FLAGS`` = bit 0.

## The encoding: rank patterns, then suit decisions

Exact moves (cards by rank and suit + reading) number 1,064,806 over all levels, 131,584 to 134,452 at one
level: too many for a dense mask. Readings alone (kind, key, flush suit: 223) say too little. The middle is the
**rank pattern**: the reading, the natural card counts by rank and the number of wilds (``PAT_*`` tables),
built here from the rules over all levels. **2,188 patterns** (871 full houses, 640 straight flushes, 234
bombs, 160 straights, 120 tubes, 78 plates, 39 triples, 29 pairs, 16 singles, the four jokers); at one level
2,127 (levels 5..T) to 2,160 (levels 2, K, A) can be played: level L has no bomb of seven or eight natural Ls
(six non-heart cards) and no heart straight flush holding a natural heart L. RULES.md counts 2,212 over all
levels and the same 2,127-2,160 at one level: it keys the lone wild and the wild pair by the level's rank (13 x 2
patterns) where this table has one of each (``LEVEL_KEY``), 24 fewer.

A pattern leaves open which suits the natural cards of a rank take (a straight flush's suit is its own). Those
are **suit decisions** of the same seat, rank by rank from the lowest open one: "take cS spades, cC clubs, cD
diamonds and cH hearts of this rank", code ``cS + 3 cC + 9 cD + 27 cH`` (81 codes). A rank with one legal suit
vector is fixed without a decision; the mask offers only vectors that can still end in a legal play (a
straight's natural cards in two suits at least unless R2's flag; the level rank's hearts are wilds, never
natural). So every legal play, exact cards and reading, has exactly one action path, and no illegal play has
one: unlike a table whose engine picks the suits, no play (a straight flush's suits spent elsewhere) is lost.

Action ids, one ``Discrete(NUM_ACTIONS)``: patterns ``0 .. NUM_PATTERNS - 1``; ``PASS``; ``CARD0 + card`` (54
card actions, for tribute and return); ``SUIT0 + code`` (81 suit codes). ``NUM_ACTIONS`` = 2,324, the widest
mask.

Measured, leading with 27 cards over 2,000 deals x 4 hands at a random level, default flags (the tests print
it): patterns per hand max 760, mean 162, median 78, 99th percentile 624; exact plays max 5,312, mean 755,
median 463, 99th percentile 2,749. RULES.md's table (other deals): 782 / 163 / 78 / 622 patterns, 6,070 / 754
/ 465 / 2,691 moves (4,504 exact card sets).

## The generator

A hand and each pattern are three ``int64`` words, so "the hand holds what the pattern needs" is
``need & ~have == 0`` on each: A has bit ``16 (k - 1) + r`` when rank index ``r`` has at least ``k`` natural cards
(k = 1..4; the wilds as rank 15), B the same for k = 5..8, C bit ``16 suit + rank`` for a straight flush's
cards. The table is sorted into a tree: keys (kind, key, flush suit), strength groups (+ size: one strength at
any level, so following looks only at the stronger groups of the kind to beat, and at the bombs), blocks (+
wilds and the key rank's natural count), patterns. A node with several children is skipped when the hand lacks
what all its patterns need (the AND of their words) or holds fewer of their cards (popcount over the OR) than
the smallest needs; blocks come by wilds, so the first block needing more wilds than the hand holds ends its
group. A straight is refused when the hand holds each of its natural ranks in one suit only, the same for all
(rule 11). ``legal_patterns`` takes about 3 microseconds for a leading 27-card hand and 1 for a following one.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from numba import njit

from cardenvs.core.cards import BLACK_JOKER, RANKS, RED_JOKER, SUITS, card_code, parse_cards

from .patterns import (
    ACE,
    BLACK,
    BLACK_ORDER,
    BLOCK_END,
    BLOCK_FILTERED,
    BLOCK_START,
    BLOCKS,
    BOMB,
    CODES_OF_TOTAL,
    CODES_OF_TOTAL_COUNT,
    COLUMN_A,
    COLUMN_B,
    DEFAULT_FLAGS,
    FILTER_MIN_BITS,
    FILTER_NEED,
    FILTER_SUPPORT,
    FIRST_BOMB_KIND,
    FLAG_JOKER_FULLHOUSE,
    FLAG_SF_AS_STRAIGHT,
    GROUP_END_BLOCK,
    GROUP_FILTERED,
    GROUP_FIRST_BLOCK,
    GROUP_START,
    GROUPS,
    HEARTS,
    JOKER_PAIR_BIT,
    JOKERS,
    JOKERS_TIER,
    KEY_END_GROUP,
    KEY_FILTERED,
    KEY_FIRST_GROUP,
    KEYS,
    KIND_KEY_START,
    KIND_NAMES,
    LEVEL_KEY,
    LEVEL_ORDER,
    NUM_CARDS,
    NUM_KEYS,
    NUM_KINDS,
    NUM_NATURAL_RANKS,
    NUM_PATTERNS,
    NUM_RANK_INDEX,
    NUM_SUIT_CODES,
    NUM_SUITS,
    ORDER_SPAN,
    PASS,
    PAT_JOKER_PAIR,
    PAT_KEY,
    PAT_KIND,
    PAT_NATURAL,
    PAT_NEED_A,
    PAT_NEED_B,
    PAT_NEED_C,
    PAT_RANK_MASK,
    PAT_SIZE,
    PAT_SUIT,
    PAT_WILDS,
    PLANE,
    PLATE,
    RANK_NAMES,
    RED,
    RED_ORDER,
    SF_TIER,
    STRAIGHT,
    STRAIGHT_FLUSH,
    SUIT_CODE_COUNTS,
    SUIT_SPREAD,
    TIER_OF_BOMB_SIZE,
    TUBE,
    WILD_BIT,
)
from .patterns import (
    BOMB_MAX as BOMB_MAX,
)
from .patterns import (
    BOMB_MIN as BOMB_MIN,
)
from .patterns import (
    CARD0 as CARD0,
)
from .patterns import (
    DECKS as DECKS,
)
from .patterns import (
    FULLHOUSE as FULLHOUSE,
)
from .patterns import (
    MAX_WILDS as MAX_WILDS,
)
from .patterns import (
    NUM_ACTIONS as NUM_ACTIONS,
)
from .patterns import (
    PAIR as PAIR,
)
from .patterns import (
    PATTERN_ID as PATTERN_ID,
)
from .patterns import (
    RUN_ORDER as RUN_ORDER,
)
from .patterns import (
    SINGLE as SINGLE,
)
from .patterns import (
    SUIT0 as SUIT0,
)
from .patterns import (
    SUIT_BASE as SUIT_BASE,
)
from .patterns import (
    TRIPLE as TRIPLE,
)


# ---------------------------------------------------------------------------------------------- order
@njit(cache=True, inline="always")
def card_order(rank: int, level: int) -> int:
    """Rule 5's order of a rank index (or LEVEL_KEY) at ``level``: 2 .. A, then the level rank, BJ, RJ."""
    if rank == level or rank == LEVEL_KEY:
        return LEVEL_ORDER
    if rank == BLACK:
        return BLACK_ORDER
    if rank == RED:
        return RED_ORDER
    return rank


@njit(cache=True, inline="always")
def _strength(kind: int, key: int, size: int, level: int) -> int:
    if kind == STRAIGHT or kind == TUBE or kind == PLATE:
        return key  # rule 6: the top card's natural rank
    if kind == STRAIGHT_FLUSH:
        return SF_TIER * ORDER_SPAN + key
    if kind == JOKERS:
        return JOKERS_TIER * ORDER_SPAN
    if kind == BOMB:
        return TIER_OF_BOMB_SIZE[size] * ORDER_SPAN + card_order(key, level)
    return card_order(key, level)


@njit(cache=True)
def strength(pid: int, level: int) -> int:
    """Pattern ``pid``'s order at ``level`` among plays of its kind; bombs (bomb, sf, jokers) share one scale
    (rule 13's ladder: 4 < 5 < straight flush < 6 < ... < 10 < four jokers)."""
    return _strength(PAT_KIND[pid], PAT_KEY[pid], PAT_SIZE[pid], level)


@njit(cache=True)
def beats(a: int, b: int, level: int) -> bool:
    """Rule 13: whether pattern ``a`` beats pattern ``b`` on the table at ``level``."""
    if PAT_KIND[a] >= FIRST_BOMB_KIND:
        return PAT_KIND[b] < FIRST_BOMB_KIND or strength(a, level) > strength(b, level)
    return PAT_KIND[a] == PAT_KIND[b] and strength(a, level) > strength(b, level)


# ---------------------------------------------------------------------------------------------- the generator
@njit(cache=True, inline="always")
def _popcount(x: int) -> int:
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return ((x * 0x0101010101010101) >> 56) & 0xFF


@njit(cache=True, inline="always")
def _hand_words(hand: np.ndarray, level: int) -> tuple[int, int, int, int]:
    """The hand's words A, B, C (see PAT_NEED_A) and, for straights, bit 16 * suit + rank set when ``suit`` is
    the only suit the hand holds of natural rank ``rank``."""
    wild = NUM_SUITS * level + HEARTS
    wilds = hand[wild]
    a = COLUMN_A[wilds] << WILD_BIT
    b = 0
    c = 0
    only = 0
    for rank in range(NUM_NATURAL_RANKS):
        first = NUM_SUITS * rank
        n = 0
        held = 0  # bit per suit
        for suit in range(NUM_SUITS):
            k = hand[first + suit]
            n += k
            held |= (k > 0) << suit
        if rank == level:  # the level rank's hearts are wilds
            n -= wilds
            held &= ~((wilds > 0) << HEARTS)
        a |= COLUMN_A[n] << rank
        b |= COLUMN_B[n] << rank
        spread = SUIT_SPREAD[held] << rank
        c |= spread
        only |= spread * (held & (held - 1) == 0)
    a |= (COLUMN_A[hand[BLACK_JOKER]] << BLACK) | (COLUMN_A[hand[RED_JOKER]] << RED)
    return a, b, c, only


@njit(cache=True, inline="always")
def _skip(table: int, row: int, a: int, b: int, c: int) -> bool:
    """Whether a hand with words a, b, c can skip node ``row`` of filter ``table`` (KEYS, GROUPS, BLOCKS)."""
    need = FILTER_NEED[table]
    if (need[row, 0] & ~a) | (need[row, 1] & ~b) | (need[row, 2] & ~c):
        return True
    support = FILTER_SUPPORT[table]
    held = _popcount(support[row, 0] & a) + _popcount(support[row, 1] & b) + _popcount(support[row, 2] & c)
    return held < FILTER_MIN_BITS[table][row]


@njit(cache=True, inline="always")
def _scan_block(block: int, a: int, b: int, c: int, only: int, flags: int, out: np.ndarray, n: int) -> int:
    start, end = BLOCK_START[block], BLOCK_END[block]
    if PAT_KIND[start] == STRAIGHT and not flags & FLAG_SF_AS_STRAIGHT:
        for p in range(start, end):
            if (PAT_NEED_A[p] & ~a) | (PAT_NEED_B[p] & ~b):
                continue
            # rule 11: naturals the hand holds in one suit only, the same for every rank, are a flush
            forced = False
            for suit in range(NUM_SUITS):
                if PAT_RANK_MASK[p] & ~(only >> (PLANE * suit)) == 0:
                    forced = True
            if not forced:
                out[n] = p
                n += 1
        return n
    for p in range(start, end):  # branch-free: write every id, keep the playable ones
        out[n] = p
        n += ((PAT_NEED_A[p] & ~a) | (PAT_NEED_B[p] & ~b) | (PAT_NEED_C[p] & ~c)) == 0
    return n


@njit(cache=True, inline="always")
def _scan_key(
    key: int, level: int, floor: int, wilds: int, a: int, b: int, c: int, only: int, flags: int, out: np.ndarray, n: int
) -> int:
    """Append the playable patterns of key node ``key`` stronger than ``floor`` (-1: all) to ``out[n:]``; returns
    the new length. Blocks come by wilds: one needing more wilds than the hand holds ends its group."""
    if KEY_FILTERED[key] and _skip(KEYS, key, a, b, c):
        return n
    for g in range(KEY_FIRST_GROUP[key], KEY_END_GROUP[key]):
        if floor >= 0 and strength(GROUP_START[g], level) <= floor:
            continue
        if GROUP_FILTERED[g] and _skip(GROUPS, g, a, b, c):
            continue
        for block in range(GROUP_FIRST_BLOCK[g], GROUP_END_BLOCK[g]):
            if PAT_WILDS[BLOCK_START[block]] > wilds:
                break
            if BLOCK_FILTERED[block] and _skip(BLOCKS, block, a, b, c):
                continue
            n = _scan_block(block, a, b, c, only, flags, out, n)
    return n


@njit(cache=True)
def legal_patterns(hand: np.ndarray, level: int, to_beat: int, flags: int, out: np.ndarray) -> int:
    """Write the ascending ids of the patterns ``hand`` (int8[54] counts) can play at ``level`` that beat pattern
    ``to_beat`` (-1: leading, anything) into ``out``; return how many. Pure (writes ``out`` only)."""
    a, b, c, only = _hand_words(hand, level)
    if flags & FLAG_JOKER_FULLHOUSE:
        c |= JOKER_PAIR_BIT
    wilds = hand[NUM_SUITS * level + HEARTS]
    n = 0
    if to_beat < 0:
        for key in range(NUM_KEYS):
            n = _scan_key(key, level, -1, wilds, a, b, c, only, flags, out, n)
        return n
    kind = PAT_KIND[to_beat]
    floor = strength(to_beat, level)
    if kind < FIRST_BOMB_KIND:
        for key in range(KIND_KEY_START[kind], KIND_KEY_START[kind + 1]):
            n = _scan_key(key, level, floor, wilds, a, b, c, only, flags, out, n)
        floor = -1  # any bomb beats it
    for key in range(KIND_KEY_START[FIRST_BOMB_KIND], NUM_KEYS):
        n = _scan_key(key, level, floor, wilds, a, b, c, only, flags, out, n)
    return n


# ---------------------------------------------------------------------------------------------- suit decisions
@njit(cache=True)
def _open_rank(pid: int, level: int, chosen: np.ndarray) -> int:
    """The lowest natural rank of ``pid`` whose cards ``chosen`` does not hold yet (-1: none)."""
    wild = NUM_SUITS * level + HEARTS
    for rank in range(NUM_NATURAL_RANKS):
        need = PAT_NATURAL[pid, rank]
        if need == 0:
            continue
        have = 0
        for suit in range(NUM_SUITS):
            card = NUM_SUITS * rank + suit
            if card != wild:
                have += chosen[card]
        if have < need:
            return rank
    return -1


@njit(cache=True)
def apply_suit_choice(pid: int, level: int, chosen: np.ndarray, code: int) -> int:
    """Add suit vector ``code`` (cS + 3 cC + 9 cD + 27 cH) at pattern ``pid``'s next open rank to ``chosen``
    (in place); returns that rank (-1: the play was complete, nothing written)."""
    rank = _open_rank(pid, level, chosen)
    if rank >= 0:
        for suit in range(NUM_SUITS):
            chosen[NUM_SUITS * rank + suit] += SUIT_CODE_COUNTS[code, suit]
    return rank


@njit(cache=True)
def _suit_ok(hand: np.ndarray, pid: int, level: int, flags: int, chosen: np.ndarray, rank: int, code: int) -> bool:
    wild = NUM_SUITS * level + HEARTS
    total = 0
    for suit in range(NUM_SUITS):
        k = SUIT_CODE_COUNTS[code, suit]
        card = NUM_SUITS * rank + suit
        if k > (0 if card == wild else hand[card]):
            return False
        total += k
    if total != PAT_NATURAL[pid, rank]:
        return False
    kind = PAT_KIND[pid]
    if kind == STRAIGHT_FLUSH:
        return SUIT_CODE_COUNTS[code, PAT_SUIT[pid]] == total
    if kind == STRAIGHT and not flags & FLAG_SF_AS_STRAIGHT:
        # rule 11: the naturals must end in two suits or more
        mine = 0
        for suit in range(NUM_SUITS):
            if SUIT_CODE_COUNTS[code, suit]:
                mine = suit
        for other in range(NUM_NATURAL_RANKS):
            if other == rank or PAT_NATURAL[pid, other] == 0:
                continue
            for suit in range(NUM_SUITS):
                card = NUM_SUITS * other + suit
                if suit != mine and card != wild and (chosen[card] if other < rank else hand[card]) > 0:
                    return True
        return False
    return True


@njit(cache=True)
def next_suit_choice(hand: np.ndarray, pid: int, level: int, flags: int, chosen: np.ndarray, out: np.ndarray) -> int:
    """Write the legal suit codes for pattern ``pid``'s next open rank to ``out`` (ascending); return how many.
    Ranks with one legal suit vector (and the jokers) are fixed in ``chosen`` on the way (in place). Returns 0
    when the play is complete: ``chosen`` then holds its exact cards, the wild copies included."""
    wild = NUM_SUITS * level + HEARTS
    while True:
        rank = _open_rank(pid, level, chosen)
        if rank < 0:
            break
        n = 0
        total = PAT_NATURAL[pid, rank]
        for i in range(CODES_OF_TOTAL_COUNT[total]):
            code = CODES_OF_TOTAL[total, i]
            if _suit_ok(hand, pid, level, flags, chosen, rank, code):
                out[n] = code
                n += 1
        if n != 1:
            return n  # 0 only for a pattern the hand cannot play
        apply_suit_choice(pid, level, chosen, out[0])
    chosen[BLACK_JOKER] = PAT_NATURAL[pid, BLACK]
    chosen[RED_JOKER] = PAT_NATURAL[pid, RED]
    chosen[wild] = PAT_WILDS[pid]
    return 0


@njit(cache=True)
def count_plays(hand: np.ndarray, pid: int, level: int, flags: int) -> int:
    """How many exact plays (action paths) pattern ``pid`` has from ``hand``: the leaves of its suit decisions."""
    depth_max = NUM_KINDS  # more than the natural ranks of any pattern
    stack = np.zeros((depth_max, NUM_CARDS), dtype=np.int8)
    codes = np.zeros((depth_max, NUM_SUIT_CODES), dtype=np.int64)
    size = np.zeros(depth_max, dtype=np.int64)
    at = np.zeros(depth_max, dtype=np.int64)
    size[0] = next_suit_choice(hand, pid, level, flags, stack[0], codes[0])
    if size[0] == 0:
        return 1
    total = 0
    depth = 0
    while depth >= 0:
        if at[depth] == size[depth]:
            depth -= 1
            continue
        stack[depth + 1] = stack[depth]
        apply_suit_choice(pid, level, stack[depth + 1], codes[depth, at[depth]])
        at[depth] += 1
        n = next_suit_choice(hand, pid, level, flags, stack[depth + 1], codes[depth + 1])
        if n == 0:
            total += 1
        else:
            depth += 1
            size[depth] = n
            at[depth] = 0
    return total


# ---------------------------------------------------------------------------------------------- names
def _key_name(key: int, level: int | None) -> str:
    if key == LEVEL_KEY:
        return "L" if level is None else RANKS[level]
    return RANK_NAMES[key]


def pattern_name(pid: int) -> str:
    """``"fh9 999BJBJ"``, ``"sfHT 6789+2w"``: the reading (tag, key, flush suit), the natural ranks, the wilds
    (``L`` keys the wild-only level cards)."""
    if not 0 <= pid < NUM_PATTERNS:
        raise ValueError(f"bad pattern id {pid}: patterns are 0..{NUM_PATTERNS - 1}")
    suit = SUITS[PAT_SUIT[pid]] if PAT_SUIT[pid] >= 0 else ""
    ranks = "".join(RANK_NAMES[r] * int(n) for r, n in enumerate(PAT_NATURAL[pid]))
    wilds = f"+{PAT_WILDS[pid]}w" if PAT_WILDS[pid] else ""
    return f"{KIND_NAMES[PAT_KIND[pid]]}{suit}{_key_name(int(PAT_KEY[pid]), None)} {ranks or '-'}{wilds}"


def _counts(cards: Iterable[int]) -> np.ndarray:
    counts = np.zeros(NUM_CARDS, dtype=np.int8)
    for card in cards:
        if not 0 <= int(card) < NUM_CARDS:
            raise ValueError(f"bad card id {card}: Guandan's cards are 0..{NUM_CARDS - 1}")
        counts[int(card)] += 1
    return counts


_BY_RANKS: dict[tuple[bytes, int], list[int]] = {}
for _p in range(NUM_PATTERNS):
    _BY_RANKS.setdefault((PAT_NATURAL[_p].tobytes(), int(PAT_WILDS[_p])), []).append(_p)


def readings(cards: Iterable[int], level: int, flags: int = DEFAULT_FLAGS) -> list[int]:
    """The patterns that the exact cards ``cards`` (ids, copies repeated) are at ``level``: one per reading."""
    counts = _counts(cards)
    wild = NUM_SUITS * level + HEARTS
    naturals = np.zeros(NUM_RANK_INDEX, dtype=np.int8)
    suits = set()
    for card in np.flatnonzero(counts):
        if card != wild:
            naturals[BLACK + card - BLACK_JOKER if card >= BLACK_JOKER else card // NUM_SUITS] += counts[card]
            suits.add(card % NUM_SUITS if card < BLACK_JOKER else -1)
    out = []
    for p in _BY_RANKS.get((naturals.tobytes(), int(counts[wild])), []):
        if PAT_JOKER_PAIR[p] and not flags & FLAG_JOKER_FULLHOUSE:
            continue
        if PAT_KIND[p] == STRAIGHT_FLUSH and suits != {int(PAT_SUIT[p])}:
            continue
        if PAT_KIND[p] == STRAIGHT and len(suits) == 1 and not flags & FLAG_SF_AS_STRAIGHT:
            continue
        out.append(p)
    return out


def _ordered(cards: Iterable[int], pid: int, level: int) -> list[int]:
    """Natural cards low to high (an A-low sequence's aces first), then the wilds."""
    wild = NUM_SUITS * level + HEARTS
    sequence = PAT_KIND[pid] in (STRAIGHT, TUBE, PLATE, STRAIGHT_FLUSH)
    low_ace = sequence and PAT_KEY[pid] < ACE and PAT_NATURAL[pid, ACE] > 0

    def place(card: int) -> tuple[int, int]:
        if card == wild:
            return (1, 0)
        return (0, -1 if low_ace and card // NUM_SUITS == ACE else card)

    return sorted((int(c) for c in cards), key=place)


def move_name(cards: Iterable[int], pid: int, level: int, flags: int = DEFAULT_FLAGS) -> str:
    """Rule 34: the card codes, then ``=tag`` + key rank when the cards have more than one reading at ``level``
    (``5S 6S 7S 8S 7H=sf9``)."""
    cards = list(cards)
    options = readings(cards, level, flags)
    if pid not in options:
        raise ValueError(
            f"cards {' '.join(card_code(c) for c in cards)} are not a {pattern_name(pid)} at level {RANKS[level]}"
        )
    text = " ".join(card_code(c) for c in _ordered(cards, pid, level))
    if len(options) > 1:
        text += f"={KIND_NAMES[PAT_KIND[pid]]}{_key_name(int(PAT_KEY[pid]), level)}"
    return text


def parse_move(text: str, hand: np.ndarray, level: int, flags: int = DEFAULT_FLAGS) -> tuple[int, tuple[int, ...]]:
    """``"8S 8D 9S 9D 7H=fh8"`` -> (pattern id, exact card ids sorted); ``"pass"`` -> (PASS, ()). The cards must
    be in ``hand`` (int8[54] counts) and a play at ``level``; a card set with several readings needs its tag."""
    if text.strip().lower() == "pass":
        return PASS, ()
    cards_text, _, tag = text.partition("=")
    cards = parse_cards(cards_text)
    if not cards:
        raise ValueError(f"move {text!r} names no cards")
    counts = _counts(cards)
    short = [card_code(int(c)) for c in np.flatnonzero(counts > np.asarray(hand)[:NUM_CARDS])]
    if short:
        raise ValueError(f"move {text!r}: the hand does not hold {' '.join(short)} (as many times as named)")
    options = readings(cards, level, flags)
    if not options:
        raise ValueError(f"move {text!r} is no play at level {RANKS[level]}")
    tag = tag.strip().lower()
    if tag:
        options = [p for p in options if f"{KIND_NAMES[PAT_KIND[p]]}{_key_name(int(PAT_KEY[p]), level)}".lower() == tag]
        if not options:
            raise ValueError(f"move {text!r}: the cards have no reading {tag!r} at level {RANKS[level]}")
    elif len(options) > 1:
        names = ", ".join(move_name(cards, p, level, flags) for p in options)
        raise ValueError(f"move {text!r} has {len(options)} readings; name one: {names}")
    return options[0], tuple(sorted(int(c) for c in cards))


def exact_plays(
    hand: np.ndarray, level: int, to_beat: int = -1, flags: int = DEFAULT_FLAGS
) -> list[tuple[int, tuple[int, ...]]]:
    """Every legal play as (pattern id, exact card ids sorted), found by walking the action tree: each pattern
    of :func:`legal_patterns`, then every suit decision :func:`next_suit_choice` offers."""
    hand = np.asarray(hand, dtype=np.int8)
    ids = np.empty(NUM_PATTERNS, dtype=np.int64)
    codes = np.empty(NUM_SUIT_CODES, dtype=np.int64)
    plays: list[tuple[int, tuple[int, ...]]] = []

    def walk(pid: int, chosen: np.ndarray) -> None:
        n = next_suit_choice(hand, pid, level, flags, chosen, codes)
        if n == 0:
            plays.append((pid, tuple(int(c) for c in np.repeat(np.arange(NUM_CARDS), chosen))))
            return
        for code in codes[:n].copy():
            branch = chosen.copy()
            apply_suit_choice(pid, level, branch, int(code))
            walk(pid, branch)

    for pid in ids[: legal_patterns(hand, level, to_beat, flags, ids)]:
        walk(int(pid), np.zeros(NUM_CARDS, dtype=np.int8))
    return plays
