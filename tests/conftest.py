# pytest-xdist's two workers share one numba cache folder (the one cardenvs picks for this source), so a kernel
# compiled by one is loaded by the other instead of compiled twice: most of the suite's time on a fresh
# checkout is compiling. cardenvs.cache serializes the folder's writes across processes
# (cardenvs.cache.serialize_cache_writes), which made sharing it safe; each worker used to compile into a
# folder of its own.
import pytest

import cardenvs
from cardenvs.registry import raw_env_class


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
