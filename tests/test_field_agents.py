"""The field's Dou Dizhu agents in our arena (agents/doudizhu.py): RLCard's rule agent (``rlcard.rule``), checked
move for move against RLCard's own env on the same deals, and DouZero checkpoints (``douzero:DIR``), checked
feature for feature and move for move against DouZero's own engine, ``get_obs`` and ``DeepAgent`` on whole
games, with checkpoints written by DouZero's own model classes."""

import importlib.util
import os
import sys

import numpy as np
import pytest

import cardenvs
from cardenvs.agent import known_agents, load_agent
from cardenvs.arena import run_tournament
from cardenvs.games.doudizhu import moves
from cardenvs.games.doudizhu.env import LAYOUT

HAS_RLCARD = importlib.util.find_spec("rlcard") is not None
HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_rlcard = pytest.mark.skipif(not HAS_RLCARD, reason="rlcard is not installed (pip install 'cardenvs[rlcard]')")
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed (pip install 'cardenvs[train]')")
# DouZero's own package (the dev extra installs it): CI runs these checks, so there a missing DouZero fails them
needs_douzero = pytest.mark.skipif(
    importlib.util.find_spec("douzero") is None and not os.environ.get("CI"),
    reason="DouZero's package is not installed (pip install douzero==1.1.0 GitPython; the dev extra has it)",
)


def plane(cards: str) -> np.ndarray:
    """Our 54-entry encoding of rank characters ("at least k of rank r", k-major, then the jokers)."""
    counts = moves.counts_of(cards)
    out = np.zeros(54, dtype=np.int8)
    out[:52] = (counts[None, :13] > np.arange(4)[:, None]).reshape(52)
    out[52:] = counts[13:15] > 0
    return out


# ------------------------------------------------------------------------------------------------ names, errors
def test_the_names_are_known_and_play_only_doudizhu():
    assert {"doudizhu.rlcard", "rlcard.rule"} <= set(known_agents("doudizhu"))
    assert "rlcard.rule" not in known_agents("twos")
    with pytest.raises(ValueError, match="plays doudizhu, not twos"):
        load_agent("rlcard.rule", cardenvs.make("twos_v0").unwrapped)


def test_a_missing_rlcard_is_one_clear_line(monkeypatch):
    for name in [n for n in sys.modules if n == "rlcard" or n.startswith("rlcard.")] + ["rlcard"]:
        monkeypatch.setitem(sys.modules, name, None)
    env = cardenvs.make("doudizhu_v0").unwrapped
    with pytest.raises(ValueError, match=r"needs rlcard .*pip install 'cardenvs\[rlcard\]'"):
        load_agent("rlcard.rule", env)


def test_a_missing_torch_is_one_clear_line(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "torch", None)
    env = cardenvs.make("doudizhu_v0").unwrapped
    with pytest.raises(ValueError, match=r"needs torch .*pip install 'cardenvs\[train\]'"):
        load_agent(f"douzero:{tmp_path}", env)


# ------------------------------------------------------------------------------------------------------- RLCard
@needs_rlcard
def test_every_rlcard_move_is_one_of_ours_with_its_reading():
    """RLCard's 27,471 card sets each have one reading, which is exactly one of our moves: same cards, type and
    chain length, and main rank = RLCard's weight (less 1 for the types with kickers, which RLCard counts
    from 1)."""
    from rlcard.games.doudizhu.utils import CARD_TYPE

    from cardenvs.agents.doudizhu import rlcard_tables, rlcard_type

    move_of, string_of, order, type_of = rlcard_tables()
    assert len(move_of) == len(string_of) == len(CARD_TYPE[0]) == 27471  # a bijection onto its image
    kickers = {"trio_solo", "trio_pair", "trio_solo_chain", "trio_pair_chain", "four_two_solo", "four_two_pair"}
    for text, [[type_name, weight]] in CARD_TYPE[0].items():
        m = move_of[text]
        kind, length = rlcard_type(type_name)
        assert (moves.MOVE_COUNTS[m] == moves.counts_of(text)).all()
        assert (moves.MOVE_TYPE[m], moves.MOVE_LENGTH[m]) == (kind, length)
        if type_name != "rocket":
            base = type_name.rstrip("0123456789").rstrip("_")
            assert moves.MOVE_MAIN[m] == int(weight) - (base in kickers), text
    assert moves.move_string(move_of["3334"]) == "333+4"
    assert moves.move_string(move_of["555666777888"]) == "555666777888"  # RLCard: four trios only
    assert "3334445556667778" not in move_of  # one of the 374 airplanes RLCard lacks


