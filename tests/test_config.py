"""``arignote.config``: options, context-local changes, process-wide defaults, environment."""

from __future__ import annotations

import asyncio
import importlib
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.compile.mode import get_mode
from arignote.compile.nanguardmode import NanGuardMode
from arignote.config import Options, config

# ``arignote.config`` the attribute is the Config object; the module is reached by name.
config_module = importlib.import_module("arignote.config")


def test_defaults_are_documented_in_the_module_docstring():
    documented = config_module.__doc__
    for field in Options.__dataclass_fields__:
        assert f"``{field}``" in documented, field


def test_readme_names_the_main_options():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    section = readme.split("## Configuration", 1)[1]
    for name in ("floatX", "mode", "linker", "optimizer", "on_rewrite_error", "ARIGNOTE_FLAGS"):
        assert name in section, name


def test_change_flags_is_scoped_to_the_block():
    before = config.floatX
    with config.change_flags(floatX="float32") as opts:
        assert config.floatX == "float32"
        assert opts.floatX == "float32"
        with config.change_flags(allow_gc=False):
            assert config.floatX == "float32"  # outer change still in force
            assert config.allow_gc is False
        assert config.allow_gc is True
    assert config.floatX == before


def test_change_flags_restores_after_an_exception():
    with pytest.raises(RuntimeError), config.change_flags(optimizer="merge"):
        raise RuntimeError("boom")
    assert config.optimizer == "fast_run"


def test_invalid_values_and_names_are_refused():
    with pytest.raises(ValueError, match="floatX"), config.change_flags(floatX="float99"):
        pass
    with pytest.raises(AttributeError, match="Unknown config option 'flaotX'"):
        config.flaotX  # noqa: B018
    with (
        pytest.raises(AttributeError, match="Unknown config option"),
        config.change_flags(no_such_option=1),
    ):
        pass
    # PyTensor's change_flags raises KeyError for an unknown flag
    with pytest.raises(KeyError), config.change_flags(no_such_option=1):
        pass
    assert not hasattr(config, "no_such_option")


def test_text_values_are_parsed_to_the_option_type():
    with config.change_flags(allow_gc="false", max_constant_fold_size="12"):
        assert config.allow_gc is False
        assert config.max_constant_fold_size == 12


def test_from_env_reads_arignote_flags():
    opts = Options.from_env({"ARIGNOTE_FLAGS": "floatX=float32, mode=FAST_COMPILE,allow_gc=0"})
    assert (opts.floatX, opts.mode, opts.allow_gc) == ("float32", "FAST_COMPILE", False)
    assert Options.from_env({}) == Options()
    with pytest.raises(ValueError, match="name=value"):
        Options.from_env({"ARIGNOTE_FLAGS": "floatX"})


def test_environment_is_read_once(monkeypatch):
    defaults = config_module._Defaults()
    monkeypatch.setenv("ARIGNOTE_FLAGS", "floatX=float32")
    assert defaults.get().floatX == "float32"
    monkeypatch.setenv("ARIGNOTE_FLAGS", "floatX=float16")
    assert defaults.get().floatX == "float32"


def test_importing_does_not_read_the_environment():
    text = Path(config_module.__file__).read_text()
    module_level = [line for line in text.splitlines() if line and not line[0].isspace()]
    assert not any("from_env()" in line for line in module_level)
    # The real thing: a fresh interpreter importing the whole library leaves the environment
    # unread until an option is read, and then applies it.
    script = (
        "import sys, arignote\n"
        "defaults = sys.modules['arignote.config']._defaults\n"
        "assert defaults.options is None, 'ARIGNOTE_FLAGS read while importing'\n"
        "assert arignote.config.floatX == 'float32'\n"
        "assert arignote.tensor.vector().dtype == 'float32'\n"
    )
    env = {**os.environ, "ARIGNOTE_FLAGS": "floatX=float32"}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    result = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr


def test_introspecting_config_does_not_resolve_the_options(monkeypatch):
    fresh = config_module._Defaults()
    monkeypatch.setattr(config_module, "_defaults", fresh)
    assert getattr(config, "_plural", False) is False  # what tensor.type does over its globals
    assert not hasattr(config, "__wrapped__")
    assert fresh.options is None


