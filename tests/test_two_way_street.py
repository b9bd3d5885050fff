"""Two Way Street: scoring by hand-worked numbers, trick winners and joker rules, forcing, a duel, invariants."""

import numpy as np
import pytest

from cardenvs.core.cards import format_cards, make_deck, parse_card, parse_cards
from cardenvs.core.play import play_episode
from cardenvs.games.two_way_street import duel_score, hand_scores, raw_score, rules
from cardenvs.games.two_way_street.env import BID0, DISCARD0, HIGH, LOW, PLAY0, SUIT, SUIT0, raw_env


# ------------------------------------------------------------------ scoring
def test_document_score_sheet():
    # Zak, Katie, Jen, Derek over the document's four hands (none forced): totals 16, 20, 4, 12
    sheet = [
        ([6, 4, 6, 6], [4, 0, 4, 4]),
        ([6, 8, 5, 5], [2, 6, 0, 0]),
        ([6, 6, 5, 5], [2, 2, 0, 0]),
        ([6, 8, 2, 6], [8, 12, 0, 8]),
    ]
    totals = [0, 0, 0, 0]
    for raw, want in sheet:
        got = hand_scores(raw, [False] * 4)
        assert got == want
        totals = [t + g for t, g in zip(totals, got, strict=True)]
    assert totals == [16, 20, 4, 12]


def test_raw_score():
    assert raw_score(True, 6, 4) == 6 and raw_score(False, 0, 4) == 6 and raw_score(False, 2, 3) == 6
    assert raw_score(False, 3, 10) == -1  # negative raw scores are used as they come


def test_penalty_cases():
    # A: 8 6 5 4 -> s2 (6) differs from s3 (5): penalty 5; refined 3 1 0 0 -> x2 (x3 forced)
    assert rules.penalty_case([8, 6, 5, 4]) == ("A", 5)
    assert hand_scores([8, 6, 5, 4], [False, True, False, False]) == [6, 3, 0, 0]
    # A also covers s1 = s2 != s3: 6 6 5 5 -> penalty 5
    assert rules.penalty_case([6, 6, 5, 5]) == ("A", 5)
    # B: 8 6 6 2 -> s2 = s3 != s4: penalty 2
    assert rules.penalty_case([8, 6, 6, 2]) == ("B", 2)
    # C: 8 5 5 5 -> s2 = s3 = s4 != s1: penalty 5; forced players in the tie score 1
    assert rules.penalty_case([8, 5, 5, 5]) == ("C", 5)
    assert hand_scores([8, 5, 5, 5], [False, True, False, True]) == [6, 1, 0, 1]
    # D: 5 5 5 5 3 -> penalty = highest not equal to the first four = 3; all equal -> s1
    assert rules.penalty_case([5, 5, 5, 5, 3]) == ("D", 3)
    assert hand_scores([5, 5, 5, 5, 3], [False] * 5) == [4, 4, 4, 4, 0]
    assert rules.penalty_case([4, 4, 4, 4]) == ("D", 4)
    # three players: the missing fourth ties with the third
    assert rules.penalty_case([7, 4, 4]) == ("C", 4)  # s1 > s2 = s3
    assert rules.penalty_case([3, 3, 3]) == ("D", 3)
    assert rules.penalty_case([7, 5, 2]) == ("A", 2)
    assert hand_scores([7, 4, 4], [True, True, False]) == [9, 1, 0]
    with pytest.raises(ValueError, match="one raw score and one forced flag"):
        hand_scores([1, 2], [False, False])


def test_duel_score():
    # the document's duel: Zak (dealer) 7 tricks, Katie 3 + 3 captured, high hand: Zak +2
    assert duel_score(True, 7, 6) == (2, 0)
    assert duel_score(False, 7, 3) == (0, 8)  # low: fewer tricks scores 2 per trick of difference
    assert duel_score(True, 5, 5) == (1, 0)  # equal: the dealer scores 1


# ------------------------------------------------------------------ trick winners and follow rules
def c(code):
    return parse_card(code)