def rlcard_deck(rl_env) -> list[str]:
    """Our deck (card codes, top first) that deals RLCard's deal: player_0 (RLCard's landlord) the 17 cards
    of its hand that are not the kitty, then players 1 and 2, then RLCard's kitty."""

    def code(card) -> str:
        if card.rank == "":
            return card.suit  # "BJ", "RJ"
        return ("10" if card.rank == "T" else card.rank) + card.suit

    kitty = [code(c) for c in rl_env.game.round.dealer.deck[-3:]]
    hands = [[code(c) for c in player.current_hand] for player in rl_env.game.players]
    landlord = list(hands[0])
    for card in kitty:
        landlord.remove(card)
    return landlord + hands[1] + hands[2] + kitty


def rlcard_own_move(rule, state, rng: np.random.Generator) -> tuple[str, bool]:
    """RLCard's own agent on RLCard's own state, its random draw (when no rule applies) from ``rng`` as
    ``rlcard.rule`` makes it, and whether it drew."""
    from cardenvs.agents.doudizhu import rlcard_step

    return rlcard_step(rule, state, rng)


@needs_rlcard
def test_rlcard_rule_moves_equal_rlcards_own_on_the_same_deals():
    """Seeded play from RLCard's deals in RLCard's env and in ours (the same cards dealt, player_0 landlord):
    at every position, rlcard.rule's move in our env equals RLCard's own rule agent's move on RLCard's own
    state, and the state it builds holds RLCard's hand, other hands, played cards, card counts, last turns
    and (following) its legal actions in RLCard's order. Play follows the rule agent half the time and a
    random RLCard-legal move otherwise, so positions vary."""
    import rlcard
    from rlcard.models.doudizhu_rule_models import DouDizhuRuleAgentV1

    from cardenvs.agents.doudizhu import RLCardRuleAgent, rlcard_tables

    move_of = rlcard_tables()[0]
    saved = np.random.get_state()
    env = cardenvs.make("doudizhu_v0", bidding=False)
    agent = load_agent("rlcard.rule", env.unwrapped)
    assert isinstance(agent, RLCardRuleAgent)
    rule = DouDizhuRuleAgentV1()
    play_rng = np.random.default_rng(7)
    compared = leading = drew = 0
    try:
        for deal in range(16):
            rl_env = rlcard.make("doudizhu", config={"seed": 1000 + deal})
            rl_state, player = rl_env.reset()
            env.reset(seed=deal, options={"deck": rlcard_deck(rl_env), "first_bidder": 0, "landlord": 0, "bid": 1})
            while not rl_env.is_over():
                seat = env.unwrapped.possible_agents.index(env.agent_selection)
                assert seat == player
                observation = env.last()[0]
                raw = rl_state["raw_obs"]
                ours = agent.state(observation)["raw_obs"]
                for key in ("current_hand", "others_hand", "played_cards", "num_cards_left", "landlord", "self"):
                    assert ours[key] == raw[key], (deal, key)
                if raw["trace"]:  # ours is the end of RLCard's trace, as far back as our history shows
                    assert ours["trace"] and ours["trace"] == raw["trace"][-len(ours["trace"]) :], deal
                else:
                    assert ours["trace"] == []
                if raw["trace"] and not (raw["trace"][-1][1] == "pass" and raw["trace"][-2][1] == "pass"):
                    assert ours["actions"] == raw["actions"], deal
                else:
                    leading += 1
                    assert set(ours["actions"]) == set(raw["actions"]) - {"pass"}
                seed = int(play_rng.integers(2**31))
                expected, random_move = rlcard_own_move(rule, rl_state, np.random.default_rng(seed))
                got = agent.act(observation, np.random.default_rng(seed))
                drew += random_move
                assert got == (moves.PASS if expected == "pass" else move_of[expected]), (deal, expected)
                compared += 1
                move = expected if play_rng.random() < 0.5 else str(play_rng.choice(raw["actions"]))
                rl_state, player = rl_env.step(move, raw_action=True)
                env.step(moves.PASS if move == "pass" else move_of[move])
            assert all(env.terminations.values()), deal
            assert env.unwrapped.state.winner == rl_env.game.winner_id
    finally:
        np.random.set_state(saved)
    assert compared > 400 and leading > 50 and drew >= 3, (compared, leading, drew)


