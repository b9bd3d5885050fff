"""Dou Dizhu: the action table, hand-counted move generation, generator vs classifier vs brute force,
bidding, scoring and the rule agent."""

from itertools import product

import numpy as np
import pytest

from cardenvs.core.cards import format_cards
from cardenvs.games.doudizhu import classify, legal_moves, moves
from cardenvs.games.doudizhu import rules as R
from cardenvs.games.doudizhu.env import raw_env
from cardenvs.games.doudizhu.playout import run as playouts

T = moves


# ------------------------------------------------------------------ the table
def test_action_table_size_and_bijection():
    # 15 singles + 13 pairs + 13 trios + 13*14 trio+single + 13*12 trio+pair + 36 straights + 52 pair
    # straights + 45 airplanes + 22,588 airplanes with single wings + 2,939 with pair wings + 1,326 four+two
    # singles + 858 four+two pairs + 13 bombs + 1 rocket = 28,237 moves; + pass + 4 bids = 28,242 actions
    assert T.NUM_MOVES == 28_237 and T.NUM_ACTIONS == 28_242
    counts = np.bincount(T.MOVE_TYPE, minlength=14)
    assert counts[T.TRIO_SINGLE] == 182 and counts[T.TRIO_PAIR] == 156 and counts[T.STRAIGHT] == 36
    assert counts[T.PAIR_STRAIGHT] == 52 and counts[T.AIRPLANE] == 45 and counts[T.FOUR_PAIRS] == 13 * 66
    names = [T.move_string(m) for m in range(T.NUM_MOVES)]
    assert len(set(names)) == T.NUM_MOVES  # id <-> move string is a bijection
    assert all(T.MOVE_ID[n] == m for m, n in enumerate(names))
    keys = {
        (int(t), int(mm), int(ln), T.MOVE_COUNTS[m].tobytes())
        for m, (t, mm, ln) in enumerate(zip(T.MOVE_TYPE, T.MOVE_MAIN, T.MOVE_LENGTH, strict=True))
    }
    assert len(keys) == T.NUM_MOVES


def test_several_readings_of_one_card_set():
    readings = {T.move_string(m) for m in T.readings(T.counts_of("333444555666"))}
    assert readings == {"333444555666", "333444555+666", "444555666+333"}
    assert classify("333444555666") == ("airplane", "3", 4)
    assert classify("444555666+333") == ("airplane+singles", "4", 3)
    assert classify("33344455") == ("airplane+singles", "3", 2)  # single wings from one rank
    assert classify("333344") == ("four+two_singles", "3", 1)
    assert classify("BR") == ("rocket", "B", 1)
    assert classify("333+BR") is None and classify("34") is None and classify("2345") is None
    assert classify("JQKA2") is None  # a 2 never joins a straight
    assert classify("3333+44") == ("four+two_singles", "3", 1)


# ------------------------------------------------------------------ hand-counted generation
def test_lead_from_a_hand():
    # 33 4 5 6 7: singles 3 4 5 6 7 (5) + pair 33 (1) + straight 34567 (1) = 7
    got = legal_moves("334567")
    assert sorted(got) == sorted(["3", "4", "5", "6", "7", "33", "34567"])


def test_follow_a_trio_with_pair():
    # against 333+44: trio+pair with a higher trio: 555+66 or 555+77 (two pairs available) and 666+55,
    # 666+77? no (one 6 trio? hand 555666 77): trios 555, 666; pairs 55? (the 5s are in the trio),
    # hand 55566677: 555+66? no, 6 is 3 cards (a pair of them is allowed), 555+77, 666+55, 666+77
    got = legal_moves("55566677", "333+44")
    assert sorted(got) == sorted(["555+66", "555+77", "666+55", "666+77", "pass"])


def test_airplane_with_wings_and_four_with_two_pairs():
    # against 333444+56 (airplane, 2 single wings): 555666 + two singles from {7, 8, 8}: 7+8, 8+8 -> 2
    assert sorted(legal_moves("555666788", "333444+56")) == sorted(["555666+78", "555666+88", "pass"])
    # against 3333+4455 (four with two pairs): 5555 with pairs 66 77 (1), or the bomb 5555 (1)
    got = legal_moves("55556677", "3333+4455")
    assert sorted(got) == sorted(["5555+6677", "5555", "pass"])


def test_bombs_over_everything_and_the_rocket_over_bombs():
    assert legal_moves("3333", "22") == ["3333", "pass"]  # a bomb beats a pair of twos
    assert legal_moves("3333", "4444") == ["pass"]  # a lower bomb does not
    assert sorted(legal_moves("BR", "2222")) == sorted(["BR", "pass"])  # rocket beats any bomb
    assert legal_moves("2222BR", "BR") == ["pass"]  # nothing beats the rocket


