"""The examples of the PyTensor loop tutorial, written as there after ``import arignote as
pytensor`` (the import is the only change), checked against NumPy."""

import numpy as np
import pytest

import arignote as pytensor
import arignote.tensor as pt
from arignote.scan.utils import until
from arignote.tensor.random.utils import RandomStream


def test_power_by_repeated_multiplication():
    k = pt.iscalar("k")
    A = pt.vector("A")
    result, updates = pytensor.scan(
        fn=lambda prior_result, A: prior_result * A,
        outputs_info=pt.ones_like(A),
        non_sequences=A,
        n_steps=k,
    )
    final_result = result[-1]
    power = pytensor.function(inputs=[A, k], outputs=final_result, updates=updates)
    np.testing.assert_allclose(power(range(10), 2), np.arange(10.0) ** 2)
    np.testing.assert_allclose(power(range(10), 5), np.arange(10.0) ** 5)


def test_polynomial_from_coefficients():
    coefficients = pt.vector("coefficients")
    x = pt.scalar("x")
    max_coefficients_supported = 10000
    full_range = pt.arange(max_coefficients_supported)
    components, updates = pytensor.scan(
        fn=lambda coefficient, power, free_variable: coefficient * (free_variable**power),
        outputs_info=None,
        sequences=[coefficients, full_range],
        non_sequences=x,
    )
    polynomial = components.sum()
    calculate_polynomial = pytensor.function(inputs=[coefficients, x], outputs=polynomial)
    test_coefficients = np.asarray([1, 0, 2], dtype=np.float32)
    assert calculate_polynomial(test_coefficients, 3) == pytest.approx(19.0)


def test_tanh_map():
    X = pt.matrix("X")
    W = pt.matrix("W")
    b_sym = pt.vector("b_sym")
    results, updates = pytensor.scan(lambda v: pt.tanh(pt.dot(v, W) + b_sym), sequences=X)
    compute_elementwise = pytensor.function(inputs=[X, W, b_sym], outputs=results)
    rng = np.random.default_rng(0)
    x, w, b = rng.normal(size=(5, 3)), rng.normal(size=(3, 4)), rng.normal(size=4)
    np.testing.assert_allclose(compute_elementwise(x, w, b), np.tanh(x.dot(w) + b))


def test_recurrence_with_sequences_and_reversed_sequence():
    X, W, U, Y, V, P = (pt.matrix(n) for n in "XWUYVP")
    results, updates = pytensor.scan(
        lambda y, p, x_tm1: pt.tanh(pt.dot(x_tm1, W) + pt.dot(y, U) + pt.dot(p, V)),
        sequences=[Y, P[::-1]],
        outputs_info=[X],
    )
    compute_seq = pytensor.function(inputs=[X, W, Y, U, P, V], outputs=results)
    rng = np.random.default_rng(1)
    x = rng.normal(size=2)[None].repeat(1, 0)[0]
    x = np.zeros(2)
    x[1] = 1
    w, u, v = (rng.normal(size=(2, 2)) for _ in range(3))
    y, p = rng.normal(size=(5, 2)), rng.normal(size=(5, 2))
    X = pt.vector("X")
    results, _ = pytensor.scan(
        lambda y, p, x_tm1: pt.tanh(pt.dot(x_tm1, W) + pt.dot(y, U) + pt.dot(p, V)),
        sequences=[Y, P[::-1]],
        outputs_info=[X],
    )
    compute_seq = pytensor.function(inputs=[X, W, Y, U, P, V], outputs=results)
    expected = np.zeros((5, 2))
    expected[0] = np.tanh(x.dot(w) + y[0].dot(u) + p[4].dot(v))
    for i in range(1, 5):
        expected[i] = np.tanh(expected[i - 1].dot(w) + y[i].dot(u) + p[4 - i].dot(v))
    np.testing.assert_allclose(compute_seq(x, w, y, u, p, v), expected)