@needs_rlcard
def test_rlcard_rule_plays_whole_games_in_the_arena_and_replays_exactly():
    first = run_tournament("doudizhu", ["rlcard.rule", "doudizhu.rule", "random"], 2, seed=5)
    again = run_tournament("doudizhu", ["rlcard.rule", "doudizhu.rule", "random"], 2, seed=5)
    assert len(first.records) == 2 * 6 and all(r.illegal is None for r in first.records)
    assert [r.scores for r in first.records] == [r.scores for r in again.records]


@needs_rlcard
def test_rlcard_rule_refuses_to_bid():
    """Asked to bid it raises; the arena refuses it up front where the agents would bid (--bidding, or the
    plain rotation with the option bidding=True), and seats it in the default duplicate mode."""
    from cardenvs.arena import plan_tournament

    env = cardenvs.make("doudizhu_v0")  # bidding on
    env.reset(seed=0)
    agent = load_agent("rlcard.rule", env.unwrapped)
    with pytest.raises(ValueError, match="cannot bid"):
        agent.act(env.last()[0], np.random.default_rng(0))
    names = ["rlcard.rule", "random", "random"]
    with pytest.raises(ValueError, match=r"'rlcard.rule' cannot play the bidding .*without --role-phase \(--bidding\)"):
        plan_tournament("doudizhu", names, 1, role_phase=True)
    with pytest.raises(ValueError, match=r"'rlcard.rule' cannot play the bidding .*bidding=False"):
        plan_tournament("doudizhu", names, 1, duplicate=False)
    plan_tournament("doudizhu", names, 1, duplicate=False, options={"bidding": False})
    plan_tournament("doudizhu", names, 1)


# ------------------------------------------------------------------------------------------------------ DouZero
def douzero_shapes(features: int) -> dict[str, tuple[int, ...]]:
    """DouZero's published network of one position, written out from its paper and repository: the history
    (5 x 162) through LSTM(162, 128), its last output joined to the features, dense layers 512 x 5, then 1."""
    shapes = {
        "lstm.weight_ih_l0": (4 * 128, 162),
        "lstm.weight_hh_l0": (4 * 128, 128),
        "lstm.bias_ih_l0": (4 * 128,),
        "lstm.bias_hh_l0": (4 * 128,),
        "dense1.weight": (512, features + 128),
        "dense1.bias": (512,),
    }
    for k in range(2, 6):
        shapes |= {f"dense{k}.weight": (512, 512), f"dense{k}.bias": (512,)}
    return shapes | {"dense6.weight": (1, 512), "dense6.bias": (1,)}


def random_checkpoints(folder, seed: int = 0) -> dict[str, dict]:
    """DouZero's three checkpoint files with random weights (landlord 373 features, farmers 484)."""
    import torch

    generator = torch.Generator().manual_seed(seed)
    out = {}
    for position, features in (("landlord", 373), ("landlord_up", 484), ("landlord_down", 484)):
        weights = {k: 0.1 * torch.randn(shape, generator=generator) for k, shape in douzero_shapes(features).items()}
        torch.save(weights, folder / f"{position}.ckpt")
        out[position] = weights
    return out


