"""Guandan's move layer: the rank-pattern table, the generator, suit decisions, names; the worked examples,
hand-counted hands, and the action tree against a brute-force classifier written from the rules."""

from functools import cache
from itertools import combinations, combinations_with_replacement, product

import numpy as np
import pytest

from cardenvs.core.cards import RANKS, make_deck, parse_cards
from cardenvs.games.guandan import moves as M

BOTH_FLAGS = M.FLAG_JOKER_FULLHOUSE | M.FLAG_SF_AS_STRAIGHT


def hand_of(text: str) -> np.ndarray:
    hand = np.zeros(M.NUM_CARDS, dtype=np.int8)
    for card in parse_cards(text):
        hand[card] += 1
    return hand


def level_of(rank: str) -> int:
    return RANKS.index(rank)


def names(hand: str, level: str, to_beat: int = -1, flags: int = M.DEFAULT_FLAGS) -> list[str]:
    lv = level_of(level)
    return [M.move_name(cards, pid, lv, flags) for pid, cards in M.exact_plays(hand_of(hand), lv, to_beat, flags)]


def pid_of(move: str, level: str, flags: int = M.DEFAULT_FLAGS) -> int:
    return M.parse_move(move, hand_of(move.partition("=")[0]), level_of(level), flags)[0]


def tags(cards: str, level: str, flags: int = M.DEFAULT_FLAGS) -> set[str]:
    """The readings of a card set as ``tag + key`` (``{"fh8", "fh9"}``)."""
    lv = level_of(level)
    return {
        f"{M.KIND_NAMES[M.PAT_KIND[p]]}{M._key_name(int(M.PAT_KEY[p]), lv)}"
        for p in M.readings(parse_cards(cards), lv, flags)
    }


def beats(a: str, b: str, level: str) -> bool:
    return bool(M.beats(pid_of(a, level), pid_of(b, level), level_of(level)))


# ------------------------------------------------------------------ the table
def test_universe_counts_by_kind_and_level():
    kinds = np.bincount(M.PAT_KIND, minlength=M.NUM_KINDS)
    assert kinds[M.SINGLE] == 13 + 2 + 1  # 13 natural ranks, BJ, RJ, the lone wild (a level single)
    assert kinds[M.PAIR] == 13 * 2 + 2 + 1  # natural pair or one natural + a wild; BJ BJ, RJ RJ; the wild pair
    assert kinds[M.TRIPLE] == 13 * 3  # 3, 2 + 1 or 1 + 2 wilds
    # full house: per triple rank, 12 natural pairs x 5 wild splits (triple, pair): 00 10 20 01 11, 2 joker
    # pairs x (0, 1, 2 wilds in the triple), and 3 naturals + 2 wilds (the pair all wild) = 67
    assert kinds[M.FULLHOUSE] == 13 * 67
    assert kinds[M.STRAIGHT] == 10 * (1 + 5 + 10)  # 10 runs A-5 .. T-A, 0, 1 or 2 of its ranks wild
    assert kinds[M.TUBE] == 12 * 10  # 12 runs A-3 .. Q-A; wilds over 3 ranks: 1 + 3 + 6
    assert kinds[M.PLATE] == 13 * 6  # 13 runs A-2 .. K-A; wilds over 2 ranks: 00 10 01 20 02 11
    assert kinds[M.BOMB] == 13 * (5 + 6 + 7)  # 4..8 naturals; 3..8 + 1 wild; 2..8 + 2 wilds
    assert kinds[M.STRAIGHT_FLUSH] == 4 * 160 and kinds[M.JOKERS] == 1
    assert M.NUM_PATTERNS == 2188 == kinds.sum()
    # per level: what the whole 108-card deck can play there. Level L loses the bombs of 7 or 8 natural Ls
    # (3 + 3 patterns: only six non-heart Ls) and the heart straight flushes with a natural heart L (11 per
    # run through L: 1 + 4 + 6 natural subsets holding it); level 2 (in runs A-5, 2-6): 2188 - 6 - 22 = 2160,
    # levels 5..T (five runs each): 2188 - 6 - 55 = 2127
    deck = np.full(M.NUM_CARDS, M.DECKS, dtype=np.int8)
    out = np.empty(M.NUM_PATTERNS, dtype=np.int64)
    per_level = [M.legal_patterns(deck, level, -1, BOTH_FLAGS, out) for level in range(13)]
    assert per_level == [2160, 2149, 2138, 2127, 2127, 2127, 2127, 2127, 2127, 2138, 2149, 2160, 2160]
    # exact plays (cards by rank and suit + reading) the whole deck has, default flags: RULES.md measures
    # 131,584 (levels 5..T) to 134,452 (levels 2, K, A)
    for level, plays in ((0, 134_452), (3, 131_584)):
        n = M.legal_patterns(deck, level, -1, M.DEFAULT_FLAGS, out)
        assert sum(M.count_plays(deck, int(p), level, M.DEFAULT_FLAGS) for p in out[:n]) == plays
    assert M.NUM_ACTIONS == M.NUM_PATTERNS + 1 + 54 + 81 < 10_000
    assert (M.PASS, M.CARD0, M.SUIT0) == (M.NUM_PATTERNS, M.NUM_PATTERNS + 1, M.NUM_PATTERNS + 55)


