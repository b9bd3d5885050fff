"""Guandan's state machine and env: the worked examples of the tribute, 接风, hand results and the match at A
(stacked decks through reset options, or positions written by hand), passing and trick ends, levels and A
attempts, truncation, the first leader, PettingZoo's api and seed tests on every variant, and seeded random
play with invariants (cards conserved, teams' results opposite, masks never empty, observations free of
other seats' hidden cards)."""

from collections import Counter

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from cardenvs.core import kernels
from cardenvs.core.cards import card_code, parse_card, parse_cards
from cardenvs.core.play import play_episode
from cardenvs.core.rng import stream, uniform_index
from cardenvs.games.guandan import env as guandan_env
from cardenvs.games.guandan import moves
from cardenvs.games.guandan import rules as R
from cardenvs.games.guandan.env import raw_env

ALL_CARDS = [card_code(c) for c in range(54)] * 2
CARD0 = moves.CARD0


# ------------------------------------------------------------------ helpers
def deck(*hands: str) -> list[str]:
    """A stacked deck: seat q's hand starts with the codes of ``hands[q]``; the rest of the 108 cards fill the
    hands in seat order, lowest card ids first (so the last seat filled gets the highest leftovers)."""
    pool = Counter(ALL_CARDS)
    given = [h.split() for h in hands] + [[] for _ in range(4 - len(hands))]
    for h in given:
        assert len(h) <= 27
        short = Counter(h) - pool
        assert not short, f"more copies than the decks hold: {short}"
        pool -= Counter(h)
    rest = sorted(pool.elements(), key=parse_card)
    out: list[str] = []
    for h in given:
        need = 27 - len(h)
        out += h + rest[:need]
        rest = rest[need:]
    return out


def cards(codes: str) -> list[int]:
    return parse_cards(codes)


def held(env, seat: int) -> Counter:
    return Counter({card_code(c): int(n) for c, n in enumerate(env.state.hands[seat]) if n})


def legal_cards(env) -> set[str]:
    """The card actions legal now, as codes."""
    return {card_code(a - CARD0) for a in env.legal_actions() if CARD0 <= a < moves.SUIT0}


def give(env, code: str) -> None:
    env.step(CARD0 + parse_card(code))


def play(env, text: str) -> None:
    """The seat to move plays ``text`` (cards, ``=reading`` where needed, or ``pass``), suit choices included."""
    seat = env.state.to_move
    env.step(env.parse_action(text))
    while env.agents and env.state.pending >= 0:
        assert env.state.to_move == seat
        env.step(env.parse_action(""))


def position(env, hands: dict[int, str], to_move: int, out: tuple[int, ...] = ()) -> None:
    """Write a play-phase position by hand: the seats' hands (missing seats hold nothing and must be listed in
    ``out``, in finishing order), a fresh trick led by ``to_move``."""
    s = env.state
    s.hands[:] = 0
    s.played[:] = 0
    for q, codes in hands.items():
        for c in cards(codes):
            s.hands[q, c] += 1
    s.n_cards[:] = s.hands.sum(axis=1)
    assert all(s.n_cards[q] == 0 for q in out)
    s.out_order[:] = -1
    s.out_order[: len(out)] = out
    s.n_out = len(out)
    s.phase = R.PLAY
    s.to_move = s.leader = to_move
    s.last_pid = s.last_play = -1
    s.last_player = -1
    s.passes = 0
    s.pending = -1
    s.n_hist = 0
    env._after_change()


def finish(env, order: list[int]) -> None:
    """End the hand under way with the players of ``order`` out in that order (the match's progression)."""
    s = env.state
    s.out_order[:] = -1
    s.out_order[: len(order)] = order
    s.n_out = len(order)
    R._end_hand(env.states, 0, env.params)


def observation(env, seat: int) -> dict[str, np.ndarray]:
    return guandan_env.LAYOUT.decode(env.observe(f"player_{seat}")["observation"])


# ------------------------------------------------------------------ the deal and the first leader
def test_stacked_deck_deals_blocks_of_27_in_seat_order():
    env = raw_env()
    d = deck("RJ RJ BJ", "AS AS", "3D", "KH KH")
    env.reset(seed=0, options={"deck": d})
    for q in range(4):
        assert held(env, q) == Counter(d[27 * q : 27 * q + 27])
    assert env.state.n_cards.tolist() == [27] * 4
    assert np.array_equal(np.sort(env.card_locations()), np.sort(env.deck))


