"""Files a user names (deal files, DouZero deal files, leaderboards, anchors, configs, replays, results): each
read through ``cardenvs.core.userfiles``: a device, a pipe, a folder, a missing, too large or too deeply nested
file is one ``ValueError`` naming the file, never a hang, a MemoryError or a RecursionError; the CLI says it in
one line (exit 2, no traceback). DouZero's pickles load through a restricted unpickler: no code runs."""

import io
import os
import pickle
import threading

import numpy as np
import pytest

from cardenvs import cli, replay
from cardenvs.analysis import grading
from cardenvs.arena import deals
from cardenvs.arena.results import Results
from cardenvs.config import ConfigError, read_yaml
from cardenvs.core import userfiles
from cardenvs.games.doudizhu import deal_formats

DEEP = "[" * 100_000 + "]" * 100_000

LOADERS = {
    "deal file": lambda p: deals.load_deals(str(p), "war_v0", {}),
    "douzero deal file": lambda p: deals.load_deals(f"douzero:{p}", "doudizhu_v0", {}),
    "leaderboard": grading.read,
    "anchors": lambda p: grading.load_reference("war_v0", p),
    "config": read_yaml,
    "replay": replay.load,
    "results": Results.load,
}


def finishes(call, seconds: float = 20.0):
    """Run ``call`` in a thread; the ValueError it raised (a hang fails the test instead of CI)."""
    out: list = []

    def run():
        try:
            call()
            out.append(None)
        except ValueError as exc:
            out.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "the reader hangs"
    return out[0]


@pytest.fixture(scope="module")
def fifo(tmp_path_factory):
    path = tmp_path_factory.mktemp("fifo") / "pipe.json"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("kind", LOADERS)
def test_every_user_file_refuses_devices_pipes_folders_and_missing_files(kind, fifo, tmp_path):
    load = LOADERS[kind]
    for path, words in (
        ("/dev/zero", "is a device"),
        (fifo, "is a pipe"),
        (tmp_path, "folder"),
        (tmp_path / "missing.json", "does not exist" if kind != "anchors" else "no reference ratings"),
    ):
        exc = finishes(lambda path=path: load(path))
        assert isinstance(exc, ValueError) and words in str(exc) and str(path) in str(exc), (kind, path, exc)
        assert "\n" not in str(exc)


@pytest.mark.parametrize("kind", [k for k in LOADERS if k != "douzero deal file"])
def test_deep_nesting_is_refused_before_parsing(kind, tmp_path):
    path = tmp_path / "deep.json"
    path.write_text(DEEP)
    exc = finishes(lambda: LOADERS[kind](path))
    assert isinstance(exc, ValueError) and "more than 64 deep" in str(exc) and str(path) in str(exc)


def test_the_reader_caps_the_size_and_wants_text(tmp_path):
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 2000)
    with pytest.raises(ValueError, match="too large .2,000 bytes; the limit is 1,000"):
        userfiles.read_bytes(big, "deal file", 1000)
    assert userfiles.read_bytes(big, "deal file", 2000) == b" " * 2000
    big.write_bytes(b"\xff\xfe[]")
    with pytest.raises(ValueError, match="is not UTF-8"):
        userfiles.load_json(big)
    big.write_text('[[1, {"a": [2]}], "[[[[[[["]')
    assert userfiles.load_json(big, depth=4) == [[1, {"a": [2]}], "[[[[[[["]  # brackets in strings don't count
    with pytest.raises(ValueError, match="more than 3 deep"):
        userfiles.load_json(big, depth=3)


def test_deep_yaml_and_a_large_config_are_config_errors(tmp_path):
    path = tmp_path / "deep.yaml"
    path.write_text("options:\n" + "".join("  " * (k + 1) + f"k{k}:\n" for k in range(700)) + "  " * 701 + "1\n")
    exc = finishes(lambda: read_yaml(path))
    assert isinstance(exc, ConfigError) and "nest" in str(exc)
    path.write_text("a: 1\n" + "#" * (2 * 1024 * 1024))
    with pytest.raises(ConfigError, match="too large"):
        read_yaml(path)


