"""The sandbox of program agents (:mod:`cardenvs.agent.sandbox`), judged by what a program sees from inside,
as root and as an ordinary user: no capability in any set, its own namespaces, no kernel setting writable, a
session of its own; a bot that tries every escape fails at each, no process of a bot outlives its table, seats
cannot read each other's folders, nothing the arena writes is where a program can read it, the processes and
the disk of its folder are capped, a ``cmd:`` bot keeps its virtual environment's interpreter (a linked one
too), and where no sandbox can be made the arena refuses programs unless told to run them unsandboxed."""

import contextlib
import errno
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import pytest

import cardenvs
from cardenvs.agent import sandbox
from cardenvs.agent.program import ProgramAgent
from cardenvs.arena import run_tournament
from cardenvs.cli import main

BOTS = Path(__file__).parent / "bots"
ESCAPE = BOTS / "escape.py"
INSIDE = BOTS / "inside.py"
SECRET = "CARDENVS_SECRET"
NAMESPACES = ("pid", "ipc", "uts", "cgroup", "net", "mnt")
NOBODY = 65534

needs_sandbox = pytest.mark.usefixtures("needs_sandbox")  # tests/conftest.py: skips with the reason; fails in CI


@contextlib.contextmanager
def _shared_copy(path: Path):
    """A copy of the bot ``path`` in a new folder of the temporary folder that every user may read, removed after."""
    folder = tempfile.mkdtemp(prefix="cardenvs-test-bot-")
    try:
        os.chmod(folder, 0o755)
        copy = os.path.join(folder, path.name)
        shutil.copy(path, copy)
        os.chmod(copy, 0o755)
        yield copy
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _as_nobody(code: str) -> dict:
    """Run the Python ``code`` (it prints one JSON object) as an ordinary user (``setpriv`` to uid 65534, from
    root), with a home of its own; skipped where this process is not root or the user cannot run this Python."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("the ordinary-user run needs root and setpriv (this run already is an ordinary user's)")
    home = tempfile.mkdtemp(prefix="cardenvs-test-home-")
    os.chown(home, NOBODY, NOBODY)
    try:
        setpriv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
        done = subprocess.run(
            [*setpriv, sys.executable, "-c", code],
            capture_output=True,
            timeout=120,
            cwd=home,
            env={"PATH": os.environ["PATH"], "HOME": home, "XDG_CACHE_HOME": os.path.join(home, "cache")},
        )
    finally:
        shutil.rmtree(home, ignore_errors=True)
    if b"ModuleNotFoundError" in done.stderr or b"PermissionError" in done.stderr and not done.stdout:
        pytest.skip(f"uid {NOBODY} cannot run this checkout's Python: {done.stderr.decode()[-300:]}")
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    return json.loads(done.stdout.decode().splitlines()[-1])


#: run by the ordinary user: the bot's output in its sandbox, and that user's own namespaces outside
NOBODY_RUN = """
import json, os, sys
from cardenvs.agent import sandbox
import shutil
folder = sandbox.seat_folder()
try:
    status, output = sandbox.run(["/usr/bin/python3", *ARGV], folder, {"PATH": "/usr/bin:/bin"}, timeout=60, **OPTIONS)
finally:
    shutil.rmtree(folder, ignore_errors=True)
outside = {n: os.readlink(f"/proc/self/ns/{n}") for n in NAMESPACES}
print(json.dumps({"status": status, "inside": json.loads(output), "outside": outside, "setup": str(sandbox.setup())}))
"""


def _inside(user: str, bot: Path, args: list[str], **options) -> dict:
    """The bot ``bot`` (a copy every user may read, :func:`_shared_copy`) run with ``args`` in the sandbox as
    ``user`` ("arena": this process's ``sys.executable``; "nobody": an ordinary user's, with the system's
    ``/usr/bin/python3``): its exit status, what it printed, and the namespaces of the process that started it.
    The copy and the seat's folder are removed after."""
    if user == "nobody" and not os.access("/usr/bin/python3", os.X_OK):
        pytest.skip("the ordinary user's bot runs /usr/bin/python3 (this checkout's Python may be in root's home)")
    with _shared_copy(bot) as copy:
        argv = [copy, *args]
        if user == "nobody":
            code = f"NAMESPACES = {NAMESPACES!r}; ARGV = {argv!r}; OPTIONS = {options!r}" + NOBODY_RUN
            return _as_nobody(code)
        folder = sandbox.seat_folder()
        try:
            status, output = sandbox.run([sys.executable, *argv], folder, timeout=60, **options)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    outside = {n: os.readlink(f"/proc/self/ns/{n}") for n in NAMESPACES}
    return {"status": status, "inside": json.loads(output), "outside": outside}