def test_first_leader_is_drawn_from_the_deal_or_given():
    env = raw_env()
    leaders = set()
    for seed in range(12):
        env.reset(seed=seed)
        drawn = uniform_index(stream(np.uint64(env._deal_seed), R.FIRST_LEADER_STREAM), 4)
        assert env.state.to_move == drawn == env.state.leader
        assert env.state.last_pid == -1 and moves.PASS not in env.legal_actions()  # the leader may not pass
        leaders.add(int(drawn))
    assert leaders == {0, 1, 2, 3}
    env.reset(seed=3, options={"first_leader": 2})
    assert env.state.to_move == 2
    # a stacked deck is the whole deal: its leader follows from the deck's order, whatever the seed
    d = deck()
    expected = uniform_index(
        stream(R.stacked_seed(np.array(cards(" ".join(d)), dtype=np.int16)), R.FIRST_LEADER_STREAM), 4
    )
    for seed in (1, 2, 3):
        env.reset(seed=seed, options={"deck": d})
        assert env.state.to_move == expected
    with pytest.raises(ValueError, match="first_leader"):
        env.reset(seed=3, options={"first_leader": 2, "previous_order": [0, 1, 2, 3]})
    with pytest.raises(ValueError, match="seat"):
        env.reset(seed=3, options={"first_leader": 4})


def test_reset_options_are_checked():
    env = raw_env()
    env.reset(seed=0, options={"levels": ["T", "A"], "declarer": 1})
    assert env.state.levels.tolist() == [8, 12] and env.state.hand_level == 12 and env.state.declarer == 1
    env.reset(seed=0, options={"levels": ["10", "2"]})
    assert env.state.hand_level == 8
    for bad, word in (
        ({"levels": ["2"]}, "two rank codes"),
        ({"levels": ["2", "1"]}, "rank code"),
        ({"declarer": 2}, "0 or 1"),
        ({"previous_order": [0, 1, 2, 2]}, "each seat once"),
        ({"previous_order": [0, 1, 2, 3], "declarer": 1}, "contradicts"),
    ):
        with pytest.raises(ValueError, match=word):
            env.reset(seed=0, options=bad)
    match = raw_env(episode="match")
    for name, value in (("levels", ["2", "2"]), ("declarer", 0), ("previous_order", [0, 1, 2, 3])):
        with pytest.raises(ValueError, match="hand episodes"):
            match.reset(seed=0, options={name: value})
    match.reset(seed=0, options={"first_leader": 1, "deck": [deck(), deck()]})
    assert match.state.to_move == 1
    with pytest.raises(ValueError, match="at most 16"):
        raw_env(episode="match").reset(seed=0, options={"deck": [deck()] * 17})
    with pytest.raises(ValueError, match="deals 1 deck"):
        env.reset(seed=0, options={"deck": [deck(), deck()]})


def test_reward_default_follows_the_episode():
    assert raw_env().config["reward"] == "points"
    assert raw_env(episode="match").config["reward"] == "win"
    assert raw_env(episode="match", reward="points").config["reward"] == "points"


# ------------------------------------------------------------------ passing, trick ends, 接风, results
def test_passes_end_the_trick_and_a_passer_may_play_again():
    env = raw_env()
    env.reset(seed=0, options={"first_leader": 0})
    position(env, {0: "3S 9S 9D", 1: "5S 8S", 2: "4S 6S", 3: "7S 8D"}, to_move=0)
    play(env, "3S")
    play(env, "pass")  # player_1
    play(env, "4S")  # player_2
    play(env, "pass")  # player_3
    play(env, "pass")  # player_0
    assert env.state.to_move == 1
    play(env, "5S")  # player_1 passed earlier in this trick and plays now
    assert env.state.passes == 0 and env.state.last_player == 1
    for _ in range(3):  # players 2, 3 and 0 pass: the three others of player_1
        play(env, "pass")
    assert env.state.to_move == 1 and env.state.last_pid == -1  # player_1 leads a new trick
    assert moves.PASS not in env.legal_actions()


