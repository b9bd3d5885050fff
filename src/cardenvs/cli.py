"""The ``cardenvs`` command: list, arena, play, analyze, bench, serve, train, cache.

Every subcommand has ``--help``. A mistake in what the user asked for (an unknown game, option, agent or
config key, a config for another game, bad YAML, a path that cannot be written, a negative seed) is found
before anything runs and printed as one line, ``cardenvs: error: ...``, with exit status 2. A ``ValueError``
raised once the checked work is running is a bug and keeps its traceback: only the checking steps run
inside :func:`user_input`, which turns their ``ValueError`` into a :class:`CLIError`. (``analyze`` runs each
study inside it, since the studies check their own arguments.)
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import json
import os
import pkgutil
import sys
import warnings
from collections.abc import Iterator, Sequence
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any

from . import __version__
from . import config as cfg
from .config import ConfigError, add_training_flags, at_least, read_yaml
from .registry import env_ids, resolve_id, short_name, spec_of

#: entry-point groups of the code ``bench`` and ``train`` run, which lives outside this package
#: (``benchmarks/`` and ``training/`` register theirs in pyproject.toml): a benchmark is
#: ``run(quick) -> rows``, a trainer ``main(argv) -> exit status``
BENCH_GROUP = "cardenvs.bench"
TRAIN_GROUP = "cardenvs.train"


def _plugins(group: str) -> dict[str, EntryPoint]:
    """The entry points installed packages register in ``group``, by name."""
    return {ep.name: ep for ep in entry_points(group=group)}


class CLIError(Exception):
    """A user error: printed as 'cardenvs: error: ...' with exit status 2."""


@contextlib.contextmanager
def user_input(prefix: str = "") -> Iterator[None]:
    """Checking what the user asked for: a ``ValueError`` here is the user's mistake (a :class:`CLIError`)."""
    try:
        yield
    except ValueError as exc:
        raise CLIError(f"{prefix}{exc}") from None


# ------------------------------------------------------------------ options and configs (cardenvs.config)
def game_options(args: argparse.Namespace, env_id: str) -> dict[str, Any]:
    """The env options of a command: its ``--config``, then each ``-o key=value`` (which overrides the config)."""
    return cfg.game_options(env_id, getattr(args, "config", None), getattr(args, "option", None) or [])


