"""Scalar types and the ``ScalarOp`` base class: the building blocks of elementwise ops.

A scalar op describes one elementwise computation three ways: ``nfunc`` (a NumPy ufunc or
ufunc-like callable, used on whole arrays by ``Elemwise``), ``impl`` (on scalars), and symbolic
derivatives written with other scalar ops (``L_op``/``grad``), which ``Elemwise`` lifts to
tensors. Output dtypes follow NumPy: by default they are what ``nfunc.resolve_dtypes`` says.
"""

from __future__ import annotations

import builtins
import warnings
from collections.abc import Callable, Sequence
from functools import cache, lru_cache, reduce
from typing import Any

import numpy as np

from arignote.config import config
from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.grad_types import is_disconnected, is_null
from arignote.graph.op import Op
from arignote.graph.type import HasDataType, Type
from arignote.graph.utils import MethodNotDefined
from arignote.scalar.dtype_rules import apply_rule, rule_for

bool_dtypes = ("bool",)
int_dtypes = ("int8", "int16", "int32", "int64")
uint_dtypes = ("uint8", "uint16", "uint32", "uint64")
float_dtypes = ("float16", "float32", "float64")
complex_dtypes = ("complex64", "complex128")
integer_dtypes = int_dtypes + uint_dtypes
discrete_dtypes = bool_dtypes + integer_dtypes
continuous_dtypes = float_dtypes + complex_dtypes
all_dtypes = discrete_dtypes + continuous_dtypes

_PYTHON_SCALARS = (builtins.bool, builtins.int, builtins.float, builtins.complex)


def upcast(*dtypes: Any) -> str:
    """The dtype NumPy gives to an operation mixing ``dtypes`` (no value-based casting)."""
    return np.result_type(*[np.dtype(d) for d in dtypes]).name


def python_scalar_dtype(value: Any) -> str:
    """The dtype a Python scalar becomes on its own (``int`` -> int64, ``float`` -> floatX)."""
    if isinstance(value, builtins.bool):
        return "bool"
    if isinstance(value, builtins.int):
        return "int64"
    if isinstance(value, builtins.float):
        return config.floatX if config.floatX != "float16" else "float64"
    if isinstance(value, builtins.complex):
        return "complex128"
    raise TypeError(f"{value!r} is not a Python scalar")


def is_python_scalar(value: Any) -> bool:
    return isinstance(value, _PYTHON_SCALARS) and not isinstance(value, np.generic)


def weak_scalar_dtype(strong_dtypes: Sequence[str], value: Any) -> str:
    """The dtype a Python scalar takes next to operands of ``strong_dtypes`` (NEP 50).

    Python scalars are "weak": ``float32_array * 2.0`` stays float32, as in NumPy 2.
    """
    if not strong_dtypes:
        return python_scalar_dtype(value)
    return np.result_type(*[np.dtype(d) for d in strong_dtypes], value).name


def cast_python_scalar(value: Any, dtype: str) -> Any:
    """``value`` as a NumPy scalar of ``dtype``; out-of-range integers raise ``OverflowError``."""
    is_int = isinstance(value, builtins.int) and not isinstance(value, builtins.bool)
    if is_int and dtype in integer_dtypes:
        info = np.iinfo(dtype)
        if not info.min <= value <= info.max:
            raise OverflowError(f"Python integer {value} is out of bounds for {dtype}")
    return np.asarray(value, dtype=dtype)