# ------------------------------------------------------------------ brute force twin
def bf_readings(c):
    """(type, main, length) readings of rank counts c, from the definitions (independent of the table)."""
    c = np.asarray(c)
    total = int(c.sum())
    nz = [r for r in range(15) if c[r]]
    out = set()
    if total == 0:
        return out
    if len(nz) == 1:
        r, k = nz[0], c[nz[0]]
        if k == 1:
            out.add((T.SINGLE, r, 1))
        elif r <= 12:
            out.add({2: (T.PAIR, r, 1), 3: (T.TRIO, r, 1), 4: (T.BOMB, r, 1)}[k])
    if total == 2 and c[13] == 1 and c[14] == 1:
        out.add((T.ROCKET, 13, 1))
    contiguous = nz == list(range(nz[0], nz[0] + len(nz))) and nz[-1] <= 11
    if contiguous:
        widths = {int(c[r]) for r in nz}
        if widths == {1} and len(nz) >= 5:
            out.add((T.STRAIGHT, nz[0], len(nz)))
        if widths == {2} and len(nz) >= 3:
            out.add((T.PAIR_STRAIGHT, nz[0], len(nz)))
        if widths == {3} and len(nz) >= 2:
            out.add((T.AIRPLANE, nz[0], len(nz)))
    for t in range(13):  # trio + kicker
        if c[t] == 3:
            rest = c.copy()
            rest[t] = 0
            if rest.sum() == 1:
                out.add((T.TRIO_SINGLE, t, 1))
            if rest.sum() == 2 and rest.max() == 2 and int(np.argmax(rest)) <= 12:
                out.add((T.TRIO_PAIR, t, 1))
        if c[t] == 4:
            rest = c.copy()
            rest[t] = 0
            if rest.sum() == 2 and not (rest[13] and rest[14]):
                out.add((T.FOUR_SINGLES, t, 1))
            if rest.sum() == 4 and sorted(rest[rest > 0].tolist()) == [2, 2] and not rest[13:].any():
                out.add((T.FOUR_PAIRS, t, 1))
    for length in range(2, 7):
        for s in range(0, 12 - length + 1):
            chain = list(range(s, s + length))
            if any(c[r] < 3 for r in chain):
                continue
            rest = c.copy()
            rest[chain] -= 3
            if rest[chain].any():
                continue
            if rest.sum() == length and rest.max() <= 3 and not (rest[13] and rest[14]) and 4 * length <= 20:
                out.add((T.AIRPLANE_SINGLES, s, length))
            if (
                rest.sum() == 2 * length
                and set(rest[rest > 0].tolist()) == {2}
                and not rest[13:].any()
                and 5 * length <= 20
            ):
                out.add((T.AIRPLANE_PAIRS, s, length))
    return out


def bf_beats(a, b):
    ta, ma, la = a
    tb, mb, lb = b
    if tb == T.ROCKET:
        return False
    if ta == T.ROCKET:
        return True
    if ta == T.BOMB:
        return tb != T.BOMB or ma > mb
    return ta == tb and la == lb and ma > mb


def test_generator_classifier_and_brute_force_agree_on_random_hands():
    rng = np.random.default_rng(5)
    deck_ranks = T.RANK_OF_CARD
    for trial in range(1500):
        size = int(rng.integers(1, 12))
        if trial % 3 == 0:  # dense hands over few ranks: many trios, bombs, airplanes
            pool = [c for c in range(54) if deck_ranks[c] < 6 or c >= 52]
        else:
            pool = list(range(54))
        cards = rng.choice(pool, size=min(size, len(pool)), replace=False)
        hand = np.zeros(54, dtype=np.int8)
        hand[cards] = 1
        counts = np.bincount(deck_ranks[cards], minlength=15)
        last = -1
        if trial % 2:
            last = int(rng.integers(T.NUM_MOVES))
            if T.MOVE_SIZE[last] > 12:
                last = int(rng.choice(np.flatnonzero(T.MOVE_SIZE <= 8)))
        mask = np.zeros(T.NUM_ACTIONS, dtype=np.int8)
        T.legal_mask(hand, last, mask)
        generated = set()
        for m in np.flatnonzero(mask):
            key = (int(T.MOVE_TYPE[m]), int(T.MOVE_MAIN[m]), int(T.MOVE_LENGTH[m]))
            assert (T.MOVE_COUNTS[m] <= counts).all()
            assert key in bf_readings(T.MOVE_COUNTS[m])  # the classifier agrees with the generator
            assert last < 0 or T.beats(int(m), last)
            generated.add(key + (T.MOVE_COUNTS[m].tobytes(),))
        expected = set()
        target = None if last < 0 else (int(T.MOVE_TYPE[last]), int(T.MOVE_MAIN[last]), int(T.MOVE_LENGTH[last]))
        for sub in product(*[range(k + 1) for k in counts]):
            sub = np.array(sub, dtype=np.int8)
            for key in bf_readings(sub):
                if target is None or bf_beats(key, target):
                    expected.add(key + (sub.tobytes(),))
        assert generated == expected, (counts.tolist(), T.move_string(last) if last >= 0 else None)


