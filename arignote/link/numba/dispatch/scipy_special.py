"""SciPy's special functions in native code: the C entry points of
``scipy.special.cython_special`` (the same code SciPy's ufuncs run), called by name from
native code, so values are SciPy's exactly.

``entry_point(name, arity)`` finds the float64 version of SciPy's function ``name`` (Cython
exports each fused specialization under its own name, ``__pyx_fuse_<k><name>``; the one taking
and returning doubles is chosen by its signature). It is called on float64 arguments (the
extra ``0`` is Cython's ``skip_dispatch`` flag) and the result converted to the op's output
dtype.

The call is an external symbol, ``arignote_scipy_<export>``, which this module registers with
LLVM (at the function's address in this process) before anything calls it: machine code refers
to the symbol by name, not to an address, so the disk cache can keep kernels calling it (a
ctypes function pointer would bake this process's address into the code). Each entry point is
a module-level numba function ``sf_<name>_<arity>``, made on first use, by attribute access
too (``from ...scipy_special import sf_erf_1`` in a cached module makes it).

``complex_entry_point(name, arity)`` does the same for SciPy's complex128 version
(``sfc_<name>_<arity>``), whose C signature takes and returns ``double complex`` by value. Numba
calls it with the LLVM signature a C compiler gives such a function on the platform: on x86-64
System V, a ``double complex`` (or a struct of two doubles, or ``std::complex<double>``) is
classified SSE, SSE, so it travels in two floating-point registers each way:
``{double, double} (double re, double im, ..., i32 flag)``. Only the platforms where this was
verified against SciPy's ufuncs are enabled (:data:`COMPLEX_CALLS`); elsewhere (Windows x64
passes it through memory) the complex functions stay in object mode.
"""

from __future__ import annotations

import ctypes
import platform
import sys
from functools import cache
from typing import Any

import llvmlite.binding
import scipy.special.cython_special as cython_special
from llvmlite import ir

import numba
from arignote.graph.codegen import CodeBuilder
from numba.core import cgutils
from numba.extending import get_cython_function_address, intrinsic

_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.py_object]

#: Cython's ``skip_dispatch`` argument (module-level functions ignore it).
_NO_DISPATCH = ir.Constant(ir.IntType(32), 0)


#: Whether SciPy's ``double complex`` entry points are called natively: on x86-64 Linux, where
#: the register convention above was checked against SciPy on random and non-finite points
#: (``tests/link/test_numba_special_complex.py``).
COMPLEX_CALLS = sys.platform.startswith("linux") and platform.machine() == "x86_64"
#: Why they are not elsewhere (the reason recorded in the fallback registry).
COMPLEX_CALLS_REASON = (
    "complex arguments: cython_special's complex entry points take and return C complex "
    "values by value; the register convention numba uses to call them is verified on x86-64 "
    "Linux only (Windows x64, for one, passes them through memory)"
)


def _signature(arity: int, kind: str = "double") -> str:
    return f"{kind} ({f'{kind}, ' * arity}int __pyx_skip_dispatch)"


@cache
def entry_point(name: str, arity: int) -> Any | None:
    """The numba function calling SciPy's float64 ``name`` of ``arity`` arguments (and the
    ``skip_dispatch`` flag), or None when SciPy exports none."""
    symbol = _symbol(name, _signature(arity))
    if symbol is None:
        return None
    return _function(f"sf_{name}_{arity}", _external_call(symbol, arity), arity)


@cache
def complex_entry_point(name: str, arity: int) -> Any | None:
    """The numba function calling SciPy's complex128 ``name`` of ``arity`` complex arguments
    (and the ``skip_dispatch`` flag), or None when SciPy exports none or the platform's
    convention for passing complex values is not verified (:data:`COMPLEX_CALLS`)."""
    symbol = _symbol(name, _signature(arity, "__pyx_t_double_complex"))
    if symbol is None or not COMPLEX_CALLS:
        return None
    return _function(f"sfc_{name}_{arity}", _complex_call(symbol, arity), arity)