class ScalarType(Type, HasDataType):
    """The type of a single number of a given ``dtype`` (NumPy scalars are its values)."""

    __props__ = ("dtype",)
    ndim = 0
    shape: tuple = ()

    def __init__(self, dtype: Any) -> None:
        dtype = np.dtype(dtype).name
        if dtype not in all_dtypes:
            raise TypeError(f"Unsupported scalar dtype {dtype!r}; expected one of {all_dtypes}")
        self.dtype = dtype

    @property
    def numpy_dtype(self) -> np.dtype:
        return np.dtype(self.dtype)

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        if isinstance(data, np.generic) and data.dtype == self.dtype:
            return data
        if strict:
            raise TypeError(f"{self} expects a NumPy {self.dtype} scalar, got {data!r}")
        if isinstance(data, np.ndarray):
            if data.ndim != 0:
                raise TypeError(f"{self} expects a scalar, got an array of shape {data.shape}")
            data = data[()]
        if not isinstance(data, (*_PYTHON_SCALARS, np.generic)):
            raise TypeError(f"{self} expects a number, got {type(data).__name__} ({data!r})")
        converted = np.asarray(data, dtype=self.dtype)[()]
        if not allow_downcast and not _value_preserved(data, converted):
            raise TypeError(
                f"{self} cannot hold {data!r} without loss of precision (pass "
                "allow_downcast=True to accept the rounding)"
            )
        return converted

    def values_eq(self, a: Any, b: Any) -> bool:
        return bool(a == b)

    def values_eq_approx(self, a: Any, b: Any) -> bool:
        return bool(np.isclose(a, b, equal_nan=True))

    def data_signature(self, data: Any) -> Any:
        return (self.dtype, data.item())

    def __str__(self) -> str:
        return self.dtype

    def __repr__(self) -> str:
        return f"ScalarType({self.dtype})"


def _value_preserved(original: Any, converted: Any) -> bool:
    try:
        with np.errstate(all="ignore"):
            same = np.asarray(original) == converted
        if bool(same):
            return True
        return bool(np.isnan(converted)) and bool(np.isnan(np.asarray(original)))
    except (TypeError, ValueError):
        return False


@cache
def get_scalar_type(dtype: str) -> ScalarType:
    """The (shared) ScalarType of ``dtype``."""
    return ScalarType(dtype)


# PyTensor's scalar types by dtype name, and groups of them (``bool`` is served by the module
# ``__getattr__`` below: bound here, it would hide Python's ``bool`` from this module's code)
int8, int16, int32, int64 = (get_scalar_type(d) for d in int_dtypes)
uint8, uint16, uint32, uint64 = (get_scalar_type(d) for d in uint_dtypes)
float16, float32, float64 = (get_scalar_type(d) for d in float_dtypes)
complex64, complex128 = (get_scalar_type(d) for d in complex_dtypes)
int_types = (int8, int16, int32, int64)
uint_types = (uint8, uint16, uint32, uint64)
float_types = (float16, float32, float64)
complex_types = (complex64, complex128)
integer_types = int_types + uint_types
discrete_types = (get_scalar_type("bool"), *integer_types)
continuous_types = float_types + complex_types
all_types = discrete_types + continuous_types


def __getattr__(name: str) -> Any:
    if name == "bool":
        return get_scalar_type("bool")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def constant(value: Any, dtype: str | None = None, name: str | None = None) -> Constant:
    """A scalar constant; Python numbers get NumPy's default dtypes unless ``dtype`` is given."""
    if dtype is None:
        dtype = (
            python_scalar_dtype(value) if is_python_scalar(value) else np.asarray(value).dtype.name
        )
    return get_scalar_type(dtype).make_constant(cast_python_scalar(value, dtype)[()], name=name)


def as_scalar(x: Any, name: str | None = None) -> Variable:
    """``x`` as a scalar variable: scalar variables pass through, numbers become constants."""
    if isinstance(x, Variable):
        if isinstance(x.type, ScalarType):
            return x
        raise TypeError(f"Cannot use {x} of type {x.type} as a scalar")
    if isinstance(x, Apply):
        return as_scalar(x.default_output(), name)
    return constant(x, name=name)


