"""Native kernels of the linear solvers and the LU family: ``Solve`` (every ``assume_a``),
``SolveTriangular``, ``ChoSolve``, ``Lstsq``, ``LU``, ``LUFactor`` and
``PivotToPermutations``, on real and complex matrices.

The semantics of ``perform`` (NumPy's or SciPy's) are kept: the general ``Solve`` is NumPy's own
``?gesv`` (:mod:`.linalg_lu`: ``LinAlgError`` when singular, no finiteness check);
the structured kinds check finiteness (``ValueError``), raise ``LinAlgError`` for a singular
or (``"pos"``) indefinite matrix and warn (``LinAlgWarning``, from object mode, only then)
when the estimated reciprocal condition number is below the machine epsilon, as
``scipy.linalg.solve``; the triangular and Cholesky solves and the LU factorisations are the
LAPACK algorithms of :mod:`~arignote.link.numba.dispatch.linalg_kernels`. Batch dimensions
broadcast as in ``perform`` (a dimension broadcasts only where the graph knows it is 1).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import numba
from arignote.graph.basic import Apply
from arignote.link.numba.dispatch import linalg_kernels as lk
from arignote.link.numba.dispatch.basic import NotNative, compile_source, numba_funcify
from arignote.link.numba.dispatch.batch import batch_lines, loop_header
from arignote.link.numba.dispatch.linalg_lu import double, solve_function
from arignote.tensor.linalg.least_squares import Lstsq
from arignote.tensor.linalg.lu import LU, LUFactor, PivotToPermutations
from arignote.tensor.linalg.solve import ChoSolve, Solve, SolveTriangular

_INEXACT = frozenset({"float32", "float64", "complex64", "complex128"})
_FINITE = "array must not contain infs or NaNs"


def _inexact(node: Apply) -> None:
    dtypes = {v.type.dtype for v in node.inputs if v.type.dtype not in ("int32", "int64")}
    if not dtypes <= _INEXACT:
        raise NotNative(type(node.op).__name__, f"dtypes {sorted(dtypes)}: numba has no LAPACK")


def _finite_check(names: list[str], indent: str = "    ") -> list[str]:
    test = " and ".join(f"np.isfinite({n}).all()" for n in names)
    return [f"{indent}if not ({test}):", f"{indent}    raise ValueError('{_FINITE}')"]


# -- solvers of one system (numba functions on contiguous matrices of the output dtype) --------


@lk._jit
def _solve_pos(a, x):
    factor = np.linalg.cholesky(a)  # LinAlgError when A is not positive definite
    lk.cho_solve_inplace(factor, x, True)
    bad, rcond = lk.ill_conditioned(a, factor, np.empty(0, np.int32), 1, True)
    if bad:
        with numba.objmode():
            lk.warn_ill_conditioned(rcond)
    return x


@lk._jit
def _solve_lu(a, x):
    """``?sysv``/``?hesv``'s results through a pivoted LU (the same errors and warnings)."""
    factors = a.copy()
    piv = np.empty(a.shape[0], np.int32)
    if lk.lu_inplace(factors, piv) > 0:
        raise np.linalg.LinAlgError("A singular matrix detected.")
    lk.lu_solve_inplace(factors, piv, x, 0)
    bad, rcond = lk.ill_conditioned(a, factors, piv, 0, False)
    if bad:
        with numba.objmode():
            lk.warn_ill_conditioned(rcond)
    return x


def _system_kernel(node: Apply, solver: Callable, flags: str, check_finite: bool) -> Callable:
    """A kernel solving every (broadcast) system of ``node`` with ``solver(a, x, *flags)``."""
    batch, dtype = node.inputs[0].type.ndim - 2, node.outputs[0].type.dtype
    lines = [
        "def kernel(a, b):",
        "    n = a.shape[-1]",
        "    if a.shape[-2] != n or b.shape[-2] != n:",
        f"        raise ValueError('{node.op}: the shapes of A and B do not fit')",
    ]
    batch_defs, (a_sub, b_sub), sizes = batch_lines(node)
    lines += [
        *batch_defs,
        f"    out = np.zeros(({''.join(sizes)}n, b.shape[-1]), dtype=np.{dtype})",
        "    if a.size == 0 or b.size == 0:",
        "        return out",
    ]
    if check_finite:
        lines += _finite_check(["a", "b"])
    loops, indent, target = loop_header(batch)
    lines += [
        *loops,
        f"{indent}am = np.ascontiguousarray({a_sub}).astype(np.{dtype})",
        f"{indent}x = np.ascontiguousarray({b_sub}).astype(np.{dtype})",
        f"{indent}out{target} = solver(am, x{flags})",
        "    return out",
    ]
    return compile_source("\n".join(lines) + "\n", "kernel", {"solver": solver})


