"""Shrunk failures of the path fuzzing (``test_fuzz_paths.py``), kept as regression tests.

Each graph is printed by the fuzzing as it appears here; ``check_graph`` compares every path
with the VM without rewrites.
"""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from tests.reliability import fuzz_paths
from tests.reliability.fuzz_paths import HAVE_JAX, Graph, Piece, check_graph

pytest.importorskip("numba")


def test_numba_constants_that_are_infinite():
    # The kernel's source spelled the constant +inf as ``np.float64(inf)`` (NumPy 2's repr),
    # and ``inf`` is not a name there: a TypingError on every call.
    graph = Graph((Piece(entry="nan_to_num", sample=0, feed=0, finish="id"),))
    outcome = check_graph(graph, paths=("no_rewrites", "NUMBA"))
    assert not outcome.mismatches, outcome.describe()


def test_numba_float16_values_run_on_the_vm():
    # numba types float16 but cannot compile it ("NotImplementedError: float16").
    x = pt.tensor("float16", shape=(None,))
    f = arignote.function([x], pt.logsumexp(x), mode="NUMBA")
    value = np.array([0.5, 1.0, 2.0], dtype="float16")
    expected = np.log(np.exp(value.astype("float64")).sum())
    assert f(value).dtype == np.float16
    np.testing.assert_allclose(f(value), expected, rtol=1e-3)


@pytest.mark.skipif(not HAVE_JAX, reason="jax is not installed")
def test_jax_argmax_with_an_empty_kept_axis():
    # reshape((0, -1)) cannot infer -1 in JAX: ZeroDivisionError ("integer modulo by zero").
    x = pt.dmatrix("x")
    f = arignote.function([x], pt.argmax(x, axis=-1), mode="JAX")
    result = np.asarray(f(np.zeros((0, 5))))
    assert result.shape == (0,) and result.dtype == np.int64


def test_debugmode_on_uninitialized_values():
    # DebugMode compared AllocEmpty's uninitialized output between its perform runs
    # (preallocated output cells, reference vs compiled run): BadThunkOutput on any pt.empty
    x = pt.lscalar("x")
    f = arignote.function([x], pt.empty((x, 3, 4), dtype="int32") * 0, mode="DebugMode")
    for n in range(1, 4):
        assert f(n).shape == (n, 3, 4)
        np.testing.assert_array_equal(f(n), 0)
    y = pt.empty((x, 2), dtype="float64")
    g = arignote.function([x], [y, (y + 1.0).sum(axis=0)], mode="DebugMode")
    values, sums = g(3)
    np.testing.assert_allclose(sums, (values + 1.0).sum(axis=0))
    graph = Graph((Piece(entry="empty", sample=0, feed=0, finish="tanh"),))
    outcome = check_graph(graph, paths=("no_rewrites", "DebugMode", "FAST_RUN"))
    assert not outcome.mismatches, outcome.describe()


def test_debugmode_still_checks_the_nodes_after_uninitialized_values():
    # the nodes computing from np.empty's values are checked on the compiled run's values
    from arignote.compile.debugmode import BadThunkOutput, DebugMode
    from arignote.graph.basic import Apply
    from arignote.graph.op import Op

    class WrongPerform(Op):
        __props__ = ()

        def make_node(self, x):
            return Apply(self, [x], [x.type()])

        def perform(self, node, inputs, output_storage):
            # a different value when the output cell is preallocated: a bug DebugMode must see
            filler = 7.0 if output_storage[0][0] is None else 8.0
            output_storage[0][0] = np.full_like(inputs[0], filler)

    x = pt.lscalar("x")
    f = arignote.function(
        [x], WrongPerform()(pt.empty((x,), dtype="float64")), mode=DebugMode(check_rewrites=False)
    )
    with pytest.raises(BadThunkOutput, match="WrongPerform"):
        f(3)


def test_float32_results_are_compared_in_single_precision():
    # a complex64 sample makes float32 results: the harness compared them at 1e-7
    graph = Graph(
        (
            Piece(entry="angle", sample=1, feed=2, finish="tanh"),
            Piece(entry="norm", sample=3, feed=1, finish="sum0"),
        )
    )
    outcome = check_graph(graph, paths=("no_rewrites", "FAST_RUN") + (("JAX",) if HAVE_JAX else ()))
    assert not outcome.mismatches, outcome.describe()


