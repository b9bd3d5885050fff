"""Dou Dizhu agents from the field, played in ``doudizhu_v0`` through its public API (the observation dict and
the env's layout), so the arena can seat them beside ours:

* ``doudizhu.rlcard``, also named ``rlcard.rule`` (:data:`ALIASES`): RLCard's rule agent
  (``rlcard.models.doudizhu_rule_models.DouDizhuRuleAgentV1``, the baseline Dou Dizhu papers report), given
  the state dict RLCard's own env would give it (:class:`RLCardRuleAgent`). Needs ``rlcard``
  (``pip install 'cardenvs[rlcard]'``).
* ``douzero:DIR``, an agent kind (``pyproject.toml``): DouZero checkpoints in its published format
  (``landlord.ckpt``, ``landlord_up.ckpt``, ``landlord_down.ckpt``), played through an observation adapter
  written from DouZero's documented features (:class:`DouZeroAgent`, :func:`douzero_features`). Needs torch
  (``pip install 'cardenvs[train]'``).

Neither RLCard nor DouZero has a bidding: both agents refuse to bid (they declare ``plays_role_phase =
False``, which the arena checks before playing, and a bidding decision is a ``ValueError``). They play the
arena's default duplicate mode (player_0 landlord at bid 1, nobody bids) or an env made with
``bidding=False``; not ``cardenvs arena --bidding`` (``--role-phase``).

Seats: our observation's seats are relative (0 the observer, 1 the next player, 2 the previous). RLCard
numbers the landlord 0 and the players after it 1 and 2; DouZero names them ``landlord``, ``landlord_down``
(plays after the landlord) and ``landlord_up`` (plays before it). Both orders go round the table as ours does.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from cardenvs.games.doudizhu import moves
from cardenvs.games.doudizhu.env import MOVE_PLANES

RANKS = moves.RANK_CHARS  # "3456789TJQKA2BR", RLCard's rank characters too
#: rank counts of the whole deck (four of each rank 3..2, one of each joker)
DECK_COUNTS = np.array([4] * 13 + [1, 1], dtype=np.int64)


def plane_counts(plane: np.ndarray) -> np.ndarray:
    """Rank counts (15) of a set of cards in the observation's 54-entry encoding ("at least k of rank r",
    k-major, then the two jokers)."""
    plane = np.asarray(plane, dtype=np.int64)
    counts = np.empty(15, dtype=np.int64)
    counts[:13] = plane[:52].reshape(4, 13).sum(axis=0)
    counts[13:] = plane[52:54]
    return counts


def cards_text(counts: np.ndarray) -> str:
    """Rank counts as RLCard writes cards: ranks low to high, ``"33345BR"``; empty for no cards."""
    return "".join(RANKS[r] * int(c) for r, c in enumerate(counts))


def _parts(env: Any, observation: Mapping[str, np.ndarray], name: str) -> dict[str, np.ndarray]:
    parts = env.layout.decode(observation["observation"])
    if parts["bidding"][0]:
        raise ValueError(
            f"{name} cannot bid: the game it was made for has no bidding. Play it with bidding=False, or in the "
            "arena's duplicate mode without --bidding (player_0 is landlord at bid 1)"
        )
    if not parts["landlord"].any():
        raise ValueError(f"{name}: the observation names no landlord")
    return parts


def _landlord(parts: Mapping[str, np.ndarray]) -> int:
    """The landlord's relative seat (0: the observer)."""
    return int(np.argmax(parts["landlord"]))


# ---------------------------------------------------------------------------------------------------- RLCard
#: RLCard's type names (``solo_chain_5`` is ``solo_chain`` of length 5) -> our move types
RLCARD_TYPES = {
    "solo": moves.SINGLE,
    "pair": moves.PAIR,
    "trio": moves.TRIO,
    "trio_solo": moves.TRIO_SINGLE,
    "trio_pair": moves.TRIO_PAIR,
    "solo_chain": moves.STRAIGHT,
    "pair_chain": moves.PAIR_STRAIGHT,
    "trio_chain": moves.AIRPLANE,
    "trio_solo_chain": moves.AIRPLANE_SINGLES,
    "trio_pair_chain": moves.AIRPLANE_PAIRS,
    "four_two_solo": moves.FOUR_SINGLES,
    "four_two_pair": moves.FOUR_PAIRS,
    "bomb": moves.BOMB,
    "rocket": moves.ROCKET,
}


