"""Two Way Street's option ``declaration``: "random" and "forced" take the high/low choice away (the mask
offers only the imposed declaration), "choose" is the game as before. The variants ``random_declaration``
and ``forced_declaration`` are in the env's VARIANTS, so PettingZoo's api_test and seed_test (test_api.py)
and the vector-vs-AEC equality (test_vector.py) run on them too."""

import numpy as np
import pytest

from cardenvs.agent import load_agent
from cardenvs.core.rng import next_u64, stream
from cardenvs.core.seeds import deal_seed_of
from cardenvs.games.two_way_street import determinize, policies, rules
from cardenvs.games.two_way_street.env import DISCARD0, HIGH, LOW, SUIT0, TwoWayStreetEnv, raw_env

DIRECTIONS = (HIGH, LOW)


def declare_phase(env, choose=None):
    """Play the declarations and discards of the hand under way; return [(seat, legal declarations)] in
    declaring order (an empty tuple for a seat the majority forced). ``choose(seat, legal)``: the
    declaration to make (default: the first legal one); discards are each seat's two lowest card ids."""
    seen = []
    while env.state.phase in (rules.DECLARE, rules.DISCARD):
        seat = int(env.state.current)
        mask = env.observe(f"player_{seat}")["action_mask"]
        legal = tuple(a for a in DIRECTIONS if mask[a])
        if env.state.phase == rules.DECLARE:
            seen.append((seat, legal))
            env.step(choose(seat, legal) if choose else legal[0])
        else:
            if env.state.discard_left == 2 and env.state.forced[seat]:
                seen.append((seat, legal))
            env.step(DISCARD0 + int(np.flatnonzero(env.state.hands[seat])[0]))
    return seen


def play_out_hand(env) -> None:
    """Play the hand under way to its end with each seat's first legal card."""
    hand = int(env.state.hand_no)
    while not any(env.terminations.values()) and env.state.hand_no == hand:
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))


def test_choose_offers_both_declarations():
    env = raw_env(players=4)
    env.reset(seed=0)
    mask = env.observe("player_0")["action_mask"]
    assert mask[HIGH] and mask[LOW] and mask.sum() == 2
    assert env.state.imposed[:4].tolist() == [-1] * 4


@pytest.mark.parametrize("players", [3, 4, 5, 10])
def test_forced_every_declarer_high_and_the_majority_rule_forces_the_rest(players):
    """Every declarer declares high (the mask offers only high); once floor(n/2) + 1 have, the rest are
    forced low (x 3) and go straight to their discards. From the first declarer: player_0 in hand 1,
    player_1 in hand 2. 3 players: H H, then 1 forced; 4: H H H, 1 forced; 5: H H H, 2 forced; 10: 6 and 4."""
    majority = players // 2 + 1
    env = raw_env(players=players, declaration="forced")
    env.reset(seed=4)
    for first in (0, 1):
        assert env.state.first == first
        seen = declare_phase(env)
        order = [(first + i) % players for i in range(players)]
        assert seen == [(q, (HIGH,)) for q in order[:majority]] + [(q, ()) for q in order[majority:]]
        assert [int(env.state.direction[q]) for q in order] == [HIGH] * majority + [LOW] * (players - majority)
        assert [int(env.state.forced[q]) for q in order] == [0] * majority + [1] * (players - majority)
        assert env.state.phase == rules.PLAY
        play_out_hand(env)


def test_forced_does_not_depend_on_the_hand():
    """The same seats declare the same ways whatever they hold: two seeds, two decks, one order."""
    directions = []
    for seed in (1, 2):
        env = raw_env(players=4, declaration="forced")
        env.reset(seed=seed)
        declare_phase(env)
        directions.append(env.state.direction[:4].tolist())
    assert directions[0] == directions[1] == [HIGH, HIGH, HIGH, LOW]


def documented_coins(seed: int, k: int, players: int, first: int) -> list[int]:
    """The rules docstring's coins: seat ``(first + i) % players`` gets bit 63 - i of one draw of stream
    DECLARATION_STREAM + k of the deal seed (0 high, 1 low)."""
    x = int(next_u64(stream(np.uint64(deal_seed_of(seed)), rules.DECLARATION_STREAM + k)))
    coins = [0] * players
    for i in range(players):
        coins[(first + i) % players] = (x >> (63 - i)) & 1
    return coins


def test_random_masks_offer_the_documented_coin_only():
    env = raw_env(players=4, declaration="random")
    env.reset(seed=7)
    coins = documented_coins(7, 0, 4, 0)
    assert env.state.imposed[:4].tolist() == coins
    for seat, legal in declare_phase(env):
        if env.state.forced[seat]:  # the majority rule forced it the other way: no declaring turn
            assert legal == () and env.state.direction[seat] != coins[seat]
        else:
            assert legal == (coins[seat],)
    play_out_hand(env)  # hand 2 is deal 1, player_1 first
    assert env.state.imposed[:4].tolist() == documented_coins(7, 1, 4, 1)


