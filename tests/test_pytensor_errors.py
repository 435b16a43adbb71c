"""Type mismatches raise PyTensor's exception classes, naming what was expected and what came.

Each case was checked against PyTensor 3.0.7: a mismatch of number of dimensions, dtype or
static shape is a ``TypeError``, when a graph is built and when a compiled function is called.
"""

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.compile.ops import as_op

v, m = pt.dvector("v"), pt.dmatrix("m")
fixed = pt.tensor("fixed", dtype="float64", shape=(3,))


@as_op(itypes=[pt.dvector], otypes=[pt.dvector])
def reverse(x):
    return x[::-1].copy()


BUILD_CASES = [
    (lambda: pt.join(0, v, m), "same number of dimensions", "(?, ?)"),
    (lambda: pt.concatenate([v, m]), "same number of dimensions", "(?,)"),
    (lambda: pt.stack([v, m]), "same number of dimensions", "(?, ?)"),
    (lambda: pt.set_subtensor(v[0], v), "1-d value into a 0-d subtensor", "SetSubtensor"),
    (lambda: pt.inc_subtensor(v[1:], m), "2-d value into a 1-d subtensor", "IncSubtensor"),
    (lambda: pt.set_subtensor(v[[0, 1]], m), "2-d value into a 1-d subtensor", "Set"),
    (lambda: reverse(m), "should have type TensorType(float64, (?,))", "(?, ?)"),
    (lambda: reverse(pt.fvector()), "should have type", "float32"),
    (lambda: pt.alloc(m, 3), "more than the 1 of the requested shape", "2 dimensions"),
    (lambda: arignote.grad(v, v), "scalar", "(?,)"),
    (lambda: arignote.clone_replace(v * 2, {v: m}), "(?,)", "(?, ?)"),
]


@pytest.mark.parametrize("build, expected, came", BUILD_CASES)
def test_type_mismatches_are_type_errors_when_built(build, expected, came):
    with pytest.raises(TypeError) as info:
        build()
    assert expected in str(info.value) and came in str(info.value)


CALL_CASES = [
    ([fixed], np.zeros(4), "(3,)", "shape (4,)"),  # against a static shape
    ([v], np.zeros((2, 2)), "expected TensorType(float64, (?,))", "shape (2, 2)"),
    ([v], np.zeros(2, dtype="complex128"), "TensorType(float64, (?,))", "complex128"),
    ([pt.fvector("f")], np.zeros(2), "float32", "float64"),
]


@pytest.mark.parametrize("inputs, value, expected, came", CALL_CASES)
def test_type_mismatches_are_type_errors_when_called(inputs, value, expected, came):
    f = arignote.function(inputs, inputs[0] * 2)
    with pytest.raises(TypeError) as info:
        f(value)
    assert expected in str(info.value) and came in str(info.value)


def test_value_errors_stay_value_errors():
    # PyTensor raises ValueError for these (lengths, not types), and so does arignote
    with pytest.raises(ValueError):
        fixed + pt.tensor(shape=(4,), dtype="float64")
    with pytest.raises(ValueError):
        pt.reshape(v, (2, 3), ndim=3)
    with pytest.raises(ValueError):
        pt.specify_shape(v, (4, 3))


def test_static_shape_of_shared_values_is_a_type_error():
    s = arignote.shared(np.zeros((2, 3)), shape=(None, 3))
    with pytest.raises(TypeError, match="not compatible"):
        s.set_value(np.ones((2, 4)))
    with pytest.raises(TypeError, match="not compatible"):
        pt.tensor(dtype="float64", shape=(3,)).type.filter(np.zeros(4))
