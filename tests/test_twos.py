"""Twos: move generation on hand-counted hands and against a brute-force twin, rules scenarios, variants."""

from itertools import combinations

import numpy as np
import pytest

from cardenvs.core.cards import format_cards, make_deck, parse_cards
from cardenvs.games.twos import legal_moves, moves, rules
from cardenvs.games.twos.env import raw_env


def values(text):
    return moves.parse_values(text)


def hand_array(text):
    h = np.zeros(52, dtype=np.int8)
    h[values(text)] = 1
    return h


# ------------------------------------------------------------------ the action table
def test_action_table_size_and_bijection():
    # per shape (14 - L) top ranks x (5 - n) top suits: singles 52 + pairs 39 + triples 26 + quads 13
    # + runs 1x3..1x13 4*66 + 2x3..2x13 3*66 + 3x3..3x8 2*51 + 4x3..4x6 1*38 = 732, plus pass
    assert moves.NUM_ACTIONS == 733 and moves.PASS == 732
    assert len(moves.SHAPES) == 36 and len(moves.BOMB_SHAPES) == 22
    seen = set()
    for a, (si, top) in enumerate(moves.ACTIONS):
        assert moves.ACTION_ID[(int(si), int(top))] == a
        seen.add((int(si), int(top)))
    assert len(seen) == 732


