"""Twenty: hand-counted scoring scenarios, the document's illustrative game replayed, the solver."""

from collections import defaultdict

import numpy as np
import pytest

from cardenvs.agent import load_agent
from cardenvs.agents.twenty import SolverAgent
from cardenvs.core.cards import RANKS, SUITS, make_deck
from cardenvs.games.twenty import rules
from cardenvs.games.twenty.env import raw_env
from cardenvs.games.twenty.solver import expected_best_gain, solve


class DeckBuilder:
    """Turns written values/ranks ('K J 6 4 2') into card codes, giving each rank its next unused suit."""

    def __init__(self):
        self.used = defaultdict(int)

    def cards(self, written: str) -> list[str]:
        out = []
        for rank in written.split():
            rank = "A" if rank == "1" else rank
            k = self.used[rank]
            assert k < 4, f"more than four cards of rank {rank}"
            self.used[rank] += 1
            out.append(rank + SUITS[k])
        return out

    def rest(self) -> list[str]:
        return [r + SUITS[k] for r in RANKS for k in range(self.used[r], 4)]


def round_deck(bonus: str, hands: list[tuple[str, str]]) -> list[str]:
    """Two bonus cards, then (leader hand, follower hand) for each of the five hands."""
    b = DeckBuilder()
    deck = b.cards(bonus)
    for leader, follower in hands:
        deck += b.cards(leader) + b.cards(follower)
    assert not b.rest(), f"the written hands leave {b.rest()} out"
    return deck


def play_values(env, values: list[int]):
    for v in values:
        env.step(v - 1)


# ------------------------------------------------------------------ scoring rules, hand-counted
def test_points_for_each_rule():
    assert rules.points_for(12, 2, 8) == (10, True)  # Exact Twenty
    assert rules.points_for(15, 2, 10) == (5, True)  # Beyond Twenty: 25 - 20
    assert rules.points_for(10, 4, 2) == (15, False)  # Five Tally, tally 12 < 20, not cleared
    assert rules.points_for(12, 5, 3) == (30, False)  # Six Tally doubles
    assert rules.points_for(15, 6, 1) == (60, False)  # Seven Tally: 15 / 30 / 60
    assert rules.points_for(15, 5, 5) == (10, True)  # Exact Twenty on a sixth card: 10, clears
    assert rules.points_for(5, 2, 3) == (0, False)
    assert rules.bonus_value(3, 9) == 6 and rules.bonus_value(10, 10) == 10 and rules.bonus_value(7, 3) == 4


def make_round_deck_from_values(bonus=("3", "9"), leader=None, follower=None):
    """A round deck whose first hand pair is given; the rest filled in canonical order."""
    b = DeckBuilder()
    deck = b.cards(" ".join(bonus)) + b.cards(leader) + b.cards(follower)
    return deck + b.rest()


def test_doubling_chain_and_exact_twenty_on_sixth_card():
    # player_0 holds A 2 2 3 9, player_1 A A 2 3 6; they alternate, player_0 first:
    # A(1) A(2) 2(4) 2(6) | 2(8: fifth card, 15) 3(11: sixth, 30) 3(14: seventh, 60) 6(20: exact, 10)
    env = raw_env(reward="points", rounds=1)
    env.reset(options={"deck": make_round_deck_from_values(leader="A 2 2 3 9", follower="A A 2 3 6")})
    play_values(env, [1, 1, 2, 2])  # tally 6, four cards
    play_values(env, [2])  # player_0: fifth card, tally 8 -> Five Tally 15
    assert env.state.scores.tolist() == [15, 0] and env.state.tally == 8
    play_values(env, [3])  # player_1: sixth card, tally 11 -> Six Tally 30
    assert env.state.scores.tolist() == [15, 30]
    play_values(env, [3])  # player_0: seventh card, tally 14 -> Seven Tally 60
    assert env.state.scores.tolist() == [75, 30] and env.state.tally_n == 7
    play_values(env, [6])  # player_1: tally 20 on the eighth card: Exact Twenty, 10, clears
    assert env.state.scores.tolist() == [75, 40] and env.state.tally == 0 and env.state.tally_n == 0
    assert env.rewards["player_1"] == 10


