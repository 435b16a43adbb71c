"""DebugMode: each check catches the contract violation it is for, and names the culprit."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.scalar as ps
import arignote.tensor as pt
import arignote.tensor.random as ptr
from arignote import function
from arignote.compile.debugmode import (
    PREALLOCATION_KINDS,
    BadDestroyMap,
    BadInferShape,
    BadOptimization,
    BadThunkOutput,
    BadViewMap,
    DebugMode,
    InvalidValueError,
    preallocated,
)
from arignote.compile.mode import get_mode
from arignote.graph.basic import Apply
from arignote.graph.op import Op
from arignote.graph.rewriting.basic import in2out, node_rewriter
from arignote.sandbox.rng_mrg import MRG_RandomStreams
from arignote.tensor.elemwise import Elemwise


class _MatrixOp(Op):
    """Base of the test ops: one float64 matrix in, one out, of the same shape."""

    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def infer_shape(self, fgraph, node, input_shapes):
        return input_shapes


class Double(_MatrixOp):
    """A correct op: 2 * x into fresh memory."""

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * 2


class WrongInferShape(Double):
    """Claims its output is the transpose's shape."""

    def infer_shape(self, fgraph, node, input_shapes):
        (shape,) = input_shapes
        return [(shape[1], shape[0])]


class SecretlyInPlace(_MatrixOp):
    """Overwrites its input without declaring destroy_map."""

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        x *= 2
        output_storage[0][0] = x


class SecretView(_MatrixOp):
    """Returns a view of its input without declaring view_map."""

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0][:, :]


class DeclaredView(SecretView):
    view_map = {0: [0]}


class TrustsItsOutputCell(_MatrixOp):
    """Writes into whatever the output cell holds, as if it were a fresh array of zeros."""

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        out = output_storage[0][0]
        if out is None or out.shape != x.shape:
            out = np.zeros_like(x)
        out += x * 2  # wrong unless the cell was empty: it reads what was there
        output_storage[0][0] = out


class WritesIntoCellOfAnyShape(_MatrixOp):
    """Reuses the cell without checking its shape."""

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        if output_storage[0][0] is None:
            output_storage[0][0] = np.empty_like(x)
        output_storage[0][0][...] = 2 * x


class WrongDtype(_MatrixOp):
    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = (inputs[0] * 2).astype("float32")


class ThunkDisagrees(Double):
    """Its compiled thunk computes 3 * x while perform (the reference) computes 2 * x."""

    def make_thunk(self, node, storage_map, compute_map, no_recycling, impl=None):
        in_cell, out_cell = storage_map[node.inputs[0]], storage_map[node.outputs[0]]

        def thunk():
            out_cell[0] = in_cell[0] * 3
            compute_map[node.outputs[0]][0] = True

        thunk.lazy = False
        return thunk


class WithDebugPerform(Double):
    """Records which implementation DebugMode used."""

    calls: list = []

    def debug_perform(self, node, inputs, output_storage):
        WithDebugPerform.calls.append("debug_perform")
        output_storage[0][0] = inputs[0] * 2


def _compile(op, mode=None, **kwargs):
    x = pt.dmatrix("x")
    return function([x], op()(x), mode=mode or DebugMode(**kwargs), **_accept(op))


def _accept(op):
    return {"accept_inplace": bool(getattr(op, "destroy_map", None))}


@pytest.fixture
def xv(rng):
    return rng.normal(size=(2, 3))


def test_correct_graph_passes_and_returns_the_right_values(xv):
    x = pt.dmatrix("x")
    s = arignote.shared(np.zeros(3), name="s")
    out = (pt.exp(x) * Double()(x)).sum(axis=0) + s
    f = function([x], out, mode="DebugMode", updates=[(s, s + 1)])
    np.testing.assert_allclose(f(xv), (np.exp(xv) * 2 * xv).sum(axis=0))
    np.testing.assert_allclose(f(xv), (np.exp(xv) * 2 * xv).sum(axis=0) + 1)
    np.testing.assert_array_equal(s.get_value(), np.full(3, 2.0))