def test_out_players_are_skipped_and_their_partner_takes_the_wind():
    # worked example 16: player_0 plays its last two cards; the three others pass; player_2 leads
    env = raw_env()
    env.reset(seed=0)
    position(env, {0: "KS KD", 1: "3S 4S AS AD", 2: "5S 6S", 3: "7S 8S"}, to_move=0)
    play(env, "KS KD")
    assert env.state.n_out == 1 and env.state.out_order[0] == 0 and env.state.to_move == 1
    for _ in range(3):  # players 1, 2, 3
        play(env, "pass")
    assert env.state.to_move == 2 and env.state.last_pid == -1
    # had player_1 played AS AD over it and the others passed (player_0, out, skipped), player_1 would lead
    env.reset(seed=0)
    position(env, {0: "KS KD", 1: "3S 4S AS AD", 2: "5S 6S", 3: "7S 8S"}, to_move=0)
    play(env, "KS KD")
    play(env, "AS AD")
    play(env, "pass")  # player_2
    play(env, "pass")  # player_3; player_0 is out: skipped, not a pass
    assert env.state.to_move == 1 and env.state.last_pid == -1


@pytest.mark.parametrize(
    "hands, moves_played, order, gain",
    [
        # 0 then 2 out: the hand ends at once, team 0 +3
        ({0: "3S", 1: "4S 9S", 2: "5S", 3: "6S 9D"}, ["3S", "4S", "5S"], [0, 2], 3),
        # order 1, 0, 3 (2 last): team 1 +2 (see the comments)
        (
            {0: "8S", 1: "3S", 2: "4S 5S", 3: "6S 7S"},
            # 1 leads 3S (out); 2, 3 pass; 0 plays 8S (out); 2 and 3 pass: 0's partner 2 leads 4S; 3 plays 6S;
            # 2 passes: 3 leads 7S and is out: team 1 has both out
            ["3S", "pass", "pass", "8S", "pass", "pass", "4S", "6S", "pass", "7S"],
            [1, 0, 3],
            2,
        ),
        # order 1, 2, 0 (3 last): 1 leads 3S (out), 2 plays 4S (out), 3 plays 5S, 0 plays 8S (out): team 1 +1
        ({0: "8S", 1: "3S", 2: "4S", 3: "5S 6S"}, ["3S", "4S", "5S", "8S"], [1, 2, 0], 1),
    ],
)
def test_hand_results(hands, moves_played, order, gain):
    # worked example 17
    env = raw_env()
    env.reset(seed=0)
    position(env, hands, to_move=order[0])
    for text in moves_played:
        play(env, text)
    s = env.state
    assert s.status == kernels.OVER and all(env.terminations.values())
    assert s.out_order[: s.n_out].tolist() == order and s.gain == gain
    first_team = order[0] % 2
    expected = [gain if q % 2 == first_team else -gain for q in range(4)]
    assert env.scores().tolist() == expected
    assert [env._cumulative_rewards[f"player_{q}"] for q in range(4)] == expected
    assert env.outcome().tolist() == [1.0 if q % 2 == first_team else -1.0 for q in range(4)]


def test_hand_result_order_1_0_2():
    # order 1, 0, 2: team 0 has both out after the third; team 1 won (player_1 first), its partner last: +1
    env = raw_env(reward="win")
    env.reset(seed=0)
    position(env, {0: "5S", 1: "3S", 2: "7S", 3: "4S 9S 9D"}, to_move=1)
    play(env, "3S")  # player_1 out
    play(env, "pass")  # player_2
    play(env, "4S")  # player_3
    play(env, "5S")  # player_0 out
    play(env, "7S")  # player_2 out: team 0 both out
    assert env.state.out_order[:3].tolist() == [1, 0, 2] and env.state.gain == 1
    assert env.scores().tolist() == [-1, 1, -1, 1]
    assert [env._cumulative_rewards[f"player_{q}"] for q in range(4)] == [-1, 1, -1, 1]  # the win scale


