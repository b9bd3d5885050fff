"""A game's one declaration: :class:`GameSpec`, the ``SPEC`` of ``cardenvs/games/<game>/__init__.py``.

Every generic module (the registry, the arena, the vector envs, search, replay, ``cardenvs list``, the
trainers, the web app) learns what it needs of a game here and from the env class the spec names, never
from the game's name (OpenSpiel's ``GameType``/``GameInfo``, Pgx's per-game ``Env``). The env class carries
the facts every env has (options and variants, the numba core and its policies, the determinizer, the
observation layout, move names and parsing, duplicate-reset options), which the spec hands out
(:meth:`GameSpec.options`, :meth:`~GameSpec.variants`, :meth:`~GameSpec.policy_agents`, :meth:`~GameSpec.core`,
:meth:`~GameSpec.env_class`; :func:`cardenvs.registry.short_name` for an id's short name) and an env gives to
generic code through the door its class documents (:class:`cardenvs.core.env.CardEnv`); the spec adds the
hooks only some games have, each optional:

* ``roles`` (:class:`Roles`): seats that play different parts (Dou Dizhu's landlord and farmers). The arena
  reports win rates by role; DMC trains one network per learner role.
* ``move_features``: ``"module:function"`` returning one feature row per action (``[A, F]``), for learners
  that score moves by their content (DMC's heads).
* ``learner_features``: extra observation featurizers for learners by name (``"module:function"``; called
  as ``f(env, obs, mask)``).
* ``skill_ladder`` and ``skill_ladder_quick``: agent names of rising strength that ``cardenvs analyze
  skill`` plays by default (:mod:`cardenvs.analysis.skill`), the second with ``--quick`` (empty: the first).
* ``relative_skill`` (:class:`RelativeSkill`): the beginner, the best agent, the fictive all-seeing player
  and the field they each play against, for the relative skill of ``cardenvs analyze skill``.
* ``view``: the module of the game's web view (``cardenvs serve``); for a game registered from outside the
  package it defines ``fill_view(base, viewer, view)`` (:func:`cardenvs.seatview.table_view`) and, for a
  game whose plays are face up, ``fill_plays(base, viewer, view, plays)`` to draw them as the cards played.
* ``studies``: ``cardenvs analyze NAME`` subcommands of the game's own, by name: a study module
  (``"module"``, with ``HELP``, ``add_arguments(parser)`` and ``run(args)``) or a :class:`Pairings`.
* ``baselines`` (:class:`Baseline`): the seeded matches of its heuristics that ``cardenvs analyze
  baselines`` plays (the README's table).
* ``luck_value``: the name of one of the game's numba policies (``POLICIES``) whose self-play from a
  position is the game's value function for the arena's luck-adjusted estimates (``cardenvs arena
  --luck-adjusted``, :mod:`cardenvs.arena.luck`): each seat's result when that policy plays every seat from
  the position to the end. The default of ``--luck-value``, which also takes a model (``GAME.dmc``): the
  heuristics are declared because on the luck study's tables the shipped models' self-play predicted no
  better except in Twenty, and at random players' moves it costs minutes where a heuristic costs seconds
  (docs: luck-adjusted estimates).
* ``deal_formats``: deal-file formats of the game's own by name (``"module"`` with ``read(path)`` returning
  deal-file entries and ``write(deals, path)``), named ``NAME:FILE`` in ``cardenvs arena --deals`` and
  ``--save-deals`` (:mod:`cardenvs.arena.deals`).
* ``program_protocols``: protocols of other platforms that programs written for them speak, by agent kind
  (``"module:Class"``); the agent name ``KIND:COMMAND`` runs such a program unchanged on this game
  (:class:`cardenvs.agent.program.ProtocolAgent` states what the class provides).

* ``play_agent``: the agent the web app and ``cardenvs play`` seat where none is named (Dou Dizhu:
  ``doudizhu.stakes_pimc``, the bids of the model trained for the whole game with bidding and the play of
  search); where it cannot be loaded here (a model, or an agent that loads one, without the ``train`` extra) they
  seat ``random`` and say why (:func:`cardenvs.agent.play_agent`).
* ``shipped_runs``: shipped model names pinned to a run folder of ``cardenvs/training/results``, before the
  newest-run rule (``{"dmc": "guandan__dmc_v2_small__1", "dmc_v1": "guandan__dmc__1"}``: ``guandan.dmc`` is that
  run's model and the one it replaced keeps ``guandan.dmc_v1``; :func:`cardenvs.agent.shipped_models`).
* ``move_names``: how the game names its moves, in plain words, with an example of each kind: the grammar a
  reader needs who is not shown the legal moves' names (a language-model seat with ``legal=none``). The prompts
  of :mod:`cardenvs.agent.prompts` carry it as their "Moves" section, which a reference of the rules' plain
  words to the game's move module reads as.

A spec's hooks are ``module`` or ``module:attribute`` paths (its texts aside), imported on first use, so reading every
game's spec (``import cardenvs``) stays cheap. Games outside the package register theirs with
:func:`cardenvs.registry.register`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


def load(path: str) -> Any:
    """The object at ``"package.module:attribute"`` (or the module at ``"package.module"``)."""
    module_name, _, attribute = path.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attribute.split(".") if attribute else ():
        obj = getattr(obj, part)
    return obj


def lazy_attributes(package: str, where: dict[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` re-exporting ``name`` from submodule ``where[name]`` of ``package`` on first
    use, so a game's ``__init__`` (its declaration) imports nothing heavy."""

    def __getattr__(name: str) -> Any:
        if name in where:
            return getattr(importlib.import_module(f"{package}.{where[name]}"), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__


@dataclass(frozen=True)
class RolePhase:
    """A phase before play in which the agents choose the roles (Dou Dizhu's bidding). The arena's duplicate
    mode fixes the roles instead (the env's ``duplicate_reset_options()``) unless asked to play the phase
    (``run_tournament(..., role_phase=True)``, ``cardenvs arena --role-phase``), when the env gives the reset
    options for it (``duplicate_reset_options(phase=True)``).

    * ``name``: what the game calls it (``"bidding"``): the arena's report and messages say it, and
      ``cardenvs arena --NAME`` is an alias of ``--role-phase``.
    * ``option``: the env option that plays it (true) or skips it (false) outside the duplicate mode
      (``"bidding"``); empty when the game always plays it.
    * An agent that cannot play the phase declares ``plays_role_phase = False``; the arena refuses it where
      the phase is played.
    """

    name: str
    option: str = ""

    @property
    def flag(self) -> str:
        """The ``cardenvs arena`` alias of ``--role-phase``: ``--bidding``."""
        return "--" + self.name.replace(" ", "-").replace("_", "-")


@dataclass(frozen=True)
class Roles:
    """Seats that play different parts.

    * ``names``: the roles of a finished game's seats, as the arena reports them (``("landlord",
      "farmer")``).
    * ``of_game``: ``"module:function"``, ``f(layout, obs) -> (roles, values)`` after a game, from player_0's
      observation ``obs`` (a row of ``layout``; the AEC env's and the vector env's alike): each seat's role index
      into ``names`` (None when the game ended without roles, e.g. a Dou Dizhu hand nobody bid for) and
      numbers per seat that the arena averages by agent where they are not NaN (``{"bid": [2, nan, nan]}``).
    * ``learner_names`` and ``of_observation``: the parts a learner plays, told from its own observation
      (``f(layout, obs [B, D]) -> role index [B]``): DMC trains one network per learner role.
    * ``without``: what the arena calls a game that ended without roles (``"dead"``); ``chosen`` and
      ``fixed``: the roles table's title when the agents choose their roles and when the arena's duplicate
      mode fixes them (the env's ``duplicate_reset_options``).
    * ``phase`` (:class:`RolePhase`): the game's phase before play that chooses the roles, if it has one.
    """

    names: tuple[str, ...]
    of_game: str
    learner_names: tuple[str, ...]
    of_observation: str
    without: str = "none"
    chosen: str = ""
    fixed: str = ""
    phase: RolePhase | None = None

    def game_roles(self, env: Any) -> tuple[list[int] | None, dict[str, list[float]]]:
        """``of_game`` of an AEC env's finished game."""
        base = getattr(env, "unwrapped", env)
        return self.observed_roles(base.layout, base.observe(base.possible_agents[0])["observation"])

    def observed_roles(self, layout: Any, obs: Any) -> tuple[list[int] | None, dict[str, list[float]]]:
        """``of_game`` from player_0's observation ``obs`` of a finished game (the batched arena's)."""
        return load(self.of_game)(layout, obs)

    def learner_roles(self, layout: Any, obs: Any) -> Any:
        return load(self.of_observation)(layout, obs)


@dataclass(frozen=True)
class Baseline:
    """One row of ``cardenvs analyze baselines``: ``agents`` (by seat) play ``games`` seeded deals with env
    ``options``, and the win rate of ``agents[seat]`` is reported with a 95% interval (``label`` names the
    row; default: the agents). Without ``reset_options`` the arena plays them (``duplicate``: each deal with
    the agents permuted over the seats); with them, deal by deal with these reset options (a role fixed)."""

    agents: tuple[str, ...]
    games: int
    options: dict[str, Any] = field(default_factory=dict)
    duplicate: bool = False
    reset_options: dict[str, Any] | None = None
    seat: int = 0
    label: str = ""


@dataclass(frozen=True)
class Pairings:
    """A study of agents paired off (``cardenvs analyze NAME``): every pair of ``pairs`` over duplicate deals
    under each option set of ``variants`` (label -> options), the first agent's mean point margin over the
    second with a 95% interval over duplicate sets (:mod:`cardenvs.analysis.pairings`)."""

    help: str  # the subcommand's help
    title: str  # the report's first words
    pairs: tuple[tuple[str, str], ...]
    variants: dict[str, dict[str, Any]]
    column: str = "variant"  # what the variants' labels name: the table's first column
    summary: dict[str, str] = field(default_factory=dict)  # variant label -> the words before its first pair's margin
    matches: int = 200  # duplicate deals per pairing by default


@dataclass(frozen=True)
class RelativeSkill:
    """The players of Borm and van der Genugten's relative skill (``cardenvs analyze skill --relative-skill``,
    :mod:`cardenvs.analysis.skill`, which states the measure), as agent names: a ``beginner``, the ``best``
    agent, a ``fictive`` player who knows the chance outcomes (hidden cards, later draws: a cheating agent
    such as ``GAME.pimc(oracle=true)``), each played in one seat against ``field`` in every other seat."""

    beginner: str
    best: str
    fictive: str
    field: str

    def names(self) -> tuple[str, str, str, str]:
        return (self.beginner, self.best, self.fictive, self.field)


@dataclass(frozen=True)
class GameSpec:
    """One game: its id and where its parts live (module docstring)."""

    name: str  # the short name: "twos"
    version: int  # the env id is "{name}_v{version}"
    package: str  # the game's package: "cardenvs.games.twos"; its env module is "{package}.env"
    title: str  # for people: "Twos"
    roles: Roles | None = None
    move_features: str | None = None
    learner_features: dict[str, str] = field(default_factory=dict)
    view: str | None = None
    skill_ladder: tuple[str, ...] = ()
    skill_ladder_quick: tuple[str, ...] = ()
    relative_skill: RelativeSkill | None = None
    studies: dict[str, str | Pairings] = field(default_factory=dict)
    baselines: tuple[Baseline, ...] = ()
    deal_formats: dict[str, str] = field(default_factory=dict)  # name -> module with read(path), write(deals, path)
    luck_value: str | None = None  # a numba policy of the game: the default luck-adjusted value function
    program_protocols: dict[str, str] = field(default_factory=dict)  # agent kind -> "module:Class" (KIND:COMMAND)
    play_agent: str | None = None  # the agent people play against where they name none (web app, cardenvs play)
    shipped_runs: dict[str, str] = field(default_factory=dict)  # shipped model name -> its run (GAME.NAME pins)
    move_names: str = ""  # how moves are named, in plain words (the prompts' Moves section)

    @property
    def env_id(self) -> str:
        return f"{self.name}_v{self.version}"

    @property
    def env_module(self) -> str:
        return f"{self.package}.env"

    def env_class(self) -> Any:
        """The game's AEC env class (``raw_env`` of its env module, imported on first use)."""
        return load(self.env_module).raw_env

    def options(self) -> tuple[Any, ...]:
        """The env's options (:class:`cardenvs.core.env.Option`), ``reward`` included."""
        return self.env_class().all_options()

    def variants(self) -> dict[str, dict[str, Any]]:
        """The named option sets, ``default`` first (``variant=NAME`` builds one)."""
        return dict(self.env_class().VARIANTS)

    def core(self) -> Any:
        """The game's numba rules module (the env class's ``numba_core()``), or None for a game without one."""
        return self.env_class().numba_core()

    def policy_agents(self) -> tuple[str, ...]:
        """The agent names of the game's numba heuristics (``"twos.heuristic"``), in declared order."""
        return tuple(f"{self.name}.{policy}" for policy in self.env_class().policy_names())

    def hook(self, path: str | None) -> Callable | None:
        return None if path is None else load(path)
