"""Guandan: what the return costs (issue 63, item 3). One team's returns are given by an *arm*; every other
decision of the match (the tribute, every play, the other team's returns) is ``guandan.heuristic``'s. Arms:

* ``heuristic``: :func:`cardenvs.games.guandan.policies.heuristic`'s card (the baseline);
* ``searched``: :func:`cardenvs.games.guandan.policies.searched_return`, the return of the agent
  ``guandan.return_search`` (``--search-deals`` determinizations, each return played out to the end of the hand
  with the heuristic);
* ``random``: a uniformly random legal return (a generator seeded by the deal);
* the agents of ``--models`` (default ``guandan.dmc``; ``dmc:PATH`` too): the agent's move at the RETURN phase.

``--players NAME`` adds a third study: the two-hand match with every other decision by agent ``NAME``, the
returning team's returns by ``NAME`` itself (the baseline), the heuristic or the search
(``--players-two-hand`` deals).

Two studies on duplicate deals (deal seeds ``SEED .. SEED + N - 1``, fresh: the study before used 0 .. 2,999):

* ``two_hand``: the ``match`` variant (two hands, truncated after the second; its second hand opens with the
  tribute and the return). The first hand is played once; at the return the game is copied and played on by
  each arm. The figure is the returning team's points in the match, an arm's minus the heuristic's, over the
  deals with a return (no resistance).
* ``whole``: whole matches (``episode="match"``, to a win at A or ``max_hands`` 100). Each deal is played with
  every seat heuristic (the baseline), then for each arm twice, team 0's returns by the arm, then team 1's.
  Per deal the figure is the mean over the two seatings of that team's points (and match wins, 1/0) minus the
  baseline's; a heuristic baseline's match is won by one team, so its win share is 0.5 per deal exactly.

Intervals are normal 95% intervals over deals of the paired per-deal differences. ``--json PATH`` writes the
run (its command, seeds, counts, per-deal figures, CPU seconds, the load average before and after);
``--render`` regenerates ``docs/results/guandan-return.md`` from ``docs/study/guandan-return/run.json``.

Usage: ``python -m benchmarks.guandan_return [--two-hand N] [--whole N] [--search-deals D] [--seed S]
[--models NAMES] [--players NAME] [--players-two-hand N] [--json PATH]``, or
``python -m benchmarks.guandan_return --render``."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

import cardenvs
from cardenvs.agent import load_agent
from cardenvs.core import kernels
from cardenvs.games.guandan import policies, rules
from cardenvs.games.guandan.policies import SEARCH_DEALS, searched_return

ROOT = Path(__file__).resolve().parents[1]
RUN = ROOT / "docs" / "study" / "guandan-return" / "run.json"
PAGE = ROOT / "docs" / "results" / "guandan-return.md"
SCRIPT = "python -m benchmarks.guandan_return"
ANY_TEAM, NO_TEAM = 2, -1
Z95 = 1.96

Returner = Callable[[np.ndarray, np.ndarray, int], int]


@njit(cache=True)
def play_to_return(st, params, team) -> bool:
    """Play game 0 of ``st`` with the heuristic (in place) until a seat of ``team`` (0, 1; ``ANY_TEAM``: either;
    ``NO_TEAM``: none) is to return a card (True) or the episode is over or truncated (False)."""
    rng = np.zeros(1, dtype=np.uint64)
    while rules.status(st, 0, params) == kernels.RUNNING:
        s = st[0]
        if s.phase == rules.RETURN and (team == ANY_TEAM or s.to_move % 2 == team):
            return True
        rules.apply(st, 0, params, policies.heuristic(st, 0, params, rng))
    return False


def heuristic_card(st: np.ndarray, params: np.ndarray) -> int:
    return int(policies.heuristic(st, 0, params, np.zeros(1, dtype=np.uint64)))


def agent_move(env: Any, name: str) -> Returner:
    """Agent ``name``'s move for the seat to move of game 0 of a state (through ``env``: the state and its params
    are put in, the agent reads the seat's observation); ``key`` seeds its generator."""
    base = env.unwrapped
    agent = load_agent(name, base)

    def choose(st: np.ndarray, params: np.ndarray, key: int) -> int:
        base.set_state(st[0], params=params)
        return int(agent.act(base.observe(base.agent_selection), np.random.default_rng([key, 2])))

    return choose


