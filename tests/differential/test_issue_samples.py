"""Regression tests: the defect classes of issue 17, one sample of each (they failed before).

Each class was fixed as a whole; the sweeps in ``test_op_db_edges.py`` (0-d, zero-length) and
the random programs of ``test_differential.py`` cover the rest of each class.
"""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.compile.mode import Mode
from arignote.gradient import grad
from arignote.tensor import special

MODES = [Mode(linker="vm", optimizer=None), "FAST_COMPILE", "FAST_RUN"]
MODE_IDS = ["no_rewrites", "FAST_COMPILE", "FAST_RUN"]


def _run(inputs, outputs, values, mode):
    fn = arignote.function(inputs, outputs, mode=mode, on_unused_input="ignore")
    return fn(*values)


# -- 0-d outputs are arrays of the declared type ---------------------------------------------


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("fn", [special.softmax, special.log_softmax, special.logsumexp])
def test_axis_ops_on_0d_inputs_return_0d_arrays(fn, mode):
    x = pt.dscalar("x")
    out = fn(x, axis=None)
    # an in-place node after it used to fail: "'numpy.float64' object does not support item
    # assignment"
    result = _run([x], [out, out * 2 + 1], [np.asarray(1.5)], mode)
    expected = {special.softmax: 1.0, special.log_softmax: 0.0, special.logsumexp: 1.5}[fn]
    assert type(result[0]) is np.ndarray and result[0].shape == () and result[0].dtype == "float64"
    np.testing.assert_allclose(result[1], 2 * expected + 1)


# -- empty index lists are integer -----------------------------------------------------------


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_repeat_with_an_empty_list_of_counts(mode):
    v = pt.dvector("v")
    (result,) = _run([v], [pt.repeat(v, [], axis=0)], [np.zeros(0)], mode)
    np.testing.assert_array_equal(result, np.repeat(np.zeros(0), [], axis=0))
    assert result.dtype == "float64" and result.shape == (0,)


@pytest.mark.parametrize(
    ("build", "ref"),
    [
        (lambda v: pt.take(v, []), lambda v: np.take(v, [])),
        (lambda v: pt.bincount([]), lambda v: np.bincount([])),
        (
            lambda v: pt.take_along_axis(v, [], axis=0),
            lambda v: np.take_along_axis(v, np.array([], int), 0),
        ),
    ],
    ids=["take", "bincount", "take_along_axis"],
)
def test_empty_lists_are_read_as_integer_indices(build, ref):
    v = pt.dvector("v")
    value = np.arange(3.0)
    (result,) = _run([v], [build(v)], [value], "FAST_RUN")
    expected = ref(value)
    assert result.dtype == expected.dtype and result.shape == expected.shape


# -- runtime length 1: PyTensor 3's rule -------------------------------------------------------


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_dimshuffle_drops_a_dimension_of_unknown_length_checked_at_run_time(mode):
    v = pt.dvector("v")
    out = v.dimshuffle("x")
    assert out.type.shape == (1,)  # accepted when the graph is built, as in PyTensor 3
    (result,) = _run([v], [out * 2], [np.array([3.0])], mode)
    np.testing.assert_array_equal(result, [6.0])
    with pytest.raises(ValueError, match="length must be 1"):
        _run([v], [out * 2], [np.array([3.0, 4.0])], mode)


def test_dimshuffle_still_refuses_a_known_length_other_than_1():
    with pytest.raises(ValueError, match="static length is 3"):
        pt.tensor("m", dtype="float64", shape=(3, None)).dimshuffle(1)


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_dimshuffle_drop_has_the_right_gradient(mode):
    m = pt.dmatrix("m")
    g = grad((m.dimshuffle(1) * np.arange(1.0, 4.0)).sum(), m)
    (result,) = _run([m], [g], [np.ones((1, 3))], mode)
    np.testing.assert_array_equal(result, [[1.0, 2.0, 3.0]])


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_runtime_length_1_against_length_0_follows_pytensor_3(mode):
    # PyTensor 3.0.7: "Runtime broadcasting not allowed" for any length other than 1, 0
    # included (its Elemwise._check_runtime_broadcast); arignote does the same in every mode.
    a, b = pt.dvector("a"), pt.dvector("b")
    with pytest.raises(ValueError, match="Runtime broadcasting is not allowed"):
        _run([a, b], [pt.exp(a) * b], [np.ones(1), np.ones(0)], mode)
    # a static length 1 broadcasts against 0, as in NumPy
    c = pt.tensor("c", dtype="float64", shape=(1,))
    (result,) = _run([c, b], [pt.exp(c) * b], [np.ones(1), np.ones(0)], mode)
    assert result.shape == (0,)


