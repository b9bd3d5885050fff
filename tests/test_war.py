"""War: rules scenarios through stacked decks, the exact sweep probability and the simulator."""
from fractions import Fraction

import numpy as np
import pytest

from cardenvs.analysis.war import brute_force_p_sweep, p_sweep, simulate_lengths
from cardenvs.core.cards import card_code, format_cards, make_deck, parse_cards
from cardenvs.games.war import rules
from cardenvs.games.war.env import raw_env


def stacked(p0_cards: str, p1_cards: str) -> list[str]:
    """A full deck: player_0's first cards, player_1's first cards, the rest filled in canonical order."""
    first0, first1 = parse_cards(p0_cards), parse_cards(p1_cards)
    rest = [c for c in make_deck() if c not in first0 + first1]
    p0 = first0 + rest[: 26 - len(first0)]
    p1 = first1 + rest[26 - len(first0):]
    return format_cards(p0 + p1).split()


def flip_until(env, battles):
    while env.state[rules.BATTLES] < battles and env.agents:
        env.step(0)


def test_higher_rank_wins_and_cards_go_under_winner_pile():
    env = raw_env(reward="points")
    env.reset(options={"deck": stacked("KS", "3H")})
    env.step(0)  # player_0 flips KS
    assert env.agent_selection == "player_1"
    env.step(0)  # player_1 flips 3H: player_0 wins both cards
    pile0 = list(rules.pile_cards(env.state, 0))
    assert [card_code(c) for c in pile0[-2:]] == ["KS", "3H"]  # own card first, then the loser's
    assert env.infos["player_0"]["score"] == 27 and env.infos["player_1"]["score"] == 25
    # points reward = change in cards held: player_1's flip cost it one card, player_0 got back its own
    # KS from the table plus the 3H
    assert env.rewards == {"player_0": 2.0, "player_1": -1.0}


def test_war_with_one_face_down():
    # 7 v 7 ties; each puts one down (2S v 3S) and one up (KD v QD): player_0 takes all six
    env = raw_env(war_face_down=1)
    env.reset(options={"deck": stacked("7S 2S KD", "7H 3S QD")})
    env.step(0)
    env.step(0)
    assert env.state[rules.IN_WAR] == 1 and env.state[rules.BATTLES] == 0
    env.step(0)
    env.step(0)
    assert env.state[rules.BATTLES] == 1
    assert env.infos["player_0"]["score"] == 29
    pile0 = [card_code(c) for c in rules.pile_cards(env.state, 0)]
    assert pile0[-6:] == ["7S", "2S", "KD", "7H", "3S", "QD"]


def test_war_with_three_face_down():
    env = raw_env(war_face_down=3)
    env.reset(options={"deck": stacked("9S 2S 3S 4S 5S", "9H 2H 3H 4H AH")})
    for _ in range(4):
        env.step(0)
    assert env.infos["player_1"]["score"] == 26 + 5 and env.infos["player_0"]["score"] == 26 - 5


def hand_state(p0: str, p1: str) -> np.ndarray:
    """A rules state with the given piles (a unit-level position; not a full deck)."""
    s = rules.new_state(np.array(make_deck()), 1)
    s[rules.SIZE] = s[rules.SIZE + 1] = 0
    s[rules.HEAD] = s[rules.HEAD + 1] = 0
    for p, cards in ((0, p0), (1, p1)):
        for c in parse_cards(cards):
            rules._put_bottom(s, p, c)
    return s


def test_short_of_cards_in_war_plays_what_it_has():
    # 2S v 2C tie. player_0 puts 9D down and 3D up; player_1 has one card left, so it puts no card
    # down and its last card 4C face up. 4C beats 3D: player_1 takes 2C 4C (own, in order) then 2S 9D 3D.
    s = hand_state("2S 9D 3D", "2C 4C")
    for _ in range(4):
        rules.flip(s, 1, False, False)
    assert [card_code(c) for c in rules.pile_cards(s, 1)] == ["2C", "4C", "2S", "9D", "3D"]
    assert s[rules.SIZE] == 0 and s[rules.RESULT] == 1


def test_running_out_in_a_war_loses_and_both_out_is_a_draw():
    s = hand_state("5S 9D", "5H")
    rules.flip(s, 1, False, False)
    rules.flip(s, 1, False, False)  # 5 v 5: player_1 has nothing left for the war and loses
    assert s[rules.RESULT] == 0
    s2 = hand_state("5S", "5H")
    rules.flip(s2, 1, False, False)
    rules.flip(s2, 1, False, False)
    assert s2[rules.RESULT] == rules.DRAW


def test_single_pass_scores_battles_and_ties_go_to_nobody():
    env = raw_env(single_pass=True, reward="points")
    env.reset(options={"deck": stacked("AS 5S 7S", "KH 5H 9H")})
    for _ in range(6):
        env.step(0)
    # battles: A>K (player_0), 5=5 (nobody), 7<9 (player_1)
    assert env.infos["player_0"]["score"] == 1 and env.infos["player_1"]["score"] == 1
    assert env.state[rules.IN_WAR] == 0
    while env.agents and not any(env.terminations.values()):
        env.step(0)
    assert env.state[rules.BATTLES] == 26


def test_truncation_after_max_turns():
    env = raw_env(max_turns=3)
    env.reset(seed=0)
    while not any(env.truncations.values()) and not any(env.terminations.values()):
        env.step(0)
    assert env.state[rules.BATTLES] == 3 or any(env.terminations.values())
    if any(env.truncations.values()):
        assert all(r == 0 for r in env._cumulative_rewards.values())


def test_shuffle_won_is_reproducible_and_uses_the_dealing_seed():
    def pile_after(seed):
        env = raw_env(shuffle_won=True)
        env.reset(seed=seed)
        for _ in range(40):
            env.step(0)
        return list(rules.pile_cards(env.state, 0))
    assert pile_after(4) == pile_after(4)


def test_p_sweep_values():
    assert p_sweep() == pytest.approx(3.132436174322294e-09, rel=1e-12)
    assert p_sweep(8, 1) == pytest.approx(0.0625)
    assert p_sweep(4, 2) == pytest.approx(0.03571428571428571)
    for n in range(1, 30):  # all ranks distinct: (1/2) ** turns
        assert p_sweep(2 * n, 1, exact=True) == Fraction(1, 2 ** n)
    assert p_sweep(4, 2, exact=True) == Fraction(1, 28)


@pytest.mark.parametrize("ranks,suits", [(2, 1), (4, 1), (6, 1), (8, 1), (2, 2), (2, 3), (3, 2), (2, 4), (4, 2)])
def test_p_sweep_matches_brute_force(ranks, suits):
    assert p_sweep(ranks, suits, exact=True) == brute_force_p_sweep(ranks, suits)


def test_p_sweep_bad_deck():
    with pytest.raises(ValueError, match="even"):
        p_sweep(3, 1)


def test_simulator_agrees_with_env():
    """The numba simulator and the AEC env play the same game from the same deck."""
    sim = simulate_lengths(50, seed=9, max_turns=3000)
    assert sim["lengths"].shape == (50,) and (sim["lengths"] > 0).all()
    rng = np.random.default_rng(9)
    deck = rng.permutation(make_deck())
    env = raw_env(max_turns=3000)
    env.reset(options={"deck": format_cards(deck).split()})
    while env.agents and not (any(env.terminations.values()) or any(env.truncations.values())):
        env.step(0)
    assert env.state[rules.BATTLES] == sim["lengths"][0]
