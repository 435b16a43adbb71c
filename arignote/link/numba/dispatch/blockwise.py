"""The native batch loop of ``Blockwise``: the core op's own kernel on every core block.

The generated kernel broadcasts the batch dimensions as ``Blockwise.perform`` does (a length-1
dimension broadcasts only where the input's type says so, see :mod:`.batch`), calls the core
kernel on the first block to learn the core shapes of the outputs, allocates them, and walks
the remaining batch positions as one flat loop, the multi-index taken from the flat position
by divisions (any number of batch dimensions). Every result is copied into the outputs, which
never alias the inputs (a core kernel may return a view of its block).

A node whose core op has no native kernel falls back as the core op would: the ``NotNative``
key and reason are the core op's. An empty batch has no block to run: the core lengths come
from the signature (a dimension named after an input dimension) or the static type, else the
node's ``perform`` (in object mode) makes the empty outputs, as it infers their shape.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import (
    NotNative,
    compile_source,
    numba_funcify,
    objmode_kernel,
)
from arignote.link.numba.dispatch.batch import broadcast_lines
from arignote.tensor.blockwise import Blockwise


def core_kernel(op: Blockwise, node: Apply) -> Callable:
    """The native kernel of ``node``'s core node; ``NotNative`` with the core op's key."""
    try:
        return numba_funcify(op.core_op, op.core_node(node))
    except NotNative as why:
        raise NotNative(why.key, f"in {op}: {why.reason}") from None


@numba_funcify.register(Blockwise)
def _blockwise(op: Blockwise, node: Apply) -> Callable:
    namespace, tail, core = _embedded(core_kernel(op, node))
    empty = _empty_outputs(op, node)
    if empty is None:  # some core length of an empty batch needs perform
        namespace["fallback"] = objmode_kernel(node)
        empty = ["    if total == 0:", f"        return fallback({_args(node)})"]
    lines = [
        f"def kernel({_args(node)}):",
        *_batch_shape(op, node),
        *_core_lengths(op, node),
        *empty,
        *_first_block(op, node),
        *_other_blocks(op, node),
        f"    return {_outs(node)}",
    ]
    source = "\n".join(lines).replace("core(", f"{core}(") + "\n" + tail
    return compile_source(source, "kernel", namespace)


def _embedded(core: Callable) -> tuple[dict, str, str]:
    """``(namespace, source after the kernel, name of the core function)``.

    A core kernel generated from one function's source is written into the Blockwise kernel's
    own source (renamed after its text, jitted there), with its globals: the Blockwise kernel
    is then as cacheable on disk as its core. Otherwise the core kernel is a global.
    """
    source = getattr(core, "arignote_source", None)
    if source is None or not source.startswith("def kernel(") or source.count("def ") != 1:
        return {"core": core}, "", "core"
    name = "core_" + hashlib.sha1(source.encode()).hexdigest()[:16]
    tail = source.replace("def kernel(", f"def {name}(", 1) + f"\n\n{name} = numba.njit({name})\n"
    return dict(core.arignote_namespace), "\n\n" + tail, name


# -- pieces of the source --------------------------------------------------------------------


def _args(node: Apply) -> str:
    return ", ".join(f"x{k}" for k in range(len(node.inputs)))


def _outs(node: Apply) -> str:
    """The returned value: one array, or a tuple of them for several outputs."""
    names = [f"o{m}" for m in range(len(node.outputs))]
    return names[0] if len(names) == 1 else "(" + "".join(n + ", " for n in names) + ")"


def _dtype(var) -> str:
    dtype = var.type.dtype
    return "np.bool_" if dtype == "bool" else f"np.{dtype}"


def _batch_shape(op: Blockwise, node: Apply) -> list[str]:
    """Lines defining ``s<d>`` (raising ValueError as ``perform`` does) and ``total``."""
    batch = op.batch_ndim(node)
    names = [f"x{k}" for k in range(len(node.inputs))]

    def mismatch(d: int, k: int) -> str:
        return (
            f"ValueError('{op}: input {k} has length ' + str(x{k}.shape[{d}]) + ' in batch "
            f"dimension {d} where another input has ' + str(s{d}) + ' (length 1 broadcasts "
            "only where the type says so)')"
        )

    lines, _, _ = broadcast_lines(node.inputs, names, batch, mismatch)
    product = " * ".join(f"s{d}" for d in range(batch)) or "1"
    return [*lines, f"    total = {product}"]


def _core_lengths(op: Blockwise, node: Apply) -> list[str]:
    """Lines raising ValueError as ``perform`` does (``check_core_lengths``) where a core
    dimension has different lengths in two inputs, even in an empty batch."""
    batch = op.batch_ndim(node)
    first: dict[str, str] = {}
    lines = []
    for k, dims in enumerate(op.inputs_sig):
        for j, name in enumerate(dims):
            length = f"x{k}.shape[{batch + j}]"
            if first.setdefault(name, length) == length:
                continue
            lines += [
                f"    if {length} != {first[name]}:",
                f"        raise ValueError('{op}: inconsistent size for core dimension "
                f"\\'{name}\\': ' + str({first[name]}) + ' vs ' + str({length}))",
            ]
    return lines


def _block(op: Blockwise, node: Apply, k: int) -> str:
    """Input ``k``'s core block at the batch position ``i0, i1, ...`` (0-d: an array)."""
    batch = op.batch_ndim(node)
    picks = [f"i{d}" if node.inputs[k].type.shape[d] != 1 else "0" for d in range(batch)]
    if not picks:
        return f"x{k}"
    block = f"x{k}[{', '.join(picks)}]"
    return f"np.asarray({block})" if len(op.inputs_sig[k]) == 0 else block