def convert_weak_scalars(
    inputs: Sequence[Any],
    make_constant: Callable[[Any, str], Any],
    typing_positions: Sequence[int] | None = None,
    scalar_op: Any = None,
) -> list:
    """Replace the Python-number entries of ``inputs`` by constants typed as NumPy 2 would.

    ``make_constant(value, dtype)`` builds the constant (scalar or tensor, per caller).
    ``typing_positions`` lists the inputs whose dtypes take part in the promotion (None: all);
    ``np.where(cond, x, 0.5)``, for one, types ``0.5`` from ``x`` alone, and a number in
    another position has its own default dtype (``np.where(-1, uint8_x, y)`` is fine).

    With a ``scalar_op`` computed by a NumPy ufunc, the numbers take the dtypes of the loop that
    the ufunc itself would run (see :func:`ufunc_weak_dtypes`), which is NumPy's rule exactly.
    A ``scalar_op`` whose ``weak_python_scalars`` is False takes numbers as NumPy arrays would
    (``int`` -> int64): its NumPy function converts them with ``np.asarray``.
    """
    if not any(is_python_scalar(i) for i in inputs):
        return list(inputs)
    if scalar_op is not None and not scalar_op.weak_python_scalars:
        return [
            make_constant(i, python_scalar_dtype(i)) if is_python_scalar(i) else i for i in inputs
        ]
    loop_dtypes = ufunc_weak_dtypes(scalar_op, inputs) if scalar_op is not None else None
    typing = [i for k, i in enumerate(inputs) if typing_positions is None or k in typing_positions]
    strong = [d for d in map(_strong_dtype, typing) if d is not None]
    converted = []
    for k, i in enumerate(inputs):
        if not is_python_scalar(i):
            converted.append(i)
        elif typing_positions is not None and k not in typing_positions:
            converted.append(make_constant(i, python_scalar_dtype(i)))  # typed on its own
        elif loop_dtypes is not None:
            converted.append(make_constant(i, scalar_op.weak_scalar_dtype(i, loop_dtypes[k])))
        else:
            converted.append(make_constant(i, weak_scalar_dtype(strong, i)))
    return converted


def _strong_dtype(value: Any) -> str | None:
    """The dtype of a variable or NumPy value (None for Python numbers and anything else)."""
    if isinstance(value, Variable):
        return getattr(value.type, "dtype", None)
    if isinstance(value, (np.ndarray, np.generic)):
        return value.dtype.name
    return None


def ufunc_weak_dtypes(scalar_op: Any, inputs: Sequence[Any]) -> list[str] | None:
    """The dtypes of the loop NumPy runs for ``scalar_op.nfunc(*inputs)``, Python numbers weak.

    NEP 50 types a Python number by the loop the ufunc selects, not by a promotion of the
    operands: ``int8_array / 300`` runs the float loop, where 300 fits; SciPy's
    ``beta(float32_array, 2)`` picks its first matching loop, float64. ``resolve_dtypes``
    answers exactly, given the Python types of the numbers. None when the op is not a plain
    ufunc of that arity or when NumPy has no loop (the caller's own typing then reports it).
    """
    ufunc = scalar_op.nfunc
    if (
        not isinstance(ufunc, np.ufunc)
        or ufunc.nin != len(inputs)
        or scalar_op.typing_positions is not None
    ):
        return None
    operands: list[Any] = []
    for value in inputs:
        if isinstance(value, builtins.bool):
            operands.append(np.dtype("bool"))  # NumPy takes True and False as booleans
        elif is_python_scalar(value):
            operands.append(next(t for t in (int, float, complex) if isinstance(value, t)))
        elif (dtype := _strong_dtype(value)) is not None:
            operands.append(np.dtype(dtype))
        else:
            return None
    if all(isinstance(o, type) for o in operands):
        return None  # numbers alone: their default dtypes (floatX for floats)
    try:
        resolved = ufunc.resolve_dtypes((*operands, *([None] * ufunc.nout)))
    except (TypeError, ValueError, np._core._exceptions._UFuncNoLoopError):
        return None
    return [dt.name for dt in resolved[: ufunc.nin]]


# -- output type rules ----------------------------------------------------------------------


def same_out(*types: ScalarType) -> list[ScalarType]:
    """The output has the type of the first input."""
    return [types[0]]


def upcast_out(*types: ScalarType) -> list[ScalarType]:
    """The output has the common dtype of all inputs."""
    return [get_scalar_type(upcast(*[t.dtype for t in types]))]


def bool_out(*types: ScalarType) -> list[ScalarType]:
    """The output is a boolean (comparisons, logical ops)."""
    return [get_scalar_type("bool")]


def float_out(*types: ScalarType) -> list[ScalarType]:
    """The output is a float64, whatever the inputs (PyTensor's rule of that name)."""
    return [get_scalar_type("float64")]


# -- PyTensor's other output type rules (``output_types_preference`` of a ScalarOp) -----------
# Each takes the input types and returns the output types, or raises TypeError for inputs it
# refuses.


def _refuse_kinds(types: Sequence[ScalarType], kinds: str, what: str) -> None:
    for t in types:
        if np.dtype(t.dtype).kind in kinds:
            raise TypeError(f"{what} inputs are not supported (got {t.dtype})")