@needs_torch
def test_douzero_random_weights_play_whole_games_in_the_arena(tmp_path):
    saved = random_checkpoints(tmp_path)
    agent = load_agent(f"douzero:{tmp_path}", cardenvs.make("doudizhu_v0").unwrapped)
    for position, weights in saved.items():
        state = agent.networks[position].state_dict()
        assert set(state) == set(weights)
        assert all((state[k] == weights[k]).all() for k in weights)
    results = run_tournament("doudizhu", [f"douzero:{tmp_path}", "doudizhu.rule", "random"], 2, seed=3)
    assert len(results.records) == 2 * 6 and all(r.illegal is None for r in results.records)
    assert all(r.steps > 10 for r in results.records)


@needs_torch
def test_douzero_plays_the_best_move_by_its_network(tmp_path):
    """The agent's value of each legal move is DouZero's forward pass, recomputed here from the saved weights
    with plain tensor algebra ([LSTM's last output, features] through ReLU layers), and it plays the best."""
    import torch

    saved = random_checkpoints(tmp_path, seed=1)
    env = cardenvs.make("doudizhu_v0", bidding=False)
    agent = load_agent(f"douzero:{tmp_path}", env.unwrapped)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    from cardenvs.agents.doudizhu import douzero_cards, douzero_features
    from cardenvs.games.doudizhu.env import MOVE_PLANES

    checked = set()
    for _ in range(12):
        observation = env.last()[0]
        legal, values = agent.values(observation)
        position, state, history = douzero_features(LAYOUT.decode(observation["observation"]))
        w = saved[position]
        lstm = torch.nn.LSTM(162, 128, batch_first=True)
        lstm.load_state_dict({k[5:]: v for k, v in w.items() if k.startswith("lstm.")})
        with torch.no_grad():
            h = lstm(torch.from_numpy(history[None]))[0][0, -1]
            x = torch.from_numpy(np.hstack([np.tile(state, (len(legal), 1)), douzero_cards(MOVE_PLANES[legal])]))
            x = torch.cat([h.expand(len(legal), -1), x], dim=1)
            for k in range(1, 6):
                x = torch.relu(x @ w[f"dense{k}.weight"].T + w[f"dense{k}.bias"])
            want = (x @ w["dense6.weight"].T + w["dense6.bias"])[:, 0].numpy()
        np.testing.assert_allclose(values, want, rtol=1e-4, atol=1e-5)
        action = agent.act(observation, rng)
        assert action == legal[int(np.argmax(want))]
        checked.add(position)
        env.step(action)
    assert checked == {"landlord", "landlord_up", "landlord_down"}


@needs_torch
def test_douzero_refuses_bad_folders_and_bidding(tmp_path):
    env = cardenvs.make("doudizhu_v0")
    with pytest.raises(ValueError, match="lacks landlord.ckpt"):
        load_agent(f"douzero:{tmp_path}", env.unwrapped)
    random_checkpoints(tmp_path)
    import torch

    bad = torch.load(tmp_path / "landlord_up.ckpt")
    bad["dense1.weight"] = bad["dense1.weight"][:, :-1]
    torch.save(bad, tmp_path / "landlord_up.ckpt")
    with pytest.raises(ValueError, match=r"not DouZero's landlord_up network: dense1.weight \(512, 611\)"):
        load_agent(f"douzero:{tmp_path}", env.unwrapped)
    random_checkpoints(tmp_path)
    agent = load_agent(f"douzero:{tmp_path}", env.unwrapped)
    env.reset(seed=0)  # bidding on
    with pytest.raises(ValueError, match="cannot bid"):
        agent.act(env.last()[0], np.random.default_rng(0))


