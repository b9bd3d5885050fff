"""The Starlette app of ``cardenvs serve``: server-rendered pages, a JSON API, a little plain JavaScript.

Pages (HTML):

* ``GET /``: every game with its options and agents; forms to play or watch, and to open replays.
* ``GET /new?mode=play|watch&game=G&options=k=v,...&agents=A,B&seat=S&seed=N``: starts a game in a new
  session and redirects to its page (a bad game, option, agent or seat: an error page, 400).
* ``GET /game/{id}``: the game (your hand as SVG cards, the table, the legal moves; next/back/autoplay
  and the choice of view when watching or replaying).
* ``GET /replays?path=P``: a replay file (opened in a new session) or a folder of them (listed).

API (JSON; the page's JavaScript posts here and reloads):

* ``GET /api/game/{id}``: the view (:meth:`GameSession.view`), from the person's seat in play mode;
* ``POST /api/game/{id}/move`` ``{"action": id}`` or ``{"move": "text"}``: the person's move; the agents
  then play until it is the person's turn again. A malformed or illegal move: 400 with a message naming
  the legal moves, and the game is unchanged.
* ``POST /api/game/{id}/next``, ``/back``, ``/goto`` ``{"step": k}``, ``/view`` ``{"viewer": seat|null}``.

Each game has its own session id in its URL, so two tabs never share a game. Unknown ids: 404.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from .. import __version__
from ..agent import known_agents
from ..registry import env_ids, raw_env_class
from ..replay import load, replay_files
from .session import GameSession, SessionStore, parse_options
from .views import card_back_svg, card_svg

HERE = Path(__file__).parent


class BadRequest(Exception):
    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message, self.status = message, status


def create_app(replays: str | None = None) -> Starlette:
    """The app; ``replays``: a folder the start page links to (an arena's ``--replays`` folder)."""
    store = SessionStore()
    templates = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,
    )
    templates.globals.update(
        card=lambda code, width=54: Markup(card_svg(code, width)),
        back=lambda: Markup(card_back_svg()),
        version=__version__,
    )

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

    # ------------------------------------------------------------------ pages
    async def index(request: Request) -> HTMLResponse:
        games = []
        for env_id in env_ids():
            cls = raw_env_class(env_id)
            short = env_id.rsplit("_v", 1)[0]
            games.append(
                {
                    "id": env_id,
                    "short": short,
                    "options": [(o.name, o.describe_default(), o.allowed()) for o in cls.all_options()],
                    "agents": known_agents(short),
                    "variants": {k: v for k, v in cls.VARIANTS.items() if k != "default"},
                }
            )
        return page("index.html", games=games, replays=replays or "")

    async def new(request: Request) -> Response:
        q = request.query_params
        try:
            seat = _int(q.get("seat"), "seat")
            seed = _int(q.get("seed"), "seed")
            session = GameSession.new_game(
                q.get("mode", "play"),
                q.get("game", ""),
                parse_options(q.get("options", "")),
                q.get("agents", "random"),
                seat if seat is not None else 0,
                seed,
            )
        except ValueError as exc:
            return error_page(str(exc))
        store.add(session)
        return RedirectResponse(f"/game/{session.id}", status_code=303)

    async def game_page(request: Request) -> HTMLResponse:
        try:
            session = session_of(request)
        except BadRequest as exc:
            return error_page(exc.message, exc.status)
        return page("game.html", v=session.view())

    async def open_replays(request: Request) -> Response:
        path = request.query_params.get("path", "").strip()
        if not path:
            return error_page("name a replay file or a folder of them (?path=...)")
        p = Path(path).expanduser()
        if not p.exists():
            return error_page(f"{path} does not exist", 404)
        if p.is_dir():
            rows: list[dict[str, Any]] = []
            for f in replay_files(p):
                try:
                    game = load(f)
                except ValueError as exc:
                    rows.append({"path": str(f), "name": f.name, "error": str(exc)})
                    continue
                rows.append(
                    {
                        "path": str(f),
                        "name": f.name,
                        "env_id": game.env_id,
                        "labels": game.labels or game.agents,
                        "scores": game.scores,
                        "steps": len(game.steps),
                        "deal": game.deal,
                    }
                )
            return page("replays.html", folder=str(p), rows=rows)
        try:
            session = GameSession.from_replay(load(p), str(p))
        except ValueError as exc:
            return error_page(str(exc))
        store.add(session)
        return RedirectResponse(f"/game/{session.id}", status_code=303)

    # ------------------------------------------------------------------ API
    async def api_view(request: Request) -> JSONResponse:
        try:
            return JSONResponse(session_of(request).view())
        except BadRequest as exc:
            return JSONResponse({"error": exc.message}, status_code=exc.status)

    def action(kind: str):
        async def endpoint(request: Request) -> JSONResponse:
            try:
                session = session_of(request)
                body = await _body(request, session, kind)
                if kind == "move":
                    session.move(body.get("action"), body.get("move"))
                elif kind == "next":
                    session.next()
                elif kind == "back":
                    session.back()
                elif kind == "goto":
                    session.goto(body.get("step"))
                elif kind == "view":
                    session.set_viewer(body.get("viewer"))
            except BadRequest as exc:
                return JSONResponse({"error": exc.message}, status_code=exc.status)
            except ValueError as exc:
                return JSONResponse({"error": str(exc)}, status_code=400)
            return JSONResponse(session.view())

        return endpoint

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        media = {"app.js": "text/javascript", "style.css": "text/css"}
        if name not in media:
            return Response("not found", status_code=404, media_type="text/plain")
        return Response((HERE / "static" / name).read_text(), media_type=media[name])

    routes = [
        Route("/", index),
        Route("/new", new),
        Route("/game/{sid}", game_page),
        Route("/replays", open_replays),
        Route("/api/game/{sid}", api_view),
        Route("/static/{name}", static),
    ]
    routes += [Route(f"/api/game/{{sid}}/{kind}", action(kind), methods=["POST"]) for kind in _KINDS]
    app = Starlette(routes=routes)
    app.state.sessions = store
    return app


_KINDS = ("move", "next", "back", "goto", "view")


def _int(text: str | None, what: str) -> int | None:
    if text is None or not text.strip():
        return None
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{what} {text!r} is not an integer") from None


async def _body(request: Request, session: GameSession, kind: str) -> dict[str, Any]:
    raw = await request.body()
    if not raw.strip():
        data: Any = {}
    else:
        try:
            data = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            data = None
    if not isinstance(data, dict):
        hint = ""
        if kind == "move" and session.mode == "play" and not session.over():
            names = ", ".join(session.base.action_name(a) for a in session.legal()[:60])
            hint = f"; legal moves: {names}"
        raise BadRequest(f'the request body must be a JSON object such as {{"action": 3}} or {{"move": "7"}}{hint}')
    return data
