"""Every op database entry on the JAX backend against ``perform`` (the Python VM, no rewrites).

The default run checks one sample per entry in float64; the whole sweep (every sample and dtype)
is marked slow. A graph holding an op of the unsupported list must be refused with an error
naming the op; random variables are compared by shape and dtype only, since JAX draws other
numbers than NumPy.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax", reason="the JAX backend needs jax (pip install arignote[jax])")

import arignote
from arignote.graph.traversal import io_toposort
from arignote.link.jax import (
    DynamicShapeError,
    UnsupportedOpError,
    unsupported_reason,
)
from arignote.tensor.random.op import RandomVariable
from tests.test_op_db import CASES, NO_REWRITES, _apply_directive, _outputs, _symbolic

# (entry, dtype) pairs whose JAX results differ from NumPy's on purpose, and why (strict xfail).
JAX_DIRECTIVES: dict[tuple[str, str], str] = {}

# Samples whose output shape depends on input values (symbolic lengths, masks, counts): the
# JAX backend must refuse them with a DynamicShapeError saying which value to make static.
# entry name -> sample names (None: every sample of the entry)
DYNAMIC_SHAPES: dict[str, set[str] | None] = {
    "SegmentSum": None,
    "getitem[mask_expression]": None,
    "bincount": None,
    "reshape[symbolic]": None,
    "zeros": {"symbolic-length"},
    "ones": {"symbolic-length"},
    "full": {"symbolic-length"},
    "eye": {"symbolic"},
    "tri": {"symbolic"},
    "arange": {"float", "float-negative", "symbolic-int"},
    "linspace": {"symbolic-num"},
    "alloc": {"scalar-symbolic"},
    "broadcast_to": {"scalar"},
    "repeat": {"per-element", "symbolic"},
    "roll": {"symbolic"},
    "AllocDiag": {"batched"},
    "getitem[advanced]": {"mask_2d", "mask_and_slice", "mask_and_array", "scalar_mask"},
    "set_subtensor[advanced]": {"mask", "mask_broadcast"},
    "inc_subtensor[advanced]": {"mask", "mask_broadcast"},
    "split": {"symbolic"},
    # branches of different shapes (lax.cond needs one shape), every row of an `until` loop
    "ifelse": {"lengths"},
    "ifelse[pair]": None,
    "scan[until]": None,
}


def _dynamic(info, sample) -> bool:
    if info.name not in DYNAMIC_SHAPES:
        return False
    samples = DYNAMIC_SHAPES[info.name]
    return samples is None or sample.name in samples


def _first_per_entry(cases):
    seen, chosen = set(), []
    for case in cases:
        info, _, dtype = case.values
        if info.name not in seen and dtype == "float64":
            seen.add(info.name)
            chosen.append(case)
    return chosen


FAST_CASES = _first_per_entry(CASES)
FAST_IDS = {case.id for case in FAST_CASES}
SLOW_CASES = [
    pytest.param(*case.values, id=case.id, marks=pytest.mark.slow)
    for case in CASES
    if case.id not in FAST_IDS
]


def _tolerances(info, dtype):
    if dtype == "float32":
        return (info.rtol or 1e-4) * 10, (info.atol or 1e-5) * 10
    return max(info.rtol or 1e-7, 1e-7), max(info.atol or 1e-10, 1e-10)


def _column_signs(vectors: np.ndarray) -> np.ndarray:
    """+1/-1 per column: the sign that makes each column's largest-magnitude entry positive."""
    rows = np.argmax(np.abs(vectors), axis=-2)[..., None, :]
    return np.sign(np.take_along_axis(vectors, rows, axis=-2))


def _fixed_signs(name: str, outputs: list) -> list:
    """Eigen- and singular vectors are defined up to sign (LAPACK, XLA on CPU and cuSOLVER
    each pick their own): compare them with the sign fixed by one rule."""
    outputs = [np.asarray(o) for o in outputs]
    if name == "eigh" and len(outputs) == 2:
        w, v = outputs
        return [w, v * _column_signs(v)]
    if name == "svd" and len(outputs) == 3:
        u, s, vt = outputs
        k = s.shape[-1]
        signs = _column_signs(u[..., :k])
        # full_matrices: the extra columns are any orthonormal basis of the complement, so
        # compare the projector onto the complement instead of the basis
        rest_u, rest_v = u[..., k:], np.swapaxes(vt[..., k:, :], -1, -2)
        return [
            u[..., :k] * signs,
            s,
            vt[..., :k, :] * np.swapaxes(signs, -1, -2),
            rest_u @ np.swapaxes(rest_u, -1, -2).conj(),
            rest_v @ np.swapaxes(rest_v, -1, -2).conj(),
        ]
    return outputs


def _compare(info, actual, expected, dtype, random):
    rtol, atol = _tolerances(info, dtype)
    actual = _fixed_signs(info.name, _outputs(actual))
    expected = _fixed_signs(info.name, _outputs(expected))
    for a, e in zip(actual, expected):
        a, e = np.asarray(a), np.asarray(e)
        assert a.shape == e.shape, f"shape {a.shape} != perform's {e.shape}"
        assert a.dtype == e.dtype, f"dtype {a.dtype} != perform's {e.dtype}"
        if random:
            continue
        if e.dtype.kind in "fc":
            np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
        else:
            np.testing.assert_array_equal(a, e)


def check_backend_matches_perform(request, info, sample, dtype):
    _apply_directive(request, info, "perform", dtype, sample)
    reason = JAX_DIRECTIVES.get((info.name, dtype))
    if reason is not None:
        request.applymarker(pytest.mark.xfail(reason=reason, strict=True))
    symbols, values, call_args = _symbolic(sample)
    outputs = _outputs(info.build(*call_args, **sample.kwargs))
    nodes = io_toposort(symbols, outputs)
    refused = {type(n.op).__name__ for n in nodes if unsupported_reason(n.op, n) is not None}
    try:
        fn = arignote.function(symbols, outputs, mode="JAX", on_unused_input="ignore")
    except UnsupportedOpError as err:
        # only a listed op may be refused (rewrites may also remove one before conversion)
        assert any(name in str(err) for name in refused), str(err)
        return
    expected = arignote.function(symbols, outputs, mode=NO_REWRITES, on_unused_input="ignore")(
        *values
    )
    if _dynamic(info, sample):
        with pytest.raises(DynamicShapeError, match=r"(?s)of node .*Make it static"):
            fn(*values)
        return
    random = any(isinstance(n.op, RandomVariable) for n in nodes)
    _compare(info, fn(*values), expected, dtype, random)


@pytest.mark.parametrize(("info", "sample", "dtype"), FAST_CASES)
def test_backend_matches_perform_jax(request, info, sample, dtype):
    check_backend_matches_perform(request, info, sample, dtype)


@pytest.mark.parametrize(("info", "sample", "dtype"), SLOW_CASES)
def test_backend_matches_perform_jax_sweep(request, info, sample, dtype):
    check_backend_matches_perform(request, info, sample, dtype)