def test_douzero_features_of_a_hand_written_position():
    """landlord_up (the landlord plays next) after: landlord 333+4, landlord_down 555+7, landlord_up pass,
    landlord pass, landlord_down 8; landlord_up holds 46679TTJQKKAA22BR (17 cards) and is to answer the 8.
    DouZero writes a card set rank by rank, four "at least k" entries per rank (rank r, k -> 4 r + k - 1)."""
    from cardenvs.agents.doudizhu import douzero_features, douzero_position

    history = np.zeros((15, 54), dtype=np.int8)  # most recent first: 8, pass, pass, 5557, 3334
    history[0], history[3], history[4] = plane("8"), plane("5557"), plane("3334")
    parts = {
        "hand": plane("46679TTJQKKAA22BR"),
        "to_beat": plane("8"),
        "last_moves": np.stack([plane(""), plane("8")]),  # the next player (landlord) passed
        "history": history,
        "played": np.stack([plane(""), plane("3334"), plane("55578")]),  # me, the landlord, landlord_down
        "cards_left": np.array([17, 16, 12]),
        "landlord": np.array([0, 1, 0]),
        "bombs": np.array([0]),
    }
    observation = LAYOUT.decode(LAYOUT.encode(parts))
    assert douzero_position(observation) == "landlord_up"
    position, x, z = douzero_features(observation)
    assert position == "landlord_up" and x.shape == (430,) and z.shape == (5, 162)
    segments = np.split(x, np.cumsum([54] * 7 + [20, 17]))
    hand, others, landlord_played, mate_played, to_beat, landlord_last, mate_last, landlord_left, mate_left = segments[
        :9
    ]
    bombs = segments[9]
    assert hand.sum() == 17  # my 17 cards
    assert others.sum() == 54 - 17 - 4 - 5 == 28  # the deck less my hand and the 9 cards played
    assert np.flatnonzero(landlord_played).tolist() == [0, 1, 2, 4]  # 3 3 3 (rank 0, k 1..3) and 4 (rank 1, k 1)
    assert np.flatnonzero(mate_played).tolist() == [8, 9, 10, 16, 20]  # 5 5 5 (rank 2), 7 (rank 4), 8 (rank 5)
    assert np.flatnonzero(to_beat).tolist() == [20]  # the 8
    assert landlord_last.sum() == 0 and np.flatnonzero(mate_last).tolist() == [20]  # a pass; the 8
    assert np.flatnonzero(landlord_left).tolist() == [15]  # 16 cards: entry 15 of 20
    assert np.flatnonzero(mate_left).tolist() == [11]  # 12 cards: entry 11 of 17
    assert np.flatnonzero(bombs).tolist() == [0] and len(bombs) == 15  # no bomb yet
    assert x.sum() == 17 + 28 + 4 + 5 + 1 + 0 + 1 + 1 + 1 + 1 == 59
    # the 15 moves oldest first, 10 empty in front: row 3 holds (empty, 3334, 5557), row 4 (pass, pass, 8)
    assert not z[:3].any()
    assert np.flatnonzero(z[3]).tolist() == [54 + 0, 54 + 1, 54 + 2, 54 + 4, 108 + 8, 108 + 9, 108 + 10, 108 + 16]
    assert np.flatnonzero(z[4]).tolist() == [108 + 20]
    # hand: 4 (rank 1) -> 4; 6 6 (rank 3) -> 12, 13; 7 -> 16; 9 -> 24; T T -> 28, 29; J -> 32; Q -> 36;
    # K K -> 40, 41; A A -> 44, 45; 2 2 -> 48, 49; jokers -> 52, 53
    assert np.flatnonzero(hand).tolist() == [4, 12, 13, 16, 24, 28, 29, 32, 36, 40, 41, 44, 45, 48, 49, 52, 53]


