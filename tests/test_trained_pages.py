"""The trained agents' result pages (issue 63, item 4): ``docs/results/agents.md`` and ``docs/results/trained-*.md``
are what ``benchmarks/trained_agents.py`` writes from ``docs/study/trained/`` and the runs' files; every model in
``training/results/`` has a row; the figures computed from a run's files are those files'; and
``training/README.md`` is the guide, its results on those pages."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "training" / "results"
#: a figure with its 95% interval, as the log of runs wrote them ("0.472 [0.457, 0.486]", "+1.17 [+0.94, +1.39]")
INTERVAL = re.compile(r"[+-]?\d+\.\d+ \[[+-]?\d+\.\d+, [+-]?\d+\.\d+\]")
NUMBER = re.compile(r"[+-]?\d+(?:,\d{3})*(?:\.\d+)?")


@pytest.fixture(scope="module")
def trained():
    spec = importlib.util.spec_from_file_location("trained_agents", ROOT / "benchmarks" / "trained_agents.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def pages(trained):
    return trained.pages(ROOT)


def test_the_pages_are_what_the_generator_writes(pages):
    assert {p.name for p in pages} >= {"agents.md", "trained-doudizhu.md", "trained-guandan.md"}
    for path, text in pages.items():
        assert (ROOT / path).read_text() == text, f"{path} is stale: run python -m benchmarks.trained_agents"


def shipped_models() -> set[str]:
    dirs = {p.parent.name for p in RESULTS.glob("*/model.pt")}
    return dirs | {p.name for p in RESULTS.glob("*.zip")}


def test_every_shipped_model_has_a_row(trained, pages):
    models = trained.load_models(ROOT)["models"]
    assert shipped_models() == {m["model"] for m in models}
    index = pages[trained.RESULTS / "agents.md"]
    for m in models:
        assert (ROOT / m["file"]).is_file()
        row = next(line for line in index.splitlines() if f"[`{m['model']}`]" in line)
        assert f"`{m['plays_as']}`" in row and m["result"] in row
        # its section on the game's page names it, and every figure of the row is on that section
        sections = [s for s in trained.load_sections(ROOT, m["page"]) if m["model"] in s["models"]]
        assert len(sections) == 1, m["model"]
        text = "\n".join(trained.render_block(ROOT, b) for b in sections[0]["blocks"])
        for figure in NUMBER.findall(m["result"] + " " + m["training"]):
            if len(figure.strip("+-").replace(",", "")) > 1:
                assert figure in text, f"{m['model']}: {figure} is not on its section"


def test_the_shipped_names_play_the_rows_models(trained):
    """Each row's ``plays as`` name loads that row's model: GAME.dmc is the highest-numbered GAME__dmc__N unless a
    pin (a spec's ``shipped_runs``) names another run, as Guandan's does since issue 63 (the model it replaced:
    ``guandan.dmc_v1``)."""
    from cardenvs.agent import loader, shipped_models

    by_name = {m["plays_as"]: m["model"] for m in trained.load_models(ROOT)["models"]}
    shipped = shipped_models()
    for game in ("doudizhu", "twos", "twenty", "two_way_street", "guandan"):
        runs = sorted(p.parent.name for p in RESULTS.glob(f"{game}__dmc__*/model.pt"))
        newest = max(runs, key=lambda name: int(name.rsplit("__", 1)[1]))
        expected = loader.pinned_runs().get(f"{game}.dmc", newest)
        assert by_name[f"{game}.dmc"] == expected == shipped[f"{game}.dmc"].parent.name
    for name, run in loader.pinned_runs().items():
        assert by_name[name] == run == shipped[name].parent.name
    assert by_name["guandan.dmc"] == "guandan__dmc_v2_small__1" and by_name["guandan.dmc_v1"] == "guandan__dmc__1"


def test_the_figures_read_from_files_are_the_files(trained, tmp_path):
    run = tmp_path / "training" / "results" / "x__dmc__1"
    run.mkdir(parents=True)
    (run / "final_eval.json").write_text(
        json.dumps({"win_rate": 0.25, "win_rate_lo": 0.125, "win_rate_hi": 0.375, "mean_score": -0.5, "games": 1200})
    )
    (run / "eval.csv").write_text(
        "frames,minutes,win_rate,win_rate_lo,win_rate_hi,mean_score\n1000,10.0,0.5,0.4,0.6,0.1\n"
    )
    rows = [
        {"deal": d, "rule_landlord_win": 1.0, "search_landlord_win": 1.0, "search_farmers_win": float(d % 2)}
        for d in range(4)
    ]
    args = {"game": "doudizhu", "searcher": "dmc:M.pt", "deals": 4, "seed": 9, "opponent": "rlcard.rule", "out": "o"}
    (run / "vs.json").write_text(json.dumps({"args": args, "rows": rows, "cpu_ms": [1.0, 3.0]}))
    final = trained.final_eval_table(tmp_path, "training/results/x__dmc__1")
    assert "| `x__dmc__1` | 1,200 | 0.250 [0.125, 0.375] | -0.500 |" in final
    points = trained.eval_csv_table(tmp_path, "training/results/x__dmc__1")
    assert "| 10.0 | 1,000 | 0.500 [0.400, 0.600] | +0.100 |" in points
    summary = trained.rows_file_summary(tmp_path, "training/results/x__dmc__1/vs.json")
    # farmers win deals 1 and 3: 0.5 with the normal interval over 4 deals; against the rule farmers' 0.0, paired
    half = 1.959963984540054 * (1 / 3) ** 0.5 / 2
    assert summary[5] == "1.000 [1.000, 1.000]" and summary[7] == f"0.500 [{0.5 - half:.3f}, {0.5 + half:.3f}]"
    assert summary[8] == f"+0.500 [{0.5 - half:+.3f}, {0.5 + half:+.3f}]"
    assert (
        summary[-1]
        == "`python benchmarks/search_goals.py doudizhu dmc:M.pt --deals 4 --seed 9 --opponent rlcard.rule --out o`"
    )
    with pytest.raises(ValueError, match="unknown block"):
        trained.render_block(tmp_path, {"nonsense": 1})


def test_every_curve_is_a_small_picture_of_committed_runs(trained):
    curves = trained.curves(ROOT)
    assert len(curves) >= 10
    for c in curves:
        png = ROOT / trained.CURVES / c["png"]
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size < 100_000
        for run in c["runs"]:
            path = ROOT / run
            assert (path / "eval.csv").is_file() if path.is_dir() else path.is_file()


def test_the_readme_is_the_guide_and_its_links_lead_to_the_results(trained):
    readme = (ROOT / "training" / "README.md").read_text()
    assert len(readme.splitlines()) < 300
    assert INTERVAL.findall(readme) == []  # no result with its interval left in the guide
    links = re.findall(r"\]\(\.\./docs/results/([\w-]+\.md)(?:#([\w-]+))?\)", readme)
    assert len(links) >= 8
    for page, anchor in links:
        text = (ROOT / "docs" / "results" / page).read_text()
        if anchor:
            titles = [line[3:] for line in text.splitlines() if line.startswith("## ")]
            assert anchor in {trained.anchor_of(t) for t in titles}, (page, anchor)


def test_anchors_are_mysts():
    slugs = pytest.importorskip("myst_parser.slugs")
    spec = importlib.util.spec_from_file_location("trained_agents", ROOT / "benchmarks" / "trained_agents.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for title in ("Trained against RLCard's rule agent: `doudizhu__dmc__9`", "DMC: `twos__dmc__2` (`twos.dmc`)"):
        assert module.anchor_of(title) == slugs.github_slugify(title.replace("`", ""))