def returners(env: Any, search_deals: int, models: list[str]) -> dict[str, Returner]:
    """The arms by name: each gives the card of the seat to return in game 0 of a state (``key``: a number the
    deal, the hand and the seat determine, seeding its draws); ``models`` are agent names whose move is one
    more arm each."""
    base = env.unwrapped

    def random_card(st: np.ndarray, params: np.ndarray, key: int) -> int:
        ids = np.empty(base.num_actions, dtype=np.int64)
        n = rules.legal_ids(st, 0, params, ids)
        return int(ids[np.random.default_rng([key, 1]).integers(n)])

    arms: dict[str, Returner] = {
        "heuristic": lambda st, params, key: heuristic_card(st, params),
        "searched": lambda st, params, key: int(searched_return(st, 0, params, np.uint64(key), search_deals)),
        "random": random_card,
    }
    for name in models:
        arms[name] = agent_move(env, name)
    return arms


def finish(
    st: np.ndarray, params: np.ndarray, team: int, arm: Returner, deal: int, player: Returner | None = None
) -> tuple[int, int]:
    """Play game 0 of ``st`` to its end, team ``team``'s returns by ``arm`` and every other decision by
    ``player`` (None: the heuristic, in numba); returns (its returns, how many of them differ from the
    heuristic's card)."""
    returns = changed = 0
    while True:
        if player is None:
            if not play_to_return(st, params, team):
                break
        elif rules.status(st, 0, params) != kernels.RUNNING:
            break
        s = st[0]
        key = (deal << 20) | (int(s["hands_played"]) << 2) | int(s["to_move"])
        if s["phase"] != rules.RETURN or int(s["to_move"]) % 2 != team:
            assert player is not None
            rules.apply(st, 0, params, player(st, params, key))
            continue
        card = arm(st, params, key)
        returns += 1
        changed += card != heuristic_card(st, params)
        rules.apply(st, 0, params, card)
    return returns, changed


def paired(d: list[float] | np.ndarray) -> list[float]:
    """[mean, low, high]: a normal 95% interval of a mean over deals (no interval from fewer than two)."""
    x = np.asarray(d, dtype=float)
    if len(x) < 2:
        return [float(x.mean()) if len(x) else float("nan"), float("nan"), float("nan")]
    half = Z95 * x.std(ddof=1) / np.sqrt(len(x))
    return [float(x.mean()), float(x.mean() - half), float(x.mean() + half)]


def to_first_return(st: np.ndarray, params: np.ndarray, player: Returner | None, deal: int) -> bool:
    """Play game 0 of ``st`` by ``player`` (None: the heuristic) until a seat is to return a card (True) or the
    episode ends (False)."""
    if player is None:
        return bool(play_to_return(st, params, ANY_TEAM))
    while rules.status(st, 0, params) == kernels.RUNNING:
        s = st[0]
        if s["phase"] == rules.RETURN:
            return True
        rules.apply(st, 0, params, player(st, params, (deal << 20) | (int(s["hands_played"]) << 2) | int(s["to_move"])))
    return False


def two_hand(arms: dict[str, Returner], deals: int, seed: int, player: Returner | None = None) -> dict:
    """The ``match`` variant (module docstring): per deal with a return, each arm's points for the returning team;
    every other decision by ``player`` (None: the heuristic)."""
    env = cardenvs.make("guandan", variant="match", reward="points")
    base = env.unwrapped
    points: dict[str, list[float]] = {a: [] for a in arms}
    changed: dict[str, int] = {a: 0 for a in arms}
    skipped = 0
    for deal in range(seed, seed + deals):
        env.reset(seed=deal)
        start, params = base.core_state().states.copy(), base.core_state().params.copy()
        if not to_first_return(start, params, player, deal):
            skipped += 1  # the tribute was resisted: no return
            continue
        team = int(start[0]["to_move"]) % 2
        for name, arm in arms.items():
            st = start.copy()
            _, differs = finish(st, params, team, arm, deal, player)
            points[name].append(float(st[0]["score"][team]))
            changed[name] += differs > 0
    return {"deals": deals, "with_return": deals - skipped, "points": points, "changed": changed}


