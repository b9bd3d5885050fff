"""The agent protocol, the random agent, and loading agents by name.

An agent is any object with a ``name`` and ``act(observation, rng) -> int``, where ``observation`` is the
env's ``{"observation", "action_mask"}`` dict and ``rng`` a ``np.random.Generator`` owned by the caller
(the arena seeds it, so tournaments are reproducible). Agents are built with the env they will play in
(``Agent(env)``) so they can read its options and observation layout; they must only use the public API.

Batches: an agent may also act in many games at once, ``act_batch(observations, rngs) -> actions``
(:class:`BatchAgent`). ``observations`` maps ``"observation"`` to the ``[k, D]`` rows of the k games where it
is to move and ``"action_mask"`` to their bool ``[k, A]`` masks (the vector envs' dtype; each is gathered
when first read), ``rngs`` holds the k games' generators, and it returns the k actions (integers). Row ``i``
must get the action ``act`` would return for that observation and ``rngs[i]``, drawing from ``rngs[i]`` what
``act`` draws (index ``rngs`` only for the rows that draw): then the arena plays its games on a vector env,
one call per agent and step, with the results of the AEC env (:mod:`cardenvs.arena.batched`), and the learner
view plays it as an opponent the same way (:class:`cardenvs.vector.AgentOpponent`); both call it through
:func:`batch_actions`, with lazily made generators (:class:`Generators`). An agent that reads
the game's state rather than its observation (a numba policy) also takes the keyword ``games``, a
:class:`BatchGames`: the vector env and the game of each row. ``act_batch`` keeps nothing per game between
calls (``reset`` is for the AEC env's one game at a time). :class:`RandomAgent`, :class:`PolicyAgent` and the
DMC models (``dmc:PATH``, ``GAME.dmc``) act on batches; the search agents and Python agents such as
``twenty.solver`` do not (the arena plays those in the AEC env).

Names (:func:`load_agent`; each form below is a row of the table :func:`agent_table`, tried in this order, the
game checked once for the row that knows the name):

* ``random``: uniformly random legal action.
* ``GAME.NAME`` for a numba policy ``NAME`` of the game (its ``POLICIES``: ``twos.heuristic``,
  ``doudizhu.rule``, ``twenty.greedy``, ``two_way_street.heuristic``, ``war.flip``): a :class:`PolicyAgent`,
  the same function the vector envs' opponents and the search rollouts call.
* ``GAME.NAME`` for an agent that cannot be a numba policy (``twenty.solver``): ``AGENTS["NAME"]`` in the
  module ``cardenvs.agents.GAME`` (the repository's ``agents/``).
* Either plays only the game ``GAME`` (loading it for another game's env is a ``ValueError``).
* Another name of such an agent, in its module's ``ALIASES`` (``{"rlcard.rule": "rlcard"}`` in
  ``cardenvs.agents.doudizhu`` names ``doudizhu.rlcard``, RLCard's rule agent, as the field calls it).
* ``GAME.dmc`` (``doudizhu.dmc``): the Deep Monte Carlo model shipped with the package for that game
  (``cardenvs/training/results/GAME__dmc__N/model.pt``, the highest ``N``, unless the name is pinned to a run
  in the game spec's ``shipped_runs``), played as ``dmc:PATH``; a model a stronger one replaced keeps
  a versioned name (``GAME.dmc_v1``, pinned there too). It needs the ``train`` extra (torch), and says so when
  it is missing.
* ``KIND:PATH``: a trained model of an *agent kind* registered by an installed package under the entry-point
  group ``cardenvs.agents`` (:data:`AGENT_KINDS_GROUP`): the entry point names a class built as
  ``Class(env, PATH)``. This project's ``training/`` (installed as ``cardenvs.training``) registers ``ppo``
  (a MaskablePPO model, ``cardenvs.training.policies:PPOAgent``), ``dmc`` and ``rllib`` (an RLlib checkpoint)
  in ``pyproject.toml``; the rest of ``cardenvs`` never imports them.
* ``GAME.pimc`` and ``GAME.ismcts`` (``doudizhu.pimc``): the search agents of :mod:`cardenvs.search`, for every
  game that registers a determinizer; they take parameters in parentheses, ``NAME(key=value,...)``
  (``doudizhu.pimc(playouts=2000)``, ``twos.ismcts(ms=50,seed=3)``), each converted to the parameter's type
  (:data:`cardenvs.search.PARAMETERS`). An unknown parameter or a bad value is a ``ValueError`` naming the
  accepted parameters with their defaults; other agents take no parameters.
* ``module:Class``: any importable class taking the env (``Class(env)``) whose instances have ``act``.
* ``cmd:COMMAND``: a program in any language speaking the line protocol of :mod:`.program` (one JSON line per
  decision in, a move's name or id back), with limits in parentheses (``cmd:./bot(move_ms=500)``); a fault
  loses the game or, with ``fallback=AGENT``, lets that agent move (``docs/bots.md``).
* ``llm:MODEL``: a chat model behind an OpenAI-compatible endpoint (:mod:`.llm`, the ``llm`` extra), with its
  parameters in parentheses (``llm:qwen2.5-7b(base_url=http://localhost:8000/v1,rethink=2)``); faults as ``cmd:``'s
  (``docs/llm.md``).
* ``KIND:COMMAND`` for a protocol a game declares (its spec's ``program_protocols``, e.g. ``botzone:./bot``): a
  program written for another platform, run unchanged (:class:`.program.ProtocolAgent`), with the limits of
  ``cmd:`` and the protocol's own parameters; for another game a ``ValueError`` names the games that declare it.

Names from untrusted input (the web app) load with ``registered_only=True``: no ``module:Class``, ``cmd:`` or
``llm:``, and ``KIND:PATH`` only with a PATH inside a ``models_dir`` folder.

Lists of names (``--agents``) are split on commas outside parentheses (:func:`split_agent_names`).

A name that cannot be loaded is a ``ValueError`` saying why and what is known. An ``agents`` package that
is not installed means no Python agents (the numba policies remain); one that fails to import (a missing
dependency, a broken module) raises its ``ImportError``.
"""

from .base import (
    Agent,
    BatchAgent,
    BatchGames,
    Generators,
    PolicyAgent,
    RandomAgent,
    acts_on_batches,
    batch_actions,
    takes_games,
)
from .loader import (
    AGENT_KINDS_GROUP,
    BUILT_IN_KINDS,
    KIND_EXTRAS,
    AgentKind,
    AgentRequest,
    agent_kinds,
    agent_name_forms,
    agent_table,
    known_agents,
    load_agent,
    parse_agent_name,
    play_agent,
    policy_agent_names,
    search_agent_names,
    shipped_models,
    split_agent_names,
)

__all__ = [
    "AGENT_KINDS_GROUP",
    "BUILT_IN_KINDS",
    "KIND_EXTRAS",
    "Agent",
    "AgentKind",
    "AgentRequest",
    "BatchAgent",
    "BatchGames",
    "Generators",
    "PolicyAgent",
    "RandomAgent",
    "acts_on_batches",
    "batch_actions",
    "agent_kinds",
    "agent_name_forms",
    "agent_table",
    "known_agents",
    "load_agent",
    "parse_agent_name",
    "play_agent",
    "policy_agent_names",
    "search_agent_names",
    "shipped_models",
    "split_agent_names",
    "takes_games",
]
