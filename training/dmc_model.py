"""The DMC model as an agent: the Q networks of :mod:`cardenvs.training.dmc`, their checkpoint and
:class:`DMCAgent`, which the arena, search, the web app and the trainer's evaluation load as ``dmc:PATH``
(entry-point group ``cardenvs.agents`` in ``pyproject.toml``).

* **Features.** The state is the observation, scaled by its segments' bounds (:class:`StateFeatures`,
  logarithmic for scores and awards); a segment called ``history`` (Dou Dizhu's last 15 moves, ``[15, 54]``)
  goes through a 1-D convolution first. ``features`` may also name a feature set the game declares that is
  computed from the game's state (:func:`state_extra`: its spec's ``learner_features`` entry with ``rows`` and
  ``size``, e.g. Guandan's ``danzero``, DanZero's 513): those columns follow the scaled observation, as they are
  (the actors, the agent from the env's state, and a search from its determinized deals' states through
  :meth:`DMCAgent.action_values`, append them to each observation row). Moves are described
  by the game's move table (:func:`cardenvs.training.features.move_features`: cards, type, main rank,
  kickers), so alike moves share what is learnt.
* **Networks**, one per role (:func:`roles_of`): Dou Dizhu has the landlord, the farmer after the landlord,
  the farmer before it, and the bidder; other games one network, seat-relative.
  ``Q = w . relu(A h(state) + B e(move) + c)``: the state part is computed once per decision and the move
  part once per move for all moves (a table refreshed after each update), so scoring the ~30 legal moves
  of a decision costs little more than one forward pass. Their sizes are :class:`Network`'s fields.
* **Device.** :func:`resolve_device` picks the learner's (``auto``: CUDA when torch sees one); a checkpoint is
  always read onto the CPU (``map_location``), so a model trained on a GPU plays on a machine without one.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from cardenvs.agent import BatchGames
from cardenvs.core.observation import bound_scaling
from cardenvs.core.spec import load
from cardenvs.registry import spec_of

FEATURES = ("scaled", "bounds")
FORMAT = "cardenvs-dmc-1"  # a checkpoint's format tag


@dataclass
class Network:
    """The networks' sizes and input features (config keys of the same names; a checkpoint keeps them in its
    ``args``)."""

    hidden: list = field(default_factory=lambda: [256, 256])  # the state MLP
    move_hidden: int = 128  # the move MLP
    head_hidden: int = 256  # the joint layer
    history_channels: int = 64  # 1-D conv channels over the history segment (0: feed it flat)
    history_kernel: int = 3  # moves per conv window (kernel = stride)
    features: str = "scaled"  # the state input: "scaled" (log for large bounds), "bounds" (StateFeatures), or a
    # feature set the game declares from its state, appended to the scaled observation ("danzero": Guandan)


# ---------------------------------------------------------------- features and roles
def state_extra(game: str, kind: str) -> Any | None:
    """The columns ``features: kind`` appends to the observation: None for ``scaled`` and ``bounds``, else the
    game's declared learner features of that name (its spec's ``learner_features``), which must compute rows
    from the game's state: ``rows(state, games) -> int8 [len(games), size]`` and ``size``."""
    if kind in FEATURES:
        return None
    declared = spec_of(game).learner_features
    if kind not in declared:
        known = [*FEATURES, *declared]
        raise ValueError(f"features {kind!r}: expected one of {', '.join(known)} (for {game})")
    features = load(declared[kind])
    if not (hasattr(features, "rows") and hasattr(features, "size")):
        raise ValueError(f"features {kind!r} of {game} are computed per observation; DMC takes a set with rows(state)")
    return features


def extra_size(game: str, kind: str) -> int:
    """How many columns :func:`state_extra` appends (0: none)."""
    extra = state_extra(game, kind)
    return 0 if extra is None else int(extra.size)