def test_pattern_id_bijection():
    rows = [
        (
            int(M.PAT_KIND[p]),
            int(M.PAT_KEY[p]),
            int(M.PAT_SUIT[p]),
            tuple(M.PAT_NATURAL[p].tolist()),
            int(M.PAT_WILDS[p]),
        )
        for p in range(M.NUM_PATTERNS)
    ]
    assert len(set(rows)) == M.NUM_PATTERNS
    assert all(M.PATTERN_ID[row] == p for p, row in enumerate(rows))
    assert len({M.pattern_name(p) for p in range(M.NUM_PATTERNS)}) == M.NUM_PATTERNS
    assert (M.PAT_SIZE == M.PAT_NATURAL.sum(axis=1) + M.PAT_WILDS).all()
    assert (M.PAT_WILDS <= 2).all() and (M.PAT_SIZE <= 10).all()
    assert ((M.PAT_SUIT >= 0) == (M.PAT_KIND == M.STRAIGHT_FLUSH)).all()
    # suit codes: cS + 3 cC + 9 cD + 27 cH
    assert [M.SUIT_CODE_COUNTS[code].tolist() for code in (0, 1, 5, 80)] == [
        [0, 0, 0, 0],
        [1, 0, 0, 0],
        [2, 1, 0, 0],
        [2, 2, 2, 2],
    ]
    with pytest.raises(ValueError, match="pattern id"):
        M.pattern_name(M.NUM_PATTERNS)


# ------------------------------------------------------------------ the worked examples
def test_example_1_level_promotion():
    assert beats("7C", "AS", "7") and not beats("AS", "7C", "7")
    assert tags("7H", "7") == {"single7"} and M.PAT_KEY[pid_of("7H", "7")] == M.LEVEL_KEY
    assert not beats("7H", "7C", "7") and not beats("7C", "7H", "7")  # equal never beats
    assert beats("7C 7D", "AS AD", "7") and beats("BJ", "7C", "7") and beats("RJ", "BJ", "7")
    assert beats("7H 7H", "AS AD", "7") and not beats("7H 7H", "7C 7D", "7")  # the wild pair is a level pair


def test_example_2_a_wild_completes_a_straight_flush_in_one_suit():
    assert tags("5S 6S 8S 9S 7H", "7") == {"sf9"}
    assert M.PAT_SUIT[pid_of("5S 6S 8S 9S 7H", "7")] == M.SUITS.index("S")
    assert tags("5S 6S 8D 9S 7H", "7") == {"straight9"}
    assert tags("6S 8D 9C TS JS", "7") == set()


def test_example_3_and_4_a_wild_at_either_end_or_as_itself():
    assert tags("5S 6S 7S 8S 7H", "7") == {"sf8", "sf9"}
    assert names("5S 6S 7S 8S 7H", "7")[-2:] == ["5S 6S 7S 8S 7H=sf8", "5S 6S 7S 8S 7H=sf9"]
    assert tags("4H 5H 6H 8H 7H", "7") == {"sf8"}


def test_example_5_two_wilds():
    assert tags("5S 6S 7S 2H 2H", "2") == {"sf7", "sf8", "sf9"}
    assert tags("5S 6D 7S 2H 2H", "2") == {"straight7", "straight8", "straight9"}


def test_example_6_the_level_card_in_sequences():
    top = pid_of("TS JD QC KS AD", "Q")
    assert M.PAT_KIND[top] == M.STRAIGHT
    straights = np.flatnonzero(M.PAT_KIND == M.STRAIGHT)
    assert all(not M.beats(p, top, level_of("Q")) for p in straights)  # nothing is higher
    assert beats("4S 5D 6C 7S 8D", "3S 4D 5C 6S 7D", "7") and not beats("3S 4D 5C 6S 7D", "4S 5D 6C 7S 8D", "7")


def test_example_7_aces_low_and_high_no_wrap():
    level = "9"
    lv = level_of(level)
    for kind, low, high in [
        (M.STRAIGHT, "AS 2D 3C 4S 5D", "TS JD QC KS AD"),
        (M.TUBE, "AS AD 2S 2D 3S 3D", "QS QD KS KD AS AD"),
        (M.PLATE, "AS AD AC 2S 2D 2C", "KS KD KC AS AD AC"),
    ]:
        lo, hi = pid_of(low, level), pid_of(high, level)
        assert M.PAT_KIND[lo] == M.PAT_KIND[hi] == kind
        same = [p for p in np.flatnonzero(M.PAT_KIND == kind) if p not in (lo, hi)]
        assert all(
            M.strength(lo, lv) < M.strength(p, lv) < M.strength(hi, lv)
            for p in same
            if M.PAT_KEY[p] not in (M.PAT_KEY[lo], M.PAT_KEY[hi])
        )
    assert M.strength(pid_of("AS 2D 3C 4S 5D", level), lv) == level_of("5")  # top 5
    for nothing in ["JS QD KC AS 2D", "KS KD AS AD 2S 2D", "3S 4D 5C 6S 7D 8C", "KS KD KC AS AD AC 2S 2D 2C"]:
        assert tags(nothing, level) == set()
    assert tags("KS AS 2H 3D 4C", "2") == set()  # K-A-(2)-3-4 wraps whatever the wild is
    assert tags("AS 3D 4C 5S 2H", "2") == {"straight5"}  # the wild as the 2 of A-5


