#!/usr/bin/env python3
"""What a program sees from inside its sandbox, for tests/test_sandbox.py; each mode prints one JSON object.

* ``inside.py report``: its capability sets (``/proc/self/status``), its namespaces (``/proc/self/ns``), its
  session and process ids, and every file of ``/proc`` beyond the processes' own folders that it could open for
  writing (``os.access`` or an actual ``open``; nothing is ever written), ``/proc/sys`` and
  ``/proc/sysrq-trigger`` included.
* ``inside.py search NEEDLE [PATH...]``: every regular file it can read outside the system's folders (``/usr``,
  ``/proc``, ``/sys``, ``/dev``), those holding NEEDLE, and the folders it saw (with PATHs: whether each is there).
* ``inside.py play NEEDLE``: the line protocol's lowest legal move; at each decision it searches as above and
  answers ``LEAK ...`` (garbage) if a file holds NEEDLE or it found no file at all (its own is one).
* ``inside.py fork LIMIT``: forks children that wait, until a fork fails or LIMIT are made; how many, and why.
* ``inside.py disk MB``: writes files of 3 MiB in its working folder until one fails or MB are written.
"""

import json
import os
import stat
import sys

SKIP = ("/usr", "/proc", "/sys", "/dev", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


def report():
    caps = {}
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("Cap"):
                key, value = line.split(":")
                caps[key] = value.strip()
    namespaces = {n: os.readlink(f"/proc/self/ns/{n}") for n in ("pid", "ipc", "uts", "cgroup", "net", "mnt", "user")}
    writable = []
    for top, folders, files in os.walk("/proc"):
        if top == "/proc":
            folders[:] = [f for f in folders if not f.isdigit() and f not in ("self", "thread-self")]
        for name in files:
            path = os.path.join(top, name)
            try:
                if stat.S_ISCHR(os.lstat(path).st_mode):
                    continue  # /dev/null where a file is masked
            except OSError:
                continue
            if os.access(path, os.W_OK):
                writable.append(path)
                continue
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
                writable.append(path)
            except OSError:
                pass
    sysrq = os.path.exists("/proc/sysrq-trigger") and os.access("/proc/sysrq-trigger", os.W_OK)
    return {
        "caps": caps,
        "namespaces": namespaces,
        "sid": os.getsid(0),
        "pid": os.getpid(),
        "writable": writable,
        "sysrq_writable": sysrq,
        "proc_sys_files": sum(len(files) for _, _, files in os.walk("/proc/sys")),
    }


def search(needle, paths=()):
    data = needle.encode()
    files, found, folders = 0, [], []
    for top, subfolders, names in os.walk("/"):
        subfolders[:] = [f for f in subfolders if os.path.join(top, f) not in SKIP]
        folders.append(top)
        for name in names:
            path = os.path.join(top, name)
            try:
                if not stat.S_ISREG(os.lstat(path).st_mode) or os.path.getsize(path) > 8 * 2**20:
                    continue
                with open(path, "rb") as file:
                    text = file.read()
            except OSError:
                continue
            files += 1
            if data in text and os.path.abspath(path) != os.path.abspath(__file__):
                found.append(path)
    return {"files": files, "found": found, "folders": folders, "there": [os.path.exists(p) for p in paths]}


def play(needle):
    for line in sys.stdin:
        message = json.loads(line)
        searched = search(needle)
        if searched["found"] or not searched["files"]:
            print(f"LEAK {searched['found'][:3]} of {searched['files']} files", flush=True)
        else:
            print(min(move["id"] for move in message["legal"]), flush=True)


def fork(limit):
    read, write = os.pipe()
    children, error = [], None
    while len(children) < limit:
        try:
            pid = os.fork()
        except OSError as exc:
            error = exc.strerror
            break
        if pid == 0:
            os.close(write)
            os.read(read, 1)  # until the parent closes its end
            os._exit(0)
        children.append(pid)
    os.close(write)
    for pid in children:
        os.waitpid(pid, 0)
    return {"forked": len(children), "error": error}


def disk(megabytes):
    written, error, chunk = 0, None, b"x" * 2**20
    index = 0
    while written < megabytes and error is None:
        try:
            with open(f"fill-{index}.bin", "wb") as file:
                for _ in range(3):
                    file.write(chunk)
                    file.flush()
                    written += 1
        except OSError as exc:
            error = os.strerror(exc.errno) if exc.errno else str(exc)
        index += 1
    return {"written_mb": written, "error": error}


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "play":
        play(args[0])
    else:
        done = {
            "report": lambda: report(),
            "search": lambda: search(args[0], args[1:]),
            "fork": lambda: fork(int(args[0])),
            "disk": lambda: disk(int(args[0])),
        }[mode]()
        print(json.dumps(done), flush=True)