def upcast_out_nobool(*types: ScalarType) -> list[ScalarType]:
    """The common dtype of the inputs, which must not be bool."""
    out = upcast_out(*types)
    if out[0].dtype == "bool":
        raise TypeError("a bool output is not supported")
    return out


def upcast_out_min8(*types: ScalarType) -> list[ScalarType]:
    """The common dtype of the inputs, int8 instead of bool."""
    out = upcast_out(*types)
    return [get_scalar_type("int8")] if out[0].dtype == "bool" else out


def upcast_out_no_complex(*types: ScalarType) -> list[ScalarType]:
    _refuse_kinds(types, "c", "complex")
    return upcast_out(*types)


def same_out_nobool(*types: ScalarType) -> list[ScalarType]:
    _refuse_kinds(types[:1], "b", "bool")
    return same_out(*types)


def same_out_min8(*types: ScalarType) -> list[ScalarType]:
    return [get_scalar_type("int8")] if types[0].dtype == "bool" else same_out(*types)


def same_out_nocomplex(*types: ScalarType) -> list[ScalarType]:
    _refuse_kinds(types[:1], "c", "complex")
    return same_out(*types)


def same_out_float_only(*types: ScalarType) -> list[ScalarType]:
    _refuse_kinds(types[:1], "biuc", "non-float")
    return same_out(*types)


#: Integer dtypes and the float dtype that holds all their values (float32 up to 16 bits).
_EXACT_FLOAT = {"bool": "float32", "int8": "float32", "int16": "float32", "uint8": "float32"}
_EXACT_FLOAT.update(uint16="float32", int32="float64", int64="float64")
_EXACT_FLOAT.update(uint32="float64", uint64="float64")


def upgrade_to_float(*types: ScalarType) -> list[ScalarType]:
    """The common dtype of the inputs with integers read as the float that holds them."""
    return [get_scalar_type(upcast(*[_EXACT_FLOAT.get(t.dtype, t.dtype) for t in types]))]


def upgrade_to_float64(*types: ScalarType) -> list[ScalarType]:
    """float64 for every input (as SciPy computes)."""
    return [get_scalar_type("float64")]


def upgrade_to_float_no_complex(*types: ScalarType) -> list[ScalarType]:
    _refuse_kinds(types, "c", "complex")
    return upgrade_to_float(*types)


def float_out_nocomplex(*types: ScalarType) -> list[ScalarType]:
    _refuse_kinds(types, "c", "complex")
    return float_out(*types)


def int_out(*types: ScalarType) -> list[ScalarType]:
    """The output is an int64, whatever the inputs."""
    return [get_scalar_type("int64")]


def int_out_nocomplex(*types: ScalarType) -> list[ScalarType]:
    _refuse_kinds(types, "c", "complex")
    return int_out(*types)


def real_out(*types: ScalarType) -> list[ScalarType]:
    """The real dtype of a complex first input (complex64: float32), else its own type."""
    real = {"complex64": "float32", "complex128": "float64"}.get(types[0].dtype)
    return [get_scalar_type(real)] if real else same_out(*types)


class specific_out:  # (PyTensor's lower-case class name)
    """The rule that always gives the types ``spec`` (compared by them, as an op's prop)."""

    def __init__(self, *spec: ScalarType) -> None:
        self.spec = tuple(spec)

    def __call__(self, *types: ScalarType) -> list[ScalarType]:
        return list(self.spec)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.spec == self.spec

    def __hash__(self) -> int:
        return hash((type(self), self.spec))


class unary_out_lookup:  # (PyTensor's lower-case class name)
    """The rule of a table from an input type (or a tuple of them) to the output type;
    inputs outside the table raise TypeError."""

    def __init__(self, type_table: dict) -> None:
        self.table = dict(type_table)

    def __call__(self, *types: ScalarType) -> list[ScalarType]:
        key = types[0] if len(types) == 1 else types
        if key not in self.table:
            raise TypeError(f"no output type for inputs {key}")
        found = self.table[key]
        return list(found) if isinstance(found, list | tuple) else [found]

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.table == self.table

    def __hash__(self) -> int:
        return hash((type(self), tuple(sorted(self.table.items(), key=repr))))


