"""``Function`` calls: checking every argument at the boundary, and never modifying inputs."""

from __future__ import annotations

import copy
import datetime
import pickle

import numpy as np
import pytest

import arignote
import arignote.scalar as ps
import arignote.tensor as pt
from arignote import In, function
from arignote.graph.basic import Apply, equal_computations
from arignote.graph.fg import FunctionGraph
from arignote.graph.op import Op
from arignote.tensor.elemwise import Elemwise
from arignote.tensor.type import TensorType

FVECTOR = TensorType("float32", (None,))
DVECTOR = TensorType("float64", (None,))
IVECTOR = TensorType("int32", (None,))
DSCALAR = TensorType("float64", ())
FSCALAR = TensorType("float32", ())
ISCALAR = TensorType("int32", ())
BSCALAR = TensorType("int8", ())
FIXED3 = TensorType("float64", (3,))

# (input type, argument, error class, what the message must say about the received value)
BAD_INPUTS = [
    pytest.param(FVECTOR, np.zeros(2), TypeError, "dtype float64", id="float64-array-to-float32"),
    pytest.param(IVECTOR, np.array([1.0, 2.0]), TypeError, "dtype float64", id="float-to-int"),
    pytest.param(
        IVECTOR, np.array([1, 2], dtype="int64"), TypeError, "dtype int64", id="int64-to-int32"
    ),
    pytest.param(ISCALAR, 1.5, TypeError, "float 1.5", id="python-float-not-fitting-int"),
    pytest.param(BSCALAR, 300, TypeError, "int 300", id="python-int-overflowing-int8"),
    pytest.param(FSCALAR, 0.1, TypeError, "float 0.1", id="python-float-inexact-in-float32"),
    pytest.param(DSCALAR, 1 + 2j, TypeError, "complex", id="python-complex-to-float"),
    pytest.param(DVECTOR, np.zeros((2, 2)), TypeError, "shape (2, 2)", id="matrix-to-vector"),
    pytest.param(DVECTOR, 1.0, TypeError, "float 1.0", id="scalar-to-vector"),
    pytest.param(DSCALAR, np.zeros(3), TypeError, "shape (3,)", id="vector-to-scalar"),
    pytest.param(FIXED3, np.zeros(4), ValueError, "shape (4,)", id="static-shape-mismatch"),
    pytest.param(DVECTOR, object(), TypeError, "object", id="non-numeric-object"),
    pytest.param(DVECTOR, "abc", TypeError, "str 'abc'", id="string"),
    pytest.param(DVECTOR, b"abc", TypeError, "bytes", id="bytes"),
    pytest.param(DVECTOR, ["a", "b"], TypeError, "list", id="list-of-strings"),
    pytest.param(DVECTOR, None, TypeError, "NoneType", id="none"),
    pytest.param(DVECTOR, [[1.0], [2.0, 3.0]], TypeError, "list", id="ragged-list"),
    pytest.param(DVECTOR, {"a": 1.0}, TypeError, "dict", id="dict"),
    pytest.param(
        DVECTOR,
        np.array([datetime.datetime(2020, 1, 1)], dtype="datetime64[s]"),
        TypeError,
        "datetime64",
        id="datetime-array",
    ),
    pytest.param(DVECTOR, np.zeros(2, dtype="complex128"), TypeError, "complex128", id="complex"),
]


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize(("itype", "value", "error", "received"), BAD_INPUTS)
@pytest.mark.parametrize("by_keyword", [False, True])
def test_bad_inputs_name_input_expected_type_and_received_value(
    itype, value, error, received, by_keyword
):
    x = itype("data")
    y = pt.dscalar("y")
    f = function([y, x], x * 2 + y, name="f")
    call = (lambda: f(1.0, data=value)) if by_keyword else (lambda: f(1.0, value))
    with pytest.raises(error) as info:
        call()
    message = str(info.value)
    assert "'data' (position 1)" in message
    assert "f(y, data)" in message
    assert f"expected {itype}" in message
    assert received in message


