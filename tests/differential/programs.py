"""Random programs over the op database, for differential testing.

A :class:`Program` is a short list of :class:`Step`\\ s, each applying one op_db entry to one of
its samples (possibly made 0-d, zero-length, integer or boolean). An array argument of a step is
either a new input (its value is the sample's, so it lies in the op's domain) or an earlier
value of the program with the same shape and kind (any broadcast-compatible shape for
elementwise entries). A program may also ask for the gradient of one of its values.

Programs are plain data (integers and strings), so Hypothesis shrinks them and a shrunk failure
is pasted into ``test_regressions.py`` as it is printed. :func:`realize` turns one into
symbolic inputs and outputs plus a *plan* that :func:`evaluate_reference` replays with NumPy
and :func:`build_pytensor` with PyTensor.
"""

from __future__ import annotations

import warnings
import zlib
from dataclasses import dataclass, field

import numpy as np

import arignote.tensor as pt
from arignote.graph.basic import Variable
from tests.differential.not_yet_swept import swept_by_programs
from tests.op_db import REGISTRY
from tests.op_db.edges import DERIVATIONS, REFUSED

VARIANTS = ("plain", "0d", "0len", "0last", "int", "bool")
SHAPES = ("ones", "runtime", "full")  # static length-1 dims, all unknown, all static

INFOS = {info.name: info for info in REGISTRY}
# Entries programs use: deterministic, with defined values.
NAMES = tuple(sorted(n for n in INFOS if swept_by_programs(n)))


@dataclass(frozen=True)
class Step:
    """One op_db entry applied to one of its samples.

    ``feeds[p]`` says where array argument ``p`` comes from: negative for a new input, else an
    index (modulo their number) into the earlier values that fit the argument.
    """

    entry: str
    sample: int = 0
    variant: str = "plain"
    feeds: tuple[int, ...] = ()
    shapes: str = "ones"


@dataclass(frozen=True)
class Program:
    steps: tuple[Step, ...]
    grad_of: int | None = None  # index (modulo their number) of a float value to differentiate


class Unusable(Exception):
    """The program cannot be built for a reason that is not a difference (skip it)."""


@dataclass
class Realized:
    """A program's inputs, values and outputs, and the plan that replays it."""

    inputs: list = field(default_factory=list)  # symbolic inputs
    input_values: list = field(default_factory=list)
    values: list = field(default_factory=list)  # (symbolic, NumPy reference value) per value
    plan: list = field(default_factory=list)  # (entry, kwargs, arg specs, number of outputs)
    outputs: list = field(default_factory=list)  # indices of the program's output values
    grad_value: int | None = None
    grad_wrt: list = field(default_factory=list)  # inputs the gradient is taken with respect to
    weights: np.ndarray | None = None


# -- arguments ---------------------------------------------------------------------------------


def _sample(step: Step):
    info = INFOS[step.entry]
    samples = info.samples(np.random.default_rng(zlib.crc32(info.name.encode())))
    if not samples:
        raise Unusable(f"{step.entry} has no samples")
    sample = samples[step.sample % len(samples)]
    if step.variant in DERIVATIONS:
        sample = DERIVATIONS[step.variant](sample) or sample
        if (info.name, sample.name) in REFUSED:
            raise Unusable(REFUSED[info.name, sample.name])
    elif step.variant in ("int", "bool"):
        sample = _discrete(sample, step.variant)
    return info, sample


def _discrete(sample, variant: str):
    args = list(sample.args)
    for p, a in enumerate(args):
        if p in sample.static or not isinstance(a, np.ndarray) or a.dtype.kind != "f":
            continue
        args[p] = np.round(a).astype("int64") if variant == "int" else a > np.median(a)
    return type(sample)(tuple(args), sample.kwargs, sample.name + "-" + variant, sample.static)


def _kind(dtype: np.dtype) -> str:
    return {"b": "b", "i": "i", "u": "i", "f": "f", "c": "c"}.get(np.dtype(dtype).kind, "?")


def _fits(value: np.ndarray, arg: np.ndarray, elementwise: bool) -> bool:
    if _kind(value.dtype) != _kind(arg.dtype):
        return False
    if not elementwise:
        return value.shape == arg.shape and value.dtype == arg.dtype
    try:
        np.broadcast_shapes(value.shape, arg.shape)
    except ValueError:
        return False
    return True