@lk._jit
def _triangular(a, x, lower, trans, unit):
    # as perform (BLAS trsm): a zero on the diagonal gives inf/nan, inf/nan inputs propagate
    lk.tri_solve(a, x, lower, trans, unit, False)
    return x


@lk._jit
def _cho(a, x, lower):
    lk.cho_solve_inplace(a, x, lower)
    return x


@numba_funcify.register(Solve)
def _solve(op: Solve, node: Apply) -> Callable:
    _inexact(node)
    # the general kind: NumPy's own ?gesv (numba's np.linalg.solve refuses NaN and infinity)
    general = solve_function(double(node.outputs[0].type.dtype))
    solver = {"gen": general, "pos": _solve_pos}.get(op.assume_a, _solve_lu)
    return _system_kernel(node, solver, "", op.assume_a != "gen")


@numba_funcify.register(SolveTriangular)
def _solve_triangular(op: SolveTriangular, node: Apply) -> Callable:
    _inexact(node)
    flags = f", {op.lower}, {op.trans}, {op.unit_diagonal}"
    return _system_kernel(node, _triangular, flags, False)


@numba_funcify.register(ChoSolve)
def _cho_solve(op: ChoSolve, node: Apply) -> Callable:
    _inexact(node)
    return _system_kernel(node, _cho, f", {op.lower}", True)


# -- least squares ------------------------------------------------------------------------------


@numba_funcify.register(Lstsq)
def _lstsq(op: Lstsq, node: Apply) -> Callable:
    _inexact(node)
    dtype, real = node.outputs[0].type.dtype, node.outputs[1].type.dtype
    # NumPy's default cutoff (rcond=None): machine epsilon times the larger dimension
    rcond = f"np.finfo(np.{real}).eps * max(a.shape)" if op.rcond is None else repr(op.rcond)
    source = (
        "def kernel(a, b):\n"
        "    if a.shape[0] != b.shape[0]:\n"
        f"        raise ValueError('{op}: A and B have different numbers of rows')\n"
        f"    am = np.ascontiguousarray(a).astype(np.{dtype})\n"
        f"    bm = np.ascontiguousarray(b).astype(np.{dtype})\n"
        "    r = np.zeros((), dtype=np.int32)\n"
        "    if am.size == 0:\n"
        f"        return {_empty_lstsq(node)}\n"
        f"    x, res, rank, sv = np.linalg.lstsq(am, bm, rcond={rcond})\n"
        "    r[()] = rank\n"
        f"    return x, res.astype(np.{real}), r, sv.astype(np.{real})\n"
    )
    return compile_source(source, "kernel", {})


def _empty_lstsq(node: Apply) -> str:
    """NumPy's least squares of an empty ``A`` (numba's refuses it): ``x = 0``, rank 0, no
    singular values, and ``||b||^2`` per column as residuals when there are more rows than
    columns (``A`` has none), else no residuals."""
    dtype, real = node.outputs[0].type.dtype, node.outputs[1].type.dtype
    x = f"np.zeros((am.shape[1],) + bm.shape[1:], dtype=np.{dtype})"
    vector = node.inputs[1].type.ndim == 1
    norms = "np.full(1, (np.abs(bm) ** 2).sum())" if vector else "(np.abs(bm) ** 2).sum(axis=0)"
    res = f"({norms}.astype(np.{real}) if am.shape[0] > 0 else np.zeros(0, np.{real}))"
    return f"{x}, {res}, r, np.zeros(0, dtype=np.{real})"


# -- LU -----------------------------------------------------------------------------------------


