"""Native kernels of ``Elemwise`` (fused ``Composite`` included) and ``DimShuffle``.

An elementwise node becomes one loop nest over the broadcast shape, with the scalar
expression of its op (every inner node of a Composite, in order) in the innermost body: no
temporaries, one pass over the data. A dimension is broadcast only where an input's static
length is 1, as in ``Elemwise.perform``; other lengths must agree at run time.

exp, expm1, log, log1p, sin, cos, tanh and cosh of float32/float64 values are computed by the
call-free functions of :mod:`.vmath` (:data:`FAST_FUNCTIONS`), so that LLVM vectorises the
loop when the arrays are contiguous (numba specialises each kernel for the layouts it is
called with). sin and cos are exact there only for moderate arguments: the loop counts the
others and, if there are any, runs again with the C library's functions.
"""

from __future__ import annotations

import math as _math
from collections.abc import Callable

from arignote.graph.basic import Apply, Constant
from arignote.link.numba.dispatch import vmath
from arignote.link.numba.dispatch.basic import compile_source, numba_funcify
from arignote.link.numba.dispatch.scalar import cast, kernel_namespace, scalar_expressions
from arignote.link.numba.dispatch.views import unit_dims_view
from arignote.scalar import math as scalar_math
from arignote.scalar.composite import Composite
from arignote.tensor.elemwise import DimShuffle, Elemwise

#: Scalar op classes (exactly these) computed by :mod:`.vmath` on float32/float64 arguments.
FAST_FUNCTIONS = {
    scalar_math.Exp: "exp",
    scalar_math.Expm1: "expm1",
    scalar_math.Log: "log",
    scalar_math.Log1p: "log1p",
    scalar_math.Sin: "sin",
    scalar_math.Cos: "cos",
    scalar_math.Tanh: "tanh",
    scalar_math.Cosh: "cosh",
}
#: Fast functions exact only inside a range: ``vmath.trig_outside`` counts the rest.
_GUARDED = {"sin", "cos"}
_FAST_DTYPES = {"float32", "float64"}
_VIEWS = {"unit_dims_view": unit_dims_view}


@numba_funcify.register(Elemwise)
def _elemwise(op: Elemwise, node: Apply) -> Callable:
    guards: list[str] = []
    fast = scalar_body(op.scalar_op, node, guards)
    exact = scalar_body(op.scalar_op, node) if guards else None
    return compile_source(_loop_source(node, fast, guards, exact), "kernel", namespace(fast))


def namespace(body: list[str]) -> dict:
    """The globals of a kernel with these lines (``vmath`` when it calls it)."""
    used = {"vmath": vmath} if any("vmath." in line for line in body) else {}
    return {**kernel_namespace(body), **used}


def scalar_body(scalar_op, node: Apply, guards: list[str] | None = None) -> list[str]:
    """Lines computing ``r0, r1, ...`` (one per output) from ``a0, a1, ...`` (the inputs).

    With a list ``guards``, the fast functions of :data:`FAST_FUNCTIONS` are used and the
    expressions counting arguments they cannot take are appended to it.
    """
    in_dtypes = [i.type.dtype for i in node.inputs]
    out_dtypes = [o.type.dtype for o in node.outputs]
    args = [f"a{k}" for k in range(len(node.inputs))]
    if not isinstance(scalar_op, Composite):
        exprs = _expressions(scalar_op, args, in_dtypes, out_dtypes, guards)
        return [f"r{k} = {e}" for k, e in enumerate(exprs)]
    return _composite_body(scalar_op, args, guards)


def _expressions(op, args, in_dtypes, out_dtypes, guards: list[str] | None) -> list[str]:
    name = FAST_FUNCTIONS.get(type(op))
    if guards is None or name is None or in_dtypes[0] not in _FAST_DTYPES:
        return scalar_expressions(op, args, in_dtypes, out_dtypes)
    if out_dtypes[0] not in _FAST_DTYPES:
        return scalar_expressions(op, args, in_dtypes, out_dtypes)
    if name in _GUARDED:
        guards.append(f"vmath.trig_outside({args[0]})")
    return [f"{cast(out_dtypes[0])}(vmath.{name}({args[0]}))"]


def _composite_body(comp: Composite, args: list[str], guards: list[str] | None) -> list[str]:
    names = dict(zip(comp.inputs, args))
    lines = []
    for n, inner in enumerate(comp.nodes):
        inner_args = [_inner_name(v, names) for v in inner.inputs]
        in_dtypes = [v.type.dtype for v in inner.inputs]
        out_dtypes = [v.type.dtype for v in inner.outputs]
        exprs = _expressions(inner.op, inner_args, in_dtypes, out_dtypes, guards)
        for k, e in enumerate(exprs):
            names[inner.outputs[k]] = f"t{n}_{k}"
            lines.append(f"t{n}_{k} = {e}")
    for k, out in enumerate(comp.outputs):
        lines.append(f"r{k} = {cast(out.type.dtype)}({_inner_name(out, names)})")
    return lines


def _inner_name(var, names: dict) -> str:
    if isinstance(var, Constant):
        return f"{cast(var.type.dtype)}({_literal(var.data)})"
    return names[var]


