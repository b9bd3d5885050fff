"""Tournaments: seeded, duplicate-deal games between agents, with confidence intervals and ratings.

* :func:`play` -- ``games`` games with the agents rotated over the seats (game ``g`` puts agent
  ``(s + g) mod n`` in seat ``s``); per-agent wins, mean score, mean reward.
* :func:`run_tournament` -- the ``cardenvs arena`` engine. With ``duplicate=True`` each deal is replayed
  with the agents permuted over the seats (every permutation up to 3 players, the ``n`` rotations beyond),
  and, for envs that say so (``CardEnv.duplicate_reset_options``, e.g. Dou Dizhu's landlord seat), once per
  such option too. A deal's games form a *duplicate set*; intervals are computed over sets, the unit whose
  luck cancels. ``round_robin=True`` plays every table of ``n`` agents out of a longer list.
* :func:`plan_tournament` / :func:`run_plan` -- the same in two steps: every check of the arguments (game,
  options, agents and their game, counts, seed) happens in the first, before anything is played.

Roles: for a game that declares them (its spec's :class:`~cardenvs.core.spec.Roles`, e.g. Dou Dizhu's
landlord and farmers), every record keeps each seat's role and the numbers the game reports per seat (Dou
Dizhu's final bid), and the results report per agent how often it played each role, its win rate in each
(95% intervals over duplicate sets) and the mean of each number. A game's duplicate mode may fix the roles
(its env's ``duplicate_reset_options``: Dou Dizhu seats the landlord at player_0 at bid 1, so every agent is
landlord of every deal); for a game whose roles are chosen in a phase before play (its spec's
:class:`~cardenvs.core.spec.RolePhase`: Dou Dizhu's bidding), ``role_phase=True`` (``cardenvs arena
--role-phase``, or the game's own name for it: ``--bidding``) plays the same deals with the phase on, so the
report measures the choice. Options the duplicate mode overrides draw a warning. The results' JSON says
which under ``role_phase``.

Seeding: deal ``d`` resets the env with :func:`game_seed` ``(seed, d)`` (so the cards of deal ``d`` are the
same in every replay) and game ``k`` of the set gives the agents :func:`agent_rng` ``(seed, d, k)``, both
derived in :mod:`cardenvs.core.seeds`. Results do not depend on how deals are split between worker processes.

Engines: a table whose agents all act on batches (``act_batch``, :mod:`cardenvs.agent`: random, the numba
policies, the DMC models) plays each job's deals on a vector env, every game of the job at once, one call per
agent and step (:mod:`cardenvs.arena.batched`); any other table (a search agent, ``twenty.solver``), and every table
when replays are written, plays game by game in the AEC env. Both give the same records from the same seed.
``engine="vector"`` or ``"aec"`` (``cardenvs arena --engine``) forces one; forcing ``vector`` for an agent
without ``act_batch`` is a ``ValueError`` naming it.

Replays: with ``replays=DIR`` (``cardenvs arena --replays DIR``) every game is also written to
``DIR/game_NNNNNN.json`` by the process that plays it (:mod:`cardenvs.replay`); ``NNNNNN`` numbers the games
over the whole tournament (table, then deal, then seating), so the names do not depend on ``workers``.

Language-model seats (``llm:MODEL``, :mod:`cardenvs.agent.llm`): ``transcripts=DIR`` (``cardenvs arena
--transcripts DIR``) writes every game's prompts and answers as ``DIR/game_NNNNNN.jsonl`` (numbered as replays);
what agents count of their calls (``game_usage()``: calls, tokens, latency, cost) is kept in each record and summed
per agent (:meth:`Results.usage`); an agent's ``in_flight`` above 1 plays that many games of a job at once on
threads, with the same records (:mod:`.aec`).

Deal files: ``deals=FILE`` plays the deals of a deal file and ``save_deals=FILE`` writes the tournament's deals
to one and plays them from it (``cardenvs arena --deals``, ``--save-deals``; :mod:`.deals`), on the aec engine.

A win is a positive result on the env's ``"win"`` scale (:meth:`CardEnv.outcome`) whatever the reward
option; an illegal action loses the game for the agent that made it (the others draw).

Modules: :mod:`.records` (a game's record, the seeds, the games of a deal: what both engines use), :mod:`.deals`
(deal files),
:mod:`.results` (:class:`Results`), :mod:`.plans` (checks, jobs, workers), :mod:`.aec` and :mod:`.batched`
(the engines).
"""

from .aec import play_one
from .deals import load_deals, make_deals, save_deals
from .plans import ENGINES, Plan, labels_for, plan_tournament, play, run_plan, run_plans, run_tournament
from .records import GameRecord, agent_rng, deal_games, game_seed, seatings
from .results import Z95, Results, check_output_path, mean_ci

__all__ = [
    "ENGINES",
    "Z95",
    "GameRecord",
    "Plan",
    "Results",
    "agent_rng",
    "check_output_path",
    "deal_games",
    "game_seed",
    "labels_for",
    "load_deals",
    "make_deals",
    "mean_ci",
    "play",
    "play_one",
    "plan_tournament",
    "run_plan",
    "run_plans",
    "run_tournament",
    "save_deals",
    "seatings",
]