# ---------------------------------------------------------------------- DouZero's pickles
DOUZERO_DECK = [v for v in range(3, 15) for _ in range(4)] + [17] * 4 + [20, 30]


def douzero_deal(seed: int) -> dict:
    """One deal as DouZero's generate_eval_data.py makes it: lists of ints, sorted, the kitty in the landlord's."""
    deck = list(np.random.default_rng(seed).permutation(DOUZERO_DECK).tolist())
    return {
        "landlord": sorted(deck[:20]),
        "landlord_up": sorted(deck[20:37]),
        "landlord_down": sorted(deck[37:54]),
        "three_landlord_cards": sorted(deck[17:20]),
    }


class Payload:
    def __init__(self, function, argument):
        self.function, self.argument = function, argument

    def __reduce__(self):
        return self.function, (self.argument,)


def test_a_douzero_file_as_douzero_writes_it_loads_and_numpy_int_arrays_too(tmp_path):
    data = [douzero_deal(k) for k in range(3)]
    path = tmp_path / "eval_data.pkl"
    path.write_bytes(pickle.dumps(data, pickle.HIGHEST_PROTOCOL))
    read = deal_formats.read(str(path))
    assert len(read) == 3 and all(len(d["decks"][0].split()) == 54 for d in read)
    for protocol in (0, 2, 5):
        path.write_bytes(pickle.dumps([{k: np.array(v) for k, v in d.items()} for d in data], protocol))
        assert deal_formats.read(str(path)) == read
    path.write_bytes(pickle.dumps([{k: [np.int64(x) for x in v] for k, v in d.items()} for d in data], 2))
    assert deal_formats.read(str(path)) == read


def test_a_crafted_douzero_file_runs_nothing(tmp_path):
    import builtins
    import subprocess

    marker = tmp_path / "ran"
    good = douzero_deal(0)
    crafted = {
        "system": ([Payload(os.system, f"touch {marker}")], "posix.system"),
        "eval": ([Payload(builtins.eval, f"open({str(marker)!r}, 'w')")], "eval, which"),
        "subprocess": ([Payload(subprocess.check_call, ["touch", str(marker)])], "check_call, which"),
        "object array": ([{**good, "landlord": np.array(good["landlord"], dtype=object)}], "numpy array of object"),
        "float array": ([{**good, "landlord": np.array(good["landlord"], dtype=float)}], "numpy array of float64"),
    }
    path = tmp_path / "crafted.pkl"
    for name, (data, words) in crafted.items():
        for protocol in (2, 5):
            path.write_bytes(pickle.dumps(data, protocol))
            with pytest.raises(ValueError, match="is not a DouZero deal file") as info:
                deal_formats.read(str(path))
            assert words in str(info.value) and "\n" not in str(info.value), name
    # a REDUCE of an admitted name with arguments no array's pickle uses; a truncated file
    path.write_bytes(b"\x80\x02cnumpy.core.multiarray\n_reconstruct\ncnumpy\nndarray\nJ\x00\xca\x9a;\x85U\x01b\x87R.")
    with pytest.raises(ValueError, match="_reconstruct called with other arguments"):
        deal_formats.read(str(path))
    path.write_bytes(b"\x80\x02cnumpy\ndtype\nU\x02O8\x89\x88\x87R.")
    with pytest.raises(ValueError, match="numpy array of object"):
        deal_formats.read(str(path))
    path.write_bytes(pickle.dumps([good], 4)[:60])
    with pytest.raises(ValueError, match="is not a DouZero deal file"):
        deal_formats.read(str(path))
    assert not marker.exists()


