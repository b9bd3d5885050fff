"""Determinization (Dou Dizhu, Twos): re-dealt hidden cards stay consistent with what the seat observed, and
the result does not depend on how the hidden cards are really split (information independence)."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cardenvs
from cardenvs.core import kernels
from cardenvs.games.doudizhu import rules as ddz
from cardenvs.games.twos import rules as twos
from cardenvs.search import determinized

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def position(game: str, deal: int, steps: int, bidding: bool = False, players: int = 3):
    """An env after ``steps`` seeded random moves (fewer if the game ends first: the last running position)."""
    if game == "doudizhu":
        env = cardenvs.make("doudizhu")
        env.reset(seed=deal, options=None if bidding else {"landlord": deal % 3, "bid": 1})
    else:
        env = cardenvs.make("twos", players=players)
        env.reset(seed=deal)
    rng = np.random.default_rng(deal)
    base = env.unwrapped
    for _ in range(steps):
        legal = np.flatnonzero(base._core_legal_mask())
        saved = base.states.copy()
        base._apply(int(rng.choice(legal)))
        if base._is_over():
            base.states[:] = saved
            break
    return base


def hidden_pool_ddz(record, p):
    """Cards seat p cannot see (other hands minus the landlord's kitty cards once shown, plus the kitty while
    bidding), from the true state."""
    cards = []
    for q in range(3):
        if q != p:
            for c in np.flatnonzero(record["hands"][q]):
                if record["bidding"] or not record["kitty_in_hand"][c]:
                    cards.append(c)
    if record["bidding"]:
        cards += list(record["kitty"])
    return sorted(cards)


def check_ddz(state, out, p):
    s, o = state[0], out[0]
    assert (o["hands"][p] == s["hands"][p]).all(), "own hand changed"
    assert (o["played"] == s["played"]).all(), "played cards changed"
    assert (o["hands"].sum(axis=1) == s["hands"].sum(axis=1)).all(), "hand sizes changed"
    for q in range(3):
        ranks = np.bincount(np.asarray(ddz.moves.RANK_OF_CARD)[np.flatnonzero(o["hands"][q])], minlength=15)
        assert (o["counts"][q] == ranks).all(), "counts out of step with hands"
    assert sorted(ddz.card_locations(out[0]).tolist()) == list(range(ddz.NUM_CARDS)), "cards not conserved"
    public = [n for n in ddz.STATE.names if n not in ("hands", "counts", "kitty")]
    for name in public:
        assert np.array_equal(o[name], s[name]), f"public field {name} changed"
    if not s["bidding"]:
        assert (o["kitty"] == s["kitty"]).all(), "shown kitty changed"
        held = np.flatnonzero(s["kitty_in_hand"])
        assert o["hands"][s["landlord"], held].all(), "a shown kitty card left the landlord's hand"
    # never a card p has seen elsewhere: every re-dealt card comes from p's unseen pool
    moved = sorted(
        [c for q in range(3) if q != p for c in np.flatnonzero(o["hands"][q])]
        + (list(o["kitty"]) if s["bidding"] else [])
    )
    known_kitty = [] if s["bidding"] else [c for c in np.flatnonzero(s["kitty_in_hand"]) if s["landlord"] != p]
    assert sorted(set(moved) - set(known_kitty)) == hidden_pool_ddz(s, p)


@SETTINGS
@given(deal=st.integers(0, 10_000), steps=st.integers(0, 60), bidding=st.booleans(), seed=st.integers(0, 2**32))
def test_doudizhu_determinization_is_consistent(deal, steps, bidding, seed):
    base = position("doudizhu", deal, steps, bidding)
    for p in range(3):
        out = determinized(base.states, 0, base.params, p, seed)
        check_ddz(base.states, out, p)


def swap_hidden(state, p, rng, game):
    """A copy of a one-game state with the cards p cannot see re-split at random among their places."""
    other = state.copy()
    r = other[0]
    if game == "doudizhu":
        places = []  # (kind, seat or index)
        pool = []
        for q in range(3):
            if q != p:
                for c in np.flatnonzero(r["hands"][q]):
                    if r["bidding"] or not r["kitty_in_hand"][c]:
                        places.append(q)
                        pool.append(c)
        if r["bidding"]:
            places += [-1] * 3
            pool += list(r["kitty"])
        pool = rng.permutation(pool)
        for q in range(3):
            if q != p:
                for c in np.flatnonzero(r["hands"][q]):
                    if r["bidding"] or not r["kitty_in_hand"][c]:
                        r["hands"][q, c] = 0
        kitty = []
        for place, c in zip(places, pool, strict=True):
            if place < 0:
                kitty.append(c)
            else:
                r["hands"][place, c] = 1
        if r["bidding"]:
            r["kitty"][:] = kitty
        for q in range(3):
            r["counts"][q] = np.bincount(
                np.asarray(ddz.moves.RANK_OF_CARD)[np.flatnonzero(r["hands"][q])], minlength=15
            )
    else:
        places, pool = [], []
        for q in range(twos.MAX_PLAYERS):
            if q != p:
                for v in np.flatnonzero(r["hands"][q]):
                    places.append(q)
                    pool.append(v)
        for v in np.flatnonzero(r["out_of_play"]):
            places.append(-1)
            pool.append(v)
        pool = rng.permutation(pool)
        for q in range(twos.MAX_PLAYERS):
            if q != p:
                r["hands"][q] = 0
        r["out_of_play"][:] = 0
        for place, v in zip(places, pool, strict=True):
            if place < 0:
                r["out_of_play"][v] = 1
            else:
                r["hands"][place, v] = 1
    return other


@SETTINGS
@given(
    game=st.sampled_from(["doudizhu", "twos"]),
    deal=st.integers(0, 10_000),
    steps=st.integers(0, 50),
    bidding=st.booleans(),
    seed=st.integers(0, 2**32),
)
def test_determinization_is_information_independent(game, deal, steps, bidding, seed):
    base = position(game, deal, steps, bidding)
    rng = np.random.default_rng(seed)
    p = int(rng.integers(3))
    other = swap_hidden(base.states, p, rng, game)
    a = determinized(base.states, 0, base.params, p, seed)
    b = determinized(other, 0, base.params, p, seed)
    assert a.tobytes() == b.tobytes(), "the determinization read a hidden card"


def test_determinization_redeals_hidden_cards():
    """At the start of a deal the other hands are re-dealt (different streams, different deals)."""
    for game in ("doudizhu", "twos"):
        base = position(game, 1, 0)
        deals = {determinized(base.states, 0, base.params, 0, seed)[0]["hands"][1].tobytes() for seed in range(5)}
        assert len(deals) == 5
        assert base.states[0]["hands"][1].tobytes() not in deals


def lowest_dealt_holder(record, players):
    for v in range(twos.NUM_CARDS):
        for q in range(players):
            if record["hands"][q, v] or record["played"][q, v]:
                return q
    return -1


@SETTINGS
@given(
    deal=st.integers(0, 10_000),
    steps=st.integers(0, 50),
    players=st.sampled_from([2, 3, 4]),
    seed=st.integers(0, 2**32),
)
def test_twos_determinization_is_consistent(deal, steps, players, seed):
    base = position("twos", deal, steps, players=players)
    s = base.states[0]
    assert s["leader"] == lowest_dealt_holder(s, players), "the leader field is the holder of the lowest card"
    for p in range(players):
        out = determinized(base.states, 0, base.params, p, seed)
        o = out[0]
        assert (o["hands"][p] == s["hands"][p]).all(), "own hand changed"
        assert (o["played"] == s["played"]).all(), "played cards changed"
        assert (o["hands"].sum(axis=1) == s["hands"].sum(axis=1)).all(), "hand sizes changed"
        assert o["out_of_play"].sum() == s["out_of_play"].sum(), "out-of-play count changed"
        assert sorted(twos.card_locations(o).tolist()) == list(range(twos.NUM_CARDS)), "cards not conserved"
        for name in twos.STATE.names:
            if name not in ("hands", "out_of_play"):
                assert np.array_equal(o[name], s[name]), f"public field {name} changed"
        assert lowest_dealt_holder(o, players) == s["leader"], "the leader must hold the lowest card dealt"


def test_twos_leader_forces_low_cards_out_of_play():
    """Seat 0 led holding 4S as its lowest card: 3S, 3C, 3D, 3H were never dealt in any determinization."""
    base = position("twos", 0, 0)
    s = base.states[0]
    p = int(s["leader"])
    lowest = int(np.flatnonzero(s["hands"][p])[0])
    for seed in range(20):
        o = determinized(base.states, 0, base.params, p, seed)[0]
        assert o["out_of_play"][:lowest].all() and o["hands"][:, :lowest].sum() == 0


def test_determinizers_are_registered():
    assert kernels.has_determinize(ddz.STATE) and kernels.has_determinize(twos.STATE)
