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
  ``sqrt(x)`` or ``1 / x``. The kernel draws every gamma, then runs NumPy's own float64 power
  loop (the function the ``power`` ufunc holds for ``dd->d``) over them, with a zero step for
  the exponent where NumPy has one (every parameter 0-d: the exponent is a NumPy scalar); any
  other layout with a special exponent goes to ``perform``.

``rv_generic.rvs`` broadcasts the parameters first, and NumPy's loops draw one number per
entry in C order, so a kernel loops over the batch shape in C order as the other scalar draws
do (``dispatch/random.py``). Parameters SciPy or NumPy refuse, and the cases SciPy answers
without drawing (every scale 0), go to ``perform``.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable

import llvmlite.binding
import numpy as np
from llvmlite import ir

import numba
from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import (
    NotNative,
    compile_source,
    numba_funcify,
    objmode_kernel,
)
from arignote.link.numba.dispatch.random import _ANY, _POSITIVE, _REFUSED, _KernelWriter, copy_rng
from arignote.link.numba.dispatch.scipy_special import entry_point
from arignote.tensor.random.scipy_rvs import BetaBinomialRV, GenGammaRV, TruncExponentialRV
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.random.distributions import random_standard_gamma
from numba.np.random.generator_core import next_double

_jit = numba.njit(error_model="numpy", cache=False)

_log1p = entry_point("log1p", 1)
_expm1 = entry_point("expm1", 1)

# -- NumPy's float64 power loop -------------------------------------------------------------

#: Offset of the array of loop functions in NumPy's ``PyUFuncObject`` (after
#: ``PyObject_HEAD`` and four ints).
_FUNCTIONS_OFFSET = 32
#: ... then the number of loops (an int) and, after another int, the ufunc's name.
_NTYPES_OFFSET, _NAME_OFFSET = 48, 56


def ufunc_loop_address(ufunc: np.ufunc, types: str) -> int | None:
    """The address of the inner loop ``ufunc`` runs for the signature ``types`` (``"dd->d"``;
    the first such loop, NumPy's choice), a C ``loop(args, dimensions, steps, data)``; None
    when the object does not have the layout read here (another NumPy or CPython build)."""
    base = id(ufunc)
    if ctypes.c_int.from_address(base + _NTYPES_OFFSET).value != len(ufunc.types):
        return None
    if ctypes.c_char_p.from_address(base + _NAME_OFFSET).value != ufunc.__name__.encode():
        return None
    functions = ctypes.c_void_p.from_address(base + _FUNCTIONS_OFFSET).value
    return ctypes.c_void_p.from_address(functions + 8 * ufunc.types.index(types)).value


# The loop is called by a symbol name registered at import (as ``scipy_special`` does for
# SciPy's functions), not through a ctypes pointer, so a kernel calling it can be cached on
# disk: a process loading the cached module imports this one, which registers the symbol again.
_POWER_SYMBOL = "arignote_numpy_double_power_loop"
_POWER_ADDRESS = ufunc_loop_address(np.power, "dd->d")
if _POWER_ADDRESS is not None:
    llvmlite.binding.add_symbol(_POWER_SYMBOL, _POWER_ADDRESS)


def _power_codegen(context, builder, signature, args):
    """NumPy's float64 power loop over ``n`` entries, for ``(x, y, out, n, y_step)``: the
    addresses of float64 arrays (``x`` and ``out`` contiguous; ``y_step`` is 8, or 0 to repeat
    ``y[0]`` as NumPy does for a scalar exponent, where its loop takes the fast forms)."""
    intp = context.get_value_type(numba.types.intp)
    values = [context.cast(builder, v, t, numba.types.intp) for v, t in zip(args, signature.args)]
    byte_pointer = ir.IntType(8).as_pointer()
    pointers = cgutils.alloca_once(builder, byte_pointer, size=3)
    dims, steps = cgutils.alloca_once(builder, intp), cgutils.alloca_once(builder, intp, size=3)
    builder.store(values[3], dims)
    for k, step in enumerate((ir.Constant(intp, 8), values[4], ir.Constant(intp, 8))):
        at = ir.Constant(intp, k)
        builder.store(builder.inttoptr(values[k], byte_pointer), builder.gep(pointers, [at]))
        builder.store(step, builder.gep(steps, [at]))
    operands = [byte_pointer.as_pointer(), intp.as_pointer(), intp.as_pointer(), byte_pointer]
    loop_type = ir.FunctionType(ir.VoidType(), operands)
    loop = cgutils.get_or_insert_function(builder.module, loop_type, _POWER_SYMBOL)
    builder.call(loop, [pointers, dims, steps, ir.Constant(byte_pointer, None)])
    return context.get_dummy_value()


@intrinsic
def _power_loop(typingctx, x, y, out, n, y_step):
    return numba.types.void(x, y, out, n, y_step), _power_codegen


