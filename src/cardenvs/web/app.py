"""The Starlette app of ``cardenvs serve``: server-rendered pages, a JSON API, a little plain JavaScript.

Pages (HTML):

* ``GET /``: every game with its options and agents; forms to play or watch, and the replay folder.
* ``GET /new?mode=play|watch&game=G&options=k=v,...&agents=A,B&seat=S&seed=N``: starts a game in a new
  session and redirects to its page (a bad game, option, agent or seat: an error page, 400).
* ``GET /game/{id}``: the game (your hand as SVG cards, the table, the legal moves; next/back/autoplay
  and the choice of view when watching or replaying).
* ``GET /replays``: the games of the ``--replays`` folder; ``GET /replays?path=NAME``: one of its files,
  opened in a new session (:mod:`cardenvs.web.files`: nothing outside the folder is read, and every name
  it does not serve gets the same 404).

API (JSON; the page's JavaScript posts here, then reloads, or while autoplaying replaces the game in place):

* ``GET /api/game/{id}``: the view (:meth:`GameSession.view`), from the person's seat in play mode; while an
  agent is thinking, the view before its move. ``?html=1`` adds ``html``, the page's game part drawn from it
  (autoplay replaces the page's game part with it instead of reloading the page).
* ``POST /api/game/{id}/move`` ``{"step": k, "action": id}`` or ``{"step": k, "move": "text"}``: the person's
  move; the agents then play until it is the person's turn again. A malformed or illegal move: 400 with a
  message naming the legal moves, and the game is unchanged.
* ``POST /api/game/{id}/next`` ``{"step": k}``, ``/back`` ``{"step": k}``, ``/goto`` ``{"step": k}`` (the
  step to show), ``/view`` ``{"viewer": seat|null}``.

``step`` in a move, next or back is the view's ``step``, the one the request answers: a stale or repeated
request (a double click, an old tab) is refused with 409 and changes nothing, as is one that comes while
the game is busy with another. Agents think in a bounded set of worker threads, never on the event loop
(:class:`~.thinking.Thinking`: new games, moves and next; a search move's time shrinks while tables wait),
so views, pages and other games are served meanwhile. Bodies are JSON objects (``Content-Type:
application/json``) of at most :data:`MAX_BODY_BYTES`, nested at most :data:`MAX_JSON_DEPTH` deep. Every
request passes :class:`~cardenvs.web.guard.Guard` (Host and origin checks). Each game has its own session id
in its URL, so two tabs never share a game. Unknown ids: 404. When the server holds
:data:`~.store.MAX_SESSIONS` games, or its memory (RSS) and one more game's estimate would pass its budget
(:class:`~.memory.MemoryBudget`), and no game idle long enough can make room, a new game is refused with 503
(:class:`~.store.SessionStore`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from .. import __version__
from ..agent import known_agents, play_agent
from ..core.userfiles import too_deep
from ..core.view import plural
from ..registry import env_ids, spec_of
from .files import REFUSED, Refused, ReplayFolder
from .guard import Guard
from .memory import MemoryBudget
from .session import WEB_MAX_MS, WEB_MAX_PLAYOUTS, Conflict, GameSession, parse_options
from .store import MAX_SESSIONS, SessionStore, StoreFull
from .thinking import DEFAULT_WORKERS, Thinking
from .views import card_back_svg, card_names_in, card_svg, deck_names

HERE = Path(__file__).parent
#: the largest request body read (a move is a few dozen bytes)
MAX_BODY_BYTES = 64 * 1024
#: the deepest nesting of brackets a JSON body may have (a move has one level)
MAX_JSON_DEPTH = 32


class BadRequest(Exception):
    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message, self.status = message, status


def create_app(
    replays: str | Path | None = None,
    models: str | Path | None = None,
    hosts: Iterable[str] = (),
    max_sessions: int = MAX_SESSIONS,
    leaderboard: str | Path | None = None,
    max_memory: int | None = None,
    workers: int = DEFAULT_WORKERS,
    memory: MemoryBudget | None = None,
) -> Starlette:
    """The app. ``replays``: the folder replays are read from (an arena's ``--replays`` folder; without it,
    none are); ``models``: the folder ``KIND:PATH`` agents are loaded from (without it, none are); ``hosts``:
    names accepted in the Host header besides ``localhost`` and IP addresses (the bound ``--host``,
    ``--allow-host``); ``max_sessions``: games held at once; ``leaderboard``: a leaderboard file of
    ``cardenvs ladder --leaderboard`` whose placements the start page shows beside each game's anchors (read
    on every visit, so new placements appear; without it, the anchors alone); ``max_memory``: the bytes of
    memory (RSS) the server admits new games up to (None: :func:`~.memory.default_budget`), or ``memory``, the
    :class:`~.memory.MemoryBudget` itself; ``workers``: the threads agents think in (:class:`~.thinking.Thinking`)."""
    store = SessionStore(max_sessions, memory=memory if memory is not None else MemoryBudget(max_memory))
    thinking = Thinking(workers)
    folder = ReplayFolder(replays) if replays is not None else None
    templates = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,
    )
    templates.globals.update(
        card=lambda code, width=54: Markup(card_svg(code, width)),
        back=lambda: Markup(card_back_svg()),
        version=__version__,
        plural=plural,
    )
    # card codes in a text written as the cards are drawn: {{ text|card_names(names) }}, names = deck_names(base)
    templates.filters["card_names"] = card_names_in

    def page(template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
        return HTMLResponse(templates.get_template(template).render(**context), status_code=status_code)

    def error_page(message: str, status: int = 400) -> HTMLResponse:
        return page("error.html", status, message=message, status=status)

    def session_of(request: Request) -> GameSession:
        sid = request.path_params["sid"]
        session = store.get(sid)
        if session is None:
            raise BadRequest(f"no game with session id {sid!r} (the server may have restarted); start a new one", 404)
        return session

    async def keep(build: Any, *args: Any, **kwargs: Any) -> Response:
        """Build a session off the event loop (making an env may compile kernels; agents may move: in a
        thinking worker) and keep it."""
        refusal = store.refusal()
        if refusal is not None:
            return error_page(refusal, 503)
        try:
            session = await thinking.run(build, *args, **kwargs)
            store.add(session)
        except ValueError as exc:
            return error_page(str(exc))
        except StoreFull as exc:
            return error_page(str(exc), 503)
        return RedirectResponse(f"/game/{session.id}", status_code=303)

    # ------------------------------------------------------------------ pages
    async def index(request: Request) -> HTMLResponse:
        rows, board_error = await run_in_threadpool(leaderboard_rows, leaderboard)
        games = []
        for env_id in env_ids():
            spec = spec_of(env_id)
            short = spec.name
            games.append(
                {
                    "id": env_id,
                    "short": short,
                    "options": [(o.name, o.describe_default(), o.allowed()) for o in spec.options()],
                    "agents": known_agents(short, cheating=False),
                    "play_agent": spec.play_agent if play_agent(env_id)[1] is None else None,
                    "variants": {k: v for k, v in spec.variants().items() if k != "default"},
                    "standings": standings_of(env_id, rows),
                }
            )
        return page(
            "index.html",
            games=games,
            replays=str(folder.root) if folder else "",
            models=str(Path(models).resolve()) if models is not None else "",
            max_playouts=f"{WEB_MAX_PLAYOUTS:,}",
            max_ms=f"{WEB_MAX_MS:,.0f}",
            leaderboard=str(Path(leaderboard).resolve()) if leaderboard is not None else "",
            leaderboard_error=board_error,
        )

    async def new(request: Request) -> Response:
        q = request.query_params
        try:
            seat = _int(q.get("seat"), "seat")
            seed = _int(q.get("seed"), "seed")
            options = parse_options(q.get("options", ""))
        except ValueError as exc:
            return error_page(str(exc))
        return await keep(
            GameSession.new_game,
            q.get("mode", "play"),
            q.get("game", ""),
            options,
            q.get("agents", ""),  # none named: the game's play agent (GameSpec.play_agent), else random
            seat if seat is not None else 0,
            seed,
            models=models,
            move_ms=thinking.move_ms,
        )

    async def game_page(request: Request) -> HTMLResponse:
        try:
            session = session_of(request)
        except BadRequest as exc:
            return error_page(exc.message, exc.status)
        return page("game.html", v=session.shown, names=deck_names(session.base))

    async def open_replays(request: Request) -> Response:
        if folder is None:
            return error_page("this server has no replay folder: start it with cardenvs serve --replays DIR", 404)
        name = request.query_params.get("path", "").strip()
        if not name:
            rows, total = await run_in_threadpool(folder.listing)
            return page("replays.html", folder=str(folder.root), rows=rows, total=total)

        def opened() -> GameSession:
            return GameSession.from_replay(folder.load(name), Path(name).name)

        try:
            return await keep(opened)
        except Refused:
            return error_page(REFUSED, 404)

    # ------------------------------------------------------------------ API
    async def api_view(request: Request) -> JSONResponse:
        try:
            session = session_of(request)
        except BadRequest as exc:
            return JSONResponse({"error": exc.message}, status_code=exc.status)
        shown = session.shown
        if request.query_params.get("html") == "1":  # the page's game part too, to replace it in place
            body = templates.get_template("game_body.html").render(v=shown, names=deck_names(session.base))
            shown = shown | {"html": body}
        return JSONResponse(shown)

    def action(kind: str):
        async def endpoint(request: Request) -> JSONResponse:
            try:
                session = session_of(request)
                body = await _body(request, session, kind)
                change = partial(session.change, partial(_CHANGES[kind], session, body))
                # agents move in a thinking worker (bounded); the other changes only rebuild or step the env
                view = await (thinking.run(change) if kind in _THINKING else run_in_threadpool(change))
            except BadRequest as exc:
                return JSONResponse({"error": exc.message}, status_code=exc.status)
            except Conflict as exc:
                return JSONResponse({"error": str(exc)}, status_code=409)
            except ValueError as exc:
                return JSONResponse({"error": str(exc)}, status_code=400)
            return JSONResponse(view)

        return endpoint

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        media = {"app.js": "text/javascript", "style.css": "text/css", "favicon.svg": "image/svg+xml"}
        if name not in media:
            return Response("not found", status_code=404, media_type="text/plain")
        return Response((HERE / "static" / name).read_text(), media_type=media[name])

    async def favicon(request: Request) -> Response:  # browsers ask for it whatever the page links
        return Response((HERE / "static" / "favicon.svg").read_text(), media_type="image/svg+xml")

    routes = [
        Route("/", index),
        Route("/favicon.ico", favicon),
        Route("/new", new),
        Route("/game/{sid}", game_page),
        Route("/replays", open_replays),
        Route("/api/game/{sid}", api_view),
        Route("/static/{name}", static),
    ]
    routes += [Route(f"/api/game/{{sid}}/{kind}", action(kind), methods=["POST"]) for kind in _KINDS]
    app = Starlette(routes=routes, middleware=[Middleware(Guard, hosts=list(hosts))])
    app.state.sessions = store
    app.state.thinking = thinking
    return app


#: what each POST does to the session, given the body
_CHANGES: dict[str, Callable[[GameSession, dict[str, Any]], None]] = {
    "move": lambda session, body: session.move(body.get("action"), body.get("move"), body.get("step")),
    "next": lambda session, body: session.next(body.get("step")),
    "back": lambda session, body: session.back(body.get("step")),
    "goto": lambda session, body: session.goto(body.get("step")),
    "view": lambda session, body: session.set_viewer(body.get("viewer")),
}
_KINDS = tuple(_CHANGES)
#: the changes in which an agent may move
_THINKING = ("move", "next")


def leaderboard_rows(leaderboard: str | Path | None) -> tuple[list[dict[str, Any]], str]:
    """The placements of the ``--leaderboard`` file as the start page shows them, read anew each visit (none
    while it does not exist), and what is wrong with it: a file that went bad after start-up (a bad row, half
    written by another program, a pipe) leaves only the anchors on the page, with the problem beside them."""
    from cardenvs.analysis import grading

    if leaderboard is None or not os.path.lexists(leaderboard):
        return [], ""
    try:
        return grading.read(leaderboard), ""
    except ValueError as exc:
        return [], str(exc)


def standings_of(env_id: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The start page's leaderboard of a game: its anchors and the placements ``rows``, best first (none where
    the game has no reference ratings)."""
    from cardenvs.analysis import grading

    try:
        ref = grading.load_reference(env_id)
    except ValueError:
        return []
    return grading.standings(rows, ref)


