"""The turn-based vector env: B games stepped together, the player to move acting in every game."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from ..core import kernels
from ..core.env import CardEnv
from ..registry import raw_env_class
from .batch import Batch
from .opponents import AgentOpponent, is_policy, policy_kind


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
        self._b = Batch(env_id, num_envs, threads, copy, options)
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

    @property
    def state(self) -> np.ndarray:
        """Every game's state record (``[B]`` of the game's ``STATE`` dtype), the env's own array, as a
        :class:`cardenvs.agent.BatchGames`' ``env`` gives it: for features computed from the state (read it,
        never write it)."""
        return self._b.state

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
        params = None if self._aec_params else b.params  # a megabyte for Dou Dizhu: copied once per reset
        env.set_state(b.state[game], params, b.last_scores[game])
        self._aec_params = True
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
        kind = policy_kind(b, policy)
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
        Python (:class:`AgentOpponent`, kept for later calls: one ``act_batch`` call for the games where the
        agent has one, else one agent per game; its decisions draw from the reset seed, counted from each
        ``reset``, so a seeded reset replays them). Nothing is stepped. Raises
        ValueError for a name no agent has."""
        b = self._b
        if not b.has_reset:
            raise ValueError(f"{self.env_id}: call reset() before agent_actions()")
        if not isinstance(name, str):
            raise ValueError(f"agent {name!r}: expected an agent name (cardenvs list shows them)")
        if is_policy(b, name):
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
        (:mod:`cardenvs.arena.batched`) calls it; it needs ``autoreset=False``."""
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
