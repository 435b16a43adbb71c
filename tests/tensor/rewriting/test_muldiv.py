"""The canonical form of products and quotients, and the documents' examples (issue 10,
point 5): ``(x * y) / y`` compiles to ``x`` and the derivative of ``x ** 2`` to ``2.0 * x`` in
the default mode; excluding the tag "cancel" keeps the NaN-preserving behaviour."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.gradient import grad
from arignote.printing import pprint
from tests.tensor.rewriting.utils import assert_not_fired, assert_rewrites_to

x, y, z = pt.dscalars("x", "y", "z")
v = pt.dvector("v")
CANON = ("canonicalize",)


def _compiled_output(inputs, out, mode=None):
    fn = arignote.function(inputs, out, mode=mode)
    return fn, fn.maker.fgraph.outputs[0]


def test_derivative_of_square_prints_as_one_multiplication():
    # the gradients tutorial: pp(f.maker.fgraph.outputs[0]) shows (2.0 * x)
    fn, out = _compiled_output([x], grad(x**2, x))
    assert pprint(out) == "(2.0 * x)"
    assert fn(3.0) == 6.0


def test_product_over_its_factor_compiles_to_the_other_factor():
    # the graph-structures page: (x * y) / y is rewritten into x
    fn, out = _compiled_output([x, y], (x * y) / y)
    assert pprint(out) in ("x", "DeepCopyOp(x)")
    assert fn(2.0, 0.0) == 2.0  # the cancelled y may be 0: x, as in PyTensor


def test_nan_preserving_behaviour_is_kept_by_excluding_cancel():
    strict = arignote.get_mode(None).excluding("cancel")
    fn, _ = _compiled_output([x, y], (x * y) / y, mode=strict)
    with np.errstate(all="ignore"):
        assert np.isnan(fn(2.0, 0.0))
        assert np.isnan(arignote.function([x], x / x, mode=strict)(0.0))
    assert fn(2.0, 4.0) == 2.0


CASES = {
    "nested_division": (lambda: x * (y / z), lambda: (x * y) / z),
    "division_of_division": (lambda: (x / y) / z, lambda: x / (y * z)),
    "division_by_division": (lambda: x / (y / z), lambda: (x * z) / y),
    "constants_in_front": (lambda: (x / 2.0) * (y / 4.0), lambda: pt.mul(np.float64(0.125), x, y)),
    "negation_outside": (lambda: (-x) * (y / z), lambda: -((x * y) / z)),
    "cancel_square": (lambda: (x * y) / pt.sqr(y), lambda: x / y),
    "cancel_through_reciprocal": (lambda: pt.reciprocal(y) * (x * y), lambda: x),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_canonical_quotient(case):
    build, expected = CASES[case]
    assert_rewrites_to(build(), expected(), include=CANON, domain=(0.5, 2.0))


def test_cancellation_keeps_the_shape():
    out = assert_not_fired(v * x, "local_mul_div_cancel", include=CANON)
    assert out.type.shape == (None,)
    fn = arignote.function([x, v], (x * v) / v)
    np.testing.assert_array_equal(fn(2.0, np.array([1.0, 3.0, 5.0])), [2.0, 2.0, 2.0])


def test_integers_are_left_alone():
    n, m = pt.lscalars("n", "m")
    assert_not_fired((n * m) // m, "local_mul_div_cancel", include=CANON)
    assert_not_fired(n * (m / n), "local_mul_div_canonical", include=CANON)
