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
landlord of every deal); ``bidding=True`` (``cardenvs arena --bidding``) plays the same deals with the
choice on, so the report measures it. Options the duplicate mode overrides draw a warning.

Seeding: deal ``d`` resets the env with :func:`game_seed` ``(seed, d)`` (so the cards of deal ``d`` are the
same in every replay) and game ``k`` of the set gives the agents :func:`agent_rng` ``(seed, d, k)``, both
derived in :mod:`cardenvs.core.seeds`. Results do not depend on how deals are split between worker processes.

Engines: a table whose agents all act on batches (``act_batch``, :mod:`cardenvs.agent`: random, the numba
policies, the DMC models) plays each job's deals on a vector env, every game of the job at once, one call per
agent and step (:mod:`cardenvs.batched`); any other table (a search agent, ``twenty.solver``), and every table
when replays are written, plays game by game in the AEC env. Both give the same records from the same seed.
``engine="vector"`` or ``"aec"`` (``cardenvs arena --engine``) forces one; forcing ``vector`` for an agent
without ``act_batch`` is a ``ValueError`` naming it.

Replays: with ``replays=DIR`` (``cardenvs arena --replays DIR``) every game is also written to
``DIR/game_NNNNNN.json`` by the process that plays it (:mod:`cardenvs.replay`); ``NNNNNN`` numbers the games
over the whole tournament (table, then deal, then seating), so the names do not depend on ``workers``.

A win is a positive result on the env's ``"win"`` scale (:meth:`CardEnv.outcome`) whatever the reward
option; an illegal action loses the game for the agent that made it (the others draw).
"""

from __future__ import annotations

import csv
import itertools
import json
import math
import uuid
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from .agent import acts_on_batches, load_agent
from .core import seeds
from .core.env import check_seed, play_episode
from .registry import make, register, resolve_id, spec_of

Z95 = 1.959963984540054
#: the ways to play a tournament's games (``engine``): chosen per table, batched in a vector env, or one by one
ENGINES = ("auto", "vector", "aec")


def game_seed(seed: int, deal: int) -> int:
    """The env reset seed of deal ``deal`` of a tournament seeded ``seed``."""
    return seeds.seed_from(seed, deal, stream="arena_deal")


def agent_rng(seed: int, deal: int, replay: int = 0) -> np.random.Generator:
    """The agents' generator in game ``replay`` of deal ``deal``."""
    return seeds.generator(seed, deal, replay, stream="arena_agents")


@dataclass
class GameRecord:
    deal: int
    replay: int  # index of the seating (and reset options) within the deal's duplicate set
    table: int  # index of the table (round robin); 0 otherwise
    seats: list[str]  # agent label per seat
    scores: list[float]
    rewards: list[float]  # total reward per seat
    outcome: list[float]  # win-scale result per seat
    illegal: str | None = None
    steps: int = 0
    truncated: bool = False
    roles: list[int] | None = None  # games with roles: each seat's role index (None: none, e.g. a dead hand)
    role_values: dict[str, list[float]] = field(default_factory=dict)  # numbers per seat, e.g. the bid