def _call(op: Blockwise, node: Apply) -> list[str]:
    """Lines calling the core kernel on the current blocks: results ``c0, c1, ...`` (arrays)."""
    blocks = ", ".join(_block(op, node, k) for k in range(len(node.inputs)))
    results = [f"r{m}" for m in range(len(node.outputs))]
    target = results[0] if len(results) == 1 else ", ".join(results)
    lines = [f"{target} = core({blocks})"]
    lines += [f"c{m} = np.asarray(r{m})" for m in range(len(results))]
    return lines


def _store(op: Blockwise, node: Apply) -> list[str]:
    batch = op.batch_ndim(node)
    at = "".join(f"i{d}, " for d in range(batch))
    return [f"o{m}[{at}...] = c{m}" for m in range(len(node.outputs))]


def _first_block(op: Blockwise, node: Apply) -> list[str]:
    """The core kernel at batch position 0, and the outputs allocated from its results."""
    batch = op.batch_ndim(node)
    lines = [f"    i{d} = 0" for d in range(batch)]
    lines += [f"    {line}" for line in _call(op, node)]
    sizes = "".join(f"s{d}, " for d in range(batch))
    for m, out in enumerate(node.outputs):
        lines.append(f"    f{m} = c{m}.shape")
        lines.append(f"    o{m} = np.empty(({sizes}) + f{m}, dtype={_dtype(out)})")
    return lines + [f"    {line}" for line in _store(op, node)]


def _other_blocks(op: Blockwise, node: Apply) -> list[str]:
    """The flat loop over batch positions 1, 2, ...: the multi-index by divisions (the last
    dimension varies fastest), the core call, a check that the core shapes stay the same (a
    ragged result cannot be stacked: ``perform`` raises ValueError too), the copy."""
    batch = op.batch_ndim(node)
    if batch == 0:
        return []
    lines = ["    for n in range(1, total):", "        rest = n"]
    for d in range(batch - 1, 0, -1):
        lines += [f"        i{d} = rest % s{d}", f"        rest //= s{d}"]
    lines.append("        i0 = rest")
    lines += [f"        {line}" for line in _call(op, node)]
    for m in range(len(node.outputs)):
        lines += [
            f"        if c{m}.shape != f{m}:",
            f"            raise ValueError('{op}: the core results differ in shape between "
            "batch entries, they cannot be stacked')",
        ]
    return lines + [f"        {line}" for line in _store(op, node)]


def _empty_outputs(op: Blockwise, node: Apply) -> list[str] | None:
    """Lines returning the outputs of an empty batch; None when a core length is known
    neither by its name in the signature nor statically."""
    batch = op.batch_ndim(node)
    found: dict[str, str] = {}
    for k, dims in enumerate(op.inputs_sig):
        for j, name in enumerate(dims):
            found.setdefault(name, f"x{k}.shape[{batch + j}]")
    sizes = "".join(f"s{d}, " for d in range(batch))
    lines = ["    if total == 0:"]
    for m, (out, dims) in enumerate(zip(node.outputs, op.outputs_sig)):
        core = []
        for j, name in enumerate(dims):
            static = out.type.shape[batch + j]
            if name not in found and static is None:
                return None
            core.append(found.get(name, str(static)))
        shape = sizes + "".join(c + ", " for c in core)
        lines.append(f"        o{m} = np.empty(({shape}), dtype={_dtype(out)})")
    return [*lines, f"        return {_outs(node)}"]
