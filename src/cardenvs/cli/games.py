"""``cardenvs list``, ``arena``, ``ladder``, ``play`` and ``analyze``: the commands that play and study games."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import pkgutil
import sys
from pathlib import Path
from typing import Any

from .. import __version__
from ..config import at_least
from ..registry import env_ids, resolve_id, spec_of
from .common import CLIError, add_game, add_game_args, game_and_agents, game_options, user_input


def cmd_list(args: argparse.Namespace) -> int:
    from ..agent import agent_name_forms, known_agents
    from ..search import METHODS, describe_parameters, game_policies

    print(f"cardenvs {__version__}\n\ngames:")
    for env_id in env_ids():
        spec = spec_of(env_id)
        print(f"  {env_id} (short name {spec.name})")
        for o in spec.options():
            print(f"    {o.name:18s} default {o.describe_default():10s} accepts {o.allowed()}")
        if len(spec.variants()) > 1:
            named = ", ".join(f"{k}={v}" for k, v in spec.variants().items() if k != "default")
            print(f"    variants (-o variant=NAME): {named}")
    lines = []
    for name in known_agents():
        game, _, method = name.partition(".")
        searching = method in METHODS
        lines.append(f"{name}({describe_parameters(method, game_policies(game))})" if searching else name)
    print("\nagents:\n  " + "\n  ".join(lines) + "\n  " + agent_name_forms())
    print("\nanalyses: " + ", ".join(sorted(_analyses())))
    return 0


# ------------------------------------------------------------------ arena
def cmd_arena(args: argparse.Namespace) -> int:
    from .. import arena

    env_id, options, agents = game_and_agents(args)
    for flag, given in (
        ("--luck-reference", args.luck_reference),
        ("--luck-value", args.luck_value),
        ("--luck-samples", args.luck_samples),
        ("--luck-rollouts", args.luck_rollouts),
    ):
        if given is not None and not args.luck_adjusted:
            raise CLIError(f"{flag} is a setting of --luck-adjusted: give --luck-adjusted too")
    if args.out:
        with user_input("--out: "):
            arena.check_output_path(args.out, "results", json_with_csv=True)
    if args.plot:
        with user_input("--plot: "):
            arena.check_output_path(args.plot, "plot")
        if importlib.util.find_spec("matplotlib") is None:
            raise CLIError("--plot needs matplotlib (pip install 'cardenvs[plot]')")
    with user_input():
        games = args.games
        if games is None:
            games = len(arena.load_deals(args.deals, env_id, options)) if args.deals else 100
        plan = arena.plan_tournament(
            env_id,
            agents,
            games=games,
            seed=args.seed,
            options=options,
            duplicate=args.duplicate,
            workers=args.workers,
            round_robin=args.round_robin,
            role_phase=args.role_phase,
            replays=args.replays,
            engine=args.engine,
            deals=args.deals,
            save_deals=args.save_deals,
            luck_adjusted=args.luck_adjusted,
            luck_reference=args.luck_reference,
            luck_value=args.luck_value,
            luck_samples=args.luck_samples,
            luck_rollouts=args.luck_rollouts,
            unsandboxed=args.unsandboxed,
            transcripts=args.transcripts,
            out=args.out,
        )
    results = arena.run_plan(plan, progress=not args.no_progress)
    print(results.report())
    if args.out:
        results.save(args.out)
        print(f"\nwrote {args.out} and {Path(args.out).with_suffix('.csv')}")
    if args.plot:
        results.plot(args.plot)
        print(f"wrote {args.plot}")
    if args.replays:
        print(f"wrote {len(results.records)} replays to {args.replays} (open them with cardenvs serve)")
    if args.transcripts:
        print(f"wrote {len(results.records)} transcripts to {args.transcripts}")
    if args.save_deals:
        print(f"wrote the {results.deals} deals to {args.save_deals} (play them again with --deals)")
    return 0


def cmd_ladder(args: argparse.Namespace) -> int:
    from ..analysis import grading

    with user_input():
        env_id = resolve_id(args.game)
    games = args.games or (40 if args.reference else 100)
    if args.reference:
        if args.agent:
            raise CLIError("--reference rates the game's anchors: name no agent")
        if args.luck_adjusted:
            raise CLIError("--luck-adjusted places an agent; the anchors' reference ratings are plain: drop it")
        with user_input():
            ref = grading.reference(env_id, games, args.seed, args.workers)
        out = Path(args.out) if args.out else grading.ANCHORS_DIR / f"{spec_of(env_id).name}.json"
        out.write_text(json.dumps(ref, indent=1) + "\n")
        print("\n".join(f"{name:40s} {rating:8.1f}" for name, rating in ref["anchors"].items()))
        print(f"wrote {out}")
        return 0
    if not args.agent:
        raise CLIError(f"name the agent to place, e.g. cardenvs ladder {args.game} {spec_of(env_id).name}.NAME")
    if args.leaderboard and Path(args.leaderboard).exists():  # a bad leaderboard is refused before the games
        with user_input("--leaderboard: "):
            grading.read(args.leaderboard)
    with user_input():
        row = grading.place(
            env_id, args.agent, games, args.seed, args.workers, args.anchors, args.luck_adjusted, args.unsandboxed
        )
    if row.get("unsandboxed"):
        print(f"UNSANDBOXED: {args.agent} ran without a sandbox (--unsandboxed): it could read and change this machine")
    print(
        f"{row['agent']} on the {env_id} ladder: rating {row['rating']:.0f} [{row['interval'][0]:.0f}, "
        f"{row['interval'][1]:.0f}] (95% interval, {games} duplicate deals per anchor, seed {args.seed})"
    )
    if "adjusted" in row:
        adjusted = row["adjusted"]
        print(
            f"luck-adjusted: rating {adjusted['mean']:.0f} [{adjusted['low']:.0f}, {adjusted['high']:.0f}], "
            f"variance ratio {adjusted['variance_ratio']:.2f} (plain interval width over adjusted, squared)"
        )
    ref = grading.load_reference(env_id, args.anchors)
    print("\n".join(grading.table([row], ref)))
    if args.leaderboard:
        with user_input("--leaderboard: "):
            grading.append(args.leaderboard, row)
        print(f"added to {args.leaderboard}")
    return 0


def _deal_formats() -> str:
    """The games' own deal-file formats (their specs' ``deal_formats``), for the help."""
    named = [f"{spec_of(e).name}: {k}:FILE" for e in env_ids() for k in spec_of(e).deal_formats]
    return "; ".join(named) or "none"


def _role_phase_flags() -> tuple[list[str], str]:
    """The games' own names of their role phase (their specs' ``RolePhase``) as aliases of ``--role-phase``,
    and the help's words for them."""
    from ..registry import spec_of

    games: dict[str, list[str]] = {}
    for env_id in env_ids():
        roles = spec_of(env_id).roles
        if roles is not None and roles.phase is not None:
            games.setdefault(roles.phase.flag, []).append(spec_of(env_id).title)
    names = "; ".join(f"{flag}: {' and '.join(titles)}'s name for it" for flag, titles in games.items())
    return list(games), names or "no game has one"