def _rlcard_modules(name: str) -> tuple[Any, Any]:
    """RLCard's card tables module and rule agent class, or a one-line error naming the extra."""
    try:
        from rlcard.games.doudizhu import utils
        from rlcard.models.doudizhu_rule_models import DouDizhuRuleAgentV1
    except ModuleNotFoundError as exc:
        raise ValueError(
            f"agent {name!r} needs rlcard ({exc.name} is missing): pip install 'cardenvs[rlcard]'"
        ) from None
    return utils, DouDizhuRuleAgentV1


def rlcard_type(type_name: str) -> tuple[int, int]:
    """(our move type, chain length) of an RLCard type name (``trio_solo_chain_3`` -> airplane with singles, 3)."""
    base, _, length = type_name.rpartition("_")
    if length.isdigit():
        return RLCARD_TYPES[base], int(length)
    return RLCARD_TYPES[type_name], 1


@cache
def rlcard_tables() -> tuple[dict[str, int], dict[int, str], dict[str, int], dict[str, str]]:
    """RLCard's move table against ours, built once from RLCard's own tables:

    * ``move_of``: RLCard card string -> our move id of RLCard's reading of it. RLCard gives each card set
      one reading (type, chain length, main rank), and it is one of ours (tests check every one);
    * ``string_of``: the inverse, our move id -> RLCard string, for those moves only (another reading of the
      same cards is a move RLCard does not have);
    * ``order``: RLCard string -> its place in RLCard's type table (type, then rank, then RLCard's list),
      the order RLCard lists the moves that beat a move;
    * ``type_of``: RLCard string -> RLCard's type name."""
    utils, _ = _rlcard_modules("rlcard.rule")
    by_key = {
        (moves.MOVE_COUNTS[m].tobytes(), int(moves.MOVE_TYPE[m]), int(moves.MOVE_LENGTH[m])): m
        for m in range(moves.NUM_MOVES)
    }
    move_of: dict[str, int] = {}
    type_of: dict[str, str] = {}
    for text, readings in utils.CARD_TYPE[0].items():
        type_name = readings[0][0]
        kind, length = rlcard_type(type_name)
        move_of[text] = by_key[(moves.counts_of(text).tobytes(), kind, length)]
        type_of[text] = type_name
    order: dict[str, int] = {}
    for by_rank in utils.TYPE_CARD.values():
        for texts in by_rank.values():
            for text in texts:
                order.setdefault(text, len(order))
    string_of = {m: text for text, m in move_of.items()}
    return move_of, string_of, order, type_of


class _DrawsFrom:
    """Stands in for ``numpy`` inside RLCard's rule module during one decision: its one random draw
    (``np.random.choice`` among the legal actions, when no rule applies) comes from the caller's generator,
    so numpy's global random state is neither read nor changed; everything else is numpy's."""

    def __init__(self, rng: np.random.Generator):
        self.drew = False
        self.random = self
        self._rng = rng

    def choice(self, options: Any) -> Any:
        self.drew = True
        return options[int(self._rng.integers(len(options)))]

    def __getattr__(self, name: str) -> Any:
        return getattr(np, name)


def rlcard_step(rule: Any, state: dict[str, Any], rng: np.random.Generator) -> tuple[Any, bool]:
    """RLCard's rule agent's move on RLCard's ``state``, its random draw (if any) from ``rng``, and whether it
    drew."""
    module = sys.modules[type(rule).__module__]
    draws = _DrawsFrom(rng)
    namespace = vars(module)  # the module's globals: its ``np`` is numpy, from ``import numpy as np``
    saved = namespace["np"]
    namespace["np"] = draws
    try:
        move = rule.step(state)
    finally:
        namespace["np"] = saved
    return move, draws.drew


