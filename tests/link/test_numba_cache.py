"""The disk cache of native code: entries written once, shared by processes, repaired."""

from __future__ import annotations

import errno
import gc
import os
import signal
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from arignote.tensor.optimize import root_scalar

import arignote
import arignote.tensor as pt
from arignote.graph.basic import Apply
from arignote.graph.op import Op

cache = pytest.importorskip("arignote.link.numba.cache")
cache_cli = pytest.importorskip("arignote.cache")

ROOT = Path(__file__).resolve().parents[2]

_SCRIPT = """
import sys, numpy as np, arignote, arignote.tensor as pt
x = pt.dvector("x")
f = arignote.function([x], [(pt.exp(x) * {scale}).sum(), x[1:] * 2], mode="NUMBA")
value = np.linspace(0.0, 1.0, 7)
result = f(value)
assert np.allclose(result[0], (np.exp(value) * {scale}).sum())
assert np.allclose(result[1], value[1:] * 2)
graph = f.runner.run.__globals__["graph"]
print(sum(graph.stats.cache_hits.values()), sum(graph.stats.cache_misses.values()))
"""


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ARIGNOTE_CACHE_DIR", str(tmp_path))
    return tmp_path


def _run(scale: float, env_dir: Path) -> subprocess.Popen:
    env = dict(os.environ, ARIGNOTE_CACHE_DIR=str(env_dir), PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-c", _SCRIPT.format(scale=scale)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _hits(process: subprocess.Popen) -> tuple[int, int]:
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, err
    hits, misses = out.split()
    return int(hits), int(misses)


def test_the_cache_directory_follows_the_environment(_private_cache):
    assert cache.cache_dir() == _private_cache / "numba"


def test_a_damaged_entry_is_discarded_and_rebuilt(_private_cache, rng):
    x = pt.dvector("x")
    out = pt.tanh(x) * 3 + 1
    arignote.function([x], out, mode="NUMBA")  # writes the entry
    entries = list((_private_cache / "numba").glob("arignote_*.py"))
    assert len(entries) == 1
    entries[0].write_text("this is not python (")  # a corrupt entry
    entries[0].with_suffix(".npz").write_bytes(b"truncated")
    _forget(_private_cache)  # as in another process: the module is not loaded yet
    f = arignote.function([x], out, mode="NUMBA")
    value = rng.normal(size=5)
    np.testing.assert_allclose(f(value), np.tanh(value) * 3 + 1)
    assert "this is not python" not in entries[0].read_text()


def _forget(directory: Path) -> None:
    """Free the functions compiled so far and the recently used entries kept loaded: the
    modules of ``directory`` go with them (nothing else holds one), as if in another
    process."""
    cache._KEPT.clear()
    gc.collect()
    for entry in (directory / "numba").glob("arignote_*.py"):
        name = "arignote_numba_" + entry.stem.removeprefix("arignote_")
        assert name not in cache._LOADED and name not in sys.modules


def _entry(directory: Path) -> Path:
    (module,) = (directory / "numba").glob("arignote_*.py")
    return module


@pytest.mark.parametrize("damage", ["truncate", "garble", "constants", "numba_index"])
def test_each_kind_of_damage_is_detected_and_repaired(_private_cache, rng, damage):
    x = pt.dvector("x")
    out = pt.exp(x) * np.linspace(1.0, 2.0, 4) + 0.25
    value = rng.normal(size=4)
    expected = np.exp(value) * np.linspace(1.0, 2.0, 4) + 0.25
    np.testing.assert_allclose(arignote.function([x], out, mode="NUMBA")(value), expected)
    module = _entry(_private_cache)
    text = module.read_text()
    if damage == "truncate":  # still valid Python: only the comparison with the text finds it
        module.write_text(text[: text.index("@numba.njit")])
    elif damage == "garble":
        module.write_bytes(bytes(b ^ 0x55 for b in module.read_bytes()))
    elif damage == "constants":
        module.with_suffix(".npz").write_bytes(module.with_suffix(".npz").read_bytes()[:40])
    else:
        for index in (module.parent / "__pycache__").glob(module.stem + ".*.nbi"):
            index.write_text("garbage")
    _forget(_private_cache)
    f = arignote.function([x], out, mode="NUMBA")
    np.testing.assert_allclose(f(value), expected)
    assert module.read_text() == text  # rebuilt


def test_size_is_bounded_evicting_the_least_recently_used(_private_cache, rng):
    x = pt.dvector("x")
    graphs = [pt.exp(x) * scale for scale in (2.0, 3.0, 4.0)]
    for out in graphs:
        arignote.function([x], out, mode="NUMBA")(rng.normal(size=3))
    listed = cache.entries()
    assert len(listed) == 3 and all(e.size > 0 for e in listed)
    os.utime(listed[0].files[0].with_suffix(".used"), (1, 1))  # the oldest, by far
    _forget(_private_cache)
    arignote.function([x], graphs[1], mode="NUMBA")  # loading records a use
    newest = max(cache.entries(), key=lambda e: e.last_used)
    assert newest.key == listed[1].key
    bound = sum(e.size for e in listed) - listed[0].size // 2
    assert cache.evict(_private_cache / "numba", bound=bound) == [listed[0].key]
    assert {e.key for e in cache.entries()} == {listed[1].key, listed[2].key}


def test_a_large_cache_is_listed_and_evicted_in_one_pass(_private_cache, monkeypatch):
    # Listing globbed numba's folder once per entry, after every new entry: with 2,000
    # entries, writing one more took minutes.
    directory = _private_cache / "numba"
    (directory / "__pycache__").mkdir(parents=True)
    for k in range(300):
        base = directory / f"arignote_{k:040x}"
        for suffix in (".py", ".npz", ".used"):
            base.with_suffix(suffix).write_bytes(b"x" * 10)
            os.utime(base.with_suffix(suffix), (1000 + k, 1000 + k))
        for name in ("graph-5.py311.nbi", "graph-5.py311.1.nbc"):
            (directory / "__pycache__" / f"{base.name}.{name}").write_bytes(b"y" * 100)
    globs = []
    glob = Path.glob
    monkeypatch.setattr(
        Path, "glob", lambda path, pattern: globs.append(pattern) or glob(path, pattern)
    )
    listed = cache.entries(directory)
    assert len(listed) == 300 and all(e.size == 230 and len(e.files) == 5 for e in listed)
    assert cache.evict(directory, bound=300 * 230) == []
    assert cache.evict(directory, bound=298 * 230) == [listed[0].key, listed[1].key]
    assert len(cache.entries(directory)) == 298
    assert len(globs) < 20  # not one per entry


def test_the_config_option_sets_the_location(tmp_path):
    with arignote.config.change_flags(cache_dir=str(tmp_path / "elsewhere")):
        assert cache.cache_dir() == tmp_path / "elsewhere" / "numba"


def test_info_and_clear(_private_cache, capsys):
    x = pt.dvector("x")
    arignote.function([x], pt.exp(x) + 3.5, mode="NUMBA")(np.ones(2))
    assert cache_cli.main(["info"]) == 0
    shown = capsys.readouterr().out
    assert "entries:    1" in shown and str(_private_cache / "numba") in shown
    assert cache_cli.main(["clear"]) == 0
    assert "removed 1 entries" in capsys.readouterr().out
    assert cache.info()["entries"] == 0 and not cache.entries()
    assert cache_cli.main(["bad"]) == 2


@pytest.mark.slow
def test_info_and_clear_from_the_command_line(_private_cache):
    x = pt.dvector("x")
    arignote.function([x], pt.exp(x) + 4.5, mode="NUMBA")(np.ones(2))
    env = dict(os.environ, ARIGNOTE_CACHE_DIR=str(_private_cache), PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "arignote.cache"]
    shown = subprocess.run([*command, "info"], env=env, capture_output=True, text=True)
    assert shown.returncode == 0 and "entries:    1" in shown.stdout
    cleared = subprocess.run([*command, "clear"], env=env, capture_output=True, text=True)
    assert "removed 1 entries" in cleared.stdout
    assert cache.info()["entries"] == 0


@pytest.mark.parametrize("error", [errno.ENOSPC, errno.EROFS])
def test_an_unwritable_cache_compiles_without_it_warning_once(_private_cache, monkeypatch, error):
    def refuse(file, data):
        raise OSError(error, os.strerror(error))

    monkeypatch.setattr(cache, "_write_bytes", refuse)
    monkeypatch.setattr(cache, "_WARNED", set())
    x = pt.dvector("x")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for scale in (5.0, 6.0):
            f = arignote.function([x], pt.exp(x) * scale, mode="NUMBA")
            np.testing.assert_allclose(f(np.zeros(2)), [scale, scale])
    caught = [w for w in caught if issubclass(w.category, cache.CacheWarning)]
    assert len(caught) == 1
    assert os.strerror(error) in str(caught[0].message)
    leftovers = [p.name for p in (_private_cache / "numba").iterdir() if p.suffix != ".lock"]
    assert leftovers == []  # neither an entry nor a temporary file


_KILLED = """
import os, signal, numpy as np, arignote, arignote.tensor as pt
from arignote.link.numba import cache
def fault(point):
    if point == {point!r}:
        os.kill(os.getpid(), signal.SIGKILL)
cache._fault = fault
x = pt.dvector("x")
arignote.function([x], pt.exp(x) * 7.5 + x[::-1], mode="NUMBA")
"""


_SLOW = pytest.mark.slow


@pytest.mark.parametrize(
    "point",
    [
        pytest.param("locked", marks=_SLOW),
        pytest.param("mid-write", marks=_SLOW),
        pytest.param("before-rename", marks=_SLOW),
        "between-files",
        pytest.param("written", marks=_SLOW),
    ],
)
def test_a_writer_killed_at_any_step_leaves_nothing_read_as_valid(_private_cache, point):
    env = dict(os.environ, ARIGNOTE_CACHE_DIR=str(_private_cache), PYTHONPATH=str(ROOT))
    killed = subprocess.run(
        [sys.executable, "-c", _KILLED.format(point=point)], env=env, capture_output=True
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    directory = _private_cache / "numba"
    modules = list(directory.glob("arignote_*.py"))
    assert len(modules) == (1 if point == "written" else 0)  # only complete modules appear
    x = pt.dvector("x")
    f = arignote.function([x], pt.exp(x) * 7.5 + x[::-1], mode="NUMBA")
    value = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(f(value), np.exp(value) * 7.5 + value[::-1])
    assert len(cache.entries()) == 1


def test_graphs_with_fallbacks_are_cached_and_call_this_process_perform(_private_cache):
    a = pt.dscalar("a")
    x = pt.ones((), dtype="float64")
    solved = root_scalar(x**2 - (1 + a**2), x, method="newton", jac=True)[0]
    # a constant of its own: an entry with injected objects loads once per process, and an
    # earlier test may have compiled the same graph text
    f = arignote.function([a], solved * 2.0625, mode="NUMBA")  # SciPy's solver: no kernel
    assert f.runner.fallbacks
    (module,) = (_private_cache / "numba").glob("arignote_*.py")
    assert "injected function" in module.read_text()  # perform: this process's, not written
    np.testing.assert_allclose(f(0.75), np.sqrt(1 + 0.75**2) * 2.0625)


@pytest.mark.slow
def test_another_process_loads_the_machine_code(_private_cache):
    assert _hits(_run(1.5, _private_cache)) == (0, 1)
    assert _hits(_run(1.5, _private_cache)) == (1, 0)


def check_processes_share_entries(directory: Path, scales: list[float]) -> None:
    processes = [_run(scale, directory) for scale in scales]
    for process in processes:
        _hits(process)  # every process computed the right values
    assert len(cache.entries()) == len(set(scales))
    for entry in cache.entries():  # every entry complete and intact
        assert not list((directory / "numba").glob(".*.tmp"))
        assert entry.files[1].exists() and entry.files[0].read_text().count("def graph(") == 1
    for process in [_run(scale, directory) for scale in sorted(set(scales))]:
        assert _hits(process) == (1, 0)


@pytest.mark.slow
def test_three_processes_share_entries_safely(_private_cache):
    check_processes_share_entries(_private_cache, [1.0, 1.0, 2.0])


@pytest.mark.slow
def test_concurrent_processes_share_entries_safely(_private_cache):
    check_processes_share_entries(_private_cache, [1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 3.0, 3.0])


@pytest.mark.parametrize("error", [errno.ENOSPC, errno.EROFS])
def test_a_failed_write_of_numbas_machine_code_warns_once(_private_cache, monkeypatch, error):
    # the entry's module is written; then numba cannot write its index or code files (the
    # disk filled up, the directory became read-only): the function runs, uncached
    caching = pytest.importorskip("numba.core.caching")

    def refuse(self, filepath):
        raise OSError(error, os.strerror(error))

    monkeypatch.setattr(caching.IndexDataCacheFile, "_open_for_write", refuse)
    monkeypatch.setattr(cache, "_WARNED", set())
    x = pt.dvector("x")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for scale in (5.5, 6.5):
            f = arignote.function([x], pt.exp(x) * scale, mode="NUMBA")
            np.testing.assert_allclose(f(np.zeros(2)), [scale, scale])
    caught = [w for w in caught if issubclass(w.category, cache.CacheWarning)]
    assert len(caught) == 1 and os.strerror(error) in str(caught[0].message)
    assert not list((_private_cache / "numba" / "__pycache__").glob("*.nb[ic]*"))


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0,
    reason="permission bits do not stop root from writing",
)
def test_a_read_only_cache_directory_compiles_without_it_warning_once(_private_cache):
    directory = _private_cache / "numba"
    directory.mkdir()
    directory.chmod(0o555)
    try:
        x = pt.dvector("x")
        with pytest.warns(cache.CacheWarning, match="cannot be used") as caught:
            for scale in (7.25, 8.25):
                f = arignote.function([x], pt.exp(x) * scale, mode="NUMBA")
                np.testing.assert_allclose(f(np.zeros(2)), [scale, scale])
        assert len([w for w in caught if issubclass(w.category, cache.CacheWarning)]) == 1
        assert list(directory.iterdir()) == []
    finally:
        directory.chmod(0o755)


# Killed while numba writes its machine code (after the entry's module is complete):
# "index" right after the index naming the code file, before the code file; "torn" with the
# code file at its final name but half written (numba renames a complete temporary file, so
# this is worse than what it can leave: a filesystem losing the end of a renamed file).
_KILLED_IN_NUMBA = """
import contextlib, io, os, signal, numpy as np, arignote, arignote.tensor as pt
import numba.core.caching as caching
def kill():
    os.kill(os.getpid(), signal.SIGKILL)
def torn(self, filepath):
    @contextlib.contextmanager
    def opened():
        buffer = io.BytesIO()
        yield buffer
        data = buffer.getvalue()
        with open(filepath, "wb") as f:
            f.write(data if filepath.endswith(".nbi") else data[: len(data) // 2])
        if filepath.endswith(".nbc"):
            kill()
    return opened()
if {point!r} == "index":
    caching.IndexDataCacheFile._save_data = lambda self, name, data: kill()
else:
    caching.IndexDataCacheFile._open_for_write = torn
x = pt.dvector("x")
arignote.function([x], pt.exp(x) * 9.5 - x[::-1], mode="NUMBA")(np.zeros(3))
"""


@pytest.mark.parametrize("point", ["index", pytest.param("torn", marks=_SLOW)])
def test_a_process_killed_while_numba_saves_leaves_nothing_read_as_valid(_private_cache, point):
    env = dict(os.environ, ARIGNOTE_CACHE_DIR=str(_private_cache), PYTHONPATH=str(ROOT))
    killed = subprocess.run(
        [sys.executable, "-c", _KILLED_IN_NUMBA.format(point=point)], env=env, capture_output=True
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert list((_private_cache / "numba" / "__pycache__").glob("*.nbi"))  # the index is there
    x = pt.dvector("x")
    value = np.array([0.5, -1.0, 2.0])
    expected = np.exp(value) * 9.5 - value[::-1]
    for hits in (0, 1):  # compiled again (the code file is missing or torn), then loaded
        _forget(_private_cache)
        f = arignote.function([x], pt.exp(x) * 9.5 - x[::-1], mode="NUMBA")
        np.testing.assert_allclose(f(value), expected)
        assert sum(f.runner.native_call[0].stats.cache_hits.values()) == hits
        del f


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="lists open files through /proc")
def test_a_loaded_entry_leaves_no_constants_file_open(_private_cache):
    x = pt.dvector("x")
    f = arignote.function([x], x * np.array([1.5, 2.5, 3.5]), mode="NUMBA")  # an array constant
    np.testing.assert_allclose(f(np.ones(3)), [1.5, 2.5, 3.5])
    assert list((_private_cache / "numba").glob("arignote_*.npz"))
    open_files = [os.path.realpath(fd) for fd in Path("/proc/self/fd").iterdir()]
    assert not [name for name in open_files if name.endswith(".npz")]


def test_an_object_mode_node_of_three_outputs_is_cached():
    # The cached module named its globals o0, o1, ...: the object-mode kernel of a node with
    # three outputs assigned its locals o0, o1, o2 and called the global renamed o2 (numba:
    # "Variable 'o2' is not defined"); the names now have a prefix no kernel uses.

    class ThreeWays(Op):
        __props__ = ()

        def make_node(self, x):
            x = pt.as_tensor_variable(x)
            return Apply(self, [x], [x.type() for _ in range(3)])

        def perform(self, node, inputs, output_storage):
            (x,) = inputs
            for k, cell in enumerate(output_storage):
                cell[0] = x * (k + 1)

    x = pt.dvector("x")
    fn = arignote.function([x], ThreeWays()(x, return_list=True), mode="NUMBA")
    for _ in range(3):  # (the first calls may run on the VM while native code compiles)
        results = fn(np.array([1.0, 2.0]))
    np.testing.assert_array_equal(np.stack(results), [[1, 2], [2, 4], [3, 6]])
    assert "ThreeWays" in {why.key for why in fn.runner.fallbacks.values()}
