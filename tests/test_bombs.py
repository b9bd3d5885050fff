"""The bomb study: exact probabilities, the census against them, the rarity order, the command."""

from fractions import Fraction
from math import comb

import numpy as np
import pytest

from cardenvs.games.twos.bomb_study import census_hands, rarity_order, run_census, run_probabilities


def brute_force_probability(hand_size, n, length, ranks=13):
    """Enumerate rank-count vectors directly (small hands only) with weights prod C(4, c)."""

    def vectors(prefix, left):
        if len(prefix) == ranks:
            if left == 0:
                yield prefix
            return
        for c in range(min(4, left) + 1):
            yield from vectors(prefix + (c,), left - c)

    total = 0
    for counts in vectors((), hand_size):
        run = best = 0
        for c in counts:
            run = run + 1 if c >= n else 0
            best = max(best, run)
        if best >= length:
            weight = 1
            for c in counts:
                weight *= comb(4, c)
            total += weight
    return Fraction(total, comb(52, hand_size))


@pytest.mark.parametrize("hand_size,n,length", [(4, 2, 2), (5, 1, 3), (6, 2, 3), (4, 4, 1), (6, 3, 2)])
def test_exact_matches_enumeration(hand_size, n, length):
    assert run_probabilities(hand_size)[(n, length)][1] == brute_force_probability(hand_size, n, length)


def test_exact_values_against_the_document():
    # the document's 10-million-hand counts, 20-card hands: 2x3 6,482,887; 4x1 2,198,049; 1x1 all
    p20 = run_probabilities(20)
    assert p20[(2, 3)][0] * 1e7 == pytest.approx(6_482_887, rel=2e-3)
    assert p20[(4, 1)][0] * 1e7 == pytest.approx(2_198_049, rel=3e-3)
    assert p20[(1, 1)][1] == 1 and p20[(4, 6)][1] == 0  # 20 cards cannot hold 4x6 (24 cards)
    assert p20[(4, 5)][1] == Fraction(1 * 9, comb(52, 20))  # 4x5: all 20 cards of one of 9 stretches
    p13 = run_probabilities(13)
    assert p13[(2, 3)][0] * 1e7 == pytest.approx(917_211, rel=1e-2)
    assert p13[(1, 13)][1] == Fraction(4**13, comb(52, 13))  # one card of every rank


def test_census_agrees_with_exact_within_sampling_error():
    hands = 400_000
    counts = run_census(13, hands, seed=3)
    dealt = census_hands(13, hands)
    probs = run_probabilities(13)
    for shape, (p, _) in probs.items():
        expected = p * dealt
        sd = np.sqrt(dealt * p * (1 - p))
        assert abs(counts[shape] - expected) <= 5 * sd + 1, (shape, counts[shape], expected)


def test_census_is_reproducible_and_deals_whole_decks():
    assert run_census(20, 1000, seed=1) == run_census(20, 1000, seed=1)
    assert census_hands(20, 1001) == 1002  # two 20-card hands a deal
    assert run_census(13, 1000, seed=1)[(1, 1)] == 1000


def test_rarity_order():
    assert rarity_order(13)[:6] == [(2, 3), (4, 1), (2, 4), (2, 5), (3, 3), (2, 6)]  # the document's list
    order20 = rarity_order(20)
    assert order20.index((2, 4)) < order20.index((4, 1))  # at 20 cards a 2x4 is more likely than quads


def test_bad_input():
    with pytest.raises(ValueError, match="hand_size must be from 1 to 52"):
        run_probabilities(0)
    with pytest.raises(ValueError, match="hands must be at least 1"):
        run_census(13, 0)


def test_analyze_bombs_command(capsys):
    from cardenvs.cli import main

    assert main(["analyze", "bombs", "--hand-size", "20", "--hands", "20000"]) == 0
    out = capsys.readouterr().out
    assert "valid bombs:" in out and "2x3" in out and "rarity order" in out


# ------------------------------------------------------------------ many decks and the infinite deck
def longest(counts, n):
    run = best = 0
    for c in counts:
        run = run + 1 if c >= n else 0
        best = max(best, run)
    return best


