"""The learner view: one learner per game, its opponents played inside ``step`` (a Gymnasium ``VectorEnv``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector import VectorEnv as GymVectorEnv

from ..core import kernels, seeds
from ..opponents import OpponentPool
from .batch import Batch
from .opponents import AgentOpponent, Opponent, Opponents, is_policy, policy_kind


class LearnerVectorEnv(GymVectorEnv):
    """One learner per game, the other seats played inside ``step`` (see the module docstring).

    ``learner``: a seat index, or ``"rotate"``: game ``b``'s learner sits in seat ``(r + b + episode) % n``,
    where ``r`` is drawn from ``reset``'s seed (:meth:`seat_offset`), so every seat is learnt across the games
    of a batch, across its deals (autoreset) and across seeded resets (a batch of one game included).
    ``opponents``: one entry per other seat, in seat order after the learner (one entry is used for every
    seat): ``"random"``, a numba policy of the game by name (``"heuristic"`` or
    ``"twos.heuristic"``; the env class's ``policy_names()`` lists them), or a callable ``f(obs) -> actions`` taking
    ``{"observation": [k, D], "action_mask": bool [k, A]}`` of the k games where it is to move, or the name
    of any other agent :func:`cardenvs.agent.load_agent` accepts (``"twenty.solver"``, ``"dmc:PATH"``), or an
    agent object with ``act_batch`` (a frozen model): an :class:`AgentOpponent`, seeded from ``reset``'s seed,
    whose agent acts on the batch of games where it is to move with one ``act_batch`` call where it has one
    (the models), else one agent per game. Or a pool,
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
        self._b = Batch(env_id, num_envs, threads, copy, options)
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
        from ..agent import acts_on_batches

        if (isinstance(opponent, str) and not is_policy(self._b, opponent)) or acts_on_batches(opponent):
            opponent = AgentOpponent(opponent, self._b)
        if callable(opponent):
            self.callables.append(opponent)
            return -len(self.callables)
        return policy_kind(self._b, opponent)

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
