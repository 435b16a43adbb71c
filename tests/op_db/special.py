"""op_db entries: special functions (``scipy.special`` counterparts in arignote.tensor.math) and
``arignote.tensor.special`` (softmax, log_softmax, logsumexp, logit, beta, factorial, poch)."""

from __future__ import annotations

import numpy as np
import scipy.special as sp

import arignote.scalar as ps
import arignote.tensor as pt
from tests.op_db.core import FLOAT_DTYPES, Directive, OpInfo, Sample, register
from tests.op_db.elemwise import binary, elemwise, unary

# -- unary special functions ---------------------------------------------------------------------

_SPECIAL_UNARY = [
    # name, domain (away from poles and branch points)
    ("erf", (-2.0, 2.0)),
    ("erfc", (-2.0, 2.0)),
    ("erfcx", (-1.0, 3.0)),
    ("erfinv", (-0.9, 0.9)),
    ("erfcinv", (0.1, 1.9)),
    ("gamma", (0.5, 3.5)),
    ("gammaln", (0.5, 4.0)),
    ("psi", (0.5, 4.0)),
    ("i0", (-2.0, 2.0)),
    ("i1", (-2.0, 2.0)),
    ("j0", (-3.0, 3.0)),
    ("j1", (-3.0, 3.0)),
    ("logit", (0.1, 0.9)),
]

_UNARY_DIRECTIVES = {
    "psi": [
        Directive(
            "grad_dtype",
            "psi' is polygamma(1, x), which SciPy computes in float64 only (no float32 loop)",
            kind="skip",
        )
    ],
}

register(
    *[
        elemwise(
            name,
            getattr(pt, name),
            getattr(sp, name),
            unary(low, high, ints=True),
            directives=_UNARY_DIRECTIVES.get(name, []),
        )
        for name, (low, high) in _SPECIAL_UNARY
    ]
)


def _complex_samples(rng):
    """Complex arguments in every quadrant (gamma and psi away from their poles: normal draws
    come nowhere near the negative integers on the real axis), complex64 too."""
    z = rng.normal(scale=2.0, size=(3, 4)) + 1j * rng.normal(scale=2.0, size=(3, 4))
    return [
        Sample((z,), name="complex128"),
        Sample((z[:2, :3].astype("complex64"),), name="complex64"),
    ]


# SciPy's complex loops (complex64 computed through complex128). Complex outputs: verify_grad
# and the generic R_op check need real outputs, as for ``complex`` (elemwise.py).
register(
    *[
        elemwise(
            f"{name}[complex]",
            getattr(pt, name),
            getattr(sp, name),
            _complex_samples,
            ("float64",),
            grad=False,
        )
        for name in ("erf", "erfc", "erfcx", "gamma", "psi")
    ]
)

# -- functions with a parameter ------------------------------------------------------------------


def _order_samples(orders, low, high):
    """A constant order (or shape) parameter broadcast against a non-square x in [low, high]."""

    def samples(rng):
        return [
            Sample(
                (np.asarray(orders), rng.uniform(low, high, (4, len(orders)))),
                name="orders",
                static=(0,),
            ),
            Sample(
                (np.asarray(orders[-1]), rng.uniform(low, high, (2, 3))),
                name="scalar_order",
                static=(0,),
            ),
        ]

    return samples


def _polygamma_samples(rng):
    return [
        Sample((np.array([0, 1, 2]), rng.uniform(0.5, 3.0, (4, 3))), name="int_orders"),
        Sample((np.asarray(1.0), rng.uniform(0.5, 3.0, (2, 5))), name="float_order", static=(0,)),
    ]


def _betainc_samples(rng):
    return [
        Sample(
            (rng.uniform(0.5, 3, (3, 1)), rng.uniform(0.5, 3, (4,)), rng.uniform(0.1, 0.9, (3, 4))),
            name="broadcast",
            static=(0, 1),
        ),
        Sample(
            (np.asarray(2.0), np.asarray(3.5), rng.uniform(0.05, 0.95, (5,))),
            name="scalars",
            static=(0, 1),
        ),
    ]