def calling(module: str, name: str, *args) -> bytes:
    """A pickle that calls ``module``'s ``name``: protocol 4, so that a dotted name reaches into what a module
    imports, in protocol 2's opcodes (GLOBAL; those torch's weights-only loader reads, so that it judges the
    name, not the opcode)."""
    body = pickle.dumps(args, 2)[2:-1]
    return pickle.PROTO + b"\x04" + pickle.GLOBAL + f"{module}\n{name}\n".encode() + body + pickle.REDUCE + pickle.STOP


#: what numpy 2 says of a gadget's numpy 1 name, and torch of a protocol 4 pickle: expected here
GADGET_WARNINGS = (
    pytest.mark.filterwarnings("ignore:numpy.core.numeric is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:Detected pickle protocol 4:UserWarning"),
)


def numpy_gadgets(tmp_path) -> dict:
    """Pickles that run code or write a file through names numpy itself provides, each making ``tmp_path/ran``
    when it loads (the operator one: when what it makes is applied to ``os``); only those this numpy has."""
    import functools
    import importlib

    marker = tmp_path / "ran"
    evil = tmp_path / "evil.npy"
    np.save(evil, np.array([Payload(os.system, f"touch {marker}")], dtype=object), allow_pickle=True)
    write = f"open({str(marker)!r}, 'w').close()"
    gadgets = {
        "runstring": ("numpy.testing._private.utils", "runstring", write, {}),
        "numpy.load": ("numpy", "load", str(evil), None, True),
        "npyio load": ("numpy.lib._npyio_impl", "load", str(evil), None, True),
        "npyio load (numpy 1)": ("numpy.lib.npyio", "load", str(evil), None, True),
        "memmap": ("numpy", "memmap", str(marker), "u1", "w+", 0, (1,)),
        "f2py's os": ("numpy.f2py", "os.system", f"touch {marker}"),
        "f2py's subprocess": ("numpy.f2py", "subprocess.check_call", ["touch", str(marker)]),
        "builtins in numeric": ("numpy._core.numeric", "builtins.exec", write),
        "builtins in numeric (numpy 1)": ("numpy.core.numeric", "builtins.exec", write),
        "numpy.testing by attribute": ("numpy", "testing._private.utils.runstring", write, {}),
        "operator in numeric": ("numpy._core.numeric", "operator.methodcaller", "system", f"touch {marker}"),
    }
    present = {}
    for name, (module, attribute, *args) in gadgets.items():
        try:
            functools.reduce(getattr, attribute.split("."), importlib.import_module(module))
        except (ImportError, AttributeError):
            continue  # the other numpy major version's name
        present[name] = (calling(module, attribute, *args), module, attribute)
    assert len(present) >= 9, sorted(present)
    return present


def ran(tmp_path, name: str, loaded) -> bool:
    """Whether a gadget ran (and forget that it did)."""
    if name.startswith("operator") and callable(loaded):
        loaded(os)  # methodcaller("system", ...) applied to os
    marker = tmp_path / "ran"
    done = marker.exists()
    marker.unlink(missing_ok=True)
    return done


@GADGET_WARNINGS[0]
@GADGET_WARNINGS[1]
def test_numpy_gadgets_in_a_douzero_file_run_nothing(tmp_path):
    """Each gadget is live (plain pickle runs it) and the deal reader refuses it by name before anything runs."""
    path = tmp_path / "crafted.pkl"
    for name, (blob, module, attribute) in numpy_gadgets(tmp_path).items():
        assert ran(tmp_path, name, pickle.loads(blob)), f"{name}: the gadget itself does nothing"
        path.write_bytes(blob)
        with pytest.raises(ValueError, match="is not a DouZero deal file") as info:
            deal_formats.read(str(path))
        assert f"it names {module}.{attribute}, which a deal file never holds" in str(info.value), name
        assert not ran(tmp_path, name, None), name