def whole(arms: dict[str, Returner], deals: int, seed: int) -> dict:
    """Whole matches (module docstring): per deal, each arm's team's points and wins, over both seatings."""
    env = cardenvs.make("guandan", episode="match", reward="points")
    base = env.unwrapped
    points: dict[str, list[float]] = {a: [] for a in arms}
    wins: dict[str, list[float]] = {a: [] for a in arms}
    returns: dict[str, int] = {a: 0 for a in arms}
    changed: dict[str, int] = {a: 0 for a in arms}
    hands, truncated = [], 0
    for deal in range(seed, seed + deals):
        env.reset(seed=deal)
        start, params = base.core_state().states.copy(), base.core_state().params.copy()
        for name, arm in arms.items():
            seatings = (0,) if name == "heuristic" else (0, 1)  # all-heuristic: the same match either way
            pts, won = [], []
            for team in seatings:
                st = start.copy()
                n, differs = finish(st, params, team, arm, deal)
                returns[name] += n
                changed[name] += differs
                for t in (0, 1) if name == "heuristic" else (team,):
                    pts.append(float(st[0]["score"][t]))
                    won.append(float(st[0]["match_winner"] == t))
                if name == "heuristic":
                    hands.append(int(st[0]["hands_played"]))
                    truncated += int(st[0]["status"] == kernels.TRUNCATED)
            points[name].append(float(np.mean(pts)))
            wins[name].append(float(np.mean(won)))
    return {
        "deals": deals,
        "points": points,
        "wins": wins,
        "returns": returns,
        "changed": changed,
        "baseline_hands": [int(np.mean(hands)), int(np.max(hands))],
        "baseline_truncated": truncated,
    }


def summary(study: dict, baseline: str = "heuristic") -> dict:
    """Each arm's paired difference against the ``baseline`` arm's return (and the searched one's against random)."""
    out: dict[str, Any] = {}
    for measure in ("points", "wins"):
        if measure not in study:
            continue
        values = {a: np.asarray(v) for a, v in study[measure].items()}
        out[measure] = {a: paired(v - values[baseline]) for a, v in values.items() if a != baseline}
        if "random" in values:
            out[measure]["searched - random"] = paired(values["searched"] - values["random"])
        out[measure + "_mean"] = {a: float(v.mean()) for a, v in values.items()}
    return out


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(prog=SCRIPT, description=__doc__.split("\n\n")[0])
    parser.add_argument("--two-hand", type=int, default=2000, help="deals of the two-hand match variant")
    parser.add_argument("--whole", type=int, default=300, help="deals of whole matches")
    parser.add_argument("--search-deals", type=int, default=SEARCH_DEALS, help="determinizations per searched return")
    parser.add_argument("--seed", type=int, default=630_000, help="the first deal seed")
    parser.add_argument(
        "--models", default="guandan.dmc", help="agent names, comma-separated, whose return is one more arm each"
    )
    parser.add_argument("--players", help="an agent name that plays every seat in one more two-hand study")
    parser.add_argument("--players-two-hand", type=int, default=500, help="deals of the study --players plays")
    parser.add_argument("--json", type=Path, help="write the run here")
    parser.add_argument("--render", action="store_true", help=f"regenerate {PAGE.relative_to(ROOT)} from {RUN.name}")
    args = parser.parse_args(argv)
    if args.render:
        PAGE.write_text(render_page(json.loads(RUN.read_text())))
        return f"wrote {PAGE}"
    for name in ("two_hand", "whole", "seed", "players_two_hand"):
        if getattr(args, name) < 0:
            parser.error(f"--{name.replace('_', '-')} must be >= 0")
    if args.search_deals < 1:
        parser.error("--search-deals must be >= 1")
    env = cardenvs.make("guandan", variant="match")
    env.reset(seed=0)  # set_state needs an env that was reset; each state is put in with its own params
    arms = returners(env, args.search_deals, [m for m in args.models.split(",") if m])
    load_before = list(os.getloadavg())
    run: dict[str, Any] = {
        "command": " ".join([SCRIPT, *map(shlex.quote, sys.argv[1:] if argv is None else argv)]),
        "seed": args.seed,
        "search_deals": args.search_deals,
        "arms": list(arms),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cores": os.cpu_count(),
        # the model files named by path (a snapshot of a training run is not in the repository: its md5 says which)
        "model_md5": {
            m: hashlib.md5(Path(m.partition(":")[2]).read_bytes()).hexdigest()
            for m in [*arms, args.players or ""]
            if m.startswith("dmc:")
        },
    }
    start = time.process_time()
    lines = []
    studies: list[tuple[str, Callable[[], dict], str]] = [
        ("two_hand", lambda: two_hand(arms, args.two_hand, args.seed), "heuristic"),
        ("whole", lambda: whole(arms, args.whole, args.seed), "heuristic"),
    ]
    if args.players:
        player = agent_move(env, args.players)
        own = {args.players: player, "heuristic": arms["heuristic"], "searched": arms["searched"]}
        studies.append(
            ("players_two_hand", lambda: two_hand(own, args.players_two_hand, args.seed, player), args.players)
        )
        run["players"] = args.players
    for name, fn, baseline in studies:
        if not {"two_hand": args.two_hand, "whole": args.whole, "players_two_hand": args.players_two_hand}[name]:
            continue
        t = time.process_time()
        study = fn()
        study["cpu_seconds"] = round(time.process_time() - t, 1)
        study["baseline"] = baseline
        study["summary"] = summary(study, baseline)
        run[name] = study
        print(f"{name}: {json.dumps(study['summary'])}", flush=True)
        lines.append(f"{name}: {study['cpu_seconds']:.0f} CPU s")
    run["cpu_seconds"] = round(time.process_time() - start, 1)
    run["load"] = load_before + list(os.getloadavg())
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(run, indent=1) + "\n")
    return "\n".join(lines)


