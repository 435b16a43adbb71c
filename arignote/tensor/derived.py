"""NumPy-style functions written as graphs of existing ops (no op of their own).

Their derivatives, shapes and rewrites are those of the ops they are made of. PyTensor keeps
them in ``tensor.math``, ``tensor.basic`` and ``tensor.extra_ops``; arignote serves them at
those paths too (see :mod:`arignote.tensor.module_paths`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce
from typing import Any

import numpy as np

from arignote.config import config
from arignote.graph.basic import Constant, Variable
from arignote.tensor import math as tm
from arignote.tensor.advanced_subtensor import AdvancedIncSubtensor1, AdvancedSubtensor1
from arignote.tensor.alloc import arange, broadcast_arrays, linspace, tri
from arignote.tensor.basic import (
    MakeVector,
    as_tensor_variable,
    constant,
    get_scalar_constant_value,
)
from arignote.tensor.extra_ops import AllocDiag, diagonal
from arignote.tensor.indexing_ops import nonzero, take
from arignote.tensor.join import concatenate, stack
from arignote.tensor.linalg.inverse import inv
from arignote.tensor.linalg.solve import solve
from arignote.tensor.pad import pad
from arignote.tensor.products import dot, matmul
from arignote.tensor.reduction import sum as sum_
from arignote.tensor.reshape import flatten, reshape
from arignote.tensor.shape import expand_dims, shape_i, shape_tuple, squeeze
from arignote.tensor.sort import argsort, sort
from arignote.tensor.subtensor import inc_subtensor, set_subtensor

# -- elementwise helpers ------------------------------------------------------------------------


def isposinf(x: Any) -> Variable:
    """Whether each element is positive infinity, like ``np.isposinf``."""
    return tm.eq(as_tensor_variable(x), np.inf)


def isneginf(x: Any) -> Variable:
    """Whether each element is negative infinity, like ``np.isneginf``."""
    return tm.eq(as_tensor_variable(x), -np.inf)


def nan_to_num(x: Any, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None):
    """``x`` with NaN, +inf and -inf replaced, like ``np.nan_to_num`` (default: 0 and the
    largest / smallest finite value of the dtype). Integer tensors are returned unchanged."""
    x = as_tensor_variable(x)
    if x.type.dtype[0] not in "fc":
        return x
    info = np.finfo(x.type.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    if x.type.dtype[0] == "c":
        return tm.complex(
            nan_to_num(tm.real(x), nan, posinf, neginf), nan_to_num(tm.imag(x), nan, posinf, neginf)
        )
    dtype = x.type.dtype
    out = tm.switch(tm.isnan(x), constant(nan, dtype=dtype), x)
    out = tm.switch(isposinf(x), constant(posinf, dtype=dtype), out)
    return tm.switch(isneginf(x), constant(neginf, dtype=dtype), out)


def floor_div(x: Any, y: Any) -> Variable:
    """``x // y`` rounded toward minus infinity, like ``np.floor_divide``."""
    return tm.int_div(x, y)


def ceil_intdiv(a: Any, b: Any) -> Variable:
    """``a // b`` plus one where the division leaves a remainder (integer ceiling division for
    positive operands), as PyTensor defines it."""
    quotient = tm.int_div(a, b)
    return quotient + tm.cast(tm.neq(tm.mod(a, b), 0), quotient.type.dtype)


def iround(a: Any, mode: str | None = None) -> Variable:
    """``a`` rounded (see :func:`round`) and cast to int64."""
    return tm.cast(tm.round(a, mode), "int64")


def largest(*args: Any) -> Variable:
    """The elementwise maximum of any number of tensors.

    A chain of pairwise ``maximum`` (not the maximum of their stack): where arguments tie, the
    gradient goes to one of them, so ``largest(v, v, w)`` differentiates as ``maximum(v, w)``
    (the reduction of a stack gives every tied element the whole cotangent).
    """
    return reduce(tm.maximum, [as_tensor_variable(a) for a in args])