def test_beyond_twenty_clears_and_scores_the_excess():
    env = raw_env(reward="points", rounds=1)
    env.reset(options={"deck": make_round_deck_from_values(leader="K Q 2 3 4", follower="9 5 6 7 8")})
    play_values(env, [10, 9, 10])  # 10, 19, 29: player_0 scores 9 and clears
    assert env.state.scores.tolist() == [9, 0] and env.state.tally == 0 and env.state.last_scorer == 0


def test_bonus_goes_to_nobody_when_nobody_scored():
    state = np.zeros(1, dtype=rules.STATE)
    params = rules.make_params(rounds=1)
    deck = np.array(make_deck())
    params["stacked"][0, 0] = deck
    params["n_stacked"] = 1
    rules.init(state, 0, params, np.uint64(0))
    s = state[0]
    s["stock_pos"] = rules.DECK_SIZE  # last hand of the round: one card each, nobody scores
    s["hands"][:, 0] = deck[2], deck[7]  # 2S (value 2) and 3D (value 3)
    s["hand_n"] = 1
    s["last_scorer"] = -1
    rules.apply(state, 0, params, 2 - 1)
    rules.apply(state, 0, params, 3 - 1)
    assert s["round_index"] == 1  # the round ended
    assert s["scores"].tolist() == [0, 0] and s["over"]


def test_tally_carries_over_and_new_hands_come_together():
    env = raw_env(rounds=1)
    env.reset(seed=4)
    for _ in range(10):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    s = env.state
    assert s.hand_index == 1 and s.hand_n[0] == 5 and s.hand_n[1] == 5 and rules.DECK_SIZE - s.stock_pos == 30
    assert env.agent_selection == "player_0"  # the round's leader leads every hand


# ------------------------------------------------------------------ the document's illustrative game
ROUND_1 = (
    "3 9",
    [
        ("8 5 5 4 2", "T 9 8 2 A"),
        ("K J 6 4 2", "K Q T T 6"),
        ("J 7 7 2 A", "J T 9 3 3"),
        ("K J 8 3 A", "9 8 6 5 4"),
        ("K Q 7 5 A", "Q Q 7 6 4"),
    ],
)
ROUND_2 = (
    "4 2",
    [
        ("Q T 8 5 A", "K T 8 6 5"),
        ("J 8 7 7 6", "K T 9 6 2"),
        ("9 8 7 6 2", "Q J 7 5 A"),
        ("K Q 4 3 2", "Q J 5 4 3"),
        ("9 4 3 A A", "K J T 9 3"),
    ],
)
# (values played in order, tally after each card, points of each card); the leader plays first
PLAYS = [
    ([8, 1, 2, 9, 5, 2, 4, 10, 5, 8], [8, 9, 11, 20, 5, 7, 11, 21, 5, 13], [0, 0, 0, 10, 0, 0, 0, 1, 0, 0]),
    ([10, 6, 2, 10, 10, 10, 4, 10, 6, 10], [23, 6, 8, 18, 28, 10, 14, 24, 6, 16], [3, 0, 0, 0, 8, 0, 0, 4, 0, 0]),
    ([7, 9, 2, 10, 7, 10, 10, 3, 1, 3], [23, 9, 11, 21, 7, 17, 27, 3, 4, 7], [3, 0, 0, 1, 0, 0, 7, 0, 0, 0]),
    ([1, 4, 3, 5, 8, 6, 10, 9, 10, 8], [8, 12, 15, 20, 8, 14, 24, 9, 19, 27], [0, 15, 30, 10, 0, 0, 4, 0, 0, 7]),
    ([7, 4, 10, 7, 1, 6, 10, 10, 5, 10], [7, 11, 21, 7, 8, 14, 24, 10, 15, 25], [0, 0, 1, 0, 0, 0, 4, 0, 0, 5]),
    ([8, 5, 10, 8, 1, 6, 5, 10, 10, 10], [8, 13, 23, 8, 9, 15, 20, 10, 20, 10], [0, 0, 3, 0, 0, 0, 10, 0, 10, 0]),
    ([10, 9, 6, 10, 8, 6, 7, 10, 7, 2], [20, 9, 15, 25, 8, 14, 21, 10, 17, 19], [10, 0, 0, 5, 0, 0, 1, 0, 0, 0]),
    ([8, 7, 2, 1, 6, 10, 9, 10, 7, 5], [27, 7, 9, 10, 16, 26, 9, 19, 26, 5], [7, 0, 0, 0, 0, 6, 0, 0, 6, 0]),
    ([4, 3, 10, 5, 3, 4, 10, 10, 2, 10], [9, 12, 22, 5, 8, 12, 22, 10, 12, 22], [0, 0, 2, 0, 0, 0, 2, 0, 0, 2]),
    ([9, 3, 1, 10, 4, 9, 1, 10, 3, 10], [9, 12, 13, 23, 4, 13, 14, 24, 3, 13], [0, 0, 0, 3, 0, 0, 0, 4, 0, 0]),
]
# (Albert, Bertha) after each hand; Albert is player_0 (leads round 1), Bertha player_1 (leads round 2)
SCORES = [(0, 11), (11, 15), (21, 16), (55, 48), (60, 59), (60, 82), (65, 93), (71, 106), (73, 110), (82, 110)]


