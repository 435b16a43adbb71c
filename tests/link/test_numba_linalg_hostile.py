"""Native linear algebra on hostile values (issue 14, point 6): infinities, NaN and empty
matrices give what ``perform`` gives (NumPy's and SciPy's results), where numba's
``np.linalg`` wrappers raised ``LinAlgError`` ("must not contain infs or NaNs", "Arrays cannot
be empty"). One compiled function per group, shared by the cases.
"""

from __future__ import annotations

import warnings
from functools import cache

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.compile.mode import Mode
from arignote.tensor import linalg as la

pytest.importorskip("numba")

REFERENCE = Mode(linker="vm", optimizer=None)


def _square_outputs(x, b):
    sign, logdet = la.slogdet(x)
    return [
        la.det(x),
        sign,
        logdet,
        la.matrix_inverse(x),
        la.solve(x, b),
        la.expm(x),
        la.solve_sylvester(x, x.T, b),
        la.solve_discrete_lyapunov(x, b),
        *la.qr(x),
        *la.qr(x, mode="complete"),
    ]


def _rectangular_outputs(x, b):
    outputs = [*la.svd(x), la.svd(x, compute_uv=False), *la.svd(x, full_matrices=False)]
    outputs += [*la.qr(x), *la.qr(x, mode="complete"), la.qr(x, mode="r")]
    return outputs + list(la.lstsq(x, b)) + list(la.lstsq(x, b[:, 0]))


@cache
def _functions(kind: str):
    x, b = pt.dmatrix("x"), pt.dmatrix("b")
    outputs = (_square_outputs if kind == "square" else _rectangular_outputs)(x, b)
    return tuple(arignote.function([x, b], outputs, mode=m) for m in ("NUMBA", REFERENCE))


def _results(fn, *args):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return [np.asarray(r) for r in fn(*args)]
        except Exception as err:
            return err


def assert_as_perform(kind: str, a: np.ndarray, b: np.ndarray) -> None:
    native, reference = _functions(kind)
    kept = (a.copy(), b.copy())
    got, expected = _results(native, a, b), _results(reference, a, b)
    if isinstance(expected, Exception):
        assert type(got) is type(expected), f"{got!r} where perform raises {expected!r}"
        return
    assert not isinstance(got, Exception), f"raises {got!r} where perform gives values"
    for g, e in zip(got, expected):
        assert g.shape == e.shape and g.dtype == e.dtype
        np.testing.assert_allclose(g, e, rtol=1e-8, atol=1e-12, equal_nan=True)
    np.testing.assert_array_equal(a, kept[0])
    np.testing.assert_array_equal(b, kept[1])


def _with(value: float, at: tuple[int, int], shape=(3, 3)) -> np.ndarray:
    a = np.random.default_rng(7).normal(size=shape)
    a[at] = value
    return a


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("at", [(0, 0), (1, 2)])
def test_square_linalg_of_non_finite_matrices_as_perform(value, at):
    b = np.random.default_rng(3).normal(size=(3, 3))
    assert_as_perform("square", _with(value, at), b)
    assert_as_perform("square", b, _with(value, at))


def test_square_linalg_of_finite_empty_and_singular_matrices_as_perform():
    rng = np.random.default_rng(5)
    assert_as_perform("square", rng.normal(size=(4, 4)), rng.normal(size=(4, 4)))
    assert_as_perform("square", np.zeros((0, 0)), np.zeros((0, 0)))
    assert_as_perform("square", np.ones((3, 3)), np.ones((3, 3)))  # singular: LinAlgError


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0, 0)])
def test_decompositions_and_lstsq_of_empty_matrices_as_perform(shape):
    b = np.random.default_rng(2).normal(size=(shape[0], 2))
    assert_as_perform("rectangular", np.zeros(shape), b)


@pytest.mark.parametrize("name", ["inv", "det", "cholesky"])
def test_non_square_matrices_raise_linalg_error_natively(name):
    # numpy.linalg's class, as the VM's perform raises it (tensor/linalg/basic.py)
    x = pt.dmatrix("x")
    fn = arignote.function([x], getattr(la, name)(x), mode="NUMBA")
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        fn(np.ones((3, 4)))
