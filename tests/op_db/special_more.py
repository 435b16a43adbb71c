"""op_db entries: arignote.tensor.special_functions (scipy.special references)."""

from __future__ import annotations

import numpy as np
import scipy.special as sp

import arignote.scalar.special_more as psm
import arignote.tensor as pt
from tests.op_db.core import FLOAT_DTYPES, Directive, OpInfo, Sample, register
from tests.op_db.special import in_float64


def _static_first(params, low, high, signed=False):
    """A constant parameter (no derivative in it) beside a non-square x in [low, high]."""

    def samples(rng):
        x = rng.uniform(low, high, size=(3, len(params)))
        if signed:
            x = x * rng.choice([-1.0, 1.0], size=x.shape)
        return [Sample((np.asarray(params), x), name="params", static=(0,))]

    return samples


def _two_static(a, b, low, high):
    def samples(rng):
        y = rng.uniform(low, high, size=(3, len(a)))
        return [Sample((np.asarray(a), np.asarray(b), y), name="params", static=(0, 1))]

    return samples


def _hyp2f1_samples(rng):
    z = rng.uniform(-0.8, 0.8, size=(3, 4))
    params = rng.uniform(0.5, 2.5, size=(3, 3, 4))
    return [
        Sample((0.5, 1.5, 2.5, z), name="params", static=(0, 1, 2)),
        Sample((np.array([1.0, -0.5, 2.0, 0.3]), 1.2, 3.1, z), name="vec_a", static=(0, 1, 2)),
        # symbolic parameters: their derivatives (Hyp2F1Grad) are checked by finite differences
        Sample((*params[:2], params[2] + 2.0, z), name="parameter_grads"),
    ]


def _hyp2f1_grad_ref(wrt, h=1e-6):
    """The derivative in parameter ``wrt`` by central differences of SciPy's hyp2f1."""

    @in_float64
    def ref(*args):
        up, down = list(args), list(args)
        up[wrt], down[wrt] = args[wrt] + h, args[wrt] - h
        return (sp.hyp2f1(*up) - sp.hyp2f1(*down)) / (2 * h)

    return ref


def _hyp2f1_grad_samples(rng):
    z = rng.uniform(-3.0, 0.9, size=(3, 4))  # Pfaff's transformation below 0
    a, b, c = rng.uniform(-1.5, 2.5, size=(3, 3, 4))
    c = np.abs(c) + 0.3  # away from the poles of c
    return [Sample((a, b, c, z), name="mixed", static=(0, 1, 2))]


def _owens_samples(rng):
    return [Sample((rng.uniform(-2, 2, size=(3, 4)), rng.uniform(-2, 2, size=(3, 4))))]


def _entry(name, fn, ref, samples, **kwargs):
    return OpInfo(name, fn, ref, samples, dtypes=FLOAT_DTYPES, op_class=pt.Elemwise, **kwargs)


register(
    _entry("kv", pt.kv, sp.kv, _static_first([0.5, 1.0, 1.5, 2.5], 0.5, 3.0)),
    _entry("kve", pt.kve, sp.kve, _static_first([0.5, 1.0, 1.5, 2.5], 0.5, 3.0)),
    _entry("kn", pt.kn, sp.kn, _static_first(np.array([0, 1, 2, 3]), 0.5, 3.0)),
    _entry("ive", pt.ive, sp.ive, _static_first([0.5, 1.0, 1.5, 2.5], 0.3, 3.0)),
    # negative x only for integer orders (a real order gives a complex value there: NaN)
    _entry("ive[signed]", pt.ive, sp.ive, _static_first([0.0, 1.0, 2.0, 3.0], 0.3, 3.0, True)),
    _entry(
        "gammaincinv", pt.gammaincinv, sp.gammaincinv, _static_first([0.5, 1.0, 2.5, 4.0], 0.1, 0.9)
    ),
    _entry(
        "gammainccinv",
        pt.gammainccinv,
        sp.gammainccinv,
        _static_first([0.5, 1.0, 2.5, 4.0], 0.1, 0.9),
    ),
    _entry(
        "betaincinv",
        pt.betaincinv,
        sp.betaincinv,
        _two_static([0.5, 1.0, 2.5, 4.0], [1.5, 2.0, 0.7, 3.0], 0.1, 0.9),
        rtol=1e-5,
    ),
    _entry(
        "hyp2f1",
        pt.hyp2f1,
        sp.hyp2f1,
        _hyp2f1_samples,
        directives=[
            Directive(
                "second_order",
                "the second derivative in a parameter is not implemented",
                samples=["parameter_grads"],
                kind="skip",
            )
        ],
    ),
    *(
        _entry(
            f"hyp2f1_grad[{'abc'[wrt]}]",
            pt.Elemwise(psm.Hyp2F1Grad(wrt)),
            _hyp2f1_grad_ref(wrt),
            _hyp2f1_grad_samples,
            rtol=1e-6,
            atol=1e-8,
        )
        for wrt in range(3)
    ),
    _entry("owens_t", pt.owens_t, sp.owens_t, _owens_samples),
)