def _literal(data) -> str:
    """Source for a scalar constant: NumPy 2 spells ``repr(np.float64(inf))`` as
    ``np.float64(inf)``, and ``inf``/``nan`` are not names in the kernel's namespace."""
    value = data.item() if hasattr(data, "item") else data
    if isinstance(value, complex):
        return f"complex({_literal(value.real)}, {_literal(value.imag)})"
    if isinstance(value, float) and not _math.isfinite(value):
        return "np.nan" if _math.isnan(value) else ("np.inf" if value > 0 else "-np.inf")
    return repr(value)


def _loop_source(node: Apply, body: list[str], guards: list[str], exact: list[str] | None) -> str:
    """The kernel: lengths (checked), outputs allocated, one loop nest around ``body``; with
    ``guards``, a count of the arguments the fast body cannot take, and when there are any,
    the loop again with the ``exact`` body."""
    ndim = node.outputs[0].type.ndim
    nin = len(node.inputs)
    lines = [f"def kernel({', '.join(f'i{k}' for k in range(nin))}):"]
    lines += length_lines(node, ndim)
    shape = "(" + "".join(f"n{d}, " for d in range(ndim)) + ")"
    for k, out in enumerate(node.outputs):
        lines.append(f"    o{k} = np.empty({shape}, dtype=np.{out.type.dtype})")
    if guards:
        lines.append("    outside = 0")
        counted = body + [f"outside += {' + '.join(guards)}"]
        lines += _loop_nest(node, ndim, counted, "    ")
        lines.append("    if outside:")
        lines += _loop_nest(node, ndim, exact, "        ")
    else:
        lines += _loop_nest(node, ndim, body, "    ")
    outs = ", ".join(f"o{k}" for k in range(len(node.outputs)))
    lines.append(f"    return {outs}")
    return "\n".join(lines) + "\n"


def _loop_nest(node: Apply, ndim: int, body: list[str], indent: str) -> list[str]:
    lines = []
    for d in range(ndim):
        lines.append(f"{indent}for j{d} in range(n{d}):")
        indent += "    "
    for k, inp in enumerate(node.inputs):
        lines.append(f"{indent}a{k} = i{k}[{element_index(inp, ndim)}]")
    lines += [indent + line for line in body]
    out_index = "".join(f"j{d}, " for d in range(ndim)) or "()"
    for k in range(len(node.outputs)):
        lines.append(f"{indent}o{k}[{out_index}] = r{k}")
    return lines


def _broadcast(inp, d: int) -> bool:
    return inp.type.shape[d] == 1


def element_index(inp, ndim: int) -> str:
    return "".join("0, " if _broadcast(inp, d) else f"j{d}, " for d in range(ndim)) or "()"


def length_lines(node: Apply, ndim: int) -> list[str]:
    """``n{d}`` = the length of dimension d; inputs not broadcast there must agree."""
    lines = []
    for d in range(ndim):
        sources = [k for k, inp in enumerate(node.inputs) if not _broadcast(inp, d)]
        if not sources:
            lines.append(f"    n{d} = 1")
            continue
        lines.append(f"    n{d} = i{sources[0]}.shape[{d}]")
        for k in sources[1:]:
            lines.append(f"    if i{k}.shape[{d}] != n{d}:")
            lines.append(
                f"        raise ValueError('{_op_name(node)}: input lengths differ along "
                f"dimension {d} (runtime broadcasting is not allowed)')"
            )
    return lines


def _op_name(node: Apply) -> str:
    return str(node.op).replace("'", "")[:80]


# -- DimShuffle ---------------------------------------------------------------------------------


@numba_funcify.register(DimShuffle)
def _dimshuffle(op: DimShuffle, node: Apply) -> Callable:
    """A view: transpose the kept dimensions, then reshape to insert/drop length-1 ones.

    Reshaping a transposed (non-contiguous) array is not a view in numba, so the kernel builds
    the view's strides itself with ``as_strided``. Two cases keep a layout numba can see:

    * without a transpose, a C-contiguous input is reshaped (:func:`.views.unit_dims_view`):
      the view stays C-contiguous, so the loops reading it vectorise (layout A would not);
    * a full reversal of the axes (the matrix transpose of gradients, ``x.T @ g``) is ``x.T``:
      numba types it Fortran-contiguous when ``x`` is C-contiguous, so ``np.dot`` hands it to
      BLAS with a transpose flag, where the ``as_strided`` view would be copied first.
    """
    ndim = node.inputs[0].type.ndim
    if ndim >= 2 and list(op.new_order) == list(range(ndim - 1, -1, -1)):
        return compile_source("def kernel(x):\n    return x.T\n", "kernel", {})
    shape_terms = ["1" if d == "x" else f"x.shape[{d}]" for d in op.new_order]
    stride_terms = ["0" if d == "x" else f"x.strides[{d}]" for d in op.new_order]
    shape = "(" + "".join(s + ", " for s in shape_terms) + ")"
    strides = "(" + "".join(s + ", " for s in stride_terms) + ")"
    kept = [d for d in op.new_order if d != "x"]
    if kept == sorted(kept):  # only length-1 dimensions inserted or dropped: C stays C
        view = f"unit_dims_view(x, {shape}, {strides})"
        return compile_source(f"def kernel(x):\n    return {view}\n", "kernel", _VIEWS)
    source = (
        "def kernel(x):\n"
        f"    return np.lib.stride_tricks.as_strided(x, shape={shape}, strides={strides})\n"
    )
    return compile_source(source, "kernel", {})