@_jit
def numpy_power(x, y, scalar):
    """``np.power(x, y)`` for a contiguous float64 array ``x`` and a float64 array ``y`` of
    its size (``scalar``: ``y[0]`` only, as a NumPy scalar exponent), by NumPy's own loop."""
    out = np.empty_like(x)
    _power_loop(x.ctypes.data, y.ctypes.data, out.ctypes.data, x.size, 0 if scalar else 8)
    return out


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
def expm1_negated(b):
    return _expm1(-b, 0)


@_jit
def expm1_negated_single(b):
    """``scipy.special.expm1`` on a float32 (or float16) ``-b``: float32 of the double."""
    return np.float64(np.float32(_expm1(-b, 0)))


def _compile(node: Apply, source: str, **helpers: Callable) -> Callable:
    # only the helpers the kernel calls: any helper that cannot be cached on disk would keep
    # every kernel naming it out of the cache
    namespace = {"slow": objmode_kernel(node), "copy_rng": copy_rng, **helpers}
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
    conditions = (_REFUSED if b == "refused" else _POSITIVE, _ANY, _POSITIVE)
    call = "truncexpon_draw(rng.bit_generator, expm1_negated(x0), x1, x2)"
    source = _KernelWriter(op, node).source(call, conditions, "")
    negated = expm1_negated_single if b == "single" else expm1_negated
    return _compile(node, source, truncexpon_draw=truncexpon, expm1_negated=negated)


def _quotient(node: Apply) -> str:
    """``alpha / p`` in the dtype NumPy divides in (perform divides before calling SciPy)."""
    alpha, p = (np.ones(1, v.type.dtype) for v in node.inputs[2:4])
    dtype = np.true_divide(alpha, p).dtype
    if dtype == np.float32:
        return "np.float64(np.float32(x0) / np.float32(x1))"
    return "x0 / x1" if dtype == np.float64 else ""


def _reciprocal(node: Apply) -> str:
    """``1. / p`` as SciPy computes it (a Python float keeps a float32 ``p`` in float32)."""
    dtype = (1.0 / np.ones(1, node.inputs[3].type.dtype)).dtype
    if dtype == np.float32:
        return "np.float64(np.float32(1.0) / np.float32(x1))"
    return "1.0 / x1" if dtype == np.float64 else ""


class _GenGammaWriter(_KernelWriter):
    """A ``gengamma`` kernel: every gamma, then NumPy's power loop over all of them at once
    (SVML's ``pow`` is vectorised: one call per draw costs ten times more), then the scale."""

    def _draws(self, call: str, joint: str) -> None:
        shape_expr, exponent, scalar = call.split("|")
        shape = self._shape_tuple()
        self._prologue(shape, joint)
        self._line(f"r, e = np.empty({shape}), np.empty({shape})")
        draw = f"r[idx] = standard_gamma(rng.bit_generator, {shape_expr})"
        self._loop(shape, f"{draw}; e[idx] = {exponent}")
        self._line(f"powers = numpy_power(r.ravel(), e.ravel(), {scalar}).reshape({shape})")
        self._line(f"out = np.empty({shape}, DT)")
        self._loop(shape, "out[idx] = powers[idx] * x2 + 0.0")  # SciPy's vals * scale + loc
        self._line("return rng, out")


@numba_funcify.register(GenGammaRV)
def _gengamma(op: GenGammaRV, node: Apply) -> Callable:
    if _POWER_ADDRESS is None:
        raise NotNative("GenGammaRV", "NumPy's float64 power loop could not be located")
    params = node.inputs[2:]
    shape, exponent = _quotient(node), _reciprocal(node)
    refused = not shape or not exponent or any(_kind(p) == "refused" for p in params)
    conditions = (_REFUSED if refused else _POSITIVE, _POSITIVE, _POSITIVE)
    # every parameter 0-d and float64: the exponent is a NumPy scalar (NumPy's loop then takes
    # its fast forms, as it does here with a zero step); in other layouts a special exponent
    # may or may not take them: perform draws it
    scalar = all(p.type.ndim == 0 and p.type.dtype == "float64" for p in params)
    joint = "" if scalar else f"not special_exponent({exponent or 'x1'})"
    call = f"{shape or 'x0'}|{exponent or 'x1'}|{scalar}"
    source = _GenGammaWriter(op, node).source(call, conditions, joint)
    helpers = {"numpy_power": numpy_power, "special_exponent": special_exponent}
    return _compile(node, source, standard_gamma=random_standard_gamma, **helpers)


# -- betabinom: every beta, then every binomial ------------------------------------------------


class _TwoPassWriter(_KernelWriter):
    """A ``betabinom`` kernel: the success probabilities of the whole batch, then the counts."""

    def _converted(self, k: int) -> str:
        return "np.int64(b0[idx])" if k == 0 else f"np.float64(b{k}[idx])"

    def _draws(self, call: str, joint: str) -> None:
        shape = self._shape_tuple()
        self._prologue(shape, joint)
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


__all__ = ["numpy_power", "ufunc_loop_address"]
