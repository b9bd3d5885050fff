"""Vector envs: B games stepped together in numba, over the same rules as the AEC envs.

Two views of one batch (:mod:`cardenvs.core.kernels` runs the games; no Python runs per game):

* ``make(env_id, num_envs, **options)`` -> :class:`VectorEnv`, turn-based and multi-agent, as Pgx does:
  ``reset(seed)`` returns the observation of the player to move in every game (``observation`` [B, D],
  ``action_mask`` bool [B, A]) and ``info["to_move"]`` [B]; ``step(actions)`` takes one action per game and
  returns observations, the rewards of every seat [B, n], terminated and truncated [B] and info.
* ``make(env_id, num_envs, learner="rotate" | seat, opponents=[...], **options)`` ->
  :class:`LearnerVectorEnv`, a ``gymnasium.vector.VectorEnv`` for one learner per game: the opponents act
  inside ``step`` -- ``"random"`` and the game's numba heuristics (``"heuristic"``, ``"twos.heuristic"``,
  ...) with no Python per game, any callable (a frozen network) once per round with the batch of
  observations where it is to move, any other agent name (``"twenty.solver"``) as such a callable that
  plays one agent per game (:class:`AgentOpponent`). The learner receives every reward of its seat, the
  terminal one included when an opponent's move ends the game. ``action_masks()`` is there for
  sb3-contrib, and :func:`cardenvs.sb3.SB3VecEnv` wraps it as an SB3 ``VecEnv``.

Autoreset: Gymnasium's **same-step** mode (``AutoresetMode.SAME_STEP``). A game that ends in ``step``
reports its rewards and end flags, and the observation returned for it is already the first one of its
next deal; the final scores are in ``info["final_scores"]`` (and, in the learner view, the learner's final
observation in ``info["final_obs"]``), valid where ``info["_final_scores"]`` is True. The learner view also
offers the **next-step** mode (``autoreset_mode="next_step"``, what Gymnasium's ``SyncVectorEnv`` and Ray
RLlib's env runners expect): a game that ends returns the learner's final observation (its mask all
False), and the next ``step`` ignores that game's action and deals it again, with reward 0 and no end
flags. ``info["deal_number"]``
counts the deals each game has started since ``reset`` (``info["episode"]`` is left to Gymnasium's
``RecordEpisodeStatistics``, which writes its statistics there). The turn-based view can also play each game
once (``autoreset=False``: an ended game stays at its end; the arena's batched engine plays so).

Ownership: ``reset``, ``step``, ``action_masks`` and ``legal_ids`` return arrays the caller owns (copies, as
Gymnasium's own vector envs do by default), so observations kept in a buffer stay as they were.
``copy=False`` returns the env's buffers instead, valid only until the next call that changes the batch.

Rendering: ``render_mode="ansi"`` (or ``"human"``) is passed on to the games; ``render()`` then returns (or
prints) every game's table as text, the AEC env's ``render`` for that game.

Seeds: game ``i``'s first deal after ``reset(seed=s)`` is the AEC env's deal after ``reset(seed=s + i)``
(after ``reset(seed=seeds[i])`` with the turn-based view's ``reset(options={"seeds": seeds})``), so any
vector game can be replayed in the AEC env; game ``i``'s later deals follow a splitmix64 chain of
its deal seed (``info["deal_seed"]`` at every step). ``threads=k`` steps the batch on k cores (numba
``prange``; batches under 32 games stay on one thread), with results identical to one thread: every game
only touches its own record.

Bad input (a wrong shape or dtype of ``actions``, ``num_envs < 1``, an illegal action in game i) raises a
``ValueError`` naming the game index, the action and the legal ones; no game is touched and the batch stays
usable. In the learner view an opponent callable's moves are only known once the learner's are applied: if
one returns an illegal move (or raises), the whole batch is restored to what it was before that ``step``
(or ``reset``), so the error's "no game was stepped" is true and the next ``step`` is the learner's again.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector import VectorEnv as GymVectorEnv

from .core import kernels, seeds
from .core.env import CardEnv, deal_seed_of
from .opponents import OpponentPool
from .registry import raw_env_class, resolve_id

__all__ = ["make", "VectorEnv", "LearnerVectorEnv"]
LEGAL_WIDTH = 256  # legal ids kept per game besides the mask (more: read from the mask)


def _check_count(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name}={value!r}: expected an integer >= {low}")
    return int(value)


SMALL_BATCH = 32  # fewer games than this run on one thread: waking the others costs more than it saves


class _Batch:
    """The arrays of B games of one configuration and the buffers every view shares."""

    def __init__(self, env_id: str, num_envs: int, threads: int, copy: bool, options: dict):
        self.env_id = resolve_id(env_id)
        if not isinstance(copy, (bool, np.bool_)):
            raise ValueError(f"copy={copy!r}: expected True (return arrays the caller owns) or False (buffers)")
        self.copy = bool(copy)
        self.num_envs = _check_count("num_envs", num_envs, 1)
        threads = kernels.check_threads(threads)
        self.threads = threads if self.num_envs >= SMALL_BATCH else 1
        proto: CardEnv = raw_env_class(self.env_id)(**options)
        if proto.CORE is None:
            raise ValueError(f"{self.env_id} has no numba core yet; vector envs need one")
        self.proto = proto
        self.options = dict(options)
        self.core = proto.CORE
        self.params = proto.params.copy()
        self.layout = proto.layout
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
            seed = int(np.random.default_rng().integers(2**62))
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
        np.copyto(self.params, self.proto.params)

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


def _internal_kind(batch: _Batch, opponent: Any) -> int:
    """The kernels' code of an opponent played in numba: 1 random, 2 + k the game's policy k."""
    if not isinstance(opponent, str):
        raise ValueError(f"opponent {opponent!r}: expected 'random', a policy name or a callable")
    if opponent == "random":
        return 1
    names = tuple(batch.core.POLICIES)
    game = batch.env_id.rsplit("_v", 1)[0]
    name = opponent[len(game) + 1 :] if opponent.startswith(game + ".") else opponent
    if name not in names:
        known = ", ".join(["random"] + [f"{game}.{p}" for p in names])
        raise ValueError(
            f"opponent {opponent!r} is not a numba policy of {batch.env_id}; known: {known}, or a callable"
        )
    return 2 + names.index(name)


def _is_internal(batch: _Batch, opponent: Any) -> bool:
    game = batch.env_id.rsplit("_v", 1)[0]
    name = opponent[len(game) + 1 :] if opponent.startswith(game + ".") else opponent
    return opponent == "random" or name in tuple(batch.core.POLICIES)


class AgentOpponent:
    """An agent by name as a batched opponent: any name :func:`cardenvs.agent.load_agent` accepts that is not
    a numba policy (``twenty.solver``, ``twos.pimc(playouts=200)``, a ``KIND:PATH`` model), played in Python.

    One agent per game of the batch, built on the game's first decision with its own AEC env (the batch's
    options); before each decision the env is given that game's state (``states``, ``params``, the seat to
    act), so agents that read the env's state (the search agents, a numba policy's fallback) see their game.
    ``__call__(observations, games)`` returns the action of each game ``games[i]`` from its observation row.
    Decision ``k`` of game ``b`` gets the agent the rng ``default_rng([seed, b, k, ...])`` of the batch's
    ``reset`` seed: a seeded batch replays exactly (``decisions`` counts, and is restored with the batch).
    """

    def __init__(self, name: str, batch: _Batch):
        from .agent import load_agent

        self.name = name
        self.batch = batch
        try:
            load_agent(name, batch.proto)  # an unknown name fails here, not at the first decision
        except ValueError as exc:
            raise ValueError(f"opponent {name!r} for {batch.env_id}: {exc}; or pass a callable") from None
        self.players: dict[int, tuple[CardEnv, Any]] = {}
        self.decisions = np.zeros(batch.num_envs, dtype=np.int64)

    def _player(self, b: int) -> tuple[CardEnv, Any]:
        """Game ``b``'s env and agent, built on first use."""
        if b not in self.players:
            from .agent import load_agent

            batch = self.batch
            env: CardEnv = raw_env_class(batch.env_id)(**batch.options)
            env.reset(seed=0)  # every attribute of a running game; its state is replaced before each decision
            np.copyto(env.params, batch.params)
            self.players[b] = (env, load_agent(self.name, env))
        return self.players[b]

    def restart(self) -> None:
        """After the batch's reset: decisions count from 0 again, and the games' envs take the batch's params
        (reset options such as Dou Dizhu's ``landlord`` live there)."""
        self.decisions[:] = 0
        for env, _ in self.players.values():
            np.copyto(env.params, self.batch.params)

    def __call__(self, observations: dict[str, np.ndarray], games: np.ndarray) -> np.ndarray:
        batch = self.batch
        out = np.zeros(len(games), dtype=np.int64)
        for i, b in enumerate(np.asarray(games, dtype=np.int64).tolist()):
            env, agent = self._player(b)
            env.states[0] = batch.state[b]
            env._after_change()  # the seat to act and its mask, from the new state
            rng = seeds.generator(batch.seed, b, int(self.decisions[b]), stream="vector_agents")
            self.decisions[b] += 1
            row = {
                "observation": observations["observation"][i],
                "action_mask": observations["action_mask"][i].astype(np.int8),
            }
            out[i] = agent.act(row, rng)
        return out

    def __repr__(self) -> str:
        return f"AgentOpponent({self.name!r})"