def test_example_8_full_houses():
    assert tags("8S 8D 9S 9D 2H", "2") == {"fh8", "fh9"}
    assert beats("4S 4D 4C 2S 2D", "3S 3D 3C AS AD", "7")
    assert beats("7S 7C 7D 2S 2D", "AS AC AD KS KD", "7")  # a level triple is the highest triple


def test_example_9_triple_and_two_wilds_five_alike():
    assert tags("9S 9C 9D 2H 2H", "2") == {"bomb9", "fh9"}
    assert tags("9S 9C 9D 9H 2H", "2") == {"bomb9"}
    assert M.PAT_SIZE[pid_of("9S 9C 9D 2H 2H=bomb9", "2")] == 5


def test_example_10_jokers():
    level = "7"
    assert tags("BJ BJ", level) == {"pairBJ"} and tags("RJ RJ", level) == {"pairRJ"}
    pairs = np.flatnonzero(M.PAT_KIND == M.PAIR)
    top = pid_of("RJ RJ", level)
    assert all(not M.beats(p, top, level_of(level)) for p in pairs)
    assert [p for p in pairs if M.beats(p, pid_of("BJ BJ", level), level_of(level))] == [top]
    assert tags("BJ RJ", level) == set() and tags("RJ 7H", level) == set()
    assert tags("9S 9C 9D BJ BJ", level) == {"fh9"}
    assert tags("9S 9C 9D BJ BJ", level, flags=0) == set()  # joker_fullhouse off (R1)
    assert tags("9S 9C 2H RJ RJ", "2") == {"fh9"}
    assert tags("9S 9C 9D BJ RJ", level) == set() and tags("BJ BJ RJ 2H", "2") == set()
    assert tags("9S 9C 9D BJ 2H", "2") == set()  # a wild never pairs a joker
    assert tags("BJ BJ BJ", level) == set() and tags("BJ BJ RJ", level) == set()  # no three jokers
    jokers = pid_of("BJ BJ RJ RJ", level)
    assert all(M.beats(jokers, p, 0) for p in range(M.NUM_PATTERNS) if p != jokers)
    assert not any(M.beats(p, jokers, 0) for p in range(M.NUM_PATTERNS))


def test_example_11_tube_or_plate_from_two_wilds():
    assert tags("4S 4D 5S 5D 2H 2H", "2") == {"tube5", "tube6", "plate5"}
    assert tags("8S 8D 8C 9S 2H 2H", "2") == {"plate9"}


def test_example_12_bomb_sizes():
    nines = "9S 9S 9C 9C 9D 9D 9H 9H 2H 2H"
    assert tags(nines, "2") == {"bomb9"} and M.PAT_SIZE[pid_of(nines, "2")] == M.BOMB_MAX == 10
    sevens = "7S 7S 7C 7C 7D 7D 7H 7H"
    assert tags(sevens, "7") == {"bomb7"} and M.PAT_WILDS[pid_of(sevens, "7")] == 2
    # at level 7 no bomb of 7s has more than 8 cards: the full deck plays none
    deck = np.full(M.NUM_CARDS, 2, dtype=np.int8)
    out = np.empty(M.NUM_PATTERNS, dtype=np.int64)
    found = out[: M.legal_patterns(deck, level_of("7"), -1, M.DEFAULT_FLAGS, out)]
    sizes = {int(M.PAT_SIZE[p]) for p in found if M.PAT_KIND[p] == M.BOMB and M.PAT_KEY[p] == level_of("7")}
    assert sizes == {4, 5, 6, 7, 8}
    assert tags("KS KD 2H 2H", "2") == {"bombK"}


LADDER_LEVEL_7 = [
    "KS KD KC KH",
    "AS AD AC AH",
    "7S 7D 7C 7S",
    "2S 2S 2C 2C 2D",
    "AS 2S 3S 4S 5S",
    "2S 3S 4S 5S 6S",
    "TH JH QH KH AH",
    "2S 2S 2C 2C 2D 2D",
    "3S 3S 3C 3C 3D 3D 3H",
    "3S 3S 3C 3C 3D 3D 3H 3H",
    "3S 3S 3C 3C 3D 3D 3H 3H 7H",
    "3S 3S 3C 3C 3D 3D 3H 3H 7H 7H",
    "BJ BJ RJ RJ",
]


def test_example_13_the_bomb_ladder():
    ladder = [pid_of(b, "7") for b in LADDER_LEVEL_7]
    assert all(M.PAT_KIND[p] >= M.FIRST_BOMB_KIND for p in ladder)
    for i, a in enumerate(ladder):
        for j, b in enumerate(ladder):
            assert bool(M.beats(a, b, level_of("7"))) == (i > j), (LADDER_LEVEL_7[i], LADDER_LEVEL_7[j])
    assert not beats("TS JS QS KS AS", "TH JH QH KH AH", "7") and not beats("TH JH QH KH AH", "TS JS QS KS AS", "7")
    for weaker in ["RJ", "RJ RJ", "TS JD QC KS AD"]:
        assert beats("KS KD KC KH", weaker, "7") and not beats(weaker, "KS KD KC KH", "7")


