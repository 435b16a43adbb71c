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
"""

from __future__ import annotations

import ctypes
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


def _signature(arity: int) -> str:
    return f"double ({'double, ' * arity}int __pyx_skip_dispatch)"


@cache
def entry_point(name: str, arity: int) -> Any | None:
    """The numba function calling SciPy's float64 ``name`` of ``arity`` arguments (and the
    ``skip_dispatch`` flag), or None when SciPy exports none."""
    exported = cython_special.__pyx_capi__
    for candidate in (name, *(f"__pyx_fuse_{k}{name}" for k in range(4))):
        capsule = exported.get(candidate)
        if capsule is None or _capsule_name(capsule).decode() != _signature(arity):
            continue
        address = get_cython_function_address("scipy.special.cython_special", candidate)
        symbol = f"arignote_scipy_{candidate}"
        llvmlite.binding.add_symbol(symbol, address)
        return _function(f"sf_{name}_{arity}", _external_call(symbol, arity), arity)
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
        return builder.call(function, [*doubles, ir.Constant(ir.IntType(32), 0)])

    # an intrinsic's typer takes the arguments by name (no ``*args``): written out
    args = "".join(f"a{k}, " for k in range(arity))
    code = CodeBuilder(f"<arignote scipy call {symbol}>")
    code.namespace.update(float64=numba.types.float64, codegen=codegen)
    code.line(f"def typer(typingctx, {args}flag):", 0)
    code.line(f"return float64({args}flag), codegen")
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
    """``sf_<name>_<arity>``: made on first use (a cached module imports it by name)."""
    prefix, _, arity = name.rpartition("_")
    if name.startswith("sf_") and arity.isdigit():
        found = entry_point(prefix[3:], int(arity))
        if found is not None:
            return found
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
