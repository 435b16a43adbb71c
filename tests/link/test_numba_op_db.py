"""The op database on the Numba backend: every entry against its reference and the VM.

Each compiled function is checked for values (as the op database's own tests check them),
output dtypes, outputs never aliasing inputs, and fallbacks: a node running in object mode
must be listed in ``arignote.link.numba.FALLBACKS`` with its reason. Numba compiles slowly,
so the default run takes one sample of a representative set of entries; the whole sweep is
slow-marked.
"""

from __future__ import annotations

import numpy as np
import pytest

import arignote
from tests.test_op_db import CASES, _apply_directive, _check_values, _outputs, _symbolic

numba_backend = pytest.importorskip("arignote.link.numba")


#: Entries of the default run: what samplers and the benchmarks use, one per family.
REPRESENTATIVE = {
    "add",
    "exp",
    "sigmoid",
    "switch",
    "cast",
    "sum",
    "max",
    "mean",
    "dot",
    "gemv",
    "getitem[basic]",
    "inc_subtensor[basic]",
    "reshape",
    "join",
    "alloc",
    "transpose",
    "random.normal",
    "cumsum",
}


def _first_sample_float64(cases):
    seen = set()
    for case in cases:
        info, sample, dtype = case.values
        if info.name in seen or dtype != info.dtypes[0]:
            continue
        seen.add(info.name)
        yield case


ONE_PER_ENTRY = list(_first_sample_float64(CASES))
DEFAULT = [c for c in ONE_PER_ENTRY if c.values[0].name in REPRESENTATIVE]
_DEFAULT_IDS = {c.id for c in DEFAULT}
SLOW = [
    pytest.param(*c.values, id=c.id, marks=pytest.mark.slow)
    for c in CASES
    if c.id not in _DEFAULT_IDS
]


def _check_entry(request, info, sample, dtype):
    _apply_directive(request, info, "perform", dtype, sample)
    symbols, values, call_args = _symbolic(sample)
    outputs = _outputs(info.build(*call_args, **sample.kwargs))
    fn = arignote.function(symbols, outputs, mode="NUMBA", on_unused_input="ignore")
    for node, why in fn.runner.fallbacks.items():
        # the whole graph on the VM (float16 values); random draws run natively now
        assert node is not None or not info.name.startswith("random"), why
        if node is None:
            continue
        assert why.key in numba_backend.FALLBACKS, f"{node}: unregistered fallback ({why})"
    actual = _outputs(fn(*values))
    _check_values(info, actual, info.ref(*sample.args, **sample.kwargs), dtype)
    for out, value in zip(outputs, actual):
        if isinstance(value, np.ndarray):
            assert np.dtype(out.type.dtype) == value.dtype
            assert not any(np.shares_memory(value, v) for v in values if isinstance(v, np.ndarray))


@pytest.mark.parametrize(("info", "sample", "dtype"), DEFAULT)
def test_representative_entries_on_numba(request, info, sample, dtype):
    _check_entry(request, info, sample, dtype)


@pytest.mark.parametrize(("info", "sample", "dtype"), SLOW)
def test_every_entry_on_numba(request, info, sample, dtype):
    _check_entry(request, info, sample, dtype)


#: Registry keys the op database cannot reach (its entries have no such node): inner graphs
#: holding a random generator, the gradients of unshared convolutions, the special functions
#: of complex arguments (its samples are real; ``test_complex_special_functions_fall_back``
#: covers them), a node making a Python Generator and MakeSlice (indexing never runs it).
OUTSIDE_OP_DB = {"Scan", "OpFromGraph", "AbstractConv_gradInputs", "AbstractConv_gradWeights"}
COMPLEX_ONLY = {"Erf", "Erfc", "Erfcx", "Gamma", "Psi"}
OUTSIDE_OP_DB |= COMPLEX_ONLY | {"DefaultGeneratorMakerOp", "MakeSlice"}


def test_complex_special_functions_fall_back():
    z = arignote.tensor.zvector("z")
    for key in sorted(COMPLEX_ONLY):
        fn = arignote.function([z], getattr(arignote.tensor, key.lower())(z), mode="NUMBA")
        keys = {why.key for node, why in fn.runner.fallbacks.items() if node is not None}
        assert keys == {key} and key in numba_backend.FALLBACKS, (key, keys)


def _fallback_keys(case):
    info, sample, _ = case.values
    symbols, _, call_args = _symbolic(sample)
    outputs = _outputs(info.build(*call_args, **sample.kwargs))
    # building the function converts every node (compiling waits for the first call)
    fn = arignote.function(symbols, outputs, mode="NUMBA", on_unused_input="ignore")
    return {why.key for node, why in fn.runner.fallbacks.items() if node is not None}


@pytest.mark.slow
def test_every_registered_fallback_still_falls_back():
    """A key of FALLBACKS that no entry of the op database needs any more is stale: once a
    kernel is written, its registry entry must go (or be narrowed to what still falls back)."""
    seen = set()
    for case in CASES:
        seen |= _fallback_keys(case)
    stale = set(numba_backend.FALLBACKS) - seen - OUTSIDE_OP_DB
    assert not stale, f"registered but never falling back: {sorted(stale)}"