# ------------------------------------------------------------------ play
def cmd_play(args: argparse.Namespace) -> int:
    from ..play import run_play, setup_play

    with user_input():
        env_id = resolve_id(args.game)
    options = game_options(args, env_id)
    with user_input():
        if args.humans is not None and args.seat is not None:
            raise ValueError("give --seat (one person) or --humans (several), not both")
        seats = _seat_list(args.humans) if args.humans is not None else (args.seat or 0)
        session = setup_play(env_id, args.agents, options, seats, args.seed, args.reveal)
    if session.note:
        print(f"cardenvs: note: {session.note}", file=sys.stderr)
    return run_play(session, sys.stdin, sys.stdout)


def _seat_list(text: str) -> list[int]:
    """``--humans 0,2`` -> ``[0, 2]`` (``ValueError`` naming what is not a seat number)."""
    seats = []
    for part in text.split(","):
        if not part.strip().isdigit():
            raise ValueError(f"--humans {text!r}: {part.strip()!r} is not a seat number (e.g. --humans 0,2)")
        seats.append(int(part))
    return seats


# ------------------------------------------------------------------ analyze
def _analyses() -> dict[str, Any]:
    """Every ``cardenvs analyze`` study by command: the generic ones (a module of :mod:`cardenvs.analysis` with
    ``COMMAND``) and each game's own (its spec's ``studies``). A study has ``HELP``, ``add_arguments(parser)``
    and ``run(args)``."""
    from .. import analysis
    from ..analysis.pairings import PairingsStudy
    from ..core.spec import Pairings, load
    from ..registry import spec_of

    out: dict[str, Any] = {}
    for m in pkgutil.iter_modules(analysis.__path__):
        module = importlib.import_module(f"cardenvs.analysis.{m.name}")
        if hasattr(module, "COMMAND"):
            out[module.COMMAND] = module
    for env_id in env_ids():
        for command, study in spec_of(env_id).studies.items():
            out[command] = PairingsStudy(env_id, study) if isinstance(study, Pairings) else load(study)
    return out


