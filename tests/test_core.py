"""Card codes, decks, the shared hand encoder (against a pure-Python twin) and observation layouts."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardenvs.core import cards, encoding
from cardenvs.core.cards import (
    BLACK_JOKER,
    JOKER,
    RED_JOKER,
    card_code,
    check_permutation,
    make_deck,
    parse_card,
    parse_cards,
    rank_order,
)
from cardenvs.core.observation import Layout, Segment
from cardenvs.core.options import Option


# ---------------------------------------------------------------- cards
def test_parse_and_format():
    assert parse_card("2S") == 0
    assert parse_card("2c") == 1
    assert parse_card("AH") == 51
    assert parse_card("10h") == parse_card("TH") == 4 * 8 + 3
    assert parse_card("bj") == BLACK_JOKER and parse_card("RJ") == RED_JOKER and parse_card("jk") == JOKER
    assert parse_cards("5S 6C,7H") == [parse_card("5S"), parse_card("6C"), parse_card("7H")]
    assert all(parse_card(card_code(c)) == c for c in range(cards.NUM_CARD_IDS))


@pytest.mark.parametrize("bad", ["1S", "QX", "", "JOKER", "11H", "S5"])
def test_bad_codes_name_the_token(bad):
    with pytest.raises(ValueError, match=f"bad card code '{bad}'"):
        parse_card(bad)


def test_bad_id():
    with pytest.raises(ValueError, match="bad card id 99"):
        card_code(99)


def test_decks():
    assert len(make_deck()) == 52 and len(set(make_deck())) == 52
    assert sorted(make_deck(jokers=2))[-2:] == [BLACK_JOKER, RED_JOKER]
    assert list(make_deck(jokers=2, distinct_jokers=False)[-2:]) == [JOKER, JOKER]
    assert list(make_deck(jokers=1)[-1:]) == [JOKER]
    double = make_deck(jokers=2, decks=2)
    assert len(double) == 108 and np.bincount(double).max() == 2
    with pytest.raises(ValueError, match="jokers"):
        make_deck(jokers=3)


def test_rank_orders():
    twos = rank_order(cards.TWO_HIGH)
    assert twos[parse_card("3S")] == 0 and twos[parse_card("2H")] == 12 and twos[BLACK_JOKER] == -1
    ddz = rank_order(cards.TWO_HIGH, jokers=(BLACK_JOKER, RED_JOKER))
    assert ddz[BLACK_JOKER] == 13 and ddz[RED_JOKER] == 14
    values = cards.card_value_order()
    assert values[parse_card("AS")] == 1 and values[parse_card("KD")] == 10 and values[parse_card("7C")] == 7


def test_check_permutation_messages():
    deck = list(make_deck())
    check_permutation(deck[::-1], deck)
    with pytest.raises(ValueError, match="missing 2S"):
        check_permutation(deck[1:], deck)
    with pytest.raises(ValueError, match="doubled or not in this game's deck 3S"):
        check_permutation(deck[1:] + [4], deck)


# ---------------------------------------------------------------- encoder vs a pure-Python twin
def twin_rank_counts(ids, order, n_ranks):
    out = [0] * n_ranks
    for c in ids:
        if order[c] >= 0:
            out[order[c]] += 1
    return out


def twin_runs(counts, n, min_length, run_ranks):
    """Every (start, L) with counts[start..start+L-1] >= n, by brute force."""
    return [
        (s, L)
        for s in range(run_ranks)
        for L in range(min_length, run_ranks - s + 1)
        if all(counts[r] >= n for r in range(s, s + L))
    ]


hands = st.lists(st.integers(0, 53), min_size=0, max_size=30)  # jokers too; duplicates = double deck


@settings(max_examples=300, deadline=None)
@given(hands)
def test_encoder_matches_twin(hand):
    ids = np.array(hand, dtype=np.int64)
    counts = encoding.ids_to_counts(ids)
    assert list(encoding.counts_to_ids(counts)) == sorted(hand)
    for order_string, jokers, run_ranks in (
        (cards.TWO_HIGH, (), 13),
        (cards.TWO_HIGH, (52, 53), 12),
        (cards.ACE_HIGH, (), 13),
    ):
        order = rank_order(order_string, jokers)
        n_ranks = 13 + len(jokers)
        want = twin_rank_counts(hand, order, n_ranks)
        assert list(encoding.rank_counts(counts, order, n_ranks)) == want
        assert list(encoding.ids_to_rank_counts(ids, order, n_ranks)) == want
        planes = encoding.at_least_planes(np.array(want, dtype=np.int8), 4)
        for k in range(4):
            assert list(planes[k]) == [int(c >= k + 1) for c in want]
        assert list(encoding.planes_to_counts(planes)) == [min(c, 4) for c in want]
        # the same planes as bits (hand-made here), and written back flat from the bits, jokers as singles
        as_array = np.array(want, dtype=np.int8)
        bits = sum(1 << (16 * k + r) for r, c in enumerate(want) for k in range(min(c, 4)))
        assert int(encoding.planes_bits(as_array, n_ranks, 4)) == bits
        assert int(encoding.planes_bits_rows(as_array[None, :], n_ranks, 4)[0]) == bits
        flat = np.zeros(13 * 4 + len(jokers), dtype=np.int8)
        encoding.write_planes(as_array, 13, 4, flat, 0)
        flat[52:] = [int(c >= 1) for c in want[13:]]
        written = np.zeros_like(flat)
        encoding.write_bits(np.uint64(bits), encoding.bit_positions(13, 4, len(jokers)), written, 0)
        assert list(written) == list(flat)
        longest = encoding.longest_runs(np.array(want, dtype=np.int8), 4, run_ranks)
        for n in range(1, 5):
            runs = twin_runs(want, n, 1, run_ranks)
            best = max((L for _, L in runs), default=0)
            assert encoding.longest_run(np.array(want, dtype=np.int8), n, run_ranks) == best
            assert longest[n - 1] == best
            for L in (1, 3, 5):
                assert encoding.has_run(np.array(want, dtype=np.int8), n, L, run_ranks) == (best >= L)
                got = [tuple(r) for r in encoding.all_runs(np.array(want, dtype=np.int8), n, L, run_ranks)]
                assert got == twin_runs(want, n, L, run_ranks)


@settings(max_examples=200, deadline=None)
@given(st.sets(st.integers(0, 53)))
def test_bitmask_round_trip(hand):
    counts = encoding.ids_to_counts(np.array(sorted(hand), dtype=np.int64))
    mask = encoding.counts_to_bitmask(counts)
    assert int(mask) == sum(1 << c for c in hand)
    assert np.array_equal(encoding.bitmask_to_counts(mask), counts)


def test_runs_no_wraparound():
    # A-2-3 is not a run in ace-high order: ranks 12, 0, 1
    order = rank_order(cards.ACE_HIGH)
    counts = encoding.ids_to_rank_counts(np.array(parse_cards("AS 2S 3S")), order, 13)
    assert encoding.longest_run(counts, 1, 13) == 2
    # 2x3 run 55 66 77 plus a single 9: 1x3 longest 3, 2x3 yes, 3x1 no
    counts = encoding.ids_to_rank_counts(np.array(parse_cards("5S 5H 6S 6C 7D 7H 9C")), order, 13)
    assert list(encoding.longest_runs(counts, 3, 13)) == [3, 3, 0]


# ---------------------------------------------------------------- layouts and options
def test_layout_round_trip_and_bounds():
    layout = Layout(
        [
            Segment("hand", 52, 1, "own hand"),
            Segment("scores", 2, 200, "scores"),
            Segment("planes", 8, 1, "planes", shape=(2, 4)),
        ]
    )
    assert layout.size == 62 and layout.dtype == np.float32
    vec = layout.zeros()
    layout.view(vec, "scores")[:] = (3, 150)
    layout.view(vec, "planes")[5] = 1
    parts = layout.decode(vec)
    assert parts["planes"].shape == (2, 4) and parts["planes"][1, 1] == 1
    assert np.array_equal(layout.encode(parts), vec)
    assert layout.space().contains(vec)
    assert "`scores`" in layout.markdown()
    assert Layout([Segment("a", 3)]).dtype == np.int8
    with pytest.raises(ValueError, match="duplicate"):
        Layout([Segment("a", 1), Segment("a", 2)])
    with pytest.raises(ValueError, match="shape"):
        layout.decode(np.zeros(3))


def test_option_checks():
    opt = Option("players", 3, low=2, high=4)
    assert opt.check(2, "x") == 2
    with pytest.raises(ValueError, match="players=5 is out of range; it accepts an integer from 2 to 4"):
        opt.check(5, "x")
    with pytest.raises(ValueError, match="players=True"):
        opt.check(True, "x")
    flag = Option("exposed", False, choices=(False, True))
    with pytest.raises(ValueError, match="exposed=1 is not allowed"):
        flag.check(1, "x")


def test_option_checks_take_numpy_scalars():
    """numpy scalars are the values they hold, for ranges and choices alike (a config read through numpy)."""
    assert Option("players", 3, low=2, high=4).check(np.int64(3), "x") == 3
    jokers = Option("jokers", 2, choices=(0, 1, 2))
    value = jokers.check(np.int64(1), "x")
    assert value == 1 and type(value) is int
    flag = Option("exposed", False, choices=(False, True))
    assert flag.check(np.bool_(True), "x") is True
    assert Option("order", "classic", choices=("classic", "rarity")).check(np.str_("rarity"), "x") == "rarity"
    with pytest.raises(ValueError, match="exposed=np.int64\\(1\\) is not allowed"):
        flag.check(np.int64(1), "x")  # still no ints for bools
    with pytest.raises(ValueError, match="jokers=np.True_ is not allowed"):
        jokers.check(np.bool_(True), "x")  # nor bools for ints


def test_seed_derivation_is_one_table_of_named_streams():
    """Every stream is seed + keys + its salt through ``SeedSequence``: the values the package always used
    (so seeded results replay), independent across salts and keys; an unknown stream names the known ones."""
    from cardenvs.core import seeds

    # the formulas the arena, the web app and the vector envs used before the table
    old_deal = int(np.random.SeedSequence([3, 5]).generate_state(1, np.uint64)[0] >> np.uint64(1))
    assert seeds.seed_from(3, 5, stream="arena_deal") == old_deal
    assert seeds.generator(3, 5, 1, stream="arena_agents").random() == np.random.default_rng([3, 5, 1, 7]).random()
    assert seeds.generator(9, stream="web_agents").random() == np.random.default_rng([9, 11]).random()
    np.testing.assert_array_equal(
        seeds.states(4, 6, stream="vector_opponents"),
        np.random.SeedSequence([4, 0x0DD5]).generate_state(6, np.uint64),
    )
    draws = {name: seeds.generator(1, 2, stream=name).random() for name in seeds.STREAMS}
    salted = [draws[name] for name, salt in seeds.STREAMS.items() if salt is not None]
    assert len(set(salted)) == len(salted), "two salted streams gave the same draw"
    assert len(set(v for v in seeds.STREAMS.values() if v is not None)) == len(salted), "a salt is used twice"
    keyed = [seeds.generator(1, k, stream="arena_agents").random() for k in (2, 3)]
    assert keyed[0] != keyed[1]
    with pytest.raises(ValueError, match="unknown random stream 'dealing'; known: arena_deal"):
        seeds.generator(1, stream="dealing")
    # the linear ones keep the training scripts' and the baselines' old formulas
    assert seeds.linear_seed(7, 123, stream="dmc_deals") == 7 * 1_000_003 + 123
    assert seeds.linear_seed(7, 0, stream="training_evaluation") == 7 + 10_000
    assert seeds.linear_seed(7, 5, stream="baseline_hands") == 7 * 100_003 + 5
    with pytest.raises(ValueError, match="unknown linear seed stream 'deals'; known: dmc_deals"):
        seeds.linear_seed(1, 0, stream="deals")
    assert seeds.seed64(5) == np.uint64(5) and seeds.seed64(2**64) != seeds.seed64(2**64 + 1)
    with pytest.raises(ValueError, match="search: seed=-1"):
        seeds.seed64(-1, "search")