def test_bad_environment_names_arignote_flags():
    with pytest.raises(
        ValueError, match=r"ARIGNOTE_FLAGS='bogus=1': Unknown config option 'bogus'"
    ):
        Options.from_env({"ARIGNOTE_FLAGS": "bogus=1"})
    with pytest.raises(ValueError, match=r"ARIGNOTE_FLAGS='floatX=float99': config.floatX"):
        Options.from_env({"ARIGNOTE_FLAGS": "floatX=float99"})


@pytest.fixture
def restore_defaults():
    saved = config_module._defaults.get()
    yield
    config_module._defaults.change(dataclasses_asdict(saved))


def dataclasses_asdict(opts: Options) -> dict:
    return {name: getattr(opts, name) for name in Options.__dataclass_fields__}


def test_assignment_changes_the_default_for_every_thread(restore_defaults):
    config.linker = "vm_nogc"
    seen = []
    thread = threading.Thread(target=lambda: seen.append(config.linker))
    thread.start()
    thread.join()
    assert seen == ["vm_nogc"]


def test_assignment_is_overridden_inside_a_block_that_sets_the_option(restore_defaults):
    with config.change_flags(linker="py"):
        config.linker = "vm_nogc"
        assert config.linker == "py"
        config.allow_gc = False  # an option the block does not set follows the default
        assert config.allow_gc is False
    assert config.linker == "vm_nogc"


def test_change_flags_in_concurrent_threads_do_not_interfere():
    barrier = threading.Barrier(3)
    seen: dict[str, list] = {}

    def worker(dtype: str) -> None:
        with config.change_flags(floatX=dtype):
            barrier.wait()  # every thread is now inside its own block
            seen[dtype] = [config.floatX, arignote.tensor.vector().dtype]
            barrier.wait()

    threads = [threading.Thread(target=worker, args=(d,)) for d in ("float32", "float16")]
    for thread in threads:
        thread.start()
    barrier.wait()
    main_sees = config.floatX
    barrier.wait()
    for thread in threads:
        thread.join()
    assert seen == {"float32": ["float32", "float32"], "float16": ["float16", "float16"]}
    assert main_sees == "float64"


def test_change_flags_in_concurrent_asyncio_tasks_do_not_interfere():
    async def task(dtype: str, results: list) -> None:
        with config.change_flags(floatX=dtype):
            await asyncio.sleep(0)
            results.append((dtype, config.floatX))

    async def main() -> list:
        results: list = []
        await asyncio.gather(task("float32", results), task("float16", results))
        return results

    assert sorted(asyncio.run(main())) == [("float16", "float16"), ("float32", "float32")]


def test_repr_and_dir():
    assert "floatX" in dir(config)
    assert "Options(" in repr(config)


def test_pytensor_documented_flags_are_options_and_are_honoured():
    assert config.exception_verbosity == "low" and config.optimizer_excluding == ""
    with (
        pytest.raises(ValueError, match="exception_verbosity"),
        config.change_flags(exception_verbosity="loud"),
    ):
        pass
    with config.change_flags(optimizer_excluding="fusion:inplace", optimizer_including="x"):
        mode = get_mode(None)
        assert {"fusion", "inplace"} <= set(mode.exclude) and "x" in mode.include
    assert get_mode("FAST_RUN") is get_mode("FAST_RUN")  # named modes are left alone
    with config.change_flags(NanGuardMode__inf_is_error=False):
        assert NanGuardMode().inf_is_error is False and NanGuardMode().nan_is_error is True
    x, y = pt.dvector("x"), pt.dvector("y")
    fn = arignote.function([x, y], x + y)
    for verbosity, text in [("low", "HINT"), ("high", "Debug print of the apply node")]:
        with config.change_flags(exception_verbosity=verbosity), pytest.raises(ValueError):
            fn(np.ones(2), np.ones(3))
        with config.change_flags(exception_verbosity=verbosity):
            assert text in _error_text(fn)


def _error_text(fn) -> str:
    try:
        fn(np.ones(2), np.ones(3))
    except ValueError as err:
        return str(err) + "".join(getattr(err, "__notes__", []))
    return ""
