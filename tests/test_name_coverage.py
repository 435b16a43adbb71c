"""Every public name of PyTensor's user-facing modules exists at the same path in arignote,
or is listed, with its reason, in ``tests/pytensor_absences.py``."""

import importlib
import json
from pathlib import Path

import pytest

from tests.pytensor_absences import ABSENT

DATA = json.loads((Path(__file__).parent / "data" / "pytensor_names.json").read_text())


def _arignote_path(pytensor_module: str) -> str:
    return "arignote" + pytensor_module[len("pytensor") :]


def _has(module_path: str, name: str) -> bool:
    """Whether ``from <module_path> import <name>`` works."""
    try:
        module = importlib.import_module(module_path)
    except ImportError:
        return False
    if hasattr(module, name):
        return True
    try:  # a submodule not imported by its package
        importlib.import_module(f"{module_path}.{name}")
    except ImportError:
        return False
    return True


def _missing() -> set[tuple[str, str]]:
    return {
        (module, name)
        for module, names in DATA["modules"].items()
        for name in names
        if not _has(_arignote_path(module), name)
    }


MISSING = _missing()


def test_every_pytensor_name_exists_or_is_listed_as_absent():
    unexplained = sorted(MISSING - ABSENT.keys())
    assert not unexplained, "missing from arignote and not in ABSENT:\n" + "\n".join(
        f"{m}.{n}" for m, n in unexplained
    )


def test_absences_are_not_stale():
    # a name arignote now has must leave the list (so it only shrinks)
    present = sorted(ABSENT.keys() - MISSING)
    assert not present, "in ABSENT but present in arignote:\n" + "\n".join(
        f"{m}.{n}" for m, n in present
    )


def test_every_absence_names_a_pytensor_name_and_a_reason():
    known = {(m, n) for m, names in DATA["modules"].items() for n in names}
    assert not sorted(ABSENT.keys() - known)
    assert all(isinstance(r, str) and len(r) > 10 for r in ABSENT.values())


@pytest.mark.parametrize(
    "path, name",
    [
        ("arignote.tensor.basic", "alloc"),
        ("arignote.tensor.math", "sum"),
        ("arignote.compile.maker", "function"),
        ("arignote.compile.debug.debugmode", "DebugMode"),
        ("arignote.gradient", "pullback"),
        ("arignote.tensor.random", "shared_rng"),
    ],
)
def test_names_at_pytensor_paths_are_the_arignote_objects(path, name):
    module = importlib.import_module(path)
    assert getattr(module, name) is not None
    assert module.__name__ == path


def test_coverage_figures():
    total = sum(len(v) for v in DATA["modules"].values())
    assert total > 1000  # the data file holds the whole surface, not a sample
    covered = total - len(MISSING)
    print(
        f"PyTensor {DATA['pytensor_version']}: {covered} of {total} names covered, "
        f"{len(MISSING)} deliberately absent"
    )
