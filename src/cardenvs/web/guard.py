"""What every request passes before the app sees it (an ASGI middleware): the Host it was sent to, and, for a
request that changes something, the page that sent it.

* **Host.** The ``Host`` header must name this server: ``localhost``, an IP address (a DNS-rebinding page
  always sends its own domain name, never an address), the ``--host`` it is bound to, or a name given with
  ``--allow-host``. Anything else is refused (403), so a page whose domain was re-pointed at 127.0.0.1 reads
  nothing.
* **Where a change comes from.** A ``POST`` whose ``Origin`` is not this server's own (``null`` included), or
  whose ``Sec-Fetch-Site`` says another site sent it, is refused (403), whatever its content type; so is a
  ``GET`` that creates a game (``/new``, ``/replays``) sent by another site (``<img src=...>``). Requests
  without these headers (curl, scripts) pass: they are not a browser acting for another page.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from starlette.datastructures import Headers
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
#: GETs that create a game: refused when another site sends them
CREATING_PATHS = ("/new", "/replays")
#: Sec-Fetch-Site values of requests a page of this server (or the person, typing the address) sent
OWN_SITES = ("same-origin", "none")


def host_name(host: str) -> str:
    """The name in a ``Host`` header, without the port, lower case (``[::1]:8000`` -> ``::1``)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    if host.count(":") == 1:
        host = host.partition(":")[0]
    return host.rstrip(".")


def is_ip_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class Guard:
    """ASGI middleware: refuses requests for another Host and changes sent by other sites (module docstring)."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str] = ()):
        self.app = app
        self.hosts = set(LOOPBACK_NAMES) | {host_name(h) for h in hosts if h}

    def problem(self, scope: Scope) -> str | None:
        headers = Headers(scope=scope)
        host = headers.get("host")
        if not host:
            return "the request has no Host header"
        name = host_name(host)
        if name not in self.hosts and not is_ip_address(name):
            return (
                f"Host {host!r} is not this server's (a page re-pointed at it?); open it as http://127.0.0.1:PORT/, "
                "or start cardenvs serve with --allow-host NAME"
            )
        method, path = scope["method"], scope["path"]
        fetch_site = headers.get("sec-fetch-site")
        if method in ("GET", "HEAD", "OPTIONS"):
            if path in CREATING_PATHS and fetch_site is not None and fetch_site not in OWN_SITES:
                return "another site asked to start a game here; start it from this server's own pages"
            return None
        origin = headers.get("origin")
        if origin is not None and origin.lower() != f"{scope.get('scheme', 'http')}://{host.lower()}":
            return f"a request from {origin} may not change games here (only pages of this server may)"
        if fetch_site is not None and fetch_site not in OWN_SITES:
            return "a request from another site may not change games here (only pages of this server may)"
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            problem = self.problem(scope)
            if problem is not None:
                response: Response
                if scope["path"].startswith("/api/"):
                    response = JSONResponse({"error": problem}, status_code=403)
                else:
                    response = PlainTextResponse(problem, status_code=403)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