def test_douzero_features_seat_the_landlord_and_its_farmers():
    """The landlord's features list landlord_up's played cards before landlord_down's; the farmers' name the
    landlord and the teammate by seat."""
    from cardenvs.agents.doudizhu import douzero_features

    played = np.stack([plane("3"), plane("44"), plane("555")])  # me, the next player, the previous player
    base = {"hand": plane("6"), "played": played, "cards_left": np.array([5, 6, 7]), "bombs": np.array([2])}

    def features(landlord: int):
        parts = base | {"landlord": np.eye(3, dtype=np.int8)[landlord]}
        return douzero_features(LAYOUT.decode(LAYOUT.encode(parts)))

    position, x, _ = features(0)  # landlord: landlord_down is the next player, landlord_up the previous
    assert position == "landlord" and x.shape == (319,)
    assert x[3 * 54 : 4 * 54].sum() == 3 and x[4 * 54 : 5 * 54].sum() == 2  # up played 555, down 44
    assert np.flatnonzero(x[270:287]).tolist() == [6] and np.flatnonzero(x[287:304]).tolist() == [5]
    assert np.flatnonzero(x[304:319]).tolist() == [2]  # two bombs
    position, x, _ = features(2)  # the landlord played before me: I am landlord_down, my mate plays next
    assert position == "landlord_down"
    assert x[108:162].sum() == 3 and x[162:216].sum() == 2  # the landlord played 555, the teammate 44
    assert np.flatnonzero(x[378:398]).tolist() == [6] and np.flatnonzero(x[398:415]).tolist() == [5]


# DouZero's card values by our rank (3..A, 2, the black and the red joker)
DOUZERO_INTS = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30]


def douzero_list(counts) -> list[int]:
    """Rank counts as DouZero writes cards: a sorted list of card values."""
    return sorted(v for r, c in enumerate(counts) for v in [DOUZERO_INTS[r]] * int(c))


def douzero_move(m: int) -> list[int]:
    return [] if m == moves.PASS else douzero_list(moves.MOVE_COUNTS[m])


def is_move_of_ours(cards: str) -> bool:
    """Whether some reading of these cards is one of our moves."""
    return bool((moves.MOVE_COUNTS == moves.counts_of(cards)).all(axis=1).any())


def douzero_checkpoints(folder, seed: int) -> None:
    """Three checkpoint files written as DouZero's trainer writes them (``douzero/dmc/dmc.py``:
    ``torch.save(learner_model.get_model(position).state_dict(), ...)``) from its own ``Model``
    (``LandlordLstmModel``, ``FarmerLstmModel``): its three networks are drawn one after another from ``seed``,
    so each position's weights differ and swapped farmer networks would play other moves."""
    import torch
    from douzero.dmc.models import Model

    with torch.random.fork_rng():
        torch.manual_seed(seed)
        model = Model(device="cpu")
    for position in ("landlord", "landlord_up", "landlord_down"):
        torch.save(model.get_model(position).state_dict(), folder / f"{position}.ckpt")


@needs_douzero
def test_douzeros_move_generator_offers_joker_and_four_kickers_ours_does_not():
    """The rule difference (docs/arena.md): DouZero's move generator lets a four or an airplane take both
    jokers, and an airplane of four trios all four cards of a rank, as kickers; no reading of those cards is
    one of our moves. The same moves with other kickers are ours."""
    from douzero.env.move_generator import MovesGener

    generated = {
        "3333BR": MovesGener(douzero_list(moves.counts_of("3333BR"))).gen_type_13_4_2(),
        "333444BR": MovesGener(douzero_list(moves.counts_of("333444BR"))).gen_type_11_serial_3_1(),
        "3334445556668888": MovesGener(douzero_list(moves.counts_of("3334445556668888"))).gen_type_11_serial_3_1(4),
    }
    for cards, offered in generated.items():
        assert douzero_list(moves.counts_of(cards)) in offered, cards
        assert not is_move_of_ours(cards), cards
    assert is_move_of_ours("3333B4") and is_move_of_ours("333444B5") and is_move_of_ours("3334445556668889")


