"""``cardenvs serve`` in a real browser: Debian's Chromium, headless, driven by Playwright.

The server runs as a subprocess on a free port; the tests play every game to its end by clicking (War by
"play to the end"), step through an arena replay, autoplay a watched game without a reload, and read the
page (how a game ended, every hand revealed, the seats' last moves, the moves drawn as cards). CI installs
Chromium (``.ci/run``); without ``/usr/bin/chromium`` the tests are skipped, saying so.
"""

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = [
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason=f"the browser tests need Debian's Chromium at {CHROMIUM} (apt-get install chromium)",
    ),
    pytest.mark.xdist_group("browser"),
    pytest.mark.slow,  # a real browser: the second command, python -m pytest -m slow
]
playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the dev extra)")
pytest.importorskip("starlette", reason="the web extra (pip install 'cardenvs[web]') is not installed")

from cardenvs import ENV_IDS, replay  # noqa: E402
from cardenvs.arena import run_tournament  # noqa: E402
from cardenvs.registry import short_name  # noqa: E402

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


@dataclass(frozen=True)
class Plan:
    """How the parametrized test plays a game: the new-game form's fields (small options, for a short game),
    the end-of-game banner as a pattern naming the winner (group ``seat``), a line the info shows at the end,
    the most moves the person makes, and whether the seats hold hands to reveal at the end (War's piles are
    face down for everyone)."""

    fields: dict[str, str]
    winner: str
    info: str
    max_moves: int
    hands: bool = True


PLANS = {
    "twos": Plan(
        {"agents": "twos.heuristic", "options": "hand_size=5", "seed": "0", "seat": "0"},
        r"player_(?P<seat>\d) went out first and wins \(left in hand: player_\d \d cards?, ",
        "5 cards each, bomb order classic",
        max_moves=10,
    ),
    "twenty": Plan(  # one round: five hands of five cards, every move a card
        {"agents": "twenty.greedy", "options": "rounds=1", "seed": "21", "seat": "0"},
        r"player_(?P<seat>\d) wins the match after 1 round, \d+ points to \d+$",
        "round 1 of 1, hand 5 of 5",
        max_moves=25,
    ),
    "war": Plan(
        {"agents": "war.flip", "seed": "1133", "seat": "1"},
        r"player_(?P<seat>\d) holds all 52 cards \(after \d+ battles\)$",
        "30 battles played",
        max_moves=1,  # one click: play to the end (30 battles, won by the person)
        hands=False,
    ),
    "two_way_street": Plan(  # a duel to 1 point: one hand
        {"agents": "two_way_street.heuristic", "options": "players=2, target=1", "seed": "1", "seat": "0"},
        r"player_(?P<seat>\d) wins with \d+ points after 1 hand \(target 1\)$",
        "hand 1 scored: player_0 ",
        max_moves=20,
    ),
    "doudizhu": Plan(
        {"agents": "doudizhu.rule", "seed": "5", "seat": "0"},
        r"player_(?P<seat>\d)(, the landlord,)? went out first: the (landlord wins|farmers win)",
        "landlord player_0 at bid 3",
        max_moves=40,
    ),
    "guandan": Plan(  # one hand at level 2: the person and a heuristic partner against two heuristics
        {"agents": "guandan.heuristic", "seed": "2", "seat": "0"},
        r"player_(?P<seat>\d) went out first: team \d \(player_\d and player_\d\) wins the hand",
        "levels: team 0 at 2, team 1 at 2",
        max_moves=60,
    ),
}


def game_state(page) -> dict:
    return page.request.get(page.url.replace("/game/", "/api/game/")).json()


def moves_on_page(page) -> list[list]:
    """Each move button drawn as cards: its action and the codes of its mini cards."""
    return page.eval_on_selector_all(
        "button.card-move",
        "bs => bs.map(b => [Number(b.dataset.action), Array.from(b.querySelectorAll('.mini-cards svg.card'), "
        "c => c.dataset.code)])",
    )


