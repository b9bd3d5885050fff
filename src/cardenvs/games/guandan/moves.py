"""Guandan plays: the rank-pattern table built from the rules, the numba move generator, suit decisions, names.

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

Exact moves (cards by rank and suit + reading) number 131,584 to 134,452 at one level (the tests count them
from the whole deck; RULES.md: 1,064,806 over all levels): too many for a dense mask. Readings alone (kind, key,
flush suit, a bomb's size: 223 over all levels) say too little. The middle is the
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
the first two rows; 56% of the hands hold no wild, 38% one, 6% both), max / mean / median / 99th percentile:

| counted as | here | RULES.md (other deals) |
|---|---|---|
| rank patterns (``legal_patterns``) | 760 / 162 / 78 / 624 | 782 / 163 / 78 / 622 |
| exact plays: cards + reading (``exact_plays``) | 5,312 / 755 / 463 / 2,749 | 6,070 / 754 / 465 / 2,691 |
| exact card sets, readings merged | 3,950 / 649 / 460 / 2,062 | 4,504 / 648 / 462 / 2,021 |
| readings (kind, key, flush suit, bomb size) | 112 / 56 / 46 / 105 | 114 / 55 / 46 / 102 |

## The generator

A hand and each pattern are three ``int64`` words, so "the hand holds what the pattern needs" is
``need & ~have == 0`` on each: A has bit ``16 (k - 1) + r`` when rank index ``r`` has at least ``k`` natural cards
(k = 1..4; the wilds as rank 15), B the same for k = 5..8, C bit ``16 suit + rank`` for a straight flush's
cards (and one bit for R1's flag). The table is sorted into a tree: keys (kind, key, flush suit), strength groups
(+ size: one strength at any level, so following looks only at the stronger groups of the kind to beat, and at
the bombs), blocks (+ wilds and the key rank's natural count), patterns. A node is skipped when the hand lacks
what all its patterns need (the AND of their words) or holds fewer of their cards (popcount over the OR) than
the smallest needs; the keys are filtered without branches, a word of them at a time; blocks come by wilds, so
the first block needing more wilds than the hand holds ends its group; a block's patterns are checked without
branches. A straight is refused when the hand holds each of its natural ranks in one suit only, the same for all
(rule 11). ``legal_patterns`` takes about 1.6 microseconds for a leading 27-card hand and 0.6 for a following
one; a suit decision (``next_suit_choice``) about 0.25 (one core, numba loop, a busy machine).

## Helpers

``count_plays`` (numba) counts a pattern's exact plays. For people and tests, in Python: ``readings`` (every
pattern an exact card set is at a level), ``pattern_name``, ``move_name`` and ``parse_move`` (rule 34: the card
codes, then ``=tag`` + key rank when the cards have more than one reading, ``5S 6S 7S 8S 7H=sf9``) and
``exact_plays`` (every legal play, by walking the action tree).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from cardenvs.core.cards import BLACK_JOKER, RANKS, RED_JOKER, SUITS, card_code, parse_cards

# ---------------------------------------------------------------------------------------------- the deck
NUM_NATURAL_RANKS = len(RANKS)  # 2 .. A
ACE = NUM_NATURAL_RANKS - 1
BLACK, RED = NUM_NATURAL_RANKS, NUM_NATURAL_RANKS + 1  # rank indices of BJ and RJ
NUM_RANK_INDEX = NUM_NATURAL_RANKS + 2
LEVEL_KEY = NUM_RANK_INDEX  # the key of the wild-only plays: "the level rank", whatever it is
NUM_SUITS = len(SUITS)
HEARTS = SUITS.index("H")
DECKS = 2  # copies of every card
MAX_WILDS = DECKS  # the two hearts of the level rank (rule 7)
NUM_CARDS = RED_JOKER + 1  # card ids 0..53
MAX_NATURAL = DECKS * NUM_SUITS  # cards of one natural rank
BOMB_MIN = 4
BOMB_MAX = MAX_NATURAL + MAX_WILDS  # ten of a kind (rule 8)
RUN_ORDER = [ACE, *range(NUM_NATURAL_RANKS)]  # rule 6: natural order, the ace also below the two; no wrap
RANK_NAMES = [*RANKS, "BJ", "RJ"]

# ---------------------------------------------------------------------------------------------- kinds
KIND_NAMES = ("single", "pair", "triple", "fh", "straight", "tube", "plate", "bomb", "sf", "jokers")
SINGLE, PAIR, TRIPLE, FULLHOUSE, STRAIGHT, TUBE, PLATE, BOMB, STRAIGHT_FLUSH, JOKERS = range(len(KIND_NAMES))
NUM_KINDS = len(KIND_NAMES)
FIRST_BOMB_KIND = BOMB  # bombs, straight flushes and the four jokers close the table
OF_A_RANK = {SINGLE: 1, PAIR: 2, TRIPLE: 3}  # kind -> cards of one rank
SEQUENCES = {STRAIGHT: (5, 1), TUBE: (3, 2), PLATE: (2, 3)}  # kind -> (ranks in the run, cards a rank)
# rule 13's bomb ladder from the weakest: (kind, size); size 0 for the kinds of one size
BOMB_LADDER = [(BOMB, 4), (BOMB, 5), (STRAIGHT_FLUSH, 0)]
BOMB_LADDER += [(BOMB, size) for size in range(6, BOMB_MAX + 1)] + [(JOKERS, 0)]
TIER_OF_BOMB_SIZE = np.full(BOMB_MAX + 1, -1, dtype=np.int64)
for _tier, (_kind, _size) in enumerate(BOMB_LADDER):
    if _kind == BOMB:
        TIER_OF_BOMB_SIZE[_size] = _tier
SF_TIER = BOMB_LADDER.index((STRAIGHT_FLUSH, 0))
JOKERS_TIER = BOMB_LADDER.index((JOKERS, 0))
# card order (rule 5): 2 < ... < A < level < BJ < RJ
LEVEL_ORDER, BLACK_ORDER, RED_ORDER = NUM_NATURAL_RANKS, NUM_NATURAL_RANKS + 1, NUM_NATURAL_RANKS + 2
ORDER_SPAN = RED_ORDER + 1  # one bomb tier holds every card order

FLAG_JOKER_FULLHOUSE = 1  # R1: a like joker pair may be a full house's pair
FLAG_SF_AS_STRAIGHT = 2  # R2: a straight flush may also be played as a straight
FLAG_NO_WILDS = 4  # no wild cards: the level rank's hearts play as themselves (the no_wilds variant)
DEFAULT_FLAGS = FLAG_JOKER_FULLHOUSE


# ---------------------------------------------------------------------------------------------- the patterns
def _runs(length: int) -> list[list[int]]:
    return [RUN_ORDER[i : i + length] for i in range(len(RUN_ORDER) - length + 1)]


def _wild_splits(ranks: int, width: int) -> list[tuple[int, ...]]:
    """Ways to spread at most MAX_WILDS wilds over ``ranks`` places holding ``width`` cards each."""
    out: list[tuple[int, ...]] = [()]
    for _ in range(ranks):
        out = [s + (w,) for s in out for w in range(min(width, MAX_WILDS) + 1)]
    return [s for s in out if sum(s) <= MAX_WILDS]


def _build_patterns() -> list[tuple[int, int, int, tuple[int, ...], int]]:
    """Every (kind, key, suit, natural counts by rank index, wilds) some hand can play at some level."""
    found: set[tuple[int, int, int, tuple[int, ...], int]] = set()

    def add(kind: int, key: int, suit: int, naturals: dict[int, int], wilds: int) -> None:
        counts = [0] * NUM_RANK_INDEX
        for rank, n in naturals.items():
            counts[rank] += n
        found.add((kind, key, suit, tuple(counts), wilds))

    for kind, width in OF_A_RANK.items():
        for rank in range(NUM_NATURAL_RANKS):  # at least one natural: wild-only plays are level cards (R14)
            for wilds in range(min(width - 1, MAX_WILDS) + 1):
                add(kind, rank, -1, {rank: width - wilds}, wilds)
        if width <= DECKS:  # rule 9: a joker single, a like joker pair; never a wild with a joker
            for joker in (BLACK, RED):
                add(kind, joker, -1, {joker: width}, 0)
        if width <= MAX_WILDS:  # R14: a lone wild, two wilds as a pair
            add(kind, LEVEL_KEY, -1, {}, width)
    for triple in range(NUM_NATURAL_RANKS):  # full house: rule 8, 9 (joker pair, R1), 10 (R15)
        for pair in [*range(NUM_NATURAL_RANKS), BLACK, RED]:
            if pair == triple:
                continue  # five alike are a bomb (rule 10)
            pair_wilds = MAX_WILDS if pair < NUM_NATURAL_RANKS else 0
            for x, y in _wild_splits(2, MAX_WILDS):
                if x < 3 and y <= pair_wilds:
                    add(FULLHOUSE, triple, -1, {triple: 3 - x, pair: 2 - y}, x + y)
    for kind, (length, width) in SEQUENCES.items():
        for run in _runs(length):
            for split in _wild_splits(length, width):
                naturals = {rank: width - w for rank, w in zip(run, split, strict=True)}
                add(kind, run[-1], -1, naturals, sum(split))
                if kind == STRAIGHT:
                    for suit in range(NUM_SUITS):
                        add(STRAIGHT_FLUSH, run[-1], suit, naturals, sum(split))
    for rank in range(NUM_NATURAL_RANKS):
        for size in range(BOMB_MIN, BOMB_MAX + 1):
            for wilds in range(MAX_WILDS + 1):
                if size - wilds <= MAX_NATURAL:
                    add(BOMB, rank, -1, {rank: size - wilds}, wilds)
    add(JOKERS, RED, -1, {BLACK: DECKS, RED: DECKS}, 0)
    return sorted(found, key=lambda p: (*_block_key(p), p[3]))


def _block_key(p: tuple[int, int, int, tuple[int, ...], int]) -> tuple[int, ...]:
    """Patterns sharing (kind, key, suit, size) compare alike (a strength group); inside one, a block also shares
    the wilds and the natural cards of the key rank, so a hand lacking those skips the block at once."""
    kind, key, suit, naturals, wilds = p
    return kind, key, suit, sum(naturals) + wilds, wilds, -(naturals[key] if key < NUM_RANK_INDEX else 0)


_PATTERNS = _build_patterns()
NUM_PATTERNS = len(_PATTERNS)
PAT_KIND = np.array([p[0] for p in _PATTERNS], dtype=np.int8)
PAT_KEY = np.array([p[1] for p in _PATTERNS], dtype=np.int8)
PAT_SUIT = np.array([p[2] for p in _PATTERNS], dtype=np.int8)
PAT_NATURAL = np.array([p[3] for p in _PATTERNS], dtype=np.int8)
PAT_WILDS = np.array([p[4] for p in _PATTERNS], dtype=np.int8)
PAT_SIZE = (PAT_NATURAL.sum(axis=1) + PAT_WILDS).astype(np.int8)
PATTERN_ID = {p: i for i, p in enumerate(_PATTERNS)}
MAX_PATTERN_RANKS = int((PAT_NATURAL > 0).sum(axis=1).max())  # a straight's five

# action layout
PASS = NUM_PATTERNS
CARD0 = PASS + 1
SUIT_BASE = DECKS + 1  # a suit takes 0..DECKS cards of a rank
NUM_SUIT_CODES = SUIT_BASE**NUM_SUITS
SUIT0 = CARD0 + NUM_CARDS
NUM_ACTIONS = SUIT0 + NUM_SUIT_CODES
SUIT_CODE_COUNTS = np.array(
    [[code // SUIT_BASE**s % SUIT_BASE for s in range(NUM_SUITS)] for code in range(NUM_SUIT_CODES)], dtype=np.int8
)
# the codes taking ``total`` cards of a rank, ascending: row ``total``, CODES_OF_TOTAL_COUNT[total] of them
_CODE_TOTALS = SUIT_CODE_COUNTS.sum(axis=1)
CODES_OF_TOTAL_COUNT = np.bincount(_CODE_TOTALS, minlength=MAX_NATURAL + 1).astype(np.int64)
CODES_OF_TOTAL = np.full((MAX_NATURAL + 1, int(CODES_OF_TOTAL_COUNT.max())), -1, dtype=np.int64)
for _total in range(MAX_NATURAL + 1):
    _codes = np.flatnonzero(_CODE_TOTALS == _total)
    CODES_OF_TOTAL[_total, : _codes.size] = _codes

# ---------------------------------------------------------------------------------------------- requirement words
# A hand and a pattern's needs are three int64 words, so "the hand holds it" is (need & ~have) == 0 for each:
# A: bit 16 * (k - 1) + r when rank index r has at least k natural cards (k = 1..4), the wilds as rank 15;
# B: the same for k = 5..8; C: bit 16 * suit + rank for the natural cards a straight flush needs (suits matter
# there only), and bit 15 for a full house with a joker pair (R1's flag). Planes of 16 bits keep every word below
# 2**63 (numba's int64 arithmetic).
PLANE = 16
WILD_BIT = LEVEL_KEY  # the wilds' column
PLANES_A = 4


def _column(count: int, first_plane: int) -> int:
    return sum(1 << (PLANE * (k - first_plane)) for k in range(first_plane, first_plane + PLANES_A) if count >= k)


COLUMN_A = np.array([_column(c, 1) for c in range(MAX_NATURAL + 1)], dtype=np.int64)
COLUMN_B = np.array([_column(c, 1 + PLANES_A) for c in range(MAX_NATURAL + 1)], dtype=np.int64)

PAT_JOKER_PAIR = (PAT_KIND == FULLHOUSE) & (PAT_NATURAL[:, BLACK:].sum(axis=1) > 0)  # needs R1
JOKER_PAIR_BIT = 1 << WILD_BIT  # in word C: a hand has it when FLAG_JOKER_FULLHOUSE is on


def _need_words(p: int) -> tuple[int, int, int]:
    a = int(COLUMN_A[PAT_WILDS[p]]) << WILD_BIT
    b = 0
    c = JOKER_PAIR_BIT if PAT_JOKER_PAIR[p] else 0
    for rank in range(NUM_RANK_INDEX):
        n = int(PAT_NATURAL[p, rank])
        if PAT_KIND[p] == STRAIGHT_FLUSH:
            c |= (1 << (PLANE * int(PAT_SUIT[p]) + rank)) if n else 0
        else:
            a |= int(COLUMN_A[n]) << rank
            b |= int(COLUMN_B[n]) << rank
    return a, b, c


_NEEDS = np.array([_need_words(p) for p in range(NUM_PATTERNS)], dtype=np.int64)
PAT_NEED_A, PAT_NEED_B, PAT_NEED_C = (_NEEDS[:, i].copy() for i in range(3))
PAT_RANK_MASK = (PAT_NATURAL[:, :NUM_NATURAL_RANKS] > 0).astype(np.int64) @ (1 << np.arange(NUM_NATURAL_RANKS))


# The generator's tree over the table, each node a run of pattern ids: keys (kind, key, flush suit), their
# strength groups (+ size: one strength at any level), their blocks (see _block_key), their patterns.
def _runs_of(keys: list[tuple[int, ...]]) -> list[int]:
    return [i for i in range(len(keys)) if i == 0 or keys[i] != keys[i - 1]]


_BLOCK_STARTS = _runs_of([_block_key(p) for p in _PATTERNS])
NUM_BLOCKS = len(_BLOCK_STARTS)
BLOCK_START = np.array(_BLOCK_STARTS, dtype=np.int64)
BLOCK_END = np.array([*_BLOCK_STARTS[1:], NUM_PATTERNS], dtype=np.int64)
_GROUP_STARTS = _runs_of([_block_key(_PATTERNS[i])[:4] for i in _BLOCK_STARTS])  # as block indices
NUM_GROUPS = len(_GROUP_STARTS)
GROUP_FIRST_BLOCK = np.array(_GROUP_STARTS, dtype=np.int64)
GROUP_END_BLOCK = np.array([*_GROUP_STARTS[1:], NUM_BLOCKS], dtype=np.int64)
GROUP_START = BLOCK_START[GROUP_FIRST_BLOCK]  # the group's first pattern (its strength)
GROUP_END = BLOCK_END[GROUP_END_BLOCK - 1]
_KEY_STARTS = _runs_of([_block_key(_PATTERNS[i])[:3] for i in GROUP_START])  # as group indices
NUM_KEY_NODES = len(_KEY_STARTS)
KEY_FIRST_GROUP = np.array(_KEY_STARTS, dtype=np.int64)
KEY_END_GROUP = np.array([*_KEY_STARTS[1:], NUM_GROUPS], dtype=np.int64)
KEY_KIND = PAT_KIND[GROUP_START[KEY_FIRST_GROUP]].astype(np.int64)
KIND_KEY_START = np.array([int(np.searchsorted(KEY_KIND, k)) for k in range(NUM_KINDS + 1)], dtype=np.int64)


def _popcount_py(x: int) -> int:
    return bin(int(x)).count("1")


def _filters(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per run of patterns: what every pattern needs (AND of the words), every card any needs (OR) and the fewest
    bits one needs. A hand lacking the first, or holding fewer bits of the second than the third, skips the run."""
    runs = list(zip(starts, ends, strict=True))
    need = np.array([np.bitwise_and.reduce(_NEEDS[s:e], axis=0) for s, e in runs])
    support = np.array([np.bitwise_or.reduce(_NEEDS[s:e], axis=0) for s, e in runs])
    bits = [min(sum(_popcount_py(w) for w in _NEEDS[p]) for p in range(s, e)) for s, e in runs]
    return need, support, np.array(bits, dtype=np.int64)