@needs_douzero
@needs_torch
def test_douzero_features_and_moves_equal_douzeros_own_on_whole_games(tmp_path, request):
    """Whole games played at once in DouZero's own engine (``douzero.env.game.GameEnv``: the same deal, the
    landlord in every seat) and in ours, with checkpoints of three seeds written by DouZero's own model
    classes. At every decision:

    * DouZero's legal moves are ours and only the kicker moves ours lacks (both jokers, or a four);
    * our features equal DouZero's ``get_obs`` on its own infoset (state, history, every legal move);
    * our agent (``douzero:DIR``) plays the cards DouZero's evaluation agent ``DeepAgent``, loading the same
      files, plays on that infoset less the moves ours lacks; on the whole infoset DouZero's agent plays
      the same cards unless it plays one of those moves.

    Play follows the agent half the time and a random legal card set otherwise, each in DouZero's reading of
    it, so positions vary and both engines stay in step; the games end alike."""
    import torch
    from douzero.env import move_detector as md
    from douzero.env.env import get_obs
    from douzero.env.game import GameEnv
    from douzero.evaluation.deep_agent import DeepAgent

    from cardenvs.agents.doudizhu import DouZeroAgent, douzero_cards, douzero_features, douzero_reading
    from cardenvs.games.doudizhu.env import MOVE_PLANES

    class Told:  # a DouZero player: the engine asks it for the move the test chose
        move: list[int] = []

        def act(self, infoset):
            return self.move

    def douzero_hand(cards: np.ndarray) -> list[int]:
        return douzero_list(np.bincount(moves.RANK_OF_CARD[np.flatnonzero(cards)], minlength=15))

    env = cardenvs.make("doudizhu_v0", bidding=False)
    play_rng = np.random.default_rng(11)
    compared = lacking = 0
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # small batches: 5 s on one thread, 36 s on two on a busy 2-core machine
    request.addfinalizer(lambda: torch.set_num_threads(threads))
    positions = set()
    for seed in (1, 2, 3):
        folder = tmp_path / f"seed{seed}"
        folder.mkdir()
        douzero_checkpoints(folder, seed)
        agent = load_agent(f"douzero:{folder}", env.unwrapped)
        assert isinstance(agent, DouZeroAgent)
        theirs = {p: DeepAgent(p, str(folder / f"{p}.ckpt")) for p in ("landlord", "landlord_up", "landlord_down")}
        for game in range(2):  # six games, the landlord twice in each seat
            env.reset(seed=10 * seed + game, options={"landlord": (seed + game) % 3, "bid": 1})
            s = env.unwrapped.state
            landlord = int(s.landlord)
            name = {landlord: "landlord", (landlord + 1) % 3: "landlord_down", (landlord + 2) % 3: "landlord_up"}
            players = {position: Told() for position in name.values()}
            engine = GameEnv(players)
            deal = {name[p]: douzero_hand(s.hands[p]) for p in range(3)}
            kitty = np.zeros(54, dtype=np.int8)
            kitty[s.kitty] = 1
            engine.card_play_init(deal | {"three_landlord_cards": douzero_hand(kitty)})
            while not all(env.terminations.values()):
                observation = env.last()[0]
                info = engine.game_infoset
                position = info.player_position
                assert position == name[int(s.to_move)]
                legal = np.flatnonzero(observation["action_mask"])
                ours = [douzero_move(int(m)) for m in legal]
                extra = {tuple(a) for a in info.legal_actions} - {tuple(a) for a in ours}
                assert {tuple(a) for a in ours} <= {tuple(a) for a in info.legal_actions}
                for cards in extra:
                    assert {20, 30} <= set(cards) or max(map(cards.count, cards)) == 4, cards
                features, state, history = douzero_features(LAYOUT.decode(observation["observation"]))
                want = get_obs(info)
                assert features == want["position"] == position
                assert np.array_equal(want["x_no_action"], state) and np.array_equal(want["z"], history)
                whole = info.legal_actions
                info.legal_actions = ours
                mine = np.hstack([np.tile(state, (len(legal), 1)), douzero_cards(MOVE_PLANES[legal])])
                assert np.array_equal(get_obs(info)["x_batch"], mine)
                action = agent.act(observation, np.random.default_rng(0))
                info.legal_actions = [a for a in whole if tuple(a) not in extra]
                assert douzero_move(action) == sorted(theirs[position].act(info)), (seed, game, position)
                if extra:  # DouZero's agent on its own moves: ours, unless it prefers a move ours lacks
                    info.legal_actions = whole
                    own = sorted(theirs[position].act(info))
                    lacking += tuple(own) in extra
                    assert own == douzero_move(action) or tuple(own) in extra
                compared += 1
                positions.add(position)
                if play_rng.random() < 0.5:  # a card set DouZero's detector reads (the next test: not all)
                    readable = [m for m in legal if md.get_move_type(douzero_move(int(m)))["type"] != md.TYPE_15_WRONG]
                    action = douzero_reading(legal, int(readable[play_rng.integers(len(readable))]))
                players[position].move = douzero_move(action)
                env.step(action)
                engine.step()
            assert engine.game_over
            assert (name[int(s.winner)] == "landlord") == (engine.get_winner() == "landlord")
    assert positions == {"landlord", "landlord_up", "landlord_down"}
    assert compared > 300, (compared, lacking)


