"""``TensorVariable`` and ``TensorConstant``: tensors with NumPy-like operators and methods.

This module sits above the op families: it is where methods such as ``x.sum()`` meet the
functions that build those ops. ``TensorType`` makes its variables with these classes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

import arignote.tensor.derived as tderived
import arignote.tensor.extra_ops as textra
import arignote.tensor.indexing_ops as tio
import arignote.tensor.math as tm
import arignote.tensor.products as tp
import arignote.tensor.reduction as tred
import arignote.tensor.sort as tsort
import arignote.tensor.subtensor as tsub
from arignote.graph.basic import Constant, Variable
from arignote.tensor.basic import constant
from arignote.tensor.elemwise import DimShuffle
from arignote.tensor.reshape import flatten, reshape
from arignote.tensor.shape import shape, shape_tuple, squeeze, swapaxes
from arignote.tensor.type import TensorType


def _binary(op):
    def forward(self, other):
        return op(self, other)

    def reflected(self, other):
        return op(other, self)

    return forward, reflected


class _TensorOperators:
    """Python operators and NumPy-style methods shared by tensor variables and constants."""

    # NumPy must hand ``ndarray + variable`` to our reflected operators, not loop over us.
    __array_ufunc__ = None
    __array_priority__ = 1000

    __add__, __radd__ = _binary(tm.add)
    __sub__, __rsub__ = _binary(tm.sub)
    __mul__, __rmul__ = _binary(tm.mul)
    __truediv__, __rtruediv__ = _binary(tm.true_div)
    __floordiv__, __rfloordiv__ = _binary(tm.int_div)
    __mod__, __rmod__ = _binary(tm.mod)
    __pow__, __rpow__ = _binary(tm.pow)
    __and__, __rand__ = _binary(tm.and_)
    __or__, __ror__ = _binary(tm.or_)
    __xor__, __rxor__ = _binary(tm.xor)

    def __matmul__(self, other):
        return tp.matmul(self, other) if hasattr(tp, "matmul") else tp.dot(self, other)

    def __rmatmul__(self, other):
        return tp.matmul(other, self) if hasattr(tp, "matmul") else tp.dot(other, self)

    def __neg__(self):
        return tm.neg(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return tm.abs(self)

    def __invert__(self):
        return tm.invert(self)

    def __lt__(self, other):
        return tm.lt(self, other)

    def __le__(self, other):
        return tm.le(self, other)

    def __gt__(self, other):
        return tm.gt(self, other)

    def __ge__(self, other):
        return tm.ge(self, other)

    def __bool__(self) -> bool:
        # Theano's rule: a variable is "set", so ``if persistent:`` (the RBM tutorial's test
        # for an optional shared chain) means ``is not None``. Only a boolean variable (a
        # comparison, a logical op) is a symbolic condition whose truth is unknown until run,
        # as in ``if x > 0:`` or ``a < b < c``; that is refused with the fix.
        if self.type.dtype != "bool":
            return True
        raise TypeError(
            f"{self} is symbolic: it has no truth value when the graph is built. Use "
            "arignote.tensor.switch / ifelse for conditions, and `is` to compare variables."
        )

    def _no_value(self, use: str, fix: str):
        return TypeError(
            f"{self} is symbolic: it has no value to {use} when the graph is built (Theano "
            f"programs that did this relied on a constant). {fix}"
        )

    def __index__(self) -> int:
        raise self._no_value(
            "use as a Python int",
            "Loop with arignote.scan, index with the variable itself, or compute a shape with "
            "`.eval()` first.",
        )

    def __int__(self) -> int:
        raise self._no_value("convert", "Use arignote.tensor.cast(x, 'int64'), or `.eval()`.")

    def __float__(self) -> float:
        raise self._no_value("convert", "Use arignote.tensor.cast(x, 'float64'), or `.eval()`.")

    def __len__(self) -> int:
        length = self.type.shape[0] if self.type.ndim else None
        if length is None:
            raise TypeError(f"{self} has no static length (its type is {self.type})")
        return length

    def __iter__(self) -> Iterator:
        for i in range(len(self)):
            yield self[i]

    # -- attributes ---------------------------------------------------------------------------

    @property
    def ndim(self) -> int:
        return self.type.ndim

    @property
    def dtype(self) -> str:
        return self.type.dtype

    @property
    def broadcastable(self) -> tuple[bool, ...]:
        return self.type.broadcastable

    @property
    def shape(self) -> Variable:
        return shape(self)

    @property
    def size(self) -> Variable:
        return tm.mul(*shape_tuple(self)) if self.ndim else constant(1, dtype="int64")

    @property
    def T(self) -> Variable:
        return self.transpose()

    # -- shape manipulation -----------------------------------------------------------------

    def dimshuffle(self, *pattern: Any) -> Variable:
        """Reorder/drop/insert (``'x'``) dimensions: ``x.dimshuffle(1, 'x', 0)``."""
        if len(pattern) == 1 and isinstance(pattern[0], (list, tuple)):
            pattern = tuple(pattern[0])
        return DimShuffle(self.type.ndim, pattern)(self)

    def transpose(self, *axes: Any) -> Variable:
        """Permute dimensions (reverse them when ``axes`` is empty), like ``ndarray.transpose``."""
        if len(axes) == 1 and isinstance(axes[0], (list, tuple)):
            axes = tuple(axes[0])
        if not axes:
            axes = tuple(reversed(range(self.type.ndim)))
        axes = tuple(a % self.type.ndim for a in axes) if self.type.ndim else axes
        if sorted(axes) != list(range(self.type.ndim)):
            raise ValueError(
                f"transpose axes {axes} are not a permutation of {self.type.ndim} dims"
            )
        return DimShuffle(self.type.ndim, axes)(self)

    def reshape(self, *newshape: Any, ndim: int | None = None, shape: Any = None) -> Variable:
        if shape is not None:  # x.reshape(shape=(2, 3)), PyTensor's and NumPy 2's keyword
            if newshape:
                raise TypeError("reshape: give the new shape positionally or as shape=, not both")
            newshape = (shape,)
        if len(newshape) == 1 and not isinstance(newshape[0], int):
            newshape = newshape[0]
        return reshape(self, newshape, ndim=ndim)

    def flatten(self, ndim: int = 1, outdim: int | None = None) -> Variable:
        return flatten(self, ndim, outdim)

    def ravel(self) -> Variable:
        return flatten(self, 1)

    # -- conversions ----------------------------------------------------------------------------

    def astype(self, dtype: Any) -> Variable:
        return tm.cast(self, dtype)

    def zeros_like(self, dtype: Any = None) -> Variable:
        return tm.zeros_like(self, dtype)

    def ones_like(self, dtype: Any = None) -> Variable:
        return tm.ones_like(self, dtype)

    def fill(self, value: Any) -> Variable:
        """A new tensor of this one's shape holding ``value`` (PyTensor's method: unlike
        ``ndarray.fill`` nothing is modified)."""
        return tm.fill(self, value)

    def get_underlying_scalar_constant(self) -> np.ndarray:
        """This tensor's value if the graph makes it a constant scalar, else
        ``NotScalarConstantError``."""
        return tderived.get_underlying_scalar_constant_value(self)

    def copy(self, name: str | None = None) -> Variable:
        out = tm.identity(self)
        out.name = name
        return out

    # -- reductions and products --------------------------------------------------------------

    def sum(self, axis=None, dtype=None, keepdims=False, acc_dtype=None) -> Variable:
        return tred.sum(self, axis=axis, dtype=dtype, keepdims=keepdims, acc_dtype=acc_dtype)

    def mean(self, axis=None, dtype=None, keepdims=False, acc_dtype=None) -> Variable:
        return tred.mean(self, axis=axis, dtype=dtype, keepdims=keepdims, acc_dtype=acc_dtype)

    def max(self, axis=None, keepdims=False) -> Variable:
        return tred.max(self, axis=axis, keepdims=keepdims)

    def min(self, axis=None, keepdims=False) -> Variable:
        return tred.min(self, axis=axis, keepdims=keepdims)

    def argmax(self, axis=None, keepdims=False) -> Variable:
        return tred.argmax(self, axis=axis, keepdims=keepdims)

    def dot(self, other: Any) -> Variable:
        return tp.dot(self, other)

    # -- elementwise methods (math.py) ------------------------------------------------------

    def exp(self) -> Variable:
        return tm.exp(self)

    def log(self) -> Variable:
        return tm.log(self)

    def round(self, mode: Any = None, decimals: int = 0) -> Variable:
        """Round half to even (NumPy's rule) unless ``mode="half_away_from_zero"``."""
        return tm.round(self, mode, decimals)

    def __round__(self, ndigits: int | None = None) -> Variable:
        return tm.round(self, decimals=ndigits or 0)

    def trunc(self) -> Variable:
        return tm.trunc(self)

    def __trunc__(self) -> Variable:
        return tm.trunc(self)

    def __floor__(self) -> Variable:
        return tm.floor(self)

    def __ceil__(self) -> Variable:
        return tm.ceil(self)

    def clip(self, min: Any = None, max: Any = None) -> Variable:
        return tm.clip(self, min, max)

    def conj(self) -> Variable:
        return tm.conj(self)

    conjugate = conj

    @property
    def real(self) -> Variable:
        return tm.real(self)

    @property
    def imag(self) -> Variable:
        return tm.imag(self)

    def __divmod__(self, other):
        return tm.divmod(self, other)

    def __rdivmod__(self, other):
        return tm.divmod(other, self)

    __lshift__, __rlshift__ = _binary(tm.left_shift)
    __rshift__, __rrshift__ = _binary(tm.right_shift)

    # -- more reductions (reduction.py) -----------------------------------------------------

    def prod(
        self, axis=None, dtype=None, keepdims=False, acc_dtype=None, no_zeros_in_input=False
    ) -> Variable:
        return tred.prod(self, axis=axis, dtype=dtype, keepdims=keepdims, acc_dtype=acc_dtype)

    def var(self, axis=None, ddof=0, keepdims=False, corrected=False) -> Variable:
        return tred.var(self, axis=axis, ddof=ddof, keepdims=keepdims)

    def std(self, axis=None, ddof=0, keepdims=False, corrected=False) -> Variable:
        return tred.std(self, axis=axis, ddof=ddof, keepdims=keepdims)

    def norm(self, L: Any, axis: Any = None, keepdims: bool = False) -> Variable:
        """The ``L``-norm ``sum(|x|**L) ** (1/L)`` over ``axis`` (PyTensor's method); ``L=inf``
        is the largest ``|x|``, as in ``np.linalg.norm`` of a vector."""
        if L == 0:
            raise ValueError("norm: L must be nonzero (the count of nonzeros is no norm here)")
        if np.isinf(L):
            return tred.max(tm.abs(self), axis=axis, keepdims=keepdims)
        total = tred.sum(tm.pow(tm.abs(self), L), axis=axis, keepdims=keepdims)
        return tm.pow(total, 1.0 / L)

    def argmin(self, axis=None, keepdims=False) -> Variable:
        return tred.argmin(self, axis=axis, keepdims=keepdims)

    def all(self, axis=None, keepdims=False) -> Variable:
        return tred.all(self, axis=axis, keepdims=keepdims)

    def any(self, axis=None, keepdims=False) -> Variable:
        return tred.any(self, axis=axis, keepdims=keepdims)

    def ptp(self, axis=None, keepdims=False) -> Variable:
        return tred.ptp(self, axis=axis, keepdims=keepdims)

    def cumsum(self, axis=None, dtype=None) -> Variable:
        return textra.cumsum(self, axis=axis, dtype=dtype)

    def cumprod(self, axis=None, dtype=None) -> Variable:
        return textra.cumprod(self, axis=axis, dtype=dtype)

    # -- creation and shape methods (shape/join/extra ops) ----------------------------------

    def squeeze(self, axis=None) -> Variable:
        return squeeze(self, axis=axis)

    def swapaxes(self, axis1: int, axis2: int) -> Variable:
        return swapaxes(self, axis1, axis2)

    def repeat(self, repeats: Any, axis: int | None = None) -> Variable:
        return textra.repeat(self, repeats, axis=axis)

    def diagonal(self, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Variable:
        return textra.diagonal(self, offset, axis1, axis2)

    def trace(self, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype=None) -> Variable:
        return textra.trace(self, offset, axis1, axis2, dtype=dtype)

    # -- indexing (subtensor.py, sort.py) ---------------------------------------------------

    def __getitem__(self, index: Any) -> Variable:
        return tsub.getitem(self, index)

    def __setitem__(self, index: Any, value: Any) -> None:
        raise TypeError(
            "Tensor variables are immutable: use arignote.tensor.set_subtensor(x[index], value) "
            "or inc_subtensor(x[index], value), which return the updated tensor"
        )

    def set(self, y: Any, **kwargs: Any) -> Variable:
        """``set_subtensor(self, y)``: for ``x[index].set(y)``."""
        return tsub.set_subtensor(self, y, **kwargs)

    def inc(self, y: Any, **kwargs: Any) -> Variable:
        """``inc_subtensor(self, y)``: for ``x[index].inc(y)``."""
        return tsub.inc_subtensor(self, y, **kwargs)

    def nonzero(self, return_matrix: bool = False) -> tuple | Variable:
        return tio.nonzero(self, return_matrix=return_matrix)

    def nonzero_values(self) -> Variable:
        return tderived.nonzero_values(self)

    def compress(self, a: Any, axis: int | None = None) -> Variable:
        """The slices of ``a`` where this tensor (the condition) is true: PyTensor's method
        passes ``self`` as ``compress``'s condition, unlike ``ndarray.compress``."""
        return tderived.compress(self, a, axis=axis)

    def take(self, indices: Any, axis: int | None = None, mode: str = "raise") -> Variable:
        return tio.take(self, indices, axis=axis, mode=mode)

    def choose(self, choices: Any, mode: str = "raise") -> Variable:
        return tio.choose(self, choices, mode=mode)

    def sort(self, axis: int | None = -1, kind: str | None = None, order=None) -> Variable:
        """The sorted tensor (a new variable: unlike ``ndarray.sort``, nothing is modified)."""
        return tsort.sort(self, axis=axis, kind=kind, order=order)

    def argsort(self, axis: int | None = -1, kind: str | None = None, order=None) -> Variable:
        return tsort.argsort(self, axis=axis, kind=kind, order=order)

    def searchsorted(self, v: Any, side: str = "left", sorter: Any = None) -> Variable:
        return tsort.searchsorted(self, v, side=side, sorter=sorter)

    # -- products and linear algebra (products.py, linalg/) ---------------------------------

    @property
    def mT(self) -> Variable:
        """The matrices of ``x`` transposed: the last two dimensions swapped (``ndarray.mT``)."""
        return tp.matrix_transpose(self)


def _elementwise_method(name: str):
    function = getattr(tm, name)

    def method(self) -> Variable:
        return function(self)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``{name}`` of this tensor, elementwise (see ``arignote.tensor.{name}``)."
    return method


# PyTensor's elementwise methods (x.sin(), x.sqrt(), ...), which ndarray does not have
_ELEMENTWISE_METHODS = (
    "arccos arccosh arcsin arcsinh arctan arctanh ceil cos cosh deg2rad exp2 expm1 floor "
    "log10 log1p log2 rad2deg sin sinh sqrt tan tanh"
)
for _name in _ELEMENTWISE_METHODS.split():
    setattr(_TensorOperators, _name, _elementwise_method(_name))
del _name


class TensorVariable(_TensorOperators, Variable):
    """A symbolic n-dimensional array."""


class TensorConstant(_TensorOperators, Constant):
    """A tensor whose value is fixed in the graph."""

    @property
    def value(self) -> Any:
        return self.data


TensorType.variable_type = TensorVariable
TensorType.constant_type = TensorConstant


class DenseVariableMeta(type):
    """The metaclass of :class:`DenseTensorVariable`: every plain ``TensorVariable`` counts."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return type(obj) is TensorVariable or isinstance(type(obj), DenseVariableMeta)


class DenseConstantMeta(type):
    """The metaclass of :class:`DenseTensorConstant`: every plain ``TensorConstant`` counts."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return type(obj) is TensorConstant or isinstance(type(obj), DenseConstantMeta)


class DenseTensorVariable(TensorVariable, metaclass=DenseVariableMeta):
    """PyTensor 3's name for variables of dense tensors: ``isinstance(v, DenseTensorVariable)``
    holds for every ``TensorVariable`` (arignote has no sparse or xtensor variables)."""


class DenseTensorConstant(TensorConstant, metaclass=DenseConstantMeta):
    """PyTensor 3's name for dense tensor constants: every ``TensorConstant`` is one."""


def get_unique_constant_value(x: Any) -> Any:
    """The one value every element of the constant ``x`` holds, or None (PyTensor's helper).

    None as well for a variable that is not a constant, and for an empty constant.
    """
    if not isinstance(x, TensorConstant) or np.size(x.data) == 0:
        return None
    flat = np.ravel(x.data)
    first = flat[0]
    same = np.array_equal(flat, np.full_like(flat, first), equal_nan=flat.dtype.kind in "fc")
    return first if same else None
