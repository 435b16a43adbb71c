"""Each rule of ``local_stable_ratio`` (arignote/tensor/rewriting/ratios.py), seen firing on a
spelling that overflows or cancels at an extreme input, and not firing where its factors do
not match. Values are checked against closed forms at the extreme point, and (by the
directory's autouse fixture) before and after rewriting on random inputs."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

import arignote
import arignote.tensor as pt
from arignote.printing import pprint
from tests.tensor.rewriting.utils import rewrite_traced

x, y = pt.dscalars("x", "y")
STABLE = ("canonicalize", "stabilize")
RULE = "local_stable_ratio"

# name: (spelling, a similar graph the rule must leave alone, point, closed form at the point)
RULES = {
    "exp(x) / (1 + exp(x))": (
        lambda: pt.exp(x) / (1 + pt.exp(x)),
        lambda: pt.exp(x) / (2 + pt.exp(y)),
        {x: 1000.0, y: 0.0},
        1.0,
    ),
    "1 / (1 + exp(-x))": (
        lambda: 1 / (1 + pt.exp(-x)),
        lambda: 1 / (2 + pt.exp(-x)),
        {x: -1000.0},
        0.0,
    ),
    "1 / (1 + exp(x))": (
        lambda: 2.0 / (1 + pt.exp(x)),
        lambda: 2.0 / (1 + pt.exp2(x)),
        {x: -1000.0},
        2.0,
    ),
    "exp(x) / (exp(x) + exp(y))": (
        lambda: pt.exp(x) / (pt.exp(x) + pt.exp(y)),
        lambda: pt.exp(x) / (pt.exp(x) + pt.exp2(y)),
        {x: 1000.0, y: 999.0},
        special.expit(1.0),
    ),
    "exp(x) / exp(y)": (
        lambda: pt.exp(x) / pt.exp(y),
        lambda: pt.exp(x) / pt.exp2(y),
        {x: 1000.0, y: 999.0},
        np.e,
    ),
    "sigmoid(x) / sigmoid(-x)": (
        lambda: pt.sigmoid(x) / pt.sigmoid(-x),
        lambda: pt.sigmoid(x) / pt.sigmoid(-y),
        {x: 800.0, y: 0.0},
        np.inf,  # e^800 overflows: the exact answer
    ),
    "sinh(x) / cosh(x)": (
        lambda: pt.sinh(x) / pt.cosh(x),
        lambda: pt.sinh(x) / pt.cosh(y),
        {x: 1000.0, y: 0.0},
        1.0,
    ),
    "cosh(x) / sinh(x)": (
        lambda: pt.cosh(x) / pt.sinh(x),
        lambda: pt.cosh(y) / pt.sinh(x),
        {x: 1000.0, y: 0.0},
        1.0,
    ),
    "exp(-x^2) / erfc(x)": (
        lambda: pt.exp(-pt.sqr(x)) / pt.erfc(x),
        lambda: pt.exp(-pt.sqr(x)) / pt.erfc(y),
        {x: 40.0, y: 0.0},
        1 / special.erfcx(40.0),
    ),
    "exp(x) / expm1(x)": (
        lambda: pt.exp(x) / pt.expm1(x),
        lambda: pt.exp(x) / pt.expm1(y),
        {x: 1000.0, y: 1.0},
        1.0,
    ),
    "exp(x) / -expm1(x)": (
        lambda: pt.exp(x) / -pt.expm1(x),
        lambda: pt.exp(y) / -pt.expm1(x),
        {x: -1000.0, y: 0.0},
        0.0,
    ),
    "exp(x) / (exp(x) - exp(y))": (
        lambda: pt.exp(x) / (pt.exp(x) - pt.exp(y)),
        lambda: pt.exp(x) / (pt.exp(x) - pt.exp2(y)),
        {x: 1000.0, y: 999.0},
        1 / -np.expm1(-1.0),
    ),
    "exp(y) / (exp(x) - exp(y))": (
        lambda: pt.exp(y) / (pt.exp(x) - pt.exp(y)),
        lambda: pt.exp2(y) / (pt.exp(x) - pt.exp2(y)),
        {x: 1000.0, y: 999.0},
        1 / np.expm1(1.0),
    ),
    "exp(x) * exp(y)": (
        lambda: pt.exp(x) * pt.exp(y),
        lambda: pt.exp(x) * pt.exp2(y),
        {x: 1000.0, y: -1000.0},
        1.0,
    ),
    "sigmoid(x) * exp(-x)": (
        lambda: pt.sigmoid(x) * pt.exp(-x),
        lambda: pt.sigmoid(x) * pt.exp(-y),
        {x: -1000.0, y: 0.0},
        1.0,
    ),
    "sigmoid(-x) * exp(x)": (
        lambda: pt.sigmoid(-x) * pt.exp(x),
        lambda: pt.sigmoid(-x) * pt.exp(y),
        {x: 1000.0, y: 0.0},
        1.0,
    ),
    "exp(v) / sum(exp(v))": (
        # scaled: the plain spelling is local_softmax_from_exp's (special.py)
        lambda: 2 * pt.exp(pt.stack([x, y])) / pt.exp(pt.stack([x, y])).sum(),
        lambda: 2 * pt.exp(pt.stack([x, y])) / pt.exp(pt.stack([y, x])).sum(),
        {x: 1000.0, y: 0.0},
        np.array([2.0, 0.0]),
    ),
}


@pytest.mark.parametrize("name", sorted(RULES))
def test_ratio_rule_fires_and_is_accurate_at_the_extreme_point(name):
    spelling, _, point, exact = RULES[name]
    out = spelling()
    _, fired = rewrite_traced(out, include=STABLE, domain=(0.5, 2.0))
    assert RULE in fired, fired
    inputs = [v for v in (x, y) if v in point]
    fn = arignote.function(inputs, out, on_unused_input="ignore")
    with np.errstate(all="ignore"):
        got = fn(*[point[v] for v in inputs])
    np.testing.assert_allclose(got, exact, rtol=1e-13)


@pytest.mark.parametrize("name", sorted(RULES))
def test_ratio_rule_does_not_fire_on_other_factors(name):
    _, other, _, _ = RULES[name]
    out, fired = rewrite_traced(other(), include=STABLE, domain=(0.5, 2.0))
    assert RULE not in fired, pprint(out)