# ------------------------------------------------------------------ tribute
def test_single_tribute_after_a_one_four_pays_the_highest_card():
    # worked example 18: previous order 1, 2, 0, 3; team 1 at 7 is declarer; player_3 pays player_1
    p1 = "AS KD 7S 5C TD " + "JS JC JD JH " * 2 + "QS QC QD QH " * 2 + "KS KS KC KC KH KH"
    env = raw_env()
    env.reset(
        seed=0,
        options={"deck": deck("RJ", p1, "", "RJ BJ 7S AS"), "previous_order": [1, 2, 0, 3], "levels": ["2", "7"]},
    )
    s = env.state
    assert s.declarer == 1 and s.hand_level == 5 and s.phase == R.PAY and s.to_move == 3
    assert legal_cards(env) == {"RJ"}
    assert observation(env, 0)["tribute_paid"].sum() == 0
    give(env, "RJ")
    assert s.phase == R.RETURN and s.to_move == 1 and held(env, 1)["RJ"] == 1
    paid = observation(env, 0)["tribute_paid"]  # shown to all: player_3 is player_0's seat 3
    assert paid[3, parse_card("RJ")] == 1 and paid.sum() == 1
    # player_1 gives back a card of 2..10 other than a 7: the 5C or the TD
    assert legal_cards(env) == {"5C", "TD"}
    before = held(env, 3)["TD"]
    give(env, "TD")
    assert s.phase == R.PLAY and s.to_move == 3 and s.leader == 3  # the payer leads
    assert held(env, 3)["TD"] == before + 1 and s.n_cards.tolist() == [27] * 4
    assert observation(env, 2)["tribute_returned"][3, parse_card("TD")] == 1  # player_1 is player_2's seat 3


def test_tribute_never_pays_a_wild_and_chooses_the_suit():
    # worked example 18, second hand: player_3 holds 7H 7S 7D AS at level 7 (no joker, no 7C): 7S or 7D
    env = raw_env()
    d = deck("RJ RJ BJ BJ 7C 7C 7S 7D", "", "", "7H 7S 7D AS")
    env.reset(seed=0, options={"deck": d, "previous_order": [1, 2, 0, 3], "levels": ["2", "7"]})
    assert held(env, 3)["7H"] == 1
    assert legal_cards(env) == {"7S", "7D"}
    give(env, "7D")
    assert held(env, 1)["7D"] >= 1 and env.state.paid[0] == parse_card("7D")


def test_double_tribute_higher_card_to_the_first_finisher():
    # worked example 19: previous order 0, 2, then 1 and 3; player_1 pays AS, player_3 pays RJ
    p1 = "AS 3S 3C 3D 3H 4S 4C 4D 4H 5S 5C 5D 5H 6S 6C 6D 6H 7S 7C 7D 7H 8S 8C 8D 8H 9S 9C"
    env = raw_env()
    env.reset(seed=0, options={"deck": deck("RJ", p1, "", "RJ"), "previous_order": [0, 2, 1, 3]})
    s = env.state
    assert s.phase == R.PAY and s.payers.tolist() == [1, 3] and s.to_move == 1  # seat order after player_0
    assert legal_cards(env) == {"AS"}  # level 2: no 2, no joker; its best is the ace
    give(env, "AS")
    assert s.to_move == 3 and observation(env, 3)["tribute_paid"].sum() == 0  # not shown before both paid
    assert observation(env, 1)["tribute_paid"][0, parse_card("AS")] == 1  # the payer sees its own
    give(env, "RJ")
    assert s.return_seats.tolist() == [0, 2] and s.return_to.tolist() == [3, 1]  # RJ to player_0, AS to player_2
    assert held(env, 0)["RJ"] >= 1 and held(env, 2)["AS"] >= 1 and s.leader == 3
    assert s.phase == R.RETURN and s.to_move == 0
    low0 = sorted(legal_cards(env), key=parse_card)[0]
    give(env, low0)
    assert s.to_move == 2 and observation(env, 1)["tribute_returned"].sum() == 0  # hidden until both returned
    low2 = sorted(legal_cards(env), key=parse_card)[0]
    give(env, low2)
    assert s.phase == R.PLAY and s.to_move == 3  # the payer whose card the first finisher got leads
    returned = observation(env, 1)["tribute_returned"]  # player_1's relative seats: player_0 is 3, player_2 is 1
    assert returned[3, parse_card(low0)] == 1 and returned[1, parse_card(low2)] == 1
    assert np.array_equal(np.sort(env.card_locations()), np.sort(env.deck))


def equal_aces_deck() -> list[str]:
    # both payers' best card is an ace; no 2 (level cards) or jokers with them
    p1 = "AS 3S 3C 3D 3H 4S 4C 4D 4H 5S 5C 5D 5H 6S 6C 6D 6H 7S 7C 7D 7H 8S 8C 8D 8H 9S 9C"
    p3 = "AD 3S 3C 3D 3H 4S 4C 4D 4H 5S 5C 5D 5H 6S 6C 6D 6H 7S 7C 7D 7H 8S 8C 8D 8H 9S 9C"
    return deck("RJ RJ BJ BJ 2S 2S 2C 2C 2D 2D 2H 2H", p1, "", p3)


