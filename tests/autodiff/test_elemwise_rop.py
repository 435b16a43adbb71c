"""``Elemwise.R_op`` is the scalar op's ``R_op`` lifted over tensors: one tangent rule.

For each scalar op (holomorphic, non-holomorphic, real-valued of complex, complex of real), the
tangent of the tensor op matches central differences, and matches the scalar op's tangent
evaluated element by element, also when only some inputs move (the "missing imaginary part"
on which the two used to disagree) and when inputs broadcast.
"""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.scalar as ps
import arignote.tensor as pt
from arignote.scalar.complex import complex_ as ps_complex

# name -> (tensor function, scalar function, NumPy reference, input kinds: "z" complex / "x" real)
CASES = {
    "exp": (pt.exp, ps.exp, np.exp, "z"),
    "abs": (pt.abs, ps.abs, np.abs, "z"),
    "angle": (pt.angle, ps.angle, np.angle, "z"),
    "real": (pt.real, ps.real, np.real, "z"),
    "imag": (pt.imag, ps.imag, np.imag, "z"),
    "conj": (pt.conj, ps.conj, np.conj, "z"),
    "sqrt": (pt.sqrt, ps.sqrt, np.sqrt, "z"),
    "complex": (pt.complex, ps_complex, lambda a, b: a + 1j * b, "xx"),
    "mul_mixed": (pt.mul, ps.mul, np.multiply, "zx"),
    "true_div": (pt.true_div, ps.true_div, np.divide, "zz"),
    "pow": (pt.pow, ps.pow, np.power, "zz"),
    "tanh_real": (pt.tanh, ps.tanh, np.tanh, "x"),
}

SHAPES = [(3, 1), (1, 4)]  # the inputs broadcast against each other


def _value(rng, kind, shape):
    real = rng.uniform(0.5, 1.5, size=shape)
    return real + 1j * rng.uniform(-0.7, 0.7, size=shape) if kind == "z" else real


def _variable(kind, shape):
    return pt.tensor(dtype="complex128" if kind == "z" else "float64", shape=shape)


def _scalar(kind):
    return ps.scalar(dtype="complex128" if kind == "z" else "float64")


@pytest.mark.parametrize("moving", ["all", "first"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_elemwise_tangent_matches_finite_differences_and_the_scalar_rule(name, moving, rng):
    tensor_fn, scalar_fn, reference, kinds = CASES[name]
    shapes = SHAPES[: len(kinds)] if len(kinds) > 1 else [(3, 4)]
    xs = [_variable(k, s) for k, s in zip(kinds, shapes)]
    vs = [_variable(k, s) for k, s in zip(kinds, shapes)]
    values = [_value(rng, k, s) for k, s in zip(kinds, shapes)]
    tangents = [_value(rng, k, s) for k, s in zip(kinds, shapes)]
    if moving == "first":
        tangents = [t if i == 0 else np.zeros_like(t) for i, t in enumerate(tangents)]
        points = [vs[0]] + [None] * (len(vs) - 1)
    else:
        points = vs
    out = tensor_fn(*xs)
    jvp = out.owner.op.R_op(xs, points)[0]
    fn = arignote.function([*xs, *vs], jvp, on_unused_input="ignore")
    got = fn(*values, *tangents)
    eps = 1e-6
    above = reference(*[a + eps * t for a, t in zip(values, tangents)])
    below = reference(*[a - eps * t for a, t in zip(values, tangents)])
    np.testing.assert_allclose(got, (above - below) / (2 * eps), rtol=1e-6, atol=1e-7)
    assert got.shape == np.broadcast(*values).shape and got.dtype == out.type.dtype

    # the scalar op's own rule at one element gives the same number
    sx = [_scalar(k) for k in kinds]
    sv = [_scalar(k) for k in kinds]
    s_points = sv if moving == "all" else [sv[0]] + [None] * (len(sv) - 1)
    s_tangent = scalar_fn(*sx).owner.op.R_op(sx, s_points)[0]
    s_fn = arignote.function([*sx, *sv], s_tangent, on_unused_input="ignore")
    at = [(np.broadcast_to(a, got.shape))[2, 3] for a in values]
    dt = [(np.broadcast_to(t, got.shape))[2, 3] for t in tangents]
    assert s_fn(*at, *dt) == pytest.approx(got[2, 3], rel=1e-12, abs=1e-12)


def test_integer_outputs_have_no_tangent_and_unmoved_inputs_none():
    x, v = pt.dmatrix(), pt.dmatrix()
    out = pt.lt(x, 1.0)
    assert out.owner.op.R_op([x, pt.constant(1.0)], [v, None]) == [None]
    assert pt.exp(x).owner.op.R_op([x], [None]) == [None]
