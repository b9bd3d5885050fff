"""The documentation site builds with warnings as errors, its internal links lead somewhere, and every page's
runnable blocks run as written.

Runnable blocks: ```` ```python ```` and ```` ```bash ```` fences. A page's blocks run in order as one Python
script (a bash block through the shell, stopping the page at its first failure) in a fresh folder that has
the repository's ``configs/``, with ``tests/`` importable (the example game of ``adding-a-game.md``). Blocks
that only show code (fragments, a server that does not return) use ```` ```{code-block} LANG ````, and
command lines with their measured output use ```` ```text ````.
"""

import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
GENERATED = {DOCS / "games", DOCS / "reference" / "cli.md"}
BLOCK = re.compile(r"^```(python|bash)\n(.*?)^```", re.S | re.M)


def written_pages() -> list[Path]:
    pages = []
    for page in sorted(DOCS.rglob("*.md")):
        if "_build" in page.parts or any(page == g or g in page.parents for g in GENERATED):
            continue
        pages.append(page)
    return pages


def runnable_pages() -> list[Path]:
    return [page for page in written_pages() if BLOCK.search(page.read_text())]


def page_script(page: Path) -> str:
    parts = []
    for language, code in BLOCK.findall(page.read_text()):
        if language == "python":
            parts.append(code)
        else:
            parts.append(f"import subprocess as _subprocess\n_subprocess.run({code!r}, shell=True, check=True)\n")
    return "\n".join(parts)


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(values["id"])
        for key in ("href", "src"):
            if values.get(key) and tag in ("a", "img", "link", "script"):
                self.links.append(values[key])


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    build = subprocess.run(
        [sys.executable, "-m", "sphinx", "-E", "-W", "--keep-going", "-q", "-b", "html", str(DOCS), str(out)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert build.returncode == 0, f"the docs build warned or failed:\n{build.stderr}"
    return out


@pytest.mark.slow
@pytest.mark.xdist_group("docs")
def test_the_site_builds_and_every_internal_link_resolves(site):
    parsed: dict[Path, _Links] = {}
    for page in site.rglob("*.html"):
        parser = _Links()
        parser.feed(page.read_text(errors="replace"))
        parsed[page] = parser
    assert {"index.html", "getting-started.html", "researchers.html"} <= {p.name for p in parsed}
    games = {p.stem for p in (site / "games").glob("*.html")}
    assert {"twos", "twenty", "war", "two_way_street", "doudizhu", "index"} <= games
    broken = []
    for page, parser in parsed.items():
        for link in parser.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:", "data:")):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(site)} -> {link}")
            elif parts.fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else set()
                if parts.fragment not in ids:
                    broken.append(f"{page.relative_to(site)} -> {link} (no such anchor)")
    assert not broken, "broken internal links:\n" + "\n".join(broken[:50])


@pytest.mark.slow
@pytest.mark.xdist_group("docs")
def test_a_game_page_is_generated_from_the_code(site):
    import cardenvs

    env = cardenvs.make("doudizhu")
    page = (site / "games" / "doudizhu.html").read_text()
    assert f"Discrete({env.action_space('player_0').n})" in page
    for segment in env.layout.segments:  # the observation table, generated from the layout
        assert segment.name in page
    for option in ("bidding", "reward"):
        assert option in page
    assert "no_bidding_win" in page  # the variants
    assert "doudizhu.rule" in page  # the agents
    assert "landlord" in page  # the rules in plain words and the rendered position


def test_the_docs_have_runnable_tutorials():
    names = {page.stem for page in runnable_pages()}
    assert {"random-play", "vector-learning", "your-agent", "dmc", "arena-results", "rule-variants"} <= names
    assert "adding-a-game" in names


@pytest.mark.slow
@pytest.mark.parametrize("page", runnable_pages(), ids=lambda p: str(p.relative_to(DOCS)))
def test_a_page_runs_as_written(page, tmp_path):
    (tmp_path / "configs").symlink_to(ROOT / "configs")
    script = tmp_path / "page.py"
    script.write_text(page_script(page))
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "tests"), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    out = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=900, env=env
    )
    assert out.returncode == 0, f"{page.name} failed:\n{out.stdout[-3000:]}\n{out.stderr[-5000:]}"
    assert out.stdout.strip(), f"{page.name} prints nothing"