class StateFeatures:
    """Raw observation rows -> the networks' float32 input, scaled as
    :func:`cardenvs.core.observation.bound_scaling` defines it (``scaled``: every segment divided by its
    bound, bounds above 100 -- scores, awards -- logarithmic); ``bounds`` divides by the bound only
    (checkpoints from before ``features`` existed: a Twenty score of 80 was 80 / 1e6, invisible to the
    network). A declared state feature set (``danzero``) scales the observation as ``scaled`` does and keeps
    the ``extra`` columns after it as they are."""

    def __init__(self, layout, kind: str, extra: int = 0):
        big, divisor = bound_scaling(layout.high, logarithmic=kind != "bounds")  # the core's one definition
        self.size, self.extra = int(layout.size), int(extra)
        self.big = torch.as_tensor(big) if big.any() else None
        self.div = torch.as_tensor(1.0 / divisor, dtype=torch.float32)

    def __call__(self, raw: np.ndarray | torch.Tensor) -> torch.Tensor:
        x = torch.as_tensor(raw, dtype=torch.float32)
        tail = x[:, self.size :] if self.extra else None
        x = x[:, : self.size] if self.extra else x
        if self.big is not None:
            x = torch.where(self.big, torch.log1p(x.clamp(min=0.0)), x)
        x = x * self.div
        return x if tail is None else torch.cat([x, tail], dim=1)


def role_names(game: str) -> list[str]:
    """The networks of a game: one per part a learner plays where the game declares roles (its spec's
    ``roles.learner_names``, e.g. Dou Dizhu's landlord, the two farmers and the bidder), else one."""
    roles = spec_of(game).roles
    return list(roles.learner_names) if roles else ["player"]


def roles_of(game: str, layout, obs: np.ndarray) -> np.ndarray:
    """The network each decision uses (see :func:`role_names`), from the observations ``[N, D]``."""
    roles = spec_of(game).roles
    if roles is None:
        return np.zeros(len(obs), dtype=np.int64)
    return np.asarray(roles.learner_roles(layout, obs), dtype=np.int64)