def _run_study(command: str, study: Any, args: argparse.Namespace) -> int:
    # the studies check their own arguments with ValueError (hand sizes, deal counts), so a study's
    # ValueError is reported as a user error; known limitation: one raised later would be reported alike
    with user_input(f"analyze {command}: "):
        return study.run(args)


def add_parsers(sub: Any, studies: bool = True) -> None:
    """The parsers of ``list``, ``arena``, ``play`` and ``analyze`` (``studies``: with the parser of each study;
    false where another command runs, since listing the studies imports every game)."""
    p = sub.add_parser("list", help="games with their options, agents and analyses")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("arena", help="a tournament between agents, with confidence intervals and ratings")
    add_game_args(p)
    p.add_argument(
        "--agents",
        required=True,
        help="comma-separated agent names, one per seat (more with --round-robin): random, a game's heuristics "
        "and models as GAME.NAME, search as GAME.pimc(playouts=500,seed=1) (see cardenvs list)",
    )
    p.add_argument("--games", type=at_least(1), default=None, help="deals to play (default 100, or a deal file's)")
    p.add_argument("--seed", type=at_least(0), default=0, help="tournament seed, an integer >= 0 (default 0)")
    p.add_argument(
        "--duplicate",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="replay each deal with the agents permuted over the seats (default on)",
    )
    aliases, names = _role_phase_flags()
    p.add_argument(
        "--role-phase",
        *aliases,
        dest="role_phase",
        action="store_true",
        help="for a game whose roles are chosen in a phase before play: duplicate deals with that phase played "
        "instead of the roles the duplicate mode fixes; reports how often each agent plays each role and wins "
        f"in it ({names})",
    )
    p.add_argument("--workers", type=at_least(1), default=1, help="processes to spread games over (same results)")
    p.add_argument(
        "--unsandboxed",
        action="store_true",
        help="run programs (cmd:COMMAND, botzone:COMMAND) without a sandbox where none can be made here (no "
        "bubblewrap, or user namespaces refused); the report says so. Without it such programs are refused",
    )
    p.add_argument(
        "--engine",
        choices=("auto", "vector", "aec"),
        default="auto",
        help="vector: every game of a job at once on a vector env (agents with act_batch: random, the heuristics, "
        "dmc models); aec: one game at a time; auto (default): vector for tables whose agents all batch and no "
        "--replays. Same results",
    )
    p.add_argument("--round-robin", action="store_true", help="play every table of agents out of a larger list")
    p.add_argument("--out", help="write results as JSON (and CSV beside it)")
    p.add_argument("--plot", help="draw win rates with 95%% intervals to this PNG")
    p.add_argument(
        "--replays",
        metavar="DIR",
        help="write every game as a replay (JSON, DIR/game_NNNNNN.json; a new or empty folder)",
    )
    p.add_argument(
        "--transcripts",
        metavar="DIR",
        help="write every game's transcript: each decision of its language-model seats (llm:MODEL), the messages "
        "sent and the answers, as JSON lines (DIR/game_NNNNNN.jsonl, named as replays are; with --replays also "
        "inside each replay); on the aec engine",
    )
    p.add_argument(
        "--deals",
        metavar="FILE",
        help="play the deals of a deal file (the first --games of them; all by default), on the aec engine; "
        f"FORMAT:FILE for a game's own format ({_deal_formats()})",
    )
    p.add_argument(
        "--save-deals",
        metavar="FILE",
        help="write the deals to a deal file (JSON, or FORMAT:FILE) and play them from it, so --deals FILE with "
        "the same --seed gives the same results",
    )
    p.add_argument(
        "--luck-adjusted",
        action="store_true",
        help="beside every win rate, mean score and score margin: an unbiased luck-adjusted estimate with its 95%% "
        "interval and the variance ratio (plain variance over adjusted), from control variates of the game's value "
        "function at the deal and at the decisions of agents whose action distribution is known (random) or "
        "sampled (a search, asked again --luck-samples times); a table with such an agent plays on the aec "
        "engine. Not with --deals (docs: luck-adjusted estimates)",
    )
    p.add_argument(
        "--luck-value",
        metavar="NAME",
        default=None,
        help="with --luck-adjusted: the value function, whose self-play from a position is f: a numba policy of "
        "the game (rule, heuristic, ...) or a model (GAME.dmc, dmc:PATH); default: the game's declared heuristic",
    )
    for flag, low, metavar, text in (
        ("--luck-reference", 2, "N", "reference deals for the deal term's mean (default 10 per deal played)"),
        (
            "--luck-samples",
            0,
            "K",
            "how often a search agent is asked again at each of its decisions to sample its move's distribution "
            "(default 4; each costs one more search; 0: no terms at its decisions)",
        ),
        (
            "--luck-rollouts",
            1,
            "M",
            "a decision term's rollouts after each move are averaged over M rollouts where they seat random play "
            "(default 16)",
        ),
    ):
        p.add_argument(flag, type=at_least(low), default=None, metavar=metavar, help=f"with --luck-adjusted: {text}")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_arena)

    p = sub.add_parser("ladder", help="place an agent on a game's graded ladder of anchor agents, with an interval")
    add_game(p)
    p.add_argument("agent", nargs="?", help="the agent to place (any name the arena takes, cmd:COMMAND included)")
    p.add_argument("--games", type=at_least(1), default=None, help="duplicate deals per anchor (default 100)")
    p.add_argument("--seed", type=at_least(0), default=0, help="seed of the deals and the bootstrap (default 0)")
    p.add_argument("--workers", type=at_least(1), default=1, help="processes to spread games over (same results)")
    p.add_argument("--leaderboard", metavar="FILE", help="append the placement to this leaderboard (JSON)")
    p.add_argument("--anchors", metavar="FILE", help="reference ratings to place against (default: the shipped)")
    p.add_argument(
        "--luck-adjusted",
        action="store_true",
        help="also a luck-adjusted rating with its interval and variance ratio (the arena's --luck-adjusted deal "
        "term on each anchor's counts; docs: luck-adjusted estimates)",
    )
    p.add_argument(
        "--reference",
        action="store_true",
        help="rate the anchors instead (every pair, --games deals each, default 40) and write their ratings",
    )
    p.add_argument("--out", help="with --reference: where to write (default: the shipped file)")
    p.add_argument(
        "--unsandboxed",
        action="store_true",
        help="run a program (cmd:COMMAND, botzone:COMMAND) without a sandbox where none can be made here; the "
        "placement says so. Without it such a program is refused",
    )
    p.set_defaults(func=cmd_ladder)

    p = sub.add_parser("play", help="play against agents (or with them) in the terminal")
    add_game_args(p)
    p.add_argument(
        "--agents",
        default=None,
        help="agents, comma-separated (cycled over the other seats); default: the agent the game declares for "
        "people to play against (its spec's play_agent), else random",
    )
    p.add_argument("--seat", type=at_least(0), default=None, help="your seat (default 0)")
    p.add_argument(
        "--humans",
        metavar="SEATS",
        default=None,
        help="seats played by people sharing this terminal, comma-separated (e.g. 0,2); before each one's turn "
        "the screen asks to pass the keyboard and shows their hand only once they press Enter",
    )
    p.add_argument("--seed", type=at_least(0), default=None, help="deal seed, an integer >= 0 (default: random)")
    p.add_argument("--reveal", action="store_true", help="show every hand (teaching)")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("analyze", help="exact and Monte Carlo studies")
    asub = p.add_subparsers(dest="analysis", metavar="STUDY")
    for command, study in sorted(_analyses().items()) if studies else ():
        text = getattr(study, "HELP", "")
        # argparse %-formats help strings, not descriptions
        ap = asub.add_parser(command, help=text.replace("%", "%%"), description=text)
        study.add_arguments(ap)
        ap.set_defaults(func=lambda a, c=command, s=study: _run_study(c, s, a))
