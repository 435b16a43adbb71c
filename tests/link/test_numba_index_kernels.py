"""Native kernels of ``UnravelIndex``, ``RavelMultiIndex``, ``AllocEmpty``, ``BroadcastLength``
and ``MRGUniform`` (formerly unregistered object-mode fallbacks): values and errors against
NumPy and the Python VM; ``Print`` stays a registered fallback; the op-database check fails on
an unregistered fallback."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.printing import Print
from arignote.sandbox.rng_mrg import MRGUniform
from arignote.tensor.alloc import BroadcastLength
from arignote.tensor.ravel import ravel_multi_index, unravel_index
from tests.link.test_numba_op_db import ONE_PER_ENTRY, _check_entry

numba_backend = pytest.importorskip("arignote.link.numba")


def _native(inputs, outputs):
    fn = arignote.function(inputs, outputs, mode="NUMBA")
    assert fn.runner.fallbacks == {}, numba_backend.native_report(fn.runner)
    return fn


def _vm(inputs, outputs):
    return arignote.function(inputs, outputs, mode="FAST_COMPILE")


def _same_error(native, vm, *args):
    with pytest.raises(ValueError) as on_vm:
        vm(*args)
    with pytest.raises(ValueError) as natively:
        native(*args)
    assert str(natively.value).splitlines()[0] == str(on_vm.value).splitlines()[0]


@pytest.mark.parametrize("order", ["C", "F"])
def test_unravel_index_matches_numpy_and_the_vm_errors(order):
    x = pt.tensor("x", dtype="int32", shape=(None, None))
    dims = pt.tensor("dims", dtype="int64", shape=(3,))
    outputs = list(unravel_index(x, dims, order=order))
    fn, vm = _native([x, dims], outputs), _vm([x, dims], outputs)
    value, shape = np.array([[0, 5, 23], [7, 11, 2]], dtype=np.int32), np.array([2, 3, 4])
    for got, expected in zip(fn(value, shape), np.unravel_index(value, shape, order=order)):
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, expected)
    _same_error(fn, vm, value + 1, shape)  # 24 is out of bounds
    _same_error(fn, vm, -value - 1, shape)


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_ravel_multi_index_broadcasts_like_numpy(mode, order):
    a = pt.tensor("a", dtype="int32", shape=(None, 1))
    b = pt.tensor("b", dtype="int64", shape=(1, None))
    dims = pt.tensor("dims", dtype="int64", shape=(2,))
    out = ravel_multi_index([a, b], dims, mode=mode, order=order)
    fn, vm = _native([a, b, dims], out), _vm([a, b, dims], out)
    av, bv = np.array([[1], [0], [2]], dtype=np.int32), np.array([[3, 0, 1, 2]])
    if mode != "raise":
        av[0, 0], bv[0, 3] = 7, -9  # out of range: wrapped or clipped
    got = fn(av, bv, np.array([3, 4]))
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, np.ravel_multi_index((av, bv), (3, 4), mode, order))
    _same_error(fn, vm, av, bv, np.array([3, 0]))  # a zero length
    if mode == "raise":
        _same_error(fn, vm, av + 3, bv, np.array([3, 4]))


@pytest.mark.parametrize("dtype", ["float64", "bool", "complex128", "int8"])
def test_alloc_empty_shape_dtype_and_negative_lengths(dtype):
    n, m = pt.lscalar("n"), pt.iscalar("m")
    out = pt.empty((n, m, 2), dtype=dtype)
    fn = _native([n, m], out)
    value = fn(3, 4)
    assert value.shape == (3, 4, 2) and value.dtype == dtype
    _same_error(fn, _vm([n, m], out), 3, -1)


def test_broadcast_length_agrees_or_fails_with_the_vm_message():
    a, b = pt.lscalar("a"), pt.iscalar("b")
    out = BroadcastLength()(a, b, a)
    fn = _native([a, b], out)
    value = fn(5, 5)
    assert value == 5 and value.dtype == np.int64
    _same_error(fn, _vm([a, b], out), 5, 4)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_mrg_uniform_draws_and_next_state_are_the_vm_s(dtype):
    state = pt.tensor("state", dtype="int32", shape=(None, 6))
    n = pt.lscalar("n")
    outputs = MRGUniform(dtype)(state, n, 3)
    fn, vm = _native([state, n], outputs), _vm([state, n], outputs)
    rng = np.random.default_rng(3)
    first = rng.integers(1, 2147483647, size=(5, 3))
    second = rng.integers(1, 2147462579, size=(5, 3))
    value = np.concatenate([first, second], axis=1).astype(np.int32)
    (next_state, draws), (vm_state, vm_draws) = fn(value, 7), vm(value, 7)
    assert next_state.dtype == np.int32 and draws.dtype == dtype and draws.shape == (7, 3)
    np.testing.assert_array_equal(next_state, vm_state)
    np.testing.assert_array_equal(draws, vm_draws)
    assert ((draws > 0) & (draws < 1)).all()
    _same_error(fn, vm, value[:0], 2)


def test_print_is_a_registered_fallback_that_still_calls_global_fn():
    seen = []
    x = pt.dvector("x")
    printed = Print("x", global_fn=lambda op, value: seen.append(value))(x)
    fn = arignote.function([x], printed * 2, mode="NUMBA")
    assert {why.key for why in fn.runner.fallbacks.values()} == {"Print"}
    assert "Print" in numba_backend.FALLBACKS
    np.testing.assert_array_equal(fn(np.arange(3.0)), [0.0, 2.0, 4.0])
    assert len(seen) == 1
    np.testing.assert_array_equal(seen[0], np.arange(3.0))


def test_op_db_check_fails_on_an_unregistered_fallback(request, monkeypatch):
    case = next(c for c in ONE_PER_ENTRY if c.values[0].name == "Print")
    _check_entry(request, *case.values)  # registered: passes
    monkeypatch.delitem(numba_backend.FALLBACKS, "Print")
    with pytest.raises(AssertionError, match="unregistered fallback"):
        _check_entry(request, *case.values)
