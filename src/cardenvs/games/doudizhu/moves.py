"""Dou Dizhu combinations, the action table built from the rules, the classifier and the numba generator.

Ranks ``3 4 5 6 7 8 9 T J Q K A 2 B R`` are 0..14 (``B``/``R`` the black and red jokers). A move is a
rank-count vector of 15 entries together with its *reading*: type, main rank (the lowest rank of the main
part) and length (number of ranks in the main chain; 1 for non-chains).

Types (RULES.md and the document): single; pair; trio; trio + single; trio + pair; straight (5..12
ranks, 3..A); pair straight (3..10 pairs); airplane of L >= 2 trios (3..A) with no wings, with L single
wings, or with L pair wings; four + two singles; four + two pairs; bomb; rocket (``BR``). Kickers never
share a rank with the main cards, never take all four cards of a rank, and the two jokers are never both
kickers; single kickers may repeat a rank (``33344455``, ``333344``); pair kickers are pairs of distinct
ranks. Moves longer than 20 cards (the landlord's 17 + 3) are left out.

A card set that reads as several types is one action per reading (``333444555666`` is four trios, or
``333444555+666``, or ``444555666+333``). Following: the same type and length with a higher main rank;
a bomb beats every non-bomb and a lower bomb; the rocket beats everything.

Rule sets (the env option ``rules``; :data:`RULE_SETS`): ``"standard"`` is the table above. ``"botzone"`` is
Botzone's Fight the Landlord judge exactly (its ``checkPokerType``, read in ``ailab-pku/botzone-local``,
``FightTheLandlord2``; the cases compared are ``tests/data/botzone_judge_cases.json.gz``): every kicker of a
four with two singles or of an airplane with singles is of its own rank (``3333+45``, not ``3333+44``;
``333444+56``, not ``333444+55``: one rank twice, or three times as a trio, is no wing there), and both
jokers may be kickers there (``3333+BR``, ``333444+BR``); it adds the space shuttle: L >= 2 consecutive
fours (3..A) alone (L <= 5), with 2L single kickers of distinct ranks (L <= 3; both jokers allowed) or with
2L pairs of distinct ranks (L = 2), types :data:`SHUTTLE`, :data:`SHUTTLE_SINGLES`, :data:`SHUTTLE_PAIRS`,
which follow like airplanes (same type and length, higher main rank) and are not bombs. Every card set then
has one reading, Botzone's (``333444555666`` is only the four-trio airplane).

Action ids, chosen to be the least invasive (as Guandan's options filter one table rather than build
another): the standard moves keep their ids ``0..NUM_MOVES-1`` and pass and the bids follow
(:data:`NUM_ACTIONS`, unchanged); the moves only the botzone rule set has (:data:`NUM_EXTRA`) come after the
bids, ids ``NUM_ACTIONS..NUM_ALL-1``, so a ``rules="botzone"`` env has ``NUM_ALL`` actions, of which the
standard moves Botzone refuses are never legal. So the standard rule set's ids, observations, move features
and heuristic play are unchanged, and both rule sets share one params record type (numba compiles once): the
tables ``ALL_*`` are indexed by action id (pass and the bids: empty rows of type -1) and each rule set walks
its own groups of them (:data:`RULE_TABLES`). The observation's type one-hot (:data:`TYPES`, 14 entries)
stays as it is: a shuttle on the table sets none of it. The move features (:mod:`.features`) cover the
standard ids only, so the shipped model plays the standard rules only.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations, combinations_with_replacement
from typing import NamedTuple

import numpy as np
from numba import njit

from cardenvs.core import encoding
from cardenvs.core.cards import BLACK_JOKER, RED_JOKER, TWO_HIGH, parse_cards, rank_order

RANK_CHARS = "3456789TJQKA2BR"
NUM_RANKS = 15
TWO, BLACK, RED = 12, 13, 14
MAX_CARDS = 20
CHAIN_TOP = 11  # straights, pair straights and airplanes stop at the ace

TYPES = [
    "single",
    "pair",
    "trio",
    "trio+single",
    "trio+pair",
    "straight",
    "pair_straight",
    "airplane",
    "airplane+singles",
    "airplane+pairs",
    "four+two_singles",
    "four+two_pairs",
    "bomb",
    "rocket",
]
(
    SINGLE,
    PAIR,
    TRIO,
    TRIO_SINGLE,
    TRIO_PAIR,
    STRAIGHT,
    PAIR_STRAIGHT,
    AIRPLANE,
    AIRPLANE_SINGLES,
    AIRPLANE_PAIRS,
    FOUR_SINGLES,
    FOUR_PAIRS,
    BOMB,
    ROCKET,
) = range(14)
SHUTTLE, SHUTTLE_SINGLES, SHUTTLE_PAIRS = 14, 15, 16  # the botzone rule set's space shuttles
ALL_TYPES = [*TYPES, "shuttle", "shuttle+singles", "shuttle+pairs"]
RULE_SETS = ("standard", "botzone")
RANK_OF_CARD = rank_order(TWO_HIGH, jokers=(BLACK_JOKER, RED_JOKER))[:54]  # card id -> 0..14


def _single_kickers(count: int, excluded: set[int]):
    """Multisets of ``count`` single kickers: not in ``excluded``, at most 3 of a rank, not both jokers."""
    ranks = [r for r in range(NUM_RANKS) if r not in excluded]
    for combo in combinations_with_replacement(ranks, count):
        counts = np.bincount(combo, minlength=NUM_RANKS)
        if counts.max() > 3 or counts[BLACK] > 1 or counts[RED] > 1 or (counts[BLACK] and counts[RED]):
            continue
        yield counts


def _pair_kickers(count: int, excluded: set[int]):
    ranks = [r for r in range(TWO + 1) if r not in excluded]
    for combo in combinations(ranks, count):
        counts = np.zeros(NUM_RANKS, dtype=np.int64)
        counts[list(combo)] = 2
        yield counts


def _build_table():
    rows = []  # (type, main, length, main counts, kicker counts)

    def add(kind, main, length, main_counts, kicker=None):
        kicker = np.zeros(NUM_RANKS, dtype=np.int64) if kicker is None else kicker
        if (main_counts + kicker).sum() <= MAX_CARDS:
            rows.append((kind, main, length, main_counts.copy(), kicker.copy()))

    def block(start, length, width):
        c = np.zeros(NUM_RANKS, dtype=np.int64)
        c[start : start + length] = width
        return c

    for r in range(NUM_RANKS):
        add(SINGLE, r, 1, block(r, 1, 1))
    for r in range(TWO + 1):
        add(PAIR, r, 1, block(r, 1, 2))
        add(TRIO, r, 1, block(r, 1, 3))
        for k in _single_kickers(1, {r}):
            add(TRIO_SINGLE, r, 1, block(r, 1, 3), k)
        for k in _pair_kickers(1, {r}):
            add(TRIO_PAIR, r, 1, block(r, 1, 3), k)
    for length in range(5, 13):
        for s in range(CHAIN_TOP - length + 2):
            add(STRAIGHT, s, length, block(s, length, 1))
    for length in range(3, 11):
        for s in range(CHAIN_TOP - length + 2):
            add(PAIR_STRAIGHT, s, length, block(s, length, 2))
    for length in range(2, 7):
        for s in range(CHAIN_TOP - length + 2):
            main = block(s, length, 3)
            chain = set(range(s, s + length))
            add(AIRPLANE, s, length, main)
            if 4 * length <= MAX_CARDS:
                for k in _single_kickers(length, chain):
                    add(AIRPLANE_SINGLES, s, length, main, k)
            if 5 * length <= MAX_CARDS:
                for k in _pair_kickers(length, chain):
                    add(AIRPLANE_PAIRS, s, length, main, k)
    for r in range(TWO + 1):
        four = block(r, 1, 4)
        for k in _single_kickers(2, {r}):
            add(FOUR_SINGLES, r, 1, four, k)
        for k in _pair_kickers(2, {r}):
            add(FOUR_PAIRS, r, 1, four, k)
        add(BOMB, r, 1, four)
    rocket = np.zeros(NUM_RANKS, dtype=np.int64)
    rocket[BLACK] = rocket[RED] = 1
    add(ROCKET, BLACK, 1, rocket)
    return rows


_ROWS = _build_table()
NUM_MOVES = len(_ROWS)
MOVE_TYPE = np.array([r[0] for r in _ROWS], dtype=np.int64)
MOVE_MAIN = np.array([r[1] for r in _ROWS], dtype=np.int64)
MOVE_LENGTH = np.array([r[2] for r in _ROWS], dtype=np.int64)
MOVE_MAIN_COUNTS = np.array([r[3] for r in _ROWS], dtype=np.int8)
MOVE_KICKERS = np.array([r[4] for r in _ROWS], dtype=np.int8)
MOVE_COUNTS = (MOVE_MAIN_COUNTS + MOVE_KICKERS).astype(np.int8)
MOVE_SIZE = MOVE_COUNTS.sum(axis=1).astype(np.int64)

# groups of moves sharing (type, main, length): the generator checks the main part once per group
_keys = list(zip(MOVE_TYPE.tolist(), MOVE_MAIN.tolist(), MOVE_LENGTH.tolist(), strict=True))
_starts = [i for i in range(NUM_MOVES) if i == 0 or _keys[i] != _keys[i - 1]]
GROUP_START = np.array(_starts, dtype=np.int64)
GROUP_END = np.array(_starts[1:] + [NUM_MOVES], dtype=np.int64)
_groups: dict[tuple[int, int], list[int]] = {}
for g, start in enumerate(_starts):
    _groups.setdefault((_keys[start][0], _keys[start][2]), []).append(g)
GROUP_OF_TYPE_LENGTH: dict[tuple[int, int], np.ndarray] = {k: np.array(v, dtype=np.int64) for k, v in _groups.items()}
NUM_GROUPS = len(_starts)
# per (type, length): the groups, as a padded table the numba code can index
_TL = sorted(GROUP_OF_TYPE_LENGTH)
TL_INDEX = np.full((14, 13), -1, dtype=np.int64)
TL_GROUPS = np.full((len(_TL), max(len(v) for v in GROUP_OF_TYPE_LENGTH.values())), -1, dtype=np.int64)
for i, key in enumerate(_TL):
    TL_INDEX[key[0], key[1]] = i
    TL_GROUPS[i, : len(GROUP_OF_TYPE_LENGTH[key])] = GROUP_OF_TYPE_LENGTH[key]
BOMB_GROUPS = np.array([g for g, s in enumerate(_starts) if MOVE_TYPE[s] in (BOMB, ROCKET)], dtype=np.int64)

# action ids: the moves, then pass, then the bids (no bid, 1, 2, 3)
PASS = NUM_MOVES
BID_PASS = NUM_MOVES + 1
BIDS = (BID_PASS, BID_PASS + 1, BID_PASS + 2, BID_PASS + 3)
NUM_ACTIONS = NUM_MOVES + 5


# ---------------------------------------------------------------- the botzone rule set (module docstring)
def _distinct_singles(count: int, excluded: set[int]):
    """Botzone's single wings: ``count`` kickers of distinct ranks not in ``excluded`` (both jokers allowed)."""
    for combo in combinations([r for r in range(NUM_RANKS) if r not in excluded], count):
        counts = np.zeros(NUM_RANKS, dtype=np.int64)
        counts[list(combo)] = 1
        yield counts


