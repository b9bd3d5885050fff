"""An action-feature policy head for games with very wide action spaces (Dou Dizhu's 28,242 actions).

SB3's default head is one ``Linear(latent, n_actions)``: every action has its own weights, so what the
learner finds out about ``33344`` tells it nothing about ``44455``, and the head dominates the cost of
each update. :class:`ActionFeaturePolicy` scores action ``a`` as ``q(latent) . e(phi(a)) + b_a``: ``phi(a)``
is a fixed description of the move (its cards, type, main rank), ``e`` a small MLP shared by all actions,
``q`` a linear query of the state. Moves that look alike get alike scores, and the cost drops from
``latent x n_actions`` to ``dim x n_actions`` multiply-adds per state.

Use it with ``policy: action_features`` in a training config; the game must declare ``move_features`` in
its spec (:class:`cardenvs.core.spec.GameSpec`).
"""

from __future__ import annotations

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn


def action_features(game: str) -> np.ndarray:
    """The game's move features (its spec's ``move_features``: one row per action)."""
    from cardenvs.registry import spec_of

    spec = spec_of(game)
    if spec.move_features is None:
        raise ValueError(f"{spec.env_id} declares no move features, so the action-feature policy cannot play it")
    features = spec.hook(spec.move_features)
    assert features is not None  # move_features is set
    return np.asarray(features(), dtype=np.float32)


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
    ``action_game`` names the game whose declared move features describe the actions."""

    def __init__(self, *args, action_game: str, action_dim: int = 64, **kwargs):
        self.action_game, self.action_dim = action_game, action_dim
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        table = action_features(self.action_game)
        assert isinstance(self.action_space, spaces.Discrete)  # a masked policy's actions are one Discrete
        if table.shape[0] != self.action_space.n:
            raise ValueError(
                f"{self.action_game} has {table.shape[0]} action features for {self.action_space.n} actions"
            )
        self.action_net = ActionFeatureHead(self.mlp_extractor.latent_dim_pi, table, self.action_dim)
        if self.ortho_init:
            self.action_net.embed.apply(lambda m: self.init_weights(m, gain=np.sqrt(2)))
            self.init_weights(self.action_net.query, gain=0.01)
        # SB3 types optimizer_class as type[Optimizer], whose __init__ takes no lr; its subclasses all do
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)  # type: ignore[call-arg]

    def _get_constructor_parameters(self) -> dict:
        data = super()._get_constructor_parameters()
        data.update(action_game=self.action_game, action_dim=self.action_dim)
        return data
