"""The AEC base class every cardenvs game uses.

:class:`CardEnv` owns everything that is the same in every game: agent names and selection, options and
their validation, rewards (``"win"`` or ``"points"``) and their accumulation, terminations and
truncations, the ``{"observation", "action_mask"}`` dict with an ``int8`` mask, ``infos[agent]["score"]``,
stacked decks, the dealing generator, illegal-action handling and rendering. A game subclasses it and
implements a handful of small hooks over its own state (see "Hooks" below); its rules live in pure
functions in ``games/<game>/rules.py``.

Illegal actions (RULES.md): with ``illegal_action="raise"`` (the raw env) an illegal action is a
``ValueError`` naming the action and the legal ones. With ``illegal_action="terminate"`` (what ``env()``
builds) the game ends with reward -1 for the offender and 0 for everyone else, with a warning, as
PettingZoo's ``TerminateIllegalWrapper`` does. In both modes an action outside the action space is a
``ValueError`` (PettingZoo's ``AssertOutOfBoundsWrapper``) and stepping, observing or rendering before
``reset`` is an error that says to call ``reset`` (``OrderEnforcingWrapper``) -- in one layer, because the
stacked wrappers' ``__getattr__`` chains cost more per step than a whole game step. ``last()`` and
``agent_iter()`` before ``reset``, and ``step()`` or ``last()`` once every agent is done, say so too.

Reset options: ``reset(seed, options)`` takes ``seed`` None or a non-negative integer (numpy integers too)
and ``options`` None or a dict whose keys are the game's ``RESET_OPTIONS`` (``deck`` in every game) or
``deal_seed``; any other key is a ``ValueError`` naming the accepted ones, as for constructor options. The
one exception is PettingZoo's ``api_test``, which resets with exactly ``options={"options": 1}`` to check
the signature: that dict is accepted and means no options (:data:`API_TEST_RESET_OPTIONS`).

Dealing: ``reset(seed)`` seeds ``np_random`` and draws a *deal seed* from it (:func:`deal_seed_of`); deal
``k`` of the episode is either ``options["deck"]`` (one list, or the ``k``-th of a list of lists) or the
dealing generator's shuffle :func:`cardenvs.core.rng.deal_deck` of ``(deal_seed, k)``, so deal ``k`` is the
same whatever the agents do. The vector envs deal with the same function, so game ``i`` of a vector env
reset with seed ``s`` starts with the deal of this env reset with seed ``s + i``.

A deck is a list of card codes (``"AS"``, ``"10H"``, ``"BJ"``), top card first, or one string of codes
separated by spaces or commas; ``options["deck"]`` is one deck or a list of decks, one per deal. It may
stack fewer decks than the episode deals (the dealing generator deals the rest) but not more: an episode of
Twos, War or Dou Dizhu deals one deck, a Twenty match one per round (one per pair of rounds with
``swap_deals``), and a Two Way Street match deals until someone reaches the target, so it takes any number
of decks up to the core's stacked limit (:meth:`CardEnv.decks_per_episode`).

Games with a numba core (``CORE``, see :mod:`cardenvs.core.kernels`) get every hook from it: the env holds
a batch of one game (``self.states``, with ``self.state`` a record view of game 0 for people and tests) and
``self.params``; the game's env keeps its options, docstring, render and move parsing.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from . import kernels
from .cards import check_permutation, format_cards, parse_cards
from .observation import Layout
from .rng import deal_deck

_NOT_SET = object()
#: the constructor option that names a variant (``CardEnv.VARIANTS``) instead of giving its options one by one
VARIANT_OPTION = "variant"

#: what PettingZoo's ``api_test`` passes to ``reset`` to check that it takes ``options``; read as no options
API_TEST_RESET_OPTIONS = {"options": 1}


@dataclass(frozen=True)
class Option:
    """A constructor option of an env: its default and what it accepts.

    Either ``choices`` (a tuple of allowed values) or an inclusive integer range ``low..high`` (``high``
    None = unbounded). ``default=None`` with ``dynamic_default`` text means the env resolves it from other
    options (e.g. Two Way Street's ``decks``).
    """

    name: str
    default: Any
    doc: str = ""
    choices: tuple | None = None
    low: int | None = None
    high: int | None = None
    dynamic_default: str = ""

    def allowed(self) -> str:
        if self.choices is not None:
            return " or ".join(repr(c) for c in self.choices)
        if self.high is None:
            return f"an integer >= {self.low}"
        return f"an integer from {self.low} to {self.high}"

    def check(self, value: Any, env_name: str) -> Any:
        if value is None and self.default is None:
            return None
        if self.choices is not None:
            # numpy scalars count as the Python values they hold (np.int64(1) is 1, np.True_ is True) ...
            plain = value.item() if isinstance(value, (np.integer, np.bool_, np.str_)) else value
            # ... but bools must be real bools: 0/1 or "yes" would hide a typo in a config
            ok = any(plain == c and type(plain) is type(c) for c in self.choices)
            if not ok:
                raise ValueError(
                    f"{env_name}: option {self.name}={value!r} is not allowed; it accepts {self.allowed()}"
                )
            return plain
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"{env_name}: option {self.name}={value!r} is not allowed; it accepts {self.allowed()}")
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            raise ValueError(f"{env_name}: option {self.name}={value!r} is out of range; it accepts {self.allowed()}")
        return int(value)

    def describe_default(self) -> str:
        return self.dynamic_default or repr(self.default)


def check_seed(seed: Any, what: str = "seed") -> int | None:
    """``seed`` as a Python int (numpy integers accepted) or None; anything else is a ``ValueError``."""
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"{what}={seed!r}; expected None or a non-negative integer")
    return int(seed)


def deal_seed_of(seed: int | None) -> int:
    """The deal seed an env reset with ``seed`` deals from (what ``reset(seed)`` draws first)."""
    return int(seeding.np_random(check_seed(seed))[0].integers(2**63 - 1))


REWARD_OPTION = Option(
    "reward",
    "win",
    "'win': zero-sum +1/-1 shared by winners/losers at the end; 'points': score changes as they happen",
    choices=("win", "points"),
)


class CardEnv(AECEnv):
    """Base class of every cardenvs AEC environment.

    Hooks a game implements (``p`` is a seat index ``0..n-1``):

    * ``_configure()``: read ``self.config``; set ``self.num_players``, ``self.deck`` (card ids of one
      deal's deck), ``self.layout`` (:class:`Layout`), ``self.num_actions``; raise ``ValueError`` for
      impossible combinations of options.
    * ``_new_game()``: start a game; take decks with ``self._deal()``.
    * ``_to_move() -> int``: the seat to act.
    * ``_legal_mask() -> int8[num_actions]``: the legal actions of the seat to act.
    * ``_apply(action)``: play a legal action.
    * ``_is_over() -> bool``; ``_is_truncated() -> bool`` (default False).
    * ``_scores() -> float[n]``: each seat's score in the game's own units.
    * ``_observe(p) -> array``: seat ``p``'s observation vector (``self.layout``).
    * ``_render() -> str``; ``_card_locations() -> int array`` (every card of the game, wherever it is,
      for the conservation invariant); optionally ``_win_rewards()``, ``action_name(a)``.

    A game with a numba core sets ``CORE`` (its rules module: ``STATE``, ``init``, ``to_move``,
    ``legal_ids``, ``apply``, ``status``, ``scores``, ``outcome``, ``observe``, ``card_locations``) and
    ``self.params`` in ``_configure``; every hook but ``_configure`` and ``_render`` then comes from the
    core. ``_set_reset_params(params)`` writes per-episode reset options into ``params``.
    """

    metadata: dict[str, Any] = {"name": "card_env", "render_modes": ["ansi", "human"], "is_parallelizable": False}
    OPTIONS: tuple[Option, ...] = ()
    DEFAULT_REWARD = "win"
    RESET_OPTIONS: tuple[str, ...] = ("deck",)
    #: named variants (option dicts) tested with api_test and seed_test, listed by ``cardenvs list`` and built
    #: by name with the option ``variant=NAME`` (:meth:`resolve_options`)
    VARIANTS: dict[str, dict] = {"default": {}}
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
    _legal_n = -1  # how many legal ids the numba core listed in _ids with the mask (-1: unknown)

    # ------------------------------------------------------------------ construction
    def __init__(self, render_mode: str | None = None, illegal_action: str = "raise", **options: Any):
        super().__init__()
        name = self.metadata["name"]
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"{name}: render_mode={render_mode!r} is not supported; use None, 'ansi' or 'human'")
        if illegal_action not in ("raise", "terminate"):
            raise ValueError(f"{name}: illegal_action={illegal_action!r}; use 'raise' or 'terminate'")
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        #: whose view ``render`` shows: None = every hand (debugging), a seat = that seat's view
        self.viewer: int | None = None
        #: with a viewer set, show every hand anyway (``cardenvs play --reveal``)
        self.reveal = False
        self.config = self.resolve_options(options)
        self._configure()
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self._observation_space = self.layout.space()
        self._observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": self._observation_space,
                    "action_mask": spaces.Box(0, 1, shape=(self.num_actions,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._action_spaces: dict[str, spaces.Space] = {
            a: spaces.Discrete(self.num_actions) for a in self.possible_agents
        }
        self._has_reset = False
        self._deal_seed = 0
        self._stacked: list[np.ndarray] = []
        self._deal_count = 0
        self.np_random, _ = seeding.np_random(None)

    @classmethod
    def all_options(cls) -> tuple[Option, ...]:
        reward = Option(REWARD_OPTION.name, cls.DEFAULT_REWARD, REWARD_OPTION.doc, choices=REWARD_OPTION.choices)
        return cls.OPTIONS + (reward,)

    @classmethod
    def resolve_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        """Defaults filled in, unknown names and bad values rejected with a ``ValueError``.

        ``variant=NAME`` stands for the options of the named variant (:attr:`VARIANTS`); options given beside
        it override the variant's (``variant="short", max_turns=50``). An unknown name lists the known ones."""
        if VARIANT_OPTION in options:
            options = dict(options)
            name = options.pop(VARIANT_OPTION)
            if not isinstance(name, str) or name not in cls.VARIANTS:
                raise ValueError(
                    f"{cls.metadata['name']}: unknown variant {name!r}; known variants: {', '.join(cls.VARIANTS)}"
                )
            options = {**cls.VARIANTS[name], **options}
        spec = {o.name: o for o in cls.all_options()}
        unknown = [k for k in options if k not in spec]
        if unknown:
            accepted = ", ".join(f"{o.name} ({o.allowed()}, default {o.describe_default()})" for o in spec.values())
            accepted += f", {VARIANT_OPTION} (one of {', '.join(cls.VARIANTS)})"
            raise ValueError(f"{cls.metadata['name']}: unknown option {unknown[0]!r}; accepted options: {accepted}")
        config = {}
        for o in spec.values():
            config[o.name] = o.check(options[o.name], cls.metadata["name"]) if o.name in options else o.default
        return config

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[agent]

    # ------------------------------------------------------------------ dealing
    def decks_per_episode(self) -> int | None:
        """How many decks an episode deals, so how many ``options["deck"]`` may stack; None: as many as the
        episode needs (a match to a target score), up to the core's stacked limit.

        The default reads the options: a ``rounds`` option deals one deck per round (per pair of rounds with
        ``swap_deals``, which deals each deck twice), a ``target`` option deals until someone reaches it
        (None), anything else deals one deck. A game that deals otherwise overrides this."""
        c = self.config
        if "rounds" in c:
            return c["rounds"] // 2 if c.get("swap_deals") else c["rounds"]
        if "target" in c:
            return None
        return 1

    def _stacked_limit(self) -> int | None:
        """How many decks the numba core's params can hold (None: no core, no limit)."""
        params = getattr(self, "params", None)
        if params is None or "stacked" not in (params.dtype.names or ()):
            return None
        return int(params["stacked"].shape[1])

    def _parse_decks(self, deck_option: Any) -> list[np.ndarray]:
        name = self.metadata["name"]
        forms = (
            "a list of card codes ('AS', '10H', 'BJ'), top card first, or one string of codes separated "
            "by spaces or commas; or a list of such decks, one per deal"
        )
        if isinstance(deck_option, np.ndarray):
            deck_option = deck_option.tolist()
        if isinstance(deck_option, str):
            raw: list[Any] = [deck_option]
        elif isinstance(deck_option, (list, tuple)):
            if len(deck_option) == 0:
                raise ValueError(f"{name}: options['deck'] is empty; it takes {forms}")
            items = [d.tolist() if isinstance(d, np.ndarray) else d for d in deck_option]
            if all(isinstance(d, str) for d in items):
                whole = [_is_deck_string(d) for d in items]
                if all(whole):
                    raw = items  # one string per deck
                elif not any(whole):
                    raw = [items]  # one deck as a list of codes
                else:
                    k = whole.index(True)
                    raise ValueError(
                        f"{name}: options['deck'] mixes card codes and whole decks (item {k} is "
                        f"{items[k][:40]!r}...); it takes {forms}"
                    )
            else:
                for k, d in enumerate(items):
                    if not isinstance(d, (str, list, tuple)):
                        raise ValueError(
                            f"{name}: options['deck'][{k}] is {d!r} ({type(d).__name__}); it takes {forms}"
                        )
                if any(isinstance(d, str) and not _is_deck_string(d) for d in items):
                    raise ValueError(f"{name}: options['deck'] mixes card codes and lists of them; it takes {forms}")
                raw = items
        else:
            raise ValueError(
                f"{name}: options['deck'] is {deck_option!r} ({type(deck_option).__name__}); it takes {forms}"
            )
        out = []
        for k, deck in enumerate(raw):
            what = "options['deck']" if len(raw) == 1 else f"options['deck'][{k}]"
            if not isinstance(deck, str):
                for i, code in enumerate(deck):
                    if not isinstance(code, str):
                        raise ValueError(
                            f"{name}: {what}[{i}] is {code!r} ({type(code).__name__}); card codes "
                            "are strings such as 'AS' or '10H'"
                        )
            try:
                cards = parse_cards(deck)
            except ValueError as exc:
                raise ValueError(f"{name}: {what}: {exc}") from None
            check_permutation(cards, self.deck, what)
            out.append(np.asarray(cards, dtype=np.int64))
        self._check_deck_count(len(out))
        return out

    def _check_deck_count(self, stacked: int) -> None:
        name = self.metadata["name"]
        dealt = self.decks_per_episode()
        limit = self._stacked_limit()
        if dealt is not None and stacked > dealt:
            which = ", ".join(f"{k}={self.config[k]!r}" for k in ("rounds", "swap_deals") if k in self.config)
            raise ValueError(
                f"{name}: options['deck'] holds {stacked} decks but an episode"
                f"{f' with {which}' if which else ''} deals {dealt} deck{'s' if dealt != 1 else ''}; "
                f"stack at most {dealt}"
            )
        if limit is not None and stacked > limit:
            raise ValueError(
                f"{name}: options['deck'] holds {stacked} decks; an episode deals as many as it "
                f"needs, but at most {limit} can be stacked"
            )

    def _deal(self) -> np.ndarray:
        """The next deal's deck, top card first: stacked if given, else shuffled by the dealing generator."""
        k = self._deal_count
        self._deal_count += 1
        if k < len(self._stacked):
            return self._stacked[k].copy()
        out = np.empty_like(self.deck)
        deal_deck(self.deck, np.uint64(self._deal_seed), k, out)
        return out

    def dealing_rng(self, stream: int) -> np.random.Generator:
        """A generator from the dealing seed (never used by play): deal ``k`` uses stream ``k``."""
        return np.random.default_rng([self._deal_seed, stream])

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start an episode. ``seed``: None or a non-negative integer; ``options``: None or a dict of the
        game's ``RESET_OPTIONS`` and ``deal_seed`` (see the module docstring)."""
        name = self.metadata["name"]
        seed = check_seed(seed, f"{name}: reset seed")
        if options is None:
            options = {}
        elif not isinstance(options, Mapping):
            raise ValueError(
                f"{name}: reset options must be a dict such as {{'deck': [...]}}; got "
                f"{type(options).__name__} {options!r}"
            )
        options = dict(options)
        if options == API_TEST_RESET_OPTIONS:  # PettingZoo's api_test checking the signature
            options = {}
        accepted = (*self.RESET_OPTIONS, "deal_seed")
        unknown = [k for k in options if k not in accepted]
        if unknown:
            raise ValueError(
                f"{name}: unknown reset option {unknown[0]!r}; this env reads " + ", ".join(repr(k) for k in accepted)
            )
        stacked = self._parse_decks(options["deck"]) if options.get("deck") is not None else []
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self._stacked = stacked
        self.reset_options = options
        self._deal_seed = int(self.np_random.integers(2**63 - 1))  # = deal_seed_of(seed) after a seeded reset
        if options.get("deal_seed") is not None:  # replay a vector env's game: its info["deal_seed"][i]
            value = options["deal_seed"]
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < 2**64:
                raise ValueError(
                    f"{self.metadata['name']}: reset option deal_seed={value!r}; expected an "
                    "integer from 0 to 2**64 - 1"
                )
            self._deal_seed = int(value)
        self._deal_count = 0
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._new_game()
        self._has_reset = True
        self._last_scores = np.array(self._scores(), dtype=np.float64)
        self._points = self.config["reward"] == "points"
        self._step_rewards = np.zeros(self.num_players)
        self.infos = {a: {"score": float(self._last_scores[i])} for i, a in enumerate(self.agents)}
        self._after_change()

    def _after_change(self) -> None:
        """After the state changed outside ``step`` (a reset, a state given by a vector env or a test): the
        seat to act and its mask are read again."""
        self.agent_selection = self.possible_agents[self._to_move()]
        self._legal_n = -1  # unknown, unless the numba core's mask gives the ids too
        self._mask = np.asarray(self._legal_mask(), dtype=np.int8)

    def _check_running(self, what: str) -> None:
        name = self.metadata["name"]
        if not self._has_reset:
            raise RuntimeError(f"{name}: call reset() before {what}")
        if not self.agents:
            raise RuntimeError(
                f"{name}: the game is over and every agent has been stepped out; call reset() "
                f"to start another game before {what}"
            )

    def last(self, observe: bool = True):
        self._check_running("last()")
        return super().last(observe)

    def agent_iter(self, max_iter: int = 2**63):
        if not self._has_reset:
            raise RuntimeError(f"{self.metadata['name']}: call reset() before agent_iter()")
        return super().agent_iter(max_iter)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if not self._has_reset:
            raise RuntimeError(f"{self.metadata['name']}: call reset() before observe()")
        p = self.agent_name_mapping[agent]
        live = agent == self.agent_selection and not (self.terminations.get(agent) or self.truncations.get(agent))
        mask = self._mask.copy() if live else np.zeros(self.num_actions, dtype=np.int8)
        return {"observation": self._observe(p), "action_mask": mask}

    def legal_actions(self) -> np.ndarray:
        """Ids of the legal actions of the agent to move, in increasing order: the ids the numba core listed
        when it wrote the mask (no scan of the mask), else :func:`legal_actions` of the mask."""
        if self._legal_n >= 0:  # the core's legal_ids lists them ascending
            return self._ids[: self._legal_n].copy()
        return np.flatnonzero(self._mask.view(np.bool_))

    def step(self, action: int | None) -> None:
        self._check_running("step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if type(action) is not int or not 0 <= action < self.num_actions:  # the common case in one test
            if (
                action is None
                or isinstance(action, (bool, np.bool_))
                or not (isinstance(action, (int, np.integer)) and 0 <= action < self.num_actions)
            ):
                raise ValueError(
                    f"{self.metadata['name']}: action {action!r} for {agent} is outside the action "
                    f"space Discrete({self.num_actions})"
                )
            action = int(action)
        player = self.agent_name_mapping[agent]
        if not self._mask[action]:
            self._illegal(agent, action)
            return
        self._cumulative_rewards[agent] = 0.0
        if self.CORE is not None:  # one compiled call: move, rewards, next seat and its mask
            args: tuple = (self.states, self.params, action, self._points, self._last_scores, self._step_rewards)
            args += (self._mask, self._ids)
            if self._kernels_for is not self.states:  # the compiled functions for this state array's type
                self._resolve_kernels()
            if self._step_kernel is None:  # the env's own buffers keep their types: no dispatch per call
                self._step_kernel = kernels.compiled(kernels.aec_step, args)
            status, seat, self._legal_n = self._step_kernel(*args)
            over, truncated = status == kernels.OVER, status == kernels.TRUNCATED
            step_rewards, scores = self._step_rewards, self._last_scores
        else:
            self._apply(action)
            scores = np.asarray(self._scores(), dtype=np.float64)
            over = self._is_over()
            truncated = not over and self._is_truncated()
            if self._points:
                step_rewards = scores - self._last_scores
            elif over:
                step_rewards = np.asarray(self._win_rewards(scores), dtype=np.float64)
            else:
                step_rewards = np.zeros(self.num_players)
            self._last_scores = scores
        mapping = self.agent_name_mapping
        rewards, score_list = step_rewards.tolist(), scores.tolist()
        cumulative = self._cumulative_rewards
        for a in self.agents:  # PettingZoo's _accumulate_rewards folded in
            r = rewards[mapping[a]]
            self.rewards[a] = r
            cumulative[a] += r
            self.infos[a]["score"] = score_list[mapping[a]]
        if over or truncated:
            flags = self.terminations if over else self.truncations
            for a in self.agents:
                flags[a] = True
            self._mask = np.zeros(self.num_actions, dtype=np.int8)
            self._legal_n = 0
            self.agent_selection = self.possible_agents[(player + 1) % self.num_players]
        elif self.CORE is not None:
            self.agent_selection = self.possible_agents[seat]
        else:
            self._after_change()
        if self.render_mode == "human":
            self.render()

    def _illegal(self, agent: str, action: int) -> None:
        legal = ", ".join(f"{a} ({self.action_name(a)})" for a in np.flatnonzero(self._mask)[:40])
        more = " ..." if self._mask.sum() > 40 else ""
        message = (
            f"{self.metadata['name']}: illegal action {action} ({self.action_name(action)}) "
            f"for {agent}; legal actions: {legal}{more}"
        )
        if self.illegal_action == "raise":
            raise ValueError(message)
        warnings.warn(message + "; the game ends with -1 for the offender", stacklevel=3)
        self._cumulative_rewards[agent] = 0.0
        for a in self.agents:
            self.rewards[a] = -1.0 if a == agent else 0.0
            self.terminations[a] = True
            self.infos[a]["illegal_action"] = a == agent
        self._mask = np.zeros(self.num_actions, dtype=np.int8)
        self._legal_n = 0
        self._accumulate_rewards()

    def render(self) -> str | None:
        if not self._has_reset:
            raise RuntimeError(f"{self.metadata['name']}: call reset() before render()")
        if self.render_mode is None:
            warnings.warn(
                f"{self.metadata['name']}: render() called without a render_mode; pass render_mode='ansi' or 'human'",
                stacklevel=2,
            )
            return None
        text = self._render()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def render_text(self) -> str:
        """The table as text (what ``render_mode="ansi"`` renders), whatever ``render_mode`` is: every hand,
        or the view of ``viewer`` (every hand again with ``reveal``)."""
        if not self._has_reset:
            raise RuntimeError(f"{self.metadata['name']}: call reset() before render_text()")
        return self._render()

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

    def close(self) -> None:
        pass

    def __str__(self) -> str:
        return self.metadata["name"]

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

    # ------------------------------------------------------------------ hooks from a numba core
    def _set_reset_params(self, params: np.ndarray) -> None:
        """Write the episode's reset options (``self.reset_options``) into ``params`` (games override)."""

    def _core_new_game(self) -> None:
        core, params = self.CORE, self.params
        names = params.dtype.names
        if "stacked" in names:
            for k, deck in enumerate(self._stacked):  # counted against the limit in _parse_decks
                params["stacked"][0, k] = deck
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
            "_new_game": CardEnv._core_new_game,
            "_to_move": lambda self: int(core.to_move(self.states, 0, self.params)),
            "_legal_mask": CardEnv._core_legal_mask,
            "_apply": lambda self, action: core.apply(self.states, 0, self.params, action),
            "_is_over": lambda self: core.status(self.states, 0, self.params) == 1,
            "_is_truncated": lambda self: core.status(self.states, 0, self.params) == 2,
            "_scores": CardEnv._core_scores,
            "_win_rewards": CardEnv._core_win_rewards,
            "_observe": CardEnv._core_observe,
            "_card_locations": lambda self: core.card_locations(self.states[0]),
        }
        for name, hook in defaults.items():
            if name not in cls.__dict__:
                setattr(cls, name, hook)

    # ------------------------------------------------------------------ defaults for hooks
    def _is_truncated(self) -> bool:
        return False

    def _win_rewards(self, scores: np.ndarray) -> np.ndarray:
        """Zero-sum result: the best score wins; winners share +1, losers share -1; all equal is a draw."""
        best = scores.max()
        winners = scores == best
        out = np.zeros(len(scores))
        if winners.all():
            return out
        out[winners] = 1.0 / winners.sum()
        out[~winners] = -1.0 / (~winners).sum()
        return out

    def scores(self) -> np.ndarray:
        """Each seat's score in the game's own units (what ``infos[agent]["score"]`` shows), also after the
        agents have been stepped out of a finished game."""
        if not self._has_reset:
            raise RuntimeError(f"{self.metadata['name']}: call reset() before scores()")
        return np.asarray(self._scores(), dtype=np.float64)

    def outcome(self) -> np.ndarray:
        """The game's result per seat on the ``"win"`` scale (whatever ``reward`` is): winners share +1,
        losers share -1; zeros while running or after a truncation. The arena counts wins from this."""
        if not self._has_reset or not self._is_over():
            return np.zeros(self.num_players)
        return np.asarray(self._win_rewards(np.asarray(self._scores(), dtype=np.float64)), dtype=np.float64)

    def duplicate_reset_options(self, phase: bool = False) -> list[dict]:
        """Reset options the arena crosses with seat permutations when replaying a deal (e.g. Dou Dizhu:
        player_0 as landlord, so every agent is landlord of every deal). Default: one replay per seating.

        ``phase=True`` asks for replays in which the agents choose their roles in the game's phase before play
        (its spec's :class:`~cardenvs.core.spec.RolePhase`; ``cardenvs arena --role-phase``); a game without
        one raises ``ValueError``."""
        if phase:
            raise ValueError(
                f"{self.metadata['name']} has no role phase: the arena's --role-phase is for games whose roles "
                "are chosen in a phase before play"
            )
        return [{}]

    def parse_action(self, text: str) -> int:
        """What a person typed -> action id: an action's name (case-insensitive) or its number."""
        text = text.strip()
        legal = np.flatnonzero(self._mask)
        for a in legal:
            if self.action_name(int(a)).lower() == text.lower():
                return int(a)
        if text.isdigit() and int(text) in legal:
            return int(text)
        raise ValueError(
            f"{text!r} is not a legal move here; legal: " + ", ".join(self.action_name(int(a)) for a in legal[:30])
        )

    def action_name(self, action: int) -> str:
        """A short human-readable name of an action id (games override)."""
        return str(action)

    def card_locations(self) -> np.ndarray:
        """Every card of the game wherever it is (hands, stock, table, piles); for invariant tests."""
        return np.asarray(self._card_locations(), dtype=np.int64)

    @property
    def full_deck(self) -> np.ndarray:
        return self.deck

    # ------------------------------------------------------------------ to implement
    def _configure(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _new_game(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _to_move(self) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def _legal_mask(self) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _apply(self, action: int) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _is_over(self) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def _scores(self) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _observe(self, player: int) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _render(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def _card_locations(self) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError


def legal_actions(observation: dict[str, np.ndarray]) -> np.ndarray:
    """The legal action ids of an observation ``{"observation", "action_mask"}`` (``cardenvs.legal_actions``):
    ``np.flatnonzero`` on a bool view of the int8 mask, 4-15x faster than ``mask.nonzero()`` on the int8
    array itself (Dou Dizhu's mask has 28,242 entries)."""
    return np.flatnonzero(observation["action_mask"].view(np.bool_))


@dataclass
class Episode:
    """What :func:`play_episode` saw of a game played to its end; lists are per seat (``possible_agents``
    order)."""

    #: actions the agents took (the dead steps that step finished agents out are not counted)
    steps: int
    #: each seat's rewards summed over the game (``reward`` from ``last()`` on every turn, the last included)
    rewards: list[float]
    #: ``infos[agent]["score"]`` when each seat's game ended (0 for an env without scores)
    scores: list[float]
    #: the game ended by truncation (a turn limit) rather than by its rules
    truncated: bool = False
    #: the seat whose illegal action ended the game (an ``env()`` built with ``illegal_action="terminate"``)
    illegal: int | None = None


def play_episode(
    env: AECEnv,
    choose: Callable[[int, dict[str, np.ndarray]], int],
    *,
    seed: int | None = None,
    options: dict | None = None,
) -> Episode:
    """Reset ``env`` and play the game to its end with :func:`play_on` (the arena, terminal play, studies,
    benchmarks and tests play whole games this way)."""
    env.reset(seed=seed, options=options)
    return play_on(env, choose)


def play_on(
    env: AECEnv,
    choose: Callable[[int, dict[str, np.ndarray]], int],
    *,
    until: Callable[[int], bool] | None = None,
    moves: int | None = None,
) -> Episode:
    """The one AEC play loop of the project: from where ``env`` is, ``choose(seat, observation)`` gives the
    action of the seat to move (``observation`` is its ``{"observation", "action_mask"}`` dict), and finished
    agents are stepped out with ``None``, as the AEC loop requires. It stops at the game's end, before the
    seat to move when ``until(seat)`` is true (the web app's agents stop at the person's turn), or after
    ``moves`` actions (a replay stepped to a position). Works with any PettingZoo AEC env, seats being
    ``possible_agents`` indices; the :class:`Episode` counts what this call saw.
    """
    seats = {agent: i for i, agent in enumerate(env.possible_agents)}
    n = len(seats)
    rewards, scores = [0.0] * n, [0.0] * n
    steps, truncated, illegal = 0, False, None
    for agent in env.agent_iter():
        observation, reward, terminated, trunc, info = env.last()
        seat = seats[agent]
        rewards[seat] += reward
        if terminated or trunc:
            scores[seat] = float(info.get("score", 0.0))
            truncated = truncated or trunc
            if info.get("illegal_action"):
                illegal = seat
            env.step(None)
            continue
        if (moves is not None and steps >= moves) or (until is not None and until(seat)):
            break
        env.step(choose(seat, observation))
        steps += 1
    return Episode(steps, rewards, scores, truncated, illegal)


def make_env_functions(raw_class: type[CardEnv]) -> tuple[Callable[..., CardEnv], Callable[..., CardEnv]]:
    """``(env, raw_env)`` factories for a game module: ``env()`` terminates on illegal moves."""

    def env(**options: Any) -> CardEnv:
        options.setdefault("illegal_action", "terminate")
        return raw_class(**options)

    env.__doc__ = (
        f"The {raw_class.metadata['name']} env as PettingZoo's classic wrappers would give it "
        "(illegal move ends the game with -1 for the offender). Options: see ``raw_env``."
    )
    return env, raw_class


def options_markdown(raw_class: type[CardEnv]) -> str:
    """The options of an env as a Markdown table (for its docstring), generated from ``OPTIONS``."""
    rows = ["| option | default | accepts | meaning |", "|---|---|---|---|"]
    for o in raw_class.all_options():
        rows.append(f"| `{o.name}` | {o.describe_default()} | {o.allowed()} | {o.doc} |")
    return "\n".join(rows)


def fill_docstring(doc: str, raw_class: type[CardEnv], layout: Layout) -> str:
    """Replace ``{options}`` and ``{observation}`` in an env module docstring with generated tables."""
    return doc.replace("{options}", options_markdown(raw_class)).replace("{observation}", layout.markdown())


def format_hand(cards: Sequence[int]) -> str:
    return format_cards(cards) if len(cards) else "-"


def _is_deck_string(text: str) -> bool:
    """A string of several codes (a whole deck) rather than one card code."""
    return any(sep in text.strip() for sep in (" ", ",", "\t", "\n"))
