"""A ``__call__`` generated for each compiled function: the per-call path, unrolled.

Calling a compiled function on small arrays costs mostly bookkeeping: looping over arguments,
looking attributes up, building the result list. For the common case (all arguments given
positionally, each an ndarray of exactly the input's dtype and number of dimensions) this
module writes, once per function, a ``__call__`` where all of that is unrolled::

    def __call__(self, *args, **kwargs):
        if kwargs or len(args) != 2:
            return self._call_general(args, kwargs)
        a0, a1 = args
        if type(a0) is not ndarray or a0.dtype is not dtype0 or a0.ndim != 0:
            return self._call_general(args, kwargs)
        ...                                  # a1 likewise
        cell0[0] = a0
        cell1[0] = a1
        try:
            vm.run()                         # the VM (its generated body when it has one)
        except Exception as err:
            ...                              # report the failing node, clear the cells
        result = out0[0]
        cell0[0] = None                      # keep no reference to arguments or results
        ...
        return result

With ``trust_input`` the argument checks are left out. Anything unusual (keywords, defaults,
conversions, a failed check) goes to ``Function._call_general``, which does everything in
general form, so both paths always agree. The generated text depends only on the function's
signature (numbers of arguments, outputs and updates), never on user data; the objects it uses
are bound as globals of the generated code.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np


def fast_call(fn: Any) -> Callable | None:
    """A generated ``__call__`` for the Function ``fn``, or None when it needs the general one."""
    if fn.profile is not None or not fn._fast_ok or fn._kind not in ("single", "list", "dict"):
        return None
    namespace: dict[str, Any] = {"ndarray": np.ndarray}
    vm, fail = _vm_entry(fn.vm)
    namespace.update(vm=vm, fail=fail)
    lines = [
        "def __call__(self, *args, **kwargs):",
        f"    if kwargs or len(args) != {fn._n_args}:",
        "        return self._call_general(args, kwargs)",
    ]
    names = [f"a{k}" for k in range(fn._n_args)]
    if names:
        lines.append(f"    {', '.join(names)}, = args")
    if not fn._trust_input:
        lines += _check_lines(fn, names, namespace)
    for k, name in enumerate(names):
        namespace[f"cell{k}"] = fn._explicit[k].cell
        lines.append(f"    cell{k}[0] = {name}")
    lines += [
        "    try:",
        "        vm.run()",
        "    except Exception as err:",
        "        try:",
        "            fail(err)",  # describes the failing node (it reads the cells), raises
        "        finally:",
        "            self._clear()",
    ]
    lines += _result_lines(fn, namespace)
    lines += _update_lines(fn, namespace)
    for k, cell in enumerate(fn._clear_after):
        namespace[f"clear{k}"] = cell
        lines.append(f"    clear{k}[0] = None")
    lines.append("    return result")
    source = "\n".join(lines) + "\n"
    exec(compile(source, f"<arignote call of {fn.name or 'function'}>", "exec"), namespace)
    call = namespace["__call__"]
    call.__doc__ = "Call the compiled function (positionally, or by input name)."
    call.source = source
    return call


def _vm_entry(vm: Any) -> tuple[Any, Callable]:
    """How to run the graph (``vm.run()`` in the generated code) and report its failures.

    A VM with a ``run`` entry point (``GeneratedVM``) may switch it when it generates its
    program, hence the attribute lookup at each call; other VMs report their own errors.
    """
    if hasattr(vm, "run") and hasattr(vm, "fail"):
        return vm, vm.fail

    def reraise(err: Exception) -> None:
        raise err

    return SimpleNamespace(run=vm), reraise


def _check_lines(fn: Any, names: list[str], namespace: dict) -> list[str]:
    lines = []
    for k, (name, e) in enumerate(zip(names, fn._explicit)):
        namespace[f"dtype{k}"] = e.dtype
        lines += [
            f"    if type({name}) is not ndarray or {name}.dtype is not dtype{k} "
            f"or {name}.ndim != {e.ndim}:",
            "        return self._call_general(args, kwargs)",
        ]
        for dim, size in enumerate(e.static_shape or ()):
            if size is not None:
                lines += [
                    f"    if {name}.shape[{dim}] != {int(size)}:",
                    "        return self._call_general(args, kwargs)",
                ]
    return lines


def _result_lines(fn: Any, namespace: dict) -> list[str]:
    cells = fn._result_cells
    for k, cell in enumerate(cells):
        namespace[f"out{k}"] = cell
    if fn._kind == "single":
        return ["    result = out0[0]"]
    values = [f"out{k}[0]" for k in range(len(cells))]
    if fn._kind == "dict":
        namespace["keys"] = tuple(fn._keys)
        return [f"    result = dict(zip(keys, ({', '.join(values)}{',' if values else ''})))"]
    return [f"    result = [{', '.join(values)}]"]


def _update_lines(fn: Any, namespace: dict) -> list[str]:
    """Read every update's new value before storing any, so that a swap works."""
    lines = []
    for k, (target, source) in enumerate(fn._updates):
        namespace[f"target{k}"], namespace[f"source{k}"] = target, source
        lines.append(f"    new{k} = source{k}[0]")
    lines += [f"    target{k}[0] = new{k}" for k in range(len(fn._updates))]
    return lines