def _int(text: str | None, what: str) -> int | None:
    if text is None or not text.strip():
        return None
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{what} {text!r} is not an integer") from None


async def _read_body(request: Request) -> bytes:
    """The body, refused (413) beyond :data:`MAX_BODY_BYTES` before more than that is read."""
    too_large = BadRequest(f"the request body is larger than {MAX_BODY_BYTES:,} bytes; a move is a few dozen", 413)
    length = request.headers.get("content-length")
    if length is not None and (not length.strip().isdigit() or int(length) > MAX_BODY_BYTES):
        raise too_large
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise too_large
        chunks.append(chunk)
    return b"".join(chunks)


async def _body(request: Request, session: GameSession, kind: str) -> dict[str, Any]:
    raw = await _read_body(request)
    data: Any = None
    if not raw.strip():
        data = {}
    else:
        media = request.headers.get("content-type", "").partition(";")[0].strip().lower()
        if media != "application/json":
            raise BadRequest(f"send the body as JSON (Content-Type: application/json), not {media or 'untyped'}", 415)
        try:
            text = raw.decode()
            if too_deep(text, MAX_JSON_DEPTH):
                raise BadRequest(f"the JSON body is nested deeper than {MAX_JSON_DEPTH} arrays or objects")
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
            data = None
    if not isinstance(data, dict):
        shown = session.shown  # not the env itself: an agent may be stepping it in a worker thread
        hint = ""
        if kind == "move" and shown.get("legal"):
            legal = shown["legal"]
            hint = "; legal moves: " + ", ".join(m["move"] for m in legal[:60]) + (" ..." if len(legal) > 60 else "")
        raise BadRequest(
            f'the request body must be a JSON object such as {{"step": {shown.get("step")}, "action": 3}} or '
            f'{{"step": {shown.get("step")}, "move": "7"}}{hint}'
        )
    return data