class VectorEnv:
    """B games of one env id stepped together, turn-based (the player to move acts in every game).

    ``reset(seed)`` -> ``(obs, info)``; ``step(actions)`` -> ``(obs, rewards, terminated, truncated, info)``
    with ``obs = {"observation": [B, D], "action_mask": bool [B, A]}`` of the player to move,
    ``rewards`` [B, n] of every seat (``reward`` option: score changes or the win scale at the end),
    ``info["to_move"]`` [B], ``info["final_scores"]`` [B, n] (valid where ``info["_final_scores"]``),
    ``info["deal_seed"]`` and ``info["deal_number"]`` [B]. The returned arrays are the caller's (``copy=False``:
    the env's buffers, valid until the next step). ``legal_ids()`` gives padded id lists and counts.

    ``reset(options=...)`` replays chosen deals: ``{"seeds": [B seeds]}`` deals game ``i`` as the AEC env
    reset with ``seed=seeds[i]`` does, and the AEC env's reset options but ``deck`` (Dou Dizhu's
    ``landlord`` and ``bid``) apply to every game of the batch, later deals included, until the next reset.

    ``autoreset=False`` plays each game once: a game that ends stays at its end (``terminated`` or
    ``truncated`` stays True, its mask is empty, ``final_scores`` holds) and ``step`` skips it (its action is
    ignored) until ``reset``; :meth:`outcome` and :meth:`game_env` read the finished games. (The arena's
    batched engine plays its duplicate deals this way.)
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self, env_id: str, num_envs: int, threads: int = 1, copy: bool = True, autoreset: bool = True, **options: Any
    ):
        if not isinstance(autoreset, (bool, np.bool_)):
            raise ValueError(f"autoreset={autoreset!r}: expected True (deal ended games again) or False")
        self.autoreset = bool(autoreset)
        self._b = _Batch(env_id, num_envs, threads, copy, options)
        b = self._b
        self.render_mode = b.proto.render_mode
        self.env_id, self.num_envs = b.env_id, b.num_envs
        self.num_players, self.num_actions, self.layout = b.num_players, b.num_actions, b.layout
        self.possible_agents = list(b.proto.possible_agents)
        self.single_observation_space = spaces.Dict(
            {
                "observation": b.layout.space(),
                # gymnasium's stubs allow only numeric dtypes; Box takes np.bool_ at run time
                "action_mask": spaces.Box(0, 1, shape=(b.num_actions,), dtype=np.bool_),  # type: ignore[arg-type]
            }
        )
        self.single_action_space: spaces.Discrete = spaces.Discrete(b.num_actions)
        self.rewards = np.zeros((b.num_envs, b.num_players))
        self.terminated = np.zeros(b.num_envs, dtype=np.bool_)
        self.truncated = np.zeros(b.num_envs, dtype=np.bool_)
        self._reset_options: dict = {}  # the AEC reset options in params (set_reset_options)
        self._aec: CardEnv | None = None  # game_env's env
        self._aec_params = False  # game_env's env has this batch's params (since the last reset)
        self._agents: dict[str, AgentOpponent] = {}  # agent_actions' agents, by name

    @property
    def state_bytes_per_game(self) -> int:
        """Bytes of one game's state record (observations and masks not included)."""
        return self._b.state_bytes_per_game

    def reset(self, seed: int | None = None, options: dict | None = None):
        """Deal every game (seeds: see the module docstring); ``options``: see the class docstring."""
        options = dict(options or {})
        game_seeds = options.pop("seeds", None)
        if game_seeds is not None and seed is not None:
            raise ValueError(f"{self.env_id}: reset takes a seed or options['seeds'], not both")
        b = self._b
        if options or self._reset_options:
            b.set_reset_options(options)
            self._reset_options = options
        if game_seeds is None:
            b.seed_games(seed)
        else:
            b.seed_each(game_seeds)
        self.terminated[:] = False
        self.truncated[:] = False
        self._aec_params = False
        for agent in self._agents.values():  # agent_actions' agents: seeded by this reset, its params
            agent.restart()
        b.seats[:] = -1
        kernels.run("observe", b.threads, b.state, b.params, b.all, b.seats, b.obs, b.mask, b.legal, b.num_legal)
        return b.observation(), self._info(np.zeros(b.num_envs, dtype=np.bool_))

    def step(self, actions: Any):
        b = self._b
        # autoreset=False: only the games still on play move; ended ones keep their flags and empty masks
        live = b.all if self.autoreset else b.all[~(self.terminated | self.truncated)]
        actions = b.check_actions(actions, live)
        if not self.autoreset:
            self.rewards[:] = 0.0
        self.step_kernel(live, actions)
        done = self.terminated | self.truncated
        return b.observation(), b.out(self.rewards), b.out(self.terminated), b.out(self.truncated), self._info(done)

    def step_kernel(self, which: np.ndarray, actions: np.ndarray) -> None:
        """The numba step of games ``which`` (checked ``int64`` actions, one per game of the batch): moves,
        every seat's rewards, end flags, the next deal with ``autoreset``, the observation and mask of the seat
        to move, into the env's buffers. ``step`` is this plus the checks and the returned copies (the
        benchmarks time it alone)."""
        b = self._b
        kernels.run(
            "step",
            b.threads,
            b.state,
            b.params,
            which,
            actions,
            b.points,
            b.last_scores,
            self.rewards,
            self.terminated,
            self.truncated,
            b.final_scores,
            b.deal_seeds,
            b.episodes,
            self.autoreset,
            b.obs,
            b.mask,
            b.legal,
            b.seats,
            b.num_legal,
        )

    def outcome(self) -> np.ndarray:
        """Every game's result on the ``"win"`` scale ``[B, n]``, as :meth:`CardEnv.outcome` gives the AEC env's:
        winners share +1, losers share -1; zeros while a game is on or after a truncation."""
        b = self._b
        out = np.zeros((b.num_envs, b.num_players))
        for g in range(b.num_envs):
            if b.core.status(b.state, g, b.params) == kernels.OVER:
                b.core.outcome(b.state, g, b.params, out[g])
        return out

    def game_env(self, game: int) -> CardEnv:
        """An AEC env (the raw env, with this batch's options) holding a copy of game ``game``'s state, for code
        written for the AEC env: it observes, scores and renders that game (the arena reads a finished game's
        roles through it). The same env is returned on every call, given the new state; it never changes the
        batch."""
        b = self._b
        if not b.has_reset:
            raise ValueError(f"{self.env_id}: call reset() before game_env()")
        if not 0 <= game < b.num_envs:
            raise ValueError(f"game must be an index in 0..{b.num_envs - 1}, got {game}")
        if self._aec is None:
            self._aec = raw_env_class(b.env_id)(**b.options)
            self._aec.reset(seed=0)  # every attribute of a running game; its state is replaced below
        env = self._aec
        if not self._aec_params:  # a megabyte for Dou Dizhu: copied once per reset, not per game
            np.copyto(env.params, b.params)
            self._aec_params = True
        env.states[0] = b.state[game]
        env._last_scores = b.last_scores[game].copy()
        env._after_change()  # the seat to act and its mask, from the new state
        return env

    def _info(self, done: np.ndarray) -> dict:
        b = self._b
        return {
            "to_move": b.out(b.seats),
            "final_scores": b.out(b.final_scores),
            "_final_scores": done,
            "deal_seed": b.out(b.deal_seeds),
            "deal_number": b.out(b.episodes),
        }

    def render(self) -> Any:
        """Every game's table as text, a tuple of B strings, with ``render_mode="ansi"`` (printed with
        ``"human"``, returning None)."""
        return self._b.render()

    def legal_ids(self) -> tuple[np.ndarray, np.ndarray]:
        """``(legal_ids [B, K], num_legal [B])``: the legal action ids of every game, padded with -1 to the
        largest count K of this step."""
        return self._b.legal_ids()

    def policy_actions(self, policy: str, games: Any = None, streams: np.ndarray | None = None) -> np.ndarray:
        """The actions ``policy`` (``"random"`` or one of the game's numba policies, ``"doudizhu.rule"``)
        would take for the player to move in ``games`` (indices; all games by default), computed in numba
        from each game's state; nothing is stepped. Random draws come from each game's own stream, seeded
        by ``reset``, or from ``streams`` (``uint64 [len(games)]`` xorshift states, one per game, advanced in
        place: a policy that draws nothing leaves its game's entry as it was). Pass the actions to
        :meth:`step` (mixed with others) to let a heuristic play some seats."""
        b = self._b
        if not b.has_reset:
            raise ValueError(f"{self.env_id}: call reset() before policy_actions()")
        kind = _internal_kind(b, policy)
        which = b.games(games)
        out = np.empty(which.shape[0], dtype=np.int64)
        if streams is None:
            kernels.policy_range(b.state, b.params, which, kind, b.rngs, b.num_actions, out)
            return out
        if not isinstance(streams, np.ndarray) or streams.dtype != np.uint64 or streams.shape != which.shape:
            raise ValueError(f"streams must be a uint64 array of shape {which.shape}, one per game")
        given = np.zeros_like(b.rngs)
        given[which, 0] = streams
        kernels.policy_range(b.state, b.params, which, kind, given, b.num_actions, out)
        streams[:] = given[which, 0]
        return out

    def agent_actions(self, name: str, games: Any = None) -> np.ndarray:
        """The actions agent ``name`` takes for the player to move in ``games`` (indices; all by default):
        ``"random"`` and the game's numba policies as :meth:`policy_actions` (in numba), any other name
        :func:`cardenvs.agent.load_agent` accepts (``"rlcard.rule"``, a search agent, a ``KIND:PATH`` model) in
        Python, one agent per game (:class:`AgentOpponent`, kept for later calls; its decisions draw from the
        reset seed, counted from each ``reset``, so a seeded reset replays them). Nothing is stepped. Raises
        ValueError for a name no agent has."""
        b = self._b
        if not b.has_reset:
            raise ValueError(f"{self.env_id}: call reset() before agent_actions()")
        if not isinstance(name, str):
            raise ValueError(f"agent {name!r}: expected an agent name (cardenvs list shows them)")
        if _is_internal(b, name):
            return self.policy_actions(name, games)
        which = b.games(games)
        if name not in self._agents:
            self._agents[name] = AgentOpponent(name, b)
        return self._agents[name]({"observation": b.obs[which], "action_mask": b.mask[which]}, which)

    def seat_observations(self, seat: int, games: Any = None) -> np.ndarray:
        """Seat ``seat``'s observation ``[len(games), D]`` of each of ``games`` (indices; all by default),
        whoever is to move and whether or not the game is over (the batched arena reads finished games' roles
        from player_0's); the env's buffers are not touched."""
        b = self._b
        if not b.has_reset:
            raise ValueError(f"{self.env_id}: call reset() before seat_observations()")
        if not 0 <= seat < b.num_players:
            raise ValueError(f"seat must be in 0..{b.num_players - 1}, got {seat}")
        which = b.all if games is None else np.asarray(games, dtype=np.int64).reshape(-1)
        out = np.zeros((len(which), b.layout.size), dtype=b.layout.dtype)
        kernels.observe_rows(b.state, b.params, which, seat, out)
        return out

    def play_policies(
        self, games: np.ndarray, seat_kinds: np.ndarray, pending: np.ndarray, total: np.ndarray, steps: np.ndarray
    ) -> np.ndarray:
        """Let the numba policies of a table play on in ``games`` (``int64`` indices of running games), all in
        one kernel call (:func:`cardenvs.core.kernels.table_range`): ``seat_kinds[b, p]`` is 2 + k for a seat
        played by the game's policy k, else below 2. A game stops where another seat is to move, where a
        policy would draw a random number or chose an illegal action (the caller decides those), or at its
        end. ``pending``, ``total`` (``[B, n]`` floats: each seat's rewards since its last move and collected)
        and ``steps`` (``[B]``) are updated as the arena's loop updates them. Returns the games that ended
        (their ``terminated``/``truncated`` flags and final scores set, as :meth:`step` sets them); the others
        have the observation and mask of the seat to move in the env's buffers. The batched arena
        (:mod:`cardenvs.batched`) calls it; it needs ``autoreset=False``."""
        b = self._b
        if self.autoreset:
            raise ValueError(f"{self.env_id}: play_policies needs autoreset=False (each game is played once)")
        ended = np.zeros(b.num_envs, dtype=np.int64)
        kernels.run(
            "table",
            b.threads,
            b.state,
            b.params,
            games,
            seat_kinds,
            b.points,
            b.last_scores,
            pending,
            total,
            steps,
            ended,
            b.final_scores,
            b.obs,
            b.mask,
            b.legal,
            b.seats,
            b.num_legal,
        )
        self.terminated[games] = ended[games] == kernels.OVER
        self.truncated[games] = ended[games] == kernels.TRUNCATED
        return games[ended[games] != 0]

    def close(self) -> None:
        pass