def mean_ci(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and normal-approximation 95% interval (over independent units)."""
    x = np.asarray(values, dtype=np.float64)
    if len(x) == 0:
        return (math.nan, math.nan, math.nan)
    m = float(x.mean())
    if len(x) < 2:
        return (m, math.nan, math.nan)
    half = Z95 * float(x.std(ddof=1)) / math.sqrt(len(x))
    return (m, m - half, m + half)


def _rate_ci(values: Sequence[float]) -> tuple[float, float, float]:
    """:func:`mean_ci` of values in [0, 1], the interval clipped to [0, 1]."""
    m, lo, hi = mean_ci(values)
    return m, max(0.0, lo) if not math.isnan(lo) else lo, min(1.0, hi) if not math.isnan(hi) else hi


@dataclass
class Results:
    env_id: str
    agents: list[str]  # labels
    agent_names: list[str]
    options: dict
    seed: int
    deals: int
    duplicate: bool
    version: str = ""
    records: list[GameRecord] = field(default_factory=list)
    bidding: bool = False  # duplicate deals played with the roles chosen in play (Dou Dizhu's bidding)

    # -------------------------------------------------------------- statistics
    def _units(self) -> dict[tuple[int, int], list[GameRecord]]:
        """Duplicate sets (table, deal) -> games; without duplicates every game is its own unit."""
        units: dict[tuple[int, int], list[GameRecord]] = {}
        for r in self.records:
            key = (r.table, r.deal) if self.duplicate else (r.table, r.deal * 10_000 + r.replay)
            units.setdefault(key, []).append(r)
        return units

    def stats(self) -> dict[str, dict[str, Any]]:
        """Per agent: games, wins, draws, losses, win rate and mean score/reward with 95% intervals."""
        out = {}
        units = self._units()
        for label in self.agents:
            win_units, score_units, reward_units = [], [], []
            games = wins = draws = losses = illegal = 0
            for games_in_unit in units.values():
                w, s, rw, n = [], [], [], 0
                for r in games_in_unit:
                    for seat, who in enumerate(r.seats):
                        if who != label:
                            continue
                        n += 1
                        o = r.outcome[seat]
                        wins += o > 0
                        losses += o < 0
                        draws += o == 0
                        illegal += r.illegal == label
                        w.append(1.0 if o > 0 else 0.0)
                        s.append(r.scores[seat])
                        rw.append(r.rewards[seat])
                if n:
                    games += n
                    win_units.append(float(np.mean(w)))
                    score_units.append(float(np.mean(s)))
                    reward_units.append(float(np.mean(rw)))
            wr, wlo, whi = _rate_ci(win_units)
            ms, slo, shi = mean_ci(score_units)
            mr, rlo, rhi = mean_ci(reward_units)
            out[label] = {
                "games": games,
                "wins": int(wins),
                "draws": int(draws),
                "losses": int(losses),
                "illegal": int(illegal),
                "units": len(win_units),
                "win_rate": wr,
                "win_rate_ci": [wlo, whi],
                "mean_score": ms,
                "mean_score_ci": [slo, shi],
                "mean_reward": mr,
                "mean_reward_ci": [rlo, rhi],
            }
        return out

    def has_roles(self) -> bool:
        return spec_of(self.env_id).roles is not None and any(r.roles is not None for r in self.records)

    def role_stats(self) -> dict[str, dict[str, Any]]:
        """Games of a game with roles, per agent: games played, how often it played each role (count and
        share), its win rate in each (95% intervals over duplicate sets, clipped to [0, 1]) and the mean of
        each number the game reports per seat; games without roles count in the roles' ``without`` name
        (Dou Dizhu: ``dead``, a hand nobody bid for) and in no role."""
        roles = spec_of(self.env_id).roles
        if roles is None:
            return {}
        out = {}
        units = self._units()
        value_names = sorted({k for r in self.records for k in r.role_values})
        for label in self.agents:
            games = without = 0
            counts = [0] * len(roles.names)
            role_units: list[list[float]] = [[] for _ in roles.names]
            values: dict[str, list[float]] = {k: [] for k in value_names}
            for games_in_unit in units.values():
                wins: list[list[float]] = [[] for _ in roles.names]
                for r in games_in_unit:
                    for seat, who in enumerate(r.seats):
                        if who != label:
                            continue
                        games += 1
                        if r.roles is None:
                            without += 1
                            continue
                        role = r.roles[seat]
                        counts[role] += 1
                        wins[role].append(1.0 if r.outcome[seat] > 0 else 0.0)
                        for k, per_seat in r.role_values.items():
                            if not math.isnan(per_seat[seat]):
                                values[k].append(per_seat[seat])
                for role, w in enumerate(wins):
                    if w:
                        role_units[role].append(float(np.mean(w)))
            st: dict[str, Any] = {"games": games}
            for role, name in enumerate(roles.names):
                rate, lo, hi = _rate_ci(role_units[role])
                st[name] = counts[role]
                st[f"{name}_share"] = counts[role] / games if games else math.nan
                st[f"{name}_win_rate"] = rate
                st[f"{name}_win_rate_ci"] = [lo, hi]
            st[roles.without] = without
            for k in value_names:
                st[f"mean_{k}"] = float(np.mean(values[k])) if values[k] else math.nan
            out[label] = st
        return out

    def head_to_head(self) -> dict[str, dict[str, dict[str, Any]]]:
        """For each ordered pair (A, B) of agents at the same table: the share of games where A's result beat
        B's (ties count half), and the mean margin of A's score over B's with a 95% interval over sets."""
        table: dict[str, dict[str, dict[str, Any]]] = {}
        units = self._units()
        for a in self.agents:
            table[a] = {}
            for b in self.agents:
                if a == b:
                    continue
                beat, margins_by_unit, n = 0.0, [], 0
                for games_in_unit in units.values():
                    margins = []
                    for r in games_in_unit:
                        if a in r.seats and b in r.seats:
                            ia, ib = r.seats.index(a), r.seats.index(b)
                            n += 1
                            beat += (
                                1.0 if r.outcome[ia] > r.outcome[ib] else 0.5 if r.outcome[ia] == r.outcome[ib] else 0.0
                            )
                            margins.append(r.scores[ia] - r.scores[ib])
                    if margins:
                        margins_by_unit.append(float(np.mean(margins)))
                if n:
                    m, lo, hi = mean_ci(margins_by_unit)
                    table[a][b] = {"games": n, "beat_rate": beat / n, "score_margin": m, "score_margin_ci": [lo, hi]}
        return table

    def ratings(self) -> dict[str, dict[str, float]]:
        """OpenSkill (Plackett-Luce) ratings over every game played, in game order."""
        from openskill.models import PlackettLuce

        model = PlackettLuce()
        current = {label: model.rating(name=label) for label in self.agents}
        for r in sorted(self.records, key=lambda r: (r.table, r.deal, r.replay)):
            if len(set(r.seats)) < len(r.seats):
                continue  # an agent in two seats cannot be rated against itself
            teams = [[current[label]] for label in r.seats]
            ranks = [-o for o in r.outcome]  # lower rank is better
            rated = model.rate(teams, ranks=ranks)
            for label, team in zip(r.seats, rated, strict=True):
                current[label] = team[0]
        return {
            label: {"mu": float(v.mu), "sigma": float(v.sigma), "ordinal": float(v.ordinal())}
            for label, v in current.items()
        }

    # -------------------------------------------------------------- output
    def table(self) -> str:
        stats = self.stats()
        rows = [
            f"{'agent':26s} {'games':>6s} {'wins':>6s} {'draws':>6s} {'win rate [95% CI]':>24s} "
            f"{'mean score [95% CI]':>30s} {'mean reward':>12s}"
        ]
        for label, st in stats.items():
            lo, hi = st["win_rate_ci"]
            slo, shi = st["mean_score_ci"]
            rows.append(
                f"{label:26s} {st['games']:6d} {st['wins']:6d} {st['draws']:6d} "
                f"{st['win_rate']:8.3f} [{lo:6.3f},{hi:6.3f}] {st['mean_score']:10.2f} [{slo:8.2f},{shi:8.2f}] "
                f"{st['mean_reward']:12.3f}"
            )
        return "\n".join(rows)

    def role_table(self) -> str:
        roles = spec_of(self.env_id).roles
        assert roles is not None
        fixed = self.duplicate and not self.bidding and roles.fixed
        title = f"roles ({roles.fixed if fixed else roles.chosen}):" if (roles.fixed or roles.chosen) else "roles:"
        stats = self.role_stats()
        value_names = sorted({k for r in self.records for k in r.role_values})
        header = f"  {'agent':26s}"
        for name in roles.names:
            header += f" {name[:10]:>10s} {'share':>6s} {'win as ' + name[:14] + ' [95% CI]':>32s}"
        header += "".join(f" {'mean ' + k:>10s}" for k in value_names) + f" {roles.without:>6s}"
        rows = [title, header]
        for label, st in stats.items():
            row = f"  {label:26s}"
            for name in roles.names:
                lo, hi = st[f"{name}_win_rate_ci"]
                row += (
                    f" {st[name]:10d} {st[f'{name}_share']:6.3f} {st[f'{name}_win_rate']:14.3f} [{lo:6.3f},{hi:6.3f}]"
                )
            row += "".join(f" {st[f'mean_{k}']:10.2f}" for k in value_names) + f" {st[roles.without]:6d}"
            rows.append(row)
        return "\n".join(rows)

    def report(self) -> str:
        games = len(self.records)
        unit = "duplicate sets" if self.duplicate else "games"
        mode = ", bidding on" if self.bidding else ""
        lines = [
            f"{self.env_id}: {games} games over {self.deals} deals per table, seed {self.seed}, "
            f"options {self.options or '{}'}{mode}; intervals over {unit}",
            "",
            self.table(),
            "",
            "head to head (share of games the row agent finished ahead of the column agent; ties count half):",
        ]
        h2h = self.head_to_head()
        width = max(len(a) for a in self.agents) + 2
        lines.append(" " * width + "".join(f"{b[:12]:>13s}" for b in self.agents))
        for a in self.agents:
            cells = "".join(f"{h2h[a][b]['beat_rate']:13.3f}" if b in h2h[a] else f"{'-':>13s}" for b in self.agents)
            lines.append(f"{a:{width}s}{cells}")
        if self.has_roles():
            lines.append("")
            lines.append(self.role_table())
        lines.append("\nOpenSkill ratings (Plackett-Luce; ordinal = mu - 3 sigma):")
        for label, r in sorted(self.ratings().items(), key=lambda kv: -kv[1]["ordinal"]):
            lines.append(f"  {label:26s} mu {r['mu']:7.2f}  sigma {r['sigma']:5.2f}  ordinal {r['ordinal']:7.2f}")
        illegal = sum(r.illegal is not None for r in self.records)
        truncated = sum(r.truncated for r in self.records)
        if illegal or truncated:
            lines.append(f"\n{illegal} games ended by an illegal action, {truncated} truncated")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        out = {
            "version": self.version,
            "env_id": self.env_id,
            "agents": self.agents,
            "agent_names": self.agent_names,
            "options": self.options,
            "seed": self.seed,
            "deals": self.deals,
            "duplicate": self.duplicate,
            "bidding": self.bidding,
            "stats": self.stats(),
            "head_to_head": self.head_to_head(),
            "ratings": self.ratings(),
        }
        if self.has_roles():
            out["roles"] = self.role_stats()
        out["records"] = [asdict(r) for r in self.records]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Results:
        res = cls(
            data["env_id"],
            data["agents"],
            data["agent_names"],
            data["options"],
            data["seed"],
            data["deals"],
            data["duplicate"],
            data.get("version", ""),
            bidding=data.get("bidding", False),
        )
        known = {f.name for f in fields(GameRecord)}  # files from before roles were generic keep their games
        res.records = [GameRecord(**{k: v for k, v in r.items() if k in known}) for r in data["records"]]
        return res

    def save(self, path: str) -> None:
        """JSON (everything needed to reproduce the run), plus a CSV of per-agent statistics beside it."""
        check_output_path(path, "results", json_with_csv=True)
        p = Path(path)
        p.write_text(json.dumps(self.to_dict(), indent=1))
        with open(p.with_suffix(".csv"), "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(
                [
                    "agent",
                    "games",
                    "wins",
                    "draws",
                    "losses",
                    "win_rate",
                    "win_rate_lo",
                    "win_rate_hi",
                    "mean_score",
                    "mean_score_lo",
                    "mean_score_hi",
                    "mean_reward",
                ]
            )
            for label, st in self.stats().items():
                writer.writerow(
                    [
                        label,
                        st["games"],
                        st["wins"],
                        st["draws"],
                        st["losses"],
                        st["win_rate"],
                        *st["win_rate_ci"],
                        st["mean_score"],
                        *st["mean_score_ci"],
                        st["mean_reward"],
                    ]
                )

    @classmethod
    def load(cls, path: str) -> Results:
        return cls.from_dict(json.loads(Path(path).read_text()))

    def plot(self, path: str) -> None:
        """Win rates with their 95% intervals as a bar chart (matplotlib)."""
        check_output_path(path, "plot")
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        stats = self.stats()
        labels = list(stats)
        rates = np.array([stats[a]["win_rate"] for a in labels])
        lo = np.array([stats[a]["win_rate_ci"][0] for a in labels])
        hi = np.array([stats[a]["win_rate_ci"][1] for a in labels])
        err = np.nan_to_num(np.vstack([rates - lo, hi - rates]))
        fig, ax = plt.subplots(figsize=(max(4, 1.4 * len(labels)), 3.5))
        ax.bar(labels, rates, yerr=err, capsize=6, color="#4c78a8")
        ax.set_ylabel("win rate (95% CI)")
        ax.set_ylim(0, 1)
        ax.set_title(f"{self.env_id}: {len(self.records)} games")
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)


