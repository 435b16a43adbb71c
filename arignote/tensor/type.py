"""``TensorType``: n-dimensional arrays of one dtype, with optionally known dimension sizes."""

from __future__ import annotations

import builtins
import operator
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import numpy as np

from arignote.config import config
from arignote.graph.basic import Variable
from arignote.graph.type import HasDataType, HasShape, Type
from arignote.scalar.basic import all_dtypes, continuous_dtypes, discrete_dtypes

_NUMERIC_KINDS = frozenset("biufc")


def _normalize_dtype(dtype: Any) -> str:
    if dtype == "floatX":
        return config.floatX
    try:
        name = np.dtype(dtype).name
    except TypeError as err:
        raise TypeError(f"Invalid dtype {dtype!r}") from err
    if name not in all_dtypes:
        raise TypeError(f"Unsupported dtype {name!r}; expected one of {all_dtypes}")
    return name


def _normalize_shape(shape: Sequence[Any]) -> tuple[int | None, ...]:
    if isinstance(shape, (str, bytes)) or not isinstance(shape, Sequence):
        raise TypeError(f"A TensorType shape must be a sequence of int or None, got {shape!r}")
    normalized: list[int | None] = []
    for size in shape:
        if size is None:
            normalized.append(None)
            continue
        if isinstance(size, (builtins.bool, np.bool_)):
            raise TypeError(
                f"Shape entries are sizes, not broadcastable flags (got {shape!r}); pass "
                "broadcastable=... for a tuple of booleans"
            )
        try:
            size = operator.index(size)
        except TypeError as err:
            raise TypeError(f"Shape entries must be int or None, got {size!r}") from err
        if size < 0:
            raise ValueError(f"Shape entries must be non-negative, got {size}")
        normalized.append(size)
    return tuple(normalized)


# Array classes of compiled backends (JAX's ``jax.Array``) that ``TensorType.filter`` keeps as
# they are when their dtype is the type's: a backend registers its class when it is imported, so
# that its functions take arrays already on a device without a round trip through host memory.
_DEVICE_ARRAY_TYPES: tuple[type, ...] = ()


def register_device_array_type(cls: type) -> None:
    """Let tensor inputs and shared variables hold instances of ``cls`` (a device array class)."""
    global _DEVICE_ARRAY_TYPES
    if cls not in _DEVICE_ARRAY_TYPES:
        _DEVICE_ARRAY_TYPES = (*_DEVICE_ARRAY_TYPES, cls)


def _device_array(data: Any) -> bool:
    return bool(_DEVICE_ARRAY_TYPES) and isinstance(data, _DEVICE_ARRAY_TYPES)