def test_illustrative_game_replays_exactly():
    deck = [round_deck(*ROUND_1), round_deck(*ROUND_2)]
    env = raw_env(reward="points")
    env.reset(options={"deck": deck})
    for hand, ((values, tallies, points), want) in enumerate(zip(PLAYS, SCORES, strict=True)):
        for v, tally, pts in zip(values, tallies, points, strict=True):
            env.step(v - 1)
            s = env.state
            value, after, got = int(s.last_value), int(s.last_after), int(s.last_points)
            assert (value, after, got) == (v, tally, pts), f"hand {hand}: {(value, after, got)}"
        assert tuple(env.state.scores) == want, f"after hand {hand + 1}"
        assert env.infos.get("player_0", {"score": want[0]})["score"] == want[0]
    assert env.state.over and all(env.terminations.values())
    assert env.outcome().tolist() == [-1.0, 1.0]  # Bertha wins 110 - 82


def test_illustrative_game_win_reward():
    env = raw_env()
    env.reset(options={"deck": [round_deck(*ROUND_1), round_deck(*ROUND_2)]})
    total = {"player_0": 0.0, "player_1": 0.0}
    for values, _, _ in PLAYS:
        for v in values:
            env.step(v - 1)
            for a, r in env.rewards.items():
                total[a] += r
    assert total == {"player_0": -1.0, "player_1": 1.0}


def test_swap_deals_exchanges_the_hands():
    env = raw_env(swap_deals=True, exposed_hands=True)
    env.reset(seed=8)
    round1 = [rules.hand_cards(env.state, 0), rules.hand_cards(env.state, 1)]
    while env.state.round_index == 0:
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert rules.hand_cards(env.state, 0) == round1[1] and rules.hand_cards(env.state, 1) == round1[0]
    assert env.state.leader == 1


def value_counts(written: str) -> list[int]:
    """Counts of values A..T of written ranks ('K J 6 4 2': T J Q K count as 10)."""
    out = [0] * 10
    for rank in written.split():
        value = 1 if rank == "A" else 10 if rank in ("T", "J", "Q", "K") else int(rank)
        out[value - 1] += 1
    return out


@pytest.mark.parametrize("exposed", [False, True])
def test_swapped_round_shows_the_remembered_hands(exposed):
    # round 1 of the illustrative game, then round 2 from the same deck (swap_deals): player_1 leads round 2
    # and gets the leader's block of each hand, i.e. player_0's round-1 hands; player_0 gets player_1's
    leader_hands = [h[0] for h in ROUND_1[1]]  # "8 5 5 4 2", "K J 6 4 2", ...
    follower_hands = [h[1] for h in ROUND_1[1]]  # "T 9 8 2 A", "K Q T T 6", ...
    env = raw_env(swap_deals=True, exposed_hands=exposed)
    env.reset(options={"deck": [round_deck(*ROUND_1)]})

    def known(agent):
        return env.layout.decode(env.observe(agent)["observation"])["replayed_hands"].astype(int).tolist()

    assert known("player_0") == [[[0] * 10] * 2] * 5  # round 1: nothing known in advance
    for values, _, _ in PLAYS[:5]:
        play_values(env, values)
    assert env.state.round_index == 1 and env.agent_selection == "player_1"
    # hand 0 for player_1 (own, opponent): 8 5 5 4 2 -> one 2, one 4, two 5s, one 8; T 9 8 2 A
    assert known("player_1")[0] == [[0, 1, 0, 1, 2, 0, 0, 1, 0, 0], [1, 1, 0, 0, 0, 0, 0, 1, 1, 1]]
    assert known("player_1") == [
        [value_counts(a), value_counts(b)] for a, b in zip(leader_hands, follower_hands, strict=True)
    ]
    assert known("player_0") == [
        [value_counts(b), value_counts(a)] for a, b in zip(leader_hands, follower_hands, strict=True)
    ]
    play_values(env, [8])  # player_1 plays its 8
    assert known("player_0")[0] == [value_counts("T 9 8 2 A"), value_counts("5 5 4 2")]
    play_values(env, [1, 5, 2, 5, 8, 4, 9, 2, 10])  # the rest of hand 0, alternately from player_0
    assert env.state.hand_index == 1
    assert known("player_0")[0] == [[0] * 10, [0] * 10]
    assert known("player_0")[1] == [value_counts("K Q T T 6"), value_counts("K J 6 4 2")]