def test_recurrence_with_taps_minus_two_and_minus_one():
    X, W, U, V = (pt.matrix(n) for n in "XWUV")
    b_sym = pt.vector("b_sym")
    n_sym = pt.iscalar("n_sym")
    results, updates = pytensor.scan(
        lambda x_tm2, x_tm1: (
            pt.dot(x_tm2, U) + pt.dot(x_tm1, V) + pt.tanh(pt.dot(x_tm1, W) + b_sym)
        ),
        n_steps=n_sym,
        outputs_info=[{"initial": X, "taps": [-2, -1]}],
    )
    compute_seq2 = pytensor.function(inputs=[X, U, V, W, b_sym, n_sym], outputs=results)
    x = np.zeros((2, 2))
    x[1, 1] = 1
    w = 0.5 * np.ones((2, 2))
    u = 0.5 * (np.ones((2, 2)) - np.eye(2))
    v = 0.5 * np.ones((2, 2))
    n = 10
    b = np.ones(2)
    x_res = np.zeros((10, 2))
    x_res[0] = x[0].dot(u) + x[1].dot(v) + np.tanh(x[1].dot(w) + b)
    x_res[1] = x[1].dot(u) + x_res[0].dot(v) + np.tanh(x_res[0].dot(w) + b)
    for i in range(2, 10):
        x_res[i] = x_res[i - 2].dot(u) + x_res[i - 1].dot(v) + np.tanh(x_res[i - 1].dot(w) + b)
    np.testing.assert_allclose(compute_seq2(x, u, v, w, b, n), x_res)


def test_jacobian_rows_by_scan():
    v = pt.vector()
    A = pt.matrix()
    y = pt.tanh(pt.dot(v, A))
    results, updates = pytensor.scan(lambda i: pt.grad(y[i], v), sequences=[pt.arange(y.shape[0])])
    compute_jac_t = pytensor.function([A, v], results, allow_input_downcast=True)
    x = np.eye(5)[:, :4] * 0.7
    w = np.arange(5.0) / 5
    expected = ((1 - np.tanh(w.dot(x)) ** 2) * x).T
    np.testing.assert_allclose(compute_jac_t(x, w), expected)


def test_shared_counter_updated_inside_scan():
    k = pytensor.shared(0)
    n_sym = pt.iscalar("n_sym")
    results, updates = pytensor.scan(lambda: {k: (k + 1)}, n_steps=n_sym)
    accumulator = pytensor.function([n_sym], [], updates=updates, allow_input_downcast=True)
    assert k.get_value() == 0
    accumulator(5)
    assert k.get_value() == 5
    accumulator(2)
    assert k.get_value() == 7
    assert results is None


def test_trace():
    floatX = "float64"
    X = pt.matrix("X")
    results, updates = pytensor.scan(
        lambda i, j, t_f: pt.cast(X[i, j] + t_f, floatX),
        sequences=[pt.arange(X.shape[0]), pt.arange(X.shape[1])],
        outputs_info=np.asarray(0.0, dtype=floatX),
    )
    result = results[-1]
    compute_trace = pytensor.function(inputs=[X], outputs=result)
    x = np.arange(20.0).reshape(4, 5)
    assert compute_trace(x) == pytest.approx(np.trace(x))


def test_row_and_column_norms():
    X = pt.matrix("X")
    results, updates = pytensor.scan(lambda x_i: pt.sqrt((x_i**2).sum()), sequences=[X])
    compute_norm_lines = pytensor.function(inputs=[X], outputs=results)
    results, updates = pytensor.scan(lambda x_i: pt.sqrt((x_i**2).sum()), sequences=[X.T])
    compute_norm_cols = pytensor.function(inputs=[X], outputs=results)
    x = np.diag(np.arange(1, 6, dtype="float64"), 1)[:, :5]
    np.testing.assert_allclose(compute_norm_lines(x), np.sqrt((x**2).sum(1)))
    np.testing.assert_allclose(compute_norm_cols(x), np.sqrt((x**2).sum(0)))


def test_random_mask_fixed_across_steps():
    X = pt.matrix("X")
    W = pt.matrix("W")
    b_sym = pt.vector("b_sym")
    trng = RandomStream(1234)
    d = trng.binomial(1, 0.5, size=W.shape)
    results, updates = pytensor.scan(lambda v: pt.tanh(pt.dot(v, W) + b_sym) * d, sequences=X)
    compute_with_bnoise = pytensor.function(
        inputs=[X, W, b_sym], outputs=[results, d], updates=updates, allow_input_downcast=True
    )
    x, w, b = np.ones((6, 8)), np.eye(8), np.zeros(8)
    out, mask = compute_with_bnoise(x, w, b)
    # the same (8, 8) mask at every step
    np.testing.assert_allclose(out, np.tanh(x @ w + b)[:, None, :] * mask[None])
    out2, mask2 = compute_with_bnoise(x, w, b)
    assert not np.array_equal(mask, mask2)  # the outer default update advances between calls