def test_trick_winner_rules():
    assert rules.trick_winner([c("5S"), c("AS"), c("KH")], 0) == 1  # highest of the suit led
    assert rules.trick_winner([c("5S"), c("BJ"), c("AS")], 0) == 1  # a black joker beats the suit
    assert rules.trick_winner([c("5S"), c("BJ"), c("RJ")], 0) == 2  # the red joker beats everything
    assert rules.trick_winner([c("AS"), c("AS"), c("KS")], 0) == 0  # double deck: the earlier ace wins
    assert rules.trick_winner([c("JK"), c("JK"), c("AH")], 3) == 0  # identical jokers: the earlier
    assert rules.trick_winner([c("BJ"), c("5D"), c("4D")], -1) == 0  # no suit named: the joker wins


def hand_of(codes):
    h = np.zeros(55, dtype=np.int8)
    for x in parse_cards(codes):
        h[x] += 1
    return h


def test_follow_suit_and_joker_colours():
    hand = hand_of("3S 9S 4H BJ RJ")
    assert sorted(rules.legal_plays(hand, 0, True)) == sorted(parse_cards("3S 9S BJ"))  # spades or the black joker
    assert sorted(rules.legal_plays(hand, 3, True)) == sorted(parse_cards("4H RJ"))
    assert sorted(rules.legal_plays(hand, 1, True)) == sorted(parse_cards("3S 9S 4H BJ RJ"))  # void in clubs
    colourless = hand_of("3S 9S 4H JK")
    assert sorted(rules.legal_plays(colourless, 3, False)) == sorted(parse_cards("4H JK"))


# ------------------------------------------------------------------ env scenarios through stacked decks
def stacked(hands, deck_cards):
    """Blocks of 10 from the first declarer (seat 0 in hand 1), the rest of the deck in order as the stock."""
    chosen = [parse_cards(h) for h in hands]
    rest = list(deck_cards)
    for h in chosen:
        for x in h:
            rest.remove(x)
    return format_cards([x for h in chosen for x in h] + rest).split()


FOUR = [
    "AS KS QS JS TS 9S 8S 7S 6S 5S",
    "AH KH QH JH TH 9H 8H 7H 6H 5H",
    "AD KD QD JD TD 9D 8D 7D 6D 5D",
    "AC KC QC JC TC 9C 8C 7C 6C 5C",
]


def test_forcing_once_more_than_half_went_one_way():
    env = raw_env(players=4)
    env.reset(options={"deck": stacked(FOUR, make_deck(2))})
    for _ in range(3):  # three players declare high, each discards two
        env.step(HIGH)
        hand = env.state.hands[env.state.current]
        for card in np.flatnonzero(hand)[:2]:
            env.step(DISCARD0 + int(card))
    # floor(4/2) + 1 = 3 went high: the fourth is forced low and goes straight to its discards
    assert env.state.forced[:4].tolist() == [False, False, False, True] and env.state.direction[3] == LOW
    mask = env.observe("player_3")["action_mask"]
    assert not mask[HIGH] and not mask[LOW] and mask[DISCARD0:SUIT0].sum() == 10


def test_discard_goes_under_the_stock_and_two_are_drawn():
    env = raw_env(players=4)
    env.reset(options={"deck": stacked(FOUR, make_deck(2))})
    top_two = rules.stock_cards(env.state)[:2]
    env.step(LOW)
    env.step(DISCARD0 + c("AS"))
    env.step(DISCARD0 + c("KS"))
    assert rules.stock_cards(env.state)[-2:].tolist() == [c("AS"), c("KS")]
    assert all(env.state.hands[0][x] == 1 for x in top_two) and env.state.hands[0].sum() == 10
    parts = env.layout.decode(env.observe("player_0")["observation"])
    assert parts["discarded"][c("AS")] == 1 and parts["discarded"][c("KS")] == 1


def play_declarations(env, directions, discards):
    for d, cards in zip(directions, discards, strict=True):
        if env.state.phase == 0:
            env.step(d)
        for card in parse_cards(cards):
            env.step(DISCARD0 + card)


