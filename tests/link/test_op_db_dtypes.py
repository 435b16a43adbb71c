"""Output dtypes of every backend against one authority, ``arignote.scalar.dtype_rules``.

For every scalar op class of the kernel table (``arignote.scalar.kernels``) and every
elementwise entry of the op database, the dtype the rule gives is the dtype of the graph's
output and the dtype of the value each backend returns: the Python VM (``perform``, no
rewrites), the Numba backend and the JAX backend. Values are compared with the VM's too, so
that a kernel written from the table cannot drift from ``perform``.

The default run checks every scalar op class on the VM and a representative few (one or two
per family) on every backend, in one function per backend (float64 and int64 inputs), and a
representative few op-database entries; the sweep over every class and input dtype, one
function each, and over every elementwise entry of the op database is slow-marked.
"""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.graph.traversal import io_toposort
from arignote.scalar.arithmetic import Cast
from arignote.scalar.basic import ScalarOp, get_scalar_type
from arignote.scalar.dtype_rules import apply_rule, rule_for
from arignote.scalar.kernels import KERNELS, NoKernel, formula_for, kernel_for
from arignote.scalar.logical import IsClose
from arignote.scalar.rounding import RoundHalfToEven
from arignote.scalar.special import Factorial
from arignote.tensor.elemwise import Elemwise
from tests.test_op_db import CASES, NO_REWRITES, _outputs, _symbolic

MODULES = ["basic", "arithmetic", "math", "logical", "rounding", "complex", "special"]
MODULES.append("special_more")
MODULES.append("without_zeros")
SWEEP_DTYPES = ("float64", "float32", "int64", "int8", "uint8", "bool", "complex128")


def _instances() -> list[ScalarOp]:
    found: dict[type, ScalarOp] = {}
    for name in MODULES:
        for value in vars(importlib.import_module(f"arignote.scalar.{name}")).values():
            if isinstance(value, ScalarOp) and kernel_for(type(value)) is not None:
                found.setdefault(type(value), value)
    extra = [Cast(get_scalar_type("float32")), Cast(get_scalar_type("int16")), IsClose()]
    extra += [RoundHalfToEven(decimals=2), RoundHalfToEven(decimals=-1), Factorial(exact=True)]
    return [*found.values(), *extra]


OPS = _instances()


def test_the_sweep_covers_every_class_of_the_kernel_table():
    covered = {f"{type(op).__module__}.{type(op).__qualname__}" for op in OPS}
    assert covered == set(KERNELS)


def _rule_dtype(op: ScalarOp, dtypes: tuple[str, ...]) -> str | None:
    try:
        return apply_rule(rule_for(type(op)), dtypes, op)
    except TypeError:
        return None


def _value(dtype: str, rng, size: int = 5, avoid_zero: bool = False) -> np.ndarray:
    """Values in every op's domain where one exists (0.2 .. 0.8, small integers; no False
    where 0 is a pole of a special function, whose sign JAX and SciPy disagree on)."""
    kind = np.dtype(dtype).kind
    if kind == "b":
        return np.array([True, avoid_zero, True, True, avoid_zero][:size])
    if kind in "iu":
        return np.arange(1, size + 1).astype(dtype)
    values = rng.uniform(0.2, 0.8, size=size)
    if kind == "c":
        values = values + 0.3j * rng.uniform(0.2, 0.8, size=size)
    return values.astype(dtype)


def _special(op: ScalarOp, dtypes: tuple[str, ...]) -> bool:
    """Whether the op computes a SciPy special function (poles at 0: gamma, psi...)."""
    try:
        return "sp." in formula_for(op, dtypes)
    except NoKernel:
        return True


def _graph(op: ScalarOp, dtype: str, rng):
    """One elementwise node of ``op`` on vectors of ``dtype`` (None: the rule refuses it)."""
    nin = op.nin if op.nin > 0 else 2
    dtypes = (dtype,) * nin
    if _rule_dtype(op, dtypes) is None:
        return None
    inputs = [pt.vector(f"x{k}", dtype=dtype) for k in range(nin)]
    values = [_value(dtype, rng, avoid_zero=_special(op, dtypes)) for _ in range(nin)]
    return inputs, Elemwise(op)(*inputs), values, _rule_dtype(op, dtypes)


def _modes():
    modes = [("VM", NO_REWRITES)]
    for backend, mode in (("numba", "NUMBA"), ("jax", "JAX")):
        try:
            importlib.import_module(backend)
        except ImportError:
            continue
        modes.append((mode, mode))
    return modes


MODES = _modes()


def _refused_by_jax(outputs) -> bool:
    from_jax = importlib.import_module("arignote.link.jax")
    nodes = io_toposort([], outputs)
    return any(from_jax.unsupported_reason(n.op, n) is not None for n in nodes)


def _compiled(label, mode, inputs, outputs):
    """The function of ``outputs`` in ``mode`` (None where JAX refuses an op of its list, or
    a SciPy function on complex inputs, naming the op)."""
    if label != "JAX":
        return arignote.function(inputs, outputs, mode=mode)
    from_jax = importlib.import_module("arignote.link.jax")
    if _refused_by_jax(outputs):
        with pytest.raises(from_jax.UnsupportedOpError):
            arignote.function(inputs, outputs, mode=mode)
        return None
    try:
        return arignote.function(inputs, outputs, mode=mode)
    except from_jax.UnsupportedOpError as err:
        assert "complex inputs" in str(err), str(err)
        return None