def test_bombs_within_a_size_by_card_order():
    # level 7: level cards beat aces at every size; a bomb is never beaten by a smaller one
    assert beats("7S 7D 7C 7C", "AS AD AC AH", "7") and beats("AS AD AC AH", "KS KD KC KH", "7")
    assert beats("3S 3D 3C 3H 3S 3D", "AS AD AC AH AS", "7") and not beats("AS AD AC AH AS", "3S 3D 3C 3H 3S 3D", "7")
    assert not beats("AS AS AD AC AH AH", "3S 3D 3C 3H 3S 3D 3C", "7")
    assert beats("7S 7D 7C 7S 7D 7H 7H", "AS AD AC AH AS AD AH", "7")  # seven level cards (two wilds) > seven aces
    assert beats("9S 9C 9D 9D 9H 2H", "AS AD AC AH AS", "2")  # six beats five; a wild makes the sixth 9
    assert not beats("AS 2S 3S 4S 5S", "2S 2D 2C 2H 2S 2D", "7")  # straight flush < six of a kind


def test_example_14_following():
    plays = names("AS 2D 3C 4S 5D 6C", "9")
    assert len(plays) == 8  # six singles + the straights to 5 and to 6
    assert names("AS 2D 3C 4S 5D 6C", "9", pid_of("AH 2S 3D 4C 5H", "9")) == ["2D 3C 4S 5D 6C"]
    assert names("3S 3C 3D 4H 5S", "2", pid_of("2S", "2")) == []  # a level single beats them all
    assert sorted(names("3S 3C 3D 4H 5S", "A", pid_of("2S", "A"))) == ["3C", "3D", "3S", "4H", "5S"]


def test_example_15_counting_moves():
    # 2H (level single), 5S, 5C; 5S 5C, 5S 2H, 5C 2H; 5S 5C 2H = 3 + 3 + 1 = 7
    assert sorted(names("2H 5S 5C", "2")) == sorted(["2H", "5S", "5C", "5S 5C", "5S 2H", "5C 2H", "5S 5C 2H"])
    # 2H, 9S; 2H 2H, 9S 2H; 9S 2H 2H = 2 + 2 + 1 = 5 (the two 2H copies are one card for moves)
    assert sorted(names("2H 2H 9S", "2")) == sorted(["2H", "9S", "2H 2H", "9S 2H", "9S 2H 2H"])


# ------------------------------------------------------------------ hand-counted hands
def test_count_singles_pairs_triple_full_house():
    # level 9, 3S 3C 3D 4S 4C: singles 5; pairs 33 three ways (SC SD CD) + 44 = 4; triple 333 = 1;
    # full house 333+44 = 1: 11 plays over 6 patterns (single3 single4 pair3 pair4 triple3 fh3)
    plays = M.exact_plays(hand_of("3S 3C 3D 4S 4C"), level_of("9"))
    assert len(plays) == 11 and len({p for p, _ in plays}) == 6


def test_count_plate_bomb_and_full_houses():
    # level 2, KS KC KD KH AS AC AD: singles 4 + 3 = 7; pairs KK C(4,2) = 6, AA C(3,2) = 3: 9; triples KKK 4,
    # AAA 1: 5; full houses KKK+AA 4 x 3 = 12, AAA+KK 1 x 6 = 6: 18; plate KKK-AAA 4 x 1 = 4; bomb KKKK 1:
    # 44 plays over 10 patterns (2 singles, 2 pairs, 2 triples, 2 full houses, a plate, a bomb)
    plays = M.exact_plays(hand_of("KS KC KD KH AS AC AD"), level_of("2"))
    assert len(plays) == 44 and len({p for p, _ in plays}) == 10
    kinds = [int(M.PAT_KIND[p]) for p, _ in plays]
    assert kinds.count(M.PLATE) == 4 and kinds.count(M.FULLHOUSE) == 18 and kinds.count(M.BOMB) == 1


def test_count_tube():
    # level 9, AS AD 2S 2D 3S 3D 3C: singles 7; pairs AA, 22, 33 three ways = 5; triple 333 = 1; full houses
    # 333+AA, 333+22 = 2; tube A-2-3 with three choices of the 3s = 3; no plate (one triple): 18
    plays = names("AS AD 2S 2D 3S 3D 3C", "9")
    assert len(plays) == 18 and sum(len(p.split()) == 6 for p in plays) == 3


def test_count_straight_or_flush_and_the_flag():
    # level K, 5S 6S 7S 8S 9S 9D: singles 6, pair 99; 5-9 with 9S all spades (straight flush) and with 9D
    # (straight): 6 + 1 + 2 = 9; with sf_as_straight the spade run is a straight too: 10
    assert len(names("5S 6S 7S 8S 9S 9D", "K")) == 9
    with_flag = names("5S 6S 7S 8S 9S 9D", "K", flags=BOTH_FLAGS)
    assert len(with_flag) == 10 and "5S 6S 7S 8S 9S=straight9" in with_flag
    assert tags("5S 6S 7S 8S 7H", "7", flags=BOTH_FLAGS) == {"sf8", "sf9", "straight8", "straight9"}