def test_next_award_is_zero_before_the_fifth_card():
    # n-Tally awards: cards 1..4 earn 0, the fifth 15, the sixth 30; player_0 holds A 2 2 3 9, player_1 A A 2 3 6
    env = raw_env(rounds=1)
    env.reset(options={"deck": make_round_deck_from_values(leader="A 2 2 3 9", follower="A A 2 3 6")})

    def next_award():
        return int(env.layout.decode(env.observe(env.agent_selection)["observation"])["next_award"][0])

    awards = [next_award()]
    for v in [1, 1, 2, 2, 2]:  # tally 1, 2, 4, 6, 8 from 1..5 cards (the fifth scores 15)
        env.step(v - 1)
        awards.append(next_award())
    assert awards == [0, 0, 0, 0, 15, 30]


def test_exposed_hands_observation():
    for exposed in (False, True):
        env = raw_env(exposed_hands=exposed)
        env.reset(seed=1)
        parts = env.layout.decode(env.observe("player_0")["observation"])
        assert parts["own_hand"].sum() == 5 and parts["opponent_hand_size"][0] == 5
        assert parts["opponent_hand"].sum() == (5 if exposed else 0)
        assert parts["seen"].sum() == 2  # the two bonus cards


def test_bad_options_and_input():
    with pytest.raises(ValueError, match="swap_deals=True needs an even number of rounds"):
        raw_env(swap_deals=True, rounds=3)
    with pytest.raises(ValueError, match="rounds=0 is out of range"):
        raw_env(rounds=0)
    env = raw_env()
    env.reset(options={"deck": make_round_deck_from_values(leader="K Q 2 3 4", follower="9 5 6 7 8")})
    with pytest.raises(ValueError, match="holds no card of value|you hold no card"):
        env.parse_action("9")
    assert env.parse_action("QS") == 9 and env.parse_action("10") == 9 and env.parse_action("2") == 1
    with pytest.raises(ValueError, match="not a card value"):
        env.parse_action("banana")
    with pytest.raises(ValueError, match=r"illegal action 8 \(9\)"):
        env.step(8)


# ------------------------------------------------------------------ solver and heuristics
def counts(values: str) -> tuple[int, ...]:
    out = [0] * 10
    for v in values.split():
        out[int(v) - 1] += 1
    return tuple(out)


UNSEEN = tuple([4] * 9 + [16])


def test_solver_takes_exact_twenty_in_the_last_hand():
    # tally 10 from 2 cards, own 5 and T, opponent 3, last hand, bonus 4:
    # T: 20 exact (+10), opponent 3 (no score), own 5 (8): own scored last, +4 -> 14
    # 5: 15, opponent 3 -> 18, own T -> 28: 8 points, +4 bonus -> 12
    assert solve(counts("5 10"), counts("3"), 10, 2, True, 4, -1, True, UNSEEN) == (14, 10)


def test_solver_avoids_handing_over_an_exact_twenty():
    # tally 5 (1 card); own 5 or 9; opponent holds a 10 and a 6. Last hand, no bonus to anyone yet (bonus 2).
    # own 5 -> 10: opponent T -> 20 exact (+10 them), own 9 -> 9, opp 6 -> 15: them last scorer: -10 - 2 = -12
    # own 9 -> 14: opponent 6 -> 20 (+10 them) ... or T -> 24 (+4); then own 5 ... both lose something:
    #   opp 6: 20 exact +10, clears; own 5 -> 5; opp T -> 15; them last: -10 - 2 = -12
    #   opp T: 24 +4, clears; own 5 -> 5; opp 6 -> 11: -4 - 2 = -6; opponent picks the best for them: -12
    value, card = solve(counts("5 9"), counts("10 6"), 5, 1, True, 2, -1, True, UNSEEN)
    assert value == -12 and card in (5, 9)