def test_random_is_reproducible_and_varies_with_the_seed():
    def coins(seed):
        env = raw_env(players=6, declaration="random")
        env.reset(seed=seed)
        return env.state.imposed[:6].tolist()

    assert coins(11) == coins(11)
    assert len({tuple(coins(seed)) for seed in range(20)}) > 10
    # the coins of a deal do not depend on the play before it: hand 2 after different declarations
    later = []
    for pick in (0, -1):
        env = raw_env(players=4, declaration="random")
        env.reset(seed=3)
        declare_phase(env)
        while not any(env.terminations.values()) and env.state.hand_no == 0:
            env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[pick]))
        later.append(env.state.imposed[:4].tolist())
    assert later[0] == later[1]


def test_random_is_a_fair_coin():
    # 500 deals x 4 seats = 2000 coins: the share of high is 0.5 +- 0.011 (one standard deviation)
    highs = total = 0
    for seed in range(500):
        env = raw_env(players=4, declaration="random")
        env.reset(seed=seed)
        highs += int((env.state.imposed[:4] == HIGH).sum())
        total += 4
    assert 0.46 < highs / total < 0.54


def test_random_keeps_the_majority_rule_and_scores_imposed_as_declared():
    """A deal whose first three coins agree: the fourth seat is forced the other way (x 3 in scoring), the
    three imposed seats are not forced."""
    seed = next(s for s in range(200) if len(set(documented_coins(s, 0, 4, 0)[:3])) == 1)
    coins = documented_coins(seed, 0, 4, 0)
    env = raw_env(players=4, declaration="random")
    env.reset(seed=seed)
    seen = declare_phase(env)
    assert seen[3] == (3, ())  # forced: no declaring turn, straight to its discards
    assert env.state.forced[:4].tolist() == [0, 0, 0, 1]
    assert env.state.direction[:4].tolist() == coins[:3] + [1 - coins[0]]


def test_heuristic_declares_the_imposed_way():
    for declaration in ("random", "forced"):
        env = raw_env(players=5, declaration=declaration)
        for seed in range(5):
            env.reset(seed=seed)
            while env.state.phase in (rules.DECLARE, rules.DISCARD):
                action = policies.heuristic(env.states, 0, env.params, stream(np.uint64(1), 0))
                assert env.observe(env.agent_selection)["action_mask"][action]
                env.step(int(action))


def test_determinizer_redraws_the_coins_p_cannot_see():
    """At player_1's declaring turn it knows its own coin and player_0's declaration; the coins of
    player_2 and player_3 are redrawn in the sampled worlds."""
    env = raw_env(players=4, declaration="random")
    env.reset(seed=5)
    env.step(int(env.state.imposed[0]))
    for card in np.flatnonzero(env.state.hands[0])[:2]:
        env.step(DISCARD0 + int(card))
    s = env.states[0]
    assert s["current"] == 1 and s["phase"] == rules.DECLARE
    later = set()
    for k in range(40):
        out = np.zeros(1, dtype=env.states.dtype)
        determinize.determinize(env.states, 0, env.params, 1, stream(np.uint64(k), 0), out, 0)
        o = out[0]
        assert o["imposed"][1] == s["imposed"][1] and o["direction"][0] == s["direction"][0]
        later.add((int(o["imposed"][2]), int(o["imposed"][3])))
    assert len(later) == 4  # every combination of the two hidden coins appears
    # "forced" is public: nothing to redraw
    env = raw_env(players=4, declaration="forced")
    env.reset(seed=5)
    out = np.zeros(1, dtype=env.states.dtype)
    determinize.determinize(env.states, 0, env.params, 0, stream(np.uint64(3), 0), out, 0)
    assert out[0]["imposed"][:4].tolist() == [HIGH] * 4


def test_search_plays_the_imposed_declaration():
    """PIMC searches every imposed declaration (a one-move root) and the discards after it."""
    env = raw_env(players=4, declaration="random", target=2)
    env.reset(seed=2)
    pimc = load_agent("two_way_street.pimc(playouts=8)", env)
    rng = np.random.default_rng(0)
    while env.state.phase in (rules.DECLARE, rules.DISCARD):
        obs = env.observe(env.agent_selection)
        action = pimc.act(obs, rng)
        if env.state.phase == rules.DECLARE:
            assert action == env.state.imposed[env.state.current]
        env.step(action)
    assert env.state.phase == rules.PLAY


def test_bad_values_give_a_clear_error():
    with pytest.raises(ValueError, match=r"option declaration='sometimes' is not allowed; it accepts 'choose'"):
        raw_env(declaration="sometimes")
    with pytest.raises(ValueError, match="declaration='random' needs 3\\+ players"):
        raw_env(players=2, declaration="random")
    raw_env(players=2, declaration="choose")  # duels with the default are fine


def test_variants_are_declared():
    assert TwoWayStreetEnv.VARIANTS["random_declaration"]["declaration"] == "random"
    assert TwoWayStreetEnv.VARIANTS["forced_declaration"]["declaration"] == "forced"
    assert not {SUIT0} & set(DIRECTIONS)  # the declaration actions stay 0 and 1
