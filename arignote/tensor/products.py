"""Products of tensors: ``dot``, ``matmul``, ``tensordot``, ``outer``, ``vdot`` and ``einsum``.

Three ops do the work: ``Dot`` (vectors and matrices, the BLAS case), ``MatMul`` (stacks of
matrices with broadcast batch dimensions) and ``Einsum`` (any NumPy subscripts). The other
functions are graphs of these and of shape ops.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Variable
from arignote.graph.op import Op
from arignote.scalar.basic import complex_dtypes, discrete_dtypes, grad_dtype, upcast
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.elemwise import DimShuffle, broadcast_static_shape
from arignote.tensor.math import cast, conj, mul, ones_like
from arignote.tensor.reduction import sum as tensor_sum
from arignote.tensor.type import tensor_type

# -- helpers shared by the product ops ---------------------------------------------------------


def matrix_transpose(x: Any) -> Variable:
    """``x`` with its last two dimensions swapped (NumPy's ``x.mT``)."""
    x = as_tensor_variable(x)
    if x.type.ndim < 2:
        raise ValueError(f"matrix_transpose needs at least 2 dimensions, got {x.type}")
    order = list(range(x.type.ndim))
    order[-2], order[-1] = order[-1], order[-2]
    return DimShuffle(x.type.ndim, order)(x)


def _pad_left(x: Variable, ndim: int) -> Variable:
    missing = ndim - x.type.ndim
    if missing <= 0:
        return x
    return DimShuffle(x.type.ndim, ["x"] * missing + list(range(x.type.ndim)))(x)


def sum_to_type(g: Variable, like: Variable) -> Variable:
    """Sum ``g`` over the dimensions along which ``like`` was broadcast to ``g``'s shape.

    Those are the leading dimensions ``like`` lacks, and the dimensions where ``like`` has static
    length 1 and ``g`` does not: the adjoint of broadcasting is summation.
    """
    extra = g.type.ndim - like.type.ndim
    if extra > 0:
        g = tensor_sum(g, axis=tuple(range(extra)))
    axes = [d for d in range(like.type.ndim) if like.type.shape[d] == 1 and g.type.shape[d] != 1]
    if axes:
        g = tensor_sum(g, axis=axes, keepdims=True)
    return g


def _check_runtime_batch(op: Op, node: Apply, values: Sequence[np.ndarray], core: int) -> None:
    """Batch dimensions must agree unless their static length is 1 (no runtime broadcasting)."""
    batch = [v.shape[: v.ndim - core] for v in values]
    for dim in range(len(batch[0])):
        sizes = {b[dim] for b, var in zip(batch, node.inputs) if var.type.shape[dim] != 1}
        if len(sizes) > 1:
            raise ValueError(
                f"{op}: the batch dimensions of the inputs do not match: shapes "
                f"{[v.shape for v in values]} (dimension {dim})"
            )


def _to_grad_dtype(g: Variable, wrt: Variable) -> Variable:
    return g.astype(grad_dtype(wrt))


def conj_if_complex(x: Variable) -> Variable:
    """``conj(x)`` for complex ``x``, ``x`` itself otherwise.

    Gradients with respect to a complex ``z`` are ``dC/dRe(z) + i dC/dIm(z)`` for a real cost
    ``C``: through a product, each operand's gradient multiplies the cotangent by the
    *conjugates* of the other operands.
    """
    return conj(x) if x.type.dtype in complex_dtypes else x


def adjoint(x: Variable) -> Variable:
    """The conjugate transpose of the matrices of ``x`` (the transpose for real ``x``)."""
    return conj_if_complex(matrix_transpose(x))


# -- Dot ----------------------------------------------------------------------------------------


class Dot(Op):
    """Dot product of vectors and matrices (``np.dot`` for 1-d and 2-d operands)."""

    __props__ = ()

    def make_node(self, x, y):
        x, y = as_tensor_variable(x), as_tensor_variable(y)
        if x.type.ndim not in (1, 2) or y.type.ndim not in (1, 2):
            raise TypeError(f"Dot takes 1-d or 2-d inputs, got {x.type} and {y.type}")
        xk, yk = x.type.shape[-1], y.type.shape[0]
        if xk is not None and yk is not None and xk != yk:
            raise ValueError(f"Dot: shapes {x.type.shape} and {y.type.shape} are not aligned")
        shape = x.type.shape[:-1] + y.type.shape[1:]
        return Apply(self, [x, y], [tensor_type(upcast(x.type.dtype, y.type.dtype), shape)()])

    def perform(self, node, inputs, output_storage):
        x, y = inputs
        if x.shape[-1] != y.shape[0]:
            raise ValueError(f"Dot: shapes {x.shape} and {y.shape} are not aligned")
        output_storage[0][0] = np.asarray(np.dot(x, y), dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        xs, ys = input_shapes
        return [tuple(xs[:-1]) + tuple(ys[1:])]

    def flops(self, inputs, outputs):
        x, y = inputs
        return 2 * int(np.prod(x, dtype=np.int64)) * int(np.prod(y[1:], dtype=np.int64))

    def grad(self, inputs, output_grads):
        (x, y), (gz,) = inputs, output_grads
        if x.type.dtype in discrete_dtypes and y.type.dtype in discrete_dtypes:
            # an integer-valued output is a step function: zero gradient almost everywhere
            return [x.zeros_like(dtype=grad_dtype(x)), y.zeros_like(dtype=grad_dtype(y))]
        gx, gy = _dot_grads(x, y, gz)
        return [_to_grad_dtype(gx, x), _to_grad_dtype(gy, y)]

    def R_op(self, inputs, eval_points):
        (x, y), (ex, ey) = inputs, eval_points
        terms = []
        if ex is not None:
            terms.append(self(ex, y))  # bilinear: d(x.y) = dx.y + x.dy
        if ey is not None:
            terms.append(self(x, ey))
        if not terms:
            return [None]
        return [terms[0] if len(terms) == 1 else terms[0] + terms[1]]


def _dot_grads(x: Variable, y: Variable, gz: Variable) -> tuple[Variable, Variable]:
    """d(x.y): gx = gz.y^H, gy = x^H.gz, with outer products where a side is a vector."""
    x, y = conj_if_complex(x), conj_if_complex(y)
    if x.type.ndim == 2 and y.type.ndim == 2:
        return _dot(gz, y.T), _dot(x.T, gz)
    if x.type.ndim == 1 and y.type.ndim == 2:
        return _dot(y, gz), outer(x, gz)
    if x.type.ndim == 2 and y.type.ndim == 1:
        return outer(gz, y), _dot(x.T, gz)
    return gz * y, gz * x


_dot = Dot()


# -- MatMul -------------------------------------------------------------------------------------


class MatMul(Op):
    """Stacks of matrix products: ``np.matmul`` for inputs of equal ndim >= 2.

    The last two dimensions are the matrices; the leading (batch) dimensions broadcast against
    each other where one side has static length 1. :func:`matmul` pads the inputs to equal ndim
    and handles vectors.
    """

    __props__ = ()

    def make_node(self, x, y):
        x, y = as_tensor_variable(x), as_tensor_variable(y)
        if x.type.ndim < 2 or x.type.ndim != y.type.ndim:
            raise TypeError(
                f"MatMul takes two inputs of equal ndim >= 2 (use matmul()), got {x.type} and "
                f"{y.type}"
            )
        xk, yk = x.type.shape[-1], y.type.shape[-2]
        if xk is not None and yk is not None and xk != yk:
            raise ValueError(
                f"MatMul: the matrices of shapes {x.type.shape} and {y.type.shape} are not aligned"
            )
        batch = broadcast_static_shape([x.type.shape[:-2], y.type.shape[:-2]], context=self)
        shape = batch + (x.type.shape[-2], y.type.shape[-1])
        return Apply(self, [x, y], [tensor_type(upcast(x.type.dtype, y.type.dtype), shape)()])

    def perform(self, node, inputs, output_storage):
        x, y = inputs
        if x.shape[-1] != y.shape[-2]:
            raise ValueError(f"MatMul: shapes {x.shape} and {y.shape} are not aligned")
        _check_runtime_batch(self, node, inputs, 2)
        output_storage[0][0] = np.asarray(np.matmul(x, y), dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        x, (xs, ys) = node.inputs[0], input_shapes
        batch = []
        for d, static in enumerate(node.outputs[0].type.shape[:-2]):
            if static is not None:
                batch.append(static)
            else:
                batch.append(xs[d] if x.type.shape[d] != 1 else ys[d])
        return [(*batch, xs[-2], ys[-1])]

    def L_op(self, inputs, outputs, output_grads):
        (x, y), (gz,) = inputs, output_grads
        if x.type.dtype in discrete_dtypes and y.type.dtype in discrete_dtypes:
            return [x.zeros_like(dtype=grad_dtype(x)), y.zeros_like(dtype=grad_dtype(y))]
        # z = x y: gx = gz y^H, gy = x^H gz, summed over the batch dims each side broadcast
        gx = sum_to_type(self(gz, adjoint(y)), x)
        gy = sum_to_type(self(adjoint(x), gz), y)
        return [_to_grad_dtype(gx, x), _to_grad_dtype(gy, y)]

    def R_op(self, inputs, eval_points):
        (x, y), (ex, ey) = inputs, eval_points
        terms = []
        if ex is not None:
            terms.append(self(ex, y))
        if ey is not None:
            terms.append(self(x, ey))
        if not terms:
            return [None]
        return [terms[0] if len(terms) == 1 else terms[0] + terms[1]]


_matmul = MatMul()


def matmul(x1: Any, x2: Any, dtype: Any = None) -> Variable:
    """Matrix product of two tensors, like ``np.matmul`` (the ``@`` operator).

    Parameters
    ----------
    x1, x2
        Tensors of at least one dimension. The last two dimensions are the matrices and the
        leading ones are batch dimensions, broadcast against each other (a dimension broadcasts
        when its static length is 1). A 1-d operand is a vector: it gains a length-1
        dimension for the product (in front for ``x1``, at the end for ``x2``), which is then
        removed from the result.
    dtype
        The result's dtype (PyTensor's and NumPy's keyword); by default the operands' common
        dtype.

    Returns
    -------
    Variable
        The products, of shape ``batch + (n, m)`` (without the vector dimensions).
    """
    out = _matmul_of(as_tensor_variable(x1), as_tensor_variable(x2))
    return out if dtype is None else cast(out, dtype)


def _matmul_of(x: Variable, y: Variable) -> Variable:
    if x.type.ndim == 0 or y.type.ndim == 0:
        raise ValueError(
            f"matmul: an operand is 0-d ({x.type}, {y.type}); use * to multiply by a scalar"
        )
    if x.type.ndim <= 2 and y.type.ndim <= 2:
        return _dot(x, y)  # the plain BLAS case
    x_vector, y_vector = x.type.ndim == 1, y.type.ndim == 1
    if x_vector:
        x = DimShuffle(1, ("x", 0))(x)
    if y_vector:
        y = DimShuffle(1, (0, "x"))(y)
    ndim = max(x.type.ndim, y.type.ndim)
    out = _matmul(_pad_left(x, ndim), _pad_left(y, ndim))
    if x_vector or y_vector:
        keep = [d for d in range(ndim) if not (x_vector and d == ndim - 2)]
        keep = [d for d in keep if not (y_vector and d == ndim - 1)]
        out = DimShuffle(ndim, keep)(out)
    return out


# -- dot, tensordot, outer, vdot ----------------------------------------------------------------


def _normalize_tensordot_axes(axes: Any, a: Variable, b: Variable) -> tuple[list, list]:
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n < 0 or n > a.type.ndim or n > b.type.ndim:
            raise ValueError(f"tensordot: axes={n} is out of range for {a.type} and {b.type}")
        return list(range(a.type.ndim - n, a.type.ndim)), list(range(n))
    try:
        axes_a, axes_b = axes
    except (TypeError, ValueError) as err:
        raise ValueError(
            f"tensordot: axes must be an int or a pair of sequences of ints, got {axes!r}"
        ) from err
    axes_a = [axes_a] if isinstance(axes_a, (int, np.integer)) else list(axes_a)
    axes_b = [axes_b] if isinstance(axes_b, (int, np.integer)) else list(axes_b)
    if len(axes_a) != len(axes_b):
        raise ValueError(f"tensordot: axes {axes!r} pair sequences of different lengths")
    return _normalized(axes_a, a), _normalized(axes_b, b)


def _normalized(axes: list, x: Variable) -> list:
    result = []
    for axis in axes:
        axis = int(axis)
        if not -x.type.ndim <= axis < x.type.ndim:
            raise np.exceptions.AxisError(f"tensordot: axis {axis} is out of range for {x.type}")
        result.append(axis % x.type.ndim)
    if len(set(result)) != len(result):
        raise ValueError(f"tensordot: repeated axis in {axes}")
    return result


def tensordot(a: Any, b: Any, axes: Any = 2) -> Variable:
    """Sum of products over the given axes, like ``np.tensordot``.

    Parameters
    ----------
    a, b
        Tensors.
    axes
        An int ``n``: the last ``n`` axes of ``a`` are summed against the first ``n`` of ``b``.
        Or a pair ``(axes_a, axes_b)`` of equal-length sequences (or ints) naming the summed
        axes of each operand, in matching order.

    Returns
    -------
    Variable
        The free axes of ``a`` followed by the free axes of ``b``.
    """
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    axes_a, axes_b = _normalize_tensordot_axes(axes, a, b)
    for da, db in zip(axes_a, axes_b):
        sa, sb = a.type.shape[da], b.type.shape[db]
        if sa is not None and sb is not None and sa != sb:
            raise ValueError(
                f"tensordot: axis {da} of {a.type} (length {sa}) does not match axis {db} of "
                f"{b.type} (length {sb})"
            )
    if axes_a == [a.type.ndim - 1] and axes_b == [0] and a.type.ndim <= 2 and b.type.ndim <= 2:
        return _dot(a, b)  # the plain BLAS case
    # Otherwise one Einsum node (NumPy runs it as a tensordot): a's dimensions get the first
    # letters, b's summed dimensions reuse the letters of the a dimensions they pair with.
    letters_a = _LABELS[: a.type.ndim]
    unused = iter(_LABELS[a.type.ndim :])
    paired = dict(zip(axes_b, axes_a))
    letters_b = "".join(
        letters_a[paired[d]] if d in paired else next(unused) for d in range(b.type.ndim)
    )
    free_a = "".join(c for d, c in enumerate(letters_a) if d not in axes_a)
    free_b = "".join(c for d, c in enumerate(letters_b) if d not in axes_b)
    return Einsum(f"{letters_a},{letters_b}->{free_a}{free_b}")(a, b)


def dot(x: Any, y: Any) -> Variable:
    """Dot product, like ``np.dot`` for operands of any number of dimensions.

    Vectors and matrices use the ``Dot`` op; a 0-d operand multiplies elementwise; with more
    dimensions the last axis of ``x`` is summed against the second-to-last of ``y`` (its only
    axis if ``y`` is a vector), as a :func:`tensordot`.
    """
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    if x.type.ndim == 0 or y.type.ndim == 0:
        return mul(x, y)
    if x.type.ndim <= 2 and y.type.ndim <= 2:
        return _dot(x, y)
    y_axis = 0 if y.type.ndim == 1 else y.type.ndim - 2
    return tensordot(x, y, axes=([x.type.ndim - 1], [y_axis]))


def outer(x: Any, y: Any) -> Variable:
    """Outer product of two vectors (other inputs are flattened, as in ``np.outer``)."""
    x, y = _flat(as_tensor_variable(x)), _flat(as_tensor_variable(y))
    return mul(DimShuffle(1, (0, "x"))(x), DimShuffle(1, ("x", 0))(y))


def _flat(x: Variable) -> Variable:
    if x.type.ndim == 1:
        return x
    if x.type.ndim == 0:
        return DimShuffle(0, ("x",))(x)
    return x.flatten()


def vdot(a: Any, b: Any) -> Variable:
    """Dot product of two tensors read as flat vectors, conjugating the first (``np.vdot``).

    The operands must have the same number of elements; the result is 0-d.
    """
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    return _dot(_flat(conj_if_complex(a)), _flat(b))


# -- Einsum -------------------------------------------------------------------------------------

#: The labels np.einsum accepts, in the order its implicit mode sorts them (ASCII order).
_LABELS = string.ascii_uppercase + string.ascii_lowercase


def _unique(term: str) -> str:
    """``term`` without repeated letters, keeping first occurrences (``"iij"`` -> ``"ij"``)."""
    return "".join(dict.fromkeys(term))


def _split_explicit(subscripts: str) -> tuple[list[str], str]:
    if subscripts.count("->") != 1:
        raise ValueError(f"Einsum needs explicit subscripts 'in1,in2->out', got {subscripts!r}")
    lhs, output = subscripts.split("->")
    inputs = lhs.split(",")
    for term in [*inputs, output]:
        bad = [c for c in term if c not in _LABELS]
        if bad:
            raise ValueError(f"Einsum: invalid label {bad[0]!r} in {subscripts!r}")
    missing = set(output) - set("".join(inputs))
    if missing:
        raise ValueError(f"Einsum: output labels {sorted(missing)} of {subscripts!r} name no input")
    return inputs, output


class Einsum(Op):
    """Sums of products over labelled dimensions: ``np.einsum`` with explicit subscripts.

    ``subscripts`` names every dimension of every operand with one letter and gives the output
    explicitly (``"ij,jk->ik"``; no ellipsis, no implicit output): :func:`einsum` translates
    NumPy's notation into this form. Dimensions with the same letter must have the same length
    (there is no broadcasting at run time). Unlike NumPy, an output letter may repeat: the
    result is then zero away from that diagonal (``"i->ii"`` puts a vector on a diagonal).
    That is the adjoint of taking a diagonal (``"ii->i"``), and is what makes the gradient of
    an einsum another einsum.
    """

    __props__ = ("subscripts",)

    def __init__(self, subscripts: str) -> None:
        inputs, output = _split_explicit(subscripts.replace(" ", ""))
        self.subscripts = ",".join(inputs) + "->" + output
        self.input_terms = tuple(inputs)
        self.output_term = output

    def make_node(self, *operands):
        operands = [as_tensor_variable(o) for o in operands]
        if len(operands) != len(self.input_terms):
            raise TypeError(f"{self} takes {len(self.input_terms)} operands, got {len(operands)}")
        for position, (term, x) in enumerate(zip(self.input_terms, operands)):
            if len(term) != x.type.ndim:
                raise TypeError(
                    f"{self}: operand {position} ({x.type}) has {x.type.ndim} dimensions, but "
                    f"its subscripts {term!r} name {len(term)}"
                )
        sizes = self._static_sizes(operands)
        dtype = upcast(*[x.type.dtype for x in operands])
        shape = tuple(sizes[letter] for letter in self.output_term)
        return Apply(self, operands, [tensor_type(dtype, shape)()])

    def _static_sizes(self, operands: list) -> dict[str, int | None]:
        sizes: dict[str, int | None] = {}
        for term, x in zip(self.input_terms, operands):
            for letter, size in zip(term, x.type.shape):
                known = sizes.get(letter)
                if known is None:
                    sizes[letter] = size
                elif size is not None and size != known:
                    raise ValueError(
                        f"{self}: label {letter!r} has length {known} in one operand and {size} "
                        f"in {x.type}"
                    )
        return sizes

    def _runtime_sizes(self, inputs: list) -> dict[str, int]:
        sizes: dict[str, int] = {}
        for term, x in zip(self.input_terms, inputs):
            for letter, size in zip(term, x.shape):
                if sizes.setdefault(letter, size) != size:
                    raise ValueError(
                        f"{self}: label {letter!r} has lengths {sizes[letter]} and {size} "
                        f"(operand shapes {[v.shape for v in inputs]})"
                    )
        return sizes

    def perform(self, node, inputs, output_storage):
        sizes = self._runtime_sizes(inputs)
        unique = _unique(self.output_term)
        spec = ",".join(self.input_terms) + "->" + unique
        result = np.einsum(spec, *inputs, optimize=_einsum_strategy(inputs))
        dtype = node.outputs[0].type.numpy_dtype
        if unique != self.output_term:
            # A repeated output letter: write the result on the diagonal of zeros (np.einsum
            # returns a writeable view of a diagonal).
            out = np.zeros([sizes[letter] for letter in self.output_term], dtype=dtype)
            np.einsum(self.output_term + "->" + unique, out)[...] = result
            result = out
        else:
            result = np.asarray(result, dtype=dtype)
            if any(np.may_share_memory(result, x) for x in inputs):
                result = result.copy()  # a one-operand einsum may return a view
        output_storage[0][0] = result

    def infer_shape(self, fgraph, node, input_shapes):
        where = {}
        for k, term in enumerate(self.input_terms):
            for axis, letter in enumerate(term):
                where.setdefault(letter, input_shapes[k][axis])
        return [tuple(where[letter] for letter in self.output_term)]

    def L_op(self, inputs, outputs, output_grads):
        (gz,) = output_grads
        grads = []
        for k, x in enumerate(inputs):
            if x.type.dtype in discrete_dtypes:
                grads.append(x.zeros_like(dtype=grad_dtype(x)))
            else:
                grads.append(_to_grad_dtype(self._operand_grad(k, inputs, gz), x))
        return grads

    def _operand_grad(self, k: int, inputs: Sequence[Variable], gz: Variable) -> Variable:
        """d/d operand k: the einsum of gz with the other operands, back to operand k's labels.

        A label only operand k has (summed away in the forward pass) gets its length from an
        extra operand of ones shaped like operand k; a repeated label puts the result on the
        diagonal, where operand k was read.
        """
        terms = [self.output_term] + [t for j, t in enumerate(self.input_terms) if j != k]
        operands = [gz] + [conj_if_complex(x) for j, x in enumerate(inputs) if j != k]
        target = self.input_terms[k]
        if not set(target) <= set("".join(terms)):
            terms.append(target)
            operands.append(ones_like(inputs[k]))
        return Einsum(",".join(terms) + "->" + target)(*operands)

    def R_op(self, inputs, eval_points):
        # multilinear: the tangent is the sum over operands of the einsum with that operand
        # replaced by its tangent
        total = None
        for k, ev in enumerate(eval_points):
            if ev is None:
                continue
            term = self(*[ev if j == k else x for j, x in enumerate(inputs)])
            total = term if total is None else total + term
        return [total]

    def __str__(self) -> str:
        return f"Einsum{{{self.subscripts}}}"


def _einsum_strategy(inputs: Sequence[np.ndarray]) -> Any:
    """Let NumPy plan the contraction (and use BLAS) when that pays off; its plain loops are
    faster for one operand or small arrays."""
    if len(inputs) > 2 or (len(inputs) == 2 and max(x.size for x in inputs) > 256):
        return "greedy"
    return False


def _numpy_terms(subscripts: str, ndims: Sequence[int]) -> tuple[list[str], str, list[str]]:
    """NumPy einsum subscripts as explicit per-dimension letters, plus the unused letters.

    Ellipses become letters (right-aligned across operands, as broadcasting aligns them); an
    implicit output is the ellipsis letters followed by the letters used once, sorted.
    """
    text = subscripts.replace(" ", "")
    if text.count("->") > 1:
        raise ValueError(f"einsum: subscripts {subscripts!r} have more than one '->'")
    lhs, output = text.split("->") if "->" in text else (text, None)
    terms = lhs.split(",")
    if len(terms) != len(ndims):
        raise ValueError(
            f"einsum: subscripts {subscripts!r} name {len(terms)} operands, got {len(ndims)}"
        )
    for term in terms + ([output] if output is not None else []):
        named = term.replace("...", "", 1)
        bad = [c for c in named if c not in _LABELS]
        if bad:
            raise ValueError(f"einsum: invalid subscript {bad[0]!r} in {subscripts!r}")
    fresh = [c for c in _LABELS if c not in text]
    counts = _ellipsis_counts(terms, ndims, subscripts)
    n_ell = max(counts, default=0)
    if n_ell > len(fresh):
        raise ValueError(f"einsum: too many dimensions for {subscripts!r}")
    ellipsis, fresh = "".join(fresh[:n_ell]), fresh[n_ell:]
    expanded = [t.replace("...", ellipsis[n_ell - c :]) for t, c in zip(terms, counts)]
    if output is None:
        named = "".join(t.replace("...", "") for t in terms)
        output = ellipsis + "".join(sorted(c for c in set(named) if named.count(c) == 1))
    elif "..." in output:
        output = output.replace("...", ellipsis)
    elif n_ell:
        raise ValueError(
            f"einsum: the operands of {subscripts!r} have dimensions under '...' but the output "
            "has no '...' to put them in"
        )
    _check_output(output, expanded, subscripts)
    return expanded, output, fresh


def _ellipsis_counts(terms: list[str], ndims: Sequence[int], subscripts: str) -> list[int]:
    counts = []
    for k, (term, ndim) in enumerate(zip(terms, ndims)):
        named = len(term.replace("...", ""))
        if "..." not in term and ndim != named:
            raise ValueError(
                f"einsum: operand {k} has {ndim} dimensions but its subscripts {term!r} in "
                f"{subscripts!r} name {named}"
            )
        if ndim < named:
            raise ValueError(
                f"einsum: operand {k} has {ndim} dimensions, fewer than the {named} labels of "
                f"{term!r}"
            )
        counts.append(ndim - named if "..." in term else 0)
    return counts


def _check_output(output: str, inputs: list[str], subscripts: str) -> None:
    for letter in output:
        if output.count(letter) > 1:
            raise ValueError(f"einsum: output label {letter!r} repeats in {subscripts!r}")
        if not any(letter in term for term in inputs):
            raise ValueError(f"einsum: output label {letter!r} of {subscripts!r} names no input")


def _rename_broadcast_dims(terms: list[str], operands: list[Variable], fresh: list[str]) -> list:
    """Give each dimension that broadcasts (static length 1 against another length) a letter
    of its own: einsum then sums it away (a sum over one element) instead of broadcasting it,
    which gives NumPy's values and keeps every label's length consistent."""
    lengths: dict[str, set] = {}
    for term, x in zip(terms, operands):
        for letter, size in zip(term, x.type.shape):
            lengths.setdefault(letter, set()).add(size)
    renamed = []
    for term, x in zip(terms, operands):
        letters = list(term)
        for axis, (letter, size) in enumerate(zip(term, x.type.shape)):
            broadcast = size == 1 and lengths[letter] != {1} and term.count(letter) == 1
            if broadcast:
                if not fresh:
                    raise ValueError("einsum: too many broadcast dimensions to label")
                letters[axis] = fresh.pop(0)
        renamed.append("".join(letters))
    return renamed


def einsum(subscripts: str, *operands: Any, optimize: Any = None) -> Variable:
    """Einstein summation over the operands' labelled dimensions, like ``np.einsum``.

    Parameters
    ----------
    subscripts
        NumPy's notation: one group of letters per operand (``"ij,jk"``), optionally ``...``
        for leading broadcast dimensions and ``->`` with the output letters. Without ``->``,
        the output is the letters used exactly once, in alphabetical order.
    *operands
        The tensors.
    optimize
        Accepted for compatibility with NumPy; the contraction order is chosen at run time.

    Returns
    -------
    Variable
        The result, as one ``Einsum`` node; its gradient is again an einsum.
    """
    operands = [as_tensor_variable(o) for o in operands]
    if not operands:
        raise ValueError("einsum needs at least one operand")
    terms, output, fresh = _numpy_terms(subscripts, [o.type.ndim for o in operands])
    terms = _rename_broadcast_dims(terms, operands, fresh)
    return Einsum(",".join(terms) + "->" + output)(*operands)


__all__ = [
    "Dot",
    "Einsum",
    "MatMul",
    "dot",
    "einsum",
    "matmul",
    "matrix_transpose",
    "outer",
    "tensordot",
    "vdot",
]
