"""The audited expressions: each stabilizing rule's patterns in several spellings, and their
gradients. ``docs/stability.md`` is generated from this table (``tests/stability/table.py``).

Each case builds its outputs from fresh inputs; ``rtol`` is 1e-13 unless the function's
conditioning forbids it (then ``why`` says so); ``points`` replaces the built-in extreme points
of an input where a function is defined on a smaller domain or needs spread values.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

import arignote.tensor as pt


@dataclass(frozen=True)
class Case:
    name: str  # the expression as a user writes it
    build: Callable  # () -> (outputs, points)
    rtol: float = 1e-13
    atol: float = 0.0  # an absolute bound where the conditioning forbids a relative one
    why: str = ""  # why the bound is looser than 1e-13 relative
    gradient: bool = True  # also audit d(output)/d(each input)
    family: str = ""
    tags: tuple = field(default_factory=tuple)


def _scalar(fn):
    def build():
        x = pt.dscalar("x")
        return fn(x), {}

    return build


def _unit(fn):
    def build():
        p = pt.dscalar("p")
        return fn(p), {p: IN_UNIT}

    return build


def _scalar32(fn):
    def build():
        x = pt.fscalar("x")
        return fn(x), {}

    return build


def _pair32(fn):
    def build():
        a, b = pt.fscalars("a", "b")
        return fn(a, b), {}

    return build


def _pair(fn, points=None):
    def build():
        a, b = pt.dscalars("a", "b")
        return fn(a, b), points or {}

    return build


def _vector(fn, rows=None):
    def build():
        v = pt.dvector("v")
        values = rows if rows is not None else SPREAD
        return fn(v), {v: [np.array(r) for r in values]}

    return build


# single precision: 8 machine epsilons, the audit's floor for float32 outputs
F32 = {"rtol": 8 * float(np.finfo(np.float32).eps), "why": "float32", "family": "float32"}

SPREAD = [
    [0.0, 1.0, 2.0],
    [1000.0, 0.0, -1000.0],
    [-1000.0, -1001.0, -999.0],
    [1000.0, 1001.0, 999.0],
    [1e300, 1.0, -1e300],
    [-1e-20, 1e-20, 0.0],
]
IN_UNIT = [1e-300, 1e-20, 1e-10, 0.5, 1 - 2.0**-53, 2.0**-53]
NEGATIVE = [-1e-300, -1e-20, -1e-10, -0.5, -1.0, -40.0, -1000.0, -1e300]
POSITIVE = [1e-300, 1e-20, 0.5, 1.0, 40.0, 1000.0, 1e300]


def sigmoid_spellings(x):
    return {
        "sigmoid(x)": pt.sigmoid(x),
        "1 / (1 + exp(-x))": 1 / (1 + pt.exp(-x)),
        "reciprocal(1 + exp(-x))": pt.reciprocal(1 + pt.exp(-x)),
        "exp(x) / (1 + exp(x))": pt.exp(x) / (1 + pt.exp(x)),
        "(1 + exp(-x)) ** -1": (1 + pt.exp(-x)) ** -1,
    }


CASES = [
    # -- the logistic family ---------------------------------------------------------------
    Case("log(sigmoid(x))", _scalar(lambda x: pt.log(pt.sigmoid(x))), family="logistic"),
    Case(
        "log(1 / (1 + exp(-x)))", _scalar(lambda x: pt.log(1 / (1 + pt.exp(-x)))), family="logistic"
    ),
    Case(
        "log(reciprocal(1 + exp(-x)))",
        _scalar(lambda x: pt.log(pt.reciprocal(1 + pt.exp(-x)))),
        family="logistic",
    ),
    Case(
        "log(exp(x) / (1 + exp(x)))",
        _scalar(lambda x: pt.log(pt.exp(x) / (1 + pt.exp(x)))),
        family="logistic",
    ),
    Case("-log(1 + exp(-x))", _scalar(lambda x: -pt.log(1 + pt.exp(-x))), family="logistic"),
    Case("log(1 - sigmoid(x))", _scalar(lambda x: pt.log(1 - pt.sigmoid(x))), family="logistic"),
    Case("log1p(-sigmoid(x))", _scalar(lambda x: pt.log1p(-pt.sigmoid(x))), family="logistic"),
    Case(
        "log(1 - 1 / (1 + exp(-x)))",
        _scalar(lambda x: pt.log(1 - 1 / (1 + pt.exp(-x)))),
        family="logistic",
    ),
    Case("1 - sigmoid(x)", _scalar(lambda x: 1 - pt.sigmoid(x)), family="logistic"),
    Case("1 / (1 + exp(-x))", _scalar(lambda x: 1 / (1 + pt.exp(-x))), family="logistic"),
    Case(
        "exp(x) / (1 + exp(x))", _scalar(lambda x: pt.exp(x) / (1 + pt.exp(x))), family="logistic"
    ),
    Case(
        "sigmoid(x) * (1 - sigmoid(x))",
        _scalar(lambda x: pt.sigmoid(x) * (1 - pt.sigmoid(x))),
        family="logistic",
    ),
    Case("log(1 + exp(x))", _scalar(lambda x: pt.log(1 + pt.exp(x))), family="logistic"),
    Case("log1p(exp(x))", _scalar(lambda x: pt.log1p(pt.exp(x))), family="logistic"),
    Case("softplus(x)", _scalar(lambda x: pt.softplus(x)), family="logistic"),
    Case("log(1 + exp(-x))", _scalar(lambda x: pt.log(1 + pt.exp(-x))), family="logistic"),
    Case("x - softplus(x)", _scalar(lambda x: x - pt.softplus(x)), family="logistic", rtol=1e-13),
    Case("logit(sigmoid(x))", _scalar(lambda x: pt.logit(pt.sigmoid(x))), family="logistic"),
    Case(
        "log(sigmoid(x) / (1 - sigmoid(x)))",
        _scalar(lambda x: pt.log(pt.sigmoid(x) / (1 - pt.sigmoid(x)))),
        family="logistic",
    ),
    # -- exponentials and logarithms ---------------------------------------------------------
    Case("exp(x) - 1", _scalar(lambda x: pt.exp(x) - 1), family="exp"),
    Case("1 - exp(x)", _scalar(lambda x: 1 - pt.exp(x)), family="exp"),
    Case("-(1 - exp(x))", _scalar(lambda x: -(1 - pt.exp(x))), family="exp"),
    Case("log(1 + x)", _scalar(lambda x: pt.log(1 + x)), family="exp"),
    Case("log(1 - x)", _scalar(lambda x: pt.log(1 - x)), family="exp"),
    Case("log(1 - exp(x))", _scalar(lambda x: pt.log(1 - pt.exp(x))), family="exp"),
    Case("log(-expm1(x))", _scalar(lambda x: pt.log(-pt.expm1(x))), family="exp"),
    Case("log(expm1(x))", _scalar(lambda x: pt.log(pt.expm1(x))), family="exp"),
    Case("log(exp(x) - 1)", _scalar(lambda x: pt.log(pt.exp(x) - 1)), family="exp"),
    Case("log(erfc(x))", _scalar(lambda x: pt.log(pt.erfc(x))), family="exp"),
    Case(
        "log(exp(a) + exp(b))",
        _pair(lambda a, b: pt.log(pt.exp(a) + pt.exp(b))),
        family="logsumexp",
    ),
    Case(
        "log(exp(a) - exp(b))",
        _pair(lambda a, b: pt.log(pt.exp(a) - pt.exp(b))),
        family="logsumexp",
    ),
    Case("exp(a) / exp(b)", _pair(lambda a, b: pt.exp(a) / pt.exp(b)), family="exp"),
    Case("exp(a) * exp(b)", _pair(lambda a, b: pt.exp(a) * pt.exp(b)), family="exp"),
    Case("log(exp(a) * exp(b))", _pair(lambda a, b: pt.log(pt.exp(a) * pt.exp(b))), family="exp"),
    Case("log(a * b)", _pair(lambda a, b: pt.log(a * b)), family="log"),
    Case("log(a / b)", _pair(lambda a, b: pt.log(a / b)), family="log"),
    Case("log(x ** 2)", _scalar(lambda x: pt.log(x**2)), family="log"),
    Case("log(sqrt(x))", _scalar(lambda x: pt.log(pt.sqrt(x))), family="log"),
    Case("log(exp(x) ** 2)", _scalar(lambda x: pt.log(pt.exp(x) ** 2)), family="log"),
    # -- reductions ---------------------------------------------------------------------------
    Case("log(sum(exp(v)))", _vector(lambda v: pt.log(pt.exp(v).sum())), family="logsumexp"),
    Case("logsumexp(v)", _vector(lambda v: pt.logsumexp(v)), family="logsumexp"),
    Case(
        "log(softmax(v))",
        _vector(lambda v: pt.log(pt.softmax(v))),
        atol=1e-15,
        why="the gradient of sum(log_softmax(v)) is 1 - n softmax(v), which cancels where v "
        "is nearly uniform: absolute error 1e-15",
        family="softmax",
    ),
    Case("exp(v) / sum(exp(v))", _vector(lambda v: pt.exp(v) / pt.exp(v).sum()), family="softmax"),
    Case("-log(softmax(v))[0]", _vector(lambda v: -pt.log(pt.softmax(v))[0]), family="softmax"),
    Case(
        "-sum(y * log(softmax(v)))",
        _vector(lambda v: -(np.array([0.2, 0.3, 0.5]) * pt.log(pt.softmax(v))).sum()),
        family="softmax",
    ),
    Case("sqrt(sum(v ** 2))", _vector(lambda v: pt.sqrt((v**2).sum())), family="norm"),
    # -- hyperbolic functions -----------------------------------------------------------------
    Case(
        "(exp(x) - exp(-x)) / 2",
        _scalar(lambda x: (pt.exp(x) - pt.exp(-x)) / 2),
        family="hyperbolic",
    ),
    Case(
        "(exp(x) + exp(-x)) / 2",
        _scalar(lambda x: (pt.exp(x) + pt.exp(-x)) / 2),
        family="hyperbolic",
    ),
    Case(
        "(exp(x) - exp(-x)) / (exp(x) + exp(-x))",
        _scalar(lambda x: (pt.exp(x) - pt.exp(-x)) / (pt.exp(x) + pt.exp(-x))),
        family="hyperbolic",
    ),
    Case("log(cosh(x))", _scalar(lambda x: pt.log(pt.cosh(x))), family="hyperbolic"),
    Case("log(sinh(x))", _scalar(lambda x: pt.log(pt.sinh(x))), family="hyperbolic"),
    Case("tanh(x)", _scalar(lambda x: pt.tanh(x)), family="hyperbolic"),
    Case(
        "log(x + sqrt(x ** 2 + 1))",
        _scalar(lambda x: pt.log(x + pt.sqrt(x**2 + 1))),
        family="hyperbolic",
    ),
    # -- square roots, hypotenuses ------------------------------------------------------------
    Case("sqrt(x ** 2)", _scalar(lambda x: pt.sqrt(x**2)), family="sqrt"),
    Case("sqrt(x * x)", _scalar(lambda x: pt.sqrt(x * x)), family="sqrt"),
    Case("sqrt(a ** 2 + b ** 2)", _pair(lambda a, b: pt.sqrt(a**2 + b**2)), family="sqrt"),
    Case("sqrt(a * a + b * b)", _pair(lambda a, b: pt.sqrt(a * a + b * b)), family="sqrt"),
    Case("sqrt(1 + x ** 2)", _scalar(lambda x: pt.sqrt(1 + x**2)), family="sqrt"),
    # -- products of many small factors -------------------------------------------------------
    Case(
        "log(prod(v))",
        _vector(
            lambda v: pt.log(pt.prod(v)),
            rows=[[1e-200, 1e-200, 1e-200], [1e200, 1e200, 1e-300], [0.5, 2.0, 4.0]],
        ),
        family="log",
        gradient=False,
    ),
    # -- the error function --------------------------------------------------------------------
    Case("1 - erf(x)", _scalar(lambda x: 1 - pt.erf(x)), family="erf"),
    Case("1 + erf(x)", _scalar(lambda x: 1 + pt.erf(x)), family="erf"),
    Case("log(1 - erf(x))", _scalar(lambda x: pt.log(1 - pt.erf(x))), family="erf"),
    Case("sigmoid(logit(p))", _unit(lambda p: pt.sigmoid(pt.logit(p))), family="logistic"),
    Case("log(1 / x)", _scalar(lambda x: pt.log(1 / x)), family="log"),
    # -- float32: the same rules, in single precision ------------------------------------------
    Case("float32 log(sigmoid(x))", _scalar32(lambda x: pt.log(pt.sigmoid(x))), **F32),
    Case(
        "float32 log(1 / (1 + exp(-x)))",
        _scalar32(lambda x: pt.log(1 / (1 + pt.exp(-x)))),
        **F32,
    ),
    Case(
        "float32 log(1 - sigmoid(x))",
        _scalar32(lambda x: pt.log(1 - pt.sigmoid(x))),
        **F32,
    ),
    Case(
        "float32 log(exp(a) + exp(b))",
        _pair32(lambda a, b: pt.log(pt.exp(a) + pt.exp(b))),
        **F32,
    ),
    Case("float32 exp(x) - 1", _scalar32(lambda x: pt.exp(x) - 1), **F32),
    Case("float32 log(cosh(x))", _scalar32(lambda x: pt.log(pt.cosh(x))), **F32),
    # -- algebra of the documentation ---------------------------------------------------------
    Case("(a * b) / b", _pair(lambda a, b: (a * b) / b), family="algebra"),
]