class ScalarOp(Op):
    """An operation on numbers, applied to whole arrays by ``Elemwise``.

    Subclasses set ``nin``/``nout`` (``nin = -1``: any number of inputs, folded left to right
    with ``nfunc``) and ``nfunc``, and write derivatives in ``grad``/``L_op``.
    """

    nin: int = -1
    nout: int = 1
    #: NumPy ufunc (or callable of the same shape) computing this op on arrays.
    nfunc: Callable | None = None
    #: Whether f(x, y) == f(y, x); lets rewrites sort inputs.
    commutative: bool = False
    #: Whether f(f(x, y), z) == f(x, f(y, z)); lets rewrites flatten chains.
    associative: bool = False
    #: For associative ops: the identity element (x op identity == x).
    identity: Any = None
    #: Inputs whose dtypes type the Python-number operands (NEP 50); None: all of them.
    typing_positions: tuple[int, ...] | None = None
    #: Whether Python numbers are weak (NEP 50); False for NumPy/SciPy functions that call
    #: ``np.asarray`` on their arguments, making ``2`` an int64 and ``2.5`` a float64.
    weak_python_scalars: bool = True

    __props__ = ("output_types_preference",)

    def __init__(
        self, output_types_preference: Callable | None = None, name: str | None = None
    ) -> None:
        self.output_types_preference = output_types_preference
        self.name = name

    def output_types(self, types: Sequence[ScalarType]) -> list[ScalarType]:
        """Output types for inputs of ``types``: the preference rule, the class's rule in
        ``dtype_rules.DTYPE_RULES``, or (for ops outside the table) NumPy's resolution."""
        if self.output_types_preference is not None:
            return list(self.output_types_preference(*types))
        rule = rule_for(type(self))
        if rule is None:
            return resolve_ufunc_types(self, self.nfunc, types, self.nout)
        dtypes = tuple(t.dtype for t in types)
        try:
            return [get_scalar_type(apply_rule(rule, dtypes, self))]
        except TypeError as err:
            names = ", ".join(dtypes)
            raise TypeError(f"{self} is not defined for inputs of dtype ({names}): {err}") from err

    def make_node(self, *inputs: Any) -> Apply:
        if self.nin >= 0 and len(inputs) != self.nin:
            raise TypeError(f"{self} takes {self.nin} inputs, got {len(inputs)}")
        inputs = convert_weak_scalars(
            inputs, lambda v, dt: constant(v, dt), self.typing_positions, scalar_op=self
        )
        inputs = [as_scalar(i) for i in inputs]
        out_types = self.output_types([i.type for i in inputs])
        return Apply(self, inputs, [t() for t in out_types])

    def weak_scalar_dtype(self, value: Any, loop_dtype: str) -> str:
        """The dtype of the constant made of the Python number ``value``, given the dtype of
        the ufunc loop for its position; a value out of that dtype's range raises
        ``OverflowError`` when the constant is made, as in NumPy."""
        return loop_dtype

    def elementwise(self, *arrays: Any) -> Any:
        """Compute this op on NumPy arrays (variadic ops fold ``nfunc`` left to right); an op
        that defines only ``impl`` (as PyTensor allows) is run element by element."""
        if self.nfunc is None:
            if type(self).impl is not ScalarOp.impl:
                return self._elementwise_by_impl(arrays)
            raise MethodNotDefined("nfunc", type(self), "Set nfunc, impl or elementwise().")
        if self.nin == -1 and len(arrays) > 2:
            return reduce(self.nfunc, arrays)
        return self.nfunc(*arrays)

    def impl(self, *inputs: Any) -> Any:
        """Compute this op on scalars."""
        return self.elementwise(*inputs)

    def _elementwise_by_impl(self, arrays: Sequence[Any]) -> Any:
        # ``impl`` on each element (np.frompyfunc), the results in the output dtypes
        arrays = [np.asarray(a) for a in arrays]
        out_types = self.output_types([get_scalar_type(a.dtype.name) for a in arrays])
        results = np.frompyfunc(self.impl, len(arrays), self.nout)(*arrays)
        if self.nout == 1:
            return np.asarray(results, dtype=out_types[0].dtype)
        return tuple(np.asarray(r, dtype=t.dtype) for r, t in zip(results, out_types))

    def perform(self, node: Apply, inputs: list, output_storage: list) -> None:
        results = self.impl(*inputs)
        if self.nout == 1:
            results = (results,)
        for cell, value, out in zip(output_storage, results, node.outputs):
            cell[0] = np.asarray(value, dtype=out.type.dtype)[()]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list:
        """``J v`` from the partial derivatives ``L_op`` gives for unit output cotangents.

        ``L_op`` with cotangent 1 on output ``k`` (0 on the others) returns ``d y_k / d x_i``;
        the tangent of ``y_k`` is ``sum_i (d y_k / d x_i) v_i``. Integer-valued outputs have
        none; an undefined partial makes the tangent undefined.
        """
        outputs = self.make_node(*inputs).outputs
        if all(ev is None for ev in eval_points):
            return [None] * len(outputs)
        return [self._output_tangent(inputs, outputs, k, eval_points) for k in range(len(outputs))]

    def _output_tangent(self, inputs, outputs, k: int, eval_points) -> Any:
        # See Elemwise._output_tangent: on complex numbers the unit cotangents 1 and i give
        # the partials of Re(y) and Im(y), and each term is Re(conj(partial) v).
        if outputs[k].type.dtype in discrete_dtypes:
            return None
        real_part = self._tangent_part(inputs, outputs, k, eval_points, 1)
        if not is_complex(outputs[k]) or is_null(real_part):
            return real_part
        imag_part = self._tangent_part(inputs, outputs, k, eval_points, 1j)
        if is_null(imag_part) or (real_part is None and imag_part is None):
            return imag_part
        # A part without tangent is zero (as in Elemwise): the other part still moves.
        zero = constant(0, {"complex64": "float32"}.get(outputs[k].type.dtype, "float64"))
        return _COMPLEX_PARTS["complex"](
            zero if real_part is None else real_part, zero if imag_part is None else imag_part
        )

    def _tangent_part(self, inputs, outputs, k: int, eval_points, seed) -> Any:
        seeds = [constant(seed if j == k else 0, grad_dtype(o)) for j, o in enumerate(outputs)]
        total = None
        for partial, ev in zip(self.L_op(inputs, outputs, seeds), eval_points):
            if ev is None or is_disconnected(partial):
                continue
            if is_null(partial):
                return partial
            if is_complex(as_scalar(partial)) or is_complex(as_scalar(ev)):
                term = _COMPLEX_PARTS["real"](conj(partial) * ev)
            else:
                term = partial * ev
            total = term if total is None else total + term
        return total

    def __str__(self) -> str:
        if self.name:
            return self.name
        return type(self).__name__.lower()

    def c_code(self, *args: Any, **kwargs: Any) -> str:
        raise MethodNotDefined("c_code", type(self), "arignote has no C backend.")


