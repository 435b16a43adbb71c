"""Methods of tensor variables that PyTensor documents and ``ndarray`` lacks or spells
differently (``x.sin()``, ``x.norm(L)``, ``x.compress(a)``, keywords of the reductions)."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt

ELEMENTWISE = {
    "arccos": np.arccos,
    "arcsin": np.arcsin,
    "arctan": np.arctan,
    "arcsinh": np.arcsinh,
    "arctanh": np.arctanh,
    "ceil": np.ceil,
    "cos": np.cos,
    "cosh": np.cosh,
    "deg2rad": np.deg2rad,
    "exp2": np.exp2,
    "expm1": np.expm1,
    "floor": np.floor,
    "log10": np.log10,
    "log1p": np.log1p,
    "log2": np.log2,
    "rad2deg": np.rad2deg,
    "sin": np.sin,
    "sinh": np.sinh,
    "sqrt": np.sqrt,
    "tan": np.tan,
    "tanh": np.tanh,
}


def test_elementwise_methods(rng):
    x = pt.dmatrix("x")
    value = rng.uniform(0.1, 0.9, size=(3, 4))
    outs = [getattr(x, name)() for name in ELEMENTWISE]
    got = arignote.function([x], outs)(value)
    for (name, reference), g in zip(ELEMENTWISE.items(), got):
        np.testing.assert_allclose(g, reference(value), rtol=1e-12, err_msg=name)
    cosh = pt.lmatrix("i").arccosh()
    assert cosh.type.dtype == "float64"


def test_norm_method(rng):
    x = pt.dmatrix("x")
    value = rng.normal(size=(3, 4))
    outs = [x.norm(2, axis=1), x.norm(1, keepdims=True), x.norm(np.inf), x.norm(3, axis=0)]
    got = arignote.function([x], outs)(value)
    np.testing.assert_allclose(got[0], np.linalg.norm(value, axis=1))
    np.testing.assert_allclose(got[1], np.abs(value).sum(keepdims=True))
    np.testing.assert_allclose(got[2], np.abs(value).max())
    np.testing.assert_allclose(got[3], (np.abs(value) ** 3).sum(0) ** (1 / 3))
    with pytest.raises(ValueError, match="L must be nonzero"):
        x.norm(0)


def test_fill_compress_nonzero_values_methods(rng):
    x, c = pt.dmatrix("x"), pt.bvector("c")
    value, cond = rng.normal(size=(3, 4)), np.array([1, 0, 1], dtype="int8")
    outs = [x.fill(2.5), c.compress(x, axis=0), x.nonzero_values(), x.nonzero(return_matrix=True)]
    got = arignote.function([x, c], outs)(value, cond)
    np.testing.assert_array_equal(got[0], np.full((3, 4), 2.5))
    np.testing.assert_array_equal(got[1], value.compress(cond.astype(bool), axis=0))
    np.testing.assert_array_equal(got[2], value[value != 0])
    np.testing.assert_array_equal(got[3], np.array(np.nonzero(value)))


def test_reduction_method_keywords(rng):
    x = pt.dmatrix("x")
    value = rng.normal(size=(3, 4))
    outs = [
        x.prod(axis=1, no_zeros_in_input=True),
        x.mean(axis=0, acc_dtype="float64"),
        x.var(ddof=1, corrected=True),
        x.std(axis=1, corrected=True),
    ]
    got = arignote.function([x], outs)(value)
    expected = [value.prod(1), value.mean(0), value.var(ddof=1), value.std(1)]
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-12)


def test_reshape_shape_keyword_and_constant_value():
    x = pt.dmatrix("x")
    assert x.reshape(shape=(2, -1)).type.shape == (2, None)
    with pytest.raises(TypeError, match="not both"):
        x.reshape((2, 6), shape=(2, 6))
    assert pt.constant(3.0).get_underlying_scalar_constant() == 3.0