# (input type, argument, expected stored dtype, with allow_input_downcast)
GOOD_INPUTS = [
    pytest.param(DSCALAR, 3, "float64", None, id="python-int-to-float"),
    pytest.param(ISCALAR, 3, "int32", None, id="python-int-fitting-int32"),
    pytest.param(FSCALAR, 0.5, "float32", None, id="python-float-exact-in-float32"),
    pytest.param(DVECTOR, [1, 2], "float64", None, id="list-of-ints"),
    pytest.param(DVECTOR, np.array([1, 2], dtype="int32"), "float64", None, id="safe-upcast"),
    pytest.param(IVECTOR, np.array([True, False]), "int32", None, id="bools-to-int"),
    pytest.param(FVECTOR, np.array([0.1, 0.2]), "float32", True, id="downcast-allowed"),
    pytest.param(ISCALAR, 2.7, "int32", True, id="float-to-int-allowed"),
    pytest.param(FIXED3, [1.0, 2.0, 3.0], "float64", None, id="static-shape-match"),
]


@pytest.mark.parametrize(("itype", "value", "dtype", "downcast"), GOOD_INPUTS)
def test_accepted_inputs_are_converted(itype, value, dtype, downcast):
    x = itype("data")
    f = function([x], x, allow_input_downcast=downcast)
    result = f(value)
    assert result.dtype == dtype
    expected = np.asarray(value).astype(dtype)
    np.testing.assert_array_equal(result, expected)


def test_python_float_to_floatx_is_accepted_without_downcast_flag():
    with arignote.config.change_flags(floatX="float32"):
        x = pt.scalar("x")
        f = function([x], x)
        assert f(0.1).dtype == np.float32
    with pytest.raises(TypeError, match="without changing its value"):
        f(0.1)  # floatX is float64 again: 0.1 does not fit float32 exactly


def test_fast_path_and_slow_path_agree(rng):
    x = pt.dvector("x")
    y = pt.dmatrix("y")
    f = function([x, y], (x * y).sum())
    xv, yv = rng.normal(size=3), rng.normal(size=(2, 3))
    expected = (xv * yv).sum()
    assert f(xv, yv) == pytest.approx(expected)
    assert f(list(xv), yv) == pytest.approx(expected)  # first argument converted
    assert f(xv, yv.astype("float32")) == pytest.approx(expected, rel=1e-6)
    assert f(x=xv, y=yv) == pytest.approx(expected)


def test_static_shape_checked_on_the_fast_path():
    x = pt.tensor("x", dtype="float64", shape=(2, None))
    f = function([x], x.sum())
    assert f(np.ones((2, 5))) == 10.0
    with pytest.raises(ValueError, match="'x'"):
        f(np.ones((3, 5)))


def test_non_native_byte_order_is_converted():
    x = pt.dvector("x")
    f = function([x], x * 2)
    swapped = np.array([1.0, 2.0], dtype=">f8")
    np.testing.assert_array_equal(f(swapped), [2.0, 4.0])


def test_failed_call_does_not_change_state_inputs():
    s = pt.dscalar("s")
    x = pt.dscalar("x")
    f = function([In(s, value=1.0, update=s + x), x], s)
    f(x=1.0)
    assert f["s"] == 2.0
    with pytest.raises(TypeError):
        f(10.0, "bad")
    assert f["s"] == 2.0


# -- inputs are never modified unless mutable -----------------------------------------------------

add_inplace = Elemwise(ps.add, inplace_pattern={0: 0})


class DoubleInPlace(Op):
    """Doubles its input in place (declared in destroy_map)."""

    __props__ = ()
    destroy_map = {0: [0]}

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        x *= 2
        output_storage[0][0] = x

    def infer_shape(self, fgraph, node, input_shapes):
        return input_shapes


def _in_place_graphs(x, y):
    return [
        add_inplace(x, y),
        DoubleInPlace()(x),
        DoubleInPlace()(x.dimshuffle("x", 0)),  # through a view of the input
        add_inplace(x, y) + DoubleInPlace()(y),
        DoubleInPlace()(pt.exp(x)) + x,
    ]


@pytest.mark.parametrize("case", range(5))
@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_inputs_unchanged_after_calls_with_in_place_ops(case, mode, rng):
    x, y = pt.dvectors("x", "y")
    out = _in_place_graphs(x, y)[case]
    f = function([x, y], out, accept_inplace=True, mode=mode, on_unused_input="ignore")
    xv, yv = rng.normal(size=4), rng.normal(size=4)
    x_before, y_before = xv.copy(), yv.copy()
    reference = function([x, y], out, accept_inplace=True, mode=mode, on_unused_input="ignore")(
        x_before.copy(), y_before.copy()
    )
    for _ in range(3):
        result = f(xv, yv)
        np.testing.assert_array_equal(xv, x_before)
        np.testing.assert_array_equal(yv, y_before)
        np.testing.assert_allclose(result, reference)