def _botzone_extra_rows():
    """The moves of the botzone rule set that the standard table lacks, in id order."""
    rows = []

    def block(start, length, width):
        c = np.zeros(NUM_RANKS, dtype=np.int64)
        c[start : start + length] = width
        return c

    def add(kind, main, length, main_counts, kicker):
        if (main_counts + kicker).sum() <= MAX_CARDS:
            rows.append((kind, main, length, main_counts, kicker))

    none = np.zeros(NUM_RANKS, dtype=np.int64)
    jokers = np.zeros(NUM_RANKS, dtype=np.int64)
    jokers[BLACK] = jokers[RED] = 1
    for length in range(2, 6):  # airplanes with single wings, both jokers among them
        for s in range(CHAIN_TOP - length + 2):
            chain = set(range(s, s + length))
            for k in _distinct_singles(length - 2, chain | {BLACK, RED}):
                add(AIRPLANE_SINGLES, s, length, block(s, length, 3), k + jokers)
    for r in range(TWO + 1):
        add(FOUR_SINGLES, r, 1, block(r, 1, 4), jokers)
    for length in range(2, 6):
        for s in range(CHAIN_TOP - length + 2):
            chain = set(range(s, s + length))
            main = block(s, length, 4)
            add(SHUTTLE, s, length, main, none)
            if 6 * length <= MAX_CARDS:
                for k in _distinct_singles(2 * length, chain):
                    add(SHUTTLE_SINGLES, s, length, main, k)
            if 8 * length <= MAX_CARDS:
                for k in _pair_kickers(2 * length, chain):
                    add(SHUTTLE_PAIRS, s, length, main, k)
    return rows


