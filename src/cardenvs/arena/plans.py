"""Plans and scheduling: :func:`plan_tournament` checks a tournament's every argument before anything is
played; :func:`run_plans` splits the plans into jobs of deals and plays them on either engine over worker
processes; :func:`run_tournament` and :func:`play` do both."""

from __future__ import annotations

import itertools
import uuid
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..agent import acts_on_batches, load_agent
from ..agent.program import check_outputs
from ..core.seeds import check_seed
from ..registry import make, register, resolve_id, spec_of
from . import aec
from .records import GameRecord, seatings
from .results import Results

#: the ways to play a tournament's games (``engine``): chosen per table, batched in a vector env, or one by one
ENGINES = ("auto", "vector", "aec")


#: the longest label a report's tables show before the seat's number (``#2``); a longer name is shortened
LABEL_WIDTH = 30


def short_name(name: str, width: int = LABEL_WIDTH) -> str:
    """A name for the report's columns, at most ``width`` characters: the name itself where it fits, else the
    name without its parameters (``llm:MODEL(base_url=...)`` -> ``llm:MODEL``), then a ``KIND:COMMAND`` cut to
    its kind and the end of its last word (``gdws:.../ai1/client0.py``), then cut with ``...``."""
    if len(name) <= width:
        return name
    base = name.partition("(")[0].strip() or name
    if len(base) > width and ":" in base:
        kind, _, rest = base.partition(":")
        words = rest.split() or [rest]
        tail = words[-1]
        room = width - len(kind) - 5  # "KIND:" and ".../"
        if room > 0 and len(tail) > room:
            parts = tail.split("/")
            kept = parts[-1]
            for part in reversed(parts[:-1]):
                if len(part) + 1 + len(kept) > room:
                    break
                kept = f"{part}/{kept}"
            tail = kept
        base = f"{kind}:{tail}" if tail == rest else f"{kind}:.../{tail}"
    if len(base) > width:
        base = base[: width - 3] + "..."
    return base


def labels_for(agent_names: Sequence[str]) -> list[str]:
    """Unique labels of at most :data:`LABEL_WIDTH` characters before a ``#N``: a long name is shortened
    (:func:`short_name`; the results keep every full name, in ``agent_names``, and the report's legend names
    them), and a label that more than one seat would have (the same agent, or two names that shorten alike) gets
    ``#1``, ``#2`` suffixes so the seats are told apart."""
    short = [short_name(n) for n in agent_names]
    seen: dict[str, int] = {}
    labels = []
    for label in short:
        if short.count(label) > 1:
            seen[label] = seen.get(label, 0) + 1
            labels.append(f"{label}#{seen[label]}")
        else:
            labels.append(label)
    return labels


def _worker(job: tuple) -> list[GameRecord]:
    spec, (env_id, names, labels, options, seed, deals, duplicate, table, role_phase, replays, total, vector, run) = (
        job[:2]
    )
    resets = job[2]  # the deals' reset options from a deal file (deal -> options), or empty
    luck = job[3] if len(job) > 3 else None  # a luck-adjusted tournament's settings (.luck), or None
    unsandboxed = bool(job[4]) if len(job) > 4 else False  # programs may run without a sandbox (.agent.sandbox)
    transcripts = job[5] if len(job) > 5 else None  # the folder of the games' transcripts (llm: seats), or None
    register(spec)  # a spawned worker knows only the built-in games; a game the caller registered comes along
    terms: dict = {}
    if vector:  # the agents and envs are built once per tournament (its id) and process
        from . import batched

        records = batched.play_deals(env_id, names, labels, options, seed, deals, duplicate, table, role_phase, run)
    else:
        records = aec.play_deals(
            env_id,
            names,
            labels,
            options,
            seed,
            deals,
            duplicate,
            table,
            role_phase,
            replays,
            total,
            resets,
            luck=luck,
            terms=terms,
            unsandboxed=unsandboxed,
            transcripts_dir=transcripts,
        )
    if luck is not None:
        from . import luck as luck_terms

        luck_terms.annotate(records, env_id, options, seed, duplicate, role_phase, luck, terms)
    return records