@needs_douzero
def test_the_agent_plays_the_reading_douzero_reads():
    """Every card set of our table, played by the agent in :func:`douzero_reading`'s reading, is read alike by
    DouZero's move detector (type and chain length), except the airplanes with single kickers DouZero's
    detector cannot read (``TYPE_15_WRONG``), though its generator offers them: four or five trios with
    three cards of one kicker rank (``333444555666+777Q``; in DouZero's game nothing but a bomb could answer
    them; docs/arena.md)."""
    from douzero.env import move_detector as md

    from cardenvs.agents.doudizhu import douzero_reading

    douzero_type = {
        moves.SINGLE: md.TYPE_1_SINGLE,
        moves.PAIR: md.TYPE_2_PAIR,
        moves.TRIO: md.TYPE_3_TRIPLE,
        moves.TRIO_SINGLE: md.TYPE_6_3_1,
        moves.TRIO_PAIR: md.TYPE_7_3_2,
        moves.STRAIGHT: md.TYPE_8_SERIAL_SINGLE,
        moves.PAIR_STRAIGHT: md.TYPE_9_SERIAL_PAIR,
        moves.AIRPLANE: md.TYPE_10_SERIAL_TRIPLE,
        moves.AIRPLANE_SINGLES: md.TYPE_11_SERIAL_3_1,
        moves.AIRPLANE_PAIRS: md.TYPE_12_SERIAL_3_2,
        moves.FOUR_SINGLES: md.TYPE_13_4_2,
        moves.FOUR_PAIRS: md.TYPE_14_4_22,
        moves.BOMB: md.TYPE_4_BOMB,
        moves.ROCKET: md.TYPE_5_KING_BOMB,
    }
    readings: dict[bytes, list[int]] = {}
    for m in range(moves.NUM_MOVES):
        readings.setdefault(moves.MOVE_COUNTS[m].tobytes(), []).append(m)
    unread = several = 0
    for group in readings.values():
        m = douzero_reading(np.array(group), group[-1])
        read = md.get_move_type(douzero_move(m))
        if read["type"] == md.TYPE_15_WRONG:
            counts = moves.MOVE_COUNTS[m]
            assert moves.MOVE_TYPE[m] == moves.AIRPLANE_SINGLES and moves.MOVE_LENGTH[m] in (4, 5), moves.move_string(m)
            assert (counts == 3).sum() == moves.MOVE_LENGTH[m] + 1, moves.move_string(m)  # a kicker rank of three
            unread += 1
            continue
        assert (read["type"], read.get("len", 1)) == (douzero_type[moves.MOVE_TYPE[m]], moves.MOVE_LENGTH[m])
        several += len(group) > 1
    assert len(readings) == 27845 and unread == 3124 and several == 9, (len(readings), unread, several)
    assert moves.move_string(douzero_reading(np.array(readings[moves.counts_of("333444555666").tobytes()]), 2052)) == (
        "333444555666"
    )