def test_joker_lead_and_suit_choice():
    hands = [
        "BJ 2H 3H 4H 5H 6H 7H 8H 9H TH",
        "AS 2C 3D 4D 5D 6D 7D 8D 9D TD",
        "2S 3S 4S 5S 6S 7S 8S 9S JH QH",
        "KS QS JS 2D 3C 4C 5C 6C 7C 8C",
    ]
    env = raw_env(players=4)
    env.reset(options={"deck": stacked(hands, make_deck(2))})
    play_declarations(env, [HIGH, LOW, LOW, HIGH], ["2H 3H", "3D 4D", "2S 3S", "3C 4C"])
    assert env.state.current == 0 and env.state.hands[0][c("BJ")] == 1
    env.step(PLAY0 + c("BJ"))  # a black joker led: the suit is spades or clubs
    # player_1 holds a spade and a club: it must name one it holds
    assert env.state.phase == SUIT
    mask = env.observe("player_1")["action_mask"]
    assert mask[SUIT0 + 0] and mask[SUIT0 + 1] and not mask[SUIT0 + 2] and not mask[SUIT0 + 3]
    env.step(SUIT0 + 1)  # clubs
    mask = env.observe("player_1")["action_mask"]
    playable = np.flatnonzero(mask[PLAY0 : PLAY0 + 55])
    assert c("2C") in playable and all(x % 4 == 1 for x in playable)  # must follow clubs
    env.step(PLAY0 + c("2C"))
    assert env.state.led_suit == 1


def test_duel_from_bid_to_score():
    env = raw_env(players=2, target=1, reward="points")
    env.reset(seed=0)
    assert env.state.phase == 4 and env.state.current == 0  # the dealer bids first
    env.step(BID0 + 3)  # dealer: 3 high, hidden
    parts = env.layout.decode(env.observe("player_1")["observation"])
    assert parts["opponent_bid"].sum() == 0  # hidden from the responder
    env.step(BID0 + 12)  # responder: 2 low, open; dealer's 3 high is stronger
    # the opponent captures 3
    assert env.state.captured_tricks.tolist() == [0, 3] and len(rules.captured_cards(env.state, 1)) == 6
    parts = env.layout.decode(env.observe("player_1")["observation"])
    assert parts["opponent_bid"][3] == 1 and parts["captured"][1].sum() == 0 and parts["captured"][0].sum() == 6
    # only the stronger bidder (the dealer) discards two and draws two
    assert env.state.current == 0 and env.state.phase == 1
    for card in np.flatnonzero(env.state.hands[0])[:2]:
        env.step(DISCARD0 + int(card))
    assert env.state.phase == 3 and env.state.current == 0  # the dealer leads trick 1
    leaders = []
    rng = np.random.default_rng(1)
    while not any(env.terminations.values()):
        if env.state.trick_len == 0:
            leaders.append(env.state.current)
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(rng.choice(legal)))
    assert leaders == [0, 1] * 5  # dealer odd tricks, responder even ones
    tricks = [int(t) for t in env.state.taken[:2]]
    assert sum(tricks) == 10
    want = duel_score(True, tricks[0], tricks[1] + 3)
    assert [env.infos["player_0"]["score"], env.infos["player_1"]["score"]] == list(want)


def test_duel_redeal_on_equal_strength_opposite_directions():
    env = raw_env(players=2)
    env.reset(seed=2)
    first_hand = env.state.hands.copy()
    env.step(BID0 + 4)  # 4 high
    env.step(BID0 + 14)  # 4 low: redeal, same dealer
    assert env.state.redeals == 1 and env.state.first == 0 and env.state.phase == 4
    assert not np.array_equal(first_hand, env.state.hands)


def test_both_no_bid_dealer_chooses():
    env = raw_env(players=2)
    env.reset(seed=3)
    env.step(BID0)
    env.step(BID0)
    assert env.state.phase == 5 and env.state.current == 0
    env.step(LOW)
    assert env.state.direction[:2].tolist() == [LOW, LOW]
    assert env.state.queue[: env.state.n_queue].tolist() == [0, 1]  # identical bids: both discard