@dataclass
class Plan:
    """A checked tournament (:func:`plan_tournament`), ready for :func:`run_plan`."""

    env_id: str
    agent_names: list[str]
    labels: list[str]
    options: dict
    seed: int
    games: int
    duplicate: bool
    workers: int
    tables: list[tuple[int, ...]]
    games_per_deal: int
    role_phase: bool = False
    replays: str | None = None  # folder for one replay file per game (cardenvs.replay)
    engine: str = "auto"  # as asked (ENGINES)
    batched: list[bool] = field(default_factory=list)  # per table: played on a vector env (else the AEC env)
    deal_resets: list[dict] = field(default_factory=list)  # deals from a deal file: the reset options of each
    luck: dict | None = None  # luck-adjusted estimates: their settings (cardenvs.arena.luck.check); None: off
    unsandboxed: bool = False  # programs may run without a sandbox where none can be made (cardenvs.agent.sandbox)
    #: the agents (labels) that are programs run without a sandbox (only with ``unsandboxed``)
    unsandboxed_agents: list[str] = field(default_factory=list)
    transcripts: str | None = None  # folder for one transcript file per game (agents' game_transcript(), .aec)


def _count(value: Any, what: str, low: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{what} must be an integer >= {low}, got {value!r}")
    return int(value)


def plan_tournament(
    env_id: str,
    agents: Sequence[str],
    games: int,
    seed: int = 0,
    options: dict | None = None,
    duplicate: bool = True,
    workers: int = 1,
    round_robin: bool = False,
    role_phase: bool = False,
    replays: str | None = None,
    engine: str = "auto",
    deals: str | None = None,
    save_deals: str | None = None,
    luck_adjusted: bool = False,
    luck_reference: int | None = None,
    luck_value: str | None = None,
    luck_samples: int | None = None,
    luck_rollouts: int | None = None,
    unsandboxed: bool = False,
    transcripts: str | None = None,
    out: str | None = None,
) -> Plan:
    """Check every argument of a tournament without playing it: ``ValueError`` naming what is wrong (unknown
    game, option or agent, an agent of another game, the wrong number of agents, ``games`` or ``workers``
    below 1, a negative seed, ``role_phase`` for a game without one, an agent that declares
    ``plays_role_phase = False`` where the phase is played, a ``replays`` folder that cannot take the
    replays, an unknown ``engine`` or ``"vector"`` for agents that cannot act on batches, a bad deal file or
    more ``games`` than it holds, ``luck_adjusted`` for a game or deals it cannot adjust). ``deals``: play the
    deals of a deal file (:mod:`.deals`); ``save_deals``: write the tournament's deals to a deal file, then play
    them from it. ``luck_adjusted``: luck-adjusted estimates beside the plain ones (:mod:`.luck`), the deal
    term's mean over ``luck_reference`` reference deals (default 10 per deal), the value function
    ``luck_value`` (default: the game's declared one), ``luck_samples`` resamples per decision of an agent whose
    distribution is sampled (default 4), ``luck_rollouts`` rollouts averaged per move where they seat random play
    (default 16); a table with an agent whose action distribution is known (random) or
    sampled (a search) plays on the aec engine, which records the decision terms. ``unsandboxed``: programs
    (``cmd:COMMAND``) may run without a sandbox where none can be made here (:mod:`cardenvs.agent.sandbox`); without
    it they are refused there, and with it the results say which ran unsandboxed. ``transcripts``: a folder for
    every game's transcript (the decisions of agents that keep one, ``llm:`` seats: JSON lines,
    ``game_NNNNNN.jsonl`` as replays are named), played on the aec engine. ``out``: where the caller writes the
    results (only checked here). No output (``out``, ``replays``, ``transcripts``, ``save_deals``) may be where a
    seated program can read it (:func:`cardenvs.agent.program.check_outputs`)."""
    if engine not in ENGINES:
        raise ValueError(f"engine={engine!r}: expected one of {', '.join(ENGINES)}")
    env_id = resolve_id(env_id)
    if options is not None and not isinstance(options, dict):
        raise ValueError(f"options must be a dict of {env_id} options, got {type(options).__name__} {options!r}")
    options = dict(options or {})
    games = _count(games, "games", 1)
    workers = _count(workers, "workers", 1)
    checked_seed = check_seed(seed, "seed")
    if checked_seed is None:
        raise ValueError("seed must be a non-negative integer, got None")
    seed = checked_seed
    probe = make(env_id, **options).unwrapped
    n = probe.num_players
    agent_names = list(agents)
    # fail early: unknown names, agents of another game; and learn which act on batches
    built = {name: load_agent(name, probe, unsandboxed=unsandboxed) for name in dict.fromkeys(agent_names)}
    batches = {name: acts_on_batches(agent) for name, agent in built.items()}
    outputs = {"--out": out, "--replays": replays, "--transcripts": transcripts, "--save-deals": save_deals}
    check_outputs(built.values(), outputs)  # nothing the arena writes where a seated program can read it
    if round_robin:
        if len(agent_names) < n:
            raise ValueError(f"round robin needs at least {n} agents for {env_id}; got {len(agent_names)}")
        tables = list(itertools.combinations(range(len(agent_names)), n))
    else:
        if len(agent_names) != n:
            raise ValueError(
                f"{env_id} with these options seats {n} players; got {len(agent_names)} agents "
                f"({', '.join(agent_names)}): name one agent per seat, or use --round-robin"
            )
        tables = [tuple(range(n))]
    deal_resets = _deal_file(env_id, options, seed, games, deals, save_deals)
    luck = None
    if luck_adjusted:
        from . import luck as luck_terms

        luck = luck_terms.check(
            env_id,
            probe,
            luck_reference,
            games,
            bool(deal_resets),
            value=luck_value,
            samples=luck_samples,
            rollouts=luck_rollouts,
        )
    else:
        unused = (
            ("luck_reference", luck_reference),
            ("luck_value", luck_value),
            ("luck_samples", luck_samples),
            ("luck_rollouts", luck_rollouts),
        )
        for name, given in unused:
            if given is not None:
                raise ValueError(f"{name} is a setting of luck-adjusted estimates: give luck_adjusted too")
    extra = _check_role_phase(env_id, probe, built, options, duplicate, role_phase)
    games_per_deal = len(seatings(n, duplicate)) * len(extra)
    if replays is not None:
        from ..replay import check_replays_folder

        check_replays_folder(str(replays))
    aec_why = "replays are written by the aec engine" if replays is not None else None
    if transcripts is not None:
        from ..replay import check_replays_folder

        check_replays_folder(str(transcripts), "--transcripts", "game_*.jsonl")
        aec_why = aec_why or "transcripts are written by the aec engine"
    if deal_resets:
        aec_why = "deal files are played by the aec engine (vector envs deal from seeds)"
    batched = [
        _batched(
            engine,
            env_id,
            probe,
            [agent_names[i] for i in t],
            batches,
            _luck_why(luck, built, t, agent_names) or aec_why,
        )
        for t in tables
    ]
    return Plan(
        env_id,
        agent_names,
        labels_for(agent_names),
        options,
        seed,
        games,
        duplicate,
        workers,
        tables,
        games_per_deal,
        role_phase,
        None if replays is None else str(replays),
        engine,
        batched,
        deal_resets,
        luck,
        bool(unsandboxed),
        [label for name, label in zip(agent_names, labels_for(agent_names), strict=True) if _unsandboxed(built[name])],
        None if transcripts is None else str(transcripts),
    )


def _unsandboxed(agent: Any) -> bool:
    """Whether an agent is a program that runs without a sandbox (its fallback included)."""
    if agent is None:
        return False
    return getattr(agent, "sandboxed", True) is False or _unsandboxed(getattr(agent, "fallback", None))


def _luck_why(luck: dict | None, built: dict[str, Any], table: tuple[int, ...], names: list[str]) -> str | None:
    """Why a table of a luck-adjusted tournament needs the aec engine (an agent with decision terms), if it does."""
    if luck is None:
        return None
    from .luck import has_terms

    known = [names[i] for i in table if has_terms(built[names[i]], luck["samples"])]
    if known:
        return f"the decision terms of agent {known[0]} (luck-adjusted) are recorded by the aec engine"
    return None


def _deal_file(env_id: str, options: dict, seed: int, games: int, deals, save_deals) -> list[dict]:
    """The reset options of each deal of a deal file (``deals``, or ``save_deals`` once written); none without."""
    from . import deals as deal_files

    if deals is not None and save_deals is not None:
        raise ValueError("give a deal file to play (deals) or one to write (save_deals), not both")
    if save_deals is not None:
        deal_files.save_deals(save_deals, deal_files.make_deals(env_id, options, seed, games))
        deals = save_deals
    if deals is None:
        return []
    resets = deal_files.load_deals(str(deals), env_id, options)
    if games > len(resets):
        raise ValueError(f"games={games}, but the deal file {deals} holds {len(resets)} deals")
    return resets[:games]


def _check_role_phase(
    env_id: str, probe: Any, built: dict[str, Any], options: dict, duplicate: bool, role_phase: bool
) -> list[dict]:
    """The duplicate mode's reset options per deal (``[{}]`` without it), after the checks of the role phase
    (:func:`plan_tournament`); a warning where they override the option that plays the phase."""
    roles = spec_of(env_id).roles
    phase = roles.phase if roles is not None else None
    if role_phase:
        probe.duplicate_reset_options(phase=True)  # ValueError for a game (or options) without a role phase
    played = phase is not None and (not phase.option or bool(probe.config.get(phase.option)))
    if phase is not None and (role_phase or (not duplicate and played)):  # the agents play the phase
        for name, agent in built.items():
            if getattr(agent, "plays_role_phase", True) is False:
                how = (
                    f"without --role-phase ({phase.flag})"
                    if role_phase
                    else f"with the option {phase.option}=False or in the duplicate mode"
                )
                raise ValueError(
                    f"agent {name!r} cannot play the {phase.name} (it declares plays_role_phase = False): play it {how}"
                )
    extra = probe.duplicate_reset_options(phase=role_phase) if duplicate else [{}]
    if phase is not None and phase.option and duplicate and not role_phase and options.get(phase.option) is True:
        if extra != [{}]:
            warnings.warn(
                f"{env_id}: the duplicate mode plays every deal with reset options {extra} in every seating, "
                f"which override the option {phase.option}=True. Play the {phase.name} with --role-phase "
                f"({phase.flag}; run_tournament(..., role_phase=True)).",
                stacklevel=3,
            )
    return extra


def _batched(engine: str, env_id: str, probe, names: list[str], batches: dict[str, bool], aec_why) -> bool:
    """Whether a table of agents ``names`` plays on a vector env (see "Engines" in the module doc); ``aec_why``:
    why the tournament needs the aec engine, if it does (replays, deal files)."""
    if engine == "aec":
        return False
    why = None
    if probe.numba_core() is None:
        why = f"{env_id} has no numba core, which vector envs need"
    elif aec_why is not None:
        why = aec_why
    else:
        slow = [name for name in names if not batches[name]]
        if slow:
            why = f"agent {slow[0]} cannot act on a batch (it has no act_batch)"
    if why is not None and engine == "vector":
        raise ValueError(f"engine 'vector': {why}; use engine 'auto' or 'aec'")
    return why is None


def _jobs(plan: Plan) -> list[tuple]:
    """The worker jobs of a plan: each a chunk of one table's deals, in table then deal order."""
    games, workers = plan.games, plan.workers
    tournament = uuid.uuid4().hex
    jobs = []
    spec = spec_of(plan.env_id)
    chunk = max(1, min(50, games // (4 * workers) or 1))
    for t, members in enumerate(plan.tables):
        names = [plan.agent_names[i] for i in members]
        labs = [plan.labels[i] for i in members]
        for start in range(0, games, chunk):
            jobs.append(
                (
                    spec,
                    (
                        plan.env_id,
                        names,
                        labs,
                        plan.options,
                        plan.seed,
                        list(range(start, min(games, start + chunk))),
                        plan.duplicate,
                        t,
                        plan.role_phase,
                        plan.replays,
                        games,
                        plan.batched[t] if plan.batched else False,
                        tournament,
                    ),
                    {d: plan.deal_resets[d] for d in range(start, min(games, start + chunk)) if plan.deal_resets},
                    plan.luck,
                    plan.unsandboxed,
                    plan.transcripts,
                )
            )
    return jobs


def run_plan(plan: Plan, progress: bool = False) -> Results:
    """Play a checked tournament (see the module doc)."""
    return run_plans([plan], plan.workers, progress)[0]


def run_plans(plans: Sequence[Plan], workers: int = 1, progress: bool = False) -> list[Results]:
    """Play checked tournaments one after another, their games over ``workers`` processes (one pool for
    all): the results are those of :func:`run_plan` on each, whatever ``workers``. With several workers the
    parent plays each plan's first chunk of deals (compiling what its games need: numba's disk cache is not
    safe for processes compiling into it at once) while the pool plays the earlier plans' other chunks."""
    from .. import __version__

    workers = _count(workers, "workers", 1)
    results = []
    for plan in plans:
        for folder in (plan.replays, plan.transcripts):
            if folder is not None:
                Path(folder).mkdir(parents=True, exist_ok=True)
        results.append(
            Results(
                plan.env_id,
                plan.labels,
                plan.agent_names,
                plan.options,
                plan.seed,
                plan.games,
                plan.duplicate,
                __version__,
                role_phase=plan.role_phase,
                unsandboxed=list(plan.unsandboxed_agents),
            )
        )
        if plan.luck is not None:
            from . import luck as luck_terms

            results[-1].luck = luck_terms.reference(
                plan.env_id, plan.options, plan.seed, plan.duplicate, plan.role_phase, plan.luck
            )
    bar = None
    if progress:
        from tqdm import tqdm

        total = sum(plan.games * len(plan.tables) * plan.games_per_deal for plan in plans)
        bar = tqdm(total=total, desc=plans[0].env_id if plans else "", unit="game")

    def add(result: Results, records: list[GameRecord]) -> None:
        result.records.extend(records)
        if bar:
            bar.update(len(records))

    if workers == 1:
        for plan, result in zip(plans, results, strict=True):
            for job in _jobs(plan):
                add(result, _worker(job))
    else:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            pending = []
            for plan, result in zip(plans, results, strict=True):
                jobs = _jobs(plan)
                add(result, _worker(jobs[0]))
                pending.append((result, pool.imap(_worker, jobs[1:])))
            for result, outputs in pending:
                for records in outputs:
                    add(result, records)
            pool.close()
            pool.join()
    if bar:
        bar.close()
    return results


def run_tournament(
    env_id: str,
    agents: Sequence[str],
    games: int,
    seed: int = 0,
    options: dict | None = None,
    duplicate: bool = True,
    workers: int = 1,
    round_robin: bool = False,
    progress: bool = False,
    **planned: Any,
) -> Results:
    """Play ``games`` deals per table (each replayed over seatings when ``duplicate``); see the module doc.
    ``planned``: the rest of :func:`plan_tournament`'s arguments (``role_phase``: duplicate deals with the
    roles chosen in the game's phase before play; ``replays``: a folder to write every game to; ``engine``:
    ``"auto"``, ``"vector"`` or ``"aec"``; ``deals`` and ``save_deals``: a deal file to play, or to write and
    play; ``luck_adjusted``, ``luck_reference``, ``luck_value``, ``luck_samples`` and ``luck_rollouts``: luck-adjusted
    estimates, :mod:`.luck`; ``unsandboxed``: programs may run without a sandbox where none can be made;
    ``transcripts``: a folder for the games' transcripts)."""
    plan = plan_tournament(env_id, agents, games, seed, options, duplicate, workers, round_robin, **planned)
    return run_plan(plan, progress)


def play(
    env_id: str, agents: Sequence[str], games: int, seed: int = 0, options: dict | None = None, progress: bool = False
) -> Results:
    """``games`` seeded games with the agents rotated over the seats (no duplicate replays)."""
    return run_tournament(env_id, agents, games, seed, options, duplicate=False, progress=progress)
