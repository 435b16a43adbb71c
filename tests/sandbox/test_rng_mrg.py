"""MRG_RandomStreams: the generator's jumps, reproducibility, default updates, moments and
goodness of fit of every distribution (fixed seeds: each statistic is computed once, so these
tests are deterministic, and their thresholds are loose enough for any sound generator)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.stats as st

import arignote
import arignote.tensor as pt
from arignote.sandbox import mrg31k3p
from arignote.sandbox.rng_mrg import MRG_RandomStreams, guess_n_streams


def _draw(*outputs):
    return arignote.function([], list(outputs))()


def test_jump_matrices_equal_repeated_steps():
    state = np.array([[12345, 23456, 34567, 45678, 56789, 67890]], dtype=np.int64)
    stepped = state.copy()
    for _ in range(8):
        mrg31k3p._step(stepped)
    jump = (
        mrg31k3p._power_of_two(mrg31k3p.TRANSITION1, 3, mrg31k3p.M1),
        mrg31k3p._power_of_two(mrg31k3p.TRANSITION2, 3, mrg31k3p.M2),
    )
    np.testing.assert_array_equal(mrg31k3p._apply(jump, state), stepped)


def test_streams_are_successive_jumps():
    states = mrg31k3p.stream_states(np.full(6, 7), 5).astype(np.int64)
    for a, b in itertools.pairwise(states):
        np.testing.assert_array_equal(mrg31k3p._apply(mrg31k3p.JUMP_STREAM, a[None])[0], b)


def test_reproducible_per_seed_and_new_numbers_each_call():
    first = MRG_RandomStreams(42).uniform((3, 4))
    again = MRG_RandomStreams(42).uniform((3, 4))
    other = MRG_RandomStreams(43).uniform((3, 4))
    fn = arignote.function([], first)
    a, b = fn(), fn()
    assert not np.allclose(a, b)  # the default update advanced the state
    np.testing.assert_array_equal(a, _draw(again)[0])
    assert not np.allclose(a, _draw(other)[0])


def test_seed_resets_the_states():
    srng = MRG_RandomStreams(5)
    u = srng.uniform((4,))
    fn = arignote.function([], u)
    before = fn()
    fn()
    srng.seed()
    np.testing.assert_array_equal(fn(), before)
    assert len(srng.updates()) == 1


def test_two_draws_of_one_stream_differ():
    srng = MRG_RandomStreams(9)
    a, b = _draw(srng.uniform((50,)), srng.uniform((50,)))
    assert not np.allclose(a, b)


def test_symbolic_size_and_float32_range():
    srng = MRG_RandomStreams(3)
    x = pt.fmatrix("x")
    u = srng.uniform(size=x.shape, dtype="float32")
    assert u.type.dtype == "float32" and u.type.ndim == 2
    out = arignote.function([x], u)(np.zeros((40, 50), dtype="float32"))
    assert out.shape == (40, 50) and out.min() > 0 and out.max() < 1
    assert guess_n_streams((4, 30)) == 20 and guess_n_streams((10**6,)) == 60 * 256


def test_uniform_moments_and_fit():
    (u,) = _draw(MRG_RandomStreams(1).uniform((20000,), low=-1.0, high=3.0))
    assert abs(u.mean() - 1.0) < 0.03 and abs(u.var() - 16 / 12) < 0.04
    assert st.kstest(u, st.uniform(-1, 4).cdf).pvalue > 1e-3


def test_normal_moments_and_fit():
    (z,) = _draw(MRG_RandomStreams(2).normal((101, 99), avg=1.5, std=2.0))
    assert z.shape == (101, 99)
    assert abs(z.mean() - 1.5) < 0.06 and abs(z.std() - 2.0) < 0.05
    assert st.kstest(z.ravel(), st.norm(1.5, 2.0).cdf).pvalue > 1e-3


def test_truncated_normal_fit():
    (z,) = _draw(MRG_RandomStreams(4).truncated_normal((20000,), avg=0.5, std=1.0))
    scale = 1.0 / 0.87962566103423978
    assert np.all(np.abs(z - 0.5) <= 2 * scale)
    assert abs(z.std() - 1.0) < 0.02
    assert st.kstest(z, st.truncnorm(-2, 2, loc=0.5, scale=scale).cdf).pvalue > 1e-3


def test_binomial_frequencies():
    srng = MRG_RandomStreams(6)
    one, five = _draw(srng.binomial(size=(20000,), p=0.3), srng.binomial(size=(20000,), n=5, p=0.3))
    assert one.dtype == np.int64 and abs(one.mean() - 0.3) < 0.015
    counts = np.bincount(five, minlength=6)
    assert st.chisquare(counts, 20000 * st.binom(5, 0.3).pmf(np.arange(6))).pvalue > 1e-3


def test_binomial_with_probability_matrix_takes_its_shape():
    p = pt.dmatrix("p")
    b = MRG_RandomStreams(8).binomial(p=p, dtype="float64")
    out = arignote.function([p], b)(np.tile([0.0, 1.0, 0.5], (4, 1)))
    np.testing.assert_array_equal(out[:, :2], np.tile([0.0, 1.0], (4, 1)))


def test_multinomial_frequencies():
    pvals = np.tile([0.2, 0.5, 0.3], (3000, 1))
    (counts,) = _draw(MRG_RandomStreams(7).multinomial(pvals=pvals, n=4))
    assert counts.shape == (3000, 3) and np.all(counts.sum(axis=1) == 4)
    assert st.chisquare(counts.sum(axis=0), 12000 * pvals[0]).pvalue > 1e-3


def test_choice_with_and_without_replacement():
    p = np.tile([0.1, 0.2, 0.3, 0.4], (4000, 1))
    srng = MRG_RandomStreams(10)
    with_rep, without = _draw(srng.choice(size=3, p=p), srng.choice(size=2, replace=False, p=p))
    assert with_rep.shape == (4000, 3) and without.shape == (4000, 2)
    assert st.chisquare(np.bincount(with_rep.ravel(), minlength=4), 12000 * p[0]).pvalue > 1e-3
    assert np.all(without[:, 0] != without[:, 1])
    # first pick ~ p; second pick of i after j: p_i / (1 - p_j), summed over j
    second = [sum(p[0, j] * p[0, i] / (1 - p[0, j]) for j in range(4) if j != i) for i in range(4)]
    assert st.chisquare(np.bincount(without[:, 0], minlength=4), 4000 * p[0]).pvalue > 1e-3
    assert (
        st.chisquare(np.bincount(without[:, 1], minlength=4), 4000 * np.array(second)).pvalue > 1e-3
    )


def test_bad_seeds_and_arguments_are_refused():
    with pytest.raises(ValueError, match="seed"):
        MRG_RandomStreams(0)
    with pytest.raises(ValueError, match="non-zero"):
        MRG_RandomStreams([0, 0, 0, 1, 1, 1])
    with pytest.raises(TypeError, match="size"):
        MRG_RandomStreams(1).uniform(None)
    with pytest.raises(TypeError, match="matrix"):
        MRG_RandomStreams(1).multinomial(pvals=np.ones(3) / 3)
