"""``Function`` calls: checking every argument at the boundary, and never modifying inputs."""

from __future__ import annotations

import datetime

import numpy as np
import pytest

import arignote
import arignote.scalar as ps
import arignote.tensor as pt
from arignote import In, function
from arignote.graph.basic import Apply
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

UINT8 = TensorType("uint8", ())
BVECTOR = TensorType("int8", (None,))

# (input type, argument, error class, what the message must say about the received value,
#  whether the value is still refused with allow_input_downcast=True)
BAD_INPUTS = [
    pytest.param(
        FVECTOR, np.zeros(2), TypeError, "dtype float64", False, id="float64-array-to-float32"
    ),
    pytest.param(
        IVECTOR, np.array([1.0, 2.0]), TypeError, "dtype float64", False, id="float-to-int"
    ),
    pytest.param(
        IVECTOR,
        np.array([1, 2], dtype="int64"),
        TypeError,
        "dtype int64",
        False,
        id="int64-to-int32",
    ),
    pytest.param(ISCALAR, 1.5, TypeError, "float 1.5", False, id="python-float-not-fitting-int"),
    pytest.param(FSCALAR, 0.1, TypeError, "float 0.1", False, id="python-float-inexact-in-float32"),
    # NumPy itself refuses these conversions (OverflowError / ValueError): never wrapped around
    pytest.param(BSCALAR, 300, TypeError, "int 300", True, id="python-int-overflowing-int8"),
    pytest.param(UINT8, -1, TypeError, "int -1", True, id="negative-python-int-to-uint8"),
    pytest.param(BVECTOR, [1, 300], TypeError, "list [1, 300]", True, id="list-overflowing-int8"),
    pytest.param(ISCALAR, 1e300, TypeError, "float 1e+300", True, id="huge-python-float-to-int"),
    pytest.param(ISCALAR, float("nan"), TypeError, "float nan", True, id="python-nan-to-int"),
    pytest.param(DSCALAR, 1 + 2j, TypeError, "complex", True, id="python-complex-to-float"),
    pytest.param(
        DVECTOR, np.zeros(2, dtype="complex128"), TypeError, "complex128", True, id="complex"
    ),
    pytest.param(DVECTOR, np.zeros((2, 2)), TypeError, "shape (2, 2)", True, id="matrix-to-vector"),
    pytest.param(DVECTOR, 1.0, TypeError, "float 1.0", True, id="scalar-to-vector"),
    pytest.param(DSCALAR, np.zeros(3), TypeError, "shape (3,)", True, id="vector-to-scalar"),
    pytest.param(FIXED3, np.zeros(4), TypeError, "shape (4,)", True, id="static-shape-mismatch"),
    pytest.param(DVECTOR, object(), TypeError, "object", True, id="non-numeric-object"),
    pytest.param(DVECTOR, "abc", TypeError, "str 'abc'", True, id="string"),
    pytest.param(DVECTOR, b"abc", TypeError, "bytes", True, id="bytes"),
    pytest.param(DVECTOR, ["a", "b"], TypeError, "list", True, id="list-of-strings"),
    pytest.param(DVECTOR, None, TypeError, "NoneType", True, id="none"),
    pytest.param(DVECTOR, [[1.0], [2.0, 3.0]], TypeError, "list", True, id="ragged-list"),
    pytest.param(DVECTOR, {"a": 1.0}, TypeError, "dict", True, id="dict"),
    pytest.param(
        DVECTOR, np.array([1.0, None]), TypeError, "dtype object", True, id="object-array"
    ),
    pytest.param(DVECTOR, np.array(["1", "2"]), TypeError, "dtype <U1", True, id="string-array"),
    pytest.param(
        DVECTOR,
        np.array([datetime.datetime(2020, 1, 1)], dtype="datetime64[s]"),
        TypeError,
        "datetime64",
        True,
        id="datetime-array",
    ),
]


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize(("itype", "value", "error", "received", "always_bad"), BAD_INPUTS)
@pytest.mark.parametrize("downcast", [None, False, True])
@pytest.mark.parametrize("by_keyword", [False, True])
def test_bad_inputs_name_input_expected_type_and_received_value(
    itype, value, error, received, always_bad, downcast, by_keyword
):
    x = itype("data")
    y = pt.dscalar("y")
    f = function([y, x], x * 2 + y, name="f", allow_input_downcast=downcast, trust_input=False)
    call = (lambda: f(1.0, data=value)) if by_keyword else (lambda: f(1.0, value))
    if downcast and not always_bad:
        assert np.asarray(call()).shape == np.shape(value)  # the downcast is accepted
        return
    with pytest.raises(error) as info:
        call()
    message = str(info.value)
    assert "'data' (position 1)" in message
    assert "f(y, data)" in message
    assert f"expected {itype}" in message
    assert received in message
    good = np.zeros(tuple(3 if s is None else s for s in itype.shape), itype.dtype)
    assert f(1.0, good).shape == good.shape  # the function is still usable


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
    pytest.param(BSCALAR, -128, "int8", None, id="python-int-at-the-int8-bound"),
    pytest.param(BVECTOR, [127, -128], "int8", True, id="list-within-int8-downcast"),
    pytest.param(FSCALAR, 1e300, "float32", True, id="huge-float-to-float32-is-inf-as-numpy"),
    pytest.param(ISCALAR, -2.7, "int32", True, id="float-truncated-as-numpy"),
]


@pytest.mark.parametrize(("itype", "value", "dtype", "downcast"), GOOD_INPUTS)
def test_accepted_inputs_are_converted(itype, value, dtype, downcast):
    x = itype("data")
    f = function([x], x, allow_input_downcast=downcast)
    result = f(value)
    assert result.dtype == dtype
    with np.errstate(over="ignore"):
        expected = np.asarray(value, dtype=dtype)  # what NumPy makes of it
    np.testing.assert_array_equal(result, expected)
    np.testing.assert_array_equal(f(data=value), expected)


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
    with pytest.raises(TypeError, match="'x'"):
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


def test_default_of_a_mutable_input_is_never_overwritten():
    x = pt.dvector("x")
    f = function([In(x, value=np.ones(2), mutable=True)], DoubleInPlace()(x), accept_inplace=True)
    np.testing.assert_array_equal(f(), [2.0, 2.0])
    np.testing.assert_array_equal(f(), [2.0, 2.0])
