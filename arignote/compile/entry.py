"""The entry point of a compiled function: its positional fast path, generated and unrolled.

For small inputs a call costs mostly bookkeeping, and a loop over the arguments costs as much
as the checks themselves. :func:`make_entry` therefore writes, once per function, the call
path for its signature (with the package's one code generator, :mod:`arignote.graph.codegen`)::

    def call(*args, **kwargs):
        if kwargs or len(args) != 2:
            return general(args, kwargs)
        a0, a1, = args
        if type(a0) is not ndarray or a0.dtype is not dtype0 or a0.ndim != 0:
            return general(args, kwargs)
        ...                                   # a1 likewise; static lengths
        try:
            outputs = runner.run(args)        # the runner: no state of the call kept anywhere
        except Exception as err:
            runner.fail(err)                  # re-raises, described with the failing node
        return outputs[0]

With ``trust_input`` the checks are left out. Anything unusual (keywords, defaults,
conversions, a failed check, shared state) goes to the Function's general path, so both
always agree. The text depends only on the signature, never on user data. The generated
function holds no per-call state, so concurrent calls are safe.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from arignote.graph.codegen import CodeBuilder


def make_entry(fn: Any) -> Callable[..., Any]:
    """The entry point of the Function ``fn`` (see the module docstring)."""
    general = fn._call_general
    if not fn._fast_ok:
        return _general_entry(general)
    code = CodeBuilder(f"<arignote call of {fn.name or 'function'}>")
    code.namespace.update(general=general, runner=fn.runner, ndarray=np.ndarray)
    code.line("def call(*args, **kwargs):", 0)
    code.line(f"if kwargs or len(args) != {fn._n_args}:")
    code.line("return general(args, kwargs)", 2)
    names = [f"a{k}" for k in range(fn._n_args)]
    if names and not fn.trust_input:
        code.line(f"{', '.join(names)}, = args")
        for k, e in enumerate(fn._explicit):
            _check_lines(code, k, e)
    if fn._implicit or fn._updates:
        code.namespace["with_state"] = fn._run_with_state
        code.line("return with_state(list(args))")
    else:
        _run_lines(code, fn)
    generated = code.build("call")
    generated.function.source = generated.source  # type: ignore[attr-defined]
    return generated.function


def _general_entry(general: Callable) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        return general(args, kwargs)

    return call


def _check_lines(code: CodeBuilder, k: int, e: Any) -> None:
    dtype = code.name("dtype", e.dtype)
    code.line(
        f"if type(a{k}) is not ndarray or a{k}.dtype is not {dtype} or a{k}.ndim != {e.ndim}:"
    )
    code.line("return general(args, kwargs)", 2)
    for dim, size in enumerate(e.static_shape or ()):
        if size is not None:
            code.line(f"if a{k}.shape[{dim}] != {int(size)}:")
            code.line("return general(args, kwargs)", 2)


def _run_lines(code: CodeBuilder, fn: Any) -> None:
    native = getattr(fn.runner, "native_call", None)
    if native is not None:
        _native_lines(code, fn, *native)
        return
    code.line("try:")
    code.line("outputs = runner.run(args)", 2)
    code.line("except Exception as err:")
    code.line("runner.fail(err)", 2)
    if fn._kind == "single":
        code.line("return outputs[0]")
    elif fn._kind == "list":
        code.line("return outputs")  # the runner's fresh list; no updates on this path
    else:
        code.namespace["keys"] = tuple(fn._keys)
        code.line("return dict(zip(keys, outputs))")


def _native_lines(
    code: CodeBuilder, fn: Any, graph: Any, zero_d: tuple, bare: bool = False
) -> None:
    """Call the jitted graph from the entry point itself (the runner's ``run`` would be one
    more Python frame), making its 0-d outputs arrays as the runner does (``zero_d``: per
    output None for an array, "default" where ``np.array`` infers the dtype, else the dtype;
    ``bare``: the graph returns its one output outside a tuple)."""
    code.namespace.update(graph=graph, array=np.array)
    outs = [f"r{k}" for k in range(len(zero_d))]
    targets = "r0 " if bare else "".join(o + ", " for o in outs)
    code.line("try:")
    code.line(f"{targets}= graph(*args)" if outs else "graph(*args)", 2)
    code.line("except Exception as err:")
    code.line("runner.fail(err)", 2)
    values = []
    for out, dtype in zip(outs, zero_d):
        if dtype is None:
            values.append(out)
        elif isinstance(dtype, str):
            values.append(f"array({out})")
        else:
            values.append(f"array({out}, {code.name('dtype', dtype)})")
    if fn._kind == "single":
        code.line(f"return {values[0]}")
    elif fn._kind == "list":
        code.line(f"return [{', '.join(values)}]")
    else:
        code.namespace["keys"] = tuple(fn._keys)
        code.line(f"return dict(zip(keys, ({''.join(v + ', ' for v in values)})))")