# -- gradients where the function is locally constant or the singularity cancels ---------------


def _gradient(build, value, mode="FAST_RUN", ndim=1):
    x = pt.tensor("x", dtype="float64", shape=(None,) * ndim)
    (result,) = _run([x], [grad(build(x).sum(), x)], [value], mode)
    return result


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_gradient_of_std_over_a_length_1_axis_is_zero(mode):
    result = _gradient(lambda m: pt.std(m, axis=0), np.ones((1, 3)), mode, ndim=2)
    np.testing.assert_array_equal(result, np.zeros((1, 3)))


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_gradient_of_sqrt_of_a_square_at_zero_is_zero(mode):
    result = _gradient(lambda v: pt.sqrt(pt.sqr(v)), np.array([0.0, -2.0, 3.0]), mode)
    np.testing.assert_array_equal(result, [0.0, -1.0, 1.0])  # sign(v), as d|v|/dv


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_gradient_of_sqrt_abs_x_minus_x_is_zero(mode):
    result = _gradient(lambda v: pt.sqrt(pt.abs(v - v)), np.array([1.0, -2.0]), mode)
    np.testing.assert_array_equal(result, [0.0, 0.0])


def test_gradient_of_sqrt_at_zero_stays_infinite_where_nothing_cancels():
    # sqrt(x) for a plain x is not known to be at a minimum: d/dx at 0 is +inf, as in PyTensor
    with np.errstate(divide="ignore"):
        result = _gradient(pt.sqrt, np.array([0.0, 4.0]))
    np.testing.assert_array_equal(result, [np.inf, 0.25])


def test_gradient_of_norm_is_finite_at_zero():
    result = _gradient(lambda v: pt.linalg.norm(v), np.zeros(3))
    np.testing.assert_array_equal(result, np.zeros(3))


# -- errors inside rewritten nodes name the user's operation ----------------------------------


def test_gemm_error_names_the_product_and_the_subtraction():
    x, m = pt.dmatrix("x"), pt.dmatrix("m")
    fn = arignote.function([x, m], pt.dot(x, m) - x, mode="FAST_RUN")
    with pytest.raises(ValueError, match=r"product has shape \(2, 4\).*has shape \(2, 3\)"):
        fn(np.ones((2, 3)), np.ones((3, 4)))


def test_gemv_error_names_the_product_and_the_addition():
    a, v = pt.dmatrix("a"), pt.dvector("v")
    fn = arignote.function([a, v], pt.dot(a, v) + v, mode="FAST_RUN")
    with pytest.raises(ValueError, match=r"product has shape \(2,\).*has shape \(3,\)"):
        fn(np.ones((2, 3)), np.ones(3))


# -- zero-length inputs --------------------------------------------------------------------------


@pytest.mark.parametrize("ord", [np.inf, 1, 2])
def test_norms_of_empty_matrices_are_zero_as_in_numpy(ord):
    m = pt.dmatrix("m")
    value = np.zeros((0, 4))
    (result,) = _run([m], [pt.linalg.norm(m, ord=ord)], [value], "FAST_RUN")
    assert result == np.linalg.norm(value, ord=ord) == 0.0


def test_specify_broadcastable_with_a_bad_axis_raises_value_error():
    with pytest.raises(ValueError, match="out of range"):
        pt.specify_broadcastable(pt.dscalar("x"), 0)


# -- found by the differential harness --------------------------------------------------------


def test_in_place_elementwise_uses_the_op_not_its_dtype_ufunc():
    # round_half_away_from_zero keeps np.trunc as nfunc for its dtypes only; the in-place path
    # (after a reduction, in FAST_RUN) used to call np.trunc: round(0.5) gave 0
    x = pt.dvector("x")
    out = pt.round_half_away_from_zero(pt.min(x))
    (result,) = _run([x], [out], [np.array([0.5, 2.0])], "FAST_RUN")
    assert result == 1.0


def test_broadcast_shape_checks_lengths_known_only_at_run_time():
    a, b = pt.dmatrix("a"), pt.dvector("b")
    shape = pt.broadcast_shape(a, b)
    (n,) = _run([a, b], [shape[1]], [np.ones((3, 4)), np.ones(4)], "FAST_RUN")
    assert n == 4
    # it used to return the first length (1) where NumPy gives 4; a runtime length 1 does not
    # broadcast (PyTensor's rule), so it raises
    with pytest.raises(ValueError, match="runtime broadcasting is not allowed"):
        _run([a, b], [shape[1]], [np.ones((3, 1)), np.ones(4)], "FAST_RUN")