def _check_close(label, name, actual, expected, single):
    if expected.dtype.kind in "fc":
        # single-precision inputs: SciPy computes some functions in float32, numba in float64
        rtol = 1e-3 if expected.dtype.itemsize <= 4 else (1e-6 if single else 1e-9)
        np.testing.assert_allclose(
            actual, expected, rtol=rtol, atol=1e-12, equal_nan=True, err_msg=f"{label}: {name}"
        )
    else:
        np.testing.assert_array_equal(actual, expected, err_msg=f"{label}: {name}")


def check_backends_follow_the_rules(graphs, modes=None):
    """Every backend (of ``modes``: all by default, the VM first) returns each output in the
    rule's dtype, with the VM's values."""
    inputs = [i for g in graphs for i in g[0]]
    outputs = [g[1] for g in graphs]
    values = [v for g in graphs for v in g[2]]
    for out, graph in zip(outputs, graphs):
        assert out.type.dtype == graph[3], f"{out.owner.op}: graph dtype {out.type.dtype}"
    expected = None
    for label, mode in modes or MODES:
        fn = _compiled(label, mode, inputs, outputs)
        if fn is None:
            continue
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            results = [np.asarray(r) for r in _outputs(fn(*values))]
        for out, result, graph in zip(outputs, results, graphs):
            assert result.dtype == graph[3], f"{label}: {out.owner.op} gave {result.dtype}"
        if expected is None:
            expected = results
            continue
        for out, result, reference in zip(outputs, results, expected):
            single = any(i.type.dtype in ("float32", "complex64") for i in out.owner.inputs)
            _check_close(label, str(out.owner.op), result, reference, single)


#: Scalar op classes the default run compiles with Numba and JAX (one or two per family).
REPRESENTATIVE_CLASSES = {"Add", "TrueDiv", "Exp", "Sigmoid", "Switch", "Cast", "Erf", "XLogY"}
REPRESENTATIVE_CLASSES |= {"RoundHalfToEven", "Angle", "IsClose", "LogicalAnd", "Psi", "Clip"}


@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_every_scalar_op_on_the_vm_and_a_few_on_every_backend(dtype):
    rng = np.random.default_rng(18)
    graphs = [g for op in OPS if (g := _graph(op, dtype, rng)) is not None]
    assert len(graphs) > 60
    check_backends_follow_the_rules(graphs, MODES[:1])
    few = [g for g in graphs if type(g[1].owner.op.scalar_op).__name__ in REPRESENTATIVE_CLASSES]
    assert len(few) >= 10
    check_backends_follow_the_rules(few)


SWEEP = [
    pytest.param(op, dtype, id=f"{op}-{dtype}", marks=pytest.mark.slow)
    for op in OPS
    for dtype in SWEEP_DTYPES
]


@pytest.mark.parametrize(("op", "dtype"), SWEEP)
def test_each_scalar_op_and_dtype_on_every_backend(op, dtype):
    graph = _graph(op, dtype, np.random.default_rng(18))
    if graph is None:
        with pytest.raises(TypeError):
            Elemwise(op)(*[pt.vector(dtype=dtype)] * (op.nin if op.nin > 0 else 2))
        return
    check_backends_follow_the_rules([graph])


# -- the op database's elementwise entries -----------------------------------------------------


def _elemwise_output(outputs) -> bool:
    return len(outputs) == 1 and isinstance(getattr(outputs[0].owner, "op", None), Elemwise)


REPRESENTATIVE = {"add", "true_div", "exp", "sigmoid", "switch", "erf", "xlogy", "round"}


def _entry_cases(representative: bool):
    seen = set()
    for case in CASES:
        info, sample, dtype = case.values
        chosen = info.name in REPRESENTATIVE
        if chosen != representative or (chosen and info.name in seen):
            continue
        seen.add(info.name)
        marks = () if representative else (pytest.mark.slow,)
        yield pytest.param(info, sample, dtype, id=case.id, marks=marks)


@pytest.mark.parametrize(("info", "sample", "dtype"), list(_entry_cases(True)))
def test_representative_elementwise_entries_follow_the_rules(info, sample, dtype):
    check_entry_follows_the_rules(info, sample)


@pytest.mark.parametrize(("info", "sample", "dtype"), list(_entry_cases(False)))
def test_every_elementwise_entry_follows_the_rules(info, sample, dtype):
    check_entry_follows_the_rules(info, sample)


def check_entry_follows_the_rules(info, sample):
    symbols, values, call_args = _symbolic(sample)
    try:
        outputs = _outputs(info.build(*call_args, **sample.kwargs))
    except (TypeError, ValueError):
        pytest.skip("the sample is refused while building (an op database edge case)")
    if not _elemwise_output(outputs) or not all(hasattr(o.type, "dtype") for o in outputs):
        assert info.name not in REPRESENTATIVE, "a representative entry must be elementwise"
        return
    node = outputs[0].owner
    op = node.op.scalar_op
    if rule_for(type(op)) is None:  # a Composite, or a scalar op outside the table
        assert kernel_for(type(op)) is None
        return
    rule = _rule_dtype(op, tuple(i.type.dtype for i in node.inputs))
    graph = (symbols, outputs[0], values, rule)
    check_backends_follow_the_rules([graph])