class TensorType(Type, HasDataType, HasShape):
    """Arrays of ``dtype`` with ``len(shape)`` dimensions; ``shape[i]`` is a size or None.

    A dimension of static size 1 is "broadcastable": it may be broadcast against any size.
    ``TensorType("float64", broadcastable=(False, True))`` is the older spelling of
    ``TensorType("float64", shape=(None, 1))``.
    """

    __props__ = ("dtype", "shape")

    # Set by arignote.tensor.shape: how to give a variable a more specific static shape.
    shape_specifier: Callable[[Variable, tuple], Variable] | None = None

    def __init__(
        self,
        dtype: Any,
        shape: Sequence[Any] | None = None,
        name: str | None = None,
        broadcastable: Sequence[bool] | None = None,
    ) -> None:
        if broadcastable is not None:
            if shape is not None:
                raise TypeError("Give TensorType either shape or broadcastable, not both")
            shape = tuple(1 if b else None for b in broadcastable)
        if shape is None:
            raise TypeError("TensorType needs a shape, e.g. (None, None) for a matrix")
        self.dtype = _normalize_dtype(dtype)
        self.shape = _normalize_shape(shape)
        self.name = name
        self.numpy_dtype = np.dtype(self.dtype)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def broadcastable(self) -> tuple[bool, ...]:
        return tuple(s == 1 for s in self.shape)

    def clone(self, dtype: Any = None, shape: Sequence[Any] | None = None, **kwargs: Any):
        """A type like this one with another dtype and/or shape."""
        if "broadcastable" in kwargs:
            shape = tuple(1 if b else None for b in kwargs.pop("broadcastable"))
        return TensorType(
            self.dtype if dtype is None else dtype, self.shape if shape is None else shape, **kwargs
        )

    def __call__(self, name: str | None = None, shape: Sequence[Any] | None = None) -> Variable:
        """A new variable of this type, or of the more specific ``shape`` (PyTensor's
        ``dmatrix("x", shape=(2, 3))``): ``shape`` may only fix lengths this type leaves open."""
        if shape is None:
            return super().__call__(name)
        specific = self.clone(shape=shape)
        if not self.is_super(specific):
            raise ValueError(f"shape={tuple(shape)} is incompatible with {self}'s {self.shape}")
        return specific(name)

    # -- values -------------------------------------------------------------------------

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        """Return ``data`` as an ndarray of this type, or raise ``TypeError``/``ValueError``."""
        if not (type(data) is np.ndarray and data.dtype == self.numpy_dtype) and not (
            _device_array(data) and data.dtype == self.numpy_dtype
        ):
            if isinstance(data, np.ma.MaskedArray):
                self._refuse_masked(data)
            if strict:
                self._refuse_strict(data)
            data = self._convert(data, allow_downcast)
        if data.ndim != len(self.shape):
            raise TypeError(
                f"Wrong number of dimensions: expected {len(self.shape)}, got {data.ndim} with "
                f"shape {data.shape}"
            )
        for expected, actual in zip(self.shape, data.shape):
            if expected is not None and expected != actual:
                raise TypeError(
                    f"The type's shape {self.shape_str()} is not compatible with the data's "
                    f"{data.shape}"
                )
        return data

    def _refuse_masked(self, data: np.ma.MaskedArray) -> None:
        # Converting would silently drop the mask, and computing with the hidden values is
        # rarely what was meant: the caller chooses (``data.filled(value)``, ``data.data``).
        raise TypeError(
            f"{self} does not take masked arrays (the mask would be dropped): pass "
            "data.filled(fill_value) or data.data, or compute the mask's effect in the graph"
        )

    def _refuse_strict(self, data: Any) -> None:
        if not isinstance(data, np.ndarray):
            raise TypeError(f"{self} expects a numpy.ndarray, got {type(data).__name__}")
        raise TypeError(f"{self} expects dtype {self.dtype}, got an array of dtype {data.dtype}")

    def _convert(self, data: Any, allow_downcast: bool | None) -> np.ndarray:
        if isinstance(data, (np.ndarray, np.generic)):
            array = np.asarray(data)
            self._check_numeric(array, data)
            if array.dtype == self.numpy_dtype:
                return array
            if np.can_cast(array.dtype, self.numpy_dtype, "safe"):
                return array.astype(self.numpy_dtype)
            if allow_downcast:
                self._refuse_complex_to_real(array, data)
                return array.astype(self.numpy_dtype)
            raise TypeError(
                f"{self} cannot store a value of dtype {array.dtype} without risking loss of "
                f"precision: cast the value to {self.dtype} yourself, or pass "
                "allow_input_downcast=True to function()"
            )
        if data is None or isinstance(data, (str, bytes, dict, set)):
            raise TypeError(f"{self} expects numeric data, got {type(data).__name__} ({data!r})")
        try:
            array = np.asarray(data)
        except (ValueError, TypeError) as err:
            raise TypeError(f"{self} cannot interpret {data!r} as an array: {err}") from err
        self._check_numeric(array, data)
        self._refuse_complex_to_real(array, data)
        if allow_downcast:
            return self._downcast_python_data(data)
        with np.errstate(all="ignore"):
            converted = array.astype(self.numpy_dtype)
        if array.dtype == self.numpy_dtype:
            return converted
        if allow_downcast is None and isinstance(data, float) and self.dtype == config.floatX:
            return converted
        if _same_values(array, converted):
            return converted
        raise TypeError(
            f"{self} cannot hold {data!r} (dtype {array.dtype}) without changing its value; pass "
            "allow_input_downcast=True to function() to accept the conversion"
        )

    def _refuse_complex_to_real(self, array: np.ndarray, original: Any) -> None:
        # Dropping the imaginary part changes the value, whatever allow_downcast says (NumPy
        # warns about it too); the caller must take the real part explicitly.
        if array.dtype.kind == "c" and self.numpy_dtype.kind != "c":
            what = repr(original) if not isinstance(original, np.ndarray) else "an array"
            raise TypeError(
                f"{self} cannot hold the complex value {what} (dtype {array.dtype}): converting "
                "would discard the imaginary part"
            )

    def _downcast_python_data(self, data: Any) -> np.ndarray:
        # Python numbers and lists convert as NumPy converts them with an explicit dtype:
        # lossy float conversions are accepted, but an integer out of the dtype's bounds or a
        # NaN/inf becoming an integer is refused (NumPy raises OverflowError/ValueError) instead
        # of wrapping around silently.
        try:
            with np.errstate(all="ignore"):
                return np.asarray(data, dtype=self.numpy_dtype)
        except (OverflowError, ValueError) as err:
            raise TypeError(f"{self} cannot hold {data!r}, even with a downcast: {err}") from err

    def _check_numeric(self, array: np.ndarray, original: Any) -> None:
        if array.dtype.kind not in _NUMERIC_KINDS:
            raise TypeError(
                f"{self} expects numeric data, got {type(original).__name__} with dtype "
                f"{array.dtype}"
            )

    def value_validity_msg(self, data: Any) -> str:
        try:
            self.filter(data)
        except (TypeError, ValueError) as err:
            return str(err)
        return "value is valid"

    def values_eq(self, a: Any, b: Any, force_same_dtype: bool = True) -> bool:
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or (force_same_dtype and a.dtype != b.dtype):
            return False
        return bool(np.all(a == b))

    def values_eq_approx(
        self,
        a: Any,
        b: Any,
        allow_remove_inf: bool = False,
        allow_remove_nan: bool = False,
        rtol: float | None = None,
        atol: float | None = None,
    ) -> bool:
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return False
        if self.dtype in discrete_dtypes:
            return bool(np.all(a == b))
        default_rtol, default_atol = float_tolerances(self.dtype)
        rtol = default_rtol if rtol is None else rtol
        atol = default_atol if atol is None else atol
        close = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
        if allow_remove_inf:
            close |= np.isinf(a) | np.isinf(b)
        if allow_remove_nan:
            close |= np.isnan(a) | np.isnan(b)
        return bool(np.all(close))

    def may_share_memory(self, a: Any, b: Any) -> bool:
        if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
            return bool(np.may_share_memory(a, b))
        return False

    def data_signature(self, data: Any) -> ArraySignature:
        return ArraySignature(data)

    def data_str(self, data: Any) -> str:
        return array_summary(data)

    def value_zeros(self, shape: Sequence[int]) -> np.ndarray:
        return np.zeros(shape, dtype=self.dtype)

    def get_size(self, shape_info: Sequence[int]) -> int:
        """Bytes taken by a value of shape ``shape_info`` (for memory profiles)."""
        return int(np.prod(shape_info, dtype=np.int64)) * self.numpy_dtype.itemsize

    # -- relations between types ----------------------------------------------------------

    def is_super(self, otype: Type) -> bool:
        """Whether every value of ``otype`` is a value of this type."""
        if not isinstance(otype, TensorType):
            return False
        if otype.dtype != self.dtype or len(otype.shape) != len(self.shape):
            return False
        return all(s is None or s == o for s, o in zip(self.shape, otype.shape))

    def convert_variable(self, var: Variable) -> Variable | None:
        """``var`` if its type is a subtype; a shape-specified view of it if less specific."""
        if self.is_super(var.type):
            return var
        if isinstance(var.type, TensorType) and var.type.is_super(self):
            if TensorType.shape_specifier is None:
                return None
            return TensorType.shape_specifier(var, self.shape)
        return None

    # -- printing -------------------------------------------------------------------------

    def shape_str(self) -> str:
        entries = ["?" if s is None else str(s) for s in self.shape]
        if len(entries) == 1:
            return f"({entries[0]},)"
        return "(" + ", ".join(entries) + ")"

    def __str__(self) -> str:
        if self.name:
            return self.name
        return f"TensorType({self.dtype}, {self.shape_str()})"

    def __repr__(self) -> str:
        return str(self)


