"""A tournament's results: per-agent statistics with 95% intervals over duplicate sets, roles, head to head,
OpenSkill ratings, the report, JSON and CSV files and a plot."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from ..registry import spec_of
from .records import GameRecord

Z95 = 1.959963984540054


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
    role_phase: bool = False  # duplicate deals played with the roles chosen in the game's phase before play
    #: a luck-adjusted tournament's reference (:func:`cardenvs.arena.luck.reference`); None otherwise
    luck: dict | None = None
    #: the agents (labels) that are programs run without a sandbox (``unsandboxed``, :mod:`cardenvs.agent.sandbox`)
    unsandboxed: list[str] = field(default_factory=list)

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

    def phase_name(self) -> str:
        """What the game calls its role phase (its spec's :class:`~cardenvs.core.spec.RolePhase`)."""
        roles = spec_of(self.env_id).roles
        return roles.phase.name if roles is not None and roles.phase is not None else "role phase"

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
    def label_width(self) -> int:
        """The label column's width: 26, or the longest label (results saved before labels were shortened)."""
        return max([26, *map(len, self.agents)])

    def table(self) -> str:
        stats = self.stats()
        w = self.label_width()
        rows = [
            f"{'agent':{w}s} {'games':>6s} {'wins':>6s} {'draws':>6s} {'win rate [95% CI]':>24s} "
            f"{'mean score [95% CI]':>30s} {'mean reward':>12s}"
        ]
        for label, st in stats.items():
            lo, hi = st["win_rate_ci"]
            slo, shi = st["mean_score_ci"]
            rows.append(
                f"{label:{w}s} {st['games']:6d} {st['wins']:6d} {st['draws']:6d} "
                f"{st['win_rate']:8.3f} [{lo:6.3f},{hi:6.3f}] {st['mean_score']:10.2f} [{slo:8.2f},{shi:8.2f}] "
                f"{st['mean_reward']:12.3f}"
            )
        return "\n".join(rows)

    def role_table(self) -> str:
        roles = spec_of(self.env_id).roles
        assert roles is not None
        fixed = self.duplicate and not self.role_phase and roles.fixed
        title = f"roles ({roles.fixed if fixed else roles.chosen}):" if (roles.fixed or roles.chosen) else "roles:"
        stats = self.role_stats()
        value_names = sorted({k for r in self.records for k in r.role_values})
        w = self.label_width()
        header = f"  {'agent':{w}s}"
        for name in roles.names:
            header += f" {name[:10]:>10s} {'share':>6s} {'win as ' + name[:14] + ' [95% CI]':>32s}"
        header += "".join(f" {'mean ' + k:>10s}" for k in value_names) + f" {roles.without:>6s}"
        rows = [title, header]
        for label, st in stats.items():
            row = f"  {label:{w}s}"
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
        mode = f", {self.phase_name()} on" if self.role_phase else ""
        lines = [
            f"{self.env_id}: {games} games over {self.deals} deals per table, seed {self.seed}, "
            f"options {self.options or '{}'}{mode}; intervals over {unit}",
            "",
            self.table(),
            "",
        ]
        legend = self.legend()
        if legend:
            lines[1:1] = ["agents (label: full name):", *[f"  {label}: {name}" for label, name in legend.items()]]
        warnings = self.warnings()
        if warnings:
            lines[1:1] = [f"WARNING: {warning}" for warning in warnings]
        if self.unsandboxed:
            lines[1:1] = [
                f"UNSANDBOXED: {', '.join(self.unsandboxed)} ran without a sandbox (--unsandboxed): "
                "they could read and write what the user running the arena can"
            ]
        if self.luck is not None:
            from .luck import report_lines

            lines += [*report_lines(self), ""]
        lines += [
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
        w = self.label_width()
        for label, r in sorted(self.ratings().items(), key=lambda kv: -kv[1]["ordinal"]):
            lines.append(f"  {label:{w}s} mu {r['mu']:7.2f}  sigma {r['sigma']:5.2f}  ordinal {r['ordinal']:7.2f}")
        illegal = sum(r.illegal is not None for r in self.records)
        truncated = sum(r.truncated for r in self.records)
        if illegal or truncated:
            lines.append(f"\n{illegal} games ended by an illegal action, {truncated} truncated")
        usage = self.usage()
        if usage:
            lines += ["", "usage (agents that count their calls; latency median and 90th percentile):"]
            lines += [f"  {label:{w}s} {_usage_line(u)}" for label, u in usage.items()]
        for label, counts in self.faults().items():
            said = [f"{n} {kind}" for kind, n in sorted(counts["forfeits"].items())]
            moves = [f"{n} {kind}" for kind, n in sorted(counts["fallback_moves"].items())]
            lines.append(
                f"{label}: games lost by a fault: {', '.join(said) or 'none'}; moves made by its fallback after a "
                f"fault: {', '.join(moves) or 'none'} (the games' records say which and why)"
            )
        return "\n".join(lines)

    def legend(self) -> dict[str, str]:
        """The labels that are not their agent's whole name (a long name shortened; see
        :func:`cardenvs.arena.plans.labels_for`) -> that name; a seat's ``#N`` alone needs no legend."""
        out = {}
        for label, name in zip(self.agents, self.agent_names, strict=True):
            if label != name and label.rpartition("#")[0] != name:
                out[label] = name
        return out

    def warnings(self) -> list[str]:
        """What makes the table measure something else than its agents, in words: a seat whose fallback made more
        than half of its moves with a choice (more than one legal move: a forced move asks no model, so it
        counts on neither side; records without ``choices`` count every move), or that lost more than half of its
        games by a fault (an endpoint unreachable, every answer unreadable), with the first fault's kind and
        cause."""
        stats = self.stats()
        moves: dict[str, int] = {}
        fallback: dict[str, int] = {}
        first: dict[str, dict] = {}
        forfeits: dict[str, int] = {}
        for r in self.records:
            for label, n in zip(r.seats, r.choices or r.decisions, strict=False):
                moves[label] = moves.get(label, 0) + n
            for f in r.faults:
                first.setdefault(f["agent"], f)
                if f["forfeit"]:
                    forfeits[f["agent"]] = forfeits.get(f["agent"], 0) + 1
                else:
                    fallback[f["agent"]] = fallback.get(f["agent"], 0) + 1
        out = []
        for label in self.agents:
            if label not in first:
                continue
            cause = f"first fault: {first[label]['kind']}: {first[label]['detail']}"
            made, covered = moves.get(label, 0), fallback.get(label, 0)
            if made and covered > made / 2:
                share = min(covered / made, 1.0)
                out.append(
                    f"{label}'s fallback made {covered} of its {made} moves with a choice ({share:.0%}): this table "
                    f"measured the fallback, not {label} ({cause})"
                )
            games, lost = stats[label]["games"], forfeits.get(label, 0)
            if games and lost > games / 2:
                out.append(f"{label} lost {lost} of its {games} games by a fault ({cause})")
        return out

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "version": self.version,
            "env_id": self.env_id,
            "agents": self.agents,
            "agent_names": self.agent_names,
            "options": self.options,
            "seed": self.seed,
            "deals": self.deals,
            "duplicate": self.duplicate,
            "role_phase": self.role_phase,
            "unsandboxed": self.unsandboxed,
            "stats": self.stats(),
            "head_to_head": self.head_to_head(),
            "ratings": self.ratings(),
        }
        if self.has_roles():
            out["roles"] = self.role_stats()
        if self.faults():
            out["faults"] = self.faults()
        if self.warnings():
            out["warnings"] = self.warnings()
        if self.legend():
            out["legend"] = self.legend()
        if self.usage():
            out["usage"] = self.usage()
        if self.luck is not None:
            from .luck import adjusted_stats

            agents, pairs = adjusted_stats(self)
            for label, adjusted in agents.items():
                out["stats"][label]["adjusted"] = adjusted
            for a, row in pairs.items():
                for b, adjusted in row.items():
                    out["head_to_head"][a][b]["adjusted"] = adjusted
            out["luck"] = self.luck
        out["records"] = [
            {
                k: v
                for k, v in asdict(r).items()
                if (k not in ("faults", "usage", "decisions", "choices") or v) and (k != "luck" or v is not None)
            }
            for r in self.records
        ]
        return out

    def faults(self) -> dict[str, dict[str, dict[str, int]]]:
        """Per agent with faults (programs, :mod:`cardenvs.agent.program`): games lost by a fault and moves its
        fallback agent made, by kind of fault (``{"forfeits": {"timeout": 2}, "fallback_moves": {...}}``)."""
        out: dict[str, dict[str, dict[str, int]]] = {}
        for r in self.records:
            for f in r.faults:
                counts = out.setdefault(f["agent"], {"forfeits": {}, "fallback_moves": {}})
                which = counts["forfeits" if f["forfeit"] else "fallback_moves"]
                which[f["kind"]] = which.get(f["kind"], 0) + 1
        return out

    def usage(self) -> dict[str, dict[str, Any]]:
        """Per agent whose games' records count what it used (:attr:`GameRecord.usage`, an ``llm:`` seat's calls,
        tokens, latencies, cost): ``games``, every number summed over its games, every list's values pooled as
        their median and 90th percentile (``latency_ms_median``, ``latency_ms_p90``), and its faults by kind
        (games lost and moves its fallback made, :meth:`faults`)."""
        out: dict[str, dict[str, Any]] = {}
        pooled: dict[str, dict[str, list]] = {}
        for r in self.records:
            for label, used in r.usage.items():
                totals = out.setdefault(label, {"games": 0})
                totals["games"] += 1
                for key, value in used.items():
                    if isinstance(value, list):
                        pooled.setdefault(label, {}).setdefault(key, []).extend(value)
                    elif isinstance(value, (int, float)) and not key.endswith(("_median", "_p90")):
                        totals[key] = totals.get(key, 0) + value
        faults = self.faults()
        for label, totals in out.items():
            for key, values in pooled.get(label, {}).items():
                totals[f"{key}_median"] = float(np.median(values)) if values else math.nan
                totals[f"{key}_p90"] = float(np.percentile(values, 90)) if values else math.nan
            counts = faults.get(label, {"forfeits": {}, "fallback_moves": {}})
            kinds = sorted({*counts["forfeits"], *counts["fallback_moves"]})
            totals["faults"] = {k: counts["forfeits"].get(k, 0) + counts["fallback_moves"].get(k, 0) for k in kinds}
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
            role_phase=data.get("role_phase", False),
            luck=data.get("luck"),
            unsandboxed=data.get("unsandboxed", []),
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
        from ..core.userfiles import load_json

        return cls.from_dict(load_json(path, "results file"))

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


def _usage_line(usage: dict[str, Any]) -> str:
    """One agent's usage (:meth:`Results.usage`) in words: the known counts first, then any other number."""
    words = [f"{usage['games']} games"]
    known = {"games", "faults", "calls", "input_tokens", "output_tokens", "cost", "rethinks", "fallbacks"}
    if "calls" in usage:
        words.append(f"{usage['calls']} calls")
    if "input_tokens" in usage or "output_tokens" in usage:
        words.append(f"{usage.get('input_tokens', 0)} tokens in, {usage.get('output_tokens', 0)} out")
    if "latency_ms_median" in usage:
        known |= {"latency_ms_median", "latency_ms_p90"}
        words.append(f"latency {usage['latency_ms_median']:.0f} ms, p90 {usage['latency_ms_p90']:.0f} ms")
    if "cost" in usage:
        words.append(f"cost {usage['cost']:.4f}")
    for key in ("rethinks", "fallbacks"):
        if key in usage:
            words.append(f"{usage[key]} {key}")
    others = [(key, value) for key, value in usage.items() if key not in known and isinstance(value, (int, float))]
    words += [f"{key} {value:g}" for key, value in others]
    faults = ", ".join(f"{n} {kind}" for kind, n in usage.get("faults", {}).items())
    words.append(f"faults: {faults or 'none'}")
    return "; ".join(words)