# ---------------------------------------------------------------- the Q network of one role
class QNet(nn.Module):
    """``Q(s, m) = w . relu(A h(s) + B e(m) + c) + d`` with ``h`` the state MLP (a 1-D conv over the history
    segment, if any) and ``e`` the move MLP over the move table's features."""

    # for the type checker: the buffers (torch types a module's attributes as Tensor | Module), and the history
    # segment's (start, stop, windows, window) or None
    rest_index: torch.Tensor
    moves: torch.Tensor
    history: tuple[int, int, int, int] | None

    def __init__(self, layout, move_table: np.ndarray, args: Network, extra: int = 0):
        super().__init__()
        size = layout.size + extra  # the observation, then the columns of a declared state feature set
        history = layout.slices.get("history") if "history" in layout else None
        if history is not None and args.history_channels > 0:
            seg = next(s for s in layout.segments if s.name == "history")
            steps, width = seg.shape
            kernel = args.history_kernel
            if steps % kernel:
                raise ValueError(f"history_kernel={kernel} must divide the history's {steps} moves")
            rest = np.setdiff1d(np.arange(size), np.arange(history.start, history.stop))
            self.register_buffer("rest_index", torch.as_tensor(rest), persistent=False)
            self.history = (history.start, history.stop, steps // kernel, kernel * width)
            # a 1-D convolution over the moves with kernel = stride = history_kernel (Dou Dizhu: 3 moves, one
            # round of the table), written as one Linear over each window: on CPU it costs a fifth of Conv1d
            self.conv: nn.Module | None = nn.Sequential(nn.Linear(kernel * width, args.history_channels), nn.ReLU())
            state_in = len(rest) + steps // kernel * args.history_channels
        else:
            self.conv, self.history = None, None
            state_in = size
        layers: list[nn.Module] = []
        for width_out in args.hidden:
            layers += [nn.Linear(state_in, width_out), nn.ReLU()]
            state_in = width_out
        self.state_mlp = nn.Sequential(*layers)
        self.register_buffer("moves", torch.as_tensor(move_table, dtype=torch.float32), persistent=False)
        self.move_mlp = nn.Sequential(nn.Linear(move_table.shape[1], args.move_hidden), nn.ReLU())
        self.state_proj = nn.Linear(state_in, args.head_hidden)
        self.move_proj = nn.Linear(args.move_hidden, args.head_hidden, bias=False)
        self.out = nn.Linear(args.head_hidden, 1)
        self._table: torch.Tensor | None = None  # move_proj(move_mlp(every move)), cached without gradients

    def state_part(self, x: torch.Tensor) -> torch.Tensor:
        if self.conv is not None and self.history is not None:
            start, stop, windows, window = self.history
            seq = x[:, start:stop].reshape(-1, windows, window)
            x = torch.cat([x.index_select(1, self.rest_index), self.conv(seq).flatten(1)], dim=1)
        return self.state_proj(self.state_mlp(x))

    def move_part(self, actions: torch.Tensor) -> torch.Tensor:
        return self.move_proj(self.move_mlp(self.moves[actions]))

    def forward(self, x: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        """Q of one move per state (training)."""
        return self.out(torch.relu(self.state_part(x) + self.move_part(actions))).squeeze(1)

    @torch.no_grad()
    def move_table(self) -> torch.Tensor:
        if self._table is None:
            self._table = self.move_proj(self.move_mlp(self.moves))
        return self._table

    def invalidate(self) -> None:
        self._table = None

    @torch.no_grad()
    def q_pairs(self, x: torch.Tensor, rows: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        """Q of the pairs (state ``rows[i]`` of ``x``, move ``actions[i]``), without gradients (acting)."""
        h = self.state_part(x)
        return self.out(torch.relu(h[rows] + self.move_table()[actions])).squeeze(1)


def build_nets(game: str, layout, args: Network) -> nn.ModuleList:
    from .features import move_features

    table = move_features(game)
    extra = extra_size(game, args.features)
    return nn.ModuleList([QNet(layout, table, args, extra) for _ in role_names(game)])


def choose(
    nets: nn.ModuleList,
    x: torch.Tensor,
    roles: np.ndarray,
    ids: np.ndarray,
    counts: np.ndarray,
    epsilon: float | np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """The greedy move of each state (ties: the lowest id) among its legal ids (``ids[i, :counts[i]]``),
    or with probability ``epsilon`` (one for all, or one per state) a uniformly random legal one."""
    n, width = ids.shape
    chosen = np.empty(n, dtype=np.int64)
    valid = np.arange(width)[None, :] < counts[:, None]
    for role in np.unique(roles):
        sel = np.flatnonzero(roles == role)
        sub_valid = valid[sel]
        rows_local, cols = np.nonzero(sub_valid)
        q = nets[role].q_pairs(
            x[torch.as_tensor(sel)], torch.as_tensor(rows_local), torch.as_tensor(ids[sel][rows_local, cols])
        )
        grid = torch.full((len(sel), width), -math.inf)
        grid[torch.as_tensor(rows_local), torch.as_tensor(cols)] = q
        best_col = grid.argmax(dim=1).numpy()
        chosen[sel] = ids[sel, best_col]
    if np.any(np.asarray(epsilon) > 0):
        explore = rng.random(int(n)) < epsilon
        if explore.any():
            k = np.flatnonzero(explore)
            cols = (rng.random(len(k)) * counts[k]).astype(np.int64)
            chosen[k] = ids[k, cols]
    return chosen


def resolve_device(name: str) -> torch.device:
    """``auto``: the first GPU when torch sees one, else the CPU; otherwise the device named."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(name)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {name!r}: torch sees no GPU (use device: auto or cpu)")
    return device


# ---------------------------------------------------------------- checkpoints and the agent
def load_checkpoint(path: str | Path) -> dict:
    """A ``model.pt`` (or its folder) as saved by the trainer, its tensors on the CPU wherever they were
    trained (``map_location``: a GPU-trained model plays on a machine without one)."""
    p = Path(path)
    if p.is_dir():
        p = p / "model.pt"
    if not p.is_file():
        raise ValueError(f"no DMC checkpoint at {path} (expected model.pt written by cardenvs.training.dmc)")
    try:
        data = torch.load(p, map_location="cpu", weights_only=True)
    except Exception as exc:  # a truncated or foreign file: say which
        raise ValueError(f"{p} is not a readable DMC checkpoint: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{p} is not a DMC checkpoint of cardenvs.training.dmc (format {FORMAT})")
    return data


def trained_features(data: dict) -> str:
    """The input features a checkpoint's networks were trained with (``bounds`` for checkpoints saved before
    ``features`` existed)."""
    return data["args"].get("features", "bounds")


def win_points(g: np.ndarray, points_weight: float) -> np.ndarray:
    """The ``target: win_points`` value of a return ``g`` (a points reward whose sign is the result, as a Guandan
    hand's): ``sign(g) + points_weight * g``, the win and the levels it scores. The trainer's targets
    (:func:`cardenvs.training.dmc_actors.episode_targets`) and a search's ended deals (:meth:`DMCAgent.end_values`)."""
    return np.sign(g) + points_weight * g


class DMCAgent:
    """``dmc:PATH``: the greedy move of a DMC checkpoint (``model.pt`` or its folder), through the public
    env API (the observation dict and the env's layout). The env must be the game it was trained on, with
    the same observation size. A model trained on a state feature set (``features: danzero``) reads those
    columns from the game's state, for the seat to move: the env's (:meth:`act`), the batch's (:meth:`act_batch`
    with ``games``) or the one a search hands :meth:`action_values` (``state`` and ``games``: the determinized
    deals of ``GAME.pimc(leaf=dmc)``); :attr:`reads_state` says so, and it cannot score observations alone."""

    def __init__(self, env: Any, path: str):
        data = load_checkpoint(path)
        base = env.unwrapped
        game = base.metadata["name"]
        if data["game"] != game:
            raise ValueError(f"dmc:{path} was trained on {data['game']}, not {game}")
        fields = {f.name for f in dataclasses.fields(Network)}
        known = {k: v for k, v in data["args"].items() if k in fields}
        self.args = Network(**{**known, "features": trained_features(data)})
        self.layout = base.layout
        self.nets = build_nets(game, self.layout, self.args)
        table = self.nets[0].moves  # QNet's move features, one row per action
        scored = int(table.shape[0]) if isinstance(table, torch.Tensor) else 0
        if scored < base.num_actions:
            raise ValueError(
                f"dmc:{path} scores {scored} actions and this env ({dict(base.config)}) has {base.num_actions}: "
                "an option that adds moves makes another game than the one it was trained on"
            )
        try:
            self.nets.load_state_dict({k: v.float() for k, v in data["nets"].items()})
        except RuntimeError as exc:
            raise ValueError(f"dmc:{path} does not fit this env's observation layout: {exc}") from None
        self.nets.eval()
        self.extra = state_extra(game, self.args.features)
        trained = data["args"]
        self.target = str(trained.get("target", "win"))  # what Q estimates (end_values puts ends on its scale)
        self.points_weight = float(trained.get("points_weight", 1 / 3))
        self.target_scale = float(trained.get("target_scale", 1.0))
        #: does :meth:`action_values` need ``state`` and ``games`` (a state feature set)? A search passes them then
        self.reads_state = self.extra is not None
        self.base = base
        self.features = StateFeatures(self.layout, self.args.features, 0 if self.extra is None else self.extra.size)
        self.game = game
        self.name = f"dmc:{path}"

    def _rows(self, obs: np.ndarray, state: np.ndarray | None, games: Any) -> np.ndarray:
        """The observation rows, with the state feature set's columns appended when the model has one."""
        if self.extra is None:
            return obs
        if state is None:
            raise ValueError(
                f"{self.name} reads features={self.args.features} from the game's state: it needs the env (or, to "
                "score positions, action_values' state and games)"
            )
        extra = self.extra.rows(state, games)
        if len(extra) != len(obs):
            raise ValueError(f"{self.name}: {len(obs)} observation rows but {len(extra)} games of state to read")
        return np.concatenate([obs, extra], axis=1)

    def act(self, observation: dict[str, np.ndarray], rng: np.random.Generator) -> int:
        obs = np.asarray(observation["observation"])[None, :]
        legal = np.flatnonzero(np.asarray(observation["action_mask"]).view(np.bool_))
        if len(legal) == 0:
            raise ValueError("dmc agent asked to act with an empty action mask")
        state = self.base.core_state()[1] if self.extra is not None else None
        x = self.features(self._rows(obs, state, [0]))
        roles = roles_of(self.game, self.layout, obs)
        return int(choose(self.nets, x, roles, legal[None, :], np.array([len(legal)]), 0.0, rng)[0])

    def act_batch(
        self,
        observations: Mapping[str, np.ndarray],
        rngs: Sequence[np.random.Generator],
        games: BatchGames | None = None,
    ) -> np.ndarray:
        """:meth:`act` on ``k`` rows (the batch protocol of :mod:`cardenvs.agent`): one forward per role's
        network for all of them; the greedy move draws nothing from ``rngs``. The legal ids come from the
        vector env's lists when ``games`` is given, else from the masks."""
        obs = np.asarray(observations["observation"])
        if games is not None:
            ids, counts = games.legal_ids()  # ascending, as act lists them; padded with -1 past the count
        else:
            masks = np.asarray(observations["action_mask"]).view(np.bool_)
            counts = masks.sum(axis=1)
            rows, legal = np.nonzero(masks)  # row by row, ascending ids: each row's legal ids as act lists them
            ids = np.zeros((len(counts), max(1, int(counts.max(initial=0)))), dtype=np.int64)
            ids[rows, np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)] = legal
        if len(counts) and counts.min() == 0:
            raise ValueError("dmc agent asked to act with an empty action mask")
        state = getattr(games.env, "state", None) if games is not None else None
        x = self.features(self._rows(obs, state, None if games is None else games.indices))
        roles = roles_of(self.game, self.layout, obs)
        return choose(self.nets, x, roles, ids, counts, 0.0, None)  # type: ignore[arg-type]  # epsilon 0: no draws

    def end_values(self, outcomes: np.ndarray, points: np.ndarray, seat: int) -> np.ndarray:
        """What a game that ended is worth on this model's scale, for a search's leaves (``GAME.pimc(leaf=dmc)``)
        to compare with its Q: for ``target: win_points`` the trainer's target of the seat's points ``g``
        (``points[:, seat]``; ``points`` is ``[k, players]``, each seat's score gained since the search's root,
        the env's points reward), ``win_points(g, points_weight) / target_scale`` (``training.dmc_actors``'s
        ``episode_targets``: a Guandan hand's win plus a third of its levels, up to 2); for every other target the
        ``outcomes`` (+-1) as they are, as searches scored ends before (exact for ``win``; not yet put on the
        scale of ``points`` and ``margin``, whose scores' units and horizons vary by game)."""
        if self.target != "win_points":
            return np.asarray(outcomes, dtype=np.float64)
        g = np.asarray(points, dtype=np.float64)[:, seat]
        return win_points(g, self.points_weight) / self.target_scale

    @torch.no_grad()
    def action_values(
        self,
        observations: np.ndarray,
        ids: np.ndarray,
        counts: np.ndarray,
        state: np.ndarray | None = None,
        games: Any = None,
    ) -> np.ndarray:
        """Q of each row's legal ids ``ids[i, :counts[i]]`` (``[k, W]`` float64, ``-inf`` past the count): the
        network's estimate of the acting seat's return after each move, on its training target's scale (the
        win scale with ``target: win``, divided by ``target_scale``). What a search scores positions with
        (``GAME.pimc(leaf=dmc)``, :mod:`cardenvs.search`); the greedy move is the row's first maximum, the move
        :meth:`act` plays in the same position. A model with a state feature set (:attr:`reads_state`) computes
        those columns from ``state`` (the rules' batched state) for game ``games[i]`` of each row, whose seat to
        move must be the one row ``i`` observes; the other models ignore ``state`` and ``games``."""
        obs = np.asarray(observations)
        ids = np.asarray(ids, dtype=np.int64)
        counts = np.asarray(counts, dtype=np.int64)
        out = np.full(ids.shape, -np.inf)
        if len(obs) == 0:
            return out
        x = self.features(self._rows(obs, state, games))
        roles = roles_of(self.game, self.layout, obs)
        valid = np.arange(ids.shape[1])[None, :] < counts[:, None]
        for role in np.unique(roles):
            sel = np.flatnonzero(roles == role)
            rows, cols = np.nonzero(valid[sel])
            q = self.nets[role].q_pairs(
                x[torch.as_tensor(sel)], torch.as_tensor(rows), torch.as_tensor(ids[sel][rows, cols])
            )
            out[sel[rows], cols] = q.numpy()
        return out
