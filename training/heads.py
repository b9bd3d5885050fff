"""An action-feature policy head for games with very wide action spaces (Dou Dizhu's 28,242 actions).

SB3's default head is one ``Linear(latent, n_actions)``: every action has its own weights, so what the
learner finds out about ``33344`` tells it nothing about ``44455``, and the head dominates the cost of
each update. :class:`ActionFeaturePolicy` scores action ``a`` as ``q(latent) . e(phi(a)) + b_a``: ``phi(a)``
is a fixed description of the move (its cards, type, main rank), ``e`` a small MLP shared by all actions,
``q`` a linear query of the state. Moves that look alike get alike scores, and the cost drops from
``latent x n_actions`` to ``dim x n_actions`` multiply-adds per state.

Use it with ``policy: action_features`` in a training config; the game must have an entry in
:data:`ACTION_FEATURES`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn


def doudizhu_action_features() -> np.ndarray:
    """One row per Dou Dizhu action: the 54 card planes of the move, its type (one-hot over
    ``moves.TYPES``), its main rank (one-hot, 15), its size / 20, and one-hots for pass, no bid and bids 1-3."""
    from cardenvs.games.doudizhu import moves
    from cardenvs.games.doudizhu.env import MOVE_PLANES

    n, m, types = moves.NUM_ACTIONS, moves.NUM_MOVES, len(moves.TYPES)
    special = n - m
    out = np.zeros((n, 54 + types + 15 + 1 + special), dtype=np.float32)
    out[:, :54] = MOVE_PLANES
    out[np.arange(m), 54 + moves.MOVE_TYPE] = 1
    out[np.arange(m), 54 + types + moves.MOVE_MAIN] = 1
    out[:m, 54 + types + 15] = moves.MOVE_SIZE / 20
    out[np.arange(m, n), 54 + types + 16 + np.arange(special)] = 1
    return out


def twos_action_features() -> np.ndarray:
    """One row per Twos action: its shape (one-hot over ``moves.SHAPES``), how many cards it takes of each
    rank (/ 4), its top card (one-hot over the 52 values), whether it is a bomb, and pass."""
    from cardenvs.games.twos import moves

    n_shapes = len(moves.SHAPES)
    out = np.zeros((moves.NUM_ACTIONS, n_shapes + 13 + 52 + 2), dtype=np.float32)
    for a, (shape, top) in enumerate(moves.ACTIONS):
        n, length = moves.SHAPE_N[shape], moves.SHAPE_L[shape]
        top_rank = top // 4
        out[a, shape] = 1
        out[a, n_shapes + top_rank - length + 1 : n_shapes + top_rank + 1] = n / 4
        out[a, n_shapes + 13 + top] = 1
        out[a, -2] = float(moves.SHAPE_IS_BOMB[shape])
    out[moves.PASS, -1] = 1
    return out


ACTION_FEATURES: dict[str, Callable[[], np.ndarray]] = {
    "doudizhu_v0": doudizhu_action_features,
    "twos_v0": twos_action_features,
}


def action_features(game: str) -> np.ndarray:
    from cardenvs import resolve_id

    key = resolve_id(game)
    if key not in ACTION_FEATURES:
        raise ValueError(f"no action features for {key}; the action-feature policy knows {sorted(ACTION_FEATURES)}")
    return ACTION_FEATURES[key]()


class ActionFeatureHead(nn.Module):
    """Logits ``query(latent) @ embed(table).T + bias``. Without gradients (rollouts, evaluation) the action
    embeddings are computed once and reused until the next gradient step or weight load."""

    def __init__(self, latent_dim: int, table: np.ndarray, dim: int = 64, hidden: int = 128):
        super().__init__()
        self.register_buffer("table", th.as_tensor(table, dtype=th.float32), persistent=False)
        self.embed = nn.Sequential(nn.Linear(table.shape[1], hidden), nn.ReLU(), nn.Linear(hidden, dim))
        self.query = nn.Linear(latent_dim, dim)
        self.bias = nn.Parameter(th.zeros(table.shape[0]))
        self._cache: th.Tensor | None = None

    def embeddings(self) -> th.Tensor:
        if th.is_grad_enabled():
            self._cache = None
            return self.embed(self.table)
        if self._cache is None:
            self._cache = self.embed(self.table)
        return self._cache

    def forward(self, latent: th.Tensor) -> th.Tensor:
        return self.query(latent) @ self.embeddings().T + self.bias

    def _load_from_state_dict(self, *args, **kwargs):
        self._cache = None
        super()._load_from_state_dict(*args, **kwargs)


class ActionFeaturePolicy(MaskableActorCriticPolicy):
    """MaskablePPO's MLP policy with :class:`ActionFeatureHead` in place of the linear action head.
    ``action_game`` names the game whose :data:`ACTION_FEATURES` describe the actions."""

    def __init__(self, *args, action_game: str, action_dim: int = 64, **kwargs):
        self.action_game, self.action_dim = action_game, action_dim
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        table = action_features(self.action_game)
        if table.shape[0] != self.action_space.n:
            raise ValueError(
                f"{self.action_game} has {table.shape[0]} action features for {self.action_space.n} actions"
            )
        self.action_net = ActionFeatureHead(self.mlp_extractor.latent_dim_pi, table, self.action_dim)
        if self.ortho_init:
            self.action_net.embed.apply(lambda m: self.init_weights(m, gain=np.sqrt(2)))
            self.init_weights(self.action_net.query, gain=0.01)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict:
        data = super()._get_constructor_parameters()
        data.update(action_game=self.action_game, action_dim=self.action_dim)
        return data


def move_features(game: str) -> np.ndarray:
    """Features of every action of ``game`` for the DMC move network: the action-feature table where the
    game has one (Dou Dizhu's also gets each move's kicker counts per rank / 4), else a one-hot of the
    action (games with few actions: Twenty's ten card values, War, Two Way Street)."""
    from cardenvs import make, resolve_id

    key = resolve_id(game)
    if key == "doudizhu_v0":
        from cardenvs.games.doudizhu import moves

        kickers = np.zeros((moves.NUM_ACTIONS, 15), dtype=np.float32)
        kickers[: moves.NUM_MOVES] = moves.MOVE_KICKERS / 4
        return np.concatenate([doudizhu_action_features(), kickers], axis=1)
    if key in ACTION_FEATURES:
        return ACTION_FEATURES[key]()
    n = make(key).unwrapped.num_actions
    return np.eye(n, dtype=np.float32)