def check_output_path(path: str, what: str, json_with_csv: bool = False) -> None:
    """A ``ValueError`` unless ``path`` can be written: its folder exists and it is not a folder itself.
    ``json_with_csv``: the results' JSON, with the CSV written beside it (so not a ``.csv`` path)."""
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"the {what} path {path} is a folder; name a file in it")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(f"cannot write the {what} to {path}: the folder {parent} does not exist")
    if json_with_csv and p.suffix.lower() == ".csv":
        raise ValueError(
            f"the {what} path {path} ends in .csv, but the CSV goes beside the JSON (same name, "
            ".csv): name the JSON, e.g. {p.with_suffix('.json')}"
        )


def labels_for(agent_names: Sequence[str]) -> list[str]:
    """Unique labels: repeated names get ``#1``, ``#2`` suffixes so identical agents are told apart."""
    seen: dict[str, int] = {}
    labels = []
    for n in agent_names:
        if agent_names.count(n) > 1:
            seen[n] = seen.get(n, 0) + 1
            labels.append(f"{n}#{seen[n]}")
        else:
            labels.append(n)
    return labels


def play_one(
    env,
    agents: Sequence[Any],
    seats: Sequence[str],
    seed: int,
    rng: np.random.Generator,
    reset_options: dict | None = None,
    deal: int = 0,
    replay: int = 0,
    table: int = 0,
) -> GameRecord:
    """Play one game with ``agents[s]`` in seat ``s``; ``seats`` are their labels."""
    base = env.unwrapped
    for agent in agents:
        if hasattr(agent, "reset"):
            agent.reset()
    episode = play_episode(env, lambda seat, obs: agents[seat].act(obs, rng), seed=seed, options=reset_options)
    illegal = None if episode.illegal is None else seats[episode.illegal]
    if illegal is None:
        outcome = base.outcome()
    else:
        outcome = np.array([-1.0 if label == illegal else 0.0 for label in seats])
    roles = spec_of(base.metadata["name"]).roles
    seat_roles, role_values = roles.game_roles(base) if roles is not None else (None, {})
    return GameRecord(
        deal,
        replay,
        table,
        list(seats),
        episode.scores,
        episode.rewards,
        [float(o) for o in outcome],
        illegal,
        episode.steps,
        episode.truncated,
        seat_roles,
        role_values,
    )


