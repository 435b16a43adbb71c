"""Tests of inv, det, slogdet and matrix_power beyond the op database: dtypes and errors."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.tensor import linalg as la


def test_non_square_matrices_are_refused_when_the_graph_is_built():
    x = pt.tensor(shape=(3, 4))
    for fn in (la.inv, la.det, la.slogdet, la.cholesky, la.eigh, la.expm):
        with pytest.raises(ValueError, match="square"):
            fn(x)
    with pytest.raises(ValueError, match="square"):
        la.matrix_power(x, 2)


def test_non_square_matrices_are_refused_at_run_time_naming_the_node(rng):
    x = pt.matrix()
    fn = arignote.function([x], la.inv(x))
    with pytest.raises(ValueError, match="MatrixInverse needs square matrices") as info:
        fn(rng.normal(size=(3, 4)))
    assert "Apply node" in str(info.value)


def test_vectors_are_refused():
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        la.det(pt.vector())


def test_singular_matrix_raises_linalg_error():
    x = pt.matrix()
    fn = arignote.function([x], la.inv(x))
    with pytest.raises(np.linalg.LinAlgError, match="Singular"):
        fn(np.ones((3, 3)))


def test_det_of_singular_matrix_is_zero_and_slogdet_says_so():
    x = pt.matrix()
    det, (sign, logabsdet) = la.det(x), la.slogdet(x)
    values = arignote.function([x], [det, sign, logabsdet])(np.ones((3, 3)))
    assert values[0] == 0.0
    assert values[1] == 0.0 and values[2] == -np.inf


@pytest.mark.parametrize(("dtype", "expected"), [("int64", "float64"), ("float32", "float32")])
def test_integer_inputs_are_computed_in_float64(rng, dtype, expected):
    value = (rng.integers(-3, 4, (3, 3)) + 6 * np.eye(3)).astype(dtype)
    x = pt.matrix(dtype=dtype)
    outputs = [la.inv(x), la.det(x), *la.slogdet(x)]
    assert [o.type.dtype for o in outputs] == [expected] * 4
    results = arignote.function([x], outputs)(value)
    references = [np.linalg.inv(value), np.linalg.det(value), *np.linalg.slogdet(value)]
    for result, reference in zip(results, references):
        assert result.dtype == reference.dtype
        np.testing.assert_allclose(result, reference, rtol=1e-5)


@pytest.mark.parametrize("n", [0, 1, 2, 5, -1, -3])
def test_matrix_power_matches_numpy(rng, n):
    value = rng.normal(size=(2, 3, 3)) + 3 * np.eye(3)
    x = pt.tensor3()
    result = arignote.function([x], la.matrix_power(x, n))(value)
    np.testing.assert_allclose(result, np.linalg.matrix_power(value, n), rtol=1e-10)


def test_matrix_power_of_integers(rng):
    value = rng.integers(-3, 4, (3, 3))
    x = pt.matrix(dtype="int64")
    for n in (0, 3):
        result = arignote.function([x], la.matrix_power(x, n))(value)
        expected = np.linalg.matrix_power(value, n)
        assert result.dtype == expected.dtype
        np.testing.assert_array_equal(result, expected)


def test_matrix_power_needs_an_integer_exponent():
    with pytest.raises(TypeError, match="integer"):
        la.matrix_power(pt.matrix(), 1.5)


def test_static_shapes_are_kept():
    x = pt.tensor(shape=(2, 3, None))
    assert la.inv(x).type.shape == (2, 3, 3)
    assert la.det(x).type.shape == (2,)
    assert [o.type.shape for o in la.slogdet(x)] == [(2,), (2,)]


def test_non_square_matrices_raise_linalg_error():
    # numpy.linalg's class (a ValueError), statically and when the function runs
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        la.inv(pt.tensor(shape=(3, 4)))
    x = pt.dmatrix("x")
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        arignote.function([x], la.inv(x), mode="FAST_COMPILE")(np.ones((3, 4)))
