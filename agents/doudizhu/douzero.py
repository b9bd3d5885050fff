"""``douzero:DIR``: DouZero checkpoints in its published format, played through an observation adapter written
from DouZero's documented features (:class:`DouZeroAgent`, :func:`douzero_features`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from cardenvs.games.doudizhu import moves
from cardenvs.games.doudizhu.env import MOVE_PLANES

from .cards import DECK_COUNTS, counts_plane, decode_parts, landlord_seat, plane_counts

#: DouZero's checkpoint file of each position
DOUZERO_FILES = {"landlord": "landlord.ckpt", "landlord_up": "landlord_up.ckpt", "landlord_down": "landlord_down.ckpt"}
#: DouZero's state features (without the move's 54) by position: landlord 319, farmers 430
DOUZERO_STATE = {"landlord": 5 * 54 + 2 * 17 + 15, "farmer": 7 * 54 + 20 + 17 + 15}
DOUZERO_HISTORY = (5, 3 * 54)  # the last 15 moves, three to a row
DOUZERO_LSTM = 128
DOUZERO_HIDDEN = 512
DOUZERO_LAYERS = 5  # dense layers of DOUZERO_HIDDEN before the value


def douzero_cards(plane: np.ndarray) -> np.ndarray:
    """A set of cards in DouZero's 54 features from ours: DouZero writes each rank's four "at least k" entries
    together (rank-major, ours is k-major), then the two jokers, as we do."""
    plane = np.asarray(plane)
    out = np.empty(plane.shape[:-1] + (54,), dtype=np.float32)
    out[..., :52] = np.swapaxes(plane[..., :52].reshape(plane.shape[:-1] + (4, 13)), -1, -2).reshape(
        plane.shape[:-1] + (52,)
    )
    out[..., 52:] = plane[..., 52:54]
    return out


def _one_hot(index: int, size: int) -> np.ndarray:
    out = np.zeros(size, dtype=np.float32)
    out[index] = 1
    return out


def douzero_position(parts: Mapping[str, np.ndarray]) -> str:
    """``landlord``, ``landlord_up`` (the landlord plays next) or ``landlord_down`` (it played last)."""
    return ("landlord", "landlord_up", "landlord_down")[landlord_seat(parts)]


def douzero_features(parts: Mapping[str, np.ndarray]) -> tuple[str, np.ndarray, np.ndarray]:
    """(position, state features without the move, history ``[5, 162]``) of a decoded observation, in
    DouZero's order (its paper's tables 4 and 5):

    * landlord (319 + the move's 54 = 373): own hand, the other two hands' union, the move to beat (zeros
      when leading), the cards played by ``landlord_up`` and by ``landlord_down``, their cards left one-hot
      (17 each, entry n - 1), bombs played one-hot (15, entry n; rockets count);
    * farmers (430 + 54 = 484): own hand, the others' union, cards played by the landlord and by the
      teammate, the move to beat, the landlord's and the teammate's last move (a pass or no move yet: zeros),
      the landlord's cards left (20) and the teammate's (17) one-hot, bombs (15);
    * history: the last 15 moves of the play, oldest first, zero-padded in front (passes are zeros),
      three moves of 54 to a row.

    Card sets are DouZero's 54 (:func:`douzero_cards`)."""
    position = douzero_position(parts)
    landlord = landlord_seat(parts)
    hand = plane_counts(parts["hand"])
    played = [plane_counts(row) for row in parts["played"]]
    others = DECK_COUNTS - hand - sum(played)

    def cards(counts: np.ndarray) -> np.ndarray:
        return douzero_cards(counts_plane(counts))

    left = parts["cards_left"].astype(int)
    bombs = _one_hot(min(int(parts["bombs"][0]), 14), 15)
    to_beat = douzero_cards(parts["to_beat"])
    if position == "landlord":  # landlord_down is the next player (relative 1), landlord_up the previous (2)
        state = [
            cards(hand),
            cards(others),
            to_beat,
            douzero_cards(parts["played"][2]),
            douzero_cards(parts["played"][1]),
            _one_hot(left[2] - 1, 17),
            _one_hot(left[1] - 1, 17),
            bombs,
        ]
    else:
        mate = 2 if landlord == 1 else 1  # landlord_up's teammate played before it; landlord_down's after it
        last = parts["last_moves"]  # rows: the next player, the previous player
        state = [
            cards(hand),
            cards(others),
            douzero_cards(parts["played"][landlord]),
            douzero_cards(parts["played"][mate]),
            to_beat,
            douzero_cards(last[landlord - 1]),
            douzero_cards(last[mate - 1]),
            _one_hot(left[landlord] - 1, 20),
            _one_hot(left[mate] - 1, 17),
            bombs,
        ]
    history = douzero_cards(parts["history"][::-1]).reshape(DOUZERO_HISTORY)
    return position, np.concatenate(state), history


@cache
def _douzero_network_class() -> Any:
    from torch import cat, nn, relu

    class DouZeroNetwork(nn.Module):
        """DouZero's value network of one position: the history through an LSTM (162 -> 128; its last
        output), joined to the state and move features, then five ReLU layers of 512 and one value. The
        attribute names are the checkpoints' keys (``lstm.*``, ``dense1.*`` .. ``dense6.*``)."""

        def __init__(self, features: int):
            super().__init__()
            self.lstm = nn.LSTM(DOUZERO_HISTORY[1], DOUZERO_LSTM, batch_first=True)
            sizes = [features + DOUZERO_LSTM] + [DOUZERO_HIDDEN] * DOUZERO_LAYERS + [1]
            for k in range(len(sizes) - 1):
                setattr(self, f"dense{k + 1}", nn.Linear(sizes[k], sizes[k + 1]))
            self.depth = len(sizes) - 1

        def forward(self, history, features):
            """Values ``[N, 1]`` of N moves sharing one history (``[1, 5, 162]``; ``features`` ``[N, F]``)."""
            out, _ = self.lstm(history)
            x = cat([out[:, -1, :].expand(features.shape[0], -1), features], dim=-1)
            for k in range(1, self.depth):
                x = relu(getattr(self, f"dense{k}")(x))
            return getattr(self, f"dense{self.depth}")(x)

    return DouZeroNetwork


def douzero_network(position: str) -> Any:
    """An untrained DouZero network for ``position`` (373 features for the landlord, 484 for the farmers)."""
    role = "landlord" if position == "landlord" else "farmer"
    return _douzero_network_class()(DOUZERO_STATE[role] + 54)


class DouZeroAgent:
    """``douzero:DIR``: the DouZero checkpoints in ``DIR`` (``landlord.ckpt``, ``landlord_up.ckpt``,
    ``landlord_down.ckpt``: each a torch state dict of that position's network, :func:`douzero_network`), each
    playing its position. A decision scores every legal move with the position's network on DouZero's
    features (:func:`douzero_features`, the move's cards last) and plays the best, in DouZero's reading of
    its cards (:func:`douzero_reading`). It draws nothing from ``rng``.

    Where the games differ (``tests/test_field_agents.py`` plays whole games in DouZero's own engine beside
    ours and checks each point):

    * no bidding (the package docstring): asked to bid, it raises ``ValueError``;
    * readings: its features are the cards only, so the readings of one card set score alike; it plays the
      reading DouZero's move detector gives those cards (:func:`douzero_reading`: a chain of trios is the
      plain airplane, ``333444555666``, not ``333444555+666``), so the next player answers what DouZero's
      game would ask it to answer;
    * kickers: DouZero's move generator also lets a four or an airplane take both jokers (``3333+BR``,
      ``333444+BR``), and an airplane of four or more trios all four cards of a rank, as kickers; ours
      (:mod:`cardenvs.games.doudizhu.moves`) does not. The agent scores our legal moves only, so where
      DouZero's own agent would play such a move it plays the best move our rules allow (never an illegal
      one), and its game goes on under our rules;
    * positions DouZero's game does not reach: when the move to beat is a reading DouZero does not give its
      cards (another agent played ``444555666+333``, which DouZero reads as four trios) or one DouZero's move
      detector cannot read (airplanes of four or five trios with three cards of one kicker rank,
      ``333444555666+777Q``: in DouZero's game only a bomb answers them), the agent scores our legal answers
      like any other moves; its network never met such a position in training."""

    name = "douzero"
    plays_role_phase = False  # DouZero has no bidding (the package docstring)

    def __init__(self, env: Any, path: str):
        self.env = getattr(env, "unwrapped", env)
        metadata = getattr(self.env, "metadata", {}) or {}
        if metadata.get("name") != "doudizhu_v0":
            raise ValueError(f"douzero:{path} plays doudizhu_v0, not {metadata.get('name')}")
        try:
            import torch
        except ModuleNotFoundError as exc:
            raise ValueError(
                f"agent 'douzero:{path}' needs torch ({exc.name} is missing): pip install 'cardenvs[train]'"
            ) from None
        self.torch = torch
        folder = Path(path)
        missing = [f for f in DOUZERO_FILES.values() if not (folder / f).is_file()]
        if missing:
            raise ValueError(f"douzero:{path}: {folder} lacks {', '.join(missing)} (DouZero's three checkpoint files)")
        self.name = f"douzero:{path}"
        self.networks = {position: self._load(position, folder / file) for position, file in DOUZERO_FILES.items()}

    def _load(self, position: str, file: Path) -> Any:
        network = douzero_network(position)
        try:
            weights = self.torch.load(file, map_location="cpu", weights_only=True)
        except Exception as exc:  # a file torch cannot read: say which, in one line
            raise ValueError(f"douzero: cannot read {file}: {_load_problem(exc)}") from None
        if isinstance(weights, Mapping) and "model_state_dict" in weights:
            raise ValueError(
                f"douzero: {file} is a DouZero training checkpoint (model.tar); give the per-position weights "
                "(*_weights_*.ckpt renamed, or the published landlord.ckpt ...)"
            )
        expected = network.state_dict()
        if not isinstance(weights, Mapping):
            raise ValueError(f"douzero: {file} holds a {type(weights).__name__}, not a state dict")
        wrong = [
            f"{k} {tuple(weights[k].shape) if k in weights else 'missing'} (want {tuple(v.shape)})"
            for k, v in expected.items()
            if k not in weights or tuple(weights[k].shape) != tuple(v.shape)
        ]
        if wrong:
            raise ValueError(f"douzero: {file} is not DouZero's {position} network: " + "; ".join(wrong[:4]))
        network.load_state_dict({k: weights[k] for k in expected})  # extra keys ignored, as DouZero does
        network.eval()
        return network

    def values(self, observation: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """The legal action ids and the network's value of each."""
        parts = decode_parts(self.env, observation, self.name)
        legal = np.flatnonzero(np.asarray(observation["action_mask"]))
        position, state, history = douzero_features(parts)
        moves_54 = douzero_cards(MOVE_PLANES[legal])  # pass: zeros
        features = np.concatenate([np.broadcast_to(state, (len(legal), len(state))), moves_54], axis=1)
        torch = self.torch
        with torch.no_grad():
            out = self.networks[position](torch.from_numpy(history[None]), torch.from_numpy(features))
        return legal, out[:, 0].numpy()

    def act(self, observation: Mapping[str, np.ndarray], rng: np.random.Generator) -> int:
        legal = np.flatnonzero(np.asarray(observation["action_mask"]))
        if len(legal) == 1:
            decode_parts(self.env, observation, self.name)  # still refuses to bid
            return int(legal[0])
        legal, values = self.values(observation)
        return douzero_reading(legal, int(legal[int(np.argmax(values))]))


def _load_problem(exc: Exception) -> str:
    """One line for a checkpoint torch cannot load: the global a weights-only load refused (torch's own message
    runs to several lines and suggests loading with ``weights_only=False``, which would run the file's code)."""
    text = str(exc)
    refused = re.search(r"GLOBAL ([\w.]+)", text)
    if refused:
        return f"it names {refused.group(1)}, which a checkpoint of weights never holds (refused, nothing ran)"
    _, marker, after = text.partition("WeightsUnpickler error:")
    lines = [line.strip() for line in (after if marker else text).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


def douzero_reading(legal: np.ndarray, move: int) -> int:
    """Among the legal readings of ``move``'s cards, the one DouZero's move detector gives them: the longest
    main chain (a chain of trios reads as the plain airplane, ``333444555666``, not ``333444555+666`` or
    ``444555666+333``), then the lowest action id."""
    if move == moves.PASS:
        return move
    legal = legal[legal < moves.NUM_MOVES]
    same = legal[(moves.MOVE_COUNTS[legal] == moves.MOVE_COUNTS[move]).all(axis=1)]
    return int(same[np.lexsort((same, -moves.MOVE_LENGTH[same]))[0]])