def smallest(*args: Any) -> Variable:
    """The elementwise minimum of any number of tensors (pairwise, as :func:`largest`)."""
    return reduce(tm.minimum, [as_tensor_variable(a) for a in args])


def complex_from_polar(abs: Any, angle: Any) -> Variable:
    """The complex numbers of modulus ``abs`` and argument ``angle``: ``abs * exp(1j * angle)``."""
    abs, angle = as_tensor_variable(abs), as_tensor_variable(angle)
    return tm.complex(abs * tm.cos(angle), abs * tm.sin(angle))


def tri_gamma(x: Any) -> Variable:
    """The trigamma function, the derivative of ``psi``: ``polygamma(1, x)``."""
    return tm.polygamma(1, x)


def chi2sf(x: Any, k: Any) -> Variable:
    """The survival function of the chi-squared distribution with ``k`` degrees of freedom:
    ``gammaincc(k / 2, x / 2)`` (``scipy.stats.chi2.sf``); 1 below the support (x < 0)."""
    x = as_tensor_variable(x)
    below = tm.lt(x, 0)  # every draw exceeds a negative x, where gammaincc itself is NaN
    # gammaincc is evaluated at 2 there instead, so that its (unused) derivative is finite
    # and the gradient is 0, not 0 * NaN
    inside = tm.switch(below, tm.ones_like(x) * 2, x)
    survival = tm.gammaincc(as_tensor_variable(k) / 2.0, inside / 2.0)
    return tm.switch(below, tm.ones_like(survival), survival)


def gammau(k: Any, x: Any) -> Variable:
    """The upper incomplete gamma function (not regularized): ``gammaincc(k, x) * gamma(k)``."""
    return tm.gammaincc(k, x) * tm.gamma(k)


def gammal(k: Any, x: Any) -> Variable:
    """The lower incomplete gamma function (not regularized): ``gammainc(k, x) * gamma(k)``."""
    return tm.gammainc(k, x) * tm.gamma(k)


# -- products -----------------------------------------------------------------------------------


def _cast_to(x: Variable, dtype: Any) -> Variable:
    return x if dtype is None else tm.cast(x, dtype)


def vecdot(x1: Any, x2: Any, dtype: Any = None) -> Variable:
    """The dot products of the vectors along the last axis, ``sum(conj(x1) * x2, axis=-1)``, like
    ``np.vecdot`` (batch dimensions broadcast)."""
    x1, x2 = as_tensor_variable(x1), as_tensor_variable(x2)
    return _cast_to(sum_(tm.conj(x1) * x2, axis=-1), dtype)


def matvec(x1: Any, x2: Any, dtype: Any = None) -> Variable:
    """Matrix-vector products over the last axes, like ``np.matvec``: ``(..., m, n) @ (..., n)``."""
    x1, x2 = as_tensor_variable(x1), as_tensor_variable(x2)
    product = matmul(x1, expand_dims(x2, -1))
    return _cast_to(product[..., 0], dtype)


def vecmat(x1: Any, x2: Any, dtype: Any = None) -> Variable:
    """Vector-matrix products over the last axes, like ``np.vecmat``: ``conj(x1) @ x2``."""
    x1, x2 = as_tensor_variable(x1), as_tensor_variable(x2)
    product = matmul(expand_dims(tm.conj(x1), -2), x2)
    return _cast_to(product[..., 0, :], dtype)