def _same_values(original: np.ndarray, converted: np.ndarray) -> bool:
    with np.errstate(all="ignore"):
        if original.dtype.kind == "c" and converted.dtype.kind != "c":
            return False
        equal = original == converted
        if original.dtype.kind in "fc":
            equal = equal | (np.isnan(original) & np.isnan(converted))
    return bool(np.all(equal))


def float_tolerances(dtype: str) -> tuple[float, float]:
    """Default (rtol, atol) for comparing values of ``dtype``."""
    if dtype in ("float16",):
        return 1e-3, 1e-3
    if dtype in ("float32", "complex64"):
        return 1e-5, 1e-6
    return 1e-8, 1e-10


class ArraySignature:
    """A hashable stand-in for an array's value, so equal constants can be merged."""

    __slots__ = ("_hash", "data")

    def __init__(self, data: np.ndarray) -> None:
        self.data = data
        flat = data.reshape(-1)
        sample = flat if flat.size <= 64 else flat[:: max(1, flat.size // 64)]
        self._hash = hash((data.shape, data.dtype.str, sample.tobytes()))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ArraySignature):
            return False
        a, b = self.data, other.data
        if a is b:
            return True
        if a.shape != b.shape or a.dtype != b.dtype or self._hash != other._hash:
            return False
        return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))


