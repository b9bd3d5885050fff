"""``cardenvs serve``: watch and play every game in the browser (the ``web`` extra: Starlette, uvicorn, Jinja2).

:func:`create_app` builds the app (:mod:`cardenvs.web.app`); :func:`serve` runs it with uvicorn. ``cardenvs``
itself never imports this package: ``cardenvs serve`` imports it when it runs.
"""

from __future__ import annotations

from .app import create_app


def serve(host: str = "127.0.0.1", port: int = 8000, replays: str | None = None) -> int:
    """Run the app until interrupted (Ctrl-C); 127.0.0.1 only unless ``host`` says otherwise."""
    import uvicorn

    print(f"cardenvs serve: open http://{host}:{port}/ (Ctrl-C stops)", flush=True)
    uvicorn.run(create_app(replays), host=host, port=port, log_level="warning")
    return 0


__all__ = ["create_app", "serve"]