def _botzone_refuses(kind: int, kickers: np.ndarray) -> bool:
    """A standard move Botzone's judge refuses: single kickers (of a four or an airplane) not all of distinct
    ranks (``3333+44``, ``333444+55``, ``444555666777+3338``)."""
    return kind in (FOUR_SINGLES, AIRPLANE_SINGLES) and int(kickers.max()) > 1


_EXTRA = _botzone_extra_rows()
NUM_EXTRA = len(_EXTRA)
NUM_ALL = NUM_ACTIONS + NUM_EXTRA  # the action space of rules="botzone"
_EMPTY = np.zeros((NUM_ACTIONS - NUM_MOVES, NUM_RANKS), dtype=np.int8)
# per action id, every rule set's moves (pass and the bids: empty rows of type -1)
ALL_TYPE = np.concatenate([MOVE_TYPE, np.full(NUM_ACTIONS - NUM_MOVES, -1), [r[0] for r in _EXTRA]]).astype(np.int64)
ALL_MAIN = np.concatenate([MOVE_MAIN, np.zeros(NUM_ACTIONS - NUM_MOVES), [r[1] for r in _EXTRA]]).astype(np.int64)
ALL_LENGTH = np.concatenate([MOVE_LENGTH, np.zeros(NUM_ACTIONS - NUM_MOVES), [r[2] for r in _EXTRA]]).astype(np.int64)
ALL_MAIN_COUNTS = np.concatenate([MOVE_MAIN_COUNTS, _EMPTY, np.array([r[3] for r in _EXTRA], dtype=np.int8)])
ALL_KICKERS = np.concatenate([MOVE_KICKERS, _EMPTY, np.array([r[4] for r in _EXTRA], dtype=np.int8)])
ALL_COUNTS = (ALL_MAIN_COUNTS + ALL_KICKERS).astype(np.int8)
_IS_MOVE = ALL_TYPE >= 0
#: per rule set, which action ids are its moves
RULE_MOVES = {
    "standard": np.arange(NUM_ALL) < NUM_MOVES,
    "botzone": _IS_MOVE
    & np.array([t < 0 or not _botzone_refuses(int(t), k) for t, k in zip(ALL_TYPE, ALL_KICKERS, strict=True)]),
}
NUM_ACTIONS_OF = {"standard": NUM_ACTIONS, "botzone": NUM_ALL}