def hands_on_page(page) -> list[list[str]]:
    return page.eval_on_selector_all(
        ".seat", "ss => ss.map(s => Array.from(s.querySelectorAll('.hand svg.card'), c => c.dataset.code))"
    )


def play_selected(page, cards: list[str]) -> None:
    """Select ``cards`` in the hand (each code once, in order) and press "play selected"."""
    for code in cards:
        page.click(f'.hand.selectable .card-wrap:not(.selected):has(svg[data-code="{code}"]) >> nth=0')
    click_and_reload(page, "#play-selected")


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_play_each_game_to_its_end_by_clicking(page, server, env_id, tmp_path):
    """A whole game in play mode by clicking: each turn the legal moves that play cards are drawn as those
    cards (the first one played by selecting its cards in the hand, the next with the move buttons; moves
    without cards, such as bids, pass or declarations, are the other buttons: the last is clicked; a lone
    move without cards by "play to the end", which plays War to its end). The end says who won in words,
    names a seat that won, shows the game's scores and reveals every hand."""
    game = short_name(env_id)
    plan = PLANS[game]
    start_game(page, server, game, **plan.fields)
    state = game_state(page)
    if plan.hands:  # the others' hands hidden while the game is on
        assert [s["cards"] is None for s in state["seats"]] == [s["seat"] != state["viewer"] for s in state["seats"]]
        assert len(page.query_selector_all(".seat .count")) == len(state["seats"]) - 1
    moves = card_moves = 0
    while not state["over"]:
        assert state["your_turn"] and page.inner_text("#status").startswith("your turn")
        with_cards = [m for m in state["legal"] if m["cards"]]
        assert moves_on_page(page) == [[m["action"], m["cards"]] for m in with_cards]
        assert len(page.query_selector_all("#other-moves button.move")) == len(state["legal"]) - len(with_cards)
        moves += 1
        assert moves <= plan.max_moves
        if page.query_selector("#play-to-end") and not with_cards:  # one move, no card (War's flip, a pass)
            page.click("#play-to-end")  # played each turn until the game ends or there is a choice
            page.wait_for_function(
                "document.getElementById('game').dataset.over === 'true' || !document.getElementById('play-to-end')",
                timeout=90_000,
            )
        elif with_cards and not card_moves:
            play_selected(page, with_cards[0]["cards"])
        elif with_cards:
            click_and_reload(page, "button.card-move >> nth=0")
        else:
            click_and_reload(page, "#other-moves button.move >> nth=-1")
        card_moves += bool(with_cards)
        state = game_state(page)
    assert moves == plan.max_moves if game in ("twenty", "war") else moves > 1
    assert (card_moves > 0) == plan.hands  # War has no card moves: a flip from a face-down pile
    assert "game over" in page.inner_text("#status") and page.query_selector("button.move") is None
    result = page.inner_text("#result")
    assert result == state["result"]["text"]
    named = re.match(plan.winner, result)
    assert named, result
    assert state["outcome"][int(named["seat"])] > 0  # the seat the banner names did win
    info = page.inner_text(".info")
    assert plan.info in info and not re.search(r"\[|\d\.0\b", info)  # in words: no Python lists or floats
    assert final_scores(page) == scores_on_page(page) == [str(r["score"]) for r in state["result"]["scores"]]
    # every hand revealed: the page draws each seat's cards, no card back left
    if plan.hands:
        assert all(s["cards"] is not None for s in state["seats"])
        assert hands_on_page(page) == [s["cards"] for s in state["seats"]]
        assert page.query_selector(".seat .count") is None
    else:
        assert all(s["cards"] is None for s in state["seats"]) and page.query_selector(".seat svg.card") is None
    if game == "doudizhu":  # the person bid the most and played the hand as the landlord
        assert state["log"][0]["move"].startswith("bid") and state["seats"][0]["notes"][0] == "landlord"
    shot = tmp_path / f"{game}.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000


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
    # hovering a move lifts exactly the cards it plays in the hand, and leaving it puts them back
    biggest = max(page.query_selector_all(".card-move"), key=lambda b: len(b.get_attribute("data-cards").split()))
    codes = sorted(biggest.get_attribute("data-cards").split())
    biggest.hover()
    lifted = sorted(c.get_attribute("data-code") for c in page.query_selector_all(".seat.you .card-wrap.hinted"))
    assert lifted == codes and len(codes) >= 1
    page.mouse.move(0, 0)
    assert page.query_selector(".seat.you .card-wrap.hinted") is None