def test_pytensor_keyword_arguments_are_accepted(xv):
    # PyTensor's documented signature: DebugMode(optimizer, stability_patience, check_c_code,
    # check_py_code, check_isfinite, check_preallocated_output, require_matching_strides)
    mode = DebugMode(
        stability_patience=2,
        check_c_code=False,
        check_py_code=True,
        check_isfinite=None,
        check_preallocated_output=None,
        require_matching_strides=0,
    )
    assert mode.check_isfinite and mode.check_preallocated_output == PREALLOCATION_KINDS
    x = pt.dmatrix("x")
    np.testing.assert_allclose(function([x], pt.exp(x), mode=mode)(xv), np.exp(xv))
    with pytest.raises(ValueError, match="perform"):
        DebugMode(check_py_code=False)


def test_debug_mode_names_are_registered():
    assert isinstance(get_mode("DebugMode"), DebugMode)
    assert isinstance(get_mode("DEBUG_MODE"), DebugMode)


def test_wrong_infer_shape_is_reported(xv):
    f = _compile(WrongInferShape)
    with pytest.raises(BadInferShape, match=r"WrongInferShape.infer_shape says output 0") as info:
        f(xv)
    assert info.value.inferred == (3, 2)
    assert info.value.actual == (2, 3)
    _compile(WrongInferShape, check_infer_shape=False)(xv)


def test_undeclared_in_place_op_is_reported(xv):
    f = _compile(SecretlyInPlace)
    with pytest.raises(BadDestroyMap, match="SecretlyInPlace changed its input 0") as info:
        f(xv)
    assert isinstance(info.value.node.op, SecretlyInPlace)


def test_undeclared_view_is_reported(xv):
    with pytest.raises(BadViewMap, match=r"Output 0 of SecretView .* shares memory with input 0"):
        _compile(SecretView)(xv)
    np.testing.assert_array_equal(_compile(DeclaredView)(xv), xv)


@pytest.mark.parametrize("kind", ["c_contiguous", "f_contiguous", "strided", "negative_strides"])
def test_op_reading_its_preallocated_output_is_reported(kind, xv):
    f = _compile(TrustsItsOutputCell, check_preallocated_output=[kind])
    with pytest.raises(BadThunkOutput, match=f"preallocated: {kind}"):
        f(xv)


def test_op_reusing_a_cell_of_the_wrong_size_is_reported(xv):
    f = _compile(WritesIntoCellOfAnyShape, check_preallocated_output=["wrong_size"])
    with pytest.raises(BadThunkOutput, match=r"WritesIntoCellOfAnyShape.*wrong_size"):
        f(xv)
    _compile(WritesIntoCellOfAnyShape, check_preallocated_output=["c_contiguous"])(xv)


def test_previous_output_preallocation_is_tried_from_the_second_call(xv):
    f = _compile(TrustsItsOutputCell, check_preallocated_output=["previous"])
    f(xv)  # first call: nothing previous to try
    with pytest.raises(BadThunkOutput, match="preallocated: previous"):
        f(xv)


def test_invalid_output_values_are_reported(xv):
    with pytest.raises(InvalidValueError, match="WrongDtype returned an invalid value"):
        _compile(WrongDtype)(xv)
    x = pt.dmatrix("x")
    f = function([x], pt.log(x), mode=DebugMode())
    with pytest.raises(InvalidValueError, match="NaN or infinity"):
        f(np.zeros((2, 3)))
    g = function([x], pt.log(x), mode=DebugMode(check_isfinite=False))
    assert np.isneginf(g(np.zeros((2, 3)))).all()


def test_linker_disagreeing_with_perform_is_reported(xv):
    with pytest.raises(BadThunkOutput, match="compiled linker vs reference perform"):
        _compile(ThunkDisagrees)(xv)


def test_debug_perform_is_preferred(xv):
    WithDebugPerform.calls.clear()
    np.testing.assert_array_equal(_compile(WithDebugPerform)(xv), 2 * xv)
    assert "debug_perform" in WithDebugPerform.calls


@node_rewriter([Elemwise])
def local_wrong_exp(fgraph, node):
    """exp(x) -> x + 1: a deliberately wrong rewrite."""
    if str(node.op.scalar_op) != "exp":
        return None
    return [node.inputs[0] + 1]


def test_wrong_rewrite_is_reported_by_name(xv):
    x = pt.dmatrix("x")
    mode = DebugMode(optimizer=in2out(local_wrong_exp, name="wrong_exp_walker"))
    f = function([x], pt.exp(x) * 2, mode=mode)
    with pytest.raises(BadOptimization, match="local_wrong_exp") as info:
        f(xv)
    assert "exp" in str(info.value.old.owner.op)