# ------------------------------------------------------------------ env: bidding, play, scoring
def deck_for(hands: list[str], kitty: str) -> list[str]:
    """A deck: 17 cards to the first bidder (seat 0 here), then seats 1 and 2, then the kitty, from rank strings."""
    taken = set()
    out = []
    for text in hands + [kitty]:
        for ch in text:
            r = T.RANK_CHARS.index(ch)
            card = next(c for c in range(54) if T.RANK_OF_CARD[c] == r and c not in taken)
            taken.add(card)
            out.append(card)
    return format_cards(out).split()


SPRING_DEAL = (["3333444455556666B", "777788889999TTTTR", "JJJJQQQQKKKKAAAA2"], "222")


def test_all_pass_is_a_dead_hand():
    env = raw_env()
    env.reset(options={"deck": deck_for(*SPRING_DEAL), "first_bidder": 0})
    for _ in range(3):
        env.step(T.BID_PASS)
    assert all(env.terminations.values()) and env.state.dead
    assert env._cumulative_rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": 0.0}


def test_bidding_a_three_ends_it_and_landlord_takes_the_kitty():
    env = raw_env()
    env.reset(options={"deck": deck_for(*SPRING_DEAL), "first_bidder": 1})
    assert env.agent_selection == "player_1"
    env.step(T.BID_PASS + 1)
    mask = env.observe("player_2")["action_mask"]
    assert not mask[T.BID_PASS + 1] and mask[T.BID_PASS + 2] and mask[T.BID_PASS]
    env.step(T.BID_PASS + 3)
    assert env.state.landlord == 2 and env.state.bid == 3 and not env.state.bidding
    assert env.agent_selection == "player_2" and env.state.hands[2].sum() == 20
    parts = env.layout.decode(env.observe("player_0")["observation"])
    assert parts["kitty"].sum() == 3 and parts["landlord"][2] == 1  # landlord is two seats on = previous


def test_kitty_hidden_during_bidding():
    env = raw_env()
    env.reset(seed=3)
    for p in env.possible_agents:
        assert env.layout.decode(env.observe(p)["observation"])["kitty"].sum() == 0


def test_bidding_observation_shows_the_bids_so_far_and_the_place_in_the_order():
    # one-hot per relative seat (0 self, 1 next, 2 previous) over: not yet, no bid, 1, 2, 3
    not_yet, no_bid, one, two = [1, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 0]
    env = raw_env()

    def view(agent):
        parts = env.layout.decode(env.observe(agent)["observation"])
        return parts["bids"].tolist(), parts["bid_position"].tolist()

    # player_0 bids first: nobody has bid, it is first in the order
    env.reset(options={"deck": deck_for(*SPRING_DEAL), "first_bidder": 0})
    assert view("player_0") == ([not_yet, not_yet, not_yet], [1, 0, 0])
    # player_0 bids last after two passes (its pass would kill the hand): player_1 (next) and player_2
    # (previous) passed, and it is third in the order
    env.reset(options={"deck": deck_for(*SPRING_DEAL), "first_bidder": 1})
    env.step(T.BID_PASS)
    env.step(T.BID_PASS)
    assert env.agent_selection == "player_0"
    assert view("player_0") == ([not_yet, no_bid, no_bid], [0, 0, 1])
    # player_2 opens with 1, player_0 bids 2: player_1 (third in the order) sees player_2 as next seat
    # with a 1 and player_0 as previous seat with a 2; player_2 sees itself with its 1, player_0 next
    env.reset(options={"deck": deck_for(*SPRING_DEAL), "first_bidder": 2})
    env.step(T.BID_PASS + 1)
    env.step(T.BID_PASS + 2)
    assert view("player_1") == ([not_yet, one, two], [0, 0, 1])
    assert view("player_2") == ([one, two, not_yet], [1, 0, 0])
    env.step(T.BID_PASS)  # player_1 passes: player_0 is landlord at 2; the bids stay visible
    assert not env.state.bidding and env.state.landlord == 0
    assert view("player_1") == ([no_bid, one, two], [0, 0, 1])