def resolve_ufunc_types(op: Any, nfunc: Any, types: Sequence[ScalarType], nout: int) -> list:
    """Output types NumPy's ufunc machinery gives ``nfunc`` for inputs of ``types``."""
    if nfunc is None or not hasattr(nfunc, "resolve_dtypes"):
        raise MethodNotDefined("output_types_preference", type(op), "nfunc is not a ufunc")
    dtypes = [np.dtype(t.dtype) for t in types]
    try:
        if len(dtypes) > nfunc.nin:  # variadic: fold pairwise
            first = nfunc.resolve_dtypes((dtypes[0], dtypes[1], None))[-1]
            for dt in dtypes[2:]:
                first = nfunc.resolve_dtypes((first, dt, None))[-1]
            return [get_scalar_type(first.name)]
        resolved = nfunc.resolve_dtypes((*dtypes, *([None] * nout)))
    except (TypeError, np._core._exceptions._UFuncNoLoopError) as err:
        names = ", ".join(d.name for d in dtypes)
        raise TypeError(f"{op} is not defined for inputs of dtype ({names}): {err}") from err
    return [get_scalar_type(dt.name) for dt in resolved[len(dtypes) :]]


def probed_output_types(op: ScalarOp, types: Sequence[ScalarType]) -> list[ScalarType]:
    """Output types of ``op`` found by running ``op.elementwise`` on one-element arrays.

    For ops computed by a NumPy/SciPy function that is not a ufunc (``np.round``, ``np.angle``,
    ``scipy.special.polygamma``...), the function itself is the authority on dtypes: asking it
    is the only way to match it exactly. The answer is cached per op and input dtypes.
    """
    return [get_scalar_type(dt) for dt in _probe_dtypes(op, tuple(t.dtype for t in types))]