def test_equal_double_tribute_by_seat():
    # worked example 19: both pay an ace: player_1 (seated after player_0) gives player_0 and leads
    env = raw_env()
    env.reset(seed=0, options={"deck": equal_aces_deck(), "previous_order": [0, 2, 3, 1]})
    give(env, "AS")
    give(env, "AD")
    s = env.state
    assert s.return_seats.tolist() == [0, 2] and s.return_to.tolist() == [1, 3] and s.leader == 1


def test_equal_double_tribute_at_random_comes_from_the_deal():
    env = raw_env(equal_tribute="random")
    seen = set()
    for deal_seed in range(1, 25):
        env.reset(options={"deck": equal_aces_deck(), "previous_order": [0, 2, 1, 3], "deal_seed": deal_seed})
        give(env, "AS")
        give(env, "AD")
        coin = uniform_index(stream(np.uint64(deal_seed), R.EQUAL_TRIBUTE_STREAM + 0), 2)
        first_payer = [1, 3][coin]
        assert env.state.return_to[0] == first_payer and env.state.leader == first_payer
        seen.add(first_payer)
    assert seen == {1, 3}


def test_resistance_with_both_red_jokers():
    # worked example 20: previous order 0, 2, then 1 and 3; players 1 and 3 hold one red joker each
    env = raw_env()
    env.reset(seed=0, options={"deck": deck("", "RJ", "", "RJ"), "previous_order": [0, 2, 1, 3]})
    s = env.state
    assert s.resisted and s.phase == R.PLAY and s.to_move == 0 and s.n_payers == 2
    obs = observation(env, 2)  # player_2's relative seats: player_1 is 3, player_3 is 1
    assert obs["resisted"][0] == 1 and obs["red_jokers"].tolist() == [0, 1, 0, 1]
    assert s.n_cards.tolist() == [27] * 4
    # one payer with both (a single tribute: previous order 0, 1, 2, 3, player_3 pays)
    env.reset(seed=0, options={"deck": deck("", "", "", "RJ RJ"), "previous_order": [0, 1, 2, 3]})
    assert env.state.resisted and env.state.to_move == 0
    # BJ BJ resists nothing
    env.reset(seed=0, options={"deck": deck("RJ RJ", "BJ", "", "BJ"), "previous_order": [0, 2, 1, 3]})
    assert not env.state.resisted and env.state.phase == R.PAY


def test_no_tribute_option_lets_the_previous_first_finisher_lead():
    env = raw_env(tribute=False)
    env.reset(seed=0, options={"previous_order": [3, 0, 1, 2], "levels": ["2", "9"]})
    s = env.state
    assert s.phase == R.PLAY and s.to_move == 3 and s.n_payers == 0 and s.hand_level == 7


def test_return_with_nothing_low_gives_the_lowest():
    # worked example 21 at level 7: the receiver (player_0) holds no card of 2..10 but 7s: its lowest is QC
    p0 = "QC " + "KS KC KD KH " * 2 + "AS AC AD AH " * 2 + "7S 7C 7D 7H " * 2 + "BJ BJ"
    env = raw_env()
    # player_3 pays its red joker (the other is player_1's, so no resistance)
    deal = deck(p0, "RJ", "", "RJ")
    env.reset(seed=0, options={"deck": deal, "previous_order": [0, 1, 2, 3], "levels": ["7", "2"]})
    assert env.state.to_move == 3 and env.state.hand_level == 5
    give(env, sorted(legal_cards(env), key=parse_card)[0])
    assert env.state.to_move == 0 and legal_cards(env) == {"QC"}


@pytest.mark.parametrize(
    "return_rule, previous, expect_limited",
    [
        ("max10", [0, 1, 2, 3], True),  # to an opponent: 2..10 only
        ("max10_partner", [0, 1, 2, 3], False),  # to an opponent: anything
        ("max10_partner", [0, 1, 3, 2], True),  # after a 1-4, to one's own partner: 2..10 only
        ("any", [0, 1, 3, 2], False),
    ],
)
def test_return_rules(return_rule, previous, expect_limited):
    p0 = "2S 5S 9D TD JS QC KH AS BJ RJ " + "3S 3C 3D 3H " * 2 + "4S 4C 4D 4H 6S 6C 6D 6H 8S"
    env = raw_env(return_rule=return_rule)
    env.reset(seed=0, options={"deck": deck(p0), "previous_order": previous})  # level 2
    give(env, sorted(legal_cards(env), key=parse_card)[-1])
    assert env.state.to_move == 0
    mine = {code for code, _ in held(env, 0).items()}
    if expect_limited:  # ranks 3..10 (2 is the level rank), no joker
        assert legal_cards(env) == {c for c in mine if c[0] in "3456789T"}
    else:
        assert legal_cards(env) == mine


