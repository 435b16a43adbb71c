"""Native draws of the ``scipy.stats`` random variables (``arignote/tensor/random/scipy_rvs.py``).

``perform`` calls ``scipy.stats.<dist>.rvs(..., random_state=rng)``; SciPy 1.17 draws these
with NumPy's ``Generator`` and NumPy arithmetic, which a kernel repeats number for number:

- ``betabinom``: ``p = rng.beta(a, b, size)``, then ``rng.binomial(n, p, size)``: every beta
  first, then every binomial (the generator state depends on that order);
- ``truncexpon``: ``u = rng.uniform(size=size)``, then ``-log1p(u * expm1(-b)) * scale + loc``
  with SciPy's own (Cephes) ``log1p`` and ``expm1``, called natively through
  ``scipy.special.cython_special`` (the ufuncs' float32 loops round ``expm1`` to float32);
- ``gengamma``: ``r = rng.standard_gamma(alpha / p, size)``, then ``r ** (1 / p) * lambd``.
  NumPy's float64 ``power`` is not the C library's ``pow``: on CPUs with AVX512 it is SVML's
  vectorised ``pow`` (about one draw in 20 differs from glibc's in the last bit), and with an
  exponent broadcast along the loop (a stride of 0) equal to 2, 0.5 or -1 it is ``x * x``,
  ``sqrt(x)`` or ``1 / x``. The kernel calls NumPy's own float64 power loop (the function the
  ``power`` ufunc holds for ``dd->d``) one number at a time, and the fast forms where NumPy
  takes them (every parameter 0-d: the exponent is a NumPy scalar); any other layout with a
  special exponent goes to ``perform``.

``rv_generic.rvs`` broadcasts the parameters first, and NumPy's loops draw one number per
entry in C order, so a kernel loops over the batch shape in C order as the other scalar draws
do (``dispatch/random.py``). Parameters SciPy or NumPy refuse, and the cases SciPy answers
without drawing (every scale 0), go to ``perform``.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Callable

import numpy as np

import numba
from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import compile_source, numba_funcify, objmode_kernel
from arignote.link.numba.dispatch.random import _ANY, _POSITIVE, _REFUSED, _KernelWriter, copy_rng
from arignote.link.numba.dispatch.scipy_special import entry_point
from arignote.tensor.random.scipy_rvs import BetaBinomialRV, GenGammaRV, TruncExponentialRV
from numba.np.random.distributions import random_standard_gamma
from numba.np.random.generator_core import next_double

_jit = numba.njit(error_model="numpy", cache=False)

_log1p = entry_point("log1p", 1)
_expm1 = entry_point("expm1", 1)

# -- NumPy's float64 power loop -------------------------------------------------------------

#: Offsets in NumPy's ``PyUFuncObject`` (after ``PyObject_HEAD`` and four ints): the array of
#: loop functions, then the array of their data.
_FUNCTIONS_OFFSET = 32
_LOOP = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)


def ufunc_loop(ufunc: np.ufunc, types: str) -> Callable:
    """The inner loop ``ufunc`` runs for the signature ``types`` (``"dd->d"``), as a ctypes
    function ``loop(args, dimensions, steps, data)`` (the first such loop: NumPy's choice)."""
    functions = ctypes.c_void_p.from_address(id(ufunc) + _FUNCTIONS_OFFSET).value
    address = ctypes.c_void_p.from_address(functions + 8 * ufunc.types.index(types)).value
    return _LOOP(address)


_power_loop = ufunc_loop(np.power, "dd->d")


@_jit
def numpy_power(x, y):
    """``np.power(x, y)`` for float64 arrays of one entry: NumPy's loop, called natively."""
    values = np.empty(3)
    values[0], values[1] = x, y
    args = np.empty(3, np.intp)
    for k in range(3):
        args[k] = values.ctypes.data + 8 * k
    dims, steps = np.ones(1, np.intp), np.full(3, 8, np.intp)
    _power_loop(args.ctypes, dims.ctypes, steps.ctypes, 0)
    return values[2]


@_jit
def scalar_power(x, y):
    """``array ** numpy_scalar``: NumPy's loop with the exponent's stride 0 computes the
    exponents -1, 0, 0.5, 1 and 2 without ``pow``."""
    if y == 2.0:
        return x * x
    if y == 0.5:
        return math.sqrt(x)
    if y == -1.0:
        return 1.0 / x
    if y == 1.0:
        return x
    if y == 0.0:
        return 1.0
    return numpy_power(x, y)


@_jit
def special_exponent(y):
    """Whether NumPy's power loop may take a fast form for the exponent ``y``."""
    return y == 2.0 or y == 0.5 or y == -1.0 or y == 0.0


# -- one draw ---------------------------------------------------------------------------------


@_jit
def truncexpon(bitgen, b_expm1, loc, scale):
    """SciPy's ``truncexpon`` draw: its ppf at NumPy's uniform (``b_expm1 = expm1(-b)``)."""
    u = next_double(bitgen)
    return -_log1p(u * b_expm1, 0) * scale + loc


@_jit
def gengamma(bitgen, shape, exponent, scale, fast):
    """SciPy's ``gengamma`` draw: ``standard_gamma(shape) ** exponent * scale + 0``."""
    r = random_standard_gamma(bitgen, shape)
    power = scalar_power(r, exponent) if fast else numpy_power(r, exponent)
    return power * scale + 0.0


@_jit
def expm1_negated(b):
    return _expm1(-b, 0)


@_jit
def expm1_negated_single(b):
    """``scipy.special.expm1`` on a float32 (or float16) ``-b``: float32 of the double."""
    return np.float64(np.float32(_expm1(-b, 0)))


_SAMPLERS = {
    "truncexpon_draw": truncexpon,
    "gengamma_draw": gengamma,
    "expm1_negated": expm1_negated,
    "expm1_negated_single": expm1_negated_single,
    "special_exponent": special_exponent,
}


def _compile(node: Apply, source: str) -> Callable:
    namespace = {"slow": objmode_kernel(node), "copy_rng": copy_rng, **_SAMPLERS}
    namespace["DT"] = np.dtype(node.outputs[1].type.dtype).type
    return compile_source(source, "kernel", namespace)


def _kind(var) -> str:
    """How a parameter enters SciPy's arithmetic: ``"double"`` (float64, or an integer that
    NumPy converts exactly), ``"single"`` (float32 or float16 arithmetic), or ``"refused"``
    (unsigned or boolean values, whose negation wraps or fails in NumPy)."""
    dtype = np.dtype(var.type.dtype)
    if dtype in (np.float64,) or (dtype.kind == "i" and dtype.itemsize <= 8):
        return "double"
    if dtype in (np.float32, np.float16):
        return "single"
    return "refused"


@numba_funcify.register(TruncExponentialRV)
def _truncexpon(op: TruncExponentialRV, node: Apply) -> Callable:
    b = _kind(node.inputs[2])
    expm1 = "expm1_negated_single(x0)" if b == "single" else "expm1_negated(x0)"
    conditions = (_REFUSED if b == "refused" else _POSITIVE, _ANY, _POSITIVE)
    call = f"truncexpon_draw(rng.bit_generator, {expm1}, x1, x2)"
    return _compile(node, _KernelWriter(op, node).source(call, conditions, ""))


def _quotient(node: Apply) -> str:
    """``alpha / p`` in the dtype NumPy divides in (perform divides before calling SciPy)."""
    alpha, p = (np.dtype(v.type.dtype) for v in node.inputs[2:4])
    dtype = np.result_type(alpha, p, np.float16)  # true division of integers gives float64
    if dtype == np.float32:
        return "np.float64(np.float32(x0) / np.float32(x1))"
    return "x0 / x1" if dtype == np.float64 else ""


def _reciprocal(node: Apply) -> str:
    """``1. / p`` as SciPy computes it (a Python float keeps a float32 ``p`` in float32)."""
    dtype = np.dtype(node.inputs[3].type.dtype)
    if dtype == np.float32:
        return "np.float64(np.float32(1.0) / np.float32(x1))"
    return "1.0 / x1" if dtype != np.float16 else ""


@numba_funcify.register(GenGammaRV)
def _gengamma(op: GenGammaRV, node: Apply) -> Callable:
    params = node.inputs[2:]
    shape, exponent = _quotient(node), _reciprocal(node)
    refused = not shape or not exponent or any(_kind(p) == "refused" for p in params)
    conditions = (_REFUSED if refused else _POSITIVE, _POSITIVE, _POSITIVE)
    # every parameter 0-d and float64: the exponent is a NumPy scalar (its fast forms apply);
    # otherwise NumPy's layout decides, and a special exponent goes to perform
    scalar = all(p.type.ndim == 0 and p.type.dtype == "float64" for p in params)
    joint = "" if scalar else f"not special_exponent({exponent or 'x1'})"
    call = f"gengamma_draw(rng.bit_generator, {shape or 'x0'}, {exponent or 'x1'}, x2, {scalar})"
    return _compile(node, _KernelWriter(op, node).source(call, conditions, joint))


# -- betabinom: every beta, then every binomial ------------------------------------------------


class _TwoPassWriter(_KernelWriter):
    """A ``betabinom`` kernel: the success probabilities of the whole batch, then the counts."""

    def _converted(self, k: int) -> str:
        return "np.int64(b0[idx])" if k == 0 else f"np.float64(b{k}[idx])"

    def _draws(self, call: str, joint: str) -> None:
        shape = self._shape_tuple()
        self._line(f"if {' * '.join(f'n{d}' for d in range(self.ndim)) or '1'} == 0:")
        self._line("ok = False", 2)
        self._line("if not ok:")
        self._line(f"return slow(rng, size, {''.join(p + ', ' for p in self.params)})", 2)
        for k, param in enumerate(self.params):
            self._line(f"b{k} = np.broadcast_to({param}, {shape})")
        if not self.op.inplace:
            self._line("rng = copy_rng(rng)")
        self._line(f"p = np.empty({shape})")
        self._loop(shape, "p[idx] = rng.beta(x1, x2)")
        # NumPy's binomial checks every p before its first draw
        self._line("for v in p.ravel():")
        self._line("if not (v >= 0 and v <= 1):", 2)
        self._line("raise ValueError('p < 0, p > 1 or p contains NaNs')", 3)
        self._line(f"out = np.empty({shape}, DT)")
        self._loop(shape, "out[idx] = rng.binomial(x0, p[idx])")
        self._line("return rng, out")


@numba_funcify.register(BetaBinomialRV)
def _betabinom(op: BetaBinomialRV, node: Apply) -> Callable:
    # NumPy 2 refuses a count it cannot cast to int64 safely (TypeError): perform raises it
    count = "{x} >= 0" if np.can_cast(node.inputs[2].type.dtype, np.int64) else _REFUSED
    writer = _TwoPassWriter(op, node)
    return _compile(node, writer.source("", (count, _POSITIVE, _POSITIVE), ""))


__all__ = ["numpy_power", "scalar_power", "ufunc_loop"]
