"""The native batch loop of ``Blockwise`` against ``Blockwise.perform`` (the Python VM):
values and dtypes on seeded non-square stacks with broadcast batch dimensions, several
outputs, 0-d core blocks, empty batches, the errors of mismatched batches, inputs left
unchanged and outputs never aliasing them; a core op without a native kernel falls back
under its own registry key."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.compile.mode import Mode
from arignote.graph.basic import Apply
from arignote.graph.op import Op
from arignote.tensor import linalg as la
from arignote.tensor.blockwise import Blockwise
from arignote.tensor.index_spec import INT, SliceSpec
from arignote.tensor.products import Dot
from arignote.tensor.subtensor import Subtensor

numba_backend = pytest.importorskip("arignote.link.numba")


def _pair(inputs, outputs):
    """The NUMBA function (every node native) and the Python VM's."""
    native = arignote.function(inputs, outputs, mode="NUMBA")
    assert native.runner.fallbacks == {}, numba_backend.native_report(native.runner)
    blockwise = [n for n in native.runner.fgraph.toposort() if isinstance(n.op, Blockwise)]
    assert blockwise, "the rewrites removed the Blockwise under test"
    return native, arignote.function(inputs, outputs, mode=Mode(linker="py"))


def check_same_results(native, python, values, rtol=1e-12):
    """Equal values, dtypes and shapes; the inputs unchanged and never aliased."""
    copies = [v.copy() for v in values]
    got, expected = native(*values), python(*values)
    got = got if isinstance(got, list) else [got]
    expected = expected if isinstance(expected, list) else [expected]
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape, (g.dtype, e.dtype, g.shape, e.shape)
        np.testing.assert_allclose(g, e, rtol=rtol, atol=rtol)
        assert not any(np.shares_memory(g, v) for v in values)
    for v, c in zip(values, copies):
        np.testing.assert_array_equal(v, c)
    return got


def _matvec(a, v):
    return Blockwise(Dot(), "(m,k),(k)->(m)")(a, v)


def _inner(u, w):
    return Blockwise(Dot(), "(k),(k)->()")(u, w)


@pytest.fixture(scope="module")
def dots():
    """Three batch dimensions, broadcast where the types say length 1; a 0-d core output;
    float64 and float32 stacks in one graph (one compilation)."""
    a = pt.tensor("a", dtype="float64", shape=(None, 1, None, None, None))
    v = pt.tensor("v", dtype="float64", shape=(1, None, None, None))
    u = pt.tensor("u", dtype="float32", shape=(None, None, None))
    w = pt.tensor("w", dtype="float32", shape=(1, None))
    return _pair([a, v, u, w], [_matvec(a, v), _inner(u, w)])


def _dot_values(rng, batch=2):
    return [
        rng.normal(size=(batch, 1, 3, 4, 5)),
        rng.normal(size=(1, 2, 3, 5)),
        rng.normal(size=(batch, 3, 6)).astype("float32"),
        rng.normal(size=(1, 6)).astype("float32"),
    ]


def test_batched_dots_match_perform(rng, dots):
    got = check_same_results(*dots, _dot_values(rng), rtol=1e-5)
    assert got[0].shape == (2, 2, 3, 4) and got[1].shape == (2, 3)


def test_empty_batch_has_perform_shapes(rng, dots):
    got = check_same_results(*dots, _dot_values(rng, batch=0))
    assert got[0].shape == (0, 2, 3, 4) and got[1].shape == (0, 3)


def test_mismatched_batches_raise_value_error_like_perform(rng, dots):
    values = _dot_values(rng)
    mismatched = [values[0][:, :, :2], *values[1:]]  # batch lengths 2 and 3 in dimension 2
    ones = [values[0][:, :, :1], *values[1:]]  # length 1 where the type does not say so
    for bad in (mismatched, ones):
        for fn in dots:
            with pytest.raises(ValueError):
                fn(*bad)


def test_several_outputs_and_zero_d_core_inputs(rng):
    x = pt.tensor("x", dtype="float64", shape=(None, None, None))
    i = pt.tensor("i", dtype="int64", shape=(None,))
    p, low, up = Blockwise(la.LU())(x)
    # a core kernel returning a view of its block (an element): the output must be a copy
    pick = Blockwise(Subtensor((INT,)), "(k),()->()")(x[:, 0], i)
    native, python = _pair([x, i], [p, low, up, pick])
    values = [rng.normal(size=(3, 4, 4)), np.array([0, -1, 2])]
    got = check_same_results(native, python, values)
    np.testing.assert_allclose(got[0] @ got[1] @ got[2], values[0], atol=1e-12)
    with pytest.raises(IndexError):  # the core kernel's own error, from every batch entry
        native(values[0], np.array([0, 7, 1]))


def test_empty_batch_with_unnamed_core_length_runs_perform(rng):
    """``x[i:]`` per row: the core length is named after no input dimension, so an empty batch
    takes it from ``perform`` (its inference); a ragged result raises ValueError as there."""
    x = pt.tensor("x", dtype="int32", shape=(None, None))
    i = pt.tensor("i", dtype="int64", shape=(None,))
    tail = Blockwise(Subtensor((SliceSpec(True, False, False),)), "(k),()->(j)")(x, i)
    native, python = _pair([x, i], [tail])
    values = [rng.integers(-9, 9, size=(3, 5)).astype("int32"), np.array([1, 1, -4])]
    check_same_results(native, python, values)
    got = check_same_results(native, python, [values[0][:0], values[1][:0]])
    assert got[0].shape[0] == 0  # the core length as perform infers it (checked above)
    for fn in (native, python):
        with pytest.raises(ValueError):
            fn(values[0], np.array([1, 2, 1]))


class _RowSums(Op):
    """A core op with a ``perform`` and no native kernel: the sums of a matrix's rows."""

    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [pt.tensor(dtype=x.type.dtype, shape=(None,))])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0].sum(axis=1)


def test_core_op_without_native_kernel_falls_back_under_its_key():
    x = pt.tensor("x", dtype="float64", shape=(None, None, None))
    fn = arignote.function([x], Blockwise(_RowSums(), "(m,n)->(m)")(x), mode="NUMBA")
    keys = {why.key for why in fn.runner.fallbacks.values()}
    assert keys == {"_RowSums"}, numba_backend.native_report(fn.runner)
    assert "Blockwise" not in numba_backend.FALLBACKS
    value = np.random.default_rng(3).normal(size=(2, 3, 4))
    np.testing.assert_allclose(fn(value), value.sum(axis=2))
