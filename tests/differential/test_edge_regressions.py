"""Regression tests of the edge-input defects the op-database sweep found (0-d inputs,
zero-length dimensions, loops of zero steps), each against its NumPy/SciPy value.

They were the ``KNOWN_DEFECT`` cases of ``tests/op_db/edges.py``; each test states the right
value in every mode.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.linalg
import scipy.stats

import arignote
import arignote.tensor as pt
from arignote.compile.mode import Mode
from arignote.gradient import grad
from arignote.tensor import linalg as la
from arignote.tensor.blockwise import Blockwise
from arignote.tensor.conv import conv2d, conv2d_grad_wrt_weights
from arignote.tensor.derived import batched_dot, chi2sf, cov, median
from arignote.tensor.linalg.inverse import MatrixInverse
from arignote.tensor.nnet import images2neibs
from arignote.tensor.signal.pool import max_pool_2d_same_size, pool_2d

MODES = [Mode(linker="vm", optimizer=None), "FAST_COMPILE", "FAST_RUN"]
IDS = ["no_rewrites", "FAST_COMPILE", "FAST_RUN"]


def _run(inputs, outputs, values, mode):
    fn = arignote.function(inputs, outputs, mode=mode, on_unused_input="ignore")
    return fn(*values)


def _numpy(fn, *args, **kwargs):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.mark.parametrize("mode", MODES, ids=IDS)
@pytest.mark.parametrize("shape", [(0,), (0, 3), (4, 0), (2, 3, 0)])
def test_norm_of_nothing_is_zero(mode, shape):
    # FAST_RUN rescales the 2-norm by max|x| (against overflow); the max of no elements used to
    # raise. NumPy: norm of an empty array is 0.
    x = pt.tensor("x", dtype="float64", shape=(None,) * len(shape))
    (result,) = _run([x], [la.norm(x)], [np.zeros(shape)], mode)
    assert result.shape == () and result == np.linalg.norm(np.zeros(shape)) == 0.0


def test_norm_rescaling_keeps_its_values():
    # the guard of the empty case leaves FAST_RUN's overflow-safe values alone
    x = pt.dmatrix("x")
    value = np.array([[3e200, 4e200], [0.0, 0.0]])
    (result,) = _run([x], [la.norm(x, axis=1)], [value], "FAST_RUN")
    np.testing.assert_allclose(result, [5e200, 0.0])


@pytest.mark.parametrize("mode", MODES, ids=IDS)
@pytest.mark.parametrize(("shape", "axis"), [((0,), None), ((3, 0), 1), ((0, 4), 0)])
def test_median_of_nothing_is_nan(mode, shape, axis):
    x = pt.tensor("x", dtype="float64", shape=(None,) * len(shape))
    (result,) = _run([x], [median(x, axis=axis)], [np.zeros(shape)], mode)
    expected = _numpy(np.median, np.zeros(shape), axis=axis)  # NaN, of the reduced shape
    assert result.shape == expected.shape
    assert np.isnan(result).all()


@pytest.mark.parametrize("mode", MODES, ids=IDS)
def test_median_values_and_integers_unchanged(mode):
    x, i = pt.dmatrix("x"), pt.ivector("i")
    value = np.random.default_rng(0).normal(size=(3, 4))
    ints = np.array([7, 1, 3, 2], dtype="int32")
    got, got_int = _run([x, i], [median(x, axis=1), median(i)], [value, ints], mode)
    np.testing.assert_allclose(got, np.median(value, axis=1))
    assert got_int == np.median(ints) == 2.5 and got_int.dtype == np.float64


@pytest.mark.parametrize("mode", MODES, ids=IDS)
def test_cov_of_one_variable_is_0d_and_of_no_observation_nan(mode):
    # np.cov squeezes its (1, 1) result to shape (); with no observation (fact = N - ddof < 0)
    # it divides by 0, never by a negative count (which gave -0.0 here)
    x, m = pt.dscalar("x"), pt.dmatrix("m")
    scalar, empty = _run([x, m], [cov(x), cov(m)], [np.asarray(2.0), np.zeros((3, 0))], mode)
    assert scalar.shape == _numpy(np.cov, np.asarray(2.0)).shape == ()
    assert np.isnan(scalar)
    expected = _numpy(np.cov, np.zeros((3, 0)))
    assert empty.shape == expected.shape == (3, 3) and np.isnan(expected).all()
    assert np.isnan(empty).all()


@pytest.mark.parametrize("mode", ["average_inc_pad", "average_exc_pad", "max", "sum"])
def test_average_pooling_of_a_zero_width_image(mode):
    x = pt.tensor("x", dtype="float64", shape=(None,) * 4)
    (result,) = _run([x], [pool_2d(x, (2, 2), mode=mode)], [np.zeros((2, 3, 7, 0))], "FAST_RUN")
    assert result.shape == (2, 3, 3, 0)  # (7 - 2) // 2 + 1 rows of no column


def test_unshared_convolution_of_no_image_and_no_filter():
    # an explicit length where -1 was ambiguous (reshaping a size-0 array)
    x = pt.tensor("x", dtype="float64", shape=(None,) * 4)
    w = pt.tensor("w", dtype="float64", shape=(None,) * 6)
    out = conv2d(x, w, unshared=True)
    (result,) = _run([x, w], [out], [np.zeros((0, 3, 5, 4)), np.zeros((0, 4, 3, 3, 2, 2))], None)
    assert result.shape == (0, 0, 4, 3)


def test_unshared_kernels_for_other_output_positions_are_refused_clearly():
    x = pt.tensor("x", dtype="float64", shape=(None,) * 4)
    w = pt.tensor("w", dtype="float64", shape=(None,) * 6)
    fn = arignote.function([x, w], conv2d(x, w, unshared=True))
    with pytest.raises(ValueError, match=r"kernels .* output positions, the input .* gives"):
        fn(np.zeros((2, 3, 5, 0)), np.zeros((2, 4, 3, 3, 2, 0)))


def test_weight_gradient_when_no_window_fits_is_zero():
    # input width 0, half padding 1 on each side, kernel width 3: no output column, so the
    # gradient with respect to the kernels sums over nothing (0)
    x = pt.tensor("x", dtype="float64", shape=(None,) * 4)
    gy = pt.tensor("gy", dtype="float64", shape=(None,) * 4)
    kw = {"border_mode": "half", "subsample": (2, 3), "filter_flip": False}
    out = conv2d_grad_wrt_weights(x, gy, (3, 2, 2, 3), **kw)
    (result,) = _run([x, gy], [out], [np.zeros((1, 2, 7, 0)), np.zeros((1, 3, 4, 0))], None)
    np.testing.assert_array_equal(result, np.zeros((3, 2, 2, 3)))


@pytest.mark.parametrize(
    ("shape", "kw", "rows"),
    [((0, 3, 4, 6), {}, (0, 6)), ((1, 2, 5, 0), {"mode": "half"}, (0, 6))],
)
def test_images2neibs_of_empty_images(shape, kw, rows):
    x = pt.tensor("x", dtype="float64", shape=(None,) * 4)
    (result,) = _run([x], [images2neibs(x, (2, 3), **kw)], [np.zeros(shape)], "FAST_RUN")
    assert result.shape == rows


def test_solve_sylvester_refuses_non_square_matrices():
    # SciPy: "expected square matrix" for non-empty ones (it lets empty ones through)
    a, b, q = pt.dmatrix("a"), pt.dmatrix("b"), pt.dmatrix("q")
    fn = arignote.function([a, b, q], la.solve_sylvester(a, b, q))
    with pytest.raises(ValueError, match="must be a square matrix"):
        fn(np.ones((2, 3)), np.ones((2, 2)), np.ones((2, 2)))
    with pytest.raises(ValueError, match="square"):
        la.solve_sylvester(pt.tensor(shape=(2, 3)), b, q)
    rng = np.random.default_rng(1)
    A, B, Q = 3 * np.eye(3) + rng.normal(size=(3, 3)) / 3, np.eye(2) * 2, rng.normal(size=(3, 2))
    np.testing.assert_allclose(fn(A, B, Q), scipy.linalg.solve_sylvester(A, B, Q))


@pytest.mark.parametrize("mode", MODES, ids=IDS)
@pytest.mark.parametrize("loop", ["foldl", "foldr", "reduce"])
def test_a_fold_of_zero_steps_is_its_initial_value(mode, loop):
    # used to index row -1 of an empty output outside FAST_RUN; PyTensor (FAST_RUN) and the
    # plain Python loop return the initial value
    x, a0 = pt.dmatrix("x"), pt.dvector("a0")
    out = getattr(arignote, loop)(
        lambda x_t, acc: acc * pt.cos(x_t) + x_t,
        sequences=x,
        outputs_info=a0,
        return_updates=False,
    )
    (result,) = _run([x, a0], [out], [np.zeros((0, 2)), np.array([1.0, -2.0])], mode)
    np.testing.assert_array_equal(result, [1.0, -2.0])
    value = np.array([[0.5, 1.0], [2.0, -1.0]])
    (result,) = _run([x, a0], [out], [value, np.array([1.0, -2.0])], mode)
    acc = np.array([1.0, -2.0])
    for row in value[::-1] if loop == "foldr" else value:
        acc = acc * np.cos(row) + row
    np.testing.assert_allclose(result, acc)


# -- gradients of qr and svd whose shapes are known only at run time --------------------------


def _finite_difference(fn, a, eps=1e-6):
    grad_ = np.zeros_like(a)
    for index in np.ndindex(a.shape):
        step = np.zeros_like(a)
        step[index] = eps
        grad_[index] = (fn(a + step) - fn(a - step)) / (2 * eps)
    return grad_


@pytest.mark.parametrize("mode", ["reduced", "r", "complete"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 3, 5)])
@pytest.mark.parametrize("static", [False, True], ids=["runtime", "static"])
def test_qr_gradient_of_any_shape_matches_finite_differences(mode, shape, static):
    # wide matrices (M < N) used to be refused, or to fail in a triangular solve at run time
    if mode == "complete" and shape[-2] > shape[-1]:
        pytest.skip("the extra columns of Q are not unique: tested below")
    rng = np.random.default_rng(3)
    a = rng.normal(size=shape)
    x = pt.tensor("x", dtype="float64", shape=shape if static else (None,) * len(shape))
    outs = la.qr(x, mode=mode)
    outs = [outs] if mode == "r" else list(outs)
    weights = [rng.normal(size=v.shape) for v in _qr_values(a, mode)]
    cost = sum((o * w).sum() for o, w in zip(outs, weights))
    (result,) = _run([x], [grad(cost, x)], [a], "FAST_RUN")

    def numeric(b):
        return sum((v * w).sum() for v, w in zip(_qr_values(b, mode), weights))

    np.testing.assert_allclose(result, _finite_difference(numeric, a), atol=1e-6)


def _qr_values(a, mode):
    values = np.linalg.qr(a, mode=mode)
    return [values] if mode == "r" else list(values)


def test_undefined_decomposition_gradients_are_refused_clearly_at_run_time():
    # used to fail with "Dot: shapes ... are not aligned" or a triangular solve that does not fit
    x = pt.dmatrix("x")
    q, r = la.qr(x, mode="complete")
    fn = arignote.function([x], grad(q.sum() + r.sum(), x))
    with pytest.raises(ValueError, match=r"qr\(mode='complete'\).*more rows than columns"):
        fn(np.ones((5, 3)))
    u, s, vh = la.svd(x, full_matrices=True)
    fn = arignote.function([x], grad(u.sum() + s.sum() + vh.sum(), x))
    with pytest.raises(ValueError, match=r"svd\(full_matrices=True\).*non-square"):
        fn(np.random.default_rng(0).normal(size=(3, 5)))
    square = np.random.default_rng(1).normal(size=(3, 3))
    assert fn(square).shape == (3, 3)


# -- found by the sweep of the entries that landed beside the harness ---------------------------


@pytest.mark.parametrize("mode", MODES, ids=IDS)
def test_blockwise_gradient_over_an_empty_batch_has_the_core_shape(mode):
    # the gradient's Blockwise{Dot} names its core dimensions apart from its inputs': with no
    # block to run, the core shape came out (0, 0); the core op's infer_shape gives (3, 3)
    a = pt.tensor("a", dtype="float64", shape=(None, None, None))
    inverse = Blockwise(MatrixInverse(), "(m,m)->(m,m)")(a)
    (result,) = _run([a], [grad(inverse.sum(), a)], [np.zeros((0, 3, 3))], mode)
    assert result.shape == (0, 3, 3)


@pytest.mark.parametrize("dtype", ["bool", "int8", "int64", "float32"])
def test_batched_dot_of_vectors_keeps_numpy_dtype(dtype):
    a = pt.tensor("a", dtype=dtype, shape=(None, None))
    b = pt.tensor("b", dtype=dtype, shape=(None, None))
    x = (np.arange(8).reshape(2, 4) % 3).astype(dtype)
    y = (np.arange(8).reshape(2, 4) % 2).astype(dtype)
    (result,) = _run([a, b], [batched_dot(a, b)], [x, y], "FAST_RUN")
    expected = np.einsum("bi,bi->b", x, y)  # bool: [True, True], not the int64 counts [1, 3]
    assert result.dtype == expected.dtype
    np.testing.assert_array_equal(result, expected)


def test_max_pool_same_size_of_booleans():
    x = pt.tensor("x", dtype="bool", shape=(None, None, None))
    value = np.array([[[True, False, False, False], [False, False, True, True]]])
    (result,) = _run([x], [max_pool_2d_same_size(x, (2, 2))], [value], "FAST_RUN")
    # each 2x2 patch keeps its maximum (True) where it sits, every tie included
    np.testing.assert_array_equal(result, value)
    assert result.dtype == np.bool_


@pytest.mark.parametrize("mode", MODES, ids=IDS)
def test_chi2sf_below_the_support_is_one(mode):
    x = pt.dvector("x")
    value = np.array([-3.0, -1e-300, 0.0, 0.5, np.nan])
    (result,) = _run([x], [chi2sf(x, 3.0)], [value], mode)
    np.testing.assert_allclose(result, scipy.stats.chi2.sf(value, 3.0))  # [1, 1, 1, 0.9189, nan]
    (g,) = _run([x], [grad(chi2sf(x, 3.0).sum(), x)], [value[:2]], mode)
    np.testing.assert_array_equal(g, [0.0, 0.0])  # constant below the support
