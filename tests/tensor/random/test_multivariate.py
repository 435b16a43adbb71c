"""Vector distributions, categorical draws and choice/permutation against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
import arignote.tensor.random as ptr
from arignote.tensor.random.op import RandomVariable
from arignote.tensor.random.type import random_generator_type

SEED = 99


def gen():
    return np.random.default_rng(SEED)


def spd(rng, k):
    factor = rng.normal(size=(k, k))
    return factor @ factor.T + k * np.eye(k)


def run(draw, *inputs_and_values):
    """Compile ``draw`` with a generator input and evaluate it on a fresh SEED generator."""
    rng = draw.owner.inputs[0]
    inputs = [rng, *inputs_and_values[::2]]
    return arignote.function(list(inputs), draw)(gen(), *inputs_and_values[1::2])


def test_multivariate_normal_matches_numpy(rng):
    mean, cov = rng.normal(size=3), spd(rng, 3)
    r = random_generator_type("rng")
    assert np.array_equal(
        run(ptr.multivariate_normal(mean, cov, size=(2, 4), rng=r)),
        gen().multivariate_normal(mean, cov, size=(2, 4)),
    )
    m, c = pt.dvector("m"), pt.dmatrix("c")
    draw = ptr.multivariate_normal(m, c, rng=r)
    assert draw.type.shape == (None,)
    np.testing.assert_array_equal(run(draw, m, mean, c, cov), gen().multivariate_normal(mean, cov))


@pytest.mark.parametrize("method", ["cholesky", "eigh"])
def test_multivariate_normal_method_changes_numbers_as_numpy(method, rng):
    mean, cov = rng.normal(size=4), spd(rng, 4)
    draw = ptr.multivariate_normal(mean, cov, size=3, method=method, rng=gen())
    assert draw.owner.op.method == method
    np.testing.assert_array_equal(
        draw.eval(), gen().multivariate_normal(mean, cov, size=3, method=method)
    )


def test_multivariate_normal_batched_parameters_draw_in_C_order(rng):
    means = rng.normal(size=(2, 3))
    covs = np.stack([spd(rng, 3) for _ in range(3)])[:, None]  # (3, 1, 3, 3)
    draw = ptr.multivariate_normal(means, covs, rng=gen())
    assert draw.type.shape == (3, 2, 3)
    reference = gen()
    expected = np.empty((3, 2, 3))
    for i in range(3):
        for j in range(2):
            expected[i, j] = reference.multivariate_normal(means[j], covs[i, 0])
    np.testing.assert_array_equal(draw.eval(), expected)
    sized = ptr.multivariate_normal(means, covs[0, 0], size=(4, 2), rng=gen())
    reference = gen()
    expected = [
        [reference.multivariate_normal(means[j], covs[0, 0]) for j in range(2)] for _ in range(4)
    ]
    np.testing.assert_array_equal(sized.eval(), np.array(expected))


def test_multivariate_normal_check_valid_raise():
    bad_cov = np.array([[1.0, 2.0], [2.0, 1.0]])
    f = arignote.function(
        [], ptr.multivariate_normal(np.zeros(2), bad_cov, check_valid="raise", rng=gen())
    )
    with pytest.raises(ValueError, match="positive-semidefinite"):
        f()
    with pytest.raises(ValueError, match="check_valid"):
        ptr.multivariate_normal(np.zeros(2), np.eye(2), check_valid="maybe")


def test_dirichlet_matches_numpy(rng):
    alpha = rng.uniform(0.5, 3, size=4)
    np.testing.assert_array_equal(
        ptr.dirichlet(alpha, size=(2, 3), rng=gen()).eval(), gen().dirichlet(alpha, size=(2, 3))
    )
    batch = rng.uniform(0.5, 3, size=(3, 4))
    reference = gen()
    expected = np.stack([reference.dirichlet(a) for a in batch])
    np.testing.assert_array_equal(ptr.dirichlet(batch, rng=gen()).eval(), expected)


def test_multinomial_matches_numpy_with_batched_parameters(rng):
    n = rng.integers(5, 50, size=(2, 1))
    pvals = rng.dirichlet(np.ones(5), size=3)
    draw = ptr.multinomial(n, pvals, rng=gen())
    assert draw.type.shape == (2, 3, 5) and draw.type.dtype == "int64"
    np.testing.assert_array_equal(draw.eval(), gen().multinomial(n, pvals))
    sized = ptr.multinomial(10, pvals[0], size=(4, 3), rng=gen())
    np.testing.assert_array_equal(sized.eval(), gen().multinomial(10, pvals[0], size=(4, 3)))


def test_multivariate_hypergeometric_matches_numpy(rng):
    colors = np.array([4, 7, 2, 5])
    for method in ("marginals", "count"):
        draw = ptr.multivariate_hypergeometric(colors, 6, size=3, method=method, rng=gen())
        expected = gen().multivariate_hypergeometric(colors, 6, size=3, method=method)
        np.testing.assert_array_equal(draw.eval(), expected)
    nsample = np.array([2, 5])
    reference = gen()
    expected = np.stack([reference.multivariate_hypergeometric(colors, n) for n in nsample])
    draw = ptr.multivariate_hypergeometric(colors, nsample, rng=gen())
    np.testing.assert_array_equal(draw.eval(), expected)


# -- categorical ----------------------------------------------------------------------------------


def test_categorical_is_numpys_choice_over_probabilities(rng):
    p = rng.dirichlet(np.ones(6))
    draw = ptr.categorical(p, size=(3, 4), rng=gen())
    assert draw.type.dtype == "int64"
    np.testing.assert_array_equal(draw.eval(), gen().choice(6, size=(3, 4), p=p))


def test_categorical_batched_rows_follow_the_same_rule(rng):
    p = rng.dirichlet(np.ones(5))
    # a batch of identical rows gives exactly choice's numbers ...
    same = ptr.categorical(np.tile(p, (7, 1)), rng=gen()).eval()
    np.testing.assert_array_equal(same, gen().choice(5, size=7, p=p))
    # ... and different rows use one uniform each, in C order
    rows = rng.dirichlet(np.ones(5), size=(2, 3))
    got = ptr.categorical(rows, rng=gen()).eval()
    uniforms = gen().random((2, 3))
    expected = [
        [np.searchsorted(np.cumsum(rows[i, j]) / rows[i, j].sum(), uniforms[i, j], "right")]
        for i in range(2)
        for j in range(3)
    ]
    np.testing.assert_array_equal(got, np.reshape(expected, (2, 3)))
    sized = ptr.categorical(rows[0], size=(4, 3), rng=gen()).eval()
    assert sized.shape == (4, 3) and sized.max() < 5


@pytest.mark.parametrize(
    ("p", "match"),
    [
        (np.array([[0.5, 0.6], [0.5, 0.5]]), "do not sum to 1"),
        (np.array([[1.5, -0.5], [0.5, 0.5]]), "not non-negative"),
        (np.array([[np.nan, 0.5], [0.5, 0.5]]), "contain NaN"),
    ],
)
def test_categorical_bad_probabilities(p, match):
    f = arignote.function([], ptr.categorical(p, rng=gen()))
    with pytest.raises(ValueError, match=match):
        f()


# -- choice, permutation, permuted ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "kwargs"),
    [
        (7, {"size": (2, 3)}),
        (np.arange(10.0) * 1.5, {"size": 4}),
        (np.arange(10.0), {"size": (2, 2), "replace": False}),
        (np.arange(10.0), {"size": 5, "replace": False, "shuffle": False}),
        (np.arange(5), {"size": 6, "p": np.array([0.1, 0.2, 0.3, 0.2, 0.2])}),
        (np.arange(5), {"size": 3, "replace": False, "p": np.array([0.1, 0.2, 0.3, 0.2, 0.2])}),
        (np.arange(24).reshape(4, 6), {"size": (2, 3)}),
        (np.arange(24).reshape(4, 6), {"size": (3,), "axis": 1}),
        (np.arange(24).reshape(4, 6), {"size": (2, 5), "axis": -1}),
        (np.arange(24).reshape(4, 6), {}),
        (9, {}),
    ],
)
def test_choice_matches_numpy(a, kwargs):
    draw = ptr.choice(a, rng=gen(), **kwargs)
    expected = np.asarray(gen().choice(a, **kwargs))
    assert draw.type.shape == expected.shape and draw.type.dtype == expected.dtype
    np.testing.assert_array_equal(draw.eval(), expected)


def test_choice_symbolic_items_and_probabilities(rng):
    a, p = pt.dvector("a"), pt.dvector("p")
    draw = ptr.choice(a, size=(2, 3), p=p, rng=random_generator_type("rng"))
    values, probabilities = rng.normal(size=8), rng.dirichlet(np.ones(8))
    got = run(draw, a, values, p, probabilities)
    np.testing.assert_array_equal(got, gen().choice(values, size=(2, 3), p=probabilities))
    shape_fn = arignote.function([a, p], ptr.choice(a, size=(2, 3), p=p, rng=gen()).shape)
    assert not any(isinstance(n.op, RandomVariable) for n in shape_fn.maker.fgraph.toposort())


@pytest.mark.parametrize(
    ("a", "kwargs", "error", "match"),
    [
        (5, {"size": 6, "replace": False}, ValueError, "larger sample"),
        (np.arange(4.0), {"p": np.ones(3) / 3}, ValueError, "same size"),
        (np.arange(4.0), {"p": np.ones((2, 2))}, ValueError, "p must be a vector"),
        (2.5, {}, TypeError, "must be an integer"),
        (np.arange(4.0), {"axis": 1}, ValueError, "axis 1 is out of range"),
    ],
)
def test_choice_errors_at_build_time(a, kwargs, error, match):
    with pytest.raises(error, match=match):
        ptr.choice(a, rng=gen(), **kwargs)


def test_choice_without_replacement_too_large_at_run_time():
    n = pt.lscalar("n")
    f = arignote.function([n], ptr.choice(n, size=5, replace=False, rng=gen()))
    np.testing.assert_array_equal(f(9), gen().choice(9, size=5, replace=False))
    with pytest.raises(ValueError, match="larger sample"):
        f(3)


@pytest.mark.parametrize(
    ("x", "kwargs"),
    [
        (8, {}),
        (np.arange(12.0).reshape(3, 4), {}),
        (np.arange(12).reshape(3, 4), {"axis": 1}),
        (np.arange(24).reshape(2, 3, 4), {"axis": -1}),
    ],
)
def test_permutation_matches_numpy(x, kwargs):
    draw = ptr.permutation(x, rng=gen(), **kwargs)
    expected = gen().permutation(x, **kwargs)
    assert draw.type.shape == expected.shape and draw.type.dtype == expected.dtype
    np.testing.assert_array_equal(draw.eval(), expected)


def test_permutation_of_a_symbolic_integer_has_that_length():
    n = pt.lscalar("n")
    draw = ptr.permutation(n, rng=gen())
    assert draw.type.shape == (None,)
    np.testing.assert_array_equal(arignote.function([n], draw)(6), gen().permutation(6))
    shape_fn = arignote.function([n], draw.shape)
    assert not any(isinstance(node.op, RandomVariable) for node in shape_fn.maker.fgraph.toposort())
    np.testing.assert_array_equal(shape_fn(11), [11])


def test_permutation_errors():
    with pytest.raises(TypeError, match="takes no size"):
        ptr.PermutationRV(ndims_params=(0,), ndim_supp=1).make_node(gen(), (3,), 5)
    with pytest.raises(TypeError, match="must be an integer"):
        ptr.permutation(2.5, rng=gen())
    with pytest.raises(ValueError, match="out of range"):
        ptr.permutation(np.zeros((2, 3)), axis=2, rng=gen())


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_permuted_matches_numpy(axis):
    x = np.arange(20).reshape(4, 5)
    np.testing.assert_array_equal(
        ptr.permuted(x, axis=axis, rng=gen()).eval(), gen().permuted(x, axis=axis)
    )


def test_permuted_needs_an_array():
    with pytest.raises(ValueError, match="ndim >= 1"):
        ptr.permuted(3, rng=gen())