@pytest.fixture(scope="module", params=["arena", "nobody"])
def seen(request):
    """What the program sees from inside (``inside.py report``), run as the arena's user and as an ordinary one."""
    return _inside(request.param, INSIDE, ["report"])


@needs_sandbox
def test_the_program_holds_no_capability(seen):
    caps = seen["inside"]["caps"]
    assert set(caps) == {"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"}
    assert all(int(value, 16) == 0 for value in caps.values()), caps


@needs_sandbox
def test_each_namespace_is_the_programs_own(seen):
    inside, outside = seen["inside"]["namespaces"], seen["outside"]
    assert [n for n in NAMESPACES if inside[n] == outside[n]] == []


@needs_sandbox
def test_no_kernel_setting_is_writable(seen):
    inside = seen["inside"]
    assert inside["proc_sys_files"] > 100  # the walk saw /proc/sys
    assert inside["writable"] == []  # /proc/sys/kernel/core_pattern, /proc/sys/vm/drop_caches among them
    assert inside["sysrq_writable"] is False


@needs_sandbox
def test_the_program_has_a_session_of_its_own(seen):
    """Its session's leader is a process of the sandbox (without ``--new-session`` it is bubblewrap's outside,
    which the program's PID namespace does not show: ``getsid`` is then 0), so it has no terminal to write into."""
    inside = seen["inside"]
    assert inside["sid"] in (1, inside["pid"])


def _left_behind(token: str) -> list[str]:
    """The command lines of this machine's processes that hold ``token`` (a bot's children left behind)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as file:
                    line = file.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if token in line:
                found.append(f"{entry}: {line}")
    return found


@pytest.fixture(scope="module")
def escape(tmp_path_factory):
    """What the escape bot could do, run through the sandbox's own API, with a secret in this process's
    environment and a socket listening on 127.0.0.1; and which of its processes were left afterwards."""
    token = f"escape-{uuid.uuid4().hex}"
    secret = f"hunter-{uuid.uuid4().hex}"
    os.environ[SECRET] = secret
    outside = tmp_path_factory.mktemp("outside")
    folder = tmp_path_factory.mktemp("bot")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    try:
        argv = [sys.executable, str(ESCAPE), "probe", token, str(port), str(outside / "written.txt")]
        environment = {"PATH": os.environ["PATH"], "HOME": str(folder), "TMPDIR": str(folder)}
        status, output = sandbox.run(argv, str(folder), environment, timeout=20)
        left = _left_behind(token)
    finally:
        del os.environ[SECRET]
        listener.close()
    return {
        "status": status,
        "report": json.loads(output),
        "secret": secret,
        "token": token,
        "outside": outside,
        "folder": folder,
        "left": left,
    }


@needs_sandbox
def test_the_bot_reads_nothing_of_the_arena(escape):
    seen = json.dumps(escape["report"]["processes"])
    assert escape["status"] == 0
    assert escape["secret"] not in seen  # no environment of the arena's: not its parent's, not pid 1's
    assert SECRET not in seen
    lines = [cmdline for cmdline, _ in escape["report"]["processes"].values()]
    bwrap = f"{sandbox.setup().bwrap} "
    assert all(line.startswith((bwrap, f"{sys.executable} {ESCAPE} probe")) for line in lines)
    assert any(line.startswith(bwrap) for line in lines)  # pid 1, the sandbox's: not the arena


@needs_sandbox
def test_the_bot_sees_its_own_processes_only(escape):
    report = escape["report"]
    pids = {int(p) for p in report["processes"] if p.isdigit()}
    assert report["pid"] == 2 and report["ppid"] == 1  # pid 1 is the sandbox's own first process
    assert pids <= {1, 2}  # its children started after the listing


@needs_sandbox
def test_the_bot_writes_only_in_its_own_folder(escape):
    report = escape["report"]
    assert report["written_outside"] == []
    assert not (escape["outside"] / "written.txt").exists()
    assert not (BOTS / f"written-{escape['token']}").exists()
    assert not Path(f"/tmp/written-{escape['token']}").exists()
    assert report["written_own"] == [True, True] and report["written_tmpdir"]
    assert (escape["folder"] / "own.txt").read_text() == "escaped\n"
    assert report["read_own_file"]


@needs_sandbox
def test_the_bot_has_no_network(escape):
    assert escape["report"]["network"] is False


@needs_sandbox
def test_no_process_of_the_bot_is_left(escape):
    assert escape["left"] == []


@needs_sandbox
def test_the_network_is_there_when_allowed(tmp_path):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        code = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5).close(); print('ok')"
        status, output = sandbox.run([sys.executable, "-c", code], str(tmp_path), network=True, timeout=20)
    assert (status, output) == (0, b"ok\n")


@needs_sandbox
def test_an_arena_table_of_an_escaping_bot(monkeypatch):
    """The wiring: a cmd: bot that looks for the arena's secret and leaves children behind at every start."""
    token = f"arena-{uuid.uuid4().hex}"
    monkeypatch.setenv(SECRET, "hunter2")
    bot = f"cmd:{sys.executable} {ESCAPE} play {token}"
    results = run_tournament("twos_v0", [bot, "random", "random"], games=1, seed=1, engine="aec")
    assert not results.faults()  # no game lost: the secret was never seen
    assert results.unsandboxed == [] and "UNSANDBOXED" not in results.report()
    assert _left_behind(token) == []


