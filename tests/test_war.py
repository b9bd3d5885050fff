"""War: rules scenarios through stacked decks, the exact sweep probability and the simulator."""

from fractions import Fraction

import numpy as np
import pytest

from cardenvs.core.cards import card_code, format_cards, make_deck, parse_cards
from cardenvs.games.war import rules
from cardenvs.games.war.env import raw_env
from cardenvs.games.war.study import brute_force_p_sweep, p_sweep, simulate_lengths


def stacked(p0_cards: str, p1_cards: str) -> list[str]:
    """A full deck: player_0's first cards, player_1's first cards, the rest filled in canonical order."""
    first0, first1 = parse_cards(p0_cards), parse_cards(p1_cards)
    rest = [c for c in make_deck() if c not in first0 + first1]
    p0 = first0 + rest[: 26 - len(first0)]
    p1 = first1 + rest[26 - len(first0) :]
    return format_cards(p0 + p1).split()


def flip_until(env, battles):
    while env.state.battles < battles and env.agents:
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
    assert env.state.in_war == 1 and env.state.battles == 0
    env.step(0)
    env.step(0)
    assert env.state.battles == 1
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
    """A rules state (a batch of one game) with the given piles (a unit-level position; not a full deck)."""
    s = np.zeros(1, dtype=rules.STATE)
    rules.deal(s, 0, np.array(make_deck()), 1)
    s["held"][0] = s["head"][0] = 0
    for p, cards in ((0, p0), (1, p1)):
        for c in parse_cards(cards):
            rules._put_bottom(s, 0, p, c)
    return s


def flip(s: np.ndarray, war_face_down: int = 1) -> None:
    rules.apply(s, 0, rules.make_params(war_face_down), 0)


def test_short_of_cards_in_war_plays_what_it_has():
    # 2S v 2C tie. player_0 puts 9D down and 3D up; player_1 has one card left, so it puts no card
    # down and its last card 4C face up. 4C beats 3D: player_1 takes 2C 4C (own, in order) then 2S 9D 3D.
    s = hand_state("2S 9D 3D", "2C 4C")
    for _ in range(4):
        flip(s, 1)
    assert [card_code(c) for c in rules.pile_cards(s[0], 1)] == ["2C", "4C", "2S", "9D", "3D"]
    assert s[0]["held"][0] == 0 and s[0]["result"] == 1


def test_running_out_in_a_war_loses_and_both_out_is_a_draw():
    s = hand_state("5S 9D", "5H")
    flip(s, 1)
    flip(s, 1)  # 5 v 5: player_1 has nothing left for the war and loses
    assert s[0]["result"] == 0
    s2 = hand_state("5S", "5H")
    flip(s2, 1)
    flip(s2, 1)
    assert s2[0]["result"] == rules.DRAW


def test_running_out_in_a_war_leaves_the_war_on_the_table():
    # player_0 flips 9..A (24 cards) then 8C 8D; player_1 flips 8S, 2..7 (24 cards), then 8H. player_0 wins
    # battles 1..25 (each won pair goes under its pile, so its 26th flip is still its own 8D); battle 26 is
    # 8D v 8H, a tie, and player_1 has no card left: player_0 wins holding 50 cards, 8D 8H stay on the table
    high = " ".join(r + s for r in "9TJQKA" for s in "SCDH")
    low = " ".join(r + s for r in "234567" for s in "SCDH")
    deck = stacked(high + " 8C 8D", "8S " + low + " 8H")
    for reward, want in (("points", [24.0, -26.0]), ("win", [1.0, -1.0])):
        env = raw_env(reward=reward)
        env.reset(options={"deck": deck})
        total = np.zeros(2)
        while not any(env.terminations.values()):
            env.step(0)
            total += [env.rewards["player_0"], env.rewards["player_1"]]
        assert env.state.battles == 26 and env.state.result == 0
        assert format_cards(env.state.table[:, 0]) == "8D 8H" and env.state.table_n.tolist() == [1, 1]
        assert env.infos["player_0"]["score"] == 50 and env.infos["player_1"]["score"] == 0
        # points: the change in cards held, 50 - 26 and 0 - 26, summing to minus the two cards on the table
        assert total.tolist() == want


def test_single_pass_rejects_the_options_it_would_ignore():
    for options in ({"war_face_down": 3}, {"shuffle_won": True}, {"war_face_down": 0, "shuffle_won": True}):
        with pytest.raises(ValueError, match="single_pass=True.*war_face_down and shuffle_won"):
            raw_env(single_pass=True, **options)
    with pytest.raises(ValueError, match="war_face_down and shuffle_won"):
        simulate_lengths(1, single_pass=True, shuffle_won=True)
    raw_env(single_pass=True, war_face_down=1, shuffle_won=False)  # the defaults, given explicitly: fine


def test_single_pass_scores_battles_and_ties_go_to_nobody():
    env = raw_env(single_pass=True, reward="points")
    env.reset(options={"deck": stacked("AS 5S 7S", "KH 5H 9H")})
    for _ in range(6):
        env.step(0)
    # battles: A>K (player_0), 5=5 (nobody), 7<9 (player_1)
    assert env.infos["player_0"]["score"] == 1 and env.infos["player_1"]["score"] == 1
    assert env.state.in_war == 0
    while env.agents and not any(env.terminations.values()):
        env.step(0)
    assert env.state.battles == 26


def test_truncation_after_max_turns():
    env = raw_env(max_turns=3)
    env.reset(seed=0)
    while not any(env.truncations.values()) and not any(env.terminations.values()):
        env.step(0)
    assert env.state.battles == 3 or any(env.terminations.values())
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
        assert p_sweep(2 * n, 1, exact=True) == Fraction(1, 2**n)
    assert p_sweep(4, 2, exact=True) == Fraction(1, 28)


@pytest.mark.parametrize("ranks,suits", [(2, 1), (4, 1), (6, 1), (8, 1), (2, 2), (2, 3), (3, 2), (2, 4), (4, 2)])
def test_p_sweep_matches_brute_force(ranks, suits):
    assert p_sweep(ranks, suits, exact=True) == brute_force_p_sweep(ranks, suits)


def test_p_sweep_bad_deck():
    with pytest.raises(ValueError, match="even"):
        p_sweep(3, 1)
    for ranks, suits in ((3, 3), (3, 1), (0, 2)):  # odd or empty decks: the same error from the brute force
        with pytest.raises(ValueError, match="even, non-empty deck"):
            brute_force_p_sweep(ranks, suits)


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
    assert env.state.battles == sim["lengths"][0]


def test_numba_policy_plays_the_only_action():
    """War has one action: the numba policy ``flip`` plays it in every position of every variant."""
    from cardenvs.core.rng import stream
    from cardenvs.games.war import policies
    from cardenvs.games.war.env import WarEnv

    positions = 0
    for options in WarEnv.VARIANTS.values():
        env = raw_env(**options)
        for seed in range(4):
            env.reset(seed=seed)
            rng = stream(np.uint64(seed), 0)
            for _ in range(300):
                if not env.agents or any(env.terminations.values()) or any(env.truncations.values()):
                    break
                legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
                action = policies.policy(env.states, 0, env.params, 0, rng)
                assert legal.tolist() == [action]
                env.step(action)
                positions += 1
    assert positions > 2000