def array_summary(data: np.ndarray) -> str:
    """A short text for a constant's value: ``2.0``, ``[1 2 3]``, ``(3, 4) of 0.0``."""
    if data.ndim == 0:
        return str(data.item())
    if data.size > 1 and np.all(data == data.reshape(-1)[0]):
        return f"{data.shape} of {data.reshape(-1)[0]}"
    if data.size == 1:
        return f"{data.shape} of {data.reshape(-1)[0]}"
    text = np.array2string(data, threshold=10, separator=" ")
    return text.replace("\n", "")


@cache
def tensor_type(dtype: str, shape: tuple) -> TensorType:
    """A shared TensorType instance for ``(dtype, shape)`` (types are immutable)."""
    return TensorType(dtype, shape)


def is_tensor_type(t: Any) -> bool:
    return isinstance(t, TensorType)


def is_float_dtype(dtype: str) -> bool:
    return dtype in continuous_dtypes


# -- constructors ---------------------------------------------------------------------------

_NDIM_NAMES = {
    0: "scalar",
    1: "vector",
    2: "matrix",
    3: "tensor3",
    4: "tensor4",
    5: "tensor5",
    6: "tensor6",
    7: "tensor7",
}
_PREFIX_DTYPES = {
    "b": "int8",
    "w": "int16",
    "i": "int32",
    "l": "int64",
    "f": "float32",
    "d": "float64",
    "c": "complex64",
    "z": "complex128",
}


class TensorConstructor:
    """A family of tensor variables with a fixed static-shape pattern: ``matrix``, ``row``...

    Calling it makes a variable: ``matrix("x")`` (dtype ``config.floatX``), or
    ``matrix("x", dtype="int32")``. Where a Type is expected (``as_op(itypes=[matrix])``) it
    stands for its floatX type, :meth:`default_type`.
    """

    def __init__(self, name: str, shape: tuple) -> None:
        self.name = name
        self.shape = shape

    def default_type(self, dtype: Any = None) -> TensorType:
        return tensor_type(_normalize_dtype(dtype or config.floatX), self.shape)

    def __call__(self, name: str | None = None, dtype: Any = None, shape: Sequence | None = None):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"{self.name}() takes a variable name as first argument, got {name!r}")
        if shape is None:
            shape = self.shape
        elif len(shape) != len(self.shape):
            raise ValueError(f"{self.name}() has {len(self.shape)} dimensions, got shape {shape}")
        return TensorType(_normalize_dtype(dtype or config.floatX), shape)(name)

    def filter_variable(self, other: Any, allow_convert: bool = True) -> Variable:
        return self.default_type().filter_variable(other, allow_convert)

    def __repr__(self) -> str:
        return f"<tensor constructor {self.name}>"