# ------------------------------------------------------------------ list
def cmd_list(args: argparse.Namespace) -> int:
    from .agent import agent_name_forms, known_agents
    from .search import METHODS, describe_parameters, game_policies

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
    from . import arena
    from .agent import split_agent_names

    with user_input():
        env_id = resolve_id(args.game)
    options = game_options(args, env_id)
    agents = split_agent_names(args.agents)
    if not all(agents):
        raise CLIError(f"--agents {args.agents!r} has an empty name; separate agent names by single commas")
    if args.out:
        with user_input("--out: "):
            arena.check_output_path(args.out, "results", json_with_csv=True)
    if args.plot:
        with user_input("--plot: "):
            arena.check_output_path(args.plot, "plot")
        if importlib.util.find_spec("matplotlib") is None:
            raise CLIError("--plot needs matplotlib (pip install 'cardenvs[plot]')")
    with user_input():
        plan = arena.plan_tournament(
            env_id,
            agents,
            games=args.games,
            seed=args.seed,
            options=options,
            duplicate=args.duplicate,
            workers=args.workers,
            round_robin=args.round_robin,
            role_phase=args.role_phase,
            replays=args.replays,
            engine=args.engine,
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
    return 0


def _role_phase_flags() -> tuple[list[str], str]:
    """The games' own names of their role phase (their specs' ``RolePhase``) as aliases of ``--role-phase``,
    and the help's words for them."""
    from .registry import spec_of

    games: dict[str, list[str]] = {}
    for env_id in env_ids():
        roles = spec_of(env_id).roles
        if roles is not None and roles.phase is not None:
            games.setdefault(roles.phase.flag, []).append(spec_of(env_id).title)
    names = "; ".join(f"{flag}: {' and '.join(titles)}'s name for it" for flag, titles in games.items())
    return list(games), names or "no game has one"


# ------------------------------------------------------------------ play
def cmd_play(args: argparse.Namespace) -> int:
    from .play import run_play, setup_play

    with user_input():
        env_id = resolve_id(args.game)
    options = game_options(args, env_id)
    with user_input():
        session = setup_play(env_id, args.agents, options, args.seat, args.seed, args.reveal)
    return run_play(session, sys.stdin, sys.stdout)


# ------------------------------------------------------------------ analyze
def _analyses() -> dict[str, Any]:
    """Every ``cardenvs analyze`` study by command: the generic ones (a module of :mod:`cardenvs.analysis` with
    ``COMMAND``) and each game's own (its spec's ``studies``). A study has ``HELP``, ``add_arguments(parser)``
    and ``run(args)``."""
    from . import analysis
    from .analysis.pairings import PairingsStudy
    from .core.spec import Pairings, load
    from .registry import spec_of

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


# ------------------------------------------------------------------ serve
def cmd_serve(args: argparse.Namespace) -> int:
    """The web app (``cardenvs.web``, the web extra): imported here, so ``cardenvs`` never needs starlette."""
    missing = [m for m in ("starlette", "uvicorn", "jinja2") if importlib.util.find_spec(m) is None]
    if missing:
        raise CLIError(
            f"cardenvs serve needs the web extra ({', '.join(missing)} missing): pip install 'cardenvs[web]'"
        )
    if not 0 < args.port < 65536:
        raise CLIError(f"--port {args.port} is not a port number (1..65535)")
    for flag, folder in (("--replays", args.replays), ("--models", args.models)):
        if folder and not Path(folder).is_dir():
            raise CLIError(f"{flag} {folder} is not a folder")
    from .web import is_loopback, listen, serve

    try:
        sock = listen(args.host, args.port)
    except OSError as exc:
        reason = exc.strerror or exc
        raise CLIError(f"cannot serve on {args.host}:{args.port}: {reason}; pass another --port") from None
    if not is_loopback(args.host):
        print(
            f"cardenvs serve: warning: --host {args.host} is reachable from other machines and there is no "
            "authentication: anyone who can connect can play, watch and open the replays and models folders' "
            "files; bind 127.0.0.1 (the default) unless you trust the network",
            file=sys.stderr,
            flush=True,
        )
    with sock:
        return serve(sock, replays=args.replays, models=args.models, hosts=[args.host, *args.allow_host])


# ------------------------------------------------------------------ bench
#: seconds between the progress lines of a benchmark that is still measuring
BENCH_TICK_SECONDS = 15.0


@contextlib.contextmanager
def still_running(label: str, every: float, enabled: bool = True) -> Iterator[None]:
    """Periodic ``label (N s)`` lines on stderr while the body runs (a step with no output of its own); the
    lines come from a thread, so a body that holds the GIL for long (one numba call) delays them."""
    if not enabled:
        yield
        return
    import threading
    import time

    stop = threading.Event()
    started = time.monotonic()

    def tick() -> None:
        while not stop.wait(every):
            print(f"  ... {label} ({time.monotonic() - started:.0f} s)", file=sys.stderr, flush=True)

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _checkout_benchmarks() -> dict[str, Any]:
    """The repository's benchmarks (``benchmarks/bench_NAME.py``, each with ``run(quick) -> rows``), found
    in the current folder or in the checkout this package is installed from (an editable install); the wheel
    does not install them."""
    here = Path(__file__).resolve()
    for root in (Path.cwd(), *here.parents[1:3]):
        folder = root / "benchmarks"
        if (folder / "__init__.py").is_file() and (folder / "common.py").is_file():
            if str(root) not in sys.path:
                sys.path.insert(0, str(root))
            return {p.stem[len("bench_") :]: f"benchmarks.{p.stem}:run" for p in sorted(folder.glob("bench_*.py"))}
    return {}


def cmd_bench(args: argparse.Namespace) -> int:
    found: dict[str, Any] = {**_checkout_benchmarks(), **_plugins(BENCH_GROUP)}
    if not found:
        raise CLIError(
            "cardenvs bench runs the benchmarks of a checkout of the repository (benchmarks/ is not part of the "
            "installed package): run it from the repository's folder, e.g. git clone ... && cd cardenvs && "
            "cardenvs bench"
        )
    if args.out:
        from .arena import check_output_path

        with user_input("--out: "):
            check_output_path(args.out, "benchmark rows")
    names = sorted(found)
    if args.only:
        unknown = set(args.only) - set(names)
        if unknown:
            raise CLIError(f"unknown benchmark {sorted(unknown)}; known: {', '.join(names)}")
        names = [n for n in names if n in args.only]
    rows = []
    for i, name in enumerate(names, 1):
        entry = found[name] if isinstance(found[name], EntryPoint) else EntryPoint(name, found[name], BENCH_GROUP)
        progress = not args.no_progress
        if progress:
            print(f"[{i}/{len(names)}] running {name} ({entry.value}) ...", file=sys.stderr, flush=True)
        with still_running(f"{name} still running", every=BENCH_TICK_SECONDS, enabled=progress):
            measured = list(entry.load()(args.quick))
        for r in measured:
            rows.append(r)
            ratio = f"{r['ratio']:.2f}x {r['reference']}" if r.get("ratio") is not None else ""
            print(
                f"{r['benchmark']:52s} {r['value']:>14,.1f} {r['unit']:12s} {ratio:28s} {r.get('note', '')}", flush=True
            )
    if args.out:
        Path(args.out).write_text(json.dumps({"version": __version__, "rows": rows}, indent=2))
    return 0


# ------------------------------------------------------------------ train
#: what the budget flag counts in each of this project's trainers (``--steps``)
#: the extras that install what this project's trainers import, with the modules each brings: a missing one is
#: named in one line before anything runs (a trainer registered by another package is run as it is)
TRAINER_EXTRAS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "sb3": (("train", ("torch", "stable_baselines3", "sb3_contrib", "tensorboard")),),
    "dmc": (("train", ("torch",)),),
    "rllib": (("scale", ("ray",)), ("train", ("torch",))),
}


