"""Determinizers of Twenty and Two Way Street: consistent with what the seat saw, independent of the rest."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cardenvs.core import kernels
from cardenvs.core.rng import stream
from cardenvs.games.twenty import determinize as twenty_det
from cardenvs.games.twenty import rules as twenty_rules
from cardenvs.games.twenty.env import raw_env as twenty_env
from cardenvs.games.two_way_street import determinize as tws_det
from cardenvs.games.two_way_street import rules as tws_rules
from cardenvs.games.two_way_street.env import raw_env as tws_env


def play_random(env, steps: int, rng) -> None:
    for _ in range(steps):
        if any(env.terminations.values()) or any(env.truncations.values()):
            return
        obs = env.observe(env.agent_selection)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def _det(states):
    return twenty_det.determinize if states.dtype == twenty_rules.STATE else tws_det.determinize


def determinized(env, p: int, seed: int, states=None):
    states = env.states if states is None else states
    out = np.zeros(1, dtype=states.dtype)
    _det(states)(states, 0, env.params, p, stream(np.uint64(seed), 0), out, 0)
    return out


def test_determinizers_are_registered():
    assert kernels.has_determinize(twenty_rules.STATE) and kernels.has_determinize(tws_rules.STATE)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 90), exposed=st.booleans(), swap=st.booleans())
def test_twenty_determinization(seed, steps, exposed, swap):
    env = twenty_env(exposed_hands=exposed, swap_deals=swap)
    env.reset(seed=seed)
    play_random(env, steps, np.random.default_rng(seed))
    s = env.states[0]
    if s["over"]:
        return
    p = int(s["to_move"])
    q = 1 - p
    d = determinized(env, p, seed)[0]
    # cards conserved, hand sizes and p's hand kept, public fields kept
    assert sorted(twenty_rules.card_locations(d)) == list(range(52))
    assert twenty_rules.hand_cards(d, p) == twenty_rules.hand_cards(s, p)
    assert d["hand_n"][q] == s["hand_n"][q]
    for field in ("tally", "tally_n", "seen", "scores", "stock_pos", "bonus", "set_aside_n", "last_scorer"):
        assert np.array_equal(d[field], s[field])
    assert np.array_equal(d["deck"][:2], s["deck"][:2])
    known_opponent = exposed or (swap and s["round_index"] % 2 == 1)
    if known_opponent:
        assert twenty_rules.hand_cards(d, q) == twenty_rules.hand_cards(s, q)
    if swap and s["round_index"] % 2 == 1:
        assert np.array_equal(d["deck"], s["deck"])  # every card is known in round 2
    # the same observation for p
    obs_s, obs_d = np.zeros(1000), np.zeros(1000)
    twenty_rules.observe(env.states, 0, env.params, p, obs_s)
    twenty_rules.observe(np.array([d]), 0, env.params, p, obs_d)
    assert np.array_equal(obs_s, obs_d)
    # information independence: exchange a hidden opponent card with a stock card
    if not known_opponent and s["hand_n"][q] and s["stock_pos"] < 52:
        other = env.states.copy()
        o = other[0]
        i, j = int(s["hand_n"][q]) - 1, int(s["stock_pos"])
        o["hands"][q, i], o["deck"][j] = s["deck"][j], s["hands"][q, i]
        assert determinized(env, p, seed, other)[0].tobytes() == d.tobytes()


def tws_seen_by(record, p: int, n: int) -> set[int]:
    """Cards p has seen outside the hidden places: played ones and captured ones (by id)."""
    seen = set(int(c) for c in record["taken_cards"][: record["trick_no"] * n])
    seen |= set(int(c) for c in tws_rules.trick_cards(record))
    return seen


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 60), players=st.sampled_from([2, 3, 4, 5, 6]))
def test_two_way_street_determinization(seed, steps, players):
    env = tws_env(players=players)
    env.reset(seed=seed)
    play_random(env, steps, np.random.default_rng(seed))
    s = env.states[0]
    if s["over"] or s["truncated"]:
        return
    p = int(s["current"])
    d = determinized(env, p, seed)[0]
    # cards conserved (multiset), p's hand and every hand size kept, public fields kept
    assert sorted(tws_rules.card_locations(d)) == sorted(tws_rules.card_locations(s))
    assert np.array_equal(d["hands"][p], s["hands"][p])
    assert np.array_equal(d["hands"].sum(axis=1), s["hands"].sum(axis=1))
    for field in ("played", "taken_cards", "trick_cards", "captured", "direction", "forced", "void", "discards"):
        assert np.array_equal(d[field], s[field])
    assert (d["stock_head"], d["stock_end"]) == (s["stock_head"], s["stock_end"])
    # p's own discards still in the stock stay where it put them
    deck_len = int(env.params[0]["deck_len"])
    if players > 2:  # declarer k discards to stock places deck_len + 2k, + 1
        first = deck_len + 2 * ((p - int(s["first"])) % players)
        for pos in range(first, first + int(s["n_discards"][p])):
            if pos >= s["stock_head"]:
                assert d["stock"][pos] == s["stock"][pos] == s["discards"][p][pos - first]
    # shown voids respected; the same observation for p
    for q in range(players):
        for suit in range(4):
            if (int(s["void"][q]) >> suit) & 1:
                assert d["hands"][q][suit:52:4].sum() == 0
                assert s["hands"][q][suit:52:4].sum() == 0  # the recorded void is true
    size = env.observation_space(env.agents[0])["observation"].shape[0]
    obs_s, obs_d = np.zeros(size), np.zeros(size)
    tws_rules.observe(env.states, 0, env.params, p, obs_s)
    tws_rules.observe(np.array([d]), 0, env.params, p, obs_d)
    assert np.array_equal(obs_s, obs_d)
    # information independence: two opponents exchange cards that neither is void in
    others = [q for q in range(players) if q != p]
    if len(others) >= 2:
        a, b = others[0], others[1]
        ca = [c for c in np.flatnonzero(s["hands"][a]) if c >= 52 or not (s["void"][b] >> (c % 4)) & 1]
        cb = [c for c in np.flatnonzero(s["hands"][b]) if c >= 52 or not (s["void"][a] >> (c % 4)) & 1]
        if ca and cb and ca[0] != cb[0]:
            other = env.states.copy()
            other[0]["hands"][a, ca[0]] -= 1
            other[0]["hands"][b, ca[0]] += 1
            other[0]["hands"][b, cb[0]] -= 1
            other[0]["hands"][a, cb[0]] += 1
            assert determinized(env, p, seed, other)[0].tobytes() == d.tobytes()


def test_two_way_street_voids_are_recorded_and_respected():
    """Many random deals: every seat that showed a void gets no card of that suit, over many draws."""
    rng = np.random.default_rng(1)
    checked = 0
    for seed in range(40):
        env = tws_env(players=4)
        env.reset(seed=seed)
        play_random(env, int(rng.integers(20, 50)), rng)
        s = env.states[0]
        if s["over"] or not s["void"].any():
            continue
        p = int(s["current"])
        for k in range(5):
            d = determinized(env, p, seed * 10 + k)[0]
            for q in range(4):
                for suit in range(4):
                    if q != p and (int(s["void"][q]) >> suit) & 1:
                        assert d["hands"][q][suit:52:4].sum() == 0
                        checked += 1
    assert checked > 20


@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    m=st.integers(1, 9),
    void_share=st.floats(0, 1),
)
def test_two_way_street_feasibility_from_either_side_agrees(seed, m, void_share):
    """The placement check from the cards' side (31 sets of card types, used from 5 other seats on) says what
    Hall's condition over the seats (2 ** seats sets) says, whenever places and cards are as many."""
    rng = np.random.default_rng(seed)
    seats = np.sort(rng.choice(tws_rules.MAX_PLAYERS, size=m, replace=False)).astype(np.int64)
    voids = np.zeros(tws_rules.MAX_PLAYERS + 1, dtype=np.int64)
    for q in seats:
        voids[q] = int(rng.integers(0, 16)) if rng.random() < void_share else 0
    cap = np.zeros(tws_rules.MAX_PLAYERS + 1, dtype=np.int64)
    cap[seats] = rng.integers(0, 6, size=m)
    cap[tws_rules.MAX_PLAYERS] = rng.integers(0, 4)
    counts = rng.multinomial(int(cap.sum()), rng.dirichlet(np.ones(5))).astype(np.int64)
    by_seats = tws_det._feasible_by_seats(cap, voids, counts, seats)
    assert tws_det._feasible_by_types(cap, voids, counts, seats) == by_seats
    assert tws_det._feasible(cap, voids, counts, seats) == by_seats
