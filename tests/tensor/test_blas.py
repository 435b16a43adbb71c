"""Gemm, Gemv, Ger: edge cases beyond the op database (memory layouts, in-place, NaN, errors)."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.tensor.blas import gemm, gemm_inplace, gemv, gemv_inplace, ger, ger_inplace

NO_REWRITES = arignote.Mode(optimizer=None)


def _run(op, values, inplace=False):
    symbols = [pt.tensor(dtype=np.asarray(v).dtype, shape=(None,) * np.ndim(v)) for v in values]
    first = arignote.In(symbols[0], mutable=True) if inplace else symbols[0]
    fn = arignote.function(
        [first, *symbols[1:]], op(*symbols), mode=NO_REWRITES, accept_inplace=inplace
    )
    return fn(*values)


@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_gemm_layouts(rng, layout):
    z, x, y = rng.normal(size=(4, 6)), rng.normal(size=(4, 3)), rng.normal(size=(3, 6))
    if layout == "F":
        z, x, y = (np.asfortranarray(a) for a in (z, x, y))
    elif layout == "strided":
        z, x, y = rng.normal(size=(4, 12))[:, ::2], rng.normal(size=(3, 4)).T, y[:, ::-1]
    out = _run(gemm, [z, np.asarray(2.0), x, y, np.asarray(-1.0)])
    np.testing.assert_allclose(out, -z + 2 * x @ y)


def test_inplace_variants_write_into_their_accumulator(rng):
    z, x, y = rng.normal(size=(4, 6)), rng.normal(size=(4, 3)), rng.normal(size=(3, 6))
    expected = 0.5 * z + x @ y
    out = _run(gemm_inplace, [z, np.asarray(1.0), x, y, np.asarray(0.5)], inplace=True)
    np.testing.assert_allclose(out, expected)
    np.testing.assert_allclose(z, expected)  # the mutable input was overwritten
    v, m, u = rng.normal(size=4), rng.normal(size=(4, 3)), rng.normal(size=3)
    expected = v + m @ u
    _run(gemv_inplace, [v, np.asarray(1.0), m, u, np.asarray(1.0)], inplace=True)
    np.testing.assert_allclose(v, expected)
    a, p, q = rng.normal(size=(4, 3)), rng.normal(size=4), rng.normal(size=3)
    expected = a + 3 * np.outer(p, q)
    _run(ger_inplace, [a, np.asarray(3.0), p, q], inplace=True)
    np.testing.assert_allclose(a, expected)


def test_non_inplace_variants_leave_inputs_alone(rng):
    z, x, y = rng.normal(size=(2, 3)), rng.normal(size=(2, 4)), rng.normal(size=(4, 3))
    copy = z.copy()
    _run(gemm, [z, np.asarray(1.0), x, y, np.asarray(1.0)])
    np.testing.assert_array_equal(z, copy)


def test_zero_scalings_propagate_nan_like_numpy(rng):
    z = np.full((2, 2), np.nan)
    x, y = rng.normal(size=(2, 3)), rng.normal(size=(3, 2))
    out = _run(gemm, [z, np.asarray(1.0), x, y, np.asarray(0.0)])
    assert np.isnan(out).all()  # 0 * nan is nan in NumPy (BLAS would skip z)
    v = np.array([np.inf, 1.0])
    out = _run(gemv, [v, np.asarray(0.0), np.ones((2, 2)), np.ones(2), np.asarray(1.0)])
    np.testing.assert_array_equal(out, [np.inf, 1.0])


def test_empty_operands(rng):
    out = _run(
        gemm,
        [np.ones((2, 3)), np.asarray(1.0), np.ones((2, 0)), np.ones((0, 3)), np.asarray(2.0)],
    )
    np.testing.assert_array_equal(out, np.full((2, 3), 2.0))
    out = _run(ger, [np.ones((0, 3)), np.asarray(1.0), np.ones(0), np.ones(3)])
    assert out.shape == (0, 3)


def test_float32_stays_float32(rng):
    z, x, y = (rng.normal(size=s).astype("float32") for s in ((2, 3), (2, 4), (4, 3)))
    alpha, beta = np.asarray(1.0, "float32"), np.asarray(1.0, "float32")
    out = _run(gemm, [z, alpha, x, y, beta])
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, z + x @ y, rtol=1e-5)


def test_errors_name_the_op_and_types():
    z, x = pt.dmatrix("z"), pt.dmatrix("x")
    with pytest.raises(TypeError, match=r"Gemm\{no_inplace\} needs operands of one BLAS dtype"):
        gemm(z, 1.0, x, pt.fmatrix("y"), 1.0)
    with pytest.raises(TypeError, match="must have 2 dimensions"):
        gemm(z, 1.0, x, pt.dvector("v"), 1.0)
    with pytest.raises(ValueError, match="must be equal"):
        gemm(
            pt.tensor("s", dtype="float64", shape=(2, 3)),
            1.0,
            pt.tensor("t", dtype="float64", shape=(4, 5)),
            x,
            1.0,
        )
    with pytest.raises(TypeError, match="BLAS dtype"):
        ger(pt.lmatrix("i"), 1, pt.lvector("a"), pt.lvector("b"))


def test_runtime_shape_mismatch(rng):
    with pytest.raises(ValueError, match="do not match"):
        _run(
            gemm,
            [np.ones((2, 2)), np.asarray(1.0), np.ones((2, 3)), np.ones((3, 4)), np.asarray(1.0)],
        )


def test_inplace_ops_declare_what_they_destroy():
    assert gemm_inplace.destroy_map == {0: [0]} and gemm.destroy_map == {}
    assert gemm_inplace != gemm and str(gemv_inplace) == "Gemv{inplace}"