def test_count_level_cards_and_wild_limits():
    # level 7, 7C 7H RJ: singles 7C, 7H (level single), RJ; pair 7C 7H (pair of 7s, a natural + the wild);
    # no pair RJ 7H, no triple: 4 plays
    assert sorted(names("7C 7H RJ", "7")) == sorted(["7C", "7H", "RJ", "7C 7H"])
    # level 2, BJ BJ RJ RJ 2H 2H: singles BJ RJ 2H; pairs BJ BJ, RJ RJ, 2H 2H; the four jokers: 7
    assert len(names("BJ BJ RJ RJ 2H 2H", "2")) == 7
    # level 7, the heart 7s are wilds, never naturals: 7H 7H 7S 7D: singles 7S 7D 7H (3); pairs 7S 7D, 7S 7H,
    # 7D 7H, 7H 7H (4); triples 7S 7D 7H, 7S 7H 7H, 7D 7H 7H (3); the four 7s: 11
    assert len(names("7H 7H 7S 7D", "7")) == 11


def test_following_same_kind_and_bombs():
    # level 2 on the pair 9S 9D: pairs TT, KK (one each), the bomb 4444 (only bombs of another kind): 3
    hand = "TS TD KC KH 4S 4C 4D 4H 3S"
    got = names(hand, "2", pid_of("9S 9D", "2"))
    assert sorted(got) == sorted(["TS TD", "KC KH", "4S 4C 4D 4H"])
    # on a five-bomb only a higher bomb
    assert names(hand, "2", pid_of("5S 5C 5D 5H 5H", "2")) == []
    assert names("BJ BJ RJ RJ", "2", pid_of("BJ BJ RJ RJ", "2")) == []


# ------------------------------------------------------------------ suit decisions
def test_suit_decisions_only_where_open():
    level = level_of("7")
    hand = hand_of("9S 9C 9D 9H 5S")
    pid = pid_of("9S 9C 9D", "7")
    chosen = np.zeros(M.NUM_CARDS, dtype=np.int8)
    out = np.empty(M.NUM_SUIT_CODES, dtype=np.int64)
    n = M.next_suit_choice(hand, pid, level, M.DEFAULT_FLAGS, chosen, out)
    # three of four suits, one copy each: SCD, SCH, SDH, CDH
    assert sorted(out[:n].tolist()) == sorted([1 + 3 + 9, 1 + 3 + 27, 1 + 9 + 27, 3 + 9 + 27])
    assert M.apply_suit_choice(pid, level, M.DEFAULT_FLAGS, chosen, 1 + 3 + 27) == level_of("9")
    assert M.next_suit_choice(hand, pid, level, M.DEFAULT_FLAGS, chosen, out) == 0
    assert sorted(np.repeat(np.arange(M.NUM_CARDS), chosen).tolist()) == sorted(parse_cards("9S 9C 9H"))
    # a straight flush's suit is in its pattern, and a single copy per rank: no decision at all
    sf = pid_of("5S 6S 8S 9S 7H", "7")
    chosen[:] = 0
    assert M.next_suit_choice(hand_of("5S 6S 8S 9S 7H 5D"), sf, level, 1, chosen, out) == 0
    assert sorted(np.repeat(np.arange(M.NUM_CARDS), chosen).tolist()) == sorted(parse_cards("5S 6S 8S 9S 7H"))
    # a straight whose last rank must break the flush: 5S 6S 7S 8S, 9S 9D -> after 5-8 (fixed), only 9D
    straight = pid_of("5S 6S 7S 8S 9D", "K")
    chosen[:] = 0
    assert M.next_suit_choice(hand_of("5S 6S 7S 8S 9S 9D"), straight, level_of("K"), 1, chosen, out) == 0
    assert chosen[parse_cards("9D")[0]] == 1 and chosen[parse_cards("9S")[0]] == 0
    # the level rank's hearts are never a natural choice: level 7, 7C 7H 7H as pair 7 (one natural + a wild)
    pair = pid_of("7C 7H", "7")
    chosen[:] = 0
    assert M.next_suit_choice(hand_of("7C 7D 7H 7H"), pair, level, 1, chosen, out) == 2  # 7C or 7D
    assert sorted(out[:2].tolist()) == [3, 9]


def test_count_plays_is_the_tree_size():
    hand = hand_of("5S 5S 5C 6D 6H 7S 7C 8S 8D 9S 2H 2H")
    level = level_of("2")
    plays = M.exact_plays(hand, level)
    per_pattern: dict[int, int] = {}
    for pid, _ in plays:
        per_pattern[pid] = per_pattern.get(pid, 0) + 1
    assert all(M.count_plays(hand, pid, level, M.DEFAULT_FLAGS) == n for pid, n in per_pattern.items())
    assert M.count_plays(hand, pid_of("9S 9C 9D", "2"), level, M.DEFAULT_FLAGS) == 0  # one 9: no triple of 9s


