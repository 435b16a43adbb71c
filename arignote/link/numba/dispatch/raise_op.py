"""Native ``CheckAndRaise`` and ``Assert`` (``arignote/tensor/raise_op.py``).

The value passes through (the op declares it a view) when every condition holds; otherwise
native code raises the op's exception class with its message, as ``perform`` does (numba
raises exceptions whose arguments are constants).
"""

from __future__ import annotations

from collections.abc import Callable

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import compile_source, numba_funcify
from arignote.tensor.raise_op import CheckAndRaise


@numba_funcify.register(CheckAndRaise)
def _check_and_raise(op: CheckAndRaise, node: Apply) -> Callable:
    conditions = [f"c{k}" for k in range(len(node.inputs) - 1)]
    test = " and ".join(f"{c}[()]" for c in conditions) or "True"
    source = (
        f"def kernel({', '.join(['x', *conditions])}):\n"
        f"    if not ({test}):\n"
        f"        raise exc_type({op.msg!r})\n"
        "    return x\n"
    )
    return compile_source(source, "kernel", {"exc_type": op.exc_type})
