"""Take the web app's screenshots: ``cardenvs serve`` on a free port, in Debian's Chromium (headless).

- ``docs/serve.png``: a Dou Dizhu hand a few moves in, played as the landlord (shown in the README);
- ``docs/screenshots/<game>-start.png`` and ``<game>-end.png``: each game in play mode at its first turn and
  at its end (the banner saying who won, every hand revealed), played by clicking as the browser tests do:
  the first move drawn as cards, else the last other move (bid the most, declare), War by "play to the end".

Run from the repository root: ``python docs/screenshot.py`` (needs the dev and web extras and
/usr/bin/chromium); ``python docs/screenshot.py twenty war`` takes only those games' pair.
"""

import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

from playwright.sync_api import Page, sync_playwright

DOCS = Path(__file__).parent
SERVE_PNG = DOCS / "serve.png"
SCREENSHOTS = DOCS / "screenshots"
VIEWPORT = {"width": 1200, "height": 800}
#: each game as the screenshots play it: small options for a short game, a seed, the person's seat
GAMES = {
    "twos": {"agents": "twos.heuristic", "options": "hand_size=8", "seed": 0, "seat": 0},
    "twenty": {"agents": "twenty.greedy", "options": "rounds=1", "seed": 21, "seat": 0},
    "war": {"agents": "war.flip", "seed": 1133, "seat": 1},
    "two_way_street": {"agents": "two_way_street.heuristic", "options": "players=2, target=1", "seed": 1, "seat": 0},
    "doudizhu": {"agents": "doudizhu.rule", "seed": 5, "seat": 0},
    "guandan": {"agents": "guandan.heuristic", "seed": 2, "seat": 0},
}
MAX_CLICKS = 400


def click_and_reload(page: Page, selector: str) -> None:
    with page.expect_navigation():
        page.click(selector)


def new_game(page: Page, base: str, game: str) -> None:
    page.goto(f"{base}/new?" + urlencode({"mode": "play", "game": game, **GAMES[game]}))
    page.wait_for_load_state("networkidle")


def play_to_the_end(page: Page) -> None:
    """Click until the game is over: the first move drawn as cards, else the last other move; a lone move
    without cards (War's flip, a forced pass) by "play to the end"."""
    for _ in range(MAX_CLICKS):
        if page.get_attribute("#game", "data-over") == "true":
            return
        if page.query_selector("button.card-move"):
            click_and_reload(page, "button.card-move >> nth=0")
        elif page.query_selector("#play-to-end"):
            page.click("#play-to-end")
            page.wait_for_function(
                "document.getElementById('game').dataset.over === 'true' || !document.getElementById('play-to-end')",
                timeout=300_000,
            )
        else:
            click_and_reload(page, "button.move >> nth=-1")
    raise RuntimeError(f"the game did not end in {MAX_CLICKS} clicks: {page.url}")


def take(page: Page, path: Path) -> None:
    page.wait_for_load_state("networkidle")
    page.screenshot(path=str(path))
    print(f"wrote {path} ({path.stat().st_size // 1024} KB)")


def serve_png(page: Page, base: str) -> None:
    page.set_viewport_size({"width": 1100, "height": 760})
    page.goto(f"{base}/new?mode=play&game=doudizhu&agents=doudizhu.rule&seat=0&seed=7")
    for _ in range(4):  # bid the most (to be the landlord), then play the first move listed a few times
        names = [b.inner_text() for b in page.query_selector_all("button.move")]
        if not names:
            break
        click_and_reload(page, "button.move >> nth=-1" if any("bid" in n for n in names) else "button.move >> nth=0")
    take(page, SERVE_PNG)
    page.set_viewport_size(VIEWPORT)


def main(games: list[str]) -> None:
    unknown = set(games) - set(GAMES)
    if unknown:
        sys.exit(f"unknown games {sorted(unknown)}; choose from {list(GAMES)}")
    SCREENSHOTS.mkdir(exist_ok=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "cardenvs", "serve", "--port", str(port)])
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.2)
        base = f"http://127.0.0.1:{port}"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True)
            page = browser.new_page(viewport=VIEWPORT)
            page.set_default_timeout(120_000)
            if not games:
                serve_png(page, base)
            for game in games or GAMES:
                new_game(page, base, game)
                take(page, SCREENSHOTS / f"{game}-start.png")
                play_to_the_end(page)
                page.locator("#final").scroll_into_view_if_needed()
                take(page, SCREENSHOTS / f"{game}-end.png")
            browser.close()
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main(sys.argv[1:])