def test_every_action_plays_the_combination_it_names():
    full = np.ones(52, dtype=np.int8)
    for a in range(moves.PASS):
        cards = moves.cards_of(full, a)
        assert moves.classify(cards) == tuple(int(x) for x in moves.ACTIONS[a])
        n, length = moves.SHAPES[moves.ACTIONS[a][0]]
        # lower cards come from the lowest suits: spades first
        low_ranks = [v for v in cards if v // 4 != moves.ACTIONS[a][1] // 4]
        assert all(v % 4 < n for v in low_ranks)


# ------------------------------------------------------------------ hand-counted move generation
def test_lead_from_a_hand():
    # 3S 3C 4S 4D 5C 5H 9S: 7 singles + 3 pairs (33 44 55) + 2 runs 3-4-5 (top 5C or 5H)
    # + 1 double run 334455 (top 5H) = 13; no pass when leading
    got = legal_moves("3S 3C 4S 4D 5H 5C 9S")
    assert len(got) == 13 and "pass" not in got
    assert "3S 3C 4S 4D 5C 5H" in got and "3S 4S 5C" in got and "3S 4S 5H" in got


def test_follow_a_single():
    # against 4H: singles above it are 5S 6C 7S 7H (4 moves) + pass = 5
    assert legal_moves("5S 6C 7H 7S 3D", "4H") == ["5S", "6C", "7S", "7H", "pass"]
    # against 7S: 7H beats it (hearts over spades), 3D does not
    assert legal_moves("7H 3D", "7S") == ["7H", "pass"]


def test_follow_a_run_same_length_only():
    # against 4S 5S 6D (top 6D): runs of three to 6H or higher: 5C 6H 7S? hand 4C 5C 6H 7S 8S:
    # 4-5-6 to 6H, 5-6-7 to 7S, 6-7-8 to 8S = 3, + pass; the 4-run and 5-run do not follow a 3-run
    got = legal_moves("4C 5C 6H 7S 8S", "4S 5S 6D")
    assert got == ["4C 5C 6H", "5C 6H 7S", "6H 7S 8S", "pass"]


def test_bomb_beats_a_single_two():
    got = legal_moves("5S 5C 6S 6C 7S 7C 9D", "2H")
    assert got == ["5S 5C 6S 6C 7S 7C", "pass"]  # only the 2x3 bomb beats the highest single


def test_four_of_a_kind_beats_a_double_run_of_three_under_classic():
    assert legal_moves("9S 9C 9D 9H", "5S 5C 6S 6C 7S 7C") == ["9S 9C 9D 9H", "pass"]
    # and a higher 2x3 beats a 2x3, a lower one does not
    assert legal_moves("3S 3C 4S 4C 5S 5C", "5D 5H 6S 6C 7S 7C") == ["pass"]
    assert "6D 6H 7D 7H 8S 8C" in legal_moves("6D 6H 7D 7H 8S 8C", "5D 5H 6S 6C 7S 7C")


def test_twenty_card_hands_four_of_a_kind_vs_double_run_of_four():
    double_run = "5S 5C 6S 6C 7S 7C 8S 8C"
    quads = "3S 3C 3D 3H"
    # rarity at 20 cards: 2x4 is dealt more often than 4x1, so four of a kind is the stronger bomb
    assert quads in legal_moves(quads, double_run, bomb_order="rarity", hand_size=20)
    # classic: 2x4 is above 4x1
    assert quads not in legal_moves(quads, double_run, bomb_order="classic", hand_size=20)
    assert legal_moves(double_run, quads, bomb_order="classic", hand_size=20)[0] == double_run


def test_bomb_orders():
    classic = rules.bomb_order("classic", 13)
    listed = [s for s in classic if s in rules.CLASSIC_ORDER]
    assert listed == rules.CLASSIC_ORDER  # the document's list keeps its order
    assert len(classic) == 22 and set(classic) == set(moves.BOMB_SHAPES)
    # every unlisted shape sits just above the strongest listed shape that is more common than it
    from cardenvs.games.twos.bomb_study import run_probabilities

    probs = run_probabilities(20)
    c20 = list(rules.bomb_order("classic", 20))
    for s in set(c20) - set(rules.CLASSIC_ORDER):
        more_common = [x for x in rules.CLASSIC_ORDER if probs[x][0] > probs[s][0]]
        if more_common:
            anchor = max(more_common, key=rules.CLASSIC_ORDER.index)
            assert c20.index(s) > c20.index(anchor)
            nxt = rules.CLASSIC_ORDER.index(anchor) + 1
            if nxt < len(rules.CLASSIC_ORDER):
                assert c20.index(s) < c20.index(rules.CLASSIC_ORDER[nxt])
    rarity = rules.bomb_order("rarity", 20)
    assert rarity[:3] == ((2, 3), (2, 4), (4, 1))


# ------------------------------------------------------------------ brute-force twin
def brute_force(hand_values, target, strength):
    found = set()
    for k in range(1, len(hand_values) + 1):
        for subset in combinations(hand_values, k):
            combo = moves.classify(subset)
            if combo is not None and (target is None or moves.beats(combo, target, strength)):
                found.add(combo)
    return found


@pytest.mark.parametrize("order,hand_size", [("classic", 13), ("rarity", 20)])
def test_generator_matches_brute_force_on_random_hands(order, hand_size):
    rng = np.random.default_rng(7)
    strength = rules.bomb_strength(order, hand_size)
    for trial in range(300):
        size = int(rng.integers(1, 11))
        # dense hands over few ranks make runs and bombs common
        pool = np.arange(int(rng.integers(4, 9)) * 4, 52) if trial % 2 else np.arange(52)
        pool = pool[: int(rng.integers(12, 33))] if trial % 3 == 0 else pool
        hand_values = sorted(rng.choice(pool, size=min(size, len(pool)), replace=False).tolist())
        target = None
        if trial % 4:
            rest = [v for v in range(52) if v not in hand_values]
            for _ in range(50):
                guess = moves.classify(rng.choice(rest, size=int(rng.integers(1, 7)), replace=False))
                if guess is not None:
                    target = guess
                    break
        hand = np.zeros(52, dtype=np.int8)
        hand[hand_values] = 1
        mask = moves.legal_mask_for(hand, target, strength)
        generated = {tuple(int(x) for x in moves.ACTIONS[a]) for a in np.flatnonzero(mask) if a != moves.PASS}
        assert generated == brute_force(hand_values, target, strength), (hand_values, target)
        assert bool(mask[moves.PASS]) == (target is not None)
        for a in np.flatnonzero(mask):
            if a != moves.PASS:
                cards = moves.cards_of(hand, int(a))
                assert set(cards) <= set(hand_values)


def action_by_action(hand, target, strength):
    """The legal actions by the rules' definition, one table entry at a time: the hand can make the action's
    cards (:func:`moves.cards_of`) and the combination beats ``target`` (:func:`moves.beats`)."""
    legal = set()
    for a, (si, top) in enumerate(moves.ACTIONS):
        combo = (int(si), int(top))
        try:
            moves.cards_of(hand, a)
        except ValueError:
            continue
        if target is None or moves.beats(combo, target, strength):
            legal.add(a)
    return legal


@pytest.mark.parametrize("order,hand_size", [("classic", 26), ("rarity", 20)])
def test_generator_matches_the_table_action_by_action_on_large_hands(order, hand_size):
    # hands of 14-26 cards (too many subsets for the brute-force twin) hold long runs and multiple runs
    rng = np.random.default_rng(11)
    strength = rules.bomb_strength(order, hand_size)
    for trial in range(60):
        pool = np.arange(int(rng.integers(0, 5)) * 4, 52)
        hand_values = rng.choice(pool, size=int(rng.integers(14, 27)), replace=False)
        hand = np.zeros(52, dtype=np.int8)
        hand[hand_values] = 1
        target = None if trial % 3 == 0 else tuple(int(x) for x in moves.ACTIONS[rng.integers(moves.PASS)])
        mask = moves.legal_mask_for(hand, target, strength)
        generated = set(np.flatnonzero(mask[: moves.PASS]).tolist())
        assert generated == action_by_action(hand, target, strength), (sorted(hand_values.tolist()), target)
        assert bool(mask[moves.PASS]) == (target is not None)


# ------------------------------------------------------------------ env scenarios through stacked decks
def stacked(hands: list[str], players: int, hand_size: int) -> list[str]:
    """player_k gets hands[k] (padded from the rest of the deck in canonical order)."""
    chosen = [parse_cards(h) for h in hands]
    used = {c for h in chosen for c in h}
    rest = [c for c in make_deck() if c not in used]
    deck = []
    for h in chosen:
        need = hand_size - len(h)
        deck += h + rest[:need]
        rest = rest[need:]
    return format_cards(deck + rest).split()


def play(env, text):
    env.step(env.parse_action(text))


def test_lowest_card_leads_and_two_player_20_card_deal():
    env = raw_env(players=2, hand_size=20, bomb_order="rarity")
    deck = format_cards(make_deck()[::-1]).split()  # player_0: the 20 highest ids (aces, kings...)
    env.reset(options={"deck": deck})
    assert env.state.hands[:2].sum(axis=1).tolist() == [20, 20] and env.state.out_of_play.sum() == 12
    # the lowest card dealt is player_1's (3S is not out of play: player_1 gets ids 31..12)
    lowest_holder = min(range(2), key=lambda p: np.flatnonzero(env.state.hands[p])[0])
    assert env.agent_selection == f"player_{lowest_holder}"
    assert not env.observe(env.agent_selection)["action_mask"][moves.PASS]  # the leader must play


def test_pass_locks_out_both_ways():
    hands = ["3S 9S KS", "4S 5S 6S", "8S TS QS"]
    for locks in (True, False):
        env = raw_env(pass_locks_out=locks, hand_size=3)
        env.reset(options={"deck": stacked(hands, 3, 3)})
        assert env.agent_selection == "player_0"  # holds 3S
        play(env, "3S")
        play(env, "pass")  # player_1 passes
        play(env, "8S")  # player_2
        play(env, "9S")  # player_0
        if locks:
            # player_1 is locked out: player_2 is next
            assert env.agent_selection == "player_2"
            play(env, "pass")
            # everyone else passed since player_0's 9S: player_0 won the trick and leads
            assert env.agent_selection == "player_0" and env.state.to_beat_shape == -1
        else:
            assert env.agent_selection == "player_1"  # may play again after passing
            assert env.observe("player_1")["action_mask"][moves.PASS] == 1
            play(env, "pass")
            play(env, "pass")  # player_2
            assert env.agent_selection == "player_0" and env.state.to_beat_shape == -1


def test_first_player_out_wins():
    env = raw_env(hand_size=2, reward="win")
    env.reset(options={"deck": stacked(["3S 4S", "5S 6S", "7S 8S"], 3, 2)})
    play(env, "3S")
    play(env, "5S")
    play(env, "7S")
    play(env, "pass")  # player_0
    play(env, "pass")  # player_1 -> player_2 wins the trick
    play(env, "8S")  # player_2 leads its last card and goes out
    assert all(env.terminations.values())
    assert env._cumulative_rewards["player_2"] == 1.0
    assert env._cumulative_rewards["player_0"] == -0.5 and env.infos["player_2"]["score"] == 1.0


def test_bomb_on_the_table_only_falls_to_a_stronger_bomb():
    env = raw_env(hand_size=7)
    env.reset(options={"deck": stacked(["3S 2H 9C 9D 9H 9S KS", "4S 4C 5S 5C 6S 6C KC", "2S 7S 7C 8S 8C 8D KD"], 3, 7)})
    play(env, "3S")
    play(env, "4S 4C 5S 5C 6S 6C")  # player_1 bombs a single with a 2x3
    mask = env.observe("player_2")["action_mask"]
    assert np.flatnonzero(mask).tolist() == [moves.PASS]  # no 2x3 above 6C, no quads: only pass
    play(env, "pass")
    play(env, "9S 9C 9D 9H")  # classic: four of a kind beats a double run of three
    assert env.state.to_beat_shape == moves.SHAPE_INDEX[(4, 1)]


def test_observation_segments():
    env = raw_env()
    env.reset(seed=3)
    p = env.agent_selection
    parts = env.layout.decode(env.observe(p)["observation"])
    assert parts["hand"].sum() == 13 and parts["cards_left"].tolist() == [13, 13, 13]
    assert parts["to_beat_shape"].sum() == 0 and parts["played"].sum() == 0
    assert sorted(parts["bomb_order"].tolist()) == list(range(22))
    action = int(np.flatnonzero(env.observe(p)["action_mask"])[0])
    env.step(action)
    q = env.agent_selection
    parts = env.layout.decode(env.observe(q)["observation"])
    assert parts["to_beat_shape"].sum() == 1 and parts["to_beat_by"][-1] == 1  # played by the seat to the right
    assert parts["played"][-1].sum() == 1


def test_bad_input():
    with pytest.raises(ValueError, match="hand_size=20 is out of range for 3 players"):
        raw_env(hand_size=20)
    with pytest.raises(ValueError, match="players=5 is out of range"):
        raw_env(players=5)
    with pytest.raises(ValueError, match="bad card code 'XX'"):
        legal_moves("3S XX")
    with pytest.raises(ValueError, match="not a Twos combination"):
        legal_moves("3S", "3S 5D")
    with pytest.raises(ValueError, match="without jokers"):
        legal_moves("3S BJ")
    env = raw_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="must play"):
        env.parse_action("pass")
    with pytest.raises(ValueError, match="do not hold|not a combination"):
        env.parse_action("2H 2S 2C 2D 3S")