# ---------------------------------------------------------------- the page
#: every decision of a match that is not a play of a hand, and who makes it for each shipped agent
DECISIONS = [
    "Two decisions of a match are not plays: the tribute's suit (the rank is forced: the payer's highest card",
    "at the new hand's level, never a wild; a card action for each suit it holds at that rank) and the return",
    "(any card the return rule allows: with `max10` a 2..10 not of the level rank). Resistance (the payers hold",
    "both red jokers), which payer pays whom after an equal double (`equal_tribute`), who leads and the levels",
    "are the rules'; no agent chooses them.",
    "",
    "| agent | tribute suit | return |",
    "|---|---|---|",
    "| `guandan.heuristic` | a copy no straight flush of its hand needs | the lowest card no pair, triple or "
    "five-rank run of its hand needs |",
    "| `guandan.pimc(...)` | searched like a play: rollouts to the episode's end, scored by its outcome | the "
    "same; in the two-hand `match` variant every rollout ends truncated (outcome 0), so every card ties and the "
    "lowest legal id (the lowest card) is played; in whole matches a rollout plays the whole match out, so a few "
    "noisy rollouts a card |",
    "| `guandan.dmc`, `dmc:PATH` | the model's greedy Q over the card actions | the model's greedy Q over the "
    "card actions, a phase it never met in training (single hands at level 2, no tribute) |",
    "| `guandan.return_search` | the heuristic's | searched (`policies.searched_return`): PIMC over the legal "
    "returns, each hand played out by heuristics, its hand points |",
]

ARM_TEXT = {
    "heuristic": "the heuristic's card",
    "searched": "searched",
    "random": "random",
    "guandan.dmc": "`guandan.dmc`'s greedy card",
    "searched - random": "searched minus random",
}


def figure(v: list[float], digits: int = 3) -> str:
    mean, low, high = v
    if np.isnan(low):
        return f"{mean:+.{digits}f} (no interval)"
    return f"{mean:+.{digits}f} [{low:+.{digits}f}, {high:+.{digits}f}]"


def arm_text(arm: str) -> str:
    return ARM_TEXT.get(arm, f"`{arm}`'s greedy card")