class RLCardRuleAgent:
    """``doudizhu.rlcard`` (``rlcard.rule``): RLCard's Dou Dizhu rule agent ``DouDizhuRuleAgentV1``, called
    through its public ``step(state)`` on the state RLCard's env would give it, built from our observation:

    * ``current_hand``, ``others_hand`` (the union of the other two hands: the deck less the own hand and
      every played card), ``played_cards`` and ``num_cards_left`` by RLCard seat, ``landlord`` (0) and
      ``self``, as RLCard's env writes them; ``seen_cards``: the kitty cards the landlord still holds;
    * ``trace``: the end of RLCard's trace of (seat, move string or ``"pass"``): the turns our observation's
      history shows (the last 15), from the oldest non-pass move on; ``[]`` before the first move. The rule
      agent reads only whether the trace is empty and its last two entries, which this gives exactly;
    * ``actions``: our legal moves that are RLCard moves (RLCard's reading of their cards), in the order
      RLCard lists them (``pass`` first, then the moves of the type to beat, the rocket, the bombs, each by
      rank and in RLCard's table order), which the rule agent's tie breaks and random choice depend on.

    The returned move string is our move with RLCard's reading of those cards.

    Randomness: the rule agent draws a random legal move (pass included) with ``np.random.choice`` when it
    can neither lead nor follow with the type to beat. During each decision that draw is taken from the
    caller's ``rng`` instead (:func:`rlcard_step`), and numpy's global random state is never used, so a seeded
    arena replays exactly, and decisions that draw nothing leave ``rng`` as they found it.

    Where the games differ:

    * no bidding (module docstring): asked to bid, it raises ``ValueError``;
    * readings: our table has one action per reading of a card set, RLCard one reading per card set and not
      the 374 airplanes with single kickers from a rank next to the chain (``333444555666+7778``,
      :mod:`cardenvs.games.doudizhu.env`). The agent never plays a move RLCard does not have. When the move
      to beat is one RLCard cannot read (those airplanes) it passes; when it is a reading other than RLCard's
      of its cards (``555666777+888``, which RLCard reads only as four trios), the rule agent looks for
      RLCard's type among our legal answers, finds none and passes or plays a random legal move by its rule.
    """

    name = "doudizhu.rlcard"
    plays_role_phase = False  # RLCard's Dou Dizhu has no bidding (module docstring)

    def __init__(self, env: Any):
        self.env = getattr(env, "unwrapped", env)
        metadata = getattr(self.env, "metadata", {}) or {}
        if metadata.get("name") != "doudizhu_v0":
            raise ValueError(f"{self.name} plays doudizhu_v0, not {metadata.get('name')}")
        _, agent_class = _rlcard_modules(self.name)
        self.rule = agent_class()
        self.tables = rlcard_tables()

    def state(self, observation: Mapping[str, np.ndarray]) -> dict[str, Any]:
        """RLCard's state dict (``{"raw_obs": ..., "raw_legal_actions": ...}``) for this observation."""
        move_of, string_of, order, type_of = self.tables
        parts = _parts(self.env, observation, self.name)
        landlord = _landlord(parts)

        def seat(relative: int) -> int:  # RLCard's seat: the landlord 0, then round the table
            return (relative - landlord) % 3

        hand = plane_counts(parts["hand"])
        played = [plane_counts(row) for row in parts["played"]]
        others = DECK_COUNTS - hand - sum(played)
        to_beat = cards_text(plane_counts(parts["to_beat"]))
        history = parts["history"]  # most recent first: row i is relative seat (2 - i) mod 3
        trace: list[tuple[int, str]] = []
        if any(p.any() for p in played):
            oldest = int(np.flatnonzero(history.any(axis=1)).max())
            for i in range(oldest, -1, -1):
                text = cards_text(plane_counts(history[i])) or "pass"
                trace.append((seat((2 - i) % 3), text))
        legal = np.flatnonzero(np.asarray(observation["action_mask"])[: moves.NUM_MOVES])
        strings = [string_of[m] for m in legal.tolist() if m in string_of]
        if to_beat:
            target = type_of.get(to_beat)
            first = ("bomb", "rocket") if target == "bomb" else (target, "rocket", "bomb")
            group = {name: k for k, name in enumerate(first)}
            strings.sort(key=lambda s: (group.get(type_of[s], 3), order[s]))
            actions = ["pass", *strings]
        else:
            actions = sorted(strings, key=order.__getitem__)
        cards_left = [0, 0, 0]
        played_text = ["", "", ""]
        for relative in range(3):
            cards_left[seat(relative)] = int(parts["cards_left"][relative])
            played_text[seat(relative)] = cards_text(played[relative])
        raw = {
            "seen_cards": cards_text(plane_counts(parts["kitty_in_landlord_hand"])),
            "landlord": 0,
            "trace": trace,
            "played_cards": played_text,
            "self": seat(0),
            "current_hand": cards_text(hand),
            "others_hand": cards_text(others),
            "num_cards_left": cards_left,
            "actions": actions,
        }
        return {"raw_obs": raw, "raw_legal_actions": list(actions)}

    def _step(self, state: dict[str, Any], rng: np.random.Generator) -> str:
        move, _ = rlcard_step(self.rule, state, rng)
        return str(move)

    def act(self, observation: Mapping[str, np.ndarray], rng: np.random.Generator) -> int:
        state = self.state(observation)
        to_beat = cards_text(plane_counts(self.env.layout.get(observation["observation"], "to_beat")))
        if to_beat and to_beat not in self.tables[3]:  # a move RLCard cannot read: it cannot answer it
            return moves.PASS
        move = self._step(state, rng)
        mask = np.asarray(observation["action_mask"])
        action = moves.PASS if move == "pass" else self.tables[0].get(move, -1)
        if not 0 <= action < len(mask) or not mask[action]:
            raise RuntimeError(f"{self.name} chose {move!r}, which is not a legal move here")
        return int(action)