@needs_sandbox
def test_a_cmd_bot_keeps_its_virtual_environment(tmp_path, monkeypatch):
    """``cmd:python3 BOT`` with a virtual environment first on PATH runs that environment's python3, which
    alone has the bot's package; the sandbox lets it read the environment."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next(venv.glob("lib/python*/site-packages"))
    (site / "cardenvs_venv_only_probe.py").write_text("")
    monkeypatch.setenv("PATH", f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}")
    bot = f"cmd:python3 {BOTS / 'venv_only.py'}"
    results = run_tournament("twos_v0", [bot, "random", "random"], games=1, seed=1, engine="aec")
    assert not results.faults()


def test_without_a_sandbox_programs_are_refused_unless_unsandboxed(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(sandbox, "unavailable", lambda: "no sandbox for programs: bwrap is not installed")
    bot = f"cmd:{sys.executable} {BOTS / 'first_legal.py'}"
    agents = [bot, "random", "random"]
    with pytest.raises(ValueError, match="bwrap is not installed.*--unsandboxed"):
        run_tournament("twos_v0", agents, games=1, seed=1, engine="aec")
    results = run_tournament("twos_v0", agents, games=1, seed=1, engine="aec", unsandboxed=True)
    label = results.agents[0]  # the arena's short label of the bot's name
    assert results.unsandboxed == [label]
    assert results.to_dict()["unsandboxed"] == [label]
    assert f"UNSANDBOXED: {label} ran without a sandbox" in results.report()
    command = ["arena", "twos", "--agents", ",".join(agents), "--games", "1", "--no-progress"]
    assert main(command) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "--unsandboxed" in error
    out = tmp_path / "results.json"
    assert main([*command, "--unsandboxed", "--out", str(out)]) == 0
    assert "UNSANDBOXED" in capsys.readouterr().out
    assert json.loads(out.read_text())["unsandboxed"] == [label]


@needs_sandbox
def test_the_memory_limit_holds_in_the_sandbox(tmp_path):
    environment = {"PATH": os.environ["PATH"]}
    statuses = []
    for megabytes in (50, 400):
        code = f"x = bytearray({megabytes} * 2**20); print('ok')"
        process = sandbox.start([sys.executable, "-c", code], str(tmp_path), environment, memory_mb=200)
        output, _ = process.communicate(timeout=20)
        sandbox.stop(process)
        statuses.append((process.returncode, output))
    assert statuses[0] == (0, b"ok\n")
    assert statuses[1][0] != 0 and statuses[1][1] == b""  # MemoryError


# ---------------------------------------------------------------- what a program can read
def _lines_of(agent: ProgramAgent) -> dict:
    """Start ``agent``'s program (as its seat does: a folder of its own) and read the one JSON line it prints."""
    process = agent._start()
    agent._process = process
    assert process.stdout is not None
    os.set_blocking(process.stdout.fileno(), True)
    return json.loads(process.stdout.readline())


