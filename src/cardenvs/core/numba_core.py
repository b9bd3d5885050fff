"""A game's numba core in its AEC env: the hooks :class:`cardenvs.core.env.CardEnv` takes from the rules module
(``CORE``), the compiled entry points of its step and observe, what pickling leaves out of them, and the door
through which generic code reaches the core and the game in progress (:class:`CoreState`, "For generic code" in
:class:`~cardenvs.core.env.CardEnv`'s docstring)."""

from __future__ import annotations

import copy
import sys
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from . import kernels
from .observation import Layout


class CoreState(NamedTuple):
    """What generic code that runs a game's numba core needs of an env (:meth:`NumbaCore.core_state`): the
    env's own arrays, not copies (Dou Dizhu's ``params`` is a megabyte): read them, and write the game through
    :meth:`NumbaCore.set_state`."""

    core: Any  # the rules module: STATE, init, to_move, legal_ids, apply, status, scores, outcome, observe, ...
    states: np.ndarray  # the env's batch of games: game 0 in progress after reset, no game (shape (0,)) before
    params: np.ndarray  # the configuration's parameters (options, stacked decks, reset options)
    layout: Layout  # the observation layout ``observe`` writes


class NumbaCore:
    """The part of :class:`cardenvs.core.env.CardEnv` that runs a numba core: the env holds a batch of one game
    (``self.states``, with ``self.state`` a record view of game 0) and ``self.params``. Defining a subclass with
    ``CORE`` registers the core with the generic kernels and fills every hook the game does not write itself."""

    #: the game's numba rules module (see :mod:`cardenvs.core.kernels`), or None; with it, the numba
    #: dispatcher of its heuristics (``policy(state, b, params, which, rng)``, names in ``CORE.POLICIES``) and
    #: its determinizer for search, or None (a game without hidden cards). Defining the class registers them
    #: with the generic kernels.
    CORE: Any = None
    POLICY: Any = None
    DETERMINIZE: Any = None
    #: ``(horizon, horizon_value)``, numba functions where search rollouts may stop before the end
    #: (:func:`cardenvs.core.kernels.horizon`), or None: rollouts play to the end
    HORIZON: Any = None
    # what the env sets up (CardEnv's construction and reset, the game's _configure)
    params: np.ndarray
    states: np.ndarray
    state: Any
    layout: Layout
    num_players: int
    num_actions: int
    reset_options: dict
    _stacked: list[np.ndarray]
    _deal_seed: int
    _ids: np.ndarray
    _legal_n: int
    _last_scores: np.ndarray
    metadata: dict[str, Any]
    actions_taken: list[tuple[int, int]]

    if TYPE_CHECKING:  # CardEnv's

        def _after_change(self) -> None: ...
        def _render(self) -> str: ...

    #: what an env keeps that pickling cannot carry: the compiled entry points (looked up again on the next
    #: step) and the record view of game 0 (made again over the copied ``states``)
    _NOT_PICKLED = ("_step_kernel", "_observe_kernel", "_kernels_for", "_kernel_key", "_kernel_table", "state")

    def __getstate__(self) -> dict[str, Any]:
        """What ``pickle`` and ``copy.deepcopy`` carry: everything of the game in progress (states, params,
        masks, rewards, the random generator), without the compiled entry points, so an env can be copied,
        saved or sent to another process at any point of a game and played on from there."""
        return {k: v for k, v in self.__dict__.items() if k not in self._NOT_PICKLED}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if "states" in state:
            self.state = self.states.view(np.recarray)[0]

    # ------------------------------------------------------------------ the door for generic code
    @classmethod
    def numba_core(cls) -> Any:
        """The game's numba rules module (``CORE``), or None for a game without one."""
        return cls.CORE

    @classmethod
    def policy_names(cls) -> tuple[str, ...]:
        """The names of the game's numba heuristics (the core's ``POLICIES``: ``("heuristic",)``), in declared
        order; the kernels' code of policy ``k`` is ``2 + k``."""
        return tuple(getattr(cls.CORE, "POLICIES", ()))

    @classmethod
    def determinizer_options(cls) -> tuple[str, ...]:
        """The search options the game's determinizer offers (its module's ``SEARCH_OPTIONS``: ``("counting",)``
        where a search may ignore the cards seen); () without a determinizer."""
        module = sys.modules.get(getattr(getattr(cls.DETERMINIZE, "py_func", cls.DETERMINIZE), "__module__", ""))
        return tuple(getattr(module, "SEARCH_OPTIONS", ()))

    def core_state(self) -> CoreState:
        """The numba core, the env's state array, its params and its layout (:class:`CoreState`); a game
        without a numba core is a ``ValueError``."""
        if self.CORE is None:
            raise ValueError(f"{self.metadata['name']} has no numba core")
        states = self.__dict__.get("states")
        if states is None:  # before the first reset: no game yet
            states = np.zeros(0, dtype=self.CORE.STATE)
        return CoreState(self.CORE, states, self.params, self.layout)

    def set_state(self, state: Any = None, params: np.ndarray | None = None, scores: Any = None) -> None:
        """Put another game of this env's configuration in progress here (a vector env's game for code written
        for the AEC env): ``state`` is one game's record (a vector env's ``state[i]``), copied into the env's
        state; ``params`` and ``scores``, each seat's score so far (rewards count from them on), are copied
        too; None keeps the env's own. The seat to act and its mask are read from the new state; the agents'
        flags and rewards stay those of the env's last ``reset``, which must have been called; the moves taken
        (``actions_taken``) are forgotten."""
        if not self.__dict__.get("_has_reset"):
            raise RuntimeError(f"{self.metadata['name']}: call reset() before set_state()")
        if params is not None:
            np.copyto(self.params, params)
        if state is not None:
            self.states[0] = state
        if scores is not None:
            self._last_scores = np.array(scores, dtype=np.float64)
        self.actions_taken = []  # the moves that led here are not known
        self._after_change()

    def preview(self, action: int) -> Any:
        """A shallow copy of this env holding its own copy of the game, with ``action`` applied by the rules
        (``apply``: no check that it is legal, no rewards, no agent selection): what a move does, for looking
        ahead (the web app draws the cards a move takes from the copy's hand). This env is not touched."""
        core = self.core_state().core
        after = copy.copy(self)
        after.states = self.states.copy()
        after.state = after.states.view(np.recarray)[0]
        core.apply(after.states, 0, self.params, action)
        return after

    def render_state(self, states: np.ndarray) -> str:
        """The table of another game's state, a one-game state array of this env's core (a vector env's game
        ``i`` is ``states[i : i + 1]``), as :meth:`render_text` shows it; the env itself is left as it was."""
        saved: dict[str, Any] = {k: self.__dict__.pop(k) for k in ("states", "state") if k in self.__dict__}
        self.states = np.array(states, dtype=self.CORE.STATE).reshape(1)
        self.state = self.states.view(np.recarray)[0]
        try:
            return self._render()
        finally:
            del self.states, self.state
            self.__dict__.update(saved)

    # ------------------------------------------------------------------ the hooks from the core
    def _set_reset_params(self, params: np.ndarray) -> None:
        """Write the episode's reset options (``self.reset_options``) into ``params`` (games override)."""

    def _core_new_game(self) -> None:
        core, params = self.CORE, self.params
        names = params.dtype.names or ()
        if "stacked" in names:
            for k, deck in enumerate(self._stacked):  # counted against the limit in _stacked_decks
                params["stacked"][0, k, : len(deck)] = deck  # a row may be longer than the deck
            params["n_stacked"] = len(self._stacked)
        self._set_reset_params(params)
        self.states = np.zeros(1, dtype=core.STATE)
        self.state = self.states.view(np.recarray)[0]
        self._ids = np.empty(self.num_actions, dtype=np.int64)
        core.init(self.states, 0, params, np.uint64(self._deal_seed))

    def _core_legal_mask(self) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=np.int8)
        n = self.CORE.legal_ids(self.states, 0, self.params, self._ids)
        mask[self._ids[:n]] = 1
        self._legal_n = n
        return mask

    #: the numba core's step and observe kernels, compiled for the types of the env's buffers and of the state
    #: array ``_kernels_for``; a new state array (each reset's, or one a test gives) looks them up again by
    #: what numba's type of it depends on
    _step_kernel: Any = None
    _observe_kernel: Any = None
    _kernels_for: Any = None
    _kernel_key: tuple = ()

    def _resolve_kernels(self) -> None:
        if self._kernels_for is not None:  # keep what was compiled for the last state array's type
            self.__dict__.setdefault("_kernel_table", {})[self._kernel_key] = (self._step_kernel, self._observe_kernel)
        states = self.states
        flags = states.flags
        self._kernel_key = (states.dtype, states.ndim, flags.c_contiguous, flags.writeable, flags.aligned)
        self._step_kernel, self._observe_kernel = self.__dict__.get("_kernel_table", {}).get(
            self._kernel_key, (None, None)
        )
        self._kernels_for = states

    def _core_observe(self, player: int) -> np.ndarray:
        obs = np.zeros(self.layout.size, dtype=self.layout.dtype)
        args = (self.states, 0, self.params, int(player), obs)
        if self._kernels_for is not self.states:
            self._resolve_kernels()
        if self._observe_kernel is None:  # as in step
            self._observe_kernel = kernels.compiled(self.CORE.observe, args)
        self._observe_kernel(*args)
        return obs

    def _core_scores(self) -> np.ndarray:
        out = np.zeros(self.num_players)
        self.CORE.scores(self.states, 0, self.params, out)
        return out

    def _core_win_rewards(self, scores: np.ndarray) -> np.ndarray:
        out = np.zeros(self.num_players)
        self.CORE.outcome(self.states, 0, self.params, out)
        return out

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.CORE is None:
            return
        core = cls.CORE
        if "CORE" in cls.__dict__:
            kernels.register_rules(core, cls.POLICY)
            if cls.DETERMINIZE is not None:
                kernels.register_determinize(core.STATE, cls.DETERMINIZE)
            if cls.HORIZON is not None:
                kernels.register_horizon(core.STATE, *cls.HORIZON)
        defaults = {
            "_new_game": NumbaCore._core_new_game,
            "_to_move": lambda self: int(core.to_move(self.states, 0, self.params)),
            "_legal_mask": NumbaCore._core_legal_mask,
            "_apply": lambda self, action: core.apply(self.states, 0, self.params, action),
            "_is_over": lambda self: core.status(self.states, 0, self.params) == 1,
            "_is_truncated": lambda self: core.status(self.states, 0, self.params) == 2,
            "_scores": NumbaCore._core_scores,
            "_win_rewards": NumbaCore._core_win_rewards,
            "_observe": NumbaCore._core_observe,
            "_card_locations": lambda self: core.card_locations(self.states[0]),
        }
        for name, hook in defaults.items():
            if name not in cls.__dict__:
                setattr(cls, name, hook)
