"""Make ``tests/data/danzero_cases.json.gz``: DanZero's own client code, fed the competition platform's messages of
complete ``guandan_v0`` matches, writes its features and makes its choices; ``tests/test_danzero.py`` checks that
:mod:`cardenvs.games.guandan.danzero` computes the same features and makes the same choices.

Run once, from the repository root, against a checkout of DanZero's evaluation client (the ``wintest/danzero``
folder of github.com/submit-paper/Danzero_plus, commit e2b900b0, which holds DanZero's client ``client0.py`` and
its ``util.py``; the released submit-paper/Danzero was not available here)::

    python tests/data/make_danzero_cases.py --client /path/to/Danzero_plus/wintest/danzero

Their code is imported from that path and never shipped. Its transport (ws4py, zmq, pyarrow) is replaced by
stubs: the platform's messages are built here from our games (cards as ``H2``..``DA``, ``SB``, ``HR``; ranks ``2``..
``A``) and handed to the client's ``received_message``; its ``prepare`` output (``x_batch``) is read where it
would go to the model, and the index sent back is what DanZero's model process does with it
(``np.argmax`` of the values), the values coming from a small deterministic ONNX network (``tiny_model`` in
tests/test_danzero.py, random weights of DanZero's input shape). The client's ``actIndex`` reply is the
choice recorded. The released weights are not used (not available here as DanZero's own file).

The matches: ``guandan_v0`` with ``episode="match", max_hands=3`` (levels, tribute and return), seeds 0..N-1,
seats 0 and 2 played by ``DanZeroAgent`` on the tiny network and seats 1 and 3 by ``guandan.heuristic`` (even
seeds), or all four by ``guandan.heuristic`` (odd seeds: more hands where two players go out); DanZero's
client is run at every seat (four clients) and every play decision is recorded: the seat, the state's 513
features as DanZero's client wrote them, a digest of its 54-column play rows, and its choice.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import importlib
import json
import sys
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from cardenvs import guandan_v0  # noqa: E402
from cardenvs.agent import load_agent  # noqa: E402
from cardenvs.core.cards import RANKS, SUITS  # noqa: E402
from cardenvs.games.guandan import moves  # noqa: E402
from cardenvs.games.guandan.danzero import DanZeroAgent, legal_plays  # noqa: E402

KIND_NAMES = ["Single", "Pair", "Trips", "ThreeWithTwo", "Straight", "ThreePair", "TwoTrips", "Bomb", "StraightFlush"]


def platform_card(card: int) -> str:
    if card == 52:
        return "SB"
    if card == 53:
        return "HR"
    return SUITS[card % 4] + RANKS[card // 4]


def platform_move(pid: int, cards: tuple[int, ...], level: int) -> list:
    if pid == moves.PASS:
        return ["PASS", "PASS", "PASS"]
    kind = int(moves.PAT_KIND[pid])
    name = KIND_NAMES[kind] if kind < len(KIND_NAMES) else "Bomb"
    key = int(moves.PAT_KEY[pid])
    rank = RANKS[level] if key >= 13 else RANKS[key]
    if kind == moves.JOKERS:
        rank = "JOKER"
    return [name, rank, [platform_card(c) for c in cards]]


def stub_transport() -> dict:
    """ws4py, zmq and pyarrow stand-ins: the client's model request is answered by ``answer``."""
    box: dict = {}

    class Socket:
        def connect(self, *a):
            pass

        def send(self, data):
            box["state"] = data

        def recv(self):
            return box["answer"](box["state"])

    class Context:
        linger = 0

        def socket(self, *a):
            return Socket()

    class Buffer:
        def __init__(self, obj):
            self.obj = obj

        def to_buffer(self):
            return self.obj

    zmq = types.ModuleType("zmq")
    zmq.Context = Context
    zmq.REQ = zmq.REP = 0
    pyarrow = types.ModuleType("pyarrow")
    pyarrow.serialize = Buffer
    pyarrow.deserialize = lambda x: x
    ws4py = types.ModuleType("ws4py")
    client = types.ModuleType("ws4py.client")
    threaded = types.ModuleType("ws4py.client.threadedclient")

    class WebSocketClient:
        def __init__(self, url, *a, **k):
            self.sent: list = []

        def send(self, text):
            self.sent.append(json.loads(text))

    threaded.WebSocketClient = WebSocketClient
    sys.modules.update({"zmq": zmq, "pyarrow": pyarrow, "ws4py": ws4py, "ws4py.client": client})
    sys.modules["ws4py.client.threadedclient"] = threaded
    return box


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--client", required=True, help="DanZero's wintest/danzero folder (client0.py, util.py)")
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--out", default=str(ROOT / "tests/data/danzero_cases.json.gz"))
    args = parser.parse_args(argv)
    box = stub_transport()
    sys.path.insert(0, args.client)
    import contextlib
    import io

    client_module = importlib.import_module("client0")
    from test_danzero import tiny_model  # the same network the test builds

    model_path = Path("/tmp/danzero_tiny.onnx")
    tiny_model(model_path)
    import onnxruntime

    session = onnxruntime.InferenceSession(str(model_path), providers=["CPUExecutionProvider"])

    def answer(state: dict) -> int:
        values = session.run(None, {"input": state["x_batch"].astype(np.float32)})[0].reshape(-1)
        box["x_batch"] = state["x_batch"]
        return int(np.argmax(values))  # DanZero's actor: action_idx = np.argmax(output)

    box["answer"] = answer
    games = []
    summary = {"decisions": 0, "one_out": 0, "two_out": 0, "minus_one_last": 0}
    for seed in range(args.games):
        env = guandan_v0.env(episode="match", max_hands=3)
        env.reset(seed=seed)
        base = env.unwrapped
        dz = [DanZeroAgent(env, str(model_path)) for _ in range(4)]
        heuristic = load_agent("guandan.heuristic", env)
        agents = [dz[0], heuristic, dz[2], heuristic] if seed % 2 == 0 else [heuristic] * 4
        clients = []
        for seat in range(4):
            c = client_module.ExampleClient(f"ws://127.0.0.1:23456/game/client{seat}", argparse.Namespace())
            clients.append(c)
        actions: list[int] = []
        cases: list[dict] = []
        hand_started = -1
        rng = np.random.default_rng(seed)

        def notify_all(message: dict, clients: list = clients) -> None:
            with contextlib.redirect_stdout(io.StringIO()):
                for c in clients:
                    c.received_message(json.dumps(message))

        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            s = base.core_state()[1][0].copy()
            seat = int(name.split("_")[1])
            level = int(s["hand_level"])
            if int(s["hands_played"]) != hand_started and s["phase"] == 2 and int(s["n_hist"]) == 0:
                hand_started = int(s["hands_played"])
                for q, c in enumerate(clients):
                    team, other = int(s["levels"][q % 2]), int(s["levels"][1 - q % 2])
                    with contextlib.redirect_stdout(io.StringIO()):
                        c.received_message(
                            json.dumps(
                                {
                                    "type": "notify",
                                    "stage": "beginning",
                                    "myPos": q,
                                    "curRank": RANKS[level],
                                    "selfRank": RANKS[team],
                                    "oppoRank": RANKS[other],
                                    "handCards": [platform_card(x) for x in np.repeat(np.arange(54), s["hands"][q])],
                                }
                            )
                        )
                pairs = [[int(s["payers"][i]), int(s["return_to"][i])] for i in range(int(s["n_payers"]))]
                notify_all({"type": "notify", "stage": "tribute", "result": pairs})
            mask = np.asarray(obs["action_mask"], dtype=bool)
            legal = np.flatnonzero(mask)
            is_play = s["phase"] == 2 and int(s["pending"]) < 0 and legal[0] < moves.CARD0
            if is_play:
                hand = np.asarray(s["hands"][seat], dtype=np.int8)
                plays = legal_plays(hand, mask, level, dz[0].flags)
                team, other = int(s["levels"][seat % 2]), int(s["levels"][1 - seat % 2])
                message = {
                    "type": "act",
                    "stage": "play",
                    "myPos": seat,
                    "curPos": seat,
                    "curRank": RANKS[level],
                    "selfRank": RANKS[team],
                    "oppoRank": RANKS[other],
                    "handCards": [platform_card(x) for x in np.repeat(np.arange(54), hand)],
                    "actionList": [platform_move(p, c, level) for p, c in plays],
                    "indexRange": len(plays) - 1,
                }
                box.pop("x_batch", None)
                clients[seat].sent.clear()
                clients[seat].received_message(json.dumps(message))
                choice = int(clients[seat].sent[-1]["actIndex"])
                case = {"seat": seat, "choice": choice, "plays": len(plays)}
                if "x_batch" in box:
                    x = np.asarray(box["x_batch"])
                    state = np.asarray(clients[seat].prepare(message)["x_no_action"])
                    assert (x[:, :513] == state).all()
                    case["state"] = base64.b64encode(state.astype(np.int8).tobytes()).decode()
                    case["moves"] = hashlib.sha256(x[:, 513:].astype(np.int8).tobytes()).hexdigest()[:16]
                    last = x[0, 162:216]
                    summary["minus_one_last"] += int((last == -1).all())
                summary["one_out"] += int(s["n_out"]) == 1
                summary["two_out"] += int(s["n_out"]) == 2
                summary["decisions"] += 1
                cases.append(case)
            action = agents[seat].act(obs, rng)
            before = int(s["n_hist"])
            hands_before = int(s["hands_played"])
            actions.append(int(action))
            env.step(action)
            after = base.core_state()[1][0]
            if is_play or int(s["pending"]) >= 0:
                if action == moves.PASS:
                    event = (seat, moves.PASS, ())
                elif int(after["hands_played"]) > hands_before or after["status"] != 0:
                    event = None  # the hand's last play: the platform's episodeOver follows
                elif int(after["n_hist"]) > before:
                    cards = tuple(int(c) for c in after["hist_cards"][before] if c >= 0)
                    event = (seat, int(after["hist_pid"][before]), cards)
                else:
                    event = None
                if event is not None:
                    q, pid, cards = event
                    notify_all(
                        {
                            "type": "notify",
                            "stage": "play",
                            "curPos": q,
                            "curAction": platform_move(pid, tuple(sorted(cards)), level),
                        }
                    )
            if int(after["hands_played"]) > hands_before or after["status"] != 0:
                order = [int(x) for x in after["previous"] if x >= 0] or [int(x) for x in s["out_order"][: s["n_out"]]]
                order += [q for q in range(4) if q not in order]
                notify_all({"type": "notify", "stage": "episodeOver", "order": order})
        games.append({"seed": seed, "actions": actions, "cases": cases})
    data = {"options": {"episode": "match", "max_hands": 3}, "games": games, "summary": summary}
    text = json.dumps(data, separators=(",", ":")).encode()
    Path(args.out).write_bytes(gzip.compress(text, mtime=0))  # the same bytes on every run
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