@needs_sandbox
def test_two_program_seats_kept_in_the_temporary_folder_cannot_read_each_other(tmp_path, monkeypatch):
    """Seat A's folder (as its agent makes it, with a file of A's in it) is not there for seat B, whose program is
    kept in the temporary folder itself (so that folder is bound for it): from inside, B finds neither. The
    temporary folder is a fresh one (``tempfile.tempdir``) and B runs the system's Python where there is one (as
    does the seed test below), so B reads a few files rather than all of a contributor's ``/tmp`` and the test's
    virtual environment (48-66 s here before)."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    env = cardenvs.make("twos_v0").unwrapped
    needle = f"seat-a-{uuid.uuid4().hex}"
    peek = Path(tempfile.gettempdir()) / f"cardenvs-test-peek-{uuid.uuid4().hex}.py"
    # without its #! line, whose python3 on PATH (and the installation it comes from) would be bound too
    peek.write_text(INSIDE.read_text().partition("\n")[2])
    python = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
    seat_a = ProgramAgent(env, f"{sys.executable} {BOTS / 'first_legal.py'}")
    seat_b = None
    try:
        seat_a._process = seat_a._start()
        assert seat_a._folder is not None
        Path(seat_a._folder, "hand.txt").write_text(needle)  # what A keeps: its hand
        seat_b = ProgramAgent(env, f"{python} {peek} search {needle} {seat_a._folder}")
        seen = _lines_of(seat_b)
    finally:
        seat_a.close()
        if seat_b is not None:
            seat_b.close()
        peek.unlink()
    assert seen["files"] > 0  # it read what it could: its own file among them
    assert seen["found"] == [] and seen["there"] == [False]
    assert tempfile.gettempdir() in seen["folders"]  # the temporary folder itself was there to walk


@needs_sandbox
def test_a_bot_beside_the_saved_deals_is_refused(tmp_path, capsys):
    bot = tmp_path / "first_legal.py"
    shutil.copy(BOTS / "first_legal.py", bot)
    agents = [f"cmd:{sys.executable} {bot}", "random", "random"]
    deals = tmp_path / "deals.json"
    with pytest.raises(ValueError, match=f"--save-deals {deals} is in {tmp_path}, which the program seat"):
        run_tournament("twos_v0", agents, games=1, seed=1, engine="aec", save_deals=str(deals))
    assert not deals.exists()
    for flag, path in (("--out", tmp_path / "results.json"), ("--replays", tmp_path / "replays")):
        command = ["arena", "twos", "--agents", ",".join(agents), "--games", "1", "--no-progress", flag, str(path)]
        assert main(command) == 2
        error = capsys.readouterr().err
        assert error.count("\n") == 1 and f"{flag} {path} is in {tmp_path}" in error
    out = tmp_path / "elsewhere"
    out.mkdir()
    bot_folder = tmp_path / "bot"
    bot_folder.mkdir()
    shutil.copy(BOTS / "first_legal.py", bot_folder / "first_legal.py")
    command = ["arena", "twos", "--agents", f"cmd:{sys.executable} {bot_folder / 'first_legal.py'},random,random"]
    assert main([*command, "--games", "1", "--no-progress", "--save-deals", str(out / "deals.json")]) == 0


@needs_sandbox
def test_no_file_a_bot_can_read_holds_the_tables_seed(tmp_path):
    """A bot (run by the system's Python, so that the arena's virtual environment is not bound for it) reads
    every file it can at its first decision and answers garbage if one holds the tournament's seed; the arena
    writes the results, replays and deals beside it, in a folder of their own."""
    if not os.access("/usr/bin/python3", os.X_OK):
        pytest.skip("the bot runs /usr/bin/python3")
    seed = 700_000_000 + uuid.uuid4().int % 100_000_000
    folder = tmp_path / "bot"
    folder.mkdir()
    # without its #! line, whose python3 on PATH (and the installation it comes from) would be bound too
    (folder / "inside.py").write_text(INSIDE.read_text().partition("\n")[2])
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    bot = f"cmd:/usr/bin/python3 {folder / 'inside.py'} play {seed}"
    command = ["arena", "twos", "--agents", f"{bot},random,random", "--games", "2", "--seed", str(seed)]
    command += ["--no-progress", "--out", str(outputs / "results.json"), "--replays", str(outputs / "replays")]
    assert main([*command, "--save-deals", str(outputs / "deals.json")]) == 0
    results = json.loads((outputs / "results.json").read_text())
    assert str(seed) in (outputs / "results.json").read_text()  # the seed is there to find, outside its reach
    assert len(results["records"]) == 12 and all(not record.get("faults") for record in results["records"])
    assert "LEAK" not in json.dumps(results)


@needs_sandbox
def test_a_virtual_environment_linked_into_the_bots_folder_runs(tmp_path):
    """``cmd:FOLDER/venv/bin/python3 FOLDER/bot.py`` where ``FOLDER/venv`` is a link to an environment kept
    elsewhere: the link's target is bound too, so the interpreter is there (it dangled before)."""
    environments = tmp_path / "environments"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(environments / "bot")], check=True)
    site = next((environments / "bot").glob("lib/python*/site-packages"))
    (site / "cardenvs_venv_only_probe.py").write_text("")  # the bot plays only where its environment is there
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "venv").symlink_to(environments / "bot")
    shutil.copy(BOTS / "venv_only.py", folder / "venv_only.py")
    bot = f"cmd:{folder / 'venv' / 'bin' / 'python3'} {folder / 'venv_only.py'}"
    assert str(environments / "bot") in sandbox.readable(bot[4:].split())
    results = run_tournament("twos_v0", [bot, "random", "random"], games=1, seed=1, engine="aec")
    assert not results.faults()


