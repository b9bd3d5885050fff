"""``cardenvs bench``, ``serve`` and ``cache``: speed measurements, the web app and the compiled-kernel cache."""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import sys
from collections.abc import Iterator
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

from .. import __version__
from .common import CLIError, plugins, user_input

#: entry-point group of benchmarks installed by other packages (a checkout's ``benchmarks/`` is found as a
#: folder): a benchmark is ``run(quick) -> rows``
BENCH_GROUP = "cardenvs.bench"


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
    if args.leaderboard:
        from ..analysis import grading

        if Path(args.leaderboard).exists():
            with user_input("--leaderboard: "):
                grading.read(args.leaderboard)
    from ..web import is_loopback, listen, parse_size, serve

    try:
        max_memory = parse_size(args.max_memory) if args.max_memory is not None else None
    except ValueError as exc:
        raise CLIError(f"--max-memory: {exc}") from None
    if args.workers is not None and args.workers < 1:
        raise CLIError(f"--workers {args.workers}: at least 1")
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
        hosts = [args.host, *args.allow_host]
        return serve(
            sock,
            replays=args.replays,
            models=args.models,
            hosts=hosts,
            leaderboard=args.leaderboard,
            max_memory=max_memory,
            workers=args.workers,
        )


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
    for root in (Path.cwd(), *here.parents[2:4]):
        folder = root / "benchmarks"
        if (folder / "__init__.py").is_file() and (folder / "common.py").is_file():
            if str(root) not in sys.path:
                sys.path.insert(0, str(root))
            return {p.stem[len("bench_") :]: f"benchmarks.{p.stem}:run" for p in sorted(folder.glob("bench_*.py"))}
    return {}


def cmd_bench(args: argparse.Namespace) -> int:
    found: dict[str, Any] = {**_checkout_benchmarks(), **plugins(BENCH_GROUP)}
    if not found:
        raise CLIError(
            "cardenvs bench runs the benchmarks of a checkout of the repository (benchmarks/ is not part of the "
            "installed package): run it from the repository's folder, e.g. git clone ... && cd cardenvs && "
            "cardenvs bench"
        )
    if args.out:
        from ..arena import check_output_path

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


# ------------------------------------------------------------------ cache
def cmd_cache(args: argparse.Namespace) -> int:
    from .. import cache

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


def add_parsers(sub: Any) -> None:
    """The parsers of ``bench``, ``serve`` and ``cache``."""
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
        "--leaderboard", metavar="FILE", help="show this leaderboard (cardenvs ladder --leaderboard) on the start page"
    )
    p.add_argument(
        "--allow-host",
        metavar="NAME",
        action="append",
        default=[],
        help="also accept this Host name (besides localhost, IP addresses and --host); repeatable",
    )
    p.add_argument(
        "--max-memory",
        metavar="SIZE",
        help="refuse new games (503) when the server's memory would pass SIZE (4G, 512M; default: half the machine's)",
    )
    p.add_argument("--workers", type=int, help="threads the agents think in (default: one per core)")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser(
        "cache",
        help="the compiled-kernel cache: where it is and how large (info), or remove it (clear)",
        description="numba compiles the kernels on first use and keeps them in one folder per version of the "
        "source (any edit gets a fresh folder; old ones are pruned). info lists the folders, clear removes them.",
    )
    p.add_argument("action", choices=("info", "clear"), help="info (default) or clear", nargs="?", default="info")
    p.set_defaults(func=cmd_cache)
