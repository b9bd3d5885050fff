"""The web app under load (issue 62, item 5): ``--sessions`` Dou Dizhu games played at once against the game's
play agent (``doudizhu.stakes_pimc``), each making a move every ``--every`` seconds for ``--seconds``, through
``cardenvs serve`` started in a subprocess (so its memory is the server's alone).

    python -m benchmarks.web_sessions --sessions 30 --every 2 --seconds 120

Each table starts a new game (``/new``, play mode, seat 0), then at every tick reads its view and, when it is
the person's turn, posts a random legal move (seeded), whose answer comes after the agents have replied; a game
that ends is followed by a new one. A request has ``--timeout`` seconds (60: the issue's) and one that takes
longer counts as timed out. Printed: the move latency's p50 / p95 / max, the new games' the same and how many
timed out, the server's RSS after a warm-up game (one session), at its peak and at the end with the sessions it
then holds, the load average before and after, and which ``cardenvs`` the server ran (to measure an older
version: ``git worktree add /tmp/web-old COMMIT`` and run this with ``PYTHONPATH=/tmp/web-old/src``).

It is no test and not part of ``cardenvs bench``: it takes minutes and its figures depend on the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import threading
import time

import httpx
import numpy as np


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def rss_mib(pid: int) -> float:
    """The resident memory of process ``pid`` (``VmRSS``), in MiB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise ValueError(f"no VmRSS for process {pid}")


def loadavg() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


class Watcher:
    """Samples the server's RSS every ``every`` seconds in a thread; :attr:`peak` is the largest seen."""

    def __init__(self, pid: int, every: float = 0.5):
        self.pid, self.every, self.peak = pid, every, 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.peak = max(self.peak, rss_mib(self.pid))

    def __enter__(self) -> Watcher:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


class Table:
    """One person at one table: new games, a move every ``every`` seconds, the latencies measured."""

    def __init__(self, client: httpx.AsyncClient, seed: int, timeout: float):
        self.client, self.seed, self.timeout = client, seed, timeout
        self.rng = np.random.default_rng(seed)
        self.moves: list[float] = []
        self.new_games: list[float] = []
        self.timeouts = {"move": 0, "new": 0}
        self.errors: list[str] = []
        self.sid: str | None = None
        self.games = 0

    async def timed(self, what: str, request) -> httpx.Response | None:
        started = time.perf_counter()
        try:
            response = await asyncio.wait_for(request, self.timeout)
        except (asyncio.TimeoutError, httpx.TimeoutException):
            self.timeouts[what] += 1
            (self.moves if what == "move" else self.new_games).append(self.timeout)
            return None
        (self.moves if what == "move" else self.new_games).append(time.perf_counter() - started)
        if response.status_code not in (200, 303):
            self.errors.append(f"{what}: {response.status_code} {response.text[:200]}")
        return response

    async def new_game(self) -> None:
        self.games += 1
        params = {"mode": "play", "game": "doudizhu", "seat": 0, "seed": self.seed * 1000 + self.games}
        response = await self.timed("new", self.client.get("/new", params=params, follow_redirects=False))
        ok = response is not None and response.status_code == 303
        self.sid = response.headers["location"].rsplit("/", 1)[1] if ok and response is not None else None

    async def play(self, until: float, every: float) -> None:
        loop = asyncio.get_running_loop()
        tick = loop.time()
        while loop.time() < until:
            if self.sid is None:
                await self.new_game()
            else:
                v = (await self.client.get(f"/api/game/{self.sid}")).json()
                if v.get("over"):
                    self.sid = None
                    await self.new_game()
                elif v.get("your_turn"):
                    move = v["legal"][int(self.rng.integers(len(v["legal"])))]["action"]
                    body = {"step": v["step"], "action": move}
                    response = await self.timed("move", self.client.post(f"/api/game/{self.sid}/move", json=body))
                    if response is None or response.status_code != 200:
                        self.sid = None  # a game left behind after a timeout: start another
            tick += every
            await asyncio.sleep(max(0.0, tick - loop.time()))