# ------------------------------------------------------------------ levels and the match
def match_env(**options):
    env = raw_env(episode="match", **options)
    env.reset(seed=0)
    return env


def set_levels(env, levels, declarer, failures=(0, 0)):
    s = env.state
    s.levels[:] = levels
    s.declarer = declarer
    s.hand_level = levels[declarer]
    s.a_failures[:] = failures


def test_level_gains_and_no_level_past_ace():
    env = match_env()
    set_levels(env, [11, 0], 0)  # team 0 at K
    finish(env, [0, 2])  # +3: K + 3 = A, no further
    s = env.state
    assert s.levels.tolist() == [12, 0] and s.declarer == 0 and s.hand_level == 12 and s.status == kernels.RUNNING
    assert s.previous.tolist()[:2] == [0, 2] and env.scores().tolist() == [3, -3, 3, -3]
    set_levels(env, [3, 4], 0)
    finish(env, [1, 0, 3])  # team 1 +2, now declarer at 6
    assert s.levels.tolist() == [3, 6] and s.declarer == 1 and s.hand_level == 6
    finish(env, [1, 0, 2])  # team 1 +1
    assert s.levels.tolist() == [3, 7] and s.previous.tolist() == [1, 0, 2, 3]
    assert s.hands_played == 3 and s.deal_k == 3  # each hand its own deal


@pytest.mark.parametrize(
    "a_win, order, wins",
    [
        ("not_last", [0, 1, 2], True),  # 1-3
        ("not_last", [0, 2], True),  # 1-2
        ("double", [0, 1, 2], False),
        ("double", [0, 2], True),
        ("not_last", [0, 1, 3], False),  # 1-4 never wins
    ],
)
def test_match_ends_at_ace(a_win, order, wins):
    env = match_env(a_win=a_win)
    set_levels(env, [12, 4], 0)
    finish(env, order)
    s = env.state
    assert (s.status == kernels.OVER) == wins
    if wins:
        assert s.match_winner == 0
        out = np.zeros(4)
        R.outcome(env.states, 0, env.params, out)
        assert out.tolist() == [1, -1, 1, -1]
    else:
        assert s.a_failures.tolist() == [1, 0] and s.levels[0] == 12


def test_a_attempts_and_demotion():
    # worked example 22: team 0 at A and declarer
    env = match_env()
    set_levels(env, [12, 5], 0)
    s = env.state
    finish(env, [0, 1, 3])  # 1-4: stays at A and declarer, failed attempt 1
    assert s.levels.tolist() == [12, 5] and s.a_failures.tolist() == [1, 0] and s.hand_level == 12
    finish(env, [1, 2, 3])  # team 1 first (1-3, +2), still at A for team 0: failed attempt 2
    assert s.levels.tolist() == [12, 7] and s.a_failures.tolist() == [2, 0] and s.declarer == 1
    assert s.hand_level == 7
    finish(env, [0, 1, 3])  # at team 1's level: no attempt for team 0; it is declarer at A again
    assert s.a_failures.tolist() == [2, 0] and s.declarer == 0 and s.hand_level == 12
    finish(env, [0, 1, 3])  # third failure: back to 2, the count restarts
    assert s.levels.tolist() == [0, 7] and s.a_failures.tolist() == [0, 0] and s.hand_level == 0
    assert s.status == kernels.RUNNING


def test_no_demotion_with_zero_attempts_and_both_teams_at_ace():
    env = match_env(a_attempts=0)
    set_levels(env, [12, 12], 0)
    finish(env, [0, 1, 3])  # an attempt for both, failed for both
    assert env.state.a_failures.tolist() == [1, 1] and env.state.levels.tolist() == [12, 12]
    for _ in range(5):
        finish(env, [0, 1, 3])
    assert env.state.a_failures.tolist() == [6, 6] and env.state.levels.tolist() == [12, 12]
    finish(env, [1, 3])  # team 1, at A in a hand at A, wins the match though team 0 is declarer
    assert env.state.status == kernels.OVER and env.state.match_winner == 1