KEYS, GROUPS, BLOCKS = 0, 1, 2  # the filter tables, one row per node; a node with one child skips its own filter
_FILTERS = [
    _filters(GROUP_START[KEY_FIRST_GROUP], GROUP_END[KEY_END_GROUP - 1]),
    _filters(GROUP_START, GROUP_END),
    _filters(BLOCK_START, BLOCK_END),
]
FILTER_NEED = tuple(f[0] for f in _FILTERS)
FILTER_SUPPORT = tuple(f[1] for f in _FILTERS)
FILTER_MIN_BITS = tuple(f[2] for f in _FILTERS)
KEY_FILTERED = KEY_END_GROUP - KEY_FIRST_GROUP > 1
GROUP_FILTERED = GROUP_END_BLOCK - GROUP_FIRST_BLOCK > 1
BLOCK_FILTERED = BLOCK_END - BLOCK_START > 1
WORD_BITS = 63  # keys a word of flags holds (int64, sign bit unused)
# a suit bitmask (bit per suit) spread to word C's planes: bit 16 * suit
SUIT_SPREAD = np.array(
    [sum(1 << (PLANE * suit) for suit in range(NUM_SUITS) if held >> suit & 1) for held in range(1 << NUM_SUITS)],
    dtype=np.int64,
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
def _ctpop(typingctx: Any, x: Any) -> Any:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return x(x), codegen


#: the set bits of an integer (LLVM's ctpop) in numba code: one instruction, where a bit-twiddling function
#: inlined at its nine call sites gave :func:`legal_patterns`' type inference a hundred statements more
_popcount: Any = intrinsic(_ctpop)


@njit(cache=True, inline="always")
def wild_card(level: int, flags: int) -> int:
    """The card id of the level rank's heart, the wild card at ``level`` (-1 with ``FLAG_NO_WILDS``: none)."""
    return -1 if flags & FLAG_NO_WILDS else NUM_SUITS * level + HEARTS


@njit(cache=True, inline="always")
def _hand_words(hand: np.ndarray, level: int, wild: int) -> tuple[int, int, int, int]:
    """The hand's words A, B, C (see PAT_NEED_A) and, for straights, bit 16 * suit + rank set when ``suit`` is
    the only suit the hand holds of natural rank ``rank``."""
    wilds = hand[wild] if wild >= 0 else 0
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
def _holds(key: int, a: int, b: int, c: int) -> int:
    """1 when a hand with words a, b, c passes key node ``key``'s filter, else 0, without a branch."""
    need, support = FILTER_NEED[KEYS], FILTER_SUPPORT[KEYS]
    miss = (need[key, 0] & ~a) | (need[key, 1] & ~b) | (need[key, 2] & ~c)
    held = _popcount(support[key, 0] & a) + _popcount(support[key, 1] & b) + _popcount(support[key, 2] & c)
    return int(miss == 0) & int(held >= FILTER_MIN_BITS[KEYS][key])


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
    """Append the playable patterns of key node ``key`` (which passed its filter) stronger than ``floor`` (-1: all)
    to ``out[n:]``; returns the new length. Blocks come by wilds: one needing more wilds than the hand holds ends
    its group."""
    for g in range(KEY_FIRST_GROUP[key], KEY_END_GROUP[key]):
        if floor >= 0 and strength(GROUP_START[g], level) <= floor:
            continue
        if GROUP_FILTERED[g] and KEY_FILTERED[key] and _skip(GROUPS, g, a, b, c):  # a lone group: the key's filter
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
    ``to_beat`` (-1: leading, anything) into ``out``; return how many. Pure (writes ``out`` only; ``out`` needs
    NUM_PATTERNS entries: ids past the count are scratch)."""
    wild = wild_card(level, flags)
    a, b, c, only = _hand_words(hand, level, wild)
    if flags & FLAG_JOKER_FULLHOUSE:
        c |= JOKER_PAIR_BIT
    wilds = hand[wild] if wild >= 0 else 0
    # the keys to scan: two runs, each with a strength floor (-1: any). Leading: every key. Following a non-bomb:
    # the kind's keys, then the bombs at any strength; following a bomb: the bombs. One loop compiles one scan.
    lo0, hi0, floor0, lo1, hi1, floor1 = 0, NUM_KEY_NODES, -1, 0, 0, -1
    if to_beat >= 0:
        kind = PAT_KIND[to_beat]
        floor = strength(to_beat, level)
        bombs = KIND_KEY_START[FIRST_BOMB_KIND]
        if kind < FIRST_BOMB_KIND:
            lo0, hi0, floor0, lo1, hi1 = KIND_KEY_START[kind], KIND_KEY_START[kind + 1], floor, bombs, NUM_KEY_NODES
        else:
            lo0, floor0 = bombs, floor
    n = 0
    for run in range(2):
        lo, hi, floor = (lo0, hi0, floor0) if run == 0 else (lo1, hi1, floor1)
        for base in range(lo, hi, WORD_BITS):
            # the keys of this word the hand passes, found without branches, then visited
            held = 0
            for key in range(base, min(hi, base + WORD_BITS)):
                held |= _holds(key, a, b, c) << (key - base)
            while held:
                key = base + trailing_zeros(held)  # type: ignore[call-arg]  # a numba intrinsic (cttz)
                n = _scan_key(key, level, floor, wilds, a, b, c, only, flags, out, n)
                held &= held - 1
    return n


# ---------------------------------------------------------------------------------------------- suit decisions
@njit(cache=True)
def _open_rank(pid: int, level: int, flags: int, chosen: np.ndarray) -> int:
    """The lowest natural rank of ``pid`` whose cards ``chosen`` does not hold yet (-1: none)."""
    wild = wild_card(level, flags)
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
def apply_suit_choice(pid: int, level: int, flags: int, chosen: np.ndarray, code: int) -> int:
    """Add suit vector ``code`` (cS + 3 cC + 9 cD + 27 cH) at pattern ``pid``'s next open rank to ``chosen``
    (in place); returns that rank (-1: the play was complete, nothing written)."""
    rank = _open_rank(pid, level, flags, chosen)
    if rank >= 0:
        for suit in range(NUM_SUITS):
            chosen[NUM_SUITS * rank + suit] += SUIT_CODE_COUNTS[code, suit]
    return rank


@njit(cache=True)
def _suit_ok(hand: np.ndarray, pid: int, level: int, flags: int, chosen: np.ndarray, rank: int, code: int) -> bool:
    wild = wild_card(level, flags)
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
    when the play is complete: ``chosen`` then holds its exact cards, the wild copies included (0 also when no
    vector is legal, for a pattern the hand cannot play: never one :func:`legal_patterns` lists)."""
    wild = wild_card(level, flags)
    while True:
        rank = _open_rank(pid, level, flags, chosen)
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
            return n
        apply_suit_choice(pid, level, flags, chosen, out[0])
    chosen[BLACK_JOKER] = PAT_NATURAL[pid, BLACK]
    chosen[RED_JOKER] = PAT_NATURAL[pid, RED]
    if wild >= 0:
        chosen[wild] = PAT_WILDS[pid]
    return 0


@njit(cache=True)
def count_plays(hand: np.ndarray, pid: int, level: int, flags: int) -> int:
    """How many exact plays (action paths) pattern ``pid`` has from ``hand``: the complete leaves of its suit
    decisions (0 for a pattern the hand cannot play)."""
    depth_max = MAX_PATTERN_RANKS + 1  # one decision a rank at most, and the leaf
    stack = np.zeros((depth_max, NUM_CARDS), dtype=np.int8)
    codes = np.zeros((depth_max, NUM_SUIT_CODES), dtype=np.int64)
    size = np.zeros(depth_max, dtype=np.int64)
    at = np.zeros(depth_max, dtype=np.int64)
    size[0] = next_suit_choice(hand, pid, level, flags, stack[0], codes[0])
    if size[0] == 0:
        return int(_open_rank(pid, level, flags, stack[0]) < 0)
    total = 0
    depth = 0
    while depth >= 0:
        if at[depth] == size[depth]:
            depth -= 1
            continue
        stack[depth + 1] = stack[depth]
        apply_suit_choice(pid, level, flags, stack[depth + 1], codes[depth, at[depth]])
        at[depth] += 1
        n = next_suit_choice(hand, pid, level, flags, stack[depth + 1], codes[depth + 1])
        if n == 0:
            total += _open_rank(pid, level, flags, stack[depth + 1]) < 0
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


def _check(level: int, to_beat: int = -1) -> None:
    if not 0 <= level < NUM_NATURAL_RANKS:
        raise ValueError(f"bad level {level!r}: a level is a natural rank index 0..{NUM_NATURAL_RANKS - 1} (0 = two)")
    if not -1 <= to_beat < NUM_PATTERNS:
        raise ValueError(f"bad pattern to beat {to_beat!r}: -1 (leading) or a pattern id 0..{NUM_PATTERNS - 1}")


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
    _check(level)
    counts = _counts(cards)
    wild = wild_card.py_func(level, flags)
    naturals = np.zeros(NUM_RANK_INDEX, dtype=np.int8)
    suits = set()
    for card in np.flatnonzero(counts):
        if card != wild:
            naturals[BLACK + card - BLACK_JOKER if card >= BLACK_JOKER else card // NUM_SUITS] += counts[card]
            suits.add(card % NUM_SUITS if card < BLACK_JOKER else -1)
    out = []
    for p in _BY_RANKS.get((naturals.tobytes(), int(counts[wild]) if wild >= 0 else 0), []):
        if PAT_JOKER_PAIR[p] and not flags & FLAG_JOKER_FULLHOUSE:
            continue
        if PAT_KIND[p] == STRAIGHT_FLUSH and suits != {int(PAT_SUIT[p])}:
            continue
        if PAT_KIND[p] == STRAIGHT and len(suits) == 1 and not flags & FLAG_SF_AS_STRAIGHT:
            continue
        out.append(p)
    return out


def _ordered(cards: Iterable[int], pid: int, level: int, flags: int) -> list[int]:
    """Natural cards low to high (an A-low sequence's aces first), then the wilds."""
    wild = wild_card.py_func(level, flags)
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
    text = " ".join(card_code(c) for c in _ordered(cards, pid, level, flags))
    if len(options) > 1:
        text += f"={KIND_NAMES[PAT_KIND[pid]]}{_key_name(int(PAT_KEY[pid]), level)}"
    return text


def parse_move(text: str, hand: np.ndarray, level: int, flags: int = DEFAULT_FLAGS) -> tuple[int, tuple[int, ...]]:
    """``"8S 8D 9S 9D 7H=fh8"`` -> (pattern id, exact card ids sorted); ``"pass"`` -> (PASS, ()). The cards must
    be in ``hand`` (int8[54] counts) and a play at ``level``; a card set with several readings needs its tag."""
    _check(level)
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
    _check(level, to_beat)
    hand = np.asarray(hand, dtype=np.int8)
    if hand.shape != (NUM_CARDS,) or hand.min() < 0 or hand.max() > DECKS:
        raise ValueError(f"bad hand: {NUM_CARDS} counts of 0..{DECKS} (card ids as cardenvs.core.cards), got {hand!r}")
    ids = np.empty(NUM_PATTERNS, dtype=np.int64)
    return plays_of_patterns(hand, ids[: legal_patterns(hand, level, to_beat, flags, ids)], level, flags)


def plays_of_patterns(
    hand: np.ndarray, patterns: Iterable[int], level: int, flags: int
) -> list[tuple[int, tuple[int, ...]]]:
    """The plays of the given pattern ids from ``hand`` (counts by card id), as (pattern id, exact card ids
    sorted): each pattern with every choice of suits :func:`next_suit_choice` offers, in that order (the walk
    :func:`exact_plays`, DanZero's features and the platform's move lists share)."""
    hand = np.asarray(hand[:NUM_CARDS], dtype=np.int8)
    codes = np.empty(NUM_SUIT_CODES, dtype=np.int64)
    plays: list[tuple[int, tuple[int, ...]]] = []

    def walk(pid: int, chosen: np.ndarray) -> None:
        n = next_suit_choice(hand, pid, level, flags, chosen, codes)
        if n == 0:
            plays.append((pid, tuple(int(c) for c in np.repeat(np.arange(NUM_CARDS), chosen))))
            return
        for code in codes[:n].copy():
            branch = chosen.copy()
            apply_suit_choice(pid, level, flags, branch, int(code))
            walk(pid, branch)

    for pid in patterns:
        walk(int(pid), np.zeros(NUM_CARDS, dtype=np.int8))
    return plays