def _plural(make: Callable) -> Callable:
    def many(*names: Any, **kwargs: Any) -> list:
        if len(names) == 1 and isinstance(names[0], int):
            return [make(**kwargs) for _ in range(names[0])]
        if len(names) == 1 and isinstance(names[0], str):
            text = names[0]
            # PyTensor iterates over the string: scalars("xyz") makes x, y and z
            separated = "," in text or " " in text
            names = tuple(n for n in text.replace(",", " ").split() if n) if separated else text
        return [make(n, **kwargs) for n in names]

    many.__doc__ = (
        f"Several variables at once: names, a count, one 'x, y' string, or 'xy' ({make})."
    )
    many._plural = True  # type: ignore[attr-defined]
    return many


def tensor(*args: Any, dtype: Any = None, shape: Sequence | None = None, name: str | None = None):
    """A tensor variable of ``dtype`` (default floatX) and static ``shape``.

    Accepts ``tensor(name, dtype=..., shape=...)`` and the positional form
    ``tensor(dtype, shape, name)``.
    """
    # a leading dtype string ("float32", "i8") is read as the dtype, unless dtype= is given:
    # then it is the name (tensor("i8", dtype="int8") is an int8 tensor named i8)
    positional_dtype = dtype is None and args and isinstance(args[0], str) and _is_dtype(args[0])
    if positional_dtype and (len(args) > 1 or shape):
        dtype, args = args[0], args[1:]
        if args:
            shape, args = args[0], args[1:]
    if args:
        name, args = args[0], args[1:]
    if args:
        raise TypeError("tensor() takes at most (dtype, shape, name) positionally")
    if shape is None:
        raise TypeError("tensor() needs a shape, e.g. shape=(None, 3)")
    return TensorType(_normalize_dtype(dtype or config.floatX), shape)(name)


def _is_dtype(text: str) -> bool:
    try:
        return text == "floatX" or np.dtype(text).name in all_dtypes
    except TypeError:
        return False


scalar = TensorConstructor("scalar", ())
vector = TensorConstructor("vector", (None,))
matrix = TensorConstructor("matrix", (None, None))
row = TensorConstructor("row", (1, None))
col = TensorConstructor("col", (None, 1))
tensor3 = TensorConstructor("tensor3", (None,) * 3)
tensor4 = TensorConstructor("tensor4", (None,) * 4)
tensor5 = TensorConstructor("tensor5", (None,) * 5)
tensor6 = TensorConstructor("tensor6", (None,) * 6)
tensor7 = TensorConstructor("tensor7", (None,) * 7)
scalars, vectors, matrices = _plural(scalar), _plural(vector), _plural(matrix)
rows, cols = _plural(row), _plural(col)
tensor3s, tensor4s, tensor5s = _plural(tensor3), _plural(tensor4), _plural(tensor5)
tensor6s, tensor7s = _plural(tensor6), _plural(tensor7)

_FAMILIES = {
    "scalar": (),
    "vector": (None,),
    "matrix": (None, None),
    "row": (1, None),
    "col": (None, 1),
    "tensor3": (None,) * 3,
    "tensor4": (None,) * 4,
    "tensor5": (None,) * 5,
    "tensor6": (None,) * 6,
    "tensor7": (None,) * 7,
}
_PLURALS = {
    "scalar": "scalars",
    "vector": "vectors",
    "matrix": "matrices",
    "row": "rows",
    "col": "cols",
    "tensor3": "tensor3s",
    "tensor4": "tensor4s",
    "tensor5": "tensor5s",
    "tensor6": "tensor6s",
    "tensor7": "tensor7s",
}

# bscalar, dmatrix, fvector, ...: TensorType instances (call them with a name for a variable),
# and their plurals dmatrices, fvectors, ...
for _prefix, _dtype in _PREFIX_DTYPES.items():
    for _family, _shape in _FAMILIES.items():
        _type = TensorType(_dtype, _shape)
        globals()[_prefix + _family] = _type
        globals()[_prefix + _PLURALS[_family]] = _plural(_type)
del _prefix, _dtype, _family, _shape, _type