def test_random_draws_inside_the_step_are_fresh_each_step():
    trng = RandomStream(1234)
    W = pt.matrix("W")
    results, updates = pytensor.scan(lambda v: v * trng.binomial(1, 0.5, size=v.shape), sequences=W)
    assert len(updates) == 1
    f = pytensor.function([W], results, updates=updates)
    out = f(np.ones((6, 40)))
    assert set(np.unique(out)) <= {0.0, 1.0}
    assert len({tuple(r) for r in out}) == 6  # different masks at each step
    assert not np.array_equal(out, f(np.ones((6, 40))))  # and a new sequence at the next call


def test_gibbs_sampling_with_shared_weights():
    rng = np.random.default_rng(2)
    W_values = rng.uniform(-0.5, 0.5, size=(5, 4))
    W = pytensor.shared(W_values)
    bvis = pytensor.shared(np.zeros(5))
    bhid = pytensor.shared(np.zeros(4))
    trng = RandomStream(1234)

    def OneStep(vsample):
        hmean = pt.sigmoid(pt.dot(vsample, W) + bhid)
        hsample = trng.binomial(size=hmean.shape, n=1, p=hmean)
        vmean = pt.sigmoid(pt.dot(hsample, W.T) + bvis)
        return trng.binomial(size=vsample.shape, n=1, p=vmean, dtype=pytensor.config.floatX)

    sample = pt.vector()
    values, updates = pytensor.scan(OneStep, outputs_info=sample, n_steps=10)
    gibbs10 = pytensor.function([sample], values[-1], updates=updates)
    out = gibbs10(np.ones(5))
    assert out.shape == (5,) and set(np.unique(out)) <= {0.0, 1.0}
    assert len(updates) == 2


def test_until_stops_the_loop():
    def power_of_2(previous_power, max_value):
        return previous_power * 2, until(previous_power * 2 > max_value)

    max_value = pt.scalar()
    values, _ = pytensor.scan(
        power_of_2, outputs_info=pt.constant(1.0), non_sequences=max_value, n_steps=1024
    )
    f = pytensor.function([max_value], values)
    np.testing.assert_allclose(f(45), [2.0, 4.0, 8.0, 16.0, 32.0, 64.0])


def test_gradient_through_scan():
    k = pt.iscalar("k")
    A = pt.vector("A")
    result, _ = pytensor.scan(
        fn=lambda prior_result, A: prior_result * A,
        outputs_info=pt.ones_like(A),
        non_sequences=A,
        n_steps=k,
    )
    cost = result[-1].sum()
    f = pytensor.function([A, k], pytensor.grad(cost, A))
    a = np.array([0.5, -1.5, 2.0])
    np.testing.assert_allclose(f(a, 4), 4 * a**3)


def test_map_and_go_backwards():
    x = pt.vector("x")
    squares, _ = pytensor.map(lambda v: v**2, sequences=x)
    backwards, _ = pytensor.scan(
        lambda v, acc: acc * 10 + v, sequences=x, outputs_info=pt.constant(0.0), go_backwards=True
    )
    f = pytensor.function([x], [squares, backwards])
    sq, back = f(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(sq, [1.0, 4.0, 9.0])
    np.testing.assert_allclose(back, [3.0, 32.0, 321.0])


def test_reduce_foldl_foldr():
    x = pt.vector("x")
    total, _ = pytensor.reduce(lambda v, acc: acc + v, sequences=x, outputs_info=pt.constant(0.0))
    left, _ = pytensor.foldl(
        lambda v, acc: acc * 10 + v, sequences=x, outputs_info=pt.constant(0.0)
    )
    right, _ = pytensor.foldr(
        lambda v, acc: acc * 10 + v, sequences=x, outputs_info=pt.constant(0.0)
    )
    f = pytensor.function([x], [total, left, right])
    np.testing.assert_allclose(f(np.array([1.0, 2.0, 3.0])), [6.0, 123.0, 321.0])