# ---------------------------------------------------------------------------------------------------- DouZero
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
    return ("landlord", "landlord_up", "landlord_down")[_landlord(parts)]


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
    landlord = _landlord(parts)
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


def counts_plane(counts: np.ndarray) -> np.ndarray:
    """Rank counts in the observation's 54-entry encoding (the inverse of :func:`plane_counts`)."""
    counts = np.asarray(counts)
    plane = np.zeros(54, dtype=np.int8)
    plane[:52] = (counts[None, :13] > np.arange(4)[:, None]).reshape(52)
    plane[52:] = counts[13:15] > 0
    return plane


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

    * no bidding (module docstring): asked to bid, it raises ``ValueError``;
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
    plays_role_phase = False  # DouZero has no bidding (module docstring)

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
        except Exception as exc:  # a file torch cannot read: say which
            raise ValueError(f"douzero: cannot read {file}: {exc}") from None
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
        parts = _parts(self.env, observation, self.name)
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
            _parts(self.env, observation, self.name)  # still refuses to bid
            return int(legal[0])
        legal, values = self.values(observation)
        return douzero_reading(legal, int(legal[int(np.argmax(values))]))


def douzero_reading(legal: np.ndarray, move: int) -> int:
    """Among the legal readings of ``move``'s cards, the one DouZero's move detector gives them: the longest
    main chain (a chain of trios reads as the plain airplane, ``333444555666``, not ``333444555+666`` or
    ``444555666+333``), then the lowest action id."""
    if move == moves.PASS:
        return move
    legal = legal[legal < moves.NUM_MOVES]
    same = legal[(moves.MOVE_COUNTS[legal] == moves.MOVE_COUNTS[move]).all(axis=1)]
    return int(same[np.lexsort((same, -moves.MOVE_LENGTH[same]))[0]])


AGENTS = {"rlcard": RLCardRuleAgent}
#: other names of agents of this module (:mod:`cardenvs.agent`): RLCard's rule agent as the issue names it
ALIASES = {"rlcard.rule": "rlcard"}