def _with_shape_grad(samples):
    """``samples`` and one more whose shape parameters are symbolic too: their gradient (the
    shape derivative of ``GammaIncGrad``/``BetaIncGrad``) is checked by finite differences."""

    def extended(rng):
        first = samples(rng)[0]
        shapes = tuple(
            rng.uniform(0.6, 3.5, np.shape(arg)) if k in first.static else arg
            for k, arg in enumerate(first.args)
        )
        return [*samples(rng), Sample(shapes, name="shape_grad")]

    return extended


def in_float64(ref):
    """``ref`` computed on float64 copies of the arguments, in the dtype of the first."""

    def in_float64(*args):
        wide = [np.asarray(arg, dtype="float64") for arg in args]
        return ref(*wide).astype(np.result_type(*args, np.float32))

    return in_float64


# the derivative of P(a, x) in a, by central differences (h^2 error ~ 1e-12, rounding ~ 1e-11)
@in_float64
def _gammainc_shape_ref(a, x, h=1e-5):
    return (sp.gammainc(a + h, x) - sp.gammainc(a - h, x)) / (2 * h)


def _betainc_shape_ref(wrt_a, h=1e-5):
    @in_float64
    def ref(a, b, x):
        if wrt_a:
            return (sp.betainc(a + h, b, x) - sp.betainc(a - h, b, x)) / (2 * h)
        return (sp.betainc(a, b + h, x) - sp.betainc(a, b - h, x)) / (2 * h)

    return ref


def _gammainc_grad_samples(rng):
    a, x = rng.uniform(0.3, 6.0, (3, 4)), rng.uniform(0.1, 9.0, (3, 4))  # both expansions
    return [Sample((a, x), name="same", static=(0,))]


def _betainc_grad_samples(rng):
    a, b = rng.uniform(0.5, 5.0, (3, 1)), rng.uniform(0.5, 5.0, (4,))
    return [Sample((a, b, rng.uniform(0.05, 0.95, (3, 4))), name="broadcast", static=(0, 1))]


_SHAPE_GRAD_TOLERANCE = {"rtol": 1e-6, "atol": 1e-9}
_NO_SECOND_SHAPE_GRAD = [
    Directive(
        "second_order",
        "the second derivative in a shape is not implemented",
        None,
        ["shape_grad"],
        kind="skip",
    )
]

register(
    elemwise("polygamma", pt.polygamma, sp.polygamma, _polygamma_samples),
    elemwise(
        "gammainc",
        pt.gammainc,
        sp.gammainc,
        _with_shape_grad(_order_samples([0.5, 1.0, 2.5], 0.2, 4.0)),
        directives=_NO_SECOND_SHAPE_GRAD,
    ),
    elemwise(
        "gammaincc",
        pt.gammaincc,
        sp.gammaincc,
        _with_shape_grad(_order_samples([0.5, 1.0, 2.5], 0.2, 4.0)),
        directives=_NO_SECOND_SHAPE_GRAD,
    ),
    elemwise(
        "betainc",
        pt.betainc,
        sp.betainc,
        _with_shape_grad(_betainc_samples),
        directives=_NO_SECOND_SHAPE_GRAD,
    ),
    elemwise(
        "gammainc_grad",
        pt.Elemwise(ps.GammaIncGrad()),
        _gammainc_shape_ref,
        _gammainc_grad_samples,
        **_SHAPE_GRAD_TOLERANCE,
    ),
    *(
        elemwise(
            f"betainc_grad[{name}]",
            pt.Elemwise(ps.BetaIncGrad(wrt_a)),
            _betainc_shape_ref(wrt_a),
            _betainc_grad_samples,
            **_SHAPE_GRAD_TOLERANCE,
        )
        for name, wrt_a in (("a", True), ("b", False))
    ),
    # iv of a non-integer order is complex (NaN) for x < 0
    elemwise("iv", pt.iv, sp.iv, _order_samples([0.0, 1.5, 3.0], 0.2, 3.0)),
    elemwise("jv", pt.jv, sp.jv, _order_samples([0.0, 1.5, 3.0], 0.5, 3.0)),
    elemwise("xlogy", pt.xlogy, sp.xlogy, binary(-2.0, 2.0, 0.5, 3.0, ints=True)),
    elemwise("xlog1py", pt.xlog1py, sp.xlog1py, binary(-2.0, 2.0, -0.5, 2.0, ints=True)),
    elemwise("beta", pt.beta, sp.beta, binary(0.5, 3.0, ints=True)),
    elemwise("betaln", pt.betaln, sp.betaln, binary(0.5, 3.0, ints=True)),
    elemwise("poch", pt.poch, sp.poch, binary(0.5, 3.0, -1.0, 2.0, ints=True)),
    elemwise(
        "factorial",
        pt.factorial,
        sp.factorial,
        lambda rng: [
            Sample((rng.uniform(-1.5, 4.0, (3, 4)),), name="real"),
            Sample((rng.integers(-2, 10, (2, 5)),), name="int"),
        ],
    ),
    elemwise(
        "factorial_exact",
        lambda n: pt.factorial(n, exact=True),
        lambda n: sp.factorial(n, exact=True),
        lambda rng: [Sample((rng.integers(-2, 15, (3, 4)),), name="int")],
        dtypes=("int64",),
        grad=False,  # integer-valued
    ),
)