def batched_dot(a: Any, b: Any) -> Variable:
    """The dot product of each pair of entries along the first (batch) axis: matrices multiply
    (``(B, m, k) @ (B, k, n)``), a vector entry acts as a row or column, two vectors give their
    inner product."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    if a.type.ndim < 2 or b.type.ndim < 2:
        raise TypeError(f"batched_dot expects a batch axis on both inputs, got {a.type}, {b.type}")
    if a.type.ndim == 2 and b.type.ndim == 2 and (a * b).type.dtype[0] in "fc":
        return sum_(a * b, axis=1)
    if a.type.ndim == 2 and b.type.ndim == 2:  # a sum would widen bools and small integers
        return matmul(expand_dims(a, 1), expand_dims(b, -1))[:, 0, 0]
    if a.type.ndim == 2:
        return matmul(expand_dims(a, 1), b)[:, 0]
    if b.type.ndim == 2:
        return matmul(a, expand_dims(b, -1))[..., 0]
    return matmul(a, b)


def dense_dot(a: Any, b: Any) -> Variable:
    """The dot product of two tensors (PyTensor's name for :func:`dot` on dense tensors)."""
    return dot(a, b)


def matrix_dot(*args: Any) -> Variable:
    """The product of a chain of matrices, ``args[0] @ args[1] @ ...``, left to right."""
    return reduce(dot, [as_tensor_variable(a) for a in args])


def _product(lengths: Sequence[Any]) -> Any:
    return reduce(tm.mul, lengths, constant(1, dtype="int64"))


def tensorinv(a: Any, ind: int = 2) -> Variable:
    """The inverse of ``a`` for :func:`numpy.tensordot` over its first ``ind`` axes, like
    ``np.linalg.tensorinv``: ``a`` reshaped to a square matrix, inverted and reshaped back."""
    a = as_tensor_variable(a)
    shape = shape_tuple(a)
    rows, cols = shape[:ind], shape[ind:]
    square = reshape(a, [_product(rows), _product(cols)], ndim=2)
    return reshape(inv(square), [*cols, *rows], ndim=a.type.ndim)


def tensorsolve(a: Any, b: Any, axes: Sequence[int] | None = None) -> Variable:
    """The ``x`` with ``tensordot(a, x, x.ndim) == b``, like ``np.linalg.tensorsolve``."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    if axes is not None:
        moved = [d for d in range(a.type.ndim) if d not in axes] + list(axes)
        a = a.transpose(moved)
    x_shape = shape_tuple(a)[b.type.ndim :]
    square = reshape(a, [_product(shape_tuple(b)), _product(x_shape)], ndim=2)
    x = solve(square, flatten(b, 1))
    return reshape(x, list(x_shape), ndim=a.type.ndim - b.type.ndim)


# -- indexing (PyTensor's tensor.subtensor helpers) ----------------------------------------------

advanced_subtensor1 = AdvancedSubtensor1()  # x[ilist] for an integer vector ilist
advanced_inc_subtensor1 = AdvancedIncSubtensor1()  # x[ilist] += y, repeated rows accumulate
advanced_set_subtensor1 = AdvancedIncSubtensor1(set_instead_of_inc=True)  # x[ilist] = y


def basic_subtensor(x: Any, *index_variables: Any) -> Variable:
    """``x[index_variables]`` (integers, slices, new axes)."""
    return as_tensor_variable(x)[tuple(index_variables)]


def advanced_inc_subtensor(x: Any, y: Any, *args: Any) -> Variable:
    """``x`` with ``y`` added at ``x[args]`` (an advanced index)."""
    return inc_subtensor(as_tensor_variable(x)[tuple(args)], y)


def advanced_set_subtensor(x: Any, y: Any, *args: Any) -> Variable:
    """``x`` with ``y`` written at ``x[args]`` (an advanced index)."""
    return set_subtensor(as_tensor_variable(x)[tuple(args)], y)


# -- building and stacking ----------------------------------------------------------------------


def horizontal_stack(*args: Any) -> Variable:
    """``np.hstack``: concatenate along axis 1 (axis 0 for vectors)."""
    tensors = [as_tensor_variable(a) for a in args]
    return concatenate(tensors, axis=0 if tensors[0].type.ndim == 1 else 1)


def vertical_stack(*args: Any) -> Variable:
    """``np.vstack``: concatenate along axis 0, vectors becoming rows."""
    tensors = [as_tensor_variable(a) for a in args]
    return concatenate([atleast_Nd(t, n=2) for t in tensors], axis=0)


def stacklists(arg: Any) -> Variable:
    """A tensor from nested lists of scalars or tensors, stacking level by level."""
    if isinstance(arg, (list, tuple)):
        return stack([stacklists(item) for item in arg])
    return as_tensor_variable(arg)


def tensor_copy(x: Any) -> Variable:
    """A copy of ``x`` (an elementwise identity, which rewrites may remove)."""
    return tm.identity(x)


def atleast_Nd(arry: Any, *, n: int = 1, left: bool = True) -> Variable:
    """``arry`` with length-1 dimensions added on the left (or right) up to ``n`` dimensions."""
    x = as_tensor_variable(arry)
    missing = n - x.type.ndim
    if missing <= 0:
        return x
    axes = list(range(missing)) if left else list(range(x.type.ndim, n))
    return expand_dims(x, axes)


# -- indices ------------------------------------------------------------------------------------


def tril_indices(n: Any, k: Any = 0, m: Any = None) -> tuple[Variable, Variable]:
    """The row and column indices of the lower triangle of an ``(n, m)`` array, like
    ``np.tril_indices``."""
    return nonzero(tri(n, m, k, dtype="bool"))


def triu_indices(n: Any, k: Any = 0, m: Any = None) -> tuple[Variable, Variable]:
    """The row and column indices of the upper triangle of an ``(n, m)`` array, like
    ``np.triu_indices``."""
    return nonzero(tm.invert(tri(n, m, k - 1, dtype="bool")))


def tril_indices_from(a: Any, k: Any = 0) -> tuple[Variable, Variable]:
    """:func:`tril_indices` for the shape of the matrix ``a``."""
    a = as_tensor_variable(a)
    if a.type.ndim != 2:
        raise ValueError(f"tril_indices_from expects a matrix, got {a.type}")
    return tril_indices(shape_i(a, 0), k, shape_i(a, 1))


def triu_indices_from(a: Any, k: Any = 0) -> tuple[Variable, Variable]:
    """:func:`triu_indices` for the shape of the matrix ``a``."""
    a = as_tensor_variable(a)
    if a.type.ndim != 2:
        raise ValueError(f"triu_indices_from expects a matrix, got {a.type}")
    return triu_indices(shape_i(a, 0), k, shape_i(a, 1))


def flatnonzero(a: Any) -> Variable:
    """The indices of the non-zero elements of the flattened ``a``, like ``np.flatnonzero``."""
    return nonzero(flatten(as_tensor_variable(a), 1))[0]


def nonzero_values(a: Any) -> Variable:
    """The non-zero elements of ``a``, flattened, in C order."""
    flat = flatten(as_tensor_variable(a), 1)
    return take(flat, flatnonzero(flat))


def inverse_permutation(perm: Any) -> Variable:
    """The inverse of the permutation(s) along the last axis of ``perm``."""
    perm = as_tensor_variable(perm)
    return argsort(perm, axis=-1).astype(perm.type.dtype)


def compress(condition: Any, x: Any, axis: int | None = None) -> Variable:
    """The slices of ``x`` along ``axis`` where ``condition`` is true, like ``np.compress``
    (``axis=None``: of the flattened ``x``)."""
    x = as_tensor_variable(x)
    chosen = nonzero(flatten(as_tensor_variable(condition), 1))[0]
    if axis is None:
        return take(flatten(x, 1), chosen)
    return take(x, chosen, axis=axis)


def extract_diag(x: Any) -> Variable:
    """PyTensor's older name for ``diagonal(x)`` (the main diagonal of the first two axes)."""
    return diagonal(as_tensor_variable(x))


def alloc_diag(diag: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Variable:
    """A tensor with ``diag``'s last axis on diagonal ``offset`` of the plane ``(axis1, axis2)``
    and zeros elsewhere (the inverse of ``diagonal``)."""
    diag = as_tensor_variable(diag)
    n = shape_i(diag, diag.type.ndim - 1) + abs(offset)  # the square matrix the diagonal fits
    return AllocDiag(offset, axis1, axis2)(diag, n, n)


def fill_diagonal(a: Any, val: Any) -> Variable:
    """``a`` with its main diagonal set to ``val``, like ``np.fill_diagonal`` (as a new tensor)."""
    a = as_tensor_variable(a)
    if a.type.ndim < 2:
        raise ValueError(f"fill_diagonal expects at least 2 dimensions, got {a.type}")
    length = reduce(tm.minimum, [shape_i(a, d) for d in range(a.type.ndim)])
    index = arange(length)
    return set_subtensor(a[(index,) * a.type.ndim], val)


def fill_diagonal_offset(a: Any, val: Any, offset: Any) -> Variable:
    """The matrix ``a`` with its diagonal ``offset`` (> 0 above the main one) set to ``val``."""
    a = as_tensor_variable(a)
    if a.type.ndim != 2:
        raise TypeError(f"fill_diagonal_offset expects a matrix, got {a.type}")
    offset = as_tensor_variable(offset)
    rows, cols = shape_i(a, 0), shape_i(a, 1)
    start_row, start_col = tm.maximum(-offset, 0), tm.maximum(offset, 0)
    length = tm.maximum(tm.minimum(rows - start_row, cols - start_col), 0)
    index = arange(length)
    return set_subtensor(a[index + start_row, index + start_col], val)


def ix_(*args: Any) -> tuple[Variable, ...]:
    """An open mesh from 1-d index sequences, like ``np.ix_``: argument ``k`` becomes a tensor
    with its length on axis ``k`` and length 1 on the others (booleans become the indices of
    their true entries), so that ``x[ix_(rows, cols)]`` picks a cross product."""
    count = len(args)
    mesh = []
    for k, arg in enumerate(args):
        v = as_tensor_variable(arg)
        if v.type.ndim != 1:
            raise ValueError(f"ix_: argument {k} must be one-dimensional, got {v.type}")
        if v.type.dtype == "bool":
            v = nonzero(v)[0]
        order = ["x"] * k + [0] + ["x"] * (count - k - 1)
        mesh.append(v.dimshuffle(*order))
    return tuple(mesh)


class _Grid:
    """``mgrid[...]`` / ``ogrid[...]``: ranges from slices (an imaginary step ``5j`` asks for 5
    points, end included), as a dense stack or an open mesh."""

    def __init__(self, sparse: bool) -> None:
        self.sparse = sparse

    def __getitem__(self, key: Any) -> Any:
        slices = key if isinstance(key, tuple) else (key,)
        ranges = [self._range(s) for s in slices]
        if not isinstance(key, tuple):
            return ranges[0]
        mesh = ix_(*ranges)
        if self.sparse:
            return list(mesh)
        return stack(broadcast_arrays(*mesh))

    @staticmethod
    def _range(s: slice) -> Variable:
        start = 0 if s.start is None else s.start
        step = 1 if s.step is None else s.step
        if isinstance(step, complex):
            return linspace(start, s.stop, int(abs(step)), dtype=config.floatX)
        return arange(start, s.stop, step)

    def __repr__(self) -> str:
        return "ogrid" if self.sparse else "mgrid"


mgrid = _Grid(sparse=False)  # mgrid[0:3, 0:4]: a (2, 3, 4) stack of index grids
ogrid = _Grid(sparse=True)  # ogrid[0:3, 0:4]: [(3, 1), (1, 4)] ranges that broadcast


# -- sequences ----------------------------------------------------------------------------------


def logspace(
    start: Any,
    stop: Any,
    num: int = 50,
    base: float = 10.0,
    endpoint: bool = True,
    dtype: Any = None,
    axis: int = 0,
) -> Variable:
    """Numbers evenly spaced on a log scale, ``base ** linspace(start, stop)``, like
    ``np.logspace`` (arguments in PyTensor's order: ``base`` before ``endpoint``).

    ``dtype`` is the result's dtype (by default the floating dtype of the samples) and
    ``axis`` where the samples lie when ``start`` or ``stop`` are arrays.
    """
    exponents = linspace(start, stop, num, endpoint=endpoint, axis=axis)
    samples = tm.pow(constant(base, dtype=exponents.type.dtype), exponents)
    return samples if dtype is None else tm.cast(samples, dtype)


def geomspace(
    start: Any,
    stop: Any,
    num: int = 50,
    endpoint: bool = True,
    dtype: Any = None,
    axis: int = 0,
    base: float = 10.0,
) -> Variable:
    """Numbers evenly spaced on a log scale from ``start`` to ``stop`` (a geometric progression),
    like ``np.geomspace`` for positive bounds.

    ``dtype`` and ``axis`` are NumPy's. ``base`` is accepted for PyTensor's signature: the
    progression does not depend on the base of the logarithm it is spaced in.
    """
    start, stop = as_tensor_variable(start), as_tensor_variable(stop)
    samples = tm.exp(linspace(tm.log(start), tm.log(stop), num, endpoint=endpoint, axis=axis))
    return samples if dtype is None else tm.cast(samples, dtype)


def bartlett(M: Any) -> Variable:
    """The Bartlett (triangular) window of ``M`` points, like ``np.bartlett``."""
    M = as_tensor_variable(M)
    n = arange(M).astype(config.floatX)
    half = tm.cast(M - 1, config.floatX) / 2.0
    rising = n / tm.maximum(half, 1.0)  # max(., 1): M == 1 gives the window [1]
    window = tm.switch(tm.le(n, half), rising, 2.0 - rising)
    return tm.switch(tm.eq(M, 1), tm.ones_like(window), window)


# -- statistics ---------------------------------------------------------------------------------


def cov(
    m: Any,
    y: Any = None,
    rowvar: bool = True,
    bias: bool = False,
    ddof: Any = None,
    fweights: Any = None,
    aweights: Any = None,
):
    """The covariance matrix of the variables in the rows (``rowvar``) or columns of ``m`` (and
    of ``y``), like ``np.cov``.

    ``fweights`` (integer repeat counts) and ``aweights`` (relative importances) weigh the
    observations as in NumPy: the mean is the weighted mean and the divisor
    ``v1 - ddof * sum(w * aweights) / v1`` with ``w = fweights * aweights`` and ``v1 = sum(w)``.
    """
    m = atleast_Nd(as_tensor_variable(m), n=2)
    if not rowvar and m.type.ndim == 2:
        m = m.T
    if y is not None:
        y = atleast_Nd(as_tensor_variable(y), n=2)
        m = concatenate([m, y if rowvar else y.T], axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    if fweights is None and aweights is None:
        return _unweighted_cov(m, ddof)
    return _weighted_cov(m, ddof, fweights, aweights)


def _unweighted_cov(m: Variable, ddof: Any) -> Variable:
    count = tm.cast(shape_i(m, 1), m.type.dtype if m.type.dtype[0] == "f" else config.floatX)
    centred = m - m.mean(axis=1, keepdims=True)
    # no degrees of freedom left: NumPy divides by 0 (NaN, inf), never by a negative count
    fact = tm.maximum(count - ddof, 0)
    # like NumPy and PyTensor, the dimensions of length 1 go (statically known ones here)
    return squeeze(dot(centred, tm.conj(centred).T) / fact)


def _weighted_cov(m: Variable, ddof: Any, fweights: Any, aweights: Any) -> Variable:
    given = [as_tensor_variable(w) for w in (fweights, aweights) if w is not None]
    w = given[0] if len(given) == 1 else given[0] * given[1]
    v1 = sum_(w)
    centred = m - sum_(m * w, axis=1, keepdims=True) / v1
    if aweights is None or (isinstance(ddof, int) and ddof == 0):
        fact = v1 - ddof
    else:
        fact = v1 - ddof * sum_(w * as_tensor_variable(aweights)) / v1
    fact = tm.maximum(fact, 0)  # NumPy's rule: never a negative divisor
    return squeeze(dot(centred * w, tm.conj(centred).T) / fact)


def median(x: Any, axis: Any = None) -> Variable:
    """The median along ``axis`` (None: of all elements), like ``np.median``: the middle of the
    sorted values, or the mean of the two middle ones for an even count."""
    x = as_tensor_variable(x)
    if axis is None:
        x, axis = flatten(x, 1), 0
    if isinstance(axis, (list, tuple)):
        raise NotImplementedError("median over several axes: flatten them first")
    ordered = sort(x, axis=axis)
    if ordered.type.dtype[0] not in "fc":  # NumPy averages integers in float64
        ordered = tm.cast(ordered, "float64")
    # one NaN after the sorted values: an empty axis reads it (the median of nothing is NaN,
    # as in NumPy); a non-empty one never reaches it
    width = [(0, 1) if d == axis % x.type.ndim else (0, 0) for d in range(x.type.ndim)]
    ordered = pad(ordered, width, constant_values=np.nan)
    n = shape_i(x, axis)
    upper = take(ordered, n // 2, axis=axis)
    lower = take(ordered, (n - 1) // 2, axis=axis)
    return (upper + lower) / 2.0


# -- introspection -----------------------------------------------------------------------------


def get_underlying_scalar_constant_value(v: Any, max_recur: int = 20) -> np.ndarray:
    """PyTensor's name for :func:`get_scalar_constant_value`."""
    return get_scalar_constant_value(v, max_recur)


def get_vector_length(v: Any) -> int:
    """The length of the vector ``v`` when the graph tells it, else ``ValueError``."""
    v = as_tensor_variable(v)
    if v.type.ndim != 1:
        raise TypeError(f"get_vector_length expects a vector, got {v.type}")
    if v.type.shape[0] is not None:
        return v.type.shape[0]
    if isinstance(v, Constant):
        return len(v.data)
    if v.owner is not None and isinstance(v.owner.op, MakeVector):
        return len(v.owner.inputs)
    raise ValueError(f"The length of {v} is not known when the graph is built")


def is_flat(var: Any, ndim: int = 1) -> bool:
    """Whether ``var`` has exactly ``ndim`` dimensions."""
    return as_tensor_variable(var).type.ndim == ndim


__all__: Sequence[str] = [
    "alloc_diag",
    "atleast_Nd",
    "bartlett",
    "batched_dot",
    "ceil_intdiv",
    "chi2sf",
    "complex_from_polar",
    "compress",
    "cov",
    "dense_dot",
    "extract_diag",
    "fill_diagonal",
    "fill_diagonal_offset",
    "flatnonzero",
    "floor_div",
    "gammal",
    "gammau",
    "geomspace",
    "get_underlying_scalar_constant_value",
    "get_vector_length",
    "horizontal_stack",
    "inverse_permutation",
    "iround",
    "is_flat",
    "isneginf",
    "isposinf",
    "ix_",
    "largest",
    "logspace",
    "matvec",
    "median",
    "mgrid",
    "nan_to_num",
    "nonzero_values",
    "ogrid",
    "smallest",
    "stacklists",
    "tensor_copy",
    "tri_gamma",
    "tril_indices",
    "tril_indices_from",
    "triu_indices",
    "triu_indices_from",
    "vecdot",
    "vecmat",
    "vertical_stack",
]