def test_bad_options():
    with pytest.raises(ValueError, match="use decks=2"):
        raw_env(players=6, decks=1)
    with pytest.raises(ValueError, match="players=11 is out of range"):
        raw_env(players=11)
    env = raw_env(players=4)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="not legal now"):
        env.parse_action("QS")  # declaring, not playing


def cards_in_every_place(record) -> np.ndarray:
    """Every card wherever the state puts it: hands, stock, finished tricks, the trick on the table, captured
    stock cards (counted here from the state, not with ``rules.card_locations``)."""
    n = int(record["players"])
    parts = [np.repeat(np.arange(55), record["hands"][q]) for q in range(n)]
    parts.append(record["stock"][record["stock_head"] : record["stock_end"]])
    parts.append(record["taken_cards"][: record["trick_no"] * n])
    if record["trick_on"]:
        parts.append(record["trick_cards"][: record["trick_len"]])
    parts += [record["captured"][q][: 2 * record["captured_tricks"][q]] for q in range(2)]
    return np.sort(np.concatenate([np.asarray(x, dtype=np.int64) for x in parts]))


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_every_hand_has_ten_tricks_and_one_winner_each(players):
    """... and every card is in exactly one place after every step, the final one included (the last
    trick of the match is taken, not also left on the table)."""
    env = raw_env(players=players, target=10)
    deck = np.sort(env.deck)
    rng = np.random.default_rng(players)
    env.reset(seed=players)
    hands_seen = 0
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        hand_no = env.state.hand_no
        taken_before = env.state.taken.sum()
        totals_before = env.state.totals.copy()
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
        np.testing.assert_array_equal(cards_in_every_place(env.state), deck)
        np.testing.assert_array_equal(np.sort(env.card_locations()), deck)
        if env.state.hand_no != hand_no:
            hands_seen += 1
            assert env.state.last_event == rules.EVENT_HAND  # the hand was scored and added
            np.testing.assert_array_equal(env.state.totals - totals_before, env.state.last_hand)
        else:
            assert env.state.taken.sum() - taken_before in (0, 1)
    assert hands_seen >= 1 and env.state.over and env.state.trick_no == 10
    for agent in env.possible_agents:  # the final observation shows an empty table
        parts = env.layout.decode(env.observe(agent)["observation"])
        assert parts["trick"].sum() == 0 and parts["trick_number"][0] == 10


def test_target_is_bounded_so_scores_stay_in_the_observation_space():
    # the most one hand can score: raw 10 against a penalty of -8 (a low raw score with ten players,
    # N = 2, ten tricks), forced: (10 + 8) x 3 = 54 <= MAX_HAND_POINTS; a duel: 2 x 20 = 40
    assert hand_scores([10, -8, -8, -8], [True, False, False, False]) == [54, 0, 0, 0]
    assert duel_score(True, 20, 0) == (40, 0)
    assert rules.MAX_TARGET - 1 + rules.MAX_HAND_POINTS < rules.MAX_TOTAL
    with pytest.raises(ValueError, match="target=12000 is out of range"):
        raw_env(players=2, target=12000)
    env = raw_env(players=2, target=rules.MAX_TARGET)
    assert env.layout.high[env.layout.slices["scores"]].tolist() == [rules.MAX_TOTAL] * 2
    env.reset(seed=4)
    env.state.totals[:2] = rules.MAX_TARGET - 1  # one hand from the end
    space = env.observation_space("player_0")
    rng = np.random.default_rng(0)
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        for agent in env.possible_agents:
            assert space.contains(env.observe(agent))
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    assert env.state.over and all(space.contains(env.observe(a)) for a in env.possible_agents)


def test_heuristic_beats_random_in_four_player_and_duel_matches():
    from cardenvs.arena import run_tournament

    r = run_tournament("two_way_street", ["two_way_street.heuristic", "random", "random", "random"], 6, seed=1)
    assert r.stats()["two_way_street.heuristic"]["win_rate"] > 0.6
    r = run_tournament("two_way_street", ["two_way_street.heuristic", "random"], 10, seed=1, options={"players": 2})
    assert r.stats()["two_way_street.heuristic"]["win_rate"] > 0.7