def _factor_lines(op: object, dtype: str, check_finite: bool) -> list[str]:
    """Source lines factoring ``a`` into ``lu``, ``piv`` (and LAPACK's ``info``)."""
    lines = [
        "    n = a.shape[-1]",
        "    if a.ndim < 2 or a.shape[-2] != n:",
        f"        raise np.linalg.LinAlgError('{op} needs square matrices')",
    ]
    if check_finite:
        lines += _finite_check(["a"])
    return lines + [
        f"    lu = np.ascontiguousarray(a).astype(np.{dtype})",
        "    piv = np.empty(n, dtype=np.int32)",
        "    info = lu_inplace(lu, piv)",
    ]


@numba_funcify.register(LUFactor)
def _lu_factor(op: LUFactor, node: Apply) -> Callable:
    _inexact(node)
    lines = ["def kernel(a):", *_factor_lines(op, node.outputs[0].type.dtype, op.check_finite)]
    lines += [
        "    if info > 0:",
        "        with numba.objmode():",
        "            warn_zero_pivot(info)",
        "    return lu, piv",
    ]
    namespace = {"lu_inplace": lk.lu_inplace, "warn_zero_pivot": lk.warn_zero_pivot}
    return compile_source("\n".join(lines) + "\n", "kernel", namespace)


@lk._jit
def _row_order(piv):
    """The row order ``r`` after LAPACK's swaps: ``A[r] = L U``."""
    order = np.arange(piv.shape[0])
    for i in range(piv.shape[0]):
        j = piv[i]
        order[i], order[j] = order[j], order[i]
    return order


@lk._jit
def _unpack(lu):
    """``L`` (unit lower) and ``U`` (upper) from the packed factors."""
    n = lu.shape[0]
    lower, upper = np.zeros_like(lu), np.zeros_like(lu)
    for i in range(n):
        lower[i, i] = 1
        for j in range(n):
            if j < i:
                lower[i, j] = lu[i, j]
            else:
                upper[i, j] = lu[i, j]
    return lower, upper


@lk._jit
def _lu_outputs(lu, piv, permute_l, p_indices):
    """SciPy's ``lu`` outputs: ``(P, L, U)``, ``(p, L, U)`` or ``(P L, U)`` (first unused)."""
    lower, upper = _unpack(lu)
    order = _row_order(piv)
    n = lu.shape[0]
    p = np.empty(n, dtype=np.int32)  # A = L[p] U: p[r[i]] = i
    perm = np.zeros_like(lu)  # A = P L U: P[r[i], i] = 1
    placed = np.empty_like(lu)  # P L: (P L)[r[i]] = L[i]
    for i in range(n):
        p[order[i]] = i
        perm[order[i], i] = 1
        placed[order[i]] = lower[i]
    return p, perm, placed, lower, upper


@numba_funcify.register(LU)
def _lu(op: LU, node: Apply) -> Callable:
    _inexact(node)
    lines = ["def kernel(a):", *_factor_lines(op, node.outputs[-1].type.dtype, op.check_finite)]
    flags = f"{op.permute_l}, {op.p_indices}"
    lines.append(f"    p, perm, placed, lower, upper = lu_outputs(lu, piv, {flags})")
    if op.permute_l:
        lines.append("    return placed, upper")
    elif op.p_indices:
        lines.append("    return p, lower, upper")
    else:
        lines.append("    return perm, lower, upper")
    namespace = {"lu_inplace": lk.lu_inplace, "lu_outputs": _lu_outputs}
    return compile_source("\n".join(lines) + "\n", "kernel", namespace)


@numba_funcify.register(PivotToPermutations)
def _pivots(op: PivotToPermutations, node: Apply) -> Callable:
    dtype = node.outputs[0].type.dtype
    lines = [
        "def kernel(piv):",
        "    order = row_order(piv)",
        f"    out = np.empty(piv.shape[0], dtype=np.{dtype})",
    ]
    if op.inverse:
        lines += ["    out[:] = order"]
    else:  # the inverse permutation of the row order: p[r[i]] = i
        lines += ["    for i in range(order.shape[0]):", "        out[order[i]] = i"]
    source = "\n".join([*lines, "    return out"]) + "\n"
    return compile_source(source, "kernel", {"row_order": _row_order})