def test_the_douzero_unpickler_admits_exactly_the_names_an_int_array_needs():
    """Every name of every numpy module (and of the modules it imports), every builtin and operator: refused,
    except the nine pairs an integer array's or scalar's pickle names, none of which resolves to numpy's own."""
    import _codecs
    import builtins
    import codecs
    import operator
    import sys
    import types

    import numpy.f2py  # noqa: F401 - its names are walked too
    import numpy.testing  # noqa: F401

    admitted = {
        (core, name)
        for core in ("numpy.core.multiarray", "numpy._core.multiarray")
        for name in ("_reconstruct", "scalar")
    } | {
        ("numpy.core.numeric", "_frombuffer"),
        ("numpy._core.numeric", "_frombuffer"),
        ("numpy", "ndarray"),
        ("numpy", "dtype"),
        ("_codecs", "encode"),
    }
    unpickler = deal_formats.DealUnpickler(io.BytesIO(b""))
    modules = {name: m for name, m in sys.modules.items() if name.split(".")[0] == "numpy" and m is not None}
    modules |= {m.__name__: m for m in (builtins, operator, os, pickle, types, io, _codecs, codecs)}
    walked = 0
    for module_name, module in modules.items():
        for name in [*dir(module), "os.system", "builtins.eval", "__builtins__.exec"]:
            walked += 1
            if (module_name, name) in admitted:
                found = unpickler.find_class(module_name, name)
                assert found is not getattr(module, name, None) and found is not np.ndarray, (module_name, name)
                continue
            with pytest.raises(pickle.UnpicklingError, match="which a deal file never holds"):
                unpickler.find_class(module_name, name)
    assert walked > 5_000, walked
    with pytest.raises(TypeError):
        unpickler.find_class("numpy", "ndarray")((10**6,), "i8")  # never a callable that makes an array


def test_a_douzero_array_is_bounded_before_it_is_read(tmp_path):
    path = tmp_path / "long.pkl"
    good = douzero_deal(0)
    path.write_bytes(pickle.dumps([{**good, "landlord_up": np.zeros(100_000, dtype=np.int8)}], 2))
    with pytest.raises(ValueError, match="landlord_up: expected a list of card values, got a numpy array of 100,000"):
        deal_formats.read(str(path))
    made = Payload(np.ndarray, (10**6,))  # numpy.ndarray called: an array of any size, from a few bytes
    path.write_bytes(pickle.dumps([{**good, "landlord_up": made}], 2))
    with pytest.raises(ValueError, match="is not a DouZero deal file .*not callable"):
        deal_formats.read(str(path))


@GADGET_WARNINGS[0]
@GADGET_WARNINGS[1]
def test_a_crafted_douzero_checkpoint_runs_nothing(tmp_path):
    """``douzero:DIR`` loads each checkpoint with torch's weights-only unpickler: a checkpoint whose pickle calls
    a function (numpy's gadgets among them; each live under a plain ``torch.load``) is a one-line error naming
    the function, and nothing runs."""
    torch = pytest.importorskip("torch", reason="the train extra is not installed")
    import zipfile

    import cardenvs
    from cardenvs.agents.doudizhu.douzero import DOUZERO_FILES, DouZeroAgent

    torch.save({}, tmp_path / "empty.ckpt")
    with zipfile.ZipFile(tmp_path / "empty.ckpt") as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    payloads = {"system": pickle.dumps(Payload(os.system, f"touch {tmp_path / 'ran'}"), 2)}
    payloads |= {name: blob for name, (blob, _, _) in numpy_gadgets(tmp_path).items()}
    env = cardenvs.make("doudizhu_v0")
    for k, (name, blob) in enumerate(payloads.items()):
        folder = tmp_path / f"gadget{k}"
        folder.mkdir()
        for file in DOUZERO_FILES.values():
            torch.save({}, folder / file)
        with zipfile.ZipFile(folder / "landlord.ckpt", "w") as out:  # torch's own format, the pickle replaced
            for member, content in members.items():
                out.writestr(member, blob if member.endswith("/data.pkl") else content)
        assert ran(tmp_path, name, torch.load(folder / "landlord.ckpt", weights_only=False)), name
        with pytest.raises(ValueError, match="douzero: cannot read .*landlord.ckpt: it names ") as info:
            DouZeroAgent(env, str(folder))
        assert "\n" not in str(info.value) and "weights_only" not in str(info.value), (name, info.value)
        assert not ran(tmp_path, name, None), name
    (folder / "landlord.ckpt").write_bytes(b"\x80\x04\x8c\x01a.")  # a bare pickle, an opcode torch's loader lacks
    with pytest.raises(ValueError, match="cannot read .*landlord.ckpt: Unsupported operand 140$"):
        DouZeroAgent(env, str(folder))