def quantiles(values: list[float]) -> str:
    if not values:
        return "none"
    p50, p95 = np.percentile(values, [50, 95])
    return f"p50 {p50:.2f} s, p95 {p95:.2f} s, max {max(values):.2f} s ({len(values)})"


async def measure(base: str, sessions: int, every: float, seconds: float, timeout: float) -> list[Table]:
    limits = httpx.Limits(max_connections=sessions * 2, max_keepalive_connections=sessions * 2)
    async with httpx.AsyncClient(base_url=base, timeout=timeout + 5, limits=limits) as client:
        tables = [Table(client, seed, timeout) for seed in range(1, sessions + 1)]
        until = asyncio.get_running_loop().time() + seconds
        await asyncio.gather(*(t.play(until, every) for t in tables))
    return tables


def warm_up(base: str, timeout: float) -> None:
    """One whole game at one table (kernels compiled or read from the cache, the model loaded)."""

    async def game() -> None:
        async with httpx.AsyncClient(base_url=base, timeout=timeout) as client:
            table = Table(client, 0, timeout)
            await table.new_game()
            while table.sid is not None:
                v = (await client.get(f"/api/game/{table.sid}")).json()
                if v["over"]:
                    break
                move = {"step": v["step"], "action": v["legal"][0]["action"]}
                (await client.post(f"/api/game/{table.sid}/move", json=move)).raise_for_status()

    asyncio.run(game())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--every", type=float, default=2.0, help="seconds between a table's moves")
    parser.add_argument("--seconds", type=float, default=120.0, help="how long the tables play")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds a request may take")
    parser.add_argument("--serve", nargs=argparse.REMAINDER, default=[], help="more cardenvs serve arguments")
    args = parser.parse_args()
    which = subprocess.run(
        [sys.executable, "-c", "import cardenvs; print(cardenvs.__file__)"], capture_output=True, text=True
    ).stdout.strip()
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "cardenvs", "serve", "--port", str(port), *args.serve],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                httpx.get(f"{base}/static/style.css", timeout=5).raise_for_status()
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline or server.poll() is not None:
                    said = server.stdout.read() if server.stdout else ""
                    raise SystemExit(f"the server did not start: {said}") from None
                time.sleep(0.2)
        started = time.perf_counter()
        warm_up(base, timeout=600.0)
        warm_rss = rss_mib(server.pid)
        print(
            f"server: {which}; warm-up game {time.perf_counter() - started:.1f} s, RSS {warm_rss:.0f} MiB", flush=True
        )
        load_before = loadavg()
        with Watcher(server.pid) as watcher:
            tables = asyncio.run(measure(base, args.sessions, args.every, args.seconds, args.timeout))
        end_rss = rss_mib(server.pid)
        load_after = loadavg()
    finally:
        server.terminate()
        server.wait(timeout=30)
    moves = [x for t in tables for x in t.moves]
    news = [x for t in tables for x in t.new_games]
    games = sum(t.games for t in tables)
    errors = [e for t in tables for e in t.errors]
    move_timeouts, new_timeouts = (sum(t.timeouts[k] for t in tables) for k in ("move", "new"))
    print(
        f"{args.sessions} tables, a move every {args.every:g} s for {args.seconds:g} s ({games} games started)\n"
        f"  move latency: {quantiles(moves)}; timed out (> {args.timeout:g} s): {move_timeouts}\n"
        f"  new game:     {quantiles(news)}; timed out: {new_timeouts}\n"
        f"  server RSS: {warm_rss:.0f} MiB after the warm-up game, peak {max(watcher.peak, end_rss):.0f} MiB, "
        f"{end_rss:.0f} MiB at the end ({(end_rss - warm_rss) / max(games, 1):.1f} MiB a game started)\n"
        f"  load average (1, 5, 15 min): {load_before} before, {load_after} after\n"
        f"  errors: {len(errors)}{': ' + errors[0] if errors else ''}",
        flush=True,
    )


if __name__ == "__main__":
    main()