# ------------------------------------------------------------------ names
def test_move_names_and_parse_errors():
    sf9 = pid_of("5S 6S 7S 8S 7H=sf9", "7")
    assert M.move_name(parse_cards("5S 6S 7S 8S 7H"), sf9, level_of("7")) == "5S 6S 7S 8S 7H=sf9"
    assert M.move_name(parse_cards("5D AS 3C 4S 2D"), pid_of("AS 2D 3C 4S 5D", "9"), level_of("9")) == "AS 2D 3C 4S 5D"
    hand = hand_of("8S 8D 9S 9D 2H 3C")
    assert M.parse_move("8S 8D 9S 9D 2H=fh9", hand, 0)[0] == pid_of("8S 8D 9S 9D 2H=fh9", "2")
    assert M.parse_move("pass", hand, 0) == (M.PASS, ())
    with pytest.raises(ValueError, match="2 readings"):
        M.parse_move("8S 8D 9S 9D 2H", hand, 0)
    with pytest.raises(ValueError, match="does not hold 9C"):
        M.parse_move("9S 9C", hand, 0)
    with pytest.raises(ValueError, match="no play"):
        M.parse_move("8S 3C", hand, 0)
    with pytest.raises(ValueError, match="no reading 'fh3'"):
        M.parse_move("8S 8D 9S 9D 2H=fh3", hand, 0)
    with pytest.raises(ValueError, match="bad card code"):
        M.parse_move("8S 1X", hand, 0)
    with pytest.raises(ValueError, match="not a"):
        M.move_name(parse_cards("8S 8D"), pid_of("9S 9D", "2"), 0)
    with pytest.raises(ValueError, match="bad level"):
        M.exact_plays(hand, 13)
    with pytest.raises(ValueError, match="bad pattern to beat"):
        M.exact_plays(hand, 0, M.NUM_PATTERNS)
    with pytest.raises(ValueError, match="bad hand"):
        M.exact_plays(np.full(M.NUM_CARDS, 3, dtype=np.int8), 0)


# ------------------------------------------------------------------ the brute-force reference
# Written from the rules alone (rule 5-13, R1, R2, R13-R15), sharing nothing with the module's tables but the
# kind numbers and the key conventions (LEVEL_KEY for wild-only plays, the red joker keys the four jokers).
NATURALS = 13
BJ, RJ = 13, 14
RUN_LINE = [12, *range(13)]  # A 2 3 ... K A
ORDER_BOMBS = ["b4", "b5", "sf", "b6", "b7", "b8", "b9", "b10", "jokers"]


def _window(ranks: list[int]) -> int | None:
    """The top of the run of consecutive ranks ``ranks`` (sorted set) on the A-2-...-K-A line, or None."""
    n = len(ranks)
    for i in range(len(RUN_LINE) - n + 1):
        if sorted(RUN_LINE[i : i + n]) == ranks:
            return RUN_LINE[i + n - 1]
    return None


def _plain(counts: tuple[int, ...], flags: int) -> set[tuple[int, int]]:
    """(kind, key) readings of rank counts without wilds; STRAIGHT stands for 'five in a row' (suits later)."""
    held = {r: c for r, c in enumerate(counts) if c}
    size = sum(counts)
    out = set()
    if len(held) == 1:
        ((r, c),) = held.items()
        if c <= 2 or (c == 3 and r < NATURALS):
            out.add(({1: M.SINGLE, 2: M.PAIR, 3: M.TRIPLE}[c], r))
        elif r < NATURALS:
            out.add((M.BOMB, r))
    if held == {BJ: 2, RJ: 2}:
        out.add((M.JOKERS, RJ))
    if size == 5 and sorted(held.values()) == [2, 3]:
        t = next(r for r, c in held.items() if c == 3)
        p = next(r for r, c in held.items() if c == 2)
        if t < NATURALS and (p < NATURALS or flags & M.FLAG_JOKER_FULLHOUSE):
            out.add((M.FULLHOUSE, t))
    if all(r < NATURALS for r in held):
        top = _window(sorted(held))
        widths = set(held.values())
        if top is not None and widths == {1} and len(held) == 5:
            out.add((M.STRAIGHT, top))
        if top is not None and widths == {2} and len(held) == 3:
            out.add((M.TUBE, top))
        if top is not None and widths == {3} and len(held) == 2:
            out.add((M.PLATE, top))
    return out


@cache
def _readings_of_ranks(naturals: tuple[int, ...], wilds: int, flags: int) -> frozenset[tuple[int, int]]:
    if not any(naturals):
        return frozenset({(M.SINGLE, M.LEVEL_KEY)} if wilds == 1 else {(M.PAIR, M.LEVEL_KEY)} if wilds == 2 else set())
    out: set[tuple[int, int]] = set()
    for stand_ins in combinations_with_replacement(range(NATURALS), wilds):  # a wild is any non-joker card
        counts = list(naturals)
        for r in stand_ins:
            counts[r] += 1
        out |= _plain(tuple(counts), flags)
    return frozenset(out)


