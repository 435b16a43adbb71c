"""Hostile inputs on JAX (issue 14, point 6). ``linspace``/``logspace`` with infinite or NaN
endpoints: NumPy's arithmetic (``start + i * step``, the last sample ``stop``), so NaN and
infinities land where NumPy puts them (``jnp.linspace`` computed otherwise). Shape errors of
``perform`` (a non-square LU, a diagonal too short for ``AllocDiag``) are raised while tracing,
where shapes are static, instead of giving values."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp

import arignote
import arignote.tensor as pt
from arignote.compile.mode import Mode
from arignote.tensor import linalg as la
from arignote.tensor.extra_ops import AllocDiag

pytest.importorskip("jax")

STARTS = [0.0, np.inf, -np.inf, np.nan, 1.0, 2.0, 3.0]
STOPS = [1.0, 2.0, np.inf, 3.0, np.inf, 2.0, -np.inf]


def _outputs(a, b):
    return [
        pt.linspace(a, b, 5),
        pt.linspace(a, b, 5, endpoint=False),
        pt.linspace(a, b, 1),
        pt.linspace(a, b, 4, axis=1),
        pt.logspace(a, b, 4),
    ]


def test_linspace_and_logspace_of_non_finite_endpoints_match_numpy():
    a, b = pt.dvector("a"), pt.dvector("b")
    got = arignote.function([a, b], _outputs(a, b), mode="JAX")
    reference = arignote.function([a, b], _outputs(a, b), mode=Mode(linker="vm", optimizer=None))
    for start, stop in [(STARTS, STOPS), (np.arange(7.0), np.arange(7.0) * 2 - 3)]:
        start, stop = np.array(start), np.array(stop)
        with np.errstate(all="ignore"):
            expected = reference(start, stop)
            for g, e in zip(got(start, stop), expected):
                assert np.asarray(g).dtype == e.dtype
                np.testing.assert_allclose(np.asarray(g), e, rtol=1e-12, equal_nan=True)


@pytest.mark.parametrize("factor", ["lu", "lu_factor"])
def test_lu_of_a_non_square_matrix_raises_as_perform(factor):
    x = pt.dmatrix("x")
    fn = arignote.function([x], list(getattr(la, factor)(x)), mode="JAX")
    with pytest.raises(ValueError, match="needs square matrices"):
        fn(np.zeros((0, 4)))
    assert np.asarray(fn(np.eye(3))[0]).shape == (3, 3)


def test_alloc_diag_of_a_diagonal_that_does_not_fit_raises_as_perform():
    d = pt.dvector("d")
    fn = arignote.function([d], AllocDiag(offset=2)(d, 3, 5), mode="JAX")
    with pytest.raises(ValueError, match="of length 0 does not fit diagonal 2 of a 3 x 5"):
        fn(np.zeros(0))
    np.testing.assert_array_equal(fn(np.ones(3)), np.eye(3, 5, 2))


#: the edges of gammaln and betaln: poles, huge values, infinities and NaN
EDGES = [
    -np.inf,
    -1e300,
    -3.0,
    -2.0,
    -1.5,
    -0.0,
    0.0,
    0.5,
    1.0,
    2.0,
    3.0,
    1e7,
    1e78,
    np.inf,
    np.nan,
]


def test_gammaln_and_betaln_at_poles_and_infinities_match_scipy():
    # jax gave gammaln(-inf) = +inf (SciPy: -inf) and betaln NaN at the poles and at +inf
    # (found by the hostile-input sweep)
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    fn = arignote.function([a, b], [pt.gammaln(a), pt.betaln(a, b)], mode="JAX")
    left, right = np.meshgrid(EDGES, EDGES)
    with np.errstate(all="ignore"):
        expected = [sp.gammaln(left), sp.betaln(left, right)]
    for g, e in zip(fn(left, right), expected):
        np.testing.assert_allclose(np.asarray(g), e, rtol=1e-12, atol=1e-14, equal_nan=True)


def test_fold_of_zero_steps_returns_the_initial_value_without_tracing_the_body():
    # the body (acc * cos(x_t)) is ill-shaped for an initial value cut to length 0, but it never
    # runs: the VM returns the initial value, and JAX raised while tracing it
    x, a0 = pt.dmatrix("x"), pt.dvector("a0")
    fold = arignote.foldr(
        lambda x_t, acc: acc * pt.cos(x_t) + x_t, sequences=x, outputs_info=a0, return_updates=False
    )
    mapped = arignote.map(lambda x_t: pt.exp(x_t) * 2, sequences=x, return_updates=False)
    fn = arignote.function([x, a0], [fold, mapped], mode="JAX")
    folded, rows = fn(np.zeros((0, 2)), np.zeros(0))
    assert np.asarray(folded).shape == (0,) and np.asarray(rows).shape == (0, 2)
    folded, rows = fn(np.ones((3, 2)), np.ones(2))
    np.testing.assert_allclose(np.asarray(rows), np.full((3, 2), 2 * np.e))
    assert np.asarray(folded).shape == (2,)