Opponent = Any  # "random", a policy name of the game, or a callable
#: what the learner view's ``opponents`` takes: one opponent per other seat (or one for all), or a pool
Opponents = Sequence[Opponent] | Mapping[Opponent, float] | OpponentPool


class LearnerVectorEnv(GymVectorEnv):
    """One learner per game, the other seats played inside ``step`` (see the module docstring).

    ``learner``: a seat index, or ``"rotate"``: game ``b``'s learner sits in seat ``(r + b + episode) % n``,
    where ``r`` is drawn from ``reset``'s seed (:meth:`seat_offset`), so every seat is learnt across the games
    of a batch, across its deals (autoreset) and across seeded resets (a batch of one game included).
    ``opponents``: one entry per other seat, in seat order after the learner (one entry is used for every
    seat): ``"random"``, a numba policy of the game by name (``"heuristic"`` or
    ``"twos.heuristic"``; ``rules.POLICIES`` lists them), or a callable ``f(obs) -> actions`` taking
    ``{"observation": [k, D], "action_mask": bool [k, A]}`` of the k games where it is to move, or the name
    of any other agent :func:`cardenvs.agent.load_agent` accepts (``"twenty.solver"``): an
    :class:`AgentOpponent`, one agent per game, seeded from ``reset``'s seed. Or a pool,
    ``{opponent: weight}`` or a :class:`cardenvs.opponents.OpponentPool` (``self.pool``): each seat of each
    deal draws its opponent by weight from a generator seeded by ``reset``'s seed (``add_opponent``,
    ``set_opponent_weight`` and ``pool.add_snapshot`` change it from the next deals on, e.g. with snapshots
    of the learner).
    Observations are the learner's ``[B, D]`` vectors; ``action_masks()`` gives its masks ``[B, A]``.
    A game whose next deal ends before the learner's first turn is dealt again (its rewards are dropped).
    ``autoreset_mode``: ``"same_step"`` (the default) or ``"next_step"`` (see the module docstring).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        env_id: str,
        num_envs: int,
        learner: int | str = "rotate",
        opponents: Opponents = ("random",),
        threads: int = 1,
        copy: bool = True,
        autoreset_mode: str | AutoresetMode = AutoresetMode.SAME_STEP,
        **options: Any,
    ):
        modes = {"same_step": AutoresetMode.SAME_STEP, "next_step": AutoresetMode.NEXT_STEP}
        modes |= {m.value: m for m in modes.values()}
        mode = modes.get(autoreset_mode.value if isinstance(autoreset_mode, AutoresetMode) else autoreset_mode)
        if mode is None:
            raise ValueError(f"autoreset_mode={autoreset_mode!r}: expected 'same_step' or 'next_step'")
        self.metadata = {"autoreset_mode": mode}
        self.next_step = mode is AutoresetMode.NEXT_STEP
        self._b = _Batch(env_id, num_envs, threads, copy, options)
        b = self._b
        self.waiting = np.zeros(b.num_envs, dtype=np.bool_)  # next-step mode: games that ended last step
        self.render_mode = b.proto.render_mode
        self.env_id, self.num_envs = b.env_id, b.num_envs
        n = b.num_players
        if learner == "rotate":
            self.rotate = True
            self.fixed_seat = 0
        elif isinstance(learner, (int, np.integer)) and not isinstance(learner, bool) and 0 <= learner < n:
            self.rotate = False
            self.fixed_seat = int(learner)
        else:
            raise ValueError(f"learner={learner!r}: expected 'rotate' or a seat from 0 to {n - 1}")
        self.callables: list[Callable] = []
        self.rng = np.random.default_rng(0)
        self.pool: OpponentPool | None = None
        self.pool_kinds: list[int] = []  # the kernels' code of each pool entry, made as entries appear
        if isinstance(opponents, (Mapping, OpponentPool)):  # every seat of every episode draws one by weight
            self.pool = opponents if isinstance(opponents, OpponentPool) else OpponentPool(dict(opponents))
            self._pool_kinds()
            self.opponent_kinds = None
        else:
            listed: list[Opponent] = (
                [opponents] if isinstance(opponents, (str, bytes)) or callable(opponents) else list(opponents)
            )
            if len(listed) == 1:
                listed = listed * (n - 1)
            if len(listed) != n - 1:
                raise ValueError(
                    f"opponents: {len(listed)} given; {self.env_id} has {n - 1} other seats "
                    "(give one per seat, one for all, or a dict opponent -> weight)"
                )
            self.opponent_kinds = np.array([self._kind(o) for o in listed], dtype=np.int64)
        self.learner_seat = np.zeros(b.num_envs, dtype=np.int64)
        self.seat_kinds = np.zeros((b.num_envs, n), dtype=np.int64)
        self.single_observation_space = b.layout.space()
        self.single_action_space: spaces.Discrete = spaces.Discrete(b.num_actions)
        self.observation_space = spaces.Box(
            low=0,
            high=np.broadcast_to(b.layout.high, (b.num_envs, b.layout.size)),
            shape=(b.num_envs, b.layout.size),
            dtype=b.layout.dtype,
        )
        self.action_space = spaces.MultiDiscrete(np.full(b.num_envs, b.num_actions))
        self.rewards = np.zeros(b.num_envs)
        self.ended = np.zeros(b.num_envs, dtype=np.int64)
        self.final_obs = np.zeros_like(b.obs)
        self._final_seats = np.zeros(b.num_envs, dtype=np.int64)
        self._final_mask = np.zeros_like(b.mask)
        self._final_legal = np.zeros(b.num_envs, dtype=np.int64)
        self._final_ids = np.zeros_like(b.legal)

    def _kind(self, opponent: Opponent) -> int:
        if isinstance(opponent, str) and not _is_internal(self._b, opponent):
            opponent = AgentOpponent(opponent, self._b)
        if callable(opponent):
            self.callables.append(opponent)
            return -len(self.callables)
        return _internal_kind(self._b, opponent)

    def _agent_opponents(self) -> list[AgentOpponent]:
        return [f for f in self.callables if isinstance(f, AgentOpponent)]

    def _seat(self, which: np.ndarray) -> None:
        """Seats of the learner and its opponents in games ``which`` (for their current episode)."""
        n = self._b.num_players
        if self.rotate:
            self.learner_seat[which] = (self.seat_offset() + which + self._b.episodes[which]) % n
        else:
            self.learner_seat[which] = self.fixed_seat
        if self.pool is not None:
            drawn = self.pool.draw(self.rng, (len(which), n - 1))
            kinds = np.asarray(self._pool_kinds(), dtype=np.int64)[drawn]
        else:
            assert self.opponent_kinds is not None  # one opponent per seat when there is no pool
            kinds = np.broadcast_to(self.opponent_kinds, (len(which), n - 1))
        for j in range(n - 1):
            seat = (self.learner_seat[which] + 1 + j) % n
            self.seat_kinds[which, seat] = kinds[:, j]
        self.seat_kinds[which, self.learner_seat[which]] = 0

    def seat_offset(self) -> int:
        """The rotation's offset ``r`` for the batch's reset seed (0 to n - 1; a stream of its own)."""
        seed = self._b.seed
        if self.__dict__.get("_offset_of") != seed:
            self._offset_of = seed
            self._offset = int(seeds.states(seed, 1, stream="learner_seat")[0] % np.uint64(self._b.num_players))
        return self._offset

    def _pool_kinds(self) -> list[int]:
        """The kernels' code of every pool entry (entries added to the pool directly get theirs here)."""
        assert self.pool is not None
        while len(self.pool_kinds) < len(self.pool):
            self.pool_kinds.append(self._kind(self.pool.opponents[len(self.pool_kinds)]))
        return self.pool_kinds

    def add_opponent(self, opponent: Opponent, weight: float) -> int:
        """Add an opponent to the pool (e.g. a frozen snapshot of the learner), drawn from the next deals on;
        returns its index in the pool."""
        if self.pool is None:
            raise ValueError("add_opponent needs a pool: make the env with opponents={name or callable: weight}")
        self._pool_kinds()
        kind = self._kind(opponent)  # a bad name fails here, before the pool holds it
        index = self.pool.add(opponent, weight)
        self.pool_kinds.append(kind)
        return index

    def set_opponent_weight(self, index: int, weight: float) -> None:
        """Change the weight of pool entry ``index`` (from the next deals on)."""
        if self.pool is None:
            raise ValueError("set_opponent_weight needs a pool: make the env with opponents={opponent: weight}")
        self.pool.set_weight(index, weight)

    @property
    def scores(self) -> np.ndarray:
        """Every seat's score so far in every game ``[B, n]`` (the game's units)."""
        return self._b.last_scores

    # ---------------------------------------------------------------- the loop
    def _settle(self, which: np.ndarray, acc: np.ndarray) -> None:
        """Play the opponents of games ``which`` until the learner is to move or the game ends."""
        b = self._b
        while len(which):
            kernels.run(
                "advance",
                b.threads,
                b.state,
                b.params,
                which,
                self.seat_kinds,
                b.points,
                b.last_scores,
                self.learner_seat,
                acc,
                self.ended,
                b.final_scores,
                b.rngs,
                b.obs,
                b.mask,
                b.legal,
                b.seats,
                b.num_legal,
            )
            on = which[self.ended[which] == 0]
            external = on[self.seat_kinds[on, b.seats[on]] < 0]
            if not len(external):
                return
            kinds = self.seat_kinds[external, b.seats[external]]
            actions = np.zeros(b.num_envs, dtype=np.int64)
            for kind in np.unique(kinds):
                games = external[kinds == kind]
                f = self.callables[-kind - 1]
                rows = {"observation": b.obs[games], "action_mask": b.mask[games]}
                chosen = np.asarray(f(rows, games) if isinstance(f, AgentOpponent) else f(rows))
                if chosen.shape != (len(games),):
                    raise ValueError(f"opponent {f!r} returned shape {chosen.shape} for {len(games)} games")
                actions[games] = chosen
            b.check_actions(actions, external, who=" (from an opponent callable)")
            kernels.run(
                "apply",
                b.threads,
                b.state,
                b.params,
                external,
                actions,
                b.points,
                b.last_scores,
                self.learner_seat,
                acc,
                self.ended,
                b.final_scores,
            )
            which = external

    def _restart(self, which: np.ndarray) -> None:
        """New deals for games ``which`` until the learner is to move in each."""
        b = self._b
        scratch = np.zeros(b.num_envs)
        while len(which):
            kernels.run("reset", b.threads, b.state, b.params, which, b.deal_seeds, b.episodes, True, b.last_scores)
            self._seat(which)
            self.ended[which] = 0
            self._settle(which, scratch)
            which = which[self.ended[which] != 0]

    def _all_or_nothing(self, change: Callable[[], Any]) -> Any:
        """Run ``change``; if it raises (an opponent callable's illegal move or its own error, known only once
        the learner's moves are applied), put the whole batch back as it was and re-raise. Only callables can
        fail half-way, so the copies are made only when there are some."""
        if not self.callables:
            return change()
        b = self._b
        saved = b.snapshot(self, *self._agent_opponents())
        rng, rng_state, has_reset = self.rng, self.rng.bit_generator.state, b.has_reset
        try:
            return change()
        except BaseException:
            b.restore(saved)
            rng.bit_generator.state = rng_state
            self.rng, b.has_reset = rng, has_reset
            raise

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if options:
            raise ValueError(f"{self.env_id}: vector reset takes no options (got {sorted(options)})")
        return self._all_or_nothing(lambda: self._reset(seed))

    def _reset(self, seed: int | None):
        b = self._b
        b.seed_games(seed)
        self.rng = np.random.default_rng() if seed is None else seeds.generator(seed, stream="opponent_pool")
        for f in self._agent_opponents():
            f.restart()
        self._seat(b.all)
        self.ended[:] = 0
        self.waiting[:] = False
        self._settle(b.all, np.zeros(b.num_envs))
        again = b.all[self.ended != 0]
        if len(again):
            self._restart(again)
        return b.out(b.obs), self._info(np.zeros(b.num_envs, dtype=np.bool_))

    def step(self, actions: Any):
        live = self._b.all[~self.waiting]
        actions = self._b.check_actions(actions, live, who=" (the learner's)")
        return self._all_or_nothing(lambda: self._step(actions, live))

    def _step(self, actions: np.ndarray, live: np.ndarray):
        b = self._b
        self.rewards[:] = 0.0
        self.ended[:] = 0
        kernels.run(
            "apply",
            b.threads,
            b.state,
            b.params,
            live,
            actions,
            b.points,
            b.last_scores,
            self.learner_seat,
            self.rewards,
            self.ended,
            b.final_scores,
        )
        self._settle(live[self.ended[live] == 0], self.rewards)
        ended = live[self.ended[live] != 0]
        terminated = self.ended == kernels.OVER
        truncated = self.ended == kernels.TRUNCATED
        if self.next_step:
            self._restart(b.all[self.waiting])
            self.waiting[:] = False
        if len(ended):
            self._final_seats[ended] = self.learner_seat[ended]
            kernels.run(
                "observe",
                b.threads,
                b.state,
                b.params,
                ended,
                self._final_seats,
                self.final_obs,
                self._final_mask,
                self._final_ids,
                self._final_legal,
            )
            if self.next_step:  # the learner sees the end now; the next step deals again
                self.waiting[ended] = True
                for mine, final in ((b.obs, self.final_obs), (b.mask, self._final_mask), (b.legal, self._final_ids)):
                    mine[ended] = final[ended]
                b.num_legal[ended] = self._final_legal[ended]
                b.seats[ended] = self._final_seats[ended]
            else:
                self._restart(ended)
        return b.out(b.obs), self.rewards.copy(), terminated, truncated, self._info(terminated | truncated)

    def _info(self, done: np.ndarray) -> dict:
        b = self._b
        return {
            "learner_seat": self.learner_seat.copy(),
            "final_obs": b.out(self.final_obs),
            "_final_obs": done,
            "final_scores": b.out(b.final_scores),
            "_final_scores": done,
            "deal_seed": b.out(b.deal_seeds),
            "deal_number": b.out(b.episodes),
        }

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game, bool ``[B, A]`` (sb3-contrib's hook)."""
        return self._b.out(self._b.mask)

    def observations(self) -> np.ndarray:
        """The learner's observations ``[B, D]``, as the last ``reset`` or ``step`` returned them."""
        return self._b.out(self._b.obs)

    def table(self, game: int) -> str:
        """Game ``game``'s table as text (every hand), as the AEC env's ``render_text`` shows it."""
        return self._b.proto.render_state(self._b.state[game : game + 1])

    def action_name(self, action: int) -> str:
        """The name of ``action`` (an id of the game's action table)."""
        return self._b.proto.action_name(action)

    def render(self) -> Any:
        """Every game's table as text, a tuple of B strings, with ``render_mode="ansi"`` (printed with
        ``"human"``, returning None)."""
        return self._b.render()

    def legal_ids(self) -> tuple[np.ndarray, np.ndarray]:
        return self._b.legal_ids()

    @property
    def state_bytes_per_game(self) -> int:
        return self._b.state_bytes_per_game

    def close(self, **kwargs: Any) -> None:
        pass


def make(
    env_id: str,
    num_envs: int,
    learner: int | str | None = None,
    opponents: Opponents | None = None,
    threads: int = 1,
    copy: bool = True,
    **options: Any,
):
    """A vector env of ``num_envs`` games of ``env_id`` with the AEC env's ``options``: turn-based and
    multi-agent (:class:`VectorEnv`), or with ``learner`` a single-agent view (:class:`LearnerVectorEnv`).
    ``copy=False`` returns the env's buffers instead of arrays the caller owns (see the module docstring)."""
    if learner is None:
        if opponents is not None:
            raise ValueError("opponents are played only in the learner view: pass learner='rotate' or a seat")
        return VectorEnv(env_id, num_envs, threads=threads, copy=copy, **options)
    return LearnerVectorEnv(
        env_id, num_envs, learner=learner, opponents=opponents or ("random",), threads=threads, copy=copy, **options
    )