class RuleTable(NamedTuple):
    """One rule set's moves as the generator walks them: group ``g`` is the ids ``group_start[g]`` to
    ``group_end[g] - 1``, moves of the rule set of one type, main rank and length with consecutive ids (the
    standard table's groups; a botzone group ends also where a move Botzone refuses breaks the run: 2,421
    groups); ``tl_groups[tl_index[type, length]]`` the groups of a type and length (-1 padded);
    ``bomb_groups`` those of bombs and the rocket."""

    group_start: np.ndarray
    group_end: np.ndarray
    tl_index: np.ndarray
    tl_groups: np.ndarray
    bomb_groups: np.ndarray


def _rule_table(members: np.ndarray) -> RuleTable:
    """The groups of a rule set's move ids (``members``, ascending)."""
    keys = list(zip(ALL_TYPE[members].tolist(), ALL_MAIN[members].tolist(), ALL_LENGTH[members].tolist(), strict=True))
    starts = [i for i in range(len(keys)) if i == 0 or keys[i] != keys[i - 1] or members[i] != members[i - 1] + 1]
    by_type_length: dict[tuple[int, int], list[int]] = {}
    for g, start in enumerate(starts):
        by_type_length.setdefault((keys[start][0], keys[start][2]), []).append(g)
    order = sorted(by_type_length)
    tl_index = np.full((len(ALL_TYPES), 13), -1, dtype=np.int64)
    tl_groups = np.full((len(order), max(len(v) for v in by_type_length.values())), -1, dtype=np.int64)
    for i, key in enumerate(order):
        tl_index[key] = i
        tl_groups[i, : len(by_type_length[key])] = by_type_length[key]
    bombs = [g for g, start in enumerate(starts) if keys[start][0] in (BOMB, ROCKET)]
    ends = [*starts[1:], len(keys)]
    return RuleTable(
        members[starts].astype(np.int64),
        members[np.array(ends) - 1].astype(np.int64) + 1,
        tl_index,
        tl_groups,
        np.array(bombs, dtype=np.int64),
    )