def test_rewrite_checks_can_be_disabled(xv):
    x = pt.dmatrix("x")
    mode = DebugMode(
        optimizer=in2out(local_wrong_exp, name="wrong_exp_walker"), check_rewrites=False
    )
    np.testing.assert_allclose(function([x], pt.exp(x), mode=mode)(xv), xv + 1)


def test_default_pipeline_passes_debug_mode(rng):
    x, y = pt.dmatrices("x", "y")
    out = [(x * y + pt.exp(x) - pt.log(pt.abs(y) + 1)).sum(axis=1), pt.dot(x, y.T), x.shape]
    f = function([x, y], out, mode="DebugMode")
    xv, yv = rng.normal(size=(2, 3)), rng.normal(size=(2, 3))
    got = f(xv, yv)
    np.testing.assert_allclose(got[0], (xv * yv + np.exp(xv) - np.log(np.abs(yv) + 1)).sum(1))
    np.testing.assert_allclose(got[1], xv @ yv.T)
    np.testing.assert_array_equal(got[2], [2, 3])


def test_unknown_preallocation_kind():
    with pytest.raises(ValueError, match="Unknown preallocation kinds"):
        DebugMode(check_preallocated_output=["sideways"])


@pytest.mark.parametrize("kind", PREALLOCATION_KINDS)
def test_preallocations_have_the_promised_layout(kind, rng):
    value = rng.normal(size=(3, 4))
    cell = preallocated(kind, value, previous=value.copy())
    assert cell.dtype == value.dtype
    expected = {
        "previous": lambda c: c.shape == value.shape,
        "c_contiguous": lambda c: c.flags.c_contiguous and c.shape == value.shape,
        "f_contiguous": lambda c: c.flags.f_contiguous and not c.flags.c_contiguous,
        "strided": lambda c: not c.flags.c_contiguous and c.shape == value.shape,
        "negative_strides": lambda c: any(s < 0 for s in c.strides),
        "wrong_size": lambda c: c.shape != value.shape,
    }[kind]
    assert expected(cell)


def test_random_draws_pass_debug_mode():
    """Generators are compared by state, not identity: a draw that copies its input passes."""
    rng = arignote.shared(np.random.default_rng(7), name="rng")
    x = ptr.normal(0.0, 1.0, size=(2, 3), rng=rng)
    f = function([], x, mode="DebugMode")
    first, second = f(), f()
    expected = np.random.default_rng(7)
    np.testing.assert_allclose(first, expected.normal(0.0, 1.0, size=(2, 3)))
    assert not np.allclose(first, second)  # the shared generator advanced (default update)


class DeclaredInPlace(_MatrixOp):
    """Doubles its input in place, as declared."""

    destroy_map = {0: [0]}

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        x *= 2
        output_storage[0][0] = x


def test_declared_in_place_op_passes_and_inputs_stay_unchanged(xv):
    x = pt.dmatrix("x")
    f = function([x], DeclaredInPlace()(pt.exp(x)) + x, mode="DebugMode", accept_inplace=True)
    before = xv.copy()
    np.testing.assert_allclose(f(xv), 2 * np.exp(before) + before)
    np.testing.assert_array_equal(xv, before)
    g = function([x], DeclaredInPlace()(x), mode="DebugMode", accept_inplace=True)
    np.testing.assert_allclose(g(xv), 2 * before)
    np.testing.assert_array_equal(xv, before)


def test_zero_dimensional_outputs_get_only_array_preallocations(rng):
    value = np.array(1.5)
    for kind in PREALLOCATION_KINDS:
        cell = preallocated(kind, value, previous=value.copy())
        assert cell is None or (isinstance(cell, np.ndarray) and cell.dtype == value.dtype)
    # zeros(()) is an Alloc whose perform fills its 0-d output cell: it must pass
    f = function([], pt.zeros(()), mode=DebugMode(optimizer=None))
    assert f() == 0.0
    assert f() == 0.0


def test_nan_is_blamed_on_the_node_creating_it_not_on_those_passing_it_on(rng):
    x = pt.dvector("x")
    # The input already holds a NaN: the dimshuffle (a view) and fmax pass it on legally.
    f = function([x], pt.fmax(x.dimshuffle("x", 0), 0.0), mode="DebugMode")
    np.testing.assert_array_equal(f(np.array([np.nan, -1.0])), [[0.0, 0.0]])
    g = function([x], pt.log(x).dimshuffle("x", 0), mode=DebugMode(optimizer=None))
    with pytest.raises(InvalidValueError, match="from finite inputs") as info:
        g(np.array([1.0, -1.0]))
    assert "log" in str(info.value.node.op)


