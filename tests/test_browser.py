"""``cardenvs serve`` in a real browser: Debian's Chromium, headless, driven by Playwright.

The server runs as a subprocess on a free port; the tests click through a whole Twenty match, a Dou Dizhu
hand and an arena replay, play War to the end and autoplay a watched game without a reload, and read the
page (how a game ended, the seats' last moves, the moves drawn as cards). CI installs Chromium (``.ci/run``); without
``/usr/bin/chromium`` the tests are skipped.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = [
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="no system Chromium at /usr/bin/chromium (apt-get install chromium)"
    ),
    pytest.mark.xdist_group("browser"),
]
playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the dev extra)")
pytest.importorskip("starlette", reason="the web extra (pip install 'cardenvs[web]') is not installed")

from cardenvs import replay  # noqa: E402
from cardenvs.arena import run_tournament  # noqa: E402

from conftest import free_port, wait_until_serving  # noqa: E402


@pytest.fixture(scope="module")
def replays_folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("arena") / "replays"
    run_tournament("twenty", ["twenty.greedy", "random"], 1, seed=12, replays=str(folder))
    return folder


@pytest.fixture(scope="module")
def server(replays_folder):
    port = free_port()
    cmd = [sys.executable, "-m", "cardenvs", "serve", "--port", str(port), "--replays", str(replays_folder)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=os.environ.copy())
    wait_until_serving(proc, port)
    yield f"http://127.0.0.1:{port}"
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    yield page
    context.close()


def click_and_reload(page, selector: str) -> None:
    with page.expect_navigation():
        page.click(selector)


def start_game(page, server: str, game: str, **fields: str) -> None:
    page.goto(server + "/")
    form = f"#game-{game} form"
    for name, value in fields.items():
        if name == "mode":
            page.check(f'{form} input[name="mode"][value="{value}"]')
        else:
            page.fill(f'{form} input[name="{name}"]', value)
    with page.expect_navigation():
        page.click(f"{form} button[type=submit]")
    assert "/game/" in page.url


def scores_on_page(page) -> list[str]:
    return [s.inner_text().removeprefix("score ") for s in page.query_selector_all(".seat .score")]


def final_scores(page) -> list[str]:
    return [b.inner_text() for b in page.query_selector_all("#final-scores .final-score b")]


def test_play_a_whole_twenty_match_by_clicking(page, server, tmp_path):
    start_game(page, server, "twenty", agents="twenty.greedy", options="rounds=1", seed="21", seat="0")
    assert page.inner_text("#status").startswith("your turn")
    # the first card by selecting it in the hand, the others with the move buttons
    page.click(".hand.selectable .card-wrap >> nth=0")
    click_and_reload(page, "#play-selected")
    clicks = 1
    while page.get_attribute("#game", "data-over") == "false":
        assert page.inner_text("#status").startswith("your turn")
        click_and_reload(page, "button.move >> nth=0")
        clicks += 1
        assert clicks <= 25
    assert clicks == 25  # five hands of five cards
    final = final_scores(page)
    assert final == scores_on_page(page)
    state = page.request.get(page.url.replace("/game/", "/api/game/")).json()
    assert final == [str(s) for s in state["scores"]] and state["over"]
    assert page.inner_text("#result") == state["result"]["text"] and "wins the match" in state["result"]["text"]
    page.screenshot(path=str(tmp_path / "twenty.png"))
    assert (tmp_path / "twenty.png").stat().st_size > 10_000


def test_play_a_dou_dizhu_hand_by_clicking(page, server):
    start_game(page, server, "doudizhu", agents="doudizhu.rule", seed="5", seat="0")
    turns = 0
    while page.get_attribute("#game", "data-over") == "false":
        buttons = page.query_selector_all("button.move")
        names = [b.inner_text() for b in buttons]
        assert buttons and page.query_selector_all(".seat.you .card")  # my hand, drawn as SVG cards
        # bid the most while bidding (to play the hand as landlord), then play the first move listed
        target = "button.move >> nth=-1" if any("bid" in n for n in names) else "button.move >> nth=0"
        click_and_reload(page, target)
        turns += 1
        assert turns < 60
    assert "game over" in page.inner_text("#status")
    state = page.request.get(page.url.replace("/game/", "/api/game/")).json()
    assert state["log"][0]["move"].startswith("bid") and any(s["notes"][0] == "landlord" for s in state["seats"])
    assert final_scores(page) == [str(s) for s in state["scores"]]
    assert "went out first" in page.inner_text("#result")
    # the game is over: every hand is shown, no card backs
    held = sum(len(s["cards"]) for s in state["seats"])
    assert held > 0 and len(page.query_selector_all(".seat .card")) == held
    assert len(page.query_selector_all(".seat .count")) == 0


def test_open_an_arena_replay_and_step_to_its_end(page, server, replays_folder, tmp_path):
    files = replay.replay_files(replays_folder)
    game = replay.load(files[0])
    page.goto(server + "/")
    assert page.inner_text("#replay-folder") == str(replays_folder.resolve())
    with page.expect_navigation():
        page.click("#open-replays")
    links = page.query_selector_all("a.replay-link")
    assert [a.inner_text() for a in links] == [f.name for f in files]
    with page.expect_navigation():
        links[0].click()
    assert page.inner_text("#step") == f"step 0 of {len(game.steps)}"
    for _ in range(3):
        click_and_reload(page, "#next")
    click_and_reload(page, "#back")
    assert page.inner_text("#step") == f"step 2 of {len(game.steps)}"
    assert [li.text_content().split(": ", 1)[1] for li in page.query_selector_all("#log li")] == [
        s.move for s in game.steps[:2]
    ]
    page.select_option("#viewer", "1")
    page.wait_for_load_state()
    page.wait_for_selector(".seat[data-seat='0'] .count")  # player_0's hand hidden in player_1's view
    click_and_reload(page, "#end")
    assert page.inner_text("#step") == f"step {len(game.steps)} of {len(game.steps)}"
    expected = [str(int(s)) if float(s).is_integer() else str(s) for s in game.scores]
    assert final_scores(page) == expected
    assert ", ".join(expected) == page.inner_text("#replay-scores").replace(".0", "")
    assert page.is_disabled("#next")
    shot = tmp_path / "replay.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000


def test_an_illegal_typed_move_shows_the_legal_moves(page, server):
    start_game(page, server, "twenty", agents="random", seed="3", seat="0")
    before = page.inner_text(".seat.you .hand")
    page.fill("#typed", "nonsense")
    page.click("#send-typed")
    page.wait_for_function("document.getElementById('error').textContent.length > 0")
    assert "legal moves:" in page.inner_text("#error")
    page.reload()
    assert page.inner_text(".seat.you .hand") == before


def test_a_double_click_steps_once(page, server):
    """Both clicks post the step they answer; the server applies the first and refuses the second (409)."""
    start_game(page, server, "doudizhu", mode="watch", agents="random", seed="9")
    assert page.inner_text("#step") == "step 0"
    with page.expect_navigation():
        page.dblclick("#next")
    page.wait_for_load_state()
    assert page.inner_text("#step") == "step 1"
    state = page.request.get(page.url.replace("/game/", "/api/game/")).json()
    assert state["step"] == 1 and len(state["log"]) == 1


def test_no_request_fails_and_the_controls_read_as_text(page, server):
    """The favicon is served (no 404 in the console), the step buttons are plain text, an empty table is not
    drawn, and while bidding there is nothing to select or type."""
    failed = []
    page.on("response", lambda response: failed.append(response.url) if response.status >= 400 else None)
    start_game(page, server, "war", mode="watch", agents="random", seed="4")
    page.wait_for_load_state("networkidle")
    assert page.inner_text("#start") == "\u00ab start" and page.inner_text("#back") == "\u25c0 back"
    assert page.query_selector(".table-area") is None
    click_and_reload(page, "#next")
    assert page.query_selector(".table-area") is not None
    assert "1 card on the table" in page.inner_text(".seat[data-seat='0'] .notes")
    start_game(page, server, "doudizhu", agents="doudizhu.rule", seed="8", seat="0")
    page.wait_for_load_state("networkidle")
    assert page.query_selector_all("button.move") and page.query_selector("#play-selected") is None
    assert page.query_selector("#typed") is None and page.query_selector(".hand.selectable") is None
    assert failed == []


def test_what_the_others_did_is_shown_by_their_seats(page, server):
    start_game(page, server, "doudizhu", agents="doudizhu.rule", seed="8", seat="2")
    assert page.inner_text(".seat[data-seat='0'] .last-move") == "last: no bid"
    assert page.inner_text(".seat[data-seat='2'] .last-move") == ""
    assert "player_0 no bid" in page.inner_text("#since") and "player_1 no bid" in page.inner_text("#since")
    assert "bids so far: player_0 no bid, player_1 no bid" in page.inner_text(".info")


def test_play_to_the_end_and_autoplay_update_the_page_in_place(page, server):
    """Without a choice (War), one click plays to the end; watch-mode autoplay steps on; neither reloads the
    page (a mark set on the window stays)."""
    start_game(page, server, "war", agents="random", seed="6", seat="1", options="max_turns=15")
    page.evaluate("window.notReloaded = true")
    page.click("#play-to-end")
    page.wait_for_function("document.getElementById('game').dataset.over === 'true'", timeout=60_000)
    assert page.evaluate("window.notReloaded === true")
    assert "stopped after 15 battles" in page.inner_text("#result") and page.query_selector("#play-to-end") is None
    start_game(page, server, "war", mode="watch", agents="random", seed="6")
    page.evaluate("window.notReloaded = true")
    page.click("summary")  # the move log, opened: it stays open while the page updates
    page.click("#auto")
    page.wait_for_function("Number(document.getElementById('game').dataset.step) >= 3", timeout=30_000)
    page.click("#auto")  # stop
    assert page.evaluate("window.notReloaded === true") and page.is_visible("#log li")
    page.wait_for_timeout(1_500)
    stopped = page.get_attribute("#game", "data-step")
    page.wait_for_timeout(1_500)
    assert page.get_attribute("#game", "data-step") == stopped and page.inner_text("#auto") == "autoplay"


def test_legal_moves_are_drawn_as_the_cards_they_play(page, server):
    start_game(page, server, "doudizhu", agents="doudizhu.rule", seed="8", seat="0")
    assert page.query_selector(".card-move") is None and page.query_selector_all("#other-moves button.move")
    while page.query_selector(".card-move") is None:  # bid the most: the landlord leads
        click_and_reload(page, "#other-moves button.move >> nth=-1")
    first = page.query_selector(".card-move")
    assert first.query_selector_all(".mini-cards svg.card") and first.get_attribute("title")
    assert page.query_selector("#other-moves") is None  # leading: no pass
