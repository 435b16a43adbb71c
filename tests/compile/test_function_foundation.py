"""function(): inputs checked at the boundary, outputs never aliasing inputs, argument passing."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.compile.function import UnusedInputError
from arignote.graph.fg import MissingInputError


def test_positional_and_keyword_arguments():
    x, y = pt.dscalar("x"), pt.dscalar("y")
    f = arignote.function([x, y], x - y)
    assert f(3.0, 1.0) == 2.0 and f(y=1.0, x=3.0) == 2.0 and f(3.0, y=1.0) == 2.0


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((1.0, 2.0, 3.0), {}, "takes 2 arguments"),
        ((1.0,), {}, "missing the argument"),
        ((1.0,), {"z": 2.0}, "unexpected keyword argument 'z'"),
        ((1.0,), {"x": 2.0}, "multiple values for argument 'x'"),
    ],
)
def test_bad_argument_lists_raise_type_errors_with_the_signature(args, kwargs, message):
    x, y = pt.dscalar("x"), pt.dscalar("y")
    f = arignote.function([x, y], x - y)
    with pytest.raises(TypeError, match=message) as info:
        f(*args, **kwargs)
    assert "function(x, y)" in str(info.value)


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (np.ones((2, 2)), TypeError, "Wrong number of dimensions"),
        (np.ones(3, dtype="float32") * np.float32(1.5), None, None),
        (np.ones(3, dtype="complex128"), TypeError, "loss of precision"),
        ("text", TypeError, "numeric"),
        (np.ones(4), TypeError, "not compatible"),
    ],
)
def test_inputs_are_checked_and_the_error_names_the_input(value, error, message):
    x = pt.tensor(dtype="float64", shape=(3,), name="x")
    f = arignote.function([x], x * 2)
    if error is None:
        np.testing.assert_allclose(f(value), np.asarray(value, dtype="float64") * 2)
        return
    with pytest.raises(error, match=message) as info:
        f(value)
    assert "'x'" in str(info.value) and "TensorType(float64, (3,))" in str(info.value)


def test_outputs_do_not_alias_inputs_or_each_other():
    x = pt.dmatrix("x")
    f = arignote.function([x], [x, x.T, x.T])
    value = np.ones((2, 3))
    same, transposed, again = f(value)
    assert not np.shares_memory(same, value) and not np.shares_memory(transposed, value)
    assert not np.shares_memory(transposed, again)
    same[0, 0] = 5.0
    assert value[0, 0] == 1.0


def test_inputs_are_never_modified():
    x = pt.dvector("x")
    f = arignote.function([x], pt.exp(x) + x)
    value = np.arange(3.0)
    f(value)
    np.testing.assert_array_equal(value, np.arange(3.0))


def test_outputs_single_list_and_dict():
    x = pt.dscalar("x")
    assert arignote.function([x], x + 1)(1.0) == 2.0
    assert arignote.function([x], [x + 1])(1.0) == [2.0]
    assert arignote.function([x], {"double": x * 2, "half": x / 2})(4.0) == {
        "double": 8.0,
        "half": 2.0,
    }


def test_constant_outputs_are_copies():
    f = arignote.function([], pt.constant(np.arange(3.0)))
    out = f()
    out[0] = 7.0
    np.testing.assert_array_equal(f(), np.arange(3.0))


def test_unused_inputs_raise_warn_or_pass():
    x, y = pt.dscalar("x"), pt.dscalar("y")
    with pytest.raises(UnusedInputError, match="y"):
        arignote.function([x, y], x * 2)
    with pytest.warns(UserWarning, match="not used"):
        arignote.function([x, y], x * 2, on_unused_input="warn")
    assert arignote.function([x, y], x * 2, on_unused_input="ignore")(1.0, 2.0) == 2.0


def test_repeated_input_is_an_error():
    x = pt.dscalar("x")
    with pytest.raises(ValueError, match="given twice"):
        arignote.function([x, x], x)


def test_compilation_clones_the_user_graph():
    x = pt.dvector("x")
    y = pt.exp(x)
    f = arignote.function([x], y)
    assert f.maker.fgraph.outputs[0] is not y and f.maker.fgraph.inputs[0] is not x
    assert y.owner.inputs[0] is x


def test_eval_compiles_once_per_input_set():
    x = pt.dscalar("x")
    y = x * 3
    assert y.eval({x: 2.0}) == 6.0 and y.eval({"x": 3.0}) == 9.0
    assert len(y._fn_cache) == 1  # PyTensor's name for the cache
    with pytest.raises(MissingInputError, match="needs values"):  # PyTensor's class
        y.eval()


def test_eval_refuses_unused_values_unless_told():
    # as in PyTensor: eval passes its keyword arguments to function, whose on_unused_input
    # defaults to "raise"
    x, z = pt.dscalar("x"), pt.dscalar("z")
    y = x * 3
    with pytest.raises(UnusedInputError):
        y.eval({x: 1.0, z: 2.0})
    assert y.eval({x: 1.0, z: 2.0}, on_unused_input="ignore") == 3.0
    assert y.eval({x: 1.0, "nope": 2.0}, on_unused_input="ignore") == 3.0
