"""JAX versions of the run-time checks (``arignote/tensor/raise_op.py``) and of ``Print``.

``CheckAndRaise`` and ``Assert``: a failing check raises the op's own exception class with its
message, as on the VM. A condition known while tracing is decided then; one known only at run
time is checked by ``jax.experimental.checkify`` (see :mod:`.checks`): the function is compiled
with the check in it, and the exception is raised after the call, before any output or update
is delivered. PyTensor's JAX backend warns and drops such asserts instead; a check that is
silently skipped gives wrong results without a word, so arignote keeps them. The price is about
20 µs per call for a function holding a run-time check (the error flag is read back from the
device); graphs without one are compiled as before.

``Print``: ``jax.debug.callback`` (ordered, so prints keep the graph's order) calls the op's
``global_fn`` with the value as a NumPy array, which prints the same text as the VM, each time
the compiled function runs (not only when it is traced).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import jax
from arignote.graph.basic import Apply
from arignote.link.jax.dispatch.basic import jax_funcify, register_by_name
from arignote.link.jax.dispatch.checks import register_checking, runtime_check, static_in_jax
from arignote.tensor.raise_op import CheckAndRaise

register_checking(
    "arignote.tensor.raise_op.CheckAndRaise",
    lambda node: not all(static_in_jax(c) for c in node.inputs[1:]),
)


@jax_funcify.register(CheckAndRaise)
def jax_funcify_CheckAndRaise(op: CheckAndRaise, node: Apply, **kwargs: Any) -> Callable:
    exc_type, msg = op.exc_type, op.msg

    def check_and_raise(value, *conditions):
        for condition in conditions:
            runtime_check(condition, exc_type, msg)
        return value

    return check_and_raise


@register_by_name("arignote.printing.print_op.Print")
def jax_funcify_Print(op: Any, node: Apply, **kwargs: Any) -> Callable:
    def show(value):
        op.global_fn(op, np.asarray(value))

    def print_op(x):
        jax.debug.callback(show, x, ordered=True)
        return x

    return print_op
