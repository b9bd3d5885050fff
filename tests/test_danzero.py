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
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

CASES = Path(__file__).parent / "data" / "danzero_cases.json.gz"


def tiny_model(path: str | Path, hidden: int = 16, seed: int = 0, layout: str | None = "column") -> None:
    """A small deterministic network of DanZero's input shape ([N, 567] -> [N, 1], one tanh layer, random
    weights), written as ONNX with its feature layout in the metadata."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    w1 = (rng.standard_normal((567, hidden)) * 0.3).astype(np.float32)
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
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 567])],
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