def render_page(run: dict) -> str:
    """``docs/results/guandan-return.md`` from a run's JSON: every figure with its command, deals, seeds and load."""
    load = run["load"]
    lines = [
        "# Guandan: what the return costs",
        "",
        "Issue 63, item 3. One team's returns (the card a tribute's receiver gives back, `return_rule=\"max10\"`)",
        "are made by an *arm*; every other decision of the match is `guandan.heuristic`'s (tribute, every play,",
        "the other team's returns). Arms: the heuristic's own return (the baseline); the *searched* return",
        "(the agent `guandan.return_search`'s, `cardenvs.games.guandan.policies.searched_return`: "
        f"{run['search_deals']} determinizations of the hidden hands consistent with what",
        "the receiver knows, every legal return applied and the hand played out with the heuristic, the mean",
        "change of the receiver's hand points, the heuristic's card unless another is strictly better); a",
        "uniformly random legal return; the trained models' greedy card at the RETURN phase (they were trained",
        "on single hands at level 2 without tribute, so this phase is new to them). Duplicate deals: every arm",
        "meets the same deals (and in the two-hand match the same first hand). Intervals are normal 95%",
        "intervals over deals of the paired differences. Generated by "
        f"`{SCRIPT} --render` (`benchmarks/guandan_return.py`)",
        "from `docs/study/guandan-return/run.json`.",
        "",
        f"Command: `{run['command']}`; deal seeds from {run['seed']}; {run['cpu_seconds']:.0f} CPU seconds; run "
        f"{run['date']}; load average {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f} before and {load[3]:.1f}, "
        f"{load[4]:.1f}, {load[5]:.1f} after ({run['cores']} cores, under `nice -n 19` beside a training run).",
    ]
    for model, md5 in run.get("model_md5", {}).items():
        note = run.get("model_notes", {}).get(model, "a model file outside the repository")
        lines += ["", f"`{model}`: md5 {md5}; {note}."]
    if "two_hand" in run:
        s = run["two_hand"]
        n = s["with_return"]
        lines += [
            "",
            "## The two-hand match",
            "",
            f"The `match` variant (two hands, truncated after the second): {s['deals']} deals (seeds {run['seed']} ..",
            f"{run['seed'] + s['deals'] - 1}), {n} with a return (the others' tribute was resisted). The first hand",
            "is played once by heuristics; at the return the game is copied and each arm gives the returning",
            "team's card(s). Points: the returning team's points in the match, the arm's minus the heuristic's.",
            "",
            "| returns by | points per match against the heuristic's return [95%] | matches changed |",
            "|---|---|---|",
        ]
        for arm, v in s["summary"]["points"].items():
            changed = f"{s['changed'][arm] / n:.2f}" if arm in s["changed"] else "-"
            lines.append(f"| {arm_text(arm)} | {figure(v)} | {changed} |")
        lines += ["", f"{s['cpu_seconds']:.0f} CPU seconds."]
    if "whole" in run:
        s = run["whole"]
        lines += [
            "",
            "## Whole matches",
            "",
            '`episode="match"`, to a win at A (`a_win="not_last"`, `a_attempts=3`, at most 100 hands):',
            f"{s['deals']} deals (seeds {run['seed']} .. {run['seed'] + s['deals'] - 1}), each played by heuristics",
            "alone and then, for each arm, twice: team 0's returns by the arm, then team 1's. Per deal: the mean",
            "over the two seatings of the arm's team's points and match wins, minus the baseline's (whose win share",
            f"is 0.5 per deal). The baseline's matches last {s['baseline_hands'][0]} hands on average (at most",
            f"{s['baseline_hands'][1]}); {s['baseline_truncated']} truncated.",
            "",
            "| returns by | points per match against the heuristic's return [95%] | match win share [95%] | "
            "returns | returns changed |",
            "|---|---|---|---|---|",
        ]
        for arm, v in s["summary"]["points"].items():
            if arm == "searched - random":
                share_text, counts = figure(s["summary"]["wins"][arm]), "- | -"
            else:
                share_text = figure(paired(s["wins"][arm])).replace("+", "")
                counts = f"{s['returns'][arm]} | {s['changed'][arm] / max(s['returns'][arm], 1):.2f}"
            lines.append(f"| {arm_text(arm)} | {figure(v)} | {share_text} | {counts} |")
        lines += ["", f"{s['cpu_seconds']:.0f} CPU seconds."]
    if "players_two_hand" in run:
        s = run["players_two_hand"]
        n, own = s["with_return"], s["baseline"]
        lines += [
            "",
            f"## The two-hand match played by `{own}`",
            "",
            f"As the two-hand match above, but every decision is `{own}`'s (every seat: tribute, plays, the other",
            f"team's returns) except the returning team's returns: {s['deals']} deals (the same seeds), {n} with a",
            "return. The searched return still plays its hands out with the heuristic, so here its model of the",
            f"players is wrong. Points: the returning team's, the arm's minus those with `{own}`'s own return.",
            "",
            f"| returns by | points per match against `{own}`'s own return [95%] | matches changed (from the "
            "heuristic's card) |",
            "|---|---|---|",
        ]
        for arm, v in s["summary"]["points"].items():
            lines.append(f"| {arm_text(arm)} | {figure(v)} | {s['changed'][arm] / n:.2f} |")
        lines += ["", f"{s['cpu_seconds']:.0f} CPU seconds."]
    lines += ["", "## Who decides what between the hands", "", *DECISIONS]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(main())
