"""Guandan's rank-pattern table and the generator's index over it, built once from the rules.

A pattern is a reading (kind, key, flush suit) with the natural card counts by rank index and the number of
wilds; :mod:`cardenvs.games.guandan.moves` states the readings, the encoding and the counts, and holds the
functions over these tables. Here: the deck's constants, the kinds and the bomb ladder, the table itself
(``PAT_*``), the action layout, each pattern's requirement words and the tree the generator walks (keys,
strength groups, blocks) with its skip filters.
"""

from __future__ import annotations

import numpy as np

from cardenvs.core.cards import RANKS, RED_JOKER, SUITS

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
NUM_KEYS = len(_KEY_STARTS)
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
# a suit bitmask (bit per suit) spread to word C's planes: bit 16 * suit
SUIT_SPREAD = np.array(
    [sum(1 << (PLANE * suit) for suit in range(NUM_SUITS) if held >> suit & 1) for held in range(1 << NUM_SUITS)],
    dtype=np.int64,
)
