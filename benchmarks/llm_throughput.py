"""Throughput of language-model seats (issue 55, item 4): a Dou Dizhu duplicate table with one ``llm:`` seat against
a local chat endpoint that answers each call after a fixed delay (``tests/chatserver.py``, the tests' scripted
player, ``delay=S``), the arena playing games at once up to ``in_flight`` calls. Goal: 200 deals (1,200 games) at
1 s a call and 32 calls in flight in at most 10 minutes.

    python -m benchmarks.llm_throughput --deals 200 --delay 1 --in-flight 32

Prints the wall time, the calls, the calls per second and the ideal time (calls x delay / in_flight); with
``--check`` it also plays the table one game at a time at no delay and says whether the records are equal.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from chatserver import ChatServer  # noqa: E402

from cardenvs import arena  # noqa: E402


def play(url: str, deals: int, delay: float, in_flight: int, opponent: str) -> tuple[arena.Results, float]:
    model = f"twin+delay={delay:g}" if delay > 0 else "twin"
    agents = [f"llm:{model}(base_url={url},in_flight={in_flight},move_ms=30000)", opponent, opponent]
    started = time.perf_counter()
    results = arena.run_tournament("doudizhu", agents, games=deals, seed=0, engine="aec")
    return results, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--delay", type=float, default=1.0, help="seconds the endpoint takes per call")
    parser.add_argument("--in-flight", type=int, default=32)
    parser.add_argument("--opponent", default="doudizhu.rule")
    parser.add_argument("--check", action="store_true", help="also play it one game at a time, no delay: same?")
    args = parser.parse_args()
    with ChatServer() as server:
        results, seconds = play(server.url, args.deals, args.delay, args.in_flight, args.opponent)
        usage = next(iter(results.usage().values()))
        calls = usage["calls"]
        print(
            f"doudizhu, {args.deals} duplicate deals ({len(results.records)} games), one llm: seat, "
            f"{args.delay:g} s a call, in_flight={args.in_flight}: {seconds:.1f} s wall ({seconds / 60:.2f} min), "
            f"{calls} calls, {calls / seconds:.1f} calls/s; ideal {calls * args.delay / args.in_flight:.1f} s; "
            f"latency median {usage['latency_ms_median']:.0f} ms, p90 {usage['latency_ms_p90']:.0f} ms; "
            f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; faults: {usage['faults'] or 'none'}"
        )
        if args.check:
            alone, _ = play(server.url, args.deals, 0.0, 1, args.opponent)

            def key(r: arena.Results) -> list:
                return [(g.deal, g.replay, g.scores, g.rewards, g.steps, g.faults) for g in r.records]

            print(f"one game at a time, no delay: records {'equal' if key(alone) == key(results) else 'DIFFER'}")


if __name__ == "__main__":
    main()