def _missing_extra(algo: str, backend: str) -> CLIError | None:
    """The one-line error for the first extra ``backend`` needs that is not installed, or None."""
    for extra, modules in TRAINER_EXTRAS.get(backend, ()):
        missing = [m for m in modules if importlib.util.find_spec(m) is None]
        if missing:
            return CLIError(
                f"cardenvs train --algo {algo} needs the {extra} extra: pip install 'cardenvs[{extra}]' "
                f"({', '.join(missing)} not installed)"
            )
    return None


def cmd_train(args: argparse.Namespace, extra: Sequence[str], argv: Sequence[str] = ()) -> int:
    """Run the trainer on the named game with the shared flags (:func:`add_training_flags`) and the trainer's
    own ones; a config (or ``--set game=``) for another game is an error, and a config without ``game`` trains
    the named game (the trainer gets ``--set game=<env id>``)."""
    with user_input():
        env_id = resolve_id(args.game)
    short = short_name(env_id)
    trainers = _plugins(TRAIN_GROUP)
    algo = args.backend
    backend = "sb3" if algo == "ppo" else algo  # --algo ppo: MaskablePPO is the sb3 trainer
    if backend not in trainers:
        known = (
            ", ".join(sorted(trainers))
            or f"none: install cardenvs with its training/ (entry-point group {TRAIN_GROUP})"
        )
        flag = "--backend" if any(a == "--backend" or a.startswith("--backend=") for a in argv) else "--algo"
        raise CLIError(f"{flag} {algo!r} is not an installed trainer; known: ppo (= sb3), {known}")
    missing = _missing_extra(algo, backend)
    if missing:
        raise missing
    # configs/<game>_ppo.yaml for the sb3 trainer (MaskablePPO), configs/<game>_<backend>.yaml for the others
    default = f"configs/{short}_{'ppo' if backend == 'sb3' else backend}.yaml"
    config = args.config or default
    if not args.config and not Path(config).is_file():
        raise CLIError(f"no training config for {env_id}: {default} does not exist; pass --config")
    data = read_yaml(config, "training config")
    if not isinstance(data, dict):
        raise CLIError(f"training config {config} must hold a mapping of settings, got {type(data).__name__}")
    sources = [(f"training config {config}", data.get("game"))]
    sources += [(f"--set {text}", text.partition("=")[2].strip()) for text in args.set if _is_game_set(text)]
    for where, game in sources:
        if game is None:
            continue
        with user_input(f"{where}: "):
            other = resolve_id(str(game))
        if other != env_id:
            raise CLIError(
                f"{where} trains {other}, but the command names {env_id}; name {short_name(other)} "
                f"or use a config for {env_id}"
            )
    try:
        trainer = trainers[backend].load()
    except ModuleNotFoundError as exc:  # an extra's module missing although found above: still one line
        needed = {m: e for pairs in TRAINER_EXTRAS.values() for e, modules in pairs for m in modules}
        top = (exc.name or "").partition(".")[0]
        if top not in needed:
            raise  # not a missing extra: a bug in the trainer keeps its traceback
        raise CLIError(
            f"cardenvs train --algo {algo} needs the {needed[top]} extra: pip install 'cardenvs[{needed[top]}]' "
            f"({exc.name} does not import)"
        ) from None
    passed = ["--config", config, "--set", f"game={env_id}"]
    for text in args.set:
        passed += ["--set", text]
    for flag, value in (
        ("--steps", args.steps),
        ("--minutes", args.minutes),
        ("--out", args.out),
        ("--seed", args.seed),
    ):
        if value is not None:
            passed += [flag, str(value)]
    return trainer([*passed, *extra])


