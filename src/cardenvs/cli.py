"""The ``cardenvs`` command: list, arena, play, analyze, bench, train.

Every subcommand has ``--help``; errors say what to do and exit with status 2.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import pkgutil
import sys
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import yaml

from . import __version__
from .registry import env_ids, raw_env_class, resolve_id


class CLIError(Exception):
    """A user error: printed as 'cardenvs: error: ...' with exit status 2."""


# ------------------------------------------------------------------ options and configs
def parse_option(text: str) -> tuple[str, Any]:
    """``key=value`` with the value read as YAML (``true``, ``3``, ``rarity``)."""
    if "=" not in text:
        raise CLIError(f"--option {text!r} must look like key=value (e.g. --option players=4)")
    key, _, value = text.partition("=")
    return key.strip(), yaml.safe_load(value)


def load_config(path: str | None) -> dict[str, Any]:
    """A YAML config: either ``{game: ..., options: {...}, ...}`` or a plain mapping of env options."""
    if not path:
        return {}
    p = Path(path)
    if not p.exists():
        raise CLIError(f"config file {path} does not exist")
    data = yaml.safe_load(p.read_text()) or {}
    if not isinstance(data, dict):
        raise CLIError(f"config file {path} must hold a mapping, got {type(data).__name__}")
    return data


def game_options(args: argparse.Namespace) -> dict[str, Any]:
    config = load_config(getattr(args, "config", None))
    options = dict(config.get("options", {k: v for k, v in config.items() if k not in ("game", "env")}))
    for text in getattr(args, "option", None) or []:
        key, value = parse_option(text)
        options[key] = value
    return options


# ------------------------------------------------------------------ list
def cmd_list(args: argparse.Namespace) -> int:
    from .agent import known_agents
    print(f"cardenvs {__version__}\n\ngames:")
    for env_id in env_ids():
        cls = raw_env_class(env_id)
        print(f"  {env_id} (short name {env_id.rsplit('_v', 1)[0]})")
        for o in cls.all_options():
            print(f"    {o.name:18s} default {o.describe_default():10s} accepts {o.allowed()}")
        if len(cls.VARIANTS) > 1:
            print(f"    variants: {', '.join(f'{k}={v}' for k, v in cls.VARIANTS.items() if k != 'default')}")
    print("\nagents:\n  " + "\n  ".join(known_agents()) + "\n  ppo:PATH, rllib:PATH, module:Class")
    print("\nanalyses: " + ", ".join(sorted(_analyses())))
    return 0


# ------------------------------------------------------------------ arena
def cmd_arena(args: argparse.Namespace) -> int:
    from . import arena
    env_id = resolve_id(args.game)
    options = game_options(args)
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    results = arena.run_tournament(
        env_id, agents, games=args.games, seed=args.seed, options=options, duplicate=args.duplicate,
        workers=args.workers, round_robin=args.round_robin, progress=not args.no_progress)
    print(results.report())
    if args.out:
        results.save(args.out)
        print(f"\nwrote {args.out}" + (f" and {Path(args.out).with_suffix('.csv')}" if args.out.endswith(".json") else ""))
    if args.plot:
        results.plot(args.plot)
        print(f"wrote {args.plot}")
    return 0


# ------------------------------------------------------------------ play
def cmd_play(args: argparse.Namespace) -> int:
    from .play import play_terminal
    return play_terminal(resolve_id(args.game), args.agents, game_options(args), args.seat, args.seed,
                         args.reveal, sys.stdin, sys.stdout)


# ------------------------------------------------------------------ analyze
def _analyses() -> dict[str, str]:
    from . import analysis
    out = {}
    for m in pkgutil.iter_modules(analysis.__path__):
        module = importlib.import_module(f"cardenvs.analysis.{m.name}")
        if hasattr(module, "COMMAND"):
            out[module.COMMAND] = module.__name__
    return out


# ------------------------------------------------------------------ bench
def cmd_bench(args: argparse.Namespace) -> int:
    try:
        import benchmarks
    except ImportError:
        raise CLIError("the benchmarks package is not installed; run from the repository or reinstall cardenvs")
    rows = []
    names = [m.name for m in pkgutil.iter_modules(benchmarks.__path__) if m.name.startswith("bench_")]
    if args.only:
        unknown = set(args.only) - {n[len("bench_"):] for n in names}
        if unknown:
            raise CLIError(f"unknown benchmark {sorted(unknown)}; known: {', '.join(n[6:] for n in names)}")
        names = [n for n in names if n[len("bench_"):] in args.only]
    for name in sorted(names):
        module = importlib.import_module(f"benchmarks.{name}")
        print(f"running {name} ...", file=sys.stderr, flush=True)
        for r in module.run(args.quick):
            rows.append(r)
            ratio = f"{r['ratio']:.2f}x {r['reference']}" if r.get("ratio") is not None else ""
            print(f"{r['benchmark']:52s} {r['value']:>14,.1f} {r['unit']:12s} {ratio:28s} {r.get('note', '')}", flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps({"version": __version__, "rows": rows}, indent=2))
    return 0


# ------------------------------------------------------------------ train
def cmd_train(args: argparse.Namespace, extra: Sequence[str]) -> int:
    env_id = resolve_id(args.game)
    short = env_id.rsplit("_v", 1)[0]
    if args.backend == "rllib":
        module_name = "training.rllib_selfplay"
        default = f"configs/{short}_rllib.yaml"
    else:
        module_name = "training.selfplay"
        default = f"configs/{short}_ppo.yaml"
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise CLIError(f"training needs the train extra (pip install 'cardenvs[train]'): {exc}")
    argv = ["--config", args.config or default, *extra]
    return module.main(argv)


# ------------------------------------------------------------------ parser
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cardenvs", description="Card-game environments for RL: "
                                     "tournaments, terminal play, studies, benchmarks and training.")
    parser.add_argument("--version", action="version", version=f"cardenvs {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("list", help="games with their options, agents and analyses")
    p.set_defaults(func=cmd_list)

    def game_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("game", help=f"env id or short name: {', '.join(env_ids())}")
        p.add_argument("--option", "-o", action="append", metavar="KEY=VALUE", help="env option (repeatable)")
        p.add_argument("--config", help="YAML file of env options (configs/*.yaml)")

    p = sub.add_parser("arena", help="a tournament between agents, with confidence intervals and ratings")
    game_args(p)
    p.add_argument("--agents", required=True, help="comma-separated agent names, e.g. twos.heuristic,random,random")
    p.add_argument("--games", type=int, default=100, help="deals to play (default 100)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--duplicate", action=argparse.BooleanOptionalAction, default=True,
                   help="replay each deal with the agents permuted over the seats (default on)")
    p.add_argument("--workers", type=int, default=1, help="processes to spread games over (same results)")
    p.add_argument("--round-robin", action="store_true", help="play every table of agents out of a larger list")
    p.add_argument("--out", help="write results as JSON (and CSV beside it)")
    p.add_argument("--plot", help="draw win rates with 95%% intervals to this PNG")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_arena)

    p = sub.add_parser("play", help="play against agents in the terminal")
    game_args(p)
    p.add_argument("--agents", default="random", help="opponents, comma-separated (cycled over the other seats)")
    p.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--reveal", action="store_true", help="show every hand (teaching)")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("analyze", help="exact and Monte Carlo studies")
    asub = p.add_subparsers(dest="analysis", metavar="STUDY")
    for command, module_name in sorted(_analyses().items()):
        module = importlib.import_module(module_name)
        text = getattr(module, "HELP", "").replace("%", "%%")  # argparse formats help strings
        ap = asub.add_parser(command, help=text, description=text)
        module.add_arguments(ap)
        ap.set_defaults(func=lambda a, m=module: m.run(a))

    p = sub.add_parser("bench", help="speed measurements (ratios against references measured in the same run)")
    p.add_argument("--quick", action="store_true", help="shorter runs")
    p.add_argument("--only", nargs="+", metavar="NAME", help="run only these benchmarks (e.g. aec twos)")
    p.add_argument("--out", help="write the rows as JSON")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("train", help="self-play training (needs the train extra); extra flags go to the trainer")
    p.add_argument("game", help="env id or short name")
    p.add_argument("--backend", choices=("sb3", "rllib"), default="sb3")
    p.add_argument("--config", help="training YAML (default configs/<game>_ppo.yaml)")
    p.set_defaults(func=None)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["train"]:
            args, extra = parser.parse_known_args(argv)
            return cmd_train(args, extra)
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler below, not at interpreter exit
        return code
    except (CLIError, ValueError) as exc:
        print(f"cardenvs: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader went away (`cardenvs list | head`): exit quietly, as Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