# ---------------------------------------------------------------- caps
@pytest.mark.parametrize("user", ["arena", "nobody"])
@needs_sandbox
def test_a_fork_bomb_is_stopped(user):
    """A program that forks until a fork fails, in a sandbox capped at 16 processes: a fork fails before 16 (the
    sandbox's first process and the program count too). A root where no pids control group may be made has no
    cap: skipped there, saying so."""
    if user == "arena" and any(cap.startswith("processes") for cap in sandbox.uncapped()):
        pytest.skip(f"no process cap here: {sandbox.uncapped()}")
    seen = _inside(user, INSIDE, ["fork", "200"], processes=16)
    assert seen["status"] == 0
    assert seen["inside"]["forked"] < 16 and seen["inside"]["error"] is not None


@needs_sandbox
def test_writing_past_the_disk_cap_fails():
    """A program whose folder is capped at 8 MiB writes files of 3 MiB: the third fails, so the cap is on the
    folder, not only on each file (bubblewrap >= 0.10; before it only each file is capped, which the program's
    ``uncapped`` says)."""
    environment = {"PATH": os.environ["PATH"]}
    folder = sandbox.seat_folder()
    try:
        process = sandbox.start([sys.executable, str(INSIDE), "disk", "64"], folder, environment, disk_mb=8)
        output, _ = process.communicate(timeout=60)
        sandbox.stop(process)
    finally:
        shutil.rmtree(folder)
    seen = json.loads(output)
    assert seen["error"] is not None and seen["written_mb"] <= 8
    if sandbox.setup().version >= (0, 10):
        assert os.strerror(errno.ENOSPC) == seen["error"] and process.uncapped == ()
    else:
        assert any(cap.startswith("disk") for cap in process.uncapped)
