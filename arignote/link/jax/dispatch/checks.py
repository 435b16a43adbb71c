"""Run-time checks in JAX mode: a failing check raises its own exception, as on the VM.

XLA programs cannot raise. A conversion that must check a value known only at run time (an
``Assert``'s conditions, a loop's step count) calls :func:`runtime_check`; the linker then
compiles the function under ``jax.experimental.checkify`` (only functions whose graph holds a
node that may check: :func:`needs_checks`), and after each call :func:`raise_failed_check`
raises the exception class and message of the first check that failed, before any output or
update is delivered. A check whose condition is known while tracing (a constant, a shape) is
decided at once: it raises when the function is traced (its first call), or costs nothing.

Each distinct (exception class, message) pair gets a number; the checkify message carries only
that number, and the table below maps it back.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

import jax.numpy as jnp
from arignote.graph.basic import Apply, Constant, Variable
from arignote.link.jax.dispatch.basic import is_static, qualified_name
from jax.experimental import checkify

# (exception class, message) of each check, by number
_CHECKS: list[tuple[type, str]] = []
_NUMBERS: dict[tuple[type, str], int] = {}
_TOKEN = re.compile(r"arignote-check-(\d+)")

# qualified op class name -> predicate(node): whether that node may emit a run-time check
_CHECKING: dict[str, Callable[[Apply], bool]] = {}


def register_checking(name: str, predicate: Callable[[Apply], bool] | None = None) -> None:
    """Declare that nodes of the op class ``name`` may call :func:`runtime_check` (when
    ``predicate(node)`` holds; always when it is None)."""
    _CHECKING[name] = predicate or (lambda node: True)


def _number(exc_type: type, msg: str) -> int:
    key = (exc_type, msg)
    if key not in _NUMBERS:
        _NUMBERS[key] = len(_CHECKS)
        _CHECKS.append(key)
    return _NUMBERS[key]


def runtime_check(condition: Any, exc_type: type, msg: str) -> None:
    """Raise ``exc_type(msg)`` unless ``condition`` (a boolean scalar) holds.

    Decided now when ``condition`` is static; otherwise checked when the compiled function
    runs (the linker compiles it under checkify, see :func:`needs_checks`).
    """
    if is_static(condition):
        if not bool(np.all(condition)):
            raise exc_type(msg)
        return
    checkify.check(jnp.all(condition), f"arignote-check-{_number(exc_type, msg)}")


def raise_failed_check(error: Any) -> None:
    """Raise the exception of the check that failed in a call (``error``: checkify's)."""
    message = error.get()
    if message is None:
        return
    found = _TOKEN.search(message)
    if found is None:
        raise RuntimeError(message)
    exc_type, msg = _CHECKS[int(found.group(1))]
    raise exc_type(msg)


def _inner_nodes(op: Any) -> list[Apply]:
    """The nodes of an op's inner graph (Scan, OpFromGraph, IndexMap), else none."""
    inputs, outputs = getattr(op, "inner_inputs", None), getattr(op, "inner_outputs", None)
    if inputs is None or outputs is None:
        return []
    from_inputs = set(inputs)
    seen: set = set()
    nodes: list[Apply] = []
    stack = [o.owner for o in outputs if o.owner is not None]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        nodes.append(node)
        stack += [v.owner for v in node.inputs if v.owner is not None and v not in from_inputs]
    return nodes


def needs_checks(nodes: list[Apply]) -> bool:
    """Whether any node (or a node of an inner graph) may emit a run-time check."""
    for node in nodes:
        for cls in type(node.op).__mro__:
            predicate = _CHECKING.get(qualified_name(cls))
            if predicate is not None and predicate(node):
                return True
        if needs_checks(_inner_nodes(node.op)):
            return True
    return False


def static_in_jax(var: Variable, known: dict | None = None) -> bool:
    """Whether ``var`` is known while tracing: computed from constants and shapes only (JAX
    shapes are always static). ``known`` memoizes the answer per variable."""
    known = {} if known is None else known
    if var not in known:
        known[var] = _static_owner(var, known)
    return known[var]


def _static_owner(var: Variable, known: dict) -> bool:
    if isinstance(var, Constant):
        return True
    node = var.owner
    if node is None:
        return False
    if type(node.op).__name__ in ("Shape", "Shape_i"):
        return True
    # the tracer evaluates only small integer computations on static values (basic.py)
    for out in node.outputs:
        dtype = getattr(out.type, "dtype", None)
        if dtype is None or np.dtype(dtype).kind not in "biu" or len(out.type.shape) > 1:
            return False
    return all(static_in_jax(v, known) for v in node.inputs)
