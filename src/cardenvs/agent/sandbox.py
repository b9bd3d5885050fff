"""The sandbox of programs run as agents (``cmd:``, ``botzone:``, every kind that starts a program): bubblewrap
(``bwrap``, Debian/Ubuntu package ``bubblewrap``) runs the program in namespaces of its own.

* Processes: a new PID namespace with its own ``/proc``: the program sees its own processes only, not the
  arena's (no ``/proc/$PPID/environ`` or ``cmdline``). Its namespace's first process is bubblewrap's; when the
  program exits, or :func:`stop` kills that process, the kernel kills every process of the namespace
  (children, detached or ``setsid`` ones included) before :func:`stop` returns. ``--die-with-parent``: the
  whole tree also dies when the arena does.
* Files: the system (``/usr``, ``/bin``, ``/lib*``, a few pieces of ``/etc``) read-only; the program's own
  files, the folders of its arguments that name files, its interpreter (a ``#!`` line's, a virtual
  environment and the installation it comes from) read-only at the same paths; the folder the caller gives
  it (its ``HOME``, ``TMPDIR`` and working folder) read-write. Nothing else of the machine is there, and
  nothing else is writable (``/tmp`` is an empty read-only folder, ``/dev`` the few devices bubblewrap makes).
* Network: a network namespace of its own (no interface but its own loopback) unless ``network=True``.
* Privileges: every capability dropped; as an ordinary user (or a root that may not make namespaces, as in
  some containers) bubblewrap makes a user namespace (the system must allow unprivileged user namespaces).
  The environment is only what the caller passes.

What it does not do: limit CPU time or the number of processes (the agent's time limits stop a slow program,
``memory_mb`` limits each process's address space), hide what any process may learn of the machine (the
kernel's version in ``/proc/version``, the CPUs), or filter system calls. A program's folder is read-only
inside, but readable: a bot kept in a folder with other files (a home folder) lets it read them.

:func:`unavailable` probes once per process whether a sandbox can be made here and says why not.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import selectors
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from typing import Any

#: what to do where no sandbox can be made
INSTALL = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap)"
#: the system's folders, read-only (a link, as in merged /usr, is made a link)
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: the pieces of /etc programs read (the dynamic linker, users' names, time zone, certificates, alternatives)
ETC = (
    "/etc/alternatives",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/perl",
    "/etc/mime.types",
)
#: and those it reads to reach the network (with ``network=True`` only)
ETC_NETWORK = ("/etc/resolv.conf", "/etc/hosts", "/etc/host.conf", "/etc/gai.conf", "/etc/services", "/etc/protocols")
PROBE_SECONDS = 10.0
STOP_SECONDS = 5.0


class SandboxedProcess(subprocess.Popen):
    """A program started by :func:`start`: a :class:`subprocess.Popen` of bubblewrap, which tells the process
    id of the namespace's first process through ``info`` (read by :func:`stop`); ``sandboxed`` is false for
    one started without a sandbox."""

    info: int | None = None
    sandboxed: bool = True


def _bwrap() -> str | None:
    return shutil.which("bwrap") or next((p for p in ("/usr/bin/bwrap", "/bin/bwrap") if os.access(p, os.X_OK)), None)


def unavailable() -> str | None:
    """Why no sandbox can be made here (one line), or None where one can: bubblewrap must be installed and
    able to make its namespaces (``bwrap ... true`` is run once per process)."""
    return _probe()[0]


@functools.cache
def _probe() -> tuple[str | None, bool]:
    """(:func:`unavailable`'s answer, whether the sandbox needs a user namespace of its own). An ordinary user
    always needs one; root tries without first, then with one (a container's root may lack the capability to
    make namespaces, which a user namespace gives)."""
    bwrap = _bwrap()
    if bwrap is None:
        return f"no sandbox for programs: bwrap is not installed ({INSTALL})", False
    said = ""
    for user_namespace in (False, True) if os.geteuid() == 0 else (True,):
        folder = tempfile.mkdtemp(prefix="cardenvs-probe-")
        try:
            done = subprocess.run(
                command(["true"], folder, bwrap=bwrap, user_namespace=user_namespace),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=PROBE_SECONDS,
                env={"PATH": "/usr/bin:/bin"},
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"no sandbox for programs: {bwrap} does not run ({exc})", False
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        if done.returncode == 0:
            return None, user_namespace
        said = (done.stderr.decode(errors="replace").strip().splitlines() or [f"exit status {done.returncode}"])[-1]
    return (
        f"no sandbox for programs: bwrap cannot make its namespaces here ({said}; unprivileged user namespaces may "
        "be switched off, e.g. by kernel.apparmor_restrict_unprivileged_userns or user.max_user_namespaces)"
    ), False


def seats_root() -> str:
    """The one folder (per user, in the temporary folder) that holds every program seat's folder
    (:func:`seat_folder`): made private (mode 0700) if missing, refused unless it is a folder (not a link) of
    this user's that no one else may enter. Every sandbox masks it with an empty ``tmpfs`` and binds only its
    own seat's folder on top, so no seat sees another's, wherever its program is kept."""
    root = os.path.join(tempfile.gettempdir(), f"cardenvs-seats-{os.geteuid()}")
    try:
        os.mkdir(root, 0o700)
    except FileExistsError:
        pass
    status = os.lstat(root)
    if not stat.S_ISDIR(status.st_mode) or status.st_uid != os.geteuid() or status.st_mode & 0o077:
        raise OSError(errno.EPERM, "the program seats' folder must be a private folder of this user's", root)
    return root


def seat_folder(prefix: str = "cardenvs-bot-") -> str:
    """A new folder for one program seat (its ``HOME``, ``TMPDIR`` and working folder), under :func:`seats_root`:
    the caller removes it when the seat's program has stopped."""
    return tempfile.mkdtemp(prefix=prefix, dir=seats_root())


def read_untrusted(path: str | os.PathLike[str], limit: int) -> bytes:
    """The last ``limit`` bytes of the file ``path`` in a program's folder, read as untrusted data: opened without
    following a link (``O_NOFOLLOW``) or blocking (``O_NONBLOCK``: a FIFO does not stall the arena), a regular
    file only, at most ``limit`` bytes read however the file grows. An OSError naming the path where it is
    missing, a link, or not a regular file."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", os.fspath(path))
        os.lseek(fd, max(0, status.st_size - limit), os.SEEK_SET)
        chunks: list[bytes] = []
        left = limit
        while left > 0:
            chunk = os.read(fd, min(left, 65536))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _is_under(path: str, folders: Sequence[str]) -> bool:
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def _prefix(folder: str) -> str | None:
    """The installation a ``bin`` folder belongs to (its parent, where it has ``lib`` or is a virtual environment)."""
    parent = os.path.dirname(folder)
    if os.path.basename(folder) == "bin" and parent != "/":
        if os.path.isdir(os.path.join(parent, "lib")) or os.path.isfile(os.path.join(parent, "pyvenv.cfg")):
            return parent
    return None


def _venv_home(prefix: str) -> str | None:
    """The installation a virtual environment was made from (``home`` in its ``pyvenv.cfg``)."""
    try:
        with open(os.path.join(prefix, "pyvenv.cfg")) as config:
            for line in config:
                key, _, value = line.partition("=")
                if key.strip() == "home" and value.strip():
                    return os.path.dirname(os.path.abspath(value.strip()))
    except OSError:
        pass
    return None


def _interpreter(path: str, environment: Mapping[str, str]) -> str | None:
    """The interpreter a script's ``#!`` line names (through ``env``: found on ``PATH``), if any."""
    try:
        with open(path, "rb") as script:
            first = script.readline(512)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode(errors="replace").split()
    if words and os.path.basename(words[0]) == "env":
        names = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        return shutil.which(names[0], path=environment.get("PATH")) if names else None
    return words[0] if words else None


def readable(argv: Sequence[str], environment: Mapping[str, str] | None = None) -> list[str]:
    """The folders a program needs to read to run, beyond the system: the folder of the program and of each
    argument naming a file or folder (as written and, for links, where they lead), the installation of an
    interpreter in a ``bin`` folder (a virtual environment and the one it was made from), and the same for the
    interpreter of a ``#!`` line. Paths must be absolute to count; ``/`` never is (the root stays the sandbox's)."""
    environment = environment or {}
    found: list[str] = []

    def add(path: str, program: bool) -> None:
        for place in dict.fromkeys([os.path.abspath(path), os.path.realpath(path)]):
            folder = place if os.path.isdir(place) else os.path.dirname(place)
            found.append(folder)
            if program:
                prefix = _prefix(folder)
                if prefix is not None:
                    found.append(prefix)
                    home = _venv_home(prefix)
                    if home is not None:
                        found.append(home)

    for i, arg in enumerate(argv):
        if os.path.isabs(arg) and os.path.exists(arg):
            add(arg, program=i == 0 or os.access(arg, os.X_OK) and os.path.isfile(arg))
            interpreter = _interpreter(arg, environment) if os.path.isfile(arg) else None
            if interpreter is not None and os.path.exists(interpreter):
                add(interpreter, program=True)
    kept: list[str] = []
    for folder in sorted(set(found), key=lambda f: (f.count("/"), f)):
        if folder != "/" and not _is_under(folder, SYSTEM) and not _is_under(folder, kept):
            kept.append(folder)
    return kept


def command(
    argv: Sequence[str],
    folder: str,
    network: bool = False,
    environment: Mapping[str, str] | None = None,
    bwrap: str | None = None,
    info_fd: int | None = None,
    user_namespace: bool | None = None,
) -> list[str]:
    """The bubblewrap command line that runs ``argv`` in the sandbox (module docstring), with ``folder``
    writable and its working folder; ``user_namespace``: make one (default: as the probe found needed)."""
    folder = os.path.abspath(folder)
    line = [bwrap or _bwrap() or "bwrap", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    line += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if _probe()[1] if user_namespace is None else user_namespace:
        line.append("--unshare-user")
    if not network:
        line.append("--unshare-net")
    for path in SYSTEM:
        if os.path.islink(path):
            line += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            line += ["--ro-bind", path, path]
    for path in ETC + (ETC_NETWORK if network else ()):
        line += ["--ro-bind-try", path, path]
    line += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    for path in readable(argv, environment):  # outer folders first; the program's own folder goes on top
        line += ["--ro-bind", path, path]
    line += ["--bind", folder, folder, "--remount-ro", "/tmp", "--remount-ro", "/dev", "--remount-ro", "/"]
    if info_fd is not None:
        line += ["--info-fd", str(info_fd)]
    return [*line, "--chdir", folder, "--", *argv]


def start(
    argv: Sequence[str],
    folder: str,
    environment: Mapping[str, str],
    memory_mb: int | None = None,
    network: bool = False,
    sandboxed: bool = True,
) -> SandboxedProcess:
    """Start ``argv`` in the sandbox (without one where ``sandboxed`` is false: only in a session of its own)
    with pipes for its input and output, standard error discarded, ``environment`` as its whole environment,
    ``folder`` its working folder and each process's address space limited to ``memory_mb``. Stop it with
    :func:`stop`. An OSError where it cannot be started."""
    limit = None
    if memory_mb is not None:
        memory = memory_mb * 2**20

        def limit() -> None:  # in the child, before bubblewrap or the program runs
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    pipes: dict[str, Any] = dict(
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=folder,
        env=dict(environment),
        start_new_session=True,
        preexec_fn=limit,
    )
    if not sandboxed:
        process = SandboxedProcess(list(argv), **pipes)
        process.sandboxed = False
        return process
    info, told = os.pipe()
    try:
        process = SandboxedProcess(command(argv, folder, network, environment, info_fd=told), pass_fds=(told,), **pipes)
    except BaseException:
        os.close(info)
        raise
    finally:
        os.close(told)
    process.info = info
    return process


def _first_pid(process: SandboxedProcess) -> int | None:
    """The process id (outside) of the sandbox's first process, as bubblewrap tells it once it has made it
    (waited for up to :data:`STOP_SECONDS`); None if it does not (it failed, or exited)."""
    if process.info is None:
        return None
    text = b""
    deadline = time.monotonic() + STOP_SECONDS
    with selectors.DefaultSelector() as selector:
        selector.register(process.info, selectors.EVENT_READ)
        while selector.select(max(0.0, deadline - time.monotonic())):
            chunk = os.read(process.info, 4096)
            if not chunk:
                break
            text += chunk
            try:
                return int(json.loads(text.decode())["child-pid"])
            except (ValueError, KeyError, TypeError):
                continue
    return None


def stop(process: SandboxedProcess) -> None:
    """Kill the program and every process it started, and wait for them: in a sandbox, killing its first
    process ends its PID namespace (the kernel kills the rest, and bubblewrap exits once they are gone);
    without one, its session's process group. Then close its pipes."""
    try:
        if process.poll() is None:
            first = _first_pid(process) if process.sandboxed else None
            if first is not None:
                try:
                    os.kill(first, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            try:
                process.wait(timeout=STOP_SECONDS if first is not None else 0.0)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    process.kill()
                process.wait()
    finally:
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                stream.close()
        if process.info is not None:
            os.close(process.info)
            process.info = None


def run(
    argv: Sequence[str],
    folder: str,
    environment: Mapping[str, str] | None = None,
    network: bool = False,
    input: bytes = b"",
    timeout: float = 30.0,
) -> tuple[int, bytes]:
    """Run ``argv`` in the sandbox to its end (or ``timeout`` seconds, then stop it): its exit status and its
    output. For checks and tests; the agents use :func:`start` and :func:`stop`."""
    environment = dict(environment or {"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    environment.setdefault("HOME", folder)
    process = start(argv, folder, environment, network=network)
    try:
        output, _ = process.communicate(input, timeout=timeout)
    except subprocess.TimeoutExpired:
        output = b""
    finally:
        stop(process)
    return process.returncode, output
