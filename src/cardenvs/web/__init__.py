"""``cardenvs serve``: watch and play every game in the browser (the ``web`` extra: Starlette, uvicorn, Jinja2).

:func:`create_app` builds the app (:mod:`cardenvs.web.app`); :func:`listen` binds the socket and :func:`serve`
runs the app on it with uvicorn. ``cardenvs`` itself never imports this package: ``cardenvs serve`` imports it
when it runs. Models are loaded once per process and shared by every game; new games are admitted within a
memory budget (:mod:`.memory`), and agents think in a bounded set of threads (:mod:`.thinking`).

There is no authentication: anyone who can reach the port can play, watch and open the replays (and models)
folder's files. The app refuses requests for other Host names and changes sent by other sites
(:mod:`cardenvs.web.guard`), but bound beyond loopback it trusts the network; :func:`is_loopback` tells.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from pathlib import Path

from .app import create_app
from .memory import MemoryBudget, describe, parse_size
from .thinking import DEFAULT_WORKERS


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a ``--host`` value) is this machine only: ``localhost`` or a loopback address."""
    if host.strip().lower().rstrip(".") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` with ``SO_REUSEADDR`` (as uvicorn's own): a restart right after the last
    run binds though that run's closed connections still linger (TIME_WAIT); a port another server listens
    on is still ``OSError``."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
    except OSError:
        sock.close()
        raise
    return sock


def serve(
    sock: socket.socket,
    replays: str | Path | None = None,
    models: str | Path | None = None,
    hosts: Iterable[str] = (),
    leaderboard: str | Path | None = None,
    max_memory: int | None = None,
    workers: int | None = None,
) -> int:
    """Run the app on ``sock`` (from :func:`listen`) until interrupted (Ctrl-C); ``hosts``: Host names accepted
    besides ``localhost`` and IP addresses (the ``--host`` given, ``--allow-host``); ``leaderboard``: the file the
    start page's leaderboards come from; ``max_memory``: the memory budget in bytes new games are admitted
    within (None: half the machine's, :mod:`.memory`); ``workers``: the threads agents think in (None: one per
    core, :mod:`.thinking`)."""
    import uvicorn

    budget = MemoryBudget(max_memory)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(
        f"cardenvs serve: open http://{shown}:{port}/ (Ctrl-C stops); new games up to {describe(budget.budget)} "
        "of memory",
        flush=True,
    )
    app = create_app(
        replays,
        models=models,
        hosts=hosts,
        leaderboard=leaderboard,
        memory=budget,
        workers=workers if workers is not None else DEFAULT_WORKERS,
    )
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    server.run(sockets=[sock])
    return 0


__all__ = ["create_app", "is_loopback", "listen", "parse_size", "serve"]