def test_mutable_input_is_overwritten_in_place(rng):
    x = pt.dvector("x")
    f = function([In(x, mutable=True)], DoubleInPlace()(x), accept_inplace=True)
    value = rng.normal(size=3)
    before = value.copy()
    f(value)
    np.testing.assert_array_equal(value, before * 2)  # it really ran in place


def test_shared_variables_are_protected_unless_updated():
    s = arignote.shared(np.ones(3), name="s")
    f = function([], DoubleInPlace()(s), accept_inplace=True)
    f()
    np.testing.assert_array_equal(s.get_value(), np.ones(3))
    g = function([], [], updates=[(s, DoubleInPlace()(s))], accept_inplace=True)
    g()
    g()
    np.testing.assert_array_equal(s.get_value(), np.full(3, 4.0))


def test_constants_are_never_overwritten():
    c = pt.constant(np.ones(3))
    f = function([], DoubleInPlace()(c), accept_inplace=True)
    np.testing.assert_array_equal(f(), np.full(3, 2.0))
    np.testing.assert_array_equal(f(), np.full(3, 2.0))


def test_mutable_argument_aliasing_another_argument_is_copied(rng):
    x, y = pt.dvectors("x", "y")
    f = function([In(x, mutable=True), y], DoubleInPlace()(x) + y, accept_inplace=True)
    value = rng.normal(size=3)
    before = value.copy()
    np.testing.assert_allclose(f(value, value), before * 3)
    np.testing.assert_array_equal(value, before)  # aliased: the overwritten one was a copy


# -- pickling and copying ----------------------------------------------------------------------


def _accumulator():
    state = arignote.shared(np.zeros(2), name="state")
    inc = pt.dvector("inc")
    acc = function([inc], state * 2, updates=[(state, state + inc)], name="acc")
    return acc, state


def test_pickled_function_matches_the_original(rng):
    x, y = pt.dmatrices("x", "y")
    z = pt.dscalar("z")
    f = function(
        [x, In(y, value=np.ones((2, 3))), In(z, value=2.0, name="scale")],
        {"total": (pt.exp(x) * y).sum() * z, "first": x.sum(axis=0)},
        name="f",
    )
    g = pickle.loads(pickle.dumps(f))
    xv = rng.normal(size=(2, 3))
    expected, got = f(xv), g(xv)
    assert got.keys() == expected.keys()
    for key in expected:
        np.testing.assert_allclose(got[key], expected[key])
    np.testing.assert_allclose(g(xv, scale=3.0)["total"], f(xv, scale=3.0)["total"])
    assert g.name == "f" and str(g) == str(f)


def test_unpickled_function_keeps_its_shared_state():
    acc, state = _accumulator()
    acc(np.ones(2))
    restored = pickle.loads(pickle.dumps(acc))
    np.testing.assert_array_equal(restored(np.ones(2)), [2.0, 2.0])  # state was [1, 1]
    np.testing.assert_array_equal(restored(np.ones(2)), [4.0, 4.0])
    # PyTensor's semantics: the unpickled function has its own copy of the shared state; the
    # original shared variable is not touched by it.
    np.testing.assert_array_equal(state.get_value(), [1.0, 1.0])


def test_pickling_a_function_with_its_shared_variable_keeps_them_linked():
    acc, state = _accumulator()
    restored_acc, restored_state = pickle.loads(pickle.dumps((acc, state)))
    restored_acc(np.full(2, 5.0))
    np.testing.assert_array_equal(restored_state.get_value(), [5.0, 5.0])
    restored_state.set_value(np.zeros(2))
    np.testing.assert_array_equal(restored_acc(np.zeros(2)), [0.0, 0.0])
    np.testing.assert_array_equal(state.get_value(), [0.0, 0.0])


def test_pickling_keeps_trust_input_and_mode():
    x = pt.dvector("x")
    f = function([x], x + 1, mode="FAST_COMPILE", trust_input=True)
    g = pickle.loads(pickle.dumps(f))
    assert g.trust_input
    assert g.maker.mode.optimizer_spec == "fast_compile"
    np.testing.assert_array_equal(g(np.zeros(2)), [1.0, 1.0])