def reference_plays(hand: np.ndarray, level: int, flags: int) -> set[tuple[int, int, int, tuple[int, ...]]]:
    """Every (kind, key, flush suit, exact cards) the hand can lead: sub-multisets by rank, classified."""
    wild = 4 * level + 3
    by_rank: list[list[int]] = [[] for _ in range(15)]  # natural cards of each rank index, copies repeated
    for card in range(54):
        if card != wild:
            by_rank[card // 4 if card < 52 else card - 52 + BJ] += [card] * int(hand[card])
    held = [r for r in range(15) if by_rank[r]]
    out = set()
    for wilds in range(int(hand[wild]) + 1):
        # no play spans more than five ranks, a play over three ranks or more is a run within five consecutive
        # ranks, and a play over two ranks or more has at most six cards (rule 8's table)
        for k in range(0, 6):
            for ranks in combinations(held, k):
                if k >= 3 and any(r >= NATURALS for r in ranks):
                    continue
                if k >= 3 and not any(set(ranks) <= set(RUN_LINE[i : i + 5]) for i in range(10)):
                    continue
                limit = 10 if k <= 1 else 6
                for widths in product(*(range(1, len(by_rank[r]) + 1) for r in ranks)):
                    if not 0 < sum(widths) + wilds <= limit:
                        continue
                    counts = [0] * 15
                    for r, w in zip(ranks, widths, strict=True):
                        counts[r] = w
                    readings = _readings_of_ranks(tuple(counts), wilds, flags)
                    if not readings:
                        continue
                    picks = [
                        {tuple(c) for c in combinations(by_rank[r], w)} for r, w in zip(ranks, widths, strict=True)
                    ]
                    for choice in product(*picks):
                        cards = tuple(sorted([c for part in choice for c in part] + [wild] * wilds))
                        suits = {c % 4 for part in choice for c in part if c < 52}
                        for kind, key in readings:
                            if kind != M.STRAIGHT:
                                out.add((kind, key, -1, cards))
                                continue
                            if len(suits) == 1:  # rule 11 / R2
                                out.add((M.STRAIGHT_FLUSH, key, next(iter(suits)), cards))
                            if len(suits) > 1 or flags & M.FLAG_SF_AS_STRAIGHT:
                                out.add((M.STRAIGHT, key, -1, cards))
    return out


def _reference_strength(kind: int, key: int, size: int, level: int) -> tuple[int, int]:
    """Rule 5 and 13 from scratch: (bomb rung or -1, order within it)."""
    order = [r for r in range(NATURALS) if r != level] + [level, BJ, RJ]
    position = order.index(level if key == M.LEVEL_KEY else key) if key <= M.LEVEL_KEY else -1
    if kind in (M.STRAIGHT, M.TUBE, M.PLATE):
        return -1, RUN_LINE.index(key, 1)  # the top's natural place (A-low runs top at 5 or below)
    if kind == M.STRAIGHT_FLUSH:
        return ORDER_BOMBS.index("sf"), RUN_LINE.index(key, 1)
    if kind == M.BOMB:
        return ORDER_BOMBS.index(f"b{size}"), position
    if kind == M.JOKERS:
        return ORDER_BOMBS.index("jokers"), 0
    return -1, position


def _reference_beats(a: tuple[int, int, int], b: tuple[int, int, int], level: int) -> bool:
    (ka, _, size_a), (kb, _, size_b) = a, b
    ra, rb = _reference_strength(*a, level), _reference_strength(*b, level)
    if ra[0] >= 0:
        return rb[0] < 0 or ra > rb
    return ka == kb and size_a == size_b and ra[1] > rb[1]


def _deal_hands(seed: int, count: int) -> list[tuple[np.ndarray, int, int]]:
    """``count`` random 27-card hands of the 108-card deck, each at a random level with random flags."""
    rng = np.random.default_rng(seed)
    deck = make_deck(jokers=2, decks=2)
    out = []
    for _ in range(count):
        hand = np.bincount(rng.permutation(deck)[:27], minlength=M.NUM_CARDS).astype(np.int8)
        level = int(rng.integers(13))
        hearts = np.flatnonzero(hand[3:52:4])
        if rng.random() < 0.5 and hearts.size:  # half the hands at a level that makes some of their hearts wild
            level = int(rng.choice(hearts))
        out.append((hand, level, int(rng.integers(4))))
    return out


def _as_reading(pid: int, cards: tuple[int, ...]) -> tuple[int, int, int, tuple[int, ...]]:
    return int(M.PAT_KIND[pid]), int(M.PAT_KEY[pid]), int(M.PAT_SUIT[pid]), cards


@pytest.mark.parametrize("seed", range(6))
def test_action_tree_equals_brute_force(seed):
    """Leading and following, 50 hands a seed: the plays the action tree reaches are exactly the reference's,
    each by one path."""
    rng = np.random.default_rng(1000 + seed)
    for hand, level, flags in _deal_hands(seed, 50):
        reference = reference_plays(hand, level, flags)
        walked = M.exact_plays(hand, level, -1, flags)
        assert len(walked) == len(set(walked))  # one action path per play
        pids = [p for p, _ in walked]
        assert pids == sorted(pids)  # legal_patterns is ascending
        assert {_as_reading(p, c) for p, c in walked} == reference
        assert len({c for _, c in walked}) <= len(walked)
        # following a random pattern: the reference's plays that beat it (rule 13)
        to_beat = int(rng.integers(M.NUM_PATTERNS))
        beaten = (int(M.PAT_KIND[to_beat]), int(M.PAT_KEY[to_beat]), int(M.PAT_SIZE[to_beat]))
        follow = {_as_reading(p, c) for p, c in M.exact_plays(hand, level, to_beat, flags)}
        expected = {r for r in reference if _reference_beats((r[0], r[1], len(r[3])), beaten, level)}
        assert follow == expected


def test_move_names_round_trip():
    for hand, level, flags in _deal_hands(99, 20):
        for pid, cards in M.exact_plays(hand, level, -1, flags):
            assert M.parse_move(M.move_name(cards, pid, level, flags), hand, level, flags) == (pid, cards)


def test_leading_counts_over_2000_deals(capsys):
    """RULES.md's measured table, reproduced (printed): 2,000 deals x 4 hands at a random level, default flags.
    This run: patterns max 760, mean 162, median 78; plays max 5,312, mean 755, median 463 (RULES.md, other deals:
    782 / 163 / 78 and 6,070 / 754 / 465). Asserted: only bounds that follow from the rules."""
    rng = np.random.default_rng(2026)
    deck = make_deck(jokers=2, decks=2)
    ids = np.empty(M.NUM_PATTERNS, dtype=np.int64)
    moves, patterns, wild_counts = [], [], []
    for _ in range(2000):
        cards = rng.permutation(deck)
        level = int(rng.integers(13))
        for seat in range(4):
            hand = np.bincount(cards[27 * seat : 27 * seat + 27], minlength=M.NUM_CARDS).astype(np.int8)
            n = M.legal_patterns(hand, level, -1, M.DEFAULT_FLAGS, ids)
            plays = sum(M.count_plays(hand, int(p), level, M.DEFAULT_FLAGS) for p in ids[:n])
            wild = 4 * level + 3
            ranks = {c // 4 for c in np.flatnonzero(hand[:52]) if c != wild} | {c for c in (52, 53) if hand[c]}
            # every held natural rank (and joker) leads a single pattern, and every distinct card a single play
            assert n >= len(ranks) + (hand[wild] > 0) and plays >= np.count_nonzero(hand)
            # each pattern has one play at least; no hand plays the whole table
            assert n <= plays and n < M.NUM_PATTERNS
            patterns.append(n)
            moves.append(plays)
            wild_counts.append(int(hand[wild]))
    moves_a, patterns_a, wilds_a = np.array(moves), np.array(patterns), np.array(wild_counts)
    with capsys.disabled():
        for name, values in (("plays", moves_a), ("patterns", patterns_a)):
            by_wilds = [int(values[wilds_a == w].max()) for w in range(3)]
            print(
                f"\n{name}: max {values.max()} mean {values.mean():.0f} median {np.median(values):.0f} "
                f"99th {np.percentile(values, 99):.0f}; max with 0/1/2 wilds {by_wilds}"
            )
    assert M.NUM_ACTIONS < 10_000  # the widest mask


# ------------------------------------------------------------------ no wild cards (the no_wilds variant)
NO_WILDS = M.DEFAULT_FLAGS | M.FLAG_NO_WILDS


def test_no_wilds_the_level_heart_plays_only_as_itself():
    # level 7, 7H 7H 5S. Wild: singles 5S, 7H; pairs 5S 7H (fives with a wild), 7H 7H; the triple 5S 7H 7H: 5.
    # No wilds: singles 5S, 7H; the pair of sevens 7H 7H: 3
    assert len(names("7H 7H 5S", "7")) == 5
    assert sorted(names("7H 7H 5S", "7", flags=NO_WILDS)) == sorted(["5S", "7H", "7H 7H"])
    # level 7, 3H..7H. Wild: 5 singles, 4 pairs (each heart with the wild), the straight flush read 2-6 (the
    # wild as the two) or 3-7: 11. No wilds: 5 singles and the one straight flush 3-7 of hearts: 6
    assert len(names("3H 4H 5H 6H 7H", "7")) == 11
    plain = names("3H 4H 5H 6H 7H", "7", flags=NO_WILDS)
    assert len(plain) == 6 and "3H 4H 5H 6H 7H" in plain
    assert tags("3H 4H 5H 6H 7H", "7", flags=NO_WILDS) == {"sf7"}
    # the heart seven is a seven: with 7S 7C 7D it makes the bomb of four sevens either way (the wild stands in)
    assert "7S 7C 7D 7H" in names("7S 7C 7D 7H", "7", flags=NO_WILDS)


def test_no_wilds_lists_no_pattern_that_spends_a_wild():
    rng = np.random.default_rng(45)
    deck = np.array(make_deck(jokers=2, decks=2))
    ids = np.empty(M.NUM_PATTERNS, dtype=np.int64)
    for _ in range(200):
        hand = np.bincount(rng.permutation(deck)[:27], minlength=M.NUM_CARDS).astype(np.int8)
        level = int(rng.integers(13))
        n = M.legal_patterns(hand, level, -1, NO_WILDS, ids)
        assert n > 0 and not M.PAT_WILDS[ids[:n]].any()
        assert n <= M.legal_patterns(hand, level, -1, M.DEFAULT_FLAGS, ids)  # the wilds only add plays