def _symbol(name: str, signature: str) -> str | None:
    """The LLVM symbol of SciPy's ``name`` with this C ``signature`` (registered at its
    address in this process), or None when SciPy exports none."""
    exported = cython_special.__pyx_capi__
    for candidate in (name, *(f"__pyx_fuse_{k}{name}" for k in range(4))):
        capsule = exported.get(candidate)
        if capsule is None or _capsule_name(capsule).decode() != signature:
            continue
        address = get_cython_function_address("scipy.special.cython_special", candidate)
        symbol = f"arignote_scipy_{candidate}"
        llvmlite.binding.add_symbol(symbol, address)
        return symbol
    return None


def _external_call(symbol: str, arity: int) -> Any:
    """An intrinsic calling the C function ``symbol`` (doubles and an int flag -> double)."""
    double = ir.DoubleType()
    function_type = ir.FunctionType(double, [double] * arity + [ir.IntType(32)])

    def codegen(context, builder, signature, args):
        function = cgutils.get_or_insert_function(builder.module, function_type, symbol)
        doubles = [
            context.cast(builder, value, argtype, numba.types.float64)
            for value, argtype in zip(args[:arity], signature.args[:arity])
        ]
        return builder.call(function, [*doubles, _NO_DISPATCH])

    return _intrinsic(symbol, arity, numba.types.float64, codegen)


def _complex_call(symbol: str, arity: int) -> Any:
    """An intrinsic calling the C function ``symbol`` (complex values and an int flag ->
    complex), each complex value as two doubles (real, imaginary) in and out."""
    double = ir.DoubleType()
    pair = ir.LiteralStructType([double, double])
    function_type = ir.FunctionType(pair, [double] * (2 * arity) + [ir.IntType(32)])
    complex128 = numba.types.complex128

    def codegen(context, builder, signature, args):
        function = cgutils.get_or_insert_function(builder.module, function_type, symbol)
        parts = []
        for value, argtype in zip(args[:arity], signature.args[:arity]):
            wide = context.cast(builder, value, argtype, complex128)
            z = context.make_complex(builder, complex128, value=wide)
            parts += [z.real, z.imag]
        returned = builder.call(function, [*parts, _NO_DISPATCH])
        result = context.make_complex(builder, complex128)
        result.real = builder.extract_value(returned, 0)
        result.imag = builder.extract_value(returned, 1)
        return result._getvalue()

    return _intrinsic(symbol, arity, complex128, codegen)


def _intrinsic(symbol: str, arity: int, result: Any, codegen: Any) -> Any:
    """The intrinsic ``(a0, ..., flag) -> result`` generating ``codegen``."""
    # an intrinsic's typer takes the arguments by name (no ``*args``): written out
    args = "".join(f"a{k}, " for k in range(arity))
    code = CodeBuilder(f"<arignote scipy call {symbol}>")
    code.namespace.update(result=result, codegen=codegen)
    code.line(f"def typer(typingctx, {args}flag):", 0)
    code.line(f"return result({args}flag), codegen")
    return intrinsic(code.build("typer").function)


def _function(name: str, call: Any, arity: int) -> Any:
    """The module-level numba function ``name(a0, ..., flag)`` around ``call``."""
    args = "".join(f"a{k}, " for k in range(arity))
    code = CodeBuilder(f"<arignote scipy {name}>")
    code.namespace["call"] = call
    code.line(f"def {name}({args}flag):", 0)
    code.line(f"return call({args}flag)")
    function = code.build(name).function
    function.__module__, function.__qualname__ = __name__, name
    jitted = numba.njit(cache=False)(function)
    globals()[name] = jitted
    return jitted


def __getattr__(name: str) -> Any:
    """``sf_<name>_<arity>`` and ``sfc_<name>_<arity>``: made on first use (a cached module
    imports them by name)."""
    prefix, _, arity = name.rpartition("_")
    kind, _, function = prefix.partition("_")
    makers = {"sf": entry_point, "sfc": complex_entry_point}
    if kind in makers and function and arity.isdigit():
        found = makers[kind](function, int(arity))
        if found is not None:
            return found
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