def pile_codes(page, label: str) -> list[str] | None:
    """The codes of the cards drawn in the table's pile labelled ``label`` (None without that pile)."""
    return page.evaluate(
        """label => {
            const pile = Array.from(document.querySelectorAll('.table-area .pile'))
                .find(p => p.querySelector('.dim').textContent === label);
            return pile ? Array.from(pile.querySelectorAll('svg.card'), c => c.dataset.code) : null;
        }""",
        label,
    )


@pytest.mark.parametrize("game, agents", [("twos", "twos.heuristic"), ("doudizhu", "doudizhu.rule")])
def test_the_move_to_beat_and_the_last_plays_are_drawn_as_cards(page, server, game, agents):
    """Watching with every hand shown: after each step that plays cards, the move to beat on the table, the
    mover's last play by their seat (and in Twos the trick's newest play) are card elements, exactly the
    cards that left the mover's hand on the page."""
    start_game(page, server, game, mode="watch", agents=agents, seed="5")
    checked = 0
    for _ in range(40):
        before = hands_on_page(page)
        click_and_reload(page, "#next")
        if page.get_attribute("#game", "data-over") == "true":
            break
        after = hands_on_page(page)
        gone = [sorted(set(b) - set(a)) for b, a in zip(before, after, strict=True)]
        movers = [p for p, cards in enumerate(gone) if cards]
        if not movers:  # a pass or a bid: named in words by the seat
            continue
        (mover,) = movers
        assert sorted(pile_codes(page, "to beat")) == gone[mover]
        assert f"by player_{mover}" in page.inner_text(".table-area .pile-caption")
        last = page.eval_on_selector_all(
            f".seat[data-seat='{mover}'] .last-move .last-cards svg.card", "cs => cs.map(c => c.dataset.code)"
        )
        assert sorted(last) == gone[mover]
        if game == "twos":
            newest = page.eval_on_selector_all(
                ".table-area .play:last-child svg.card", "cs => cs.map(c => c.dataset.code)"
            )
            assert sorted(newest) == gone[mover]
            assert page.inner_text(".table-area .play:last-child figcaption") == f"player_{mover}"
        checked += 1
    assert checked >= 4
    assert page.query_selector(".table-area .move-text") is None  # nothing on the table in words alone


def test_a_whole_guandan_match_by_clicking(page, server):
    """A whole Guandan match in play mode (issue 53: a later hand's tribute answered 500 and the match stopped):
    the person clicks the first move drawn as cards (else the last other move), with a random partner against
    two heuristics, seed 6: 106 clicks over 5 hands, pages of a return and of a resisted tribute among them, the
    match won at A."""
    start_game(page, server, "guandan", agents="random,guandan.heuristic", seed="6", seat="0", options="episode=match")
    state, clicks, stages = game_state(page), 0, set()
    while not state["over"]:
        assert state["your_turn"] and clicks < 150
        stages.update(line.split(":")[0] for line in state["info"] if line.startswith(("tribute", "return")))
        if any(m["cards"] for m in state["legal"]):
            click_and_reload(page, "button.card-move >> nth=0")
        else:
            click_and_reload(page, "#other-moves button.move >> nth=-1")
        clicks += 1
        state = game_state(page)
    assert clicks == 106 and stages == {"tribute resisted", "return"}
    assert re.match(
        r"team \d \(player_\d and player_\d\) wins the match at A after 5 hands", page.inner_text("#result")
    )
    assert "game over" in page.inner_text("#status") and "hands played: 5" in page.inner_text(".info")