# PyTensor's unsigned scalar types (it has no unsigned vector or matrix constructors)
ubscalar, uwscalar = TensorType("uint8", ()), TensorType("uint16", ())
uiscalar, ulscalar = TensorType("uint32", ()), TensorType("uint64", ())


# PyTensor's module-level tuples of types by dtype kind (``x.type in float_types``...): the
# scalar, vector and matrix types of each precision; ``*_types`` alone are the scalar ones.
def _types(family: str, prefixes: str) -> tuple:
    return tuple(globals()[prefix + family] for prefix in prefixes)


int_scalar_types, int_vector_types, int_matrix_types = (
    _types(f, "bwil") for f in ("scalar", "vector", "matrix")
)
float_scalar_types, float_vector_types, float_matrix_types = (
    _types(f, "fd") for f in ("scalar", "vector", "matrix")
)
complex_scalar_types, complex_vector_types, complex_matrix_types = (
    _types(f, "cz") for f in ("scalar", "vector", "matrix")
)
int_types, float_types, complex_types = int_scalar_types, float_scalar_types, complex_scalar_types


class DenseTypeMeta(type):
    """The metaclass of :class:`DenseTensorType`: every plain ``TensorType`` counts as one."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return type(obj) is TensorType or isinstance(type(obj), DenseTypeMeta)


class DenseTensorType(TensorType, metaclass=DenseTypeMeta):
    """PyTensor 3's name for the type of dense tensors (as opposed to its sparse and xtensor
    types): ``isinstance(t, DenseTensorType)`` holds for every ``TensorType``, arignote's
    only tensor type."""


def constructors() -> dict[str, Any]:
    """The variable constructors by name (``matrix``, ``dvector``, ``fmatrices``, ...)."""
    names = {}
    for name, value in globals().items():
        if name.startswith("_"):
            continue
        if isinstance(value, (TensorConstructor, TensorType)) or getattr(value, "_plural", False):
            names[name] = value
    names["tensor"] = tensor
    return names


# -- approximate equality of values (PyTensor's module-level helpers) ---------------------------


def values_eq_approx(
    a: Any,
    b: Any,
    allow_remove_inf: bool = False,
    allow_remove_nan: bool = False,
    rtol: float | None = None,
    atol: float | None = None,
) -> bool:
    """Whether two arrays of one shape and dtype are equal up to rounding.

    Integer arrays must be equal; float ones close (``rtol``/``atol`` default to 1e-5/1e-8,
    1e-4/1e-5 for float32 and lower). NaNs in the same positions and equal infinities count
    as equal. ``allow_remove_inf``/``allow_remove_nan`` accept any value of ``b`` where ``a``
    holds an infinity / a NaN (for rewrites that remove them).
    """
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind not in "fc":
        return bool(np.all(a == b))
    low_precision = a.dtype.itemsize <= (8 if a.dtype.kind == "c" else 4)
    rtol = rtol if rtol is not None else (1e-4 if low_precision else 1e-5)
    atol = atol if atol is not None else (1e-5 if low_precision else 1e-8)
    with np.errstate(invalid="ignore"):
        equal = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
    if allow_remove_inf:
        equal |= np.isinf(a)
    if allow_remove_nan:
        equal |= np.isnan(a)
    return bool(equal.all())


def values_eq_approx_remove_inf(a: Any, b: Any) -> bool:
    """:func:`values_eq_approx` accepting anything where ``a`` is infinite."""
    return values_eq_approx(a, b, allow_remove_inf=True)


def values_eq_approx_remove_nan(a: Any, b: Any) -> bool:
    """:func:`values_eq_approx` accepting anything where ``a`` is NaN."""
    return values_eq_approx(a, b, allow_remove_nan=True)


def values_eq_approx_remove_inf_nan(a: Any, b: Any) -> bool:
    """:func:`values_eq_approx` accepting anything where ``a`` is infinite or NaN."""
    return values_eq_approx(a, b, allow_remove_inf=True, allow_remove_nan=True)


def values_eq_approx_always_true(a: Any, b: Any) -> bool:
    """Accepts any pair of values (for outputs whose value does not matter)."""
    return True