class DoubleReturningFloat32IntoACell(Double):
    """Right values, but a float32 array when its output cell already holds something."""

    def perform(self, node, inputs, output_storage):
        result = inputs[0] * 2
        if output_storage[0][0] is not None:
            result = result.astype("float32")
        output_storage[0][0] = result


def test_preallocated_run_returning_the_wrong_dtype_is_reported():
    f = _compile(DoubleReturningFloat32IntoACell, check_preallocated_output=["c_contiguous"])
    exact_in_float32 = np.arange(6.0).reshape(2, 3)  # same values: only the dtype is wrong
    with pytest.raises(BadThunkOutput, match="preallocated: c_contiguous"):
        f(exact_in_float32)


class ThunkReturnsFloat32(Double):
    """Its compiled thunk stores the right values with the wrong dtype."""

    def make_thunk(self, node, storage_map, compute_map, no_recycling, impl=None):
        in_cell, out_cell = storage_map[node.inputs[0]], storage_map[node.outputs[0]]

        def thunk():
            out_cell[0] = (in_cell[0] * 2).astype("float32")
            compute_map[node.outputs[0]][0] = True

        thunk.lazy = False
        return thunk


def test_compiled_value_of_the_wrong_type_is_reported(xv):
    with pytest.raises(InvalidValueError, match="compiled linker stored a value its type refuses"):
        _compile(ThunkReturnsFloat32)(xv)


_add_inplace = Elemwise(ps.add, inplace_pattern={0: 0})


@node_rewriter([Elemwise])
def local_wrong_inplace_log(fgraph, node):
    """log(x) -> (exp(x) += 1): wrong, and in place, so no single replacement is evaluated."""
    if str(node.op.scalar_op) != "log":
        return None
    return [_add_inplace(pt.exp(node.inputs[0]), pt.constant(np.float64(1.0)))]


def test_wrong_rewrite_through_an_in_place_op_is_caught_by_the_whole_graph_check(xv):
    x = pt.dmatrix("x")
    mode = DebugMode(optimizer=in2out(local_wrong_inplace_log, name="wrong_inplace_walker"))
    f = function([x], pt.log(x) * 2, mode=mode)
    with pytest.raises(BadOptimization, match="the whole rewrite pipeline"):
        f(np.abs(xv) + 1)


def test_unrewritten_graph_with_in_place_ops_is_evaluated_in_a_safe_order(xv):
    """The whole-graph check runs readers of a value before the in-place op overwriting it."""
    x = pt.dmatrix("x")
    y = pt.exp(x)
    f = function([x], [DeclaredInPlace()(y), y * 3], mode="DebugMode", accept_inplace=True)
    doubled, tripled = f(xv)
    np.testing.assert_allclose(doubled, 2 * np.exp(xv))
    np.testing.assert_allclose(tripled, 3 * np.exp(xv))


def test_shape_check_does_not_overwrite_the_inputs_of_an_inplace_scan():
    # The shape check of a Scan with a mapped output evaluates the Scan itself; that Scan,
    # in place on its MRG state, used to advance the values the preallocation check reuses.
    def build():
        srng = MRG_RandomStreams(3)
        v0 = pt.dmatrix("v0")

        def step(v):
            u = srng.uniform(size=v.shape)
            return [u * 2, u + v]

        (mapped, traced), updates = arignote.scan(step, outputs_info=[None, v0], n_steps=3)
        return v0, [mapped[-1], traced[-1]], updates

    v0, outs, updates = build()
    checked = arignote.function([v0], outs, updates=updates, mode="DebugMode")
    v0, outs, updates = build()
    plain = arignote.function([v0], outs, updates=updates, mode="FAST_RUN")
    start = np.zeros((2, 3))
    for _ in range(2):
        for got, want in zip(checked(start), plain(start)):
            np.testing.assert_allclose(got, want)


def test_debugmode_honours_a_vm_linker_and_refuses_any_other():
    x = pt.dvector("x")
    for linker in ("vm", "vm_nogc", None):
        f = function([x], pt.exp(x) + 1, mode=DebugMode(linker=linker))
        np.testing.assert_allclose(f(np.zeros(2)), [2.0, 2.0])
    for linker in ("numba", "jax", "auto"):
        with pytest.raises(ValueError, match="cannot use the linker"):
            DebugMode(linker=linker)