def test_colourless_joker_lead_name_any_held_suit_or_play_a_joker():
    env = raw_env(players=4, jokers=1)  # one colourless JK per deck
    hands = [
        "JK 2H 3H 4H 5H 6H 7H 8H 9H TH",
        "AS 2C 3D 4D 5D 6D 7D 8D 9D TD",
        "2S 3S 4S 5S 6S 7S 8S 9S JH QH",
        "KS QS JS 2D 3C 4C 5C 6C 7C 8C",
    ]
    env.reset(options={"deck": stacked(hands, make_deck(1))})
    play_declarations(env, [HIGH, LOW, LOW, HIGH], ["2H 3H", "3D 4D", "2S 3S", "3C 4C"])
    env.step(PLAY0 + c("JK"))
    assert env.state.phase == SUIT
    mask = env.observe("player_1")["action_mask"]
    held = {x % 4 for x in np.flatnonzero(env.state.hands[1][:52])}
    assert {s for s in range(4) if mask[SUIT0 + s]} == held  # any suit it holds
    env.step(SUIT0 + 2)  # diamonds
    assert env.state.led_suit == 2


# ------------------------------------------------------------------ the numba core
POLICY_CONFIGS = [pytest.param(options, id=name) for name, options in raw_env.VARIANTS.items()] + [
    pytest.param({"players": 2, "jokers": 1, "target": 8}, id="duel_one_joker"),
    pytest.param({"players": 2, "decks": 2, "distinct_jokers": False, "target": 8}, id="duel_two_decks_identical"),
    pytest.param({"players": 7, "target": 6}, id="seven"),
    pytest.param({"players": 8, "jokers": 1, "target": 6}, id="eight_one_joker"),
]


@pytest.mark.parametrize("options", POLICY_CONFIGS)
def test_heuristic_plays_every_phase_of_every_configuration(options):
    """The agent two_way_street.heuristic (the numba policy) plays legal moves through every phase of seeded
    matches of every configuration, alone or mixed with random moves; the policy answers -1 once the match
    is over."""
    from cardenvs.agent import load_agent
    from cardenvs.games.two_way_street import policies

    env = raw_env(**options)
    agent = load_agent("two_way_street.heuristic", env)
    rng = np.random.default_rng(7)
    positions = seed = 0
    phases = set()

    def choose(seat, obs):
        nonlocal positions
        action = agent.act(obs, rng)  # a move the mask does not allow would raise
        phases.add(int(env.state.phase))
        positions += 1
        return action if rng.random() < 0.5 else int(rng.choice(np.flatnonzero(obs["action_mask"])))

    while positions < 1000:
        play_episode(env, choose, seed=seed)
        seed += 1
    assert policies.policy(env.states, 0, env.params, 0, np.ones(1, dtype=np.uint64)) == -1
    first_phase = rules.BID if env.num_players == 2 else rules.DECLARE
    assert {first_phase, rules.DISCARD, rules.PLAY} <= phases


def test_stacked_decks_deal_every_hand_and_redeal_in_order():
    """options['deck'] as a list: deal k of the match (hands and duel redeals) is the k-th deck."""
    decks = [list(np.random.default_rng(k).permutation(make_deck(2))) for k in range(3)]
    codes = [format_cards(d).split() for d in decks]
    env = raw_env(players=2)
    env.reset(options={"deck": codes})
    first = [np.bincount(decks[0][:10], minlength=55), np.bincount(decks[0][10:20], minlength=55)]
    assert np.array_equal(env.state.hands[0], first[0]) and np.array_equal(env.state.hands[1], first[1])
    env.step(BID0 + 4)
    env.step(BID0 + 14)  # redeal: the second deck, same dealer
    assert np.array_equal(env.state.hands[0], np.bincount(decks[1][:10], minlength=55))
    assert rules.stock_cards(env.state).tolist() == [int(x) for x in decks[1][20:]]
    with pytest.raises(ValueError, match="at most"):
        env.reset(options={"deck": codes * 20})