@pytest.mark.skipif(not HAVE_JAX, reason="jax is not installed")
def test_jax_hyp2f1_outside_the_unit_disc_is_refused():
    # JAX's hyp2f1 (jax.scipy.special) gave 1.6e21 instead of 0.699 here (no transformation of
    # z outside the unit disc): the JAX backend lists hyp2f1 as unsupported, with the reason
    graph = Graph(
        (
            Piece(entry="broadcast_arrays", sample=2, feed=2, finish="id"),
            Piece(entry="hyp2f1", sample=1, feed=0, finish="id"),
        )
    )
    outcome = check_graph(graph, paths=("no_rewrites", "JAX"))
    assert not outcome.mismatches, outcome.describe()
    assert outcome.unsupported == ["JAX"]
    z = pt.dvector("z")
    with pytest.raises(Exception, match="hyp2f1 sums the series") as info:
        arignote.function([z], pt.hyp2f1(0.5, 1.5, 2.5, z), mode="JAX")
    assert type(info.value).__name__ == "UnsupportedOpError"


@pytest.mark.skipif(not HAVE_JAX, reason="jax is not installed")
def test_jax_set_subtensor_with_no_write():
    # fill_diagonal_offset past the corner writes nothing: JAX gathered the value of the
    # winning write from an empty array ("Slice size ... out of range")
    for sample in range(4):
        graph = Graph((Piece(entry="fill_diagonal_offset", sample=sample, feed=0, finish="T"),))
        outcome = check_graph(graph, paths=("no_rewrites", "JAX"))
        assert not outcome.mismatches and not outcome.unsupported, outcome.describe()
    x, rows = pt.dmatrix("x"), pt.lvector("rows")
    f = arignote.function([x, rows], pt.set_subtensor(x[rows, rows], 5.0), mode="JAX")
    value = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(f(value, np.zeros(0, dtype="int64")), value)
    expected = value.copy()
    expected[[2, 0], [2, 0]] = 5.0
    np.testing.assert_array_equal(f(value, np.array([2, 0])), expected)


def test_a_vetoed_inplace_rewrite_is_not_retried_forever():
    # graph 625 of the seed-14 run: cond_make_inplace on an IfElse whose output the fused
    # switch overwrites in place; the destroy handler refused it, undoing the change queued the
    # node again, and FAST_RUN compiled forever
    graph = Graph((Piece(entry="ifelse", sample=2, feed=-1, finish="where"),))
    outcome = check_graph(graph, paths=("no_rewrites", "FAST_RUN", "vm", "DebugMode"))
    assert not outcome.mismatches, outcome.describe()
    c, a, b = pt.lscalar("c"), pt.dvector("a"), pt.dvector("b")
    chosen = arignote.ifelse(c, a, b)
    f = arignote.function([c, a, b], pt.switch(chosen > 0, chosen, -chosen), mode="FAST_RUN")
    value = np.array([-1.0, 2.0])
    np.testing.assert_array_equal(f(1, value, np.ones(5)), [1.0, 2.0])
    np.testing.assert_array_equal(value, [-1.0, 2.0])


def test_debugmode_on_uninitialized_values_overwritten_in_place():
    # graph 8269 of the seed-14 run: a fused in-place elementwise op overwrote empty_like's
    # values in the compiled run, so the reference (computed after it) started from other values
    graph = Graph(
        (
            Piece(entry="scan[rnn]", sample=1, feed=-1, finish="sum0"),
            Piece(entry="empty_like", sample=3, feed=2, finish="tanh"),
            Piece(entry="i0", sample=3, feed=0, finish="gram"),
        )
    )
    outcome = check_graph(graph, paths=("no_rewrites", "DebugMode"))
    assert not outcome.mismatches, outcome.describe()