def test_match_truncated_at_max_hands():
    env = raw_env(episode="match", max_hands=2)
    rng = np.random.default_rng(5)
    play_episode(env, lambda seat, obs: int(rng.choice(np.flatnonzero(obs["action_mask"]))), seed=4)
    s = env.state
    assert s.hands_played == 2 and s.status == kernels.TRUNCATED
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.outcome().tolist() == [0, 0, 0, 0]
    assert abs(env.scores()).sum() > 0  # the hands' points are still counted


def test_a_whole_match_has_tribute_and_ends():
    env = raw_env(episode="match")
    rng = np.random.default_rng(1)
    phases = set()

    def choose(seat, obs):
        phases.add(int(env.state.phase))
        return int(rng.choice(np.flatnonzero(obs["action_mask"])))

    play_episode(env, choose, seed=11)
    s = env.state
    assert phases >= {R.PAY, R.RETURN, R.PLAY}
    assert s.status in (kernels.OVER, kernels.TRUNCATED) and s.hands_played >= 2
    if s.status == kernels.OVER:
        assert s.levels[s.match_winner] == 12 and s.hand_level == 12


# ------------------------------------------------------------------ the env
@pytest.mark.parametrize("variant", list(guandan_env.GuandanEnv.VARIANTS))
def test_api_and_seed(variant):
    api_test(guandan_env.env(variant=variant), num_cycles=300)
    api_test(guandan_env.raw_env(variant=variant), num_cycles=300)
    seed_test(lambda: guandan_env.env(variant=variant), num_cycles=300)


def test_layout_matches_the_rules():
    layout = guandan_env.LAYOUT
    assert tuple(s.name for s in layout.segments) == R.SEGMENTS
    assert layout.dtype == np.int8
    env = raw_env()
    env.reset(seed=2)
    parts = observation(env, 0)
    assert parts["hand"].sum() == 27 and parts["cards_left"].tolist() == [27] * 4
    assert parts["phase"].tolist() == [0, 0, 1] and parts["hand_level"][0] == 1
    assert parts["levels"].sum() == 2 and parts["declarer"].tolist() == [1, 0]


def test_a_pending_play_asks_for_suits_and_shows_only_to_its_player():
    env = raw_env()
    env.reset(seed=0)
    position(env, {0: "5S 5C 5D 9H", 1: "3S", 2: "4S", 3: "6S"}, to_move=0)
    pair_of_fives = moves.parse_move("5S 5C", env.state.hands[0].copy(), 0)[0]
    env.step(pair_of_fives)
    s = env.state
    assert s.pending == pair_of_fives and s.to_move == 0
    legal = env.legal_actions()
    assert len(legal) > 1 and all(moves.SUIT0 <= a < moves.NUM_ACTIONS for a in legal)
    mine, theirs = observation(env, 0), observation(env, 1)
    assert mine["pending_kind"][moves.PAIR] == 1 and mine["pending_natural"][3] == 2
    assert theirs["pending_kind"].sum() == 0
    env.step(int(legal[0]))
    assert s.pending == -1 and s.n_hist == 1 and s.to_move == 1 and s.n_cards[0] == 2
    # as a person plays it: the cards, then the same cards again for the suit choice
    env.reset(seed=0)
    position(env, {0: "5S 5C 5D 9H", 1: "3S", 2: "4S", 3: "6S"}, to_move=0)
    env.step(env.parse_action("5S 5D"))
    env.step(env.parse_action("5S 5D"))
    assert env.move_name() == "5S 5D" and held(env, 0) == Counter({"5C": 1, "9H": 1})


def test_action_names_and_parsing():
    env = raw_env()
    env.reset(seed=0)
    assert env.action_name(moves.PASS) == "pass"
    assert env.action_name(CARD0 + parse_card("RJ")) == "card RJ"
    assert env.action_name(moves.SUIT0 + 1 + 2 * 27) == "suits S1 C0 D0 H2"
    position(env, {0: "5S 6S 7S 8S 2H 9D", 1: "3S", 2: "4S", 3: "6D"}, to_move=0)
    play(env, "5S 6S 7S 8S 2H=sf9")
    assert env.move_name() == "5S 6S 7S 8S 2H=sf9"
    with pytest.raises(ValueError):
        env.parse_action("9D 9D")
    text = env.render_text()
    assert "to beat: 5S 6S 7S 8S 2H=sf9 by player_0" in text and "player_0 team 0: 9D" in text


