"""The op families re-exported by ``arignote.tensor`` must not shadow each other's names."""

from __future__ import annotations

import importlib
import pkgutil
from collections import defaultdict

import pytest

import arignote.tensor as pt


def family_exports() -> dict[str, list[str]]:
    owners: dict[str, list[str]] = defaultdict(list)
    for info in pkgutil.iter_modules(pt.__path__):
        module = importlib.import_module(f"arignote.tensor.{info.name}")
        for name in getattr(module, "__all__", ()):
            owners[name].append(info.name)
    return owners


def test_no_two_families_export_the_same_name():
    clashes = {n: m for n, m in family_exports().items() if len(set(m)) > 1}
    for name, modules in clashes.items():
        objects = {
            id(getattr(importlib.import_module(f"arignote.tensor.{m}"), name)) for m in modules
        }
        assert len(objects) == 1, f"{name} is exported with different meanings by {modules}"


def test_every_family_export_is_reachable_from_the_package():
    for name, modules in family_exports().items():
        assert hasattr(pt, name), f"pt.{name} (from {modules}) is missing"


def test_pytensor_constants_and_module_paths():
    import numpy as np

    from arignote.tensor.exceptions import AdvancedIndexingError, NotScalarConstantError
    from arignote.tensor.functional import vectorize

    assert (pt.pi, pt.e, pt.euler_gamma) == (np.pi, np.e, np.euler_gamma)
    assert pt.inf == np.inf and np.isnan(pt.nan)
    assert issubclass(AdvancedIndexingError, TypeError)
    with pytest.raises(NotScalarConstantError):
        pt.get_underlying_scalar_constant_value(pt.dvector())
    assert vectorize is pt.vectorize
    assert pt.dmatrix().type in pt.float_matrix_types