def test_landlord_plays_its_kitty_copies_first():
    # landlord player_0 holds 3333 (one 3 from the kitty), a dealt 9 and a kitty 9, a dealt 2 and a kitty 2.
    # Playing a single 3 (then a 9) plays the kitty copy: the farmers learn nothing new, and the kitty cards
    # still in the landlord's hand are just the 9 and the 2 (then the 2 alone)
    hands = ["3456789TJQKA2BR33", "44455566677788899", "TTTJJJQQQKKKAAA22"]
    env = raw_env()
    env.reset(options={"deck": deck_for(hands, "392"), "landlord": 0, "bid": 1, "first_bidder": 0})
    kitty = [int(c) for c in env.state.kitty]
    kitty_3, kitty_9, kitty_2 = kitty
    assert kitty_3 == max(c for c in range(54) if T.RANK_OF_CARD[c] == 0)  # the highest id of rank 3

    def kitty_ranks_in_hand():  # as a farmer sees them: the "at least one" plane of 3..2, then the jokers
        planes = env.layout.decode(env.observe("player_1")["observation"])["kitty_in_landlord_hand"]
        present = np.concatenate([planes[:13], planes[52:]])
        return "".join(T.RANK_CHARS[r] for r in np.flatnonzero(present))

    assert kitty_ranks_in_hand() == "392"
    env.step(T.MOVE_ID["3"])
    assert env.state.played[0, kitty_3] == 1 and env.state.hands[0, kitty_3] == 0
    assert env.state.counts[0, 0] == 3  # three dealt 3s left
    assert kitty_ranks_in_hand() == "92"
    env.step(T.PASS)
    env.step(T.PASS)
    env.step(T.MOVE_ID["9"])
    assert env.state.played[0, kitty_9] == 1 and kitty_ranks_in_hand() == "2"
    assert env.state.kitty_in_hand.sum() == 1 and env.state.kitty_in_hand[kitty_2] == 1


def test_scoring_bid_three_two_bombs_and_a_spring():
    # the deal of SPRING_DEAL with the first bidder at seat 1 (blocks: seat 1, seat 2, seat 0):
    # landlord player_1 (bid 3) holds 3333 4444 5555 6666 B + 222; it plays two bombs (3333, 4444), then
    # 5555+66 (four with two singles: not a bomb), 222+66 and B, going out while
    # neither farmer plays a card: M = 2 bombs + 1 spring = 3 -> landlord +2*3*8 = 48, farmers -24
    hands, kitty = SPRING_DEAL
    env = raw_env()
    env.reset(options={"deck": deck_for(hands, kitty), "first_bidder": 1})
    env.step(T.BID_PASS + 3)  # player_1 bids 3
    assert env.state.landlord == 1
    plays = ["3333", None, None, "4444", None, None, "5555+66", None, None, "222+66", None, None, "B"]
    for move in plays:
        if move is None:
            env.step(T.PASS)
            continue
        env.step(T.MOVE_ID[move])
    assert env.state.winner == 1 and env.state.bombs == 2
    assert env.infos["player_1"]["score"] == 48 and env.infos["player_0"]["score"] == -24
    assert sum(env.infos[a]["score"] for a in env.possible_agents) == 0


def test_anti_spring():
    # landlord player_0 (bid 2) leads a single 3; player_1 beats it with a 9, everyone passes, and player_1
    # goes out with 444555666777+8889 (three 8s as single wings): the landlord played only its opening
    # lead, so M = 0 bombs + 1 anti-spring: unit 2 * 2^1 = 4, landlord -8, farmers +4 each
    hands = ["3456789TJQKA2BR33", "44455566677788899", "TTTJJJQQQKKKAAA22"]
    env = raw_env()
    env.reset(options={"deck": deck_for(hands, "392"), "landlord": 0, "bid": 2, "first_bidder": 0})
    for move in ["3", "9", "pass", "pass", "444555666777+8889"]:
        env.step(T.PASS if move == "pass" else T.MOVE_ID[move])
    assert env.state.winner == 1
    assert [env.infos[a]["score"] for a in env.possible_agents] == [-8, 4, 4]


def test_win_reward_by_side():
    env = raw_env(reward="win", bidding=False)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    while not any(env.terminations.values()):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    landlord = env.state.landlord
    won = env.state.winner == landlord
    for p, a in enumerate(env.possible_agents):
        assert env._cumulative_rewards[a] == (1 if (p == landlord) == won else -1)


