"""Tests of solve, solve_triangular and cho_solve beyond the op database."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

import arignote
import arignote.tensor as pt
from arignote.tensor import linalg as la
from arignote.testing import verify_grad


def _well_conditioned(rng, shape):
    return rng.normal(size=shape) + shape[-1] * np.eye(shape[-1])


@pytest.mark.parametrize(
    ("a_shape", "b_shape"),
    [((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (3,)), ((2, 3, 3), (3, 4)), ((3, 3), (2, 3, 4))],
    ids=str,
)
def test_solve_broadcasts_like_numpy(rng, a_shape, b_shape):
    a, b = _well_conditioned(rng, a_shape), rng.normal(size=b_shape)
    x, y = pt.tensor(shape=(None,) * len(a_shape)), pt.tensor(shape=(None,) * len(b_shape))
    result = arignote.function([x, y], la.solve(x, y))(a, b)
    np.testing.assert_allclose(result, np.linalg.solve(a, b), rtol=1e-10)


def test_solve_b_ndim_one_treats_stacks_of_vectors(rng):
    a, b = _well_conditioned(rng, (2, 3, 3)), rng.normal(size=(2, 3))
    x, y = pt.tensor3(), pt.matrix()
    result = arignote.function([x, y], la.solve(x, y, b_ndim=1))(a, b)
    np.testing.assert_allclose(result, np.linalg.solve(a, b[..., None])[..., 0], rtol=1e-10)


def test_solve_reads_one_triangle_for_structured_matrices(rng):
    a = rng.normal(size=(4, 4))
    spd = a @ a.T + 4 * np.eye(4)
    noisy = np.tril(spd) + np.triu(rng.normal(size=(4, 4)), 1)  # garbage above the diagonal
    b = rng.normal(size=(4, 2))
    x, y = pt.matrix(), pt.matrix()
    for kind in ("pos", "sym"):
        result = arignote.function([x, y], la.solve(x, y, assume_a=kind, lower=True))(noisy, b)
        np.testing.assert_allclose(result, np.linalg.solve(spd, b), rtol=1e-10)
    verify_grad(lambda m, v: la.solve(m, v, assume_a="pos", lower=True), [noisy, b], rng=rng)


def test_solve_shape_errors_when_the_graph_is_built():
    with pytest.raises(ValueError, match="square"):
        la.solve(pt.tensor(shape=(3, 4)), pt.vector())
    with pytest.raises(ValueError, match="incompatible"):
        la.solve(pt.tensor(shape=(3, 3)), pt.tensor(shape=(4, 2)))
    with pytest.raises(ValueError, match="assume_a"):
        la.solve(pt.matrix(), pt.vector(), assume_a="banded")
    with pytest.raises(ValueError, match="trans"):
        la.solve_triangular(pt.matrix(), pt.vector(), trans=3)
    with pytest.raises(TypeError, match=r"\(c, lower\)"):
        la.cho_solve(pt.matrix(), pt.vector())


def test_solve_shape_errors_at_run_time_name_the_node(rng):
    x, y = pt.matrix(), pt.matrix()
    fn = arignote.function([x, y], la.solve(x, y))
    with pytest.raises(ValueError, match="Solve") as info:
        fn(_well_conditioned(rng, (3, 3)), rng.normal(size=(4, 2)))
    assert "Apply node" in str(info.value)


def test_solve_singular_matrix_raises(rng):
    x, y = pt.matrix(), pt.vector()
    fn = arignote.function([x, y], la.solve(x, y))
    with pytest.raises(np.linalg.LinAlgError):
        fn(np.ones((3, 3)), rng.normal(size=3))


@pytest.mark.parametrize("trans", [0, 1, 2, "N", "T", "C"])
@pytest.mark.parametrize("unit_diagonal", [False, True])
def test_solve_triangular_options_match_scipy(rng, trans, unit_diagonal):
    a = rng.normal(size=(4, 4)) + 4 * np.eye(4)
    b = rng.normal(size=(4, 3))
    x, y = pt.matrix(), pt.matrix()
    for lower in (False, True):
        out = la.solve_triangular(x, y, trans=trans, lower=lower, unit_diagonal=unit_diagonal)
        result = arignote.function([x, y], out)(a, b)
        expected = scipy.linalg.solve_triangular(
            a, b, trans=trans, lower=lower, unit_diagonal=unit_diagonal
        )
        np.testing.assert_allclose(result, expected, rtol=1e-10)


def test_solve_triangular_batched(rng):
    a = np.tril(rng.normal(size=(2, 3, 3))) + 3 * np.eye(3)
    b = rng.normal(size=(2, 3, 4))
    x, y = pt.tensor3(), pt.tensor3()
    result = arignote.function([x, y], la.solve_triangular(x, y, lower=True))(a, b)
    np.testing.assert_allclose(result, np.linalg.solve(a, b), rtol=1e-10)
    verify_grad(lambda m, v: la.solve_triangular(m, v, lower=True), [a, b], rng=rng)


def test_cho_solve_batched_with_integer_rhs(rng):
    a = rng.normal(size=(2, 3, 3))
    spd = a @ np.swapaxes(a, -1, -2) + 3 * np.eye(3)
    c = np.linalg.cholesky(spd)
    b = rng.integers(-3, 3, (2, 3, 2))
    x, y = pt.tensor3(), pt.tensor3(dtype="int64")
    out = la.cho_solve((x, True), y)
    assert out.type.dtype == "float64"
    result = arignote.function([x, y], out)(c, b)
    np.testing.assert_allclose(result, np.linalg.solve(spd, b), rtol=1e-10)


def test_scipy_keywords_are_accepted(rng):
    # PyTensor documents solve(..., check_finite, overwrite_a, overwrite_b) after SciPy
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    m = rng.normal(size=(4, 4))
    spd, rhs = m @ m.T + 4 * np.eye(4), rng.normal(size=(4, 3))
    lower = np.linalg.cholesky(spd)
    outs = [
        pt.linalg.solve(a, b, assume_a="pos", check_finite=False, overwrite_a=True),
        pt.linalg.solve_triangular(a, b, lower=True, check_finite=False, overwrite_b=True),
        pt.linalg.cholesky(a, check_finite=False, overwrite_a=True),
    ]
    spd_copy = spd.copy()
    got = arignote.function([a, b], outs)(spd, rhs)
    np.testing.assert_allclose(got[0], np.linalg.solve(spd, rhs))
    np.testing.assert_allclose(got[1], np.linalg.solve(np.tril(spd), rhs))
    np.testing.assert_allclose(got[2], lower)
    np.testing.assert_array_equal(spd, spd_copy)