def _new_input(realized: Realized, value: np.ndarray, shapes: str) -> Variable:
    if shapes == "full":
        static = value.shape
    elif shapes == "runtime":
        static = (None,) * value.ndim
    else:
        static = tuple(1 if s == 1 else None for s in value.shape)
    var = pt.tensor(dtype=value.dtype, shape=static, name=f"x{len(realized.inputs)}")
    realized.inputs.append(var)
    realized.input_values.append(value)
    return var


def _arguments(realized: Realized, step: Step, info, sample):
    """Symbolic arguments and their plan specs: ("in", k), ("val", j) or ("lit", object)."""
    elementwise = info.op_class is pt.Elemwise
    symbolic, specs, array_index = [], [], 0
    for p, arg in enumerate(sample.args):
        if p in sample.static or not isinstance(arg, np.ndarray):
            symbolic.append(arg)
            specs.append(("lit", arg))
            continue
        feed = step.feeds[array_index] if array_index < len(step.feeds) else -1
        array_index += 1
        fitting = [
            j
            for j, (_, value) in enumerate(realized.values)
            if isinstance(value, np.ndarray) and _fits(value, arg, elementwise)
        ]
        if feed >= 0 and fitting:
            j = fitting[feed % len(fitting)]
            symbolic.append(realized.values[j][0])
            specs.append(("val", j))
        else:
            symbolic.append(_new_input(realized, arg, step.shapes))
            specs.append(("in", len(realized.inputs) - 1))
    return symbolic, specs


# -- realization and replay ------------------------------------------------------------------


def _as_list(result) -> list:
    return list(result) if isinstance(result, (list, tuple)) else [result]


def _call_reference(info, args, kwargs) -> list:
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [np.asarray(v) for v in _as_list(info.ref(*args, **kwargs))]


def _resolve(specs, inputs, values) -> list:
    table = {"in": inputs, "val": values}
    return [spec[1] if spec[0] == "lit" else table[spec[0]][spec[1]] for spec in specs]


def realize(program: Program) -> Realized:
    """Symbolic graph and NumPy reference values of ``program``.

    Raises :class:`Unusable` when the program cannot be formed (the reference refuses its
    arguments, or arignote refuses them when the graph is built: static errors are checked by
    the op tests, not here).
    """
    realized = Realized()
    consumed: set[int] = set()
    for step in program.steps:
        info, sample = _sample(step)
        symbolic, specs = _arguments(realized, step, info, sample)
        try:
            refs = _call_reference(
                info, _resolve(specs, realized.input_values, _ref_values(realized)), sample.kwargs
            )
        except Exception as err:
            raise Unusable(f"the NumPy reference of {step.entry} refuses: {err}") from err
        try:
            outs = _as_list(info.build(*symbolic, **sample.kwargs))
        except (TypeError, ValueError, IndexError, NotImplementedError) as err:
            raise Unusable(f"{step.entry} refused when built: {err}") from err
        if len(outs) != len(refs) or not all(isinstance(o, Variable) for o in outs):
            raise Unusable(f"{step.entry}: outputs are not tensors")
        consumed.update(spec[1] for spec in specs if spec[0] == "val")
        realized.plan.append((info, sample.kwargs, specs, len(outs)))
        realized.values.extend(zip(outs, refs))
    realized.outputs = [j for j in range(len(realized.values)) if j not in consumed]
    _choose_gradient(realized, program.grad_of)
    return realized


def _ref_values(realized: Realized) -> list:
    return [value for _, value in realized.values]


def _choose_gradient(realized: Realized, grad_of: int | None) -> None:
    if grad_of is None or not any(v.type.dtype.startswith("float") for v in realized.inputs):
        return
    floats = [
        j
        for j, (var, value) in enumerate(realized.values)
        if var.type.dtype.startswith("float") and np.all(np.isfinite(value))
    ]
    if floats:
        realized.grad_value = floats[grad_of % len(floats)]
        shape = realized.values[realized.grad_value][1].shape
        realized.weights = np.random.default_rng(grad_of).uniform(0.5, 1.5, size=shape)


def evaluate_reference(realized: Realized, input_values: list) -> list:
    """Every value of the program, recomputed with NumPy from ``input_values``."""
    values: list = []
    for info, kwargs, specs, _ in realized.plan:
        values.extend(_call_reference(info, _resolve(specs, input_values, values), kwargs))
    return values