def test_solver_prefers_keeping_a_ten_on_equal_values():
    # tally 0; own 10 and 10? no: own 10 and 4 vs opponent 1, first move, last hand; both play out with
    # no score possible except... T then A: 11; 4 then 1: 5. Nobody scores either way: value 0, keep the Ten
    value, card = solve(counts("10 4"), counts("1 2"), 0, 0, True, 3, -1, True, UNSEEN)
    assert value == 0 and card == 4


def test_expected_best_gain():
    # tally 10 with 2 cards, one unseen card of value 10 only, a 1-card hand: always an Exact Twenty
    only_tens = tuple([0] * 9 + [1])
    assert expected_best_gain(10, 2, only_tens, 1) == 10
    # half the unseen cards make 20: P(at least one in 1 card) = 1/2 -> 5
    assert expected_best_gain(10, 2, tuple([1] + [0] * 8 + [1]), 1) == pytest.approx(5.0)
    assert expected_best_gain(0, 0, UNSEEN, 5) == 0


def test_heuristics_beat_their_baselines():
    from cardenvs.arena import run_tournament

    r = run_tournament("twenty", ["twenty.greedy", "random"], 30, seed=3)
    assert r.stats()["twenty.greedy"]["win_rate"] > 0.8
    r = run_tournament(
        "twenty", ["twenty.solver", "twenty.greedy"], 15, seed=3, options={"exposed_hands": True, "swap_deals": True}
    )
    assert r.stats()["twenty.solver"]["win_rate"] > 0.6


def test_greedy_scores():
    from cardenvs.games.twenty import policies

    env = raw_env()
    env.reset(options={"deck": make_round_deck_from_values(leader="K Q 2 3 4", follower="9 5 6 7 8")})
    env.step(9)  # player_0 plays K: tally 10
    scores = np.empty(10)
    assert policies.greedy_scores(env.states, 0, env.params, scores) == 5
    legal = set(np.flatnonzero(scores > -np.inf).tolist())
    assert legal == {4, 5, 6, 7, 8}  # 5 6 7 8 9
    # nothing scores now; after a 9 (tally 19) every reply scores (an ace makes 20), after a 5 (15)
    # only 5s and Ten cards score much: the 5 must look better than the 9
    assert scores[4] > scores[8]
    obs = env.observe("player_1")
    assert load_agent("twenty.greedy", env).act(obs, np.random.default_rng(0)) == int(np.argmax(scores))
    assert SolverAgent(env).act(obs, np.random.default_rng(0)) in legal


def test_greedy_picks_a_best_card_and_draws_from_the_callers_rng_only_on_ties():
    """Over seeded games of every variant, twenty.greedy (the numba policy through the generic agent) plays a
    best-valued card; where several tie it draws one number from the caller's rng (so the same rng state
    replays the same card), elsewhere it leaves the rng untouched."""
    from cardenvs.games.twenty import policies
    from cardenvs.games.twenty.env import TwentyEnv

    positions = ties = 0
    values = np.empty(10)
    for options in TwentyEnv.VARIANTS.values():
        env = raw_env(**options)
        agent = load_agent("twenty.greedy", env)
        rng = np.random.default_rng(0)
        for seed in range(6):
            env.reset(seed=seed)
            while not any(env.terminations.values()):
                obs = env.observe(env.agent_selection)
                policies.greedy_scores(env.states, 0, env.params, values)
                best = np.flatnonzero(values >= values.max() - 1e-9)
                before = rng.bit_generator.state
                action = agent.act(obs, rng)
                assert action in best
                if len(best) > 1:
                    ties += 1
                    assert rng.bit_generator.state != before
                    again = np.random.default_rng()
                    again.bit_generator.state = before
                    assert agent.act(obs, again) == action and again.bit_generator.state == rng.bit_generator.state
                else:
                    assert rng.bit_generator.state == before
                positions += 1
                legal = np.flatnonzero(obs["action_mask"])
                env.step(action if rng.random() < 0.5 else int(rng.choice(legal)))  # varied positions
    assert positions > 1500 and ties > 0
