"""PyTensor's scalar types, output type rules and ops written with ``impl`` only."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.scalar as ps
import arignote.tensor as pt
from arignote.scalar import basic
from arignote.tensor.elemwise import Elemwise


def test_scalar_types_by_dtype_name_and_their_groups():
    assert ps.bool.dtype == "bool" and basic.bool is ps.bool
    assert [t.dtype for t in ps.int_types] == ["int8", "int16", "int32", "int64"]
    assert ps.uint64.dtype == "uint64" and ps.float16.dtype == "float16"
    assert ps.complex64 in ps.complex_types and ps.complex64 in ps.continuous_types
    assert ps.bool in ps.discrete_types and ps.bool not in ps.integer_types
    assert len(ps.all_types) == 1 + 8 + 3 + 2
    assert ps.float64 is ps.get_scalar_type("float64")
    assert ps.float64("x").type is ps.float64
    assert bool(1) is True  # Python's bool is untouched where the type is served


@pytest.mark.parametrize(
    ("rule", "inputs", "expected"),
    [
        (ps.upcast_out, ("int8", "float32"), "float32"),
        (ps.upcast_out_min8, ("bool", "bool"), "int8"),
        (ps.same_out, ("int16", "float64"), "int16"),
        (ps.same_out_min8, ("bool",), "int8"),
        (ps.upgrade_to_float, ("int16",), "float32"),
        (ps.upgrade_to_float, ("int32", "float32"), "float64"),
        (ps.upgrade_to_float, ("uint8", "float16"), "float32"),
        (ps.upgrade_to_float64, ("float32",), "float64"),
        (ps.float_out, ("float32",), "float64"),
        (ps.int_out, ("float32",), "int64"),
        (ps.real_out, ("complex64",), "float32"),
        (ps.real_out, ("int8",), "int8"),
        (ps.specific_out(ps.float32), ("int64",), "float32"),
        (ps.unary_out_lookup({ps.int8: ps.int32}), ("int8",), "int32"),
    ],
)
def test_output_type_rules(rule, inputs, expected):
    out = rule(*(ps.get_scalar_type(d) for d in inputs))
    assert [t.dtype for t in out] == [expected]


@pytest.mark.parametrize(
    ("rule", "inputs"),
    [
        (ps.upcast_out_nobool, ("bool", "bool")),
        (ps.upcast_out_no_complex, ("complex64", "float32")),
        (ps.same_out_nobool, ("bool",)),
        (ps.same_out_nocomplex, ("complex128",)),
        (ps.same_out_float_only, ("int32",)),
        (ps.upgrade_to_float_no_complex, ("complex64",)),
        (ps.float_out_nocomplex, ("complex64",)),
        (ps.int_out_nocomplex, ("complex64",)),
        (ps.unary_out_lookup({ps.int8: ps.int32}), ("int16",)),
    ],
)
def test_output_type_rules_refuse_with_a_type_error(rule, inputs):
    with pytest.raises(TypeError):
        rule(*(ps.get_scalar_type(d) for d in inputs))


def test_rules_with_parameters_compare_by_them():
    assert ps.specific_out(ps.float32) == ps.specific_out(ps.float32)
    assert ps.specific_out(ps.float32) != ps.specific_out(ps.float64)
    assert hash(ps.unary_out_lookup({ps.int8: ps.int32})) == hash(
        ps.unary_out_lookup({ps.int8: ps.int32})
    )


class Cube(ps.UnaryScalarOp):
    """An op written as PyTensor's documentation shows: ``impl`` on numbers, no ufunc."""

    def impl(self, x):
        return x**3

    def grad(self, inputs, output_grads):
        (x,), (gz,) = inputs, output_grads
        return [gz * 3 * x**2]


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE", "NUMBA"])
def test_an_op_with_impl_only_runs_elementwise(mode):
    cube = Elemwise(Cube(ps.upgrade_to_float, name="cube"))
    x = pt.ivector("x")
    y = cube(x)
    assert y.type.dtype == "float64"
    fn = arignote.function([x], [pt.exp(y / 10), arignote.grad(y.sum(), x)], mode=mode)
    value = np.array([1, -2, 3], dtype="int32")
    fused, slope = fn(value)
    np.testing.assert_allclose(fused, np.exp(value.astype(float) ** 3 / 10))
    np.testing.assert_allclose(slope, 3.0 * value**2)


def test_an_op_with_neither_impl_nor_nfunc_says_so():
    class Empty(ps.UnaryScalarOp):
        pass

    x = pt.dvector("x")
    fn = arignote.function([x], Elemwise(Empty(ps.same_out, name="empty"))(x))
    with pytest.raises(Exception, match="nfunc, impl or elementwise"):
        fn(np.ones(2))