# -- softmax family ------------------------------------------------------------------------------


def _axis_samples(rng):
    x3 = rng.normal(size=(2, 3, 4)) * 3
    return [
        Sample((x3,), {"axis": -1}, name="last"),
        Sample((x3,), {"axis": 0}, name="first"),
        Sample((x3,), {"axis": (0, 2)}, name="pair"),
        Sample((rng.normal(size=(3, 5)),), {"axis": None}, name="all"),
        Sample((rng.normal(size=(3, 5)),), name="default"),  # all axes, as scipy
        Sample((np.array([[1000.0, 1001.0, -1000.0], [-5.0, 0.0, 5.0]]),), {"axis": 1}, "large"),
    ]


def _logsumexp_samples(rng):
    x3 = rng.normal(size=(2, 3, 4)) * 3
    return [
        Sample((x3,), {"axis": None}, name="all"),
        Sample((x3,), {"axis": 1}, name="middle"),
        Sample((x3,), {"axis": (0, 2), "keepdims": True}, name="keepdims"),
        Sample((np.array([[800.0, 801.0], [-800.0, -801.0]]),), {"axis": -1}, name="large"),
        Sample((rng.integers(-3, 3, (3, 4)),), {"axis": 0}, name="int"),
    ]


register(
    OpInfo(
        "softmax",
        pt.softmax,
        sp.softmax,
        _axis_samples,
        dtypes=FLOAT_DTYPES,
        op_class=pt.Softmax,
    ),
    OpInfo(
        "log_softmax",
        pt.log_softmax,
        sp.log_softmax,
        _axis_samples,
        dtypes=FLOAT_DTYPES,
        op_class=pt.LogSoftmax,
        directives=[
            Directive(
                "grad",
                "float32 finite differences of outputs near -1000 carry ~2% rounding noise",
                dtypes=["float32"],
                samples=["large"],
                kind="skip",
            )
        ],
    ),
    OpInfo(
        "logsumexp",
        pt.logsumexp,
        sp.logsumexp,
        _logsumexp_samples,
        dtypes=FLOAT_DTYPES,
        op_class=pt.LogSumExp,
    ),
    OpInfo(
        "allclose",
        pt.allclose,
        np.allclose,
        lambda rng: [
            Sample((np.ones((3, 4)), np.ones(4) + 1e-9), name="close"),
            Sample((rng.normal(size=(3, 4)), rng.normal(size=(3, 4))), name="far"),
            Sample((np.array([np.nan, 1.0]), np.array([np.nan, 1.0])), {"equal_nan": True}, "nan"),
        ],
        dtypes=FLOAT_DTYPES,
        op_class=pt.Elemwise,
        grad=False,
    ),
)
