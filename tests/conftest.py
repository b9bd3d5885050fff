import os

# numba's on-disk cache is not safe for two processes compiling into it at once (they can claim the same
# file for different specialisations). pytest-xdist runs two: give each worker a cache folder of its own,
# before anything imports cardenvs (which otherwise points numba at the user's cache folder).
if os.environ.get("PYTEST_XDIST_WORKER"):
    _base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "cardenvs", "numba"
    )
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(_base, "pytest", os.environ["PYTEST_XDIST_WORKER"])

import pytest  # noqa: E402

import cardenvs  # noqa: E402
from cardenvs.registry import raw_env_class  # noqa: E402


def all_variants():
    """(env_id, variant name, options) for every registered env and each of its declared variants."""
    out = []
    for env_id in cardenvs.ENV_IDS:
        for name, options in raw_env_class(env_id).VARIANTS.items():
            out.append(pytest.param(env_id, options, id=f"{env_id}-{name}"))
    return out


# ---------------------------------------------------------------- a cardenvs serve process on loopback
def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_serving(proc, port: int) -> None:
    """Wait (60 s at most) until the ``cardenvs serve`` process ``proc`` accepts connections on ``port``."""
    import socket
    import time

    deadline = time.time() + 60
    while time.time() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"cardenvs serve exited: {proc.stdout.read() if proc.stdout else ''}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    proc.kill()
    pytest.fail("cardenvs serve did not start within 60 s")