@lru_cache(maxsize=4096)
def _probe_dtypes(op: ScalarOp, dtypes: tuple[str, ...]) -> tuple[str, ...]:
    arrays = [np.ones(1, dtype=dt) for dt in dtypes]
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results = op.elementwise(*arrays)
    except (TypeError, ValueError) as err:
        names = ", ".join(dtypes)
        raise TypeError(f"{op} is not defined for inputs of dtype ({names}): {err}") from err
    results = (results,) if op.nout == 1 else tuple(results)
    return tuple(np.asarray(r).dtype.name for r in results)


class UnaryScalarOp(ScalarOp):
    nin = 1


class BinaryScalarOp(ScalarOp):
    nin = 2


def is_discrete(var: Variable) -> bool:
    return var.type.dtype in discrete_dtypes


def is_complex(var: Variable) -> bool:
    return var.type.dtype in complex_dtypes


def grad_dtype(var: Variable) -> str:
    """The dtype of a gradient with respect to ``var``: never an integer dtype."""
    return var.type.dtype if var.type.dtype in continuous_dtypes else config.floatX


def zero_grad_for(var: Variable) -> Variable:
    """A zero gradient shaped like ``var`` (for inputs whose effect is piecewise constant)."""
    return constant(0, grad_dtype(var))


def gradient_mask(var: Variable) -> Variable:
    """Mark ``var``, a ``switch`` that routes a gradient to the branch its condition chose,
    as a gradient mask, and return it.

    Its zero means "this input was not used here", a strong zero: the product of it with any
    partial derivative, inf or NaN included (the derivative of a branch evaluated outside its
    domain), is 0. Rewrites move such products into the switch (``tensor/rewriting/masks.py``),
    which keeps the gradient of ``where(c, f(x), 0)`` or ``nan_to_num(f(x))`` finite where the
    function is locally constant. The tag is copied when the graph is lifted to tensors.
    """
    var.tag.gradient_mask = True
    return var


class Conj(UnaryScalarOp):
    """Complex conjugate (``np.conjugate``); the identity on real numbers."""

    nfunc = np.conjugate

    def L_op(self, inputs, outputs, output_grads):
        (x,), (gz,) = inputs, output_grads
        if is_discrete(outputs[0]):
            return [zero_grad_for(x)]
        # conj(a + ib) = a - ib: the cotangent of b changes sign
        return [conj_if_complex(gz)]


conj = Conj(name="conj")


#: The scalar ops ``real`` and ``complex``, registered by ``arignote.scalar.complex`` (which
#: builds on this module): ``ScalarOp.R_op`` assembles tangents of complex maps from parts.
_COMPLEX_PARTS: dict[str, Any] = {}


def register_complex_parts(real: ScalarOp, complex_: ScalarOp) -> None:
    _COMPLEX_PARTS.update(real=real, complex=complex_)


def conj_if_complex(var: Variable) -> Variable:
    """``conj(var)`` for complex variables, ``var`` itself otherwise (no node on real graphs).

    Gradients with respect to a complex ``z`` are ``dC/dRe(z) + i dC/dIm(z)`` for a real cost
    C. With that convention the chain rule through a holomorphic f is ``gz = gy * conj(f'(z))``.
    """
    if isinstance(var, Variable) and is_complex(var):
        return conj(var)
    return var  # real variables, and plain Python numbers (constant derivatives)


class FloatUnaryOp(UnaryScalarOp):
    """A smooth unary function f; subclasses give the derivative f'(x) in ``derivative``."""

    def derivative(self, x: Variable, y: Variable) -> Variable:
        raise MethodNotDefined("derivative", type(self))

    def L_op(self, inputs, outputs, output_grads):
        (x,), (y,), (gy,) = inputs, outputs, output_grads
        if is_discrete(y):
            return [zero_grad_for(x)]
        # chain rule: dC/dx = dC/dy * f'(x)  (conjugated for complex x, see conj_if_complex)
        return [gy * conj_if_complex(self.derivative(x, y))]