def seatings(n: int, duplicate: bool) -> list[tuple[int, ...]]:
    """Agent index per seat for each replay of a deal: all permutations up to 3 players, rotations beyond."""
    if not duplicate:
        return [tuple(range(n))]
    if n <= 3:
        return list(itertools.permutations(range(n)))
    return [tuple((s + k) % n for s in range(n)) for k in range(n)]


def deal_games(base, deals: Sequence[int], duplicate: bool, bidding: bool) -> list[tuple[int, int, tuple, dict]]:
    """The games of ``deals``, in play order: (deal, replay index, agent index per seat, reset options)."""
    extra = base.duplicate_reset_options(bidding=bidding) if duplicate else [{}]
    n = base.num_players
    games = []
    for d in deals:
        replays = [(perm, opt) for opt in extra for perm in seatings(n, duplicate)]
        if not duplicate:  # plain rotation: deal d uses rotation d mod n
            replays = [(tuple((s + d) % n for s in range(n)), {})]
        games += [(d, k, perm, reset_options) for k, (perm, reset_options) in enumerate(replays)]
    return games


def _play_deals(
    env_id: str,
    agent_names: list[str],
    labels: list[str],
    options: dict,
    seed: int,
    deals: Sequence[int],
    duplicate: bool,
    table: int,
    bidding: bool = False,
    replays_dir: str | None = None,
    total_deals: int = 0,
    batched: bool = False,
    tournament: str = "",
) -> list[GameRecord]:
    if batched:  # the agents and envs are built once per tournament (its id) and process
        from .batched import play_deals

        return play_deals(env_id, agent_names, labels, options, seed, deals, duplicate, table, bidding, tournament)
    env = make(env_id, **options)
    base = env.unwrapped
    games = deal_games(base, deals, duplicate, bidding)
    built = [load_agent(name, base) for name in agent_names]
    recorder = None
    if replays_dir is not None:
        from .replay import Recorder

        recorder = Recorder(env)
    records = []
    per_deal = len(games) // max(1, len(deals))  # every deal has the same set of games
    for d, k, perm, reset_options in games:
        record = play_one(
            recorder or env,
            [built[i] for i in perm],
            [labels[i] for i in perm],
            game_seed(seed, d),
            agent_rng(seed, d, k),
            reset_options or None,
            d,
            k,
            table,
        )
        records.append(record)
        if recorder is not None and replays_dir is not None:
            index = (table * total_deals + d) * per_deal + k
            _write_replay(
                recorder, record, [agent_names[i] for i in perm], options, seed, d, reset_options, replays_dir, index
            )
    return records