def test_deepcopy_of_function_is_independent():
    acc, state = _accumulator()
    twin = copy.deepcopy(acc)
    twin(np.ones(2))
    np.testing.assert_array_equal(state.get_value(), [0.0, 0.0])
    np.testing.assert_array_equal(twin(np.ones(2)), [2.0, 2.0])


def test_graphs_and_shared_variables_pickle_and_deepcopy(rng):
    x = pt.dmatrix("x")
    w = arignote.shared(rng.normal(size=(3, 2)), name="w")
    out = pt.tanh(pt.dot(x, w)).sum()
    fgraph = FunctionGraph([x, w], [out], clone=True)
    for copied in (pickle.loads(pickle.dumps(fgraph)), copy.deepcopy(fgraph)):
        copied.check_integrity()
        assert len(copied.apply_nodes) == len(fgraph.apply_nodes)
        assert not equal_computations(copied.outputs, fgraph.outputs)  # new variables
        assert equal_computations(copied.outputs, fgraph.outputs, copied.inputs, fgraph.inputs)
        xv = rng.normal(size=(4, 3))
        f_copy = function(copied.inputs[:1], copied.outputs[0])
        np.testing.assert_allclose(f_copy(xv), np.tanh(xv @ w.get_value()).sum())
    w2 = pickle.loads(pickle.dumps(w))
    np.testing.assert_array_equal(w2.get_value(), w.get_value())
    assert w2.type == w.type and w2.name == "w"
    var = pickle.loads(pickle.dumps(out))
    assert str(var.owner.op) == str(out.owner.op)


def test_pickling_a_deep_graph():
    x = pt.dscalar("x")
    out = x
    for _ in range(300):
        out = out * 1.001 + 0.5
    f = function([x], out, mode="FAST_COMPILE")
    g = pickle.loads(pickle.dumps(f))
    assert g(1.0) == pytest.approx(f(1.0))


# -- the generated call path ----------------------------------------------------------------------


def test_generated_call_checks_dtype_and_ndim_and_falls_back(rng):
    x = pt.dvector("x")
    y = pt.tensor("y", dtype="float64", shape=(2, None))
    f = function([x, y], [x.sum(), y.sum()])
    source = f.__call__.source
    assert "is not dtype0" in source and ".ndim != 1" in source
    assert "shape[0] != 2" in source  # the static length
    xv, yv = rng.normal(size=3), rng.normal(size=(2, 4))
    expected = [xv.sum(), yv.sum()]
    np.testing.assert_allclose(f(xv, yv), expected)  # fast path
    np.testing.assert_allclose(f(list(xv), yv), expected)  # conversion: general path
    np.testing.assert_allclose(f(xv, y=yv), expected)  # keyword: general path
    with pytest.raises(ValueError, match="'y'"):
        f(xv, np.ones((3, 4)))  # wrong static length: general path reports it
    assert f.vm.storage_map[f.maker.fgraph.inputs[0]][0] is None  # no reference kept


def test_trust_input_switches_the_generated_call():
    x = pt.dvector("x")
    f = function([x], x * 2)
    checked = f.__call__.source
    f.trust_input = True
    assert "is not dtype0" not in f.__call__.source
    f.trust_input = False
    assert f.__call__.source == checked
    g = function([x], x * 2)
    assert type(g) is not type(f)  # each function has its own call
    assert isinstance(f, arignote.compile.Function)


def test_generated_call_applies_updates_and_returns_dicts():
    s = arignote.shared(np.float64(1.0), name="s")
    t = arignote.shared(np.float64(2.0), name="t")
    x = pt.dscalar("x")
    f = function([x], {"sum": s + t + x}, updates=[(s, t), (t, s)])
    assert "new1 = source1[0]" in f.__call__.source
    assert f(np.float64(0.0)) == {"sum": 3.0}
    assert (s.get_value(), t.get_value()) == (2.0, 1.0)


def test_functions_needing_the_general_call_get_none():
    x = pt.dvector("x")
    state = pt.dscalar("state")
    stateful = function([x, In(state, value=0.0, update=state + 1)], x + state)
    assert not hasattr(stateful.__call__, "source")
    assert stateful(np.zeros(1))[0] == 0.0
    profiled = function([x], x + 1, profile=True)
    assert not hasattr(profiled.__call__, "source")
