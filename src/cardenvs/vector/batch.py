"""The batch under every vector view: the arrays of B games of one configuration, dealt from seeds, checked
and observed in numba (:mod:`cardenvs.core.kernels`)."""

from __future__ import annotations

import importlib
import warnings
from typing import Any

import numpy as np

from ..core import kernels, seeds
from ..core.env import CardEnv
from ..core.seeds import deal_seed_of
from ..registry import raw_env_class, spec_of

LEGAL_WIDTH = 256  # legal ids kept per game besides the mask (more: read from the mask)


def _check_count(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name}={value!r}: expected an integer >= {low}")
    return int(value)


SMALL_BATCH = 32  # fewer games than this run on one thread: waking the others costs more than it saves


class Batch:
    """The arrays of B games of one configuration and the buffers every view shares."""

    def __init__(self, env_id: str, num_envs: int, threads: int, copy: bool, options: dict):
        spec = spec_of(env_id)
        self.env_id = spec.env_id
        self.game = spec.name  # the policies' prefix: "twos.heuristic"
        if not isinstance(copy, (bool, np.bool_)):
            raise ValueError(f"copy={copy!r}: expected True (return arrays the caller owns) or False (buffers)")
        self.copy = bool(copy)
        self.num_envs = _check_count("num_envs", num_envs, 1)
        threads = kernels.check_threads(threads)
        self.threads = threads if self.num_envs >= SMALL_BATCH else 1
        proto: CardEnv = raw_env_class(self.env_id)(**options)
        if proto.numba_core() is None:
            raise ValueError(f"{self.env_id} has no numba core yet; vector envs need one")
        self.proto = proto
        self.options = dict(options)
        self.core, _, params, self.layout = proto.core_state()
        self.params = params.copy()
        self.policies = proto.policy_names()  # the game's numba heuristics: kernels' code 2 + k
        self.num_players = proto.num_players
        self.num_actions = proto.num_actions
        self.points = proto.config["reward"] == "points"
        B, n = self.num_envs, self.num_players
        self.state = np.zeros(B, dtype=self.core.STATE)
        self.all = np.arange(B, dtype=np.int64)
        self.deal_seeds = np.zeros(B, dtype=np.uint64)
        self.episodes = np.zeros(B, dtype=np.int64)
        self.last_scores = np.zeros((B, n))
        self.final_scores = np.zeros((B, n))
        self.obs = np.zeros((B, self.layout.size), dtype=self.layout.dtype)
        self.mask = np.zeros((B, self.num_actions), dtype=np.bool_)
        self.seats = np.full(B, -1, dtype=np.int64)
        self.num_legal = np.zeros(B, dtype=np.int64)
        self.legal = np.zeros((B, min(self.num_actions, LEGAL_WIDTH)), dtype=np.int32)  # the first legal ids
        self.rngs = np.zeros((B, 1), dtype=np.uint64)
        self.seed = 0
        self.has_reset = False

    @property
    def state_bytes_per_game(self) -> int:
        return self.state.dtype.itemsize

    def __getstate__(self) -> dict[str, Any]:
        """Pickling and deep copies carry the rules module by name (a module cannot be pickled)."""
        state = dict(self.__dict__)
        state["core"] = self.core.__name__
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.core = importlib.import_module(state["core"])

    def seed_games(self, seed: int | None) -> None:
        if seed is None:
            seed = seeds.next_seed()
        seed = _check_count("seed", seed, 0)
        self.seed = seed
        self.deal_seeds[:] = [deal_seed_of(seed + i) for i in range(self.num_envs)]
        # the opponents' random streams: a stream of each game's deal seed that dealing never uses
        mixed = seeds.states(seed, self.num_envs, stream="vector_opponents")
        self.rngs[:, 0] = mixed | np.uint64(1)
        self._deal_all()

    def _deal_all(self) -> None:
        """Every game's first deal from its deal seed (``deal_number`` 0)."""
        self.episodes[:] = 0
        kernels.run(
            "reset",
            self.threads,
            self.state,
            self.params,
            self.all,
            self.deal_seeds,
            self.episodes,
            False,
            self.last_scores,
        )
        self.has_reset = True

    def seed_each(self, game_seeds: Any) -> None:
        """Deal game ``i`` as the AEC env reset with ``seed=game_seeds[i]`` deals, its numba stream seeded from
        that seed too (so a game does not depend on the others)."""
        given = np.asarray(game_seeds)
        if given.shape != (self.num_envs,) or not np.issubdtype(given.dtype, np.integer) or (given < 0).any():
            raise ValueError(
                f"{self.env_id}: reset options['seeds'] must hold {self.num_envs} integers >= 0, one per game; "
                f"got {given.dtype} of shape {given.shape}"
            )
        values = [int(s) for s in given]
        self.seed = values[0]
        once = {s: (deal_seed_of(s), seeds.states(s, 1, stream="vector_opponents")[0]) for s in set(values)}
        self.deal_seeds[:] = [once[s][0] for s in values]  # a duplicate arena's games share their deal's seed
        self.rngs[:, 0] = [once[s][1] | np.uint64(1) for s in values]
        self._deal_all()

    def set_reset_options(self, options: dict) -> None:
        """Write the AEC env's episode reset options (``RESET_OPTIONS`` but ``deck``: Dou Dizhu's ``landlord``,
        ``bid``, ...) into ``params``, as the AEC env's ``reset(options=...)`` writes them (and checks them,
        with its messages); ``{}`` restores the defaults."""
        refused = [k for k in options if k not in self.proto.RESET_OPTIONS or k == "deck"]
        if refused:
            accepted = ", ".join(repr(k) for k in ("seeds", *self.proto.RESET_OPTIONS) if k != "deck")
            raise ValueError(
                f"{self.env_id}: vector reset option {refused[0]!r} is not accepted; it takes {accepted} (stack "
                "decks in the AEC env to replay a deal)"
            )
        self.proto.reset(seed=0, options=options)
        np.copyto(self.params, self.proto.core_state().params)

    def games(self, games: Any) -> np.ndarray:
        """Game indices ``games`` as int64 (all games for None); ValueError for one outside the batch."""
        which = self.all if games is None else np.asarray(games, dtype=np.int64).reshape(-1)
        if which.size and (which.min() < 0 or which.max() >= self.num_envs):
            raise ValueError(f"games must be indices in 0..{self.num_envs - 1}, got {which.min()}..{which.max()}")
        return which

    def check_actions(self, actions: Any, which: np.ndarray, who: str = "") -> np.ndarray:
        if not self.has_reset:
            raise RuntimeError(f"{self.env_id}: call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(
                f"{self.env_id}: actions must be an integer array of shape ({self.num_envs},), "
                f"one per game{who}; got dtype {actions.dtype} and shape {actions.shape}"
            )
        actions = actions.astype(np.int64, copy=False)
        bad = kernels.first_illegal(self.mask, actions, which)
        if bad >= 0:
            b = int(which[bad])
            legal = np.flatnonzero(self.mask[b])
            names = ", ".join(f"{a} ({self.proto.action_name(int(a))})" for a in legal[:20])
            more = " ..." if len(legal) > 20 else ""
            raise ValueError(
                f"{self.env_id}: illegal action {int(actions[b])} in game {b}{who}; legal: "
                f"{names}{more}. No game was stepped."
            )
        return actions

    def legal_ids(self) -> tuple[np.ndarray, np.ndarray]:
        return kernels.padded_ids(self.mask, self.legal, self.num_legal), self.num_legal.copy()

    def out(self, array: np.ndarray) -> np.ndarray:
        """``array`` as returned to the caller: a copy it owns, or the buffer itself with ``copy=False``."""
        return array.copy() if self.copy else array

    def observation(self) -> dict[str, np.ndarray]:
        return {"observation": self.out(self.obs), "action_mask": self.out(self.mask)}

    def render(self) -> tuple[str, ...] | None:
        """Every game's table as text (``render_mode="ansi"``), or printed (``"human"``)."""
        mode = self.proto.render_mode
        if not self.has_reset:
            raise RuntimeError(f"{self.env_id}: call reset() before render()")
        if mode is None:
            warnings.warn(
                f"{self.env_id}: render() called without a render_mode; pass render_mode='ansi' or 'human'",
                stacklevel=3,
            )
            return None
        texts = tuple(self.proto.render_state(self.state[i : i + 1]) for i in range(self.num_envs))
        if mode == "human":
            print("\n\n".join(f"game {i}:\n{text}" for i, text in enumerate(texts)))
            return None
        return texts

    def snapshot(self, *owners: Any) -> list[tuple[Any, str, np.ndarray]]:
        """Copies of every array of this batch and of ``owners`` (views over it), for :meth:`restore`."""
        return [
            (owner, name, value.copy())
            for owner in (self, *owners)
            for name, value in vars(owner).items()
            if isinstance(value, np.ndarray)
        ]

    @staticmethod
    def restore(saved: list[tuple[Any, str, np.ndarray]]) -> None:
        for owner, name, value in saved:
            np.copyto(getattr(owner, name), value)