def _write_replay(
    recorder, record: GameRecord, names: list[str], options: dict, seed: int, deal: int, reset_options, folder, index
) -> None:
    from .replay import FILE_PATTERN, from_game

    game = from_game(recorder, record, names, options, game_seed(seed, deal), reset_options, tournament_seed=seed)
    game.save(Path(folder) / FILE_PATTERN.format(index=index))


def _worker(job: tuple) -> list[GameRecord]:
    spec, deals = job
    register(spec)  # a spawned worker knows only the built-in games; a game the caller registered comes along
    return _play_deals(*deals)


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
    bidding: bool = False
    replays: str | None = None  # folder for one replay file per game (cardenvs.replay)
    engine: str = "auto"  # as asked (ENGINES)
    batched: list[bool] = field(default_factory=list)  # per table: played on a vector env (else the AEC env)


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
    bidding: bool = False,
    replays: str | None = None,
    engine: str = "auto",
) -> Plan:
    """Check every argument of a tournament without playing it: ``ValueError`` naming what is wrong (unknown
    game, option or agent, an agent of another game, the wrong number of agents, ``games`` or ``workers``
    below 1, a negative seed, ``bidding`` for a game without it, an agent that declares ``bids = False``
    where the agents would bid, a ``replays`` folder that cannot take the replays, an unknown ``engine`` or
    ``"vector"`` for agents that cannot act on batches)."""
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
    built = {name: load_agent(name, probe) for name in dict.fromkeys(agent_names)}
    batches = {name: acts_on_batches(agent) for name, agent in built.items()}
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
    if bidding:
        probe.duplicate_reset_options(bidding=True)  # ValueError for a game (or options) without bidding
    if bidding or (not duplicate and probe.config.get("bidding")):  # the agents will bid
        for name, agent in built.items():
            if getattr(agent, "bids", True) is False:
                how = "without --bidding" if bidding else "with the option bidding=False or in the duplicate mode"
                raise ValueError(f"agent {name!r} cannot bid (it declares bids = False): play it {how}")
    extra = probe.duplicate_reset_options(bidding=bidding) if duplicate else [{}]
    if duplicate and not bidding and options.get("bidding") is True and extra != [{}]:
        warnings.warn(
            f"{env_id}: the duplicate mode plays every deal with reset options {extra} in every seating, "
            "which override the option bidding=True. Play the choice with --bidding "
            "(run_tournament(..., bidding=True)).",
            stacklevel=2,
        )
    games_per_deal = len(seatings(n, duplicate)) * len(extra)
    if replays is not None:
        from .replay import check_replays_folder

        check_replays_folder(str(replays))
    batched = [_batched(engine, env_id, probe, [agent_names[i] for i in t], batches, replays) for t in tables]
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
        bidding,
        None if replays is None else str(replays),
        engine,
        batched,
    )