@pytest.mark.skipif(not HAVE_JAX, reason="jax is not installed")
def test_jax_beta_on_negative_arguments_poles_and_infinities():
    # the path fuzzing fed beta a negative value: jax.scipy.special.beta gave NaN there (and
    # 340.4447 for 340.4468 at (10, -3.5)); the JAX backend now follows SciPy's Cephes beta
    scipy_special = pytest.importorskip("scipy.special")
    grid = np.array([-np.inf, -7, -3.5, -3, -2, -1.5, -1, -0.5, 0, 0.1, 0.5, 1, 2, 2.5, 3, 10])
    grid = np.concatenate([grid, [171.5, 500, 1e5, np.inf, np.nan]])
    a, b = (v.ravel() for v in np.meshgrid(grid, grid))
    x, y = pt.dvector("x"), pt.dvector("y")
    got = np.asarray(arignote.function([x, y], pt.beta(x, y), mode="JAX")(a, b))
    expected = scipy_special.beta(a, b)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-300, equal_nan=True)
    infinite = np.isinf(expected)
    np.testing.assert_array_equal(np.sign(got[infinite]), np.sign(expected[infinite]))


@pytest.mark.skipif(not HAVE_JAX, reason="jax is not installed")
def test_jax_draws_where_the_reference_refuses_a_parameter_is_its_documented_limit():
    # the seed-14 JAX run: triangular with mode > right and t with scale <= 0 raise ValueError
    # on the VM, and JAX, whose compiled samplers cannot raise on values, returns numbers
    x = pt.dvector("x")
    value = np.array([2.0, -0.5])
    draws = (
        lambda rng: pt.random.triangular(0.0, x, 1.0, rng=rng),
        lambda rng: pt.random.t(3.0, 0.0, x, rng=rng),
    )
    for draw in draws:  # (a generator of its own per function: JAX converts a shared one)
        built = fuzz_paths.Built([x], [value], [draw(arignote.shared(np.random.default_rng(3)))])
        expected = fuzz_paths._run(built, fuzz_paths.REFERENCE)
        assert isinstance(expected, ValueError)
        built = fuzz_paths.Built([x], [value], [draw(arignote.shared(np.random.default_rng(3)))])
        got = fuzz_paths._run(built, "JAX")
        assert not isinstance(got, BaseException)
        assert fuzz_paths._compare("JAX", got, expected, built) == []
        # only JAX, and only for a random variable's own error
        assert fuzz_paths._compare("NUMBA", got, expected, built)
    other = ValueError("not a draw")
    other.__arignote_node__ = pt.exp(x).owner
    assert fuzz_paths._compare("JAX", [value], other, built)


@pytest.mark.parametrize("mode", ["FAST_RUN", "NUMBA"])
def test_invgamma_of_a_subnormal_shape_is_infinite(mode):
    # Fuzzed graph 2191 (seed 14) drew invgamma with the absolute value of uninitialized
    # memory as its shape: a subnormal shape makes the gamma draw 0, and NUMBA's kernel
    # raised ZeroDivisionError on 1 / 0 where NumPy gives inf.
    shape, scale = pt.dvector("shape"), pt.dvector("scale")
    rng = arignote.shared(np.random.default_rng(3))
    f = arignote.function([shape, scale], pt.random.invgamma(shape, scale, rng=rng), mode=mode)
    shapes = np.array([1e-320] * 20 + [2.0])  # some subnormal shapes draw an exact 0
    for _ in range(3):  # (NUMBA's first calls may run on the VM while it compiles)
        draws = f(shapes, np.ones(21))
        assert np.all(draws[:20] == np.inf) and 0 < draws[20] < np.inf


@pytest.mark.parametrize("mode", ["FAST_RUN", "NUMBA", "JAX"])
def test_alloc_refuses_runtime_broadcasting_on_every_backend(mode):
    # A derandomized draw of the harness (alloc of a value whose shape is known only when the
    # function runs): NUMBA and JAX stretched a length-1 dimension the type does not declare
    # broadcastable, where the VM (and PyTensor) refuse.
    if mode == "JAX" and not HAVE_JAX:
        pytest.skip("jax is not installed")
    value = pt.dmatrix("value")
    fn = arignote.function([value], pt.alloc(value, 2, 3, 4), mode=mode)
    for _ in range(3):  # (NUMBA's first calls may run on the VM while it compiles)
        np.testing.assert_array_equal(fn(np.ones((3, 4))), np.ones((2, 3, 4)))
        with pytest.raises(ValueError, match="broadcastable"):
            fn(np.ones((1, 4)))
    row = pt.tensor("row", shape=(1, None), dtype="float64")  # declared: it stretches
    stretched = arignote.function([row], pt.alloc(row, 2, 3, 4), mode=mode)
    np.testing.assert_array_equal(stretched(np.ones((1, 4))), np.ones((2, 3, 4)))