def test_parse_action_plays_what_is_typed_or_says_what_it_would_play():
    env = raw_env(hand_size=3)
    env.reset(options={"deck": stacked(["5S 5C 5D", "6S 6C 6D", "7S 7C 7D"], 3, 3)})
    # a pair to 5D takes the lowest 5 held below it, 5S: typing 5C 5D names the cards it would play
    with pytest.raises(ValueError, match="'5C 5D' is played as 5S 5D"):
        env.parse_action("5C 5D")
    assert env.parse_action("5S 5D") == moves.ACTION_ID[(moves.SHAPE_INDEX[(2, 1)], values("5D")[0])]
    assert env.parse_action("5C 5S") == moves.ACTION_ID[(moves.SHAPE_INDEX[(2, 1)], values("5C")[0])]


def test_heuristic_keeps_every_bomb():
    from cardenvs.agent import load_agent
    from cardenvs.games.twos import policies

    # 33 44 55 (a 2x3), 7777, 99 TT (two ranks only: no bomb) -> ranks 3 4 5 and 7 are kept
    counts = np.bincount(np.array(values("3S 3C 4S 4C 5S 5C 7S 7C 7D 7H 9S 9C TS TC")) // 4, minlength=13)
    kept = [0, 1, 2, 4]  # ranks 3 4 5 7 on the line 3..2
    assert np.flatnonzero(policies.bomb_ranks(counts)).tolist() == kept
    # player_1 holds 55 66 77 (a 2x3 bomb) and KS; player_0 leads 4H. Against a single 4H it may play
    # 5S 5C 6S 6C 7S 7C KS or the 2x3 bomb, or pass: every single but KS breaks the bomb, so KS
    hands = ["3S 4H 9S 9C JD QD AS", "5S 5C 6S 6C 7S 7C KS", "8S 8C TD TH QS QH 3C"]
    for deck_hands, lead, want in (
        (hands, "4H", "KS"),
        # a four of a kind is kept as before: 9999 TS against 4H plays TS
        (["3S 4H 8D JD QD AS AD", "9S 9C 9D 9H TS 3D 3H", "8S 8C TD TH QS QH 3C"], "4H", "TS"),
    ):
        env = raw_env(hand_size=7)
        env.reset(options={"deck": stacked(deck_hands, 3, 7)})
        play(env, lead)
        assert env.agent_selection == "player_1"
        choice = load_agent("twos.heuristic", env).act(env.observe("player_1"), np.random.default_rng(0))
        assert env.action_name(choice) == f"1x1 to {want}"
    # leading with 33 44 55 and 8D: every non-bomb but 8D takes a card of the 2x3, so it leads 8D
    env = raw_env(hand_size=7)
    env.reset(options={"deck": stacked(["3S 3C 4S 4C 5S 5C 8D", "6S 6C 7S 9D TS JS QS", "8S 8C TD TH QH KH 3D"], 3, 7)})
    assert env.agent_selection == "player_0"
    choice = load_agent("twos.heuristic", env).act(env.observe("player_0"), np.random.default_rng(0))
    assert env.action_name(choice) == "1x1 to 8D"


def test_heuristic_beats_random():
    from cardenvs.arena import run_tournament

    r = run_tournament("twos", ["twos.heuristic", "random", "random"], 60, seed=2, duplicate=False)
    assert r.stats()["twos.heuristic"]["win_rate"] > 0.5  # a third would be chance


# ------------------------------------------------------------------ the numba core
def test_core_functions_on_a_batch():
    """Several games in one state array: deals as the AEC env deals them, legal ids ascending with pass last,
    scores and outcome zero while running, the heuristic policy, -1 from policy once over."""
    from cardenvs.core.seeds import deal_seed_of
    from cardenvs.games.twos import policies

    env = raw_env(players=4, hand_size=13)
    states = np.zeros(5, dtype=rules.STATE)
    for b in range(5):
        rules.init(states, b, env.params, np.uint64(deal_seed_of(b)))
    ids = np.empty(moves.NUM_ACTIONS, dtype=np.int64)
    out = np.ones(4)
    for b in range(5):
        env.reset(seed=b)
        assert np.array_equal(states[b]["hands"], env.state.hands)
        assert rules.to_move(states, b, env.params) == env.state.to_move
        n = rules.legal_ids(states, b, env.params, ids)
        assert np.array_equal(ids[:n], np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))
        rules.outcome(states, b, env.params, out)
        assert not out.any()
    rng = np.ones(1, dtype=np.uint64)
    b = 2
    while rules.status(states, b, env.params) == 0:
        n = rules.legal_ids(states, b, env.params, ids)
        assert n > 0 and np.all(np.diff(ids[:n]) > 0)
        assert (ids[n - 1] == moves.PASS) == (states[b]["to_beat_shape"] >= 0)
        action = policies.policy(states, b, env.params, 0, rng)
        assert action in ids[:n]
        rules.apply(states, b, env.params, action)
    assert rules.legal_ids(states, b, env.params, ids) == 0 and policies.policy(states, b, env.params, 0, rng) == -1
    winner = states[b]["winner"]
    rules.scores(states, b, env.params, out)
    assert out.tolist() == [1.0 if p == winner else 0.0 for p in range(4)]
    rules.outcome(states, b, env.params, out)
    assert out.tolist() == [1.0 if p == winner else -1 / 3 for p in range(4)]
    assert np.array_equal(np.sort(rules.card_locations(states[b])), np.arange(52))


def test_render_shows_the_trick():
    env = raw_env(hand_size=3, render_mode="ansi")
    env.reset(options={"deck": stacked(["3S 9S KS", "4S 5S 6S", "8S TS QS"], 3, 3)})
    play(env, "3S")
    play(env, "pass")
    text = env.render()
    assert "trick: player_0: 1x1 to 3S; player_1: pass" in text and "to beat: 1x1 to 3S by player_0" in text
    assert "player_1: 4S 5S 6S passed" in text and "to play: player_2" in text