# ---------------------------------------------------------------------- the CLI, in process
@pytest.mark.parametrize(
    "args",
    [
        ["arena", "war", "--agents", "random,random", "--games", "2", "--deals", "FILE"],
        ["arena", "doudizhu", "--agents", "random,random,random", "--games", "2", "--deals", "douzero:FILE"],
        ["ladder", "war", "war.random", "--games", "2", "--leaderboard", "FILE"],
        ["ladder", "war", "war.random", "--games", "2", "--anchors", "FILE"],
        ["serve", "--port", "1", "--leaderboard", "FILE"],
        ["arena", "war", "--agents", "random,random", "--games", "2", "--save-deals", "FILE"],
        ["arena", "doudizhu", "--agents", "random,random,random", "--games", "2", "--save-deals", "douzero:FILE"],
        ["arena", "war", "--agents", "random,random", "--games", "2", "--config", "FILE"],
    ],
)
def test_the_cli_refuses_a_pipe_or_a_device_in_one_line(args, fifo, capsys):
    for path in (fifo, "/dev/zero"):
        line = [a.replace("FILE", str(path)) for a in args]
        code: list = []
        thread = threading.Thread(target=lambda line=line, code=code: code.append(cli.main(line)), daemon=True)
        thread.start()
        thread.join(60)
        assert not thread.is_alive(), f"{line} hangs"
        err = capsys.readouterr().err
        assert code == [2] and "Traceback" not in err and str(path) in err, (line, err)
        assert len(err.strip().splitlines()) == 1, err


# ---------------------------------------------------------------------- MaskablePPO zips (ppo:PATH)
def test_a_ppo_zip_unpickles_nothing(tmp_path):
    """stable-baselines3 would cloudpickle.loads the pickled entries of a zip's data; PPOAgent replaces each
    one it knows and refuses any other, so a crafted zip runs nothing."""
    pytest.importorskip("sb3_contrib", reason="the train extra is not installed")
    import base64
    import json
    import zipfile
    from pathlib import Path

    from cardenvs import make
    from cardenvs.training.policies import PPOAgent

    shipped = Path(__file__).parent.parent / "training" / "results" / "twenty__ppo__1.zip"
    marker = tmp_path / "ran"
    blob = base64.b64encode(pickle.dumps(Payload(os.system, f"touch {marker}"))).decode()
    with zipfile.ZipFile(shipped) as archive:
        data = json.loads(archive.read("data"))
        members = {name: archive.read(name) for name in archive.namelist()}
    env = make("twenty_v0")
    for key in ("observation_space", "policy_class", "surprise"):
        crafted = tmp_path / f"{key}.zip"
        with zipfile.ZipFile(crafted, "w") as out:
            for name, content in members.items():
                changed = {**data, key: {**(data.get(key) or {}), ":serialized:": blob}}
                out.writestr(name, json.dumps(changed) if name == "data" else content)
        if key == "surprise":
            with pytest.raises(ValueError, match="its 'surprise' is a pickle, which a cardenvs PPO model never holds"):
                PPOAgent(env, str(crafted))
        else:
            agent = PPOAgent(env, str(crafted))  # the pickled entry is replaced, never loaded
            assert agent.model.observation_space.shape == (134,)
    assert not marker.exists()
    with pytest.raises(ValueError, match="is a device, not a regular file"):
        PPOAgent(env, "/dev/zero")
