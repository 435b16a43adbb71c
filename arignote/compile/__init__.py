"""Compiling graphs into callables: ``function``, ``In``/``Out``, modes, shared variables."""

from typing import Any

from arignote.compile import builders, io, mode, sharedvalue
from arignote.compile.aliasing import insert_deepcopy
from arignote.compile.builders import OpFromGraph
from arignote.compile.compiled import Function
from arignote.compile.debugmode import (
    BadDestroyMap,
    BadInferShape,
    BadOptimization,
    BadThunkOutput,
    BadViewMap,
    DebugMode,
    DebugModeError,
    InvalidValueError,
)
from arignote.compile.function import FunctionMaker, UnusedInputError, function
from arignote.compile.io import In, Out
from arignote.compile.mode import (
    FAST_COMPILE,
    FAST_RUN,
    Mode,
    get_default_mode,
    get_mode,
    register_linker,
    register_mode,
)
from arignote.compile.nanguardmode import NanGuardError, NanGuardMode
from arignote.compile.ops import (
    DeepCopyOp,
    FromFunctionOp,
    ViewOp,
    as_op,
    deep_copy_op,
    view_op,
    wrap_py,
)
from arignote.compile.profiling import ProfileStats
from arignote.compile.sharedvalue import SharedVariable, shared, shared_constructor
from arignote.graph import basic as _graph_basic
from arignote.graph.basic import Constant as _Constant
from arignote.graph.basic import Variable, graph_inputs
from arignote.graph.fg import MissingInputError


def _evaluate(var: Variable, inputs_to_values: dict | None = None, **kwargs: Any) -> Any:
    """``Variable.eval``: compile once per set of inputs (cached on the variable's
    ``_fn_cache``, as in PyTensor), then call.

    As in PyTensor, a missing input raises ``MissingInputError`` and a value for a variable
    the graph does not use raises ``UnusedInputError`` unless ``on_unused_input`` says
    otherwise (it is passed on to ``function`` with the other keyword arguments).
    """
    inputs_to_values = dict(inputs_to_values or {})
    if inputs_to_values:
        inputs_to_values = _resolve_names(var, inputs_to_values, kwargs)
    inputs = list(inputs_to_values)
    missing = [
        v
        for v in graph_inputs([var])
        if v.owner is None and not isinstance(v, (_Constant, SharedVariable)) and v not in inputs
    ]
    if missing:
        raise MissingInputError(f"{var}.eval() needs values for the inputs {missing}")
    cache = var.__dict__.setdefault("_fn_cache", {})
    key = (tuple(inputs), tuple(sorted(kwargs.items())))
    fn = cache.get(key)
    if fn is None:
        fn = function(inputs, var, **kwargs)
        cache[key] = fn
    return fn(*[inputs_to_values[i] for i in inputs])


def _resolve_names(var: Variable, inputs_to_values: dict, kwargs: dict) -> dict:
    """``inputs_to_values`` with its string keys replaced by the graph inputs of that name."""
    by_name = {v.name: v for v in graph_inputs([var]) if v.name is not None}
    lenient = kwargs.get("on_unused_input") in ("ignore", "warn")
    resolved = {}
    for key, value in inputs_to_values.items():
        if isinstance(key, str):
            if key not in by_name:
                if lenient:
                    continue
                raise ValueError(f"{var} depends on no input named {key!r}")
            key = by_name[key]
        resolved[key] = value
    return resolved


_graph_basic.register_evaluator(_evaluate)

__all__ = [
    "FAST_COMPILE",
    "FAST_RUN",
    "BadDestroyMap",
    "BadInferShape",
    "BadOptimization",
    "BadThunkOutput",
    "BadViewMap",
    "DebugMode",
    "DebugModeError",
    "DeepCopyOp",
    "FromFunctionOp",
    "Function",
    "FunctionMaker",
    "In",
    "InvalidValueError",
    "Mode",
    "NanGuardError",
    "NanGuardMode",
    "OpFromGraph",
    "Out",
    "ProfileStats",
    "SharedVariable",
    "UnusedInputError",
    "ViewOp",
    "as_op",
    "builders",
    "deep_copy_op",
    "function",
    "get_default_mode",
    "get_mode",
    "insert_deepcopy",
    "io",
    "mode",
    "register_linker",
    "register_mode",
    "shared",
    "shared_constructor",
    "sharedvalue",
    "view_op",
    "wrap_py",
]

from arignote.compile import debug, executor, maker


def __getattr__(name: str) -> Any:
    # ``compile.JAX`` / ``compile.NUMBA``: PyTensor's mode objects, made on first access
    if name in ("JAX", "NUMBA"):
        return getattr(mode, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# PyTensor's debugging mode, argument dump and the base classes of In/Out
from arignote.compile.io import SymbolicInput, SymbolicOutput
from arignote.compile.monitormode import MonitorMode, function_dump

__all__ += ["MonitorMode", "SymbolicInput", "SymbolicOutput", "function_dump"]