def brute_force_decks(hand_size, n, length, decks):
    """Enumerate rank-count vectors of a hand from ``decks`` decks, weight prod C(4 decks, c)."""

    def vectors(prefix, left):
        if len(prefix) == 13:
            if left == 0:
                yield prefix
            return
        for c in range(min(4 * decks, left) + 1):
            yield from vectors(prefix + (c,), left - c)

    total = 0
    for counts in vectors((), hand_size):
        if longest(counts, n) >= length:
            weight = 1
            for c in counts:
                weight *= comb(4 * decks, c)
            total += weight
    return Fraction(total, comb(52 * decks, hand_size))


def brute_force_replacement(hand_size, n, length):
    """Every sequence of ``hand_size`` ranks, each equally likely (drawing with replacement)."""
    import itertools

    hits = 0
    for ranks in itertools.product(range(13), repeat=hand_size):
        counts = [0] * 13
        for r in ranks:
            counts[r] += 1
        hits += longest(counts, n) >= length
    return Fraction(hits, 13**hand_size)


@pytest.mark.parametrize("hand_size,n,length,decks", [(5, 2, 2, 2), (5, 4, 1, 2), (6, 3, 2, 3), (5, 1, 3, 2)])
def test_deck_probabilities_match_enumeration(hand_size, n, length, decks):
    from cardenvs.games.twos.bomb_study import deck_probabilities

    assert deck_probabilities(hand_size, decks)[(n, length)][1] == brute_force_decks(hand_size, n, length, decks)


@pytest.mark.parametrize("n,length", [(2, 2), (4, 1), (1, 3), (3, 1)])
def test_replacement_probabilities_match_enumeration(n, length):
    from cardenvs.games.twos.bomb_study import deck_probabilities

    assert deck_probabilities(4, None)[(n, length)][1] == brute_force_replacement(4, n, length)


def test_deck_probabilities_by_hand_and_one_deck():
    from math import factorial

    from cardenvs.games.twos.bomb_study import deck_probabilities

    one = deck_probabilities(13, 1)
    assert all(one[s][1] == p for s, (_, p) in run_probabilities(13).items())  # the rules' table
    infinite = deck_probabilities(13, None)
    assert infinite[(1, 13)][1] == Fraction(factorial(13), 13**13)  # one card of every rank, in any order
    assert deck_probabilities(4, None)[(4, 1)][1] == Fraction(13, 13**4)  # four of one rank
    # two decks: 13 cards holding all 8 copies of a rank is possible, 4x1 grows, and no count passes 8
    assert deck_probabilities(13, 2)[(4, 1)][0] > one[(4, 1)][0]


@pytest.mark.parametrize("decks", [3, None])
def test_simulation_agrees_with_exact(decks):
    from cardenvs.games.twos.bomb_study import deck_probabilities, simulate_hands

    hands = 100_000
    counts = simulate_hands(13, hands, decks, seed=5)
    for shape, (p, _) in deck_probabilities(13, decks).items():
        sd = np.sqrt(hands * p * (1 - p))
        assert abs(counts[shape] - p * hands) <= 5 * sd + 1, (shape, counts[shape], p * hands)
    assert simulate_hands(13, 1000, decks, seed=5) == simulate_hands(13, 1000, decks, seed=5)


def test_rarity_order_changes_with_the_number_of_decks():
    from cardenvs.games.twos.bomb_study import deck_probabilities, order_of

    assert order_of(deck_probabilities(13, 1)) == rarity_order(13)
    # one deck: a pair-run 2x3 is the commonest bomb; from two decks on (and with replacement) four of a kind is
    assert order_of(deck_probabilities(13, 1))[:2] == [(2, 3), (4, 1)]
    for decks in (2, 4, None):
        assert order_of(deck_probabilities(13, decks))[:2] == [(4, 1), (2, 3)]


def test_deck_options_bad_input(capsys):
    from cardenvs.cli import main
    from cardenvs.games.twos.bomb_study import deck_probabilities, simulate_hands

    with pytest.raises(ValueError, match="decks must be an integer >= 1"):
        deck_probabilities(13, 0)
    with pytest.raises(ValueError, match="hands must be at least 1"):
        simulate_hands(13, 0, 2)
    assert main(["analyze", "bombs", "--deck-sweep", "1,x"]) == 2
    err = capsys.readouterr().err
    assert "expected deck counts separated by commas" in err and len(err.strip().splitlines()) == 1
    assert main(["analyze", "bombs", "--hand-size", "13", "--deck-sweep", "1,2"]) == 0
    out = capsys.readouterr().out
    assert "with replacement" in out and "differs from 1 deck" in out