def _is_game_set(text: str) -> bool:
    key, sep, _ = text.partition("=")
    return bool(sep) and key.strip() == "game"


# ------------------------------------------------------------------ cache
def cmd_cache(args: argparse.Namespace) -> int:
    from . import cache

    root = cache.cache_root()
    current = Path(os.environ.get("NUMBA_CACHE_DIR", ""))
    if args.action == "clear":
        count, size = cache.clear(root)
        print(f"removed {count} cache folder(s), {size / 2**20:.1f} MiB, from {root}")
        return 0
    found = cache.folders(root)
    print(f"numba cache of cardenvs: {root} ({len(found)} folder(s), one per source version)")
    for folder in found:
        mark = "  <- this source" if folder.path == current else ""
        print(f"  {folder.path.name}  {folder.files:5d} files  {folder.bytes / 2**20:8.1f} MiB{mark}")
    if not any(f.path == current for f in found):
        print(f"  {current.name}: this source, nothing compiled yet")
    return 0


# ------------------------------------------------------------------ parser
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cardenvs",
        description="Card-game environments for RL: tournaments, terminal play, studies, benchmarks and training.",
    )
    parser.add_argument("--version", action="version", version=f"cardenvs {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("list", help="games with their options, agents and analyses")
    p.set_defaults(func=cmd_list)

    def game_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("game", help=f"env id or short name: {', '.join(env_ids())}")
        p.add_argument(
            "--option",
            "-o",
            action="append",
            metavar="KEY=VALUE",
            help="env option, the value read as YAML (repeatable; overrides the config); -o variant=NAME "
            "applies a named variant (cardenvs list), options beside it override the variant's",
        )
        p.add_argument("--config", help="game config: YAML with game and options (configs/<game>.yaml)")

    p = sub.add_parser("arena", help="a tournament between agents, with confidence intervals and ratings")
    game_args(p)
    p.add_argument(
        "--agents",
        required=True,
        help="comma-separated agent names, one per seat (more with --round-robin): random, a game's heuristics "
        "and models as GAME.NAME, search as GAME.pimc(playouts=500,seed=1) (see cardenvs list)",
    )
    p.add_argument("--games", type=at_least(1), default=100, help="deals to play (default 100)")
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
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_arena)

    p = sub.add_parser("play", help="play against agents in the terminal")
    game_args(p)
    p.add_argument("--agents", default="random", help="opponents, comma-separated (cycled over the other seats)")
    p.add_argument("--seat", type=at_least(0), default=0, help="your seat (default 0)")
    p.add_argument("--seed", type=at_least(0), default=None, help="deal seed, an integer >= 0 (default: random)")
    p.add_argument("--reveal", action="store_true", help="show every hand (teaching)")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("analyze", help="exact and Monte Carlo studies")
    asub = p.add_subparsers(dest="analysis", metavar="STUDY")
    for command, study in sorted(_analyses().items()):
        text = getattr(study, "HELP", "")
        # argparse %-formats help strings, not descriptions
        ap = asub.add_parser(command, help=text.replace("%", "%%"), description=text)
        study.add_arguments(ap)
        ap.set_defaults(func=lambda a, c=command, s=study: _run_study(c, s, a))

    p = sub.add_parser("bench", help="speed measurements (ratios against references measured in the same run)")
    p.add_argument("--quick", action="store_true", help="shorter runs")
    p.add_argument("--only", nargs="+", metavar="NAME", help="run only these benchmarks (e.g. aec vector)")
    p.add_argument("--out", help="write the rows as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress lines on stderr (the rows still print)")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("serve", help="watch and play in the browser: a local web app (needs the web extra)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--replays", metavar="DIR", help="the folder replays are read from (from arena --replays)")
    p.add_argument("--models", metavar="DIR", help="the folder KIND:PATH agents (ppo:, dmc:, rllib:) are loaded from")
    p.add_argument(
        "--allow-host",
        metavar="NAME",
        action="append",
        default=[],
        help="also accept this Host name (besides localhost, IP addresses and --host); repeatable",
    )
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser(
        "cache",
        help="the compiled-kernel cache: where it is and how large (info), or remove it (clear)",
        description="numba compiles the kernels on first use and keeps them in one folder per version of the "
        "source (any edit gets a fresh folder; old ones are pruned). info lists the folders, clear removes them.",
    )
    p.add_argument("action", choices=("info", "clear"), help="info (default) or clear", nargs="?", default="info")
    p.set_defaults(func=cmd_cache)

    trainers = _plugins(TRAIN_GROUP)
    p = sub.add_parser(
        "train",
        help="self-play training (needs the train extra; rllib the scale extra)",
        description="Self-play training of a game with one of the installed trainers. Every trainer takes the "
        "flags below; any other flag goes to the trainer itself.",
        epilog="each trainer's own flags: "
        + "; ".join(
            f"{'ppo' if name == 'sb3' else name}: python -m {ep.module} --help" for name, ep in sorted(trainers.items())
        ),
    )
    p.add_argument("game", help=f"env id or short name: {', '.join(env_ids())}")
    p.add_argument(
        "--algo",
        "--backend",
        dest="backend",
        default="ppo",
        metavar="ALGO",
        help="the trainer: ppo (MaskablePPO, the default; also called sb3), dmc (Deep Monte Carlo) or rllib "
        f"(PPO on Ray RLlib); trainers are registered by installed packages (entry-point group {TRAIN_GROUP}); "
        "--backend is the old spelling",
    )
    add_training_flags(p, config_help="training YAML (default configs/<game>_ppo.yaml, configs/<game>_dmc.yaml, ...)")
    p.set_defaults(func=None)
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    if issubclass(category, UserWarning) and not issubclass(category, DeprecationWarning):
        print(f"cardenvs: warning: {message}", file=file or sys.stderr)
    else:
        print(warnings.formatwarning(message, category, filename, lineno, line), end="", file=file or sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["train"]:
            args, extra = parser.parse_known_args(argv)
            return cmd_train(args, extra, argv)
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler below, not at interpreter exit
        return code
    except (CLIError, ConfigError) as exc:  # another ValueError outside user_input() is a bug: it keeps its traceback
        print(f"cardenvs: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader went away (`cardenvs list | head`): exit quietly, as Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