def _batched(engine: str, env_id: str, probe, names: list[str], batches: dict[str, bool], replays) -> bool:
    """Whether a table of agents ``names`` plays on a vector env (see "Engines" in the module doc)."""
    if engine == "aec":
        return False
    why = None
    if getattr(probe, "CORE", None) is None:
        why = f"{env_id} has no numba core, which vector envs need"
    elif replays is not None:
        why = "replays are written by the aec engine"
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
                        plan.bidding,
                        plan.replays,
                        games,
                        plan.batched[t] if plan.batched else False,
                        tournament,
                    ),
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
    from . import __version__

    workers = _count(workers, "workers", 1)
    results = []
    for plan in plans:
        if plan.replays is not None:
            Path(plan.replays).mkdir(parents=True, exist_ok=True)
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
                bidding=plan.bidding,
            )
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
    bidding: bool = False,
    replays: str | None = None,
    engine: str = "auto",
) -> Results:
    """Play ``games`` deals per table (each replayed over seatings when ``duplicate``); see the module doc.
    ``bidding``: duplicate deals with the bidding on (Dou Dizhu) instead of a fixed landlord; ``replays``:
    a folder to write every game to (:mod:`cardenvs.replay`); ``engine``: ``"auto"``, ``"vector"`` or
    ``"aec"`` (module doc, "Engines")."""
    return run_plan(
        plan_tournament(
            env_id, agents, games, seed, options, duplicate, workers, round_robin, bidding, replays, engine
        ),
        progress,
    )


def play(
    env_id: str, agents: Sequence[str], games: int, seed: int = 0, options: dict | None = None, progress: bool = False
) -> Results:
    """``games`` seeded games with the agents rotated over the seats (no duplicate replays)."""
    return run_tournament(env_id, agents, games, seed, options, duplicate=False, progress=progress)