RULE_TABLES = {name: _rule_table(np.flatnonzero(allowed)) for name, allowed in RULE_MOVES.items()}


def move_string(move: int) -> str:
    """``"333+4"``: the main cards low to high, then ``+`` and the kickers."""
    if move == PASS:
        return "pass"
    if BID_PASS <= move < NUM_ACTIONS:
        return "no bid" if move == BID_PASS else f"bid {move - BID_PASS}"
    main = "".join(RANK_CHARS[r] * c for r, c in enumerate(ALL_MAIN_COUNTS[move]))
    kick = "".join(RANK_CHARS[r] * c for r, c in enumerate(ALL_KICKERS[move]))
    return main + ("+" + kick if kick else "")


MOVE_ID = {move_string(m): m for m in range(NUM_MOVES)}  # the standard rule set's


@cache
def move_ids(rules: str = "standard") -> dict[str, int]:
    """Move string -> id of a rule set's moves (:data:`MOVE_ID` for ``"standard"``)."""
    if check_rules(rules) == "standard":
        return MOVE_ID
    return {move_string(int(m)): int(m) for m in np.flatnonzero(RULE_MOVES[rules])}


def counts_of(text: str) -> np.ndarray:
    """Rank counts of a move string or rank string (``"33344"``, ``"333+4"``, ``"BR"``)."""
    counts = np.zeros(NUM_RANKS, dtype=np.int8)
    for ch in text.replace("+", "").replace(" ", "").upper():
        if ch == "1":  # tolerate "10"
            continue
        if ch == "0":
            ch = "T"
        if ch not in RANK_CHARS:
            raise ValueError(f"bad rank {ch!r} in move {text!r}: ranks are {RANK_CHARS} (B, R = jokers)")
        counts[RANK_CHARS.index(ch)] += 1
    return counts


def readings(counts: np.ndarray, rules: str = "standard") -> list[int]:
    """Every move id of the rule set whose cards are exactly ``counts`` (one per reading; at most one under
    ``"botzone"``)."""
    key = np.asarray(counts, dtype=np.int8)
    if check_rules(rules) == "standard":
        return [int(m) for m in np.flatnonzero((MOVE_COUNTS == key).all(axis=1))]
    return [int(m) for m in np.flatnonzero((ALL_COUNTS == key).all(axis=1) & RULE_MOVES[rules])]


