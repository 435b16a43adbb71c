"""ScalarOp machinery added for the elementwise library: probed dtypes, conjugation, weak
Python numbers restricted to the typing inputs."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.scalar as ps
from arignote.gradient import grad
from arignote.graph.basic import Constant
from arignote.graph.grad_types import disconnected
from arignote.scalar.basic import (
    UnaryScalarOp,
    conj_if_complex,
    convert_weak_scalars,
    get_scalar_type,
    probed_output_types,
)


def test_probed_output_types_follow_the_numpy_function():
    op = ps.RoundHalfToEven(0)
    types = [ps.get_scalar_type(d) for d in ("bool", "int8", "float32")]
    assert [t.dtype for t in probed_output_types(op, [types[0]])] == ["float16"]
    assert [t.dtype for t in probed_output_types(op, [types[1]])] == ["int8"]
    assert [t.dtype for t in probed_output_types(op, [types[2]])] == ["float32"]


def test_probed_output_types_refusal_is_a_type_error():
    with pytest.raises(TypeError, match=r"factorial\{exact=True\}.*float64"):
        ps.Factorial(exact=True)(ps.float64("x"))


def test_conj_if_complex_adds_nothing_to_real_graphs():
    x = ps.float64("x")
    assert conj_if_complex(x) is x
    assert conj_if_complex(2.5) == 2.5
    z = ps.scalar("z", dtype="complex128")
    assert conj_if_complex(z).owner.op == ps.conj


def test_conj_gradient():
    a, b = ps.float64("a"), ps.float64("b")
    # C = Im(conj(a + ib)) = -b
    cost = ps.imag(ps.conj(ps.complex_(a, b)))
    ga, gb = arignote.function([a, b], grad(cost, [a, b]), on_unused_input="ignore")(1.0, 2.0)
    assert (ga, gb) == (0.0, -1.0)


def test_weak_scalars_typed_from_the_typing_positions_only():
    cond, x = ps.int64("cond"), ps.float32("x")
    converted = convert_weak_scalars([cond, x, 0.5], ps.constant, typing_positions=(1, 2))
    assert converted[2].type.dtype == "float32"
    converted = convert_weak_scalars([cond, x, 0.5], ps.constant)
    assert converted[2].type.dtype == "float64"
    assert ps.switch(cond, x, 0.5).type.dtype == "float32"


def test_scalar_ops_evaluate_on_scalars():
    x = ps.float64("x")
    outputs = [ps.erf(x), ps.arcsinh(x), ps.round_half_away_from_zero(x), ps.logaddexp(x, 1.0)]
    got = arignote.function([x], outputs)(2.5)
    np.testing.assert_allclose(
        got, [0.999593047982555, np.arcsinh(2.5), 3.0, np.logaddexp(2.5, 1.0)], rtol=1e-14
    )


def test_weak_scalars_take_the_dtype_of_the_ufunc_loop():
    """At the scalar level too: a Python number is typed by the loop NumPy would run."""
    x8, f32 = ps.scalar("x8", "int8"), ps.float32("f")
    assert ps.true_div(x8, 300).type.dtype == (np.ones(1, "int8") / 300).dtype
    assert ps.lt(x8, 300).type.dtype == "bool"  # exact comparison, no OverflowError
    assert ps.beta(f32, 2).type.dtype == "float64"  # SciPy's loop order
    assert ps.polygamma(1, f32).type.dtype == "float64"  # scipy's polygamma: np.asarray(1)
    with pytest.raises(OverflowError):
        ps.add(x8, 300)
    got = arignote.function([x8], [ps.lt(x8, 300), ps.gt(x8, -1000), ps.eq(x8, 300)])(100)
    assert [bool(g) for g in got] == [True, True, False]


class _RealToComplex(UnaryScalarOp):
    """x -> x + 0j, whose imaginary part does not depend on x (its partial is disconnected)."""

    nfunc = staticmethod(lambda x: np.asarray(x, dtype="complex128"))

    def output_types(self, types):
        return [get_scalar_type("complex128")]

    def L_op(self, inputs, outputs, output_grads):
        (g,) = output_grads
        if isinstance(g, Constant) and np.imag(g.data) != 0:
            return [disconnected()]  # the cotangent i: Im(y) does not depend on x
        return [ps.real(g)]


def test_a_part_without_tangent_counts_as_zero_as_in_elemwise():
    x, v = ps.float64("x"), ps.float64("v")
    (tangent,) = _RealToComplex().R_op([x], [v])
    assert tangent is not None  # the real part moves even though the imaginary part cannot
    f = arignote.function([x, v], tangent, on_unused_input="ignore")
    assert f(np.float64(1.0), np.float64(3.0)) == 3.0 + 0j
