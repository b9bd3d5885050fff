"""``danzero:PATH`` (:mod:`cardenvs.games.guandan.danzero`) against DanZero's own client code: the features and
choices in tests/data/danzero_cases.json.gz were written by DanZero's client (tests/data/make_danzero_cases.py)
on complete matches; here the same matches are replayed and ours must be equal, feature for feature and choice for
choice, on the same small network."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
from pathlib import Path

import numpy as np
import onnx  # the dev extra installs onnx and onnxruntime (the danzero extra)
import pytest

CASES = Path(__file__).parent / "data" / "danzero_cases.json.gz"


def tiny_model(
    path: str | Path, hidden: int = 16, seed: int = 0, layout: str | None = "column", inputs: int = 567
) -> None:
    """A small deterministic network of DanZero's input shape ([N, 567] -> [N, 1], one tanh layer, random
    weights), written as ONNX with its feature layout in the metadata."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    w1 = (rng.standard_normal((inputs, hidden)) * 0.3).astype(np.float32)
    b1 = (rng.standard_normal(hidden) * 0.1).astype(np.float32)
    w2 = rng.standard_normal((hidden, 1)).astype(np.float32)
    nodes = [
        helper.make_node("MatMul", ["input", "w1"], ["h0"]),
        helper.make_node("Add", ["h0", "b1"], ["h1"]),
        helper.make_node("Tanh", ["h1"], ["h2"]),
        helper.make_node("MatMul", ["h2", "w2"], ["output"]),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", inputs])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, ["batch", 1])],
        [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(b1, "b1"), numpy_helper.from_array(w2, "w2")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    if layout:
        helper.set_model_props(model, {"danzero_layout": layout})
    onnx.save(model, str(path))


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("danzero") / "tiny.onnx"
    tiny_model(path)
    return str(path)


def test_features_and_choices_are_danzeros(model: str) -> None:
    """Every play decision of the committed matches: DanZero's 513 state features, its 54 per legal play (digest)
    and its choice on the tiny network, as DanZero's client computed them from the platform's messages."""
    from cardenvs import guandan_v0
    from cardenvs.games.guandan import moves
    from cardenvs.games.guandan.danzero import DanZeroAgent
    from cardenvs.games.guandan.env import LAYOUT

    data = json.loads(gzip.decompress(CASES.read_bytes()))
    checked = {"rows": 0, "choices": 0}
    for game in data["games"]:
        env = guandan_v0.env(**data["options"])
        env.reset(seed=game["seed"])
        agents = [DanZeroAgent(env, model) for _ in range(4)]
        assert agents[0].layout == "column"
        cases = iter(game["cases"])
        actions = iter(game["actions"])
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = int(name.split("_")[1])
            mask = np.asarray(obs["action_mask"], dtype=bool)
            if np.flatnonzero(mask)[0] < moves.CARD0:  # a play decision (a pattern or the pass)
                case = next(cases)
                assert case["seat"] == seat
                _, rows = agents[seat].choose(LAYOUT.decode(np.asarray(obs["observation"])), mask)
                assert agents[seat].index == case["choice"], (game["seed"], case)
                checked["choices"] += 1
                if rows is None:
                    assert case["plays"] == 1 and "state" not in case
                else:
                    theirs = np.frombuffer(base64.b64decode(case["state"]), dtype=np.int8)
                    differ = np.flatnonzero(rows[0, :513] != theirs)
                    assert not len(differ), (game["seed"], case["seat"], differ[:10])
                    assert (rows[:, :513] == rows[0, :513]).all()
                    digest = hashlib.sha256(rows[:, 513:].astype(np.int8).tobytes()).hexdigest()[:16]
                    assert digest == case["moves"]
                    checked["rows"] += len(rows)
            env.step(next(actions))
        assert next(cases, None) is None
    summary = data["summary"]
    assert checked["choices"] == summary["decisions"]
    assert summary["one_out"] > 0 and summary["two_out"] > 0 and summary["minus_one_last"] > 0


def test_card_layout_is_a_permutation_of_danzeros_columns() -> None:
    """DanLM's exports read each card set in DanZero's card numbering (H2 = 0 .. DA = 51, SB, HR); DanZero's
    client writes rank-major columns (the ranks 2..A, each as hearts, spades, clubs, diamonds)."""
    from cardenvs.core.cards import parse_cards
    from cardenvs.games.guandan.danzero import CARD_FROM_COLUMN, CARD_ORDER, COLUMN, cards_vector

    assert sorted(COLUMN) == sorted(CARD_ORDER) == list(range(54))
    hand = np.zeros(54, dtype=np.int8)
    for card in parse_cards("2H 2S 3C AD BJ RJ"):
        hand[card] += 1
    column = cards_vector(hand)
    assert list(np.flatnonzero(column)) == [0, 1, 6, 51, 52, 53]  # H2, S2, C3, DA, SB, HR
    row = np.zeros(567, dtype=np.float32)
    row[:54] = column
    row[513:] = column
    card = row[CARD_FROM_COLUMN]
    assert list(np.flatnonzero(card[:54])) == [0, 13, 27, 51, 52, 53]  # H2, S2 (13), C3 (26 + 1), DA (39 + 12)
    assert (card[513:] == card[:54]).all() and (card[54:66] == row[54:66]).all()  # the flags do not move


def test_wild_flags() -> None:
    """The 12 wild-card flags, as DanZero's client writes them, on hands whose answers are known."""
    from cardenvs.core.cards import parse_cards
    from cardenvs.games.guandan.danzero import cards_vector, wild_flags

    def flags(text: str, level: str = "2") -> list[int]:
        hand = np.zeros(54, dtype=np.int8)
        for card in parse_cards(text):
            hand[card] += 1
        return [int(x) for x in wild_flags(cards_vector(hand), "23456789TJQKA".index(level))]

    assert flags("3S 4S 5S 6S") == [0] * 12  # no wild: all zero
    # the wild, spades 3-6 (one short of 3-7), ranks held in one suit each, a run 3-6 that ends before the ace
    assert flags("2H 3S 4S 5S 6S") == [1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0]
    # T J Q K A in spades lacks one card only in the window the client does not look at (10-A)
    assert flags("2H TS JS QS AS")[1] == 0
    # a run of four ending at the ace; ranks in 2 and 3 suits side by side; 1, 2, 3 suits on three in a row
    assert flags("2H JS QS KS KC AS AC AD") == [1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0]
    assert flags("2H 5S 5C 6S 6C") == [1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1]  # two ranks side by side in 2 suits


def test_loading_errors(tmp_path: Path, model: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from cardenvs import doudizhu_v0, guandan_v0
    from cardenvs.agent import load_agent

    env = guandan_v0.env()
    agent = load_agent(f"danzero:{model}", env)
    assert agent.name == f"danzero:{model}" and agent.layout == "column"
    plain = tmp_path / "plain.onnx"
    tiny_model(plain, layout=None)
    assert load_agent(f"danzero:{plain}", env).layout == "card"  # DanLM's exports carry no layout entry
    with pytest.raises(ValueError, match="no such file"):
        load_agent(f"danzero:{tmp_path / 'missing.onnx'}", env)
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model")
    with pytest.raises(ValueError, match="not an ONNX model"):
        load_agent(f"danzero:{junk}", env)
    wide = tmp_path / "wide.onnx"
    tiny_model(wide, inputs=964)  # DanLM's V1T network: its own 964 features, not DanZero's
    with pytest.raises(ValueError, match=r"takes \['batch', 964\], not DanZero's \[N, 567\]"):
        load_agent(f"danzero:{wide}", env)
    with pytest.raises(ValueError, match="plays guandan_v0, not doudizhu_v0"):
        load_agent(f"danzero:{model}", doudizhu_v0.env())
    monkeypatch.setitem(__import__("sys").modules, "onnxruntime", None)
    with pytest.raises(ValueError, match=r"pip install 'cardenvs\[danzero\]'"):
        load_agent(f"danzero:{model}", env)


def test_plays_a_match_with_tribute_and_return(model: str) -> None:
    """Through act (suit decisions, tribute, return) in a two-hand match, against guandan.heuristic."""
    from cardenvs import guandan_v0
    from cardenvs.agent import load_agent

    env = guandan_v0.env(episode="match", max_hands=2)
    env.reset(seed=3)
    agents = [load_agent(f"danzero:{model}", env), load_agent("guandan.heuristic", env)] * 2
    phases = set()
    rng = np.random.default_rng(0)
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        phases.add(int(np.argmax(obs["observation"][: 54 + 4 + 3][-3:])))
        env.step(agents[int(name.split("_")[1])].act(obs, rng))
    assert env.unwrapped.core_state()[1][0]["hands_played"] == 2
    assert phases == {0, 1, 2}  # tribute, return and play were all decided