def classify(move: str, rules: str = "standard") -> tuple[str, str, int] | None:
    """(type, main rank as its character, length) of a move string under ``rules``, or None if it is not a
    move (``"33344"`` -> ``("trio+pair", "3", 1)``). ``"333+4"`` names the reading; without ``+`` a card set
    that reads several ways gets its first reading in table order."""
    text = move.strip().upper()
    ids = move_ids(rules)
    if text in ids:
        m = ids[text]
    else:
        counts = counts_of(text)
        if "+" in text:
            return None  # an explicit reading that is not a move
        options = readings(counts, rules)
        if not options:
            return None
        m = options[0]
    return ALL_TYPES[ALL_TYPE[m]], RANK_CHARS[ALL_MAIN[m]], int(ALL_LENGTH[m])


@njit(cache=True)
def _beats(m: int, last: int, move_type: np.ndarray, move_main: np.ndarray, move_length: np.ndarray) -> bool:
    t, lt = move_type[m], move_type[last]
    if lt == ROCKET:
        return False
    if t == ROCKET:
        return True
    if t == BOMB:
        return lt != BOMB or move_main[m] > move_main[last]
    return t == lt and move_length[m] == move_length[last] and move_main[m] > move_main[last]


@njit(cache=True)
def collect_moves(
    hand: np.uint64,
    last: int,
    ids: np.ndarray,
    move_need: np.ndarray,
    main_need: np.ndarray,
    move_type: np.ndarray,
    move_main: np.ndarray,
    move_length: np.ndarray,
    group_start: np.ndarray,
    group_end: np.ndarray,
    tl_index: np.ndarray,
    tl_groups: np.ndarray,
    bomb_groups: np.ndarray,
) -> int:
    """Write the ids of every move of ``hand`` (rank counts as :func:`encoding.planes_bits`) playable against
    move ``last`` (-1: leading) into ``ids``, ascending; return how many (pass not included). The moves are a
    rule set's (:class:`RuleTable`: its groups, id ranges; ``group_start`` and ``bomb_groups`` may be padded
    with -1); the tables are indexed by move id. A move fits when its own bits (``move_need``) are in the
    hand's; groups sharing a main part (``main_need``) are skipped at once."""
    found = 0
    missing = ~hand
    if last < 0:
        for g in range(group_start.shape[0]):
            first = group_start[g]
            if first < 0:
                break
            if main_need[first] & missing:
                continue
            for m in range(first, group_end[g]):
                if not move_need[m] & missing:
                    ids[found] = m
                    found += 1
        return found
    if move_type[last] != BOMB and move_type[last] != ROCKET:
        tli = tl_index[move_type[last], move_length[last]]
        for j in range(tl_groups.shape[1]):
            g = tl_groups[tli, j]
            if g < 0:
                break
            first = group_start[g]
            if move_main[first] <= move_main[last] or main_need[first] & missing:
                continue
            for m in range(first, group_end[g]):
                if not move_need[m] & missing:
                    ids[found] = m
                    found += 1
    for g in bomb_groups:
        if g < 0:
            break
        m = group_start[g]
        if not move_need[m] & missing and _beats(m, last, move_type, move_main, move_length):
            # bombs interleave with four-with-two in the table: insert in order
            i = found
            while i > 0 and ids[i - 1] > m:
                ids[i] = ids[i - 1]
                i -= 1
            ids[i] = m
            found += 1
    return found


MOVE_NEED = encoding.planes_bits_rows(MOVE_COUNTS, NUM_RANKS, 4)
MAIN_NEED = encoding.planes_bits_rows(MOVE_MAIN_COUNTS, NUM_RANKS, 4)


ALL_NEED = encoding.planes_bits_rows(ALL_COUNTS, NUM_RANKS, 4)
ALL_MAIN_NEED = encoding.planes_bits_rows(ALL_MAIN_COUNTS, NUM_RANKS, 4)