def test_bad_input():
    with pytest.raises(ValueError, match="reset option landlord=5"):
        raw_env().reset(options={"landlord": 5})
    with pytest.raises(ValueError, match="bad card code '33X'"):
        legal_moves("33X")
    with pytest.raises(ValueError, match="not a Dou Dizhu move"):
        legal_moves("3345", "34")
    env = raw_env(bidding=False)
    env.reset(seed=1)
    with pytest.raises(ValueError, match="must play"):
        env.parse_action("pass")
    with pytest.raises(ValueError, match="not a legal move"):
        env.parse_action("22222")


def test_numba_playouts_end_and_conserve():
    steps, landlord_wins = playouts(200, seed=3)
    assert steps > 200 * 10 and 0 < landlord_wins < 200


def test_rule_agent_beats_random_as_landlord_and_farmer():
    from cardenvs.arena import run_tournament

    r = run_tournament("doudizhu", ["doudizhu.rule", "random", "random"], 20, seed=2)
    as_landlord = [rec.outcome[0] for rec in r.records if rec.seats[0] == "doudizhu.rule"]
    as_farmer = [rec.outcome[rec.seats.index("doudizhu.rule")] for rec in r.records if rec.seats[0] != "doudizhu.rule"]
    assert np.mean(np.array(as_landlord) > 0) > 0.6 and np.mean(np.array(as_farmer) > 0) > 0.6


@pytest.mark.parametrize(
    "hand,bid",
    [
        ("2222R3456789TJQKA", 3),  # twos 4 + a bomb 2 + red joker 2 = 8 >= 7
        ("22BR3456789TJQKAA", 2),  # twos 2 + black joker 1.5 + red joker 2 = 5.5 >= 5
        ("2B33334567789TJQK", 1),  # a two 1 + black joker 1.5 + a bomb 2 = 4.5 >= 3.5
        ("2B3456789TJQKAA34", 0),  # 2.5: no bid
    ],
)
def test_rule_agent_bids_by_hand_strength(hand, bid):
    """doudizhu.rule (the numba policy, through the generic agent) bids from its strength score."""
    from cardenvs.agent import load_agent

    rest = "".join(ch * (4 if ch not in "BR" else 1) for ch in T.RANK_CHARS)
    for ch in hand:
        rest = rest.replace(ch, "", 1)
    env = raw_env()
    env.reset(options={"deck": deck_for([hand, rest[:17], rest[17:34]], rest[34:]), "first_bidder": 0})
    action = load_agent("doudizhu.rule", env).act(env.observe("player_0"), np.random.default_rng(0))
    assert action == T.BID_PASS + bid


@pytest.mark.parametrize("options", [{}, {"bidding": False}])
def test_rank_counts_kept_in_step_equal_the_cards(options):
    """The rank counts the state keeps in step for the observation (``counts``, ``played_ranks``,
    ``kitty_ranks``) equal the per-card fields they summarise after every step of random games, deals and
    bidding included (the vector env's autoreset starts new deals), and :func:`rules.recount` rebuilds them."""
    from cardenvs import vector

    v = vector.make("doudizhu", 32, copy=False, **options)
    v.reset(seed=11)
    rng = np.random.default_rng(11)
    rank = np.asarray(T.RANK_OF_CARD)[:54]

    def by_rank(cards):  # [games, 54] 0/1 -> [games, 15] counts
        return np.stack([np.bincount(rank, weights=row, minlength=15) for row in cards]).astype(np.int8)

    kept = ("counts", "played_ranks", "kitty_ranks")
    ended = 0
    for _ in range(400):
        s = v._b.state
        for q in range(3):
            assert np.array_equal(s["counts"][:, q], by_rank(s["hands"][:, q]))
            assert np.array_equal(s["played_ranks"][:, q], by_rank(s["played"][:, q]))
        assert np.array_equal(s["kitty_ranks"], by_rank(s["kitty_in_hand"]))
        copy = s[:4].copy()
        for name in kept:
            copy[name] = 0
        for g in range(4):
            R.recount(copy[g])
        assert all(np.array_equal(copy[name], s[:4][name]) for name in kept)
        ids, counts = v.legal_ids()
        _, _, terminated, truncated, _ = v.step(ids[np.arange(32), (rng.random(32) * counts).astype(np.int64)])
        ended += int((terminated | truncated).sum())
    assert ended > 32 and s["played_ranks"].any() and s["kitty_ranks"].any()