# ------------------------------------------------------------------ random play with invariants
def reshuffled(states, viewer: int, rng) -> np.ndarray:
    """A copy of a one-game state in which the cards of the other seats' hands are dealt again among them
    (same counts), and tribute or return cards not yet shown are replaced by others: what ``viewer`` must not
    be able to tell apart."""
    out = states.copy()
    s = out[0]
    others = [q for q in range(4) if q != viewer]
    pool = np.concatenate([np.repeat(np.arange(54), s["hands"][q]) for q in others])
    rng.shuffle(pool)
    k = 0
    for q in others:
        n = int(s["hands"][q].sum())
        s["hands"][q] = np.bincount(pool[k : k + n], minlength=54)
        k += n
    if not s["tribute_shown"]:
        for i in range(int(s["n_paid"])):
            if s["payers"][i] != viewer:
                s["paid"][i] = rng.integers(54)
    if not s["returns_shown"]:
        for j in range(int(s["n_returned"])):
            if s["return_seats"][j] != viewer:
                s["returned"][j] = rng.integers(54)
    if s["to_move"] != viewer:  # another seat's play in progress is its own
        s["chosen"][:] = rng.integers(0, 3, 54)
    return out


@pytest.mark.parametrize("variant", ["default", "match"])
def test_observations_hold_no_hidden_cards(variant):
    env = raw_env(variant=variant, max_hands=4)
    rng = np.random.default_rng(7)
    size = guandan_env.LAYOUT.size
    steps = 0
    for game in range(3 if variant == "match" else 30):
        env.reset(seed=game)
        while env.agents:
            for viewer in range(4):
                mine = env._observe(viewer)
                other = np.zeros(size, dtype=np.int8)
                R.observe(reshuffled(env.states, viewer, rng), 0, env.params, viewer, other)
                assert np.array_equal(mine, other), f"player_{viewer} sees hidden cards at step {steps}"
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            assert np.array_equal(np.sort(env.card_locations()), np.sort(env.deck))
            legal = env.legal_actions()
            assert len(legal) > 0
            env.step(int(rng.choice(legal)))
            steps += 1
    assert steps > 1000


def test_random_play_over_2000_hands_in_the_vector_env():
    """Masks never empty, 108 cards in every game at every step, the teams' hand results opposite, and every
    50 steps every seat's observation of every game unchanged by reshuffling what it cannot see."""
    from cardenvs import vector

    B = 100
    v = vector.make("guandan", B)
    obs, info = v.reset(seed=2026)
    rng = np.random.default_rng(3)
    state = v._b.state
    hands_done = 0
    steps = 0
    while hands_done < 2000:
        mask = obs["action_mask"]
        assert mask.any(axis=1).all(), "an empty mask while the game is on"
        # 108 cards in every game: hands, played cards and tribute or return cards in transit
        count = state["hands"].sum(axis=(1, 2), dtype=np.int64) + state["played"].sum(axis=(1, 2), dtype=np.int64)
        count += np.where(state["tribute_shown"], 0, state["n_paid"]) + np.where(
            state["returns_shown"], 0, state["n_returned"]
        )
        assert (count == 108).all()
        if steps % 50 == 0:  # every game's observations, each seat's, against reshuffled hidden cards
            size = guandan_env.LAYOUT.size
            for b in range(B):
                for viewer in range(4):
                    mine = np.zeros(size, dtype=np.int8)
                    other = np.zeros(size, dtype=np.int8)
                    R.observe(state[b : b + 1], 0, v._b.params, viewer, mine)
                    R.observe(reshuffled(state[b : b + 1], viewer, rng), 0, v._b.params, viewer, other)
                    assert np.array_equal(mine, other), f"game {b}: player_{viewer} sees hidden cards"
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
        obs, rewards, terminated, truncated, info = v.step(actions)
        steps += 1
        ended = np.flatnonzero(terminated | truncated)
        assert not truncated.any()
        for b in ended:
            r = rewards[b]
            assert r[0] == r[2] and r[1] == r[3] and r[0] == -r[1] and abs(r[0]) in (1, 2, 3)
        hands_done += len(ended)
    assert steps > 2000