def check_rules(rules: str) -> str:
    if rules not in RULE_SETS:
        raise ValueError(f"rules={rules!r}: Dou Dizhu's rule sets are {' and '.join(map(repr, RULE_SETS))}")
    return rules


def legal_mask(hand_cards: np.ndarray, last: int, out: np.ndarray, rules: str = "standard") -> int:
    """Set ``out[m] = 1`` for every move of the hand (per-card counts) that may be played against move
    ``last`` (-1: leading) under ``rules``; returns how many (pass not included). For people and tests; the
    envs go through :func:`cardenvs.games.doudizhu.rules.legal_ids`."""
    table = RULE_TABLES[check_rules(rules)]
    counts = encoding.rank_counts(np.asarray(hand_cards, dtype=np.int8), RANK_OF_CARD, NUM_RANKS)
    ids = np.empty(NUM_ALL, dtype=np.int64)
    found = collect_moves(
        encoding.planes_bits(counts, NUM_RANKS, 4),
        last,
        ids,
        ALL_NEED,
        ALL_MAIN_NEED,
        ALL_TYPE,
        ALL_MAIN,
        ALL_LENGTH,
        *table,
    )
    out[ids[:found]] = 1
    return int(found)


def beats(move: int, last: int) -> bool:
    """Whether move ``move`` may follow move ``last`` (ids of either rule set)."""
    return bool(_beats(move, last, ALL_TYPE, ALL_MAIN, ALL_LENGTH))


@njit(cache=True)
def take_cards(hand_cards: np.ndarray, counts: np.ndarray, rank_of: np.ndarray, out: np.ndarray) -> int:
    """Remove the cards of a move (rank counts) from a per-card hand, lowest card ids first; the removed ids
    go to ``out``; returns how many."""
    need = counts.copy()
    k = 0
    for card in range(hand_cards.shape[0]):
        r = rank_of[card]
        if hand_cards[card] and need[r] > 0:
            hand_cards[card] = 0
            need[r] -= 1
            out[k] = card
            k += 1
    return k


def hand_counts_from_string(hand: str) -> np.ndarray:
    """Per-card counts (54) of a hand given as ranks (``"334455BR"``) or card codes (``"3S 3C BJ"``,
    space-separated)."""
    cards = np.zeros(54, dtype=np.int8)
    text = hand.strip().upper().replace("10", "T")
    if " " in text or not all(ch in RANK_CHARS for ch in text):
        for c in parse_cards(text):
            if c >= 54:
                raise ValueError(f"Dou Dizhu has no colourless joker: {hand!r}")
            if cards[c]:
                raise ValueError(f"hand {hand!r} holds {c} twice")
            cards[c] = 1
        return cards
    counts = counts_of(text)
    for r in range(NUM_RANKS):
        ids = [c for c in range(54) if RANK_OF_CARD[c] == r]
        if counts[r] > len(ids):
            raise ValueError(f"hand {hand!r} holds more than {len(ids)} cards of rank {RANK_CHARS[r]}")
        cards[ids[: counts[r]]] = 1
    return cards


def legal_moves(hand: str, last: str | None = None, rules: str = "standard") -> list[str]:
    """Every legal move of ``hand`` (ranks ``"33344BR"`` or card codes ``"3S 3C BJ"``) against ``last`` (a move
    string such as ``"333+4"``; None when leading) under ``rules``, as move strings, plus ``"pass"`` when
    following."""
    cards = hand_counts_from_string(hand)
    last_id = -1
    if last is not None:
        text = last.strip().upper()
        ids = move_ids(rules)
        if text in ids:
            last_id = ids[text]
        else:
            options = readings(counts_of(text), rules) if "+" not in text else []
            if not options:
                raise ValueError(f"last {last!r} is not a Dou Dizhu move (rules={rules!r})")
            last_id = options[0]
    mask = np.zeros(NUM_ACTIONS_OF[check_rules(rules)], dtype=np.int8)
    legal_mask(cards, last_id, mask, rules)
    out = [move_string(int(m)) for m in np.flatnonzero(mask)]
    return out + (["pass"] if last_id >= 0 else [])
