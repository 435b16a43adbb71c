"""Native kernels of any advanced index: several integer arrays (n-d, broadcast together),
boolean masks (n-d), integers, slices, new axes and an ellipsis, with NumPy's placement rule.

The generated kernel follows NumPy's definition of advanced indexing:

1. Every advanced entry becomes integer arrays: an integer array (its negative values counted
   from the end, each checked against its axis: IndexError as in NumPy), a k-d mask its k
   ``nonzero`` arrays (its shape must be the indexed dimensions': IndexError), an integer a
   0-d index, a 0-d mask one dimension of length 1 (True) or 0 (False) reading no axis.
2. They broadcast together to the shape ``B`` (a mismatch is NumPy's IndexError).
3. The result holds, for each position ``b`` of ``B``, the block ``x[basic entries, each
   advanced entry replaced by its value at b]`` (a view of the slice, new-axis and ellipsis
   dimensions, in order). ``B`` goes first when the advanced entries are separated in the index
   (by a slice, a new axis or an ellipsis), else where they stand (as ``_assemble`` in
   ``arignote.tensor.advanced_subtensor`` says for ``perform``).

One flat loop over the positions of ``B`` copies the blocks (the multi-index by divisions). The
inc/set variants loop the same way over the copy of ``x``, in the order NumPy writes: a set
keeps the last write of a repeated position, an increment accumulates (``np.add.at``), and
``ignore_duplicates`` adds to the original ``x`` (NumPy's buffered ``+=``: the last write wins).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import compile_source
from arignote.tensor.advanced_subtensor import is_advanced_entry
from arignote.tensor.index_spec import ARRAY, INT, MASK, SliceSpec, entry_groups


@dataclass
class _Entry:
    """One index entry: its kind, the names of its inputs and the axes of ``x`` it reads."""

    kind: object
    inputs: tuple
    axes: list[int]
    ndim: int = 0  # of the index input (arrays and masks)


@dataclass
class _Plan:
    """The structure of an index, resolved against ``x``'s number of dimensions."""

    entries: list[_Entry]
    adjacent: bool
    before: int  # basic result dimensions before the advanced block (when adjacent)
    basic: int  # all basic result dimensions (trailing axes of x included)
    x_ndim: int
    lines: list[str] = field(default_factory=list)
    deferred: list[str] = field(default_factory=list)  # checks of the integer arrays


def _plan(idx_list, node: Apply, first: int) -> _Plan:
    x = node.inputs[0]
    names = [f"i{k}" for k in range(first, len(node.inputs))]
    groups = list(entry_groups(idx_list, names))
    ndims = {f"i{k}": v.type.ndim for k, v in enumerate(node.inputs)}
    reads = [_reads(entry, group, ndims) for entry, group in groups]
    ellipsis = x.type.ndim - sum(r for r in reads if r is not None)
    entries, axis = [], 0
    for (entry, group), count in zip(groups, reads):
        count = ellipsis if count is None else count
        ndim = ndims[group[0]] if entry in (ARRAY, MASK) else 0
        entries.append(_Entry(entry, group, list(range(axis, axis + count)), ndim))
        axis += count
    positions = [k for k, e in enumerate(idx_list) if is_advanced_entry(e)]
    adjacent = positions == list(range(positions[0], positions[-1] + 1))
    outs = [_basic_dims(e) for e in entries]
    trailing = x.type.ndim - axis  # axes no entry reads: whole, after the others
    return _Plan(entries, adjacent, sum(outs[: positions[0]]), sum(outs) + trailing, x.type.ndim)


def _reads(entry, group: tuple, ndims: dict) -> int | None:
    """How many axes of ``x`` an entry reads (None: the ellipsis, whatever is left)."""
    if entry is Ellipsis:
        return None
    if entry is None:
        return 0
    if not isinstance(entry, SliceSpec) and entry == MASK:
        return ndims[group[0]]
    return 1


def _basic_dims(entry: _Entry) -> int:
    """How many dimensions of the result an entry makes outside the advanced block."""
    if isinstance(entry.kind, SliceSpec):
        return 1
    if entry.kind is None:
        return 1
    if entry.kind is Ellipsis:
        return len(entry.axes)
    return 0


# -- the advanced values -----------------------------------------------------------------------


def _prepare(plan: _Plan, x: str) -> list[tuple[str, int]]:
    """Lines (into ``plan.lines``) normalising each advanced entry; the arrays taking part in
    the broadcast as ``(shape expression, ndim)``."""
    shapes = []
    for entry in plan.entries:
        if isinstance(entry.kind, SliceSpec) or entry.kind in (None, Ellipsis):
            continue
        name = entry.inputs[0]
        if entry.kind == INT:
            plan.lines += _int_lines(name, x, entry.axes[0])
        elif entry.kind == ARRAY:
            plan.lines.append(f"    a{name} = {name}.astype(np.int64)")
            if entry.ndim:
                plan.deferred += _array_lines(name, x, entry.axes[0], "        ")
            else:  # NumPy takes a 0-d array for an integer: checked even for an empty result
                plan.lines += _array_lines(name, x, entry.axes[0], "    ")
            shapes.append((f"{name}.shape", entry.ndim))
        elif entry.ndim == 0:  # a 0-d mask: one position (True) or none, reading no axis
            plan.lines.append(f"    c{name} = 1 if {name}[()] else 0")
            shapes.append((f"(c{name},)", 1))
        else:
            plan.lines += _mask_lines(name, x, entry.axes)
            shapes.append((f"n{name}[0].shape", 1))
    return shapes


def _int_lines(name: str, x: str, axis: int) -> list[str]:
    return [
        f"    k{name} = np.int64({name}[()])",
        f"    if k{name} < -{x}.shape[{axis}] or k{name} >= {x}.shape[{axis}]:",
        f"        raise IndexError('index ' + str(k{name}) + ' is out of bounds for axis {axis} "
        f"with size ' + str({x}.shape[{axis}]))",
        f"    if k{name} < 0:",
        f"        k{name} += {x}.shape[{axis}]",
    ]


def _array_lines(name: str, x: str, axis: int, pad: str) -> list[str]:
    """Negative values of ``a<name>`` counted from the end, each checked against its axis."""
    lines = [
        f"flat = a{name}.reshape(a{name}.size)",
        f"length = {x}.shape[{axis}]",
        "for q in range(flat.size):",
        "    if flat[q] < -length or flat[q] >= length:",
        "        raise IndexError('index ' + str(flat[q]) + ' is out of bounds for axis "
        f"{axis} with size ' + str(length))",
        "    if flat[q] < 0:",
        "        flat[q] += length",
    ]
    return [pad + line for line in lines]


def _mask_lines(name: str, x: str, axes: list[int]) -> list[str]:
    lines = []
    for j, axis in enumerate(axes):
        lines += [
            f"    if {name}.shape[{j}] != {x}.shape[{axis}]:",
            f"        raise IndexError('boolean index did not match indexed array along axis "
            f"{axis}; size of axis is ' + str({x}.shape[{axis}]) + ' but size of "
            f"corresponding boolean axis is ' + str({name}.shape[{j}]))",
        ]
    return [*lines, f"    n{name} = np.nonzero({name})"]


def _broadcast(plan: _Plan, shapes: list[tuple[str, int]]) -> int:
    """Lines defining ``B0, B1, ...``, the broadcast shape of the advanced arrays; its ndim."""
    ndim = max((n for _, n in shapes), default=0)
    for t in range(ndim):
        plan.lines.append(f"    B{t} = 1")
        for shape, n in shapes:
            if t < ndim - n:
                continue
            plan.lines += [
                f"    length = {shape}[{t - (ndim - n)}]",
                "    if length != 1:",
                f"        if B{t} != 1 and B{t} != length:",
                "            raise IndexError('shape mismatch: indexing arrays could not be "
                "broadcast together')",
                f"        B{t} = length",
            ]
    # NumPy checks the values of integer arrays while it walks the broadcast positions: none
    # when there are none (an empty broadcast), all of them otherwise
    total = " * ".join(f"B{t}" for t in range(ndim)) or "1"
    if plan.deferred:
        plan.lines += [f"    if {total} > 0:", *plan.deferred]
    sizes = "".join(f"B{t}, " for t in range(ndim))
    for entry in plan.entries:
        name = entry.inputs[0] if entry.inputs else None
        if _is_kind(entry, ARRAY) and ndim:
            plan.lines.append(f"    b{name} = np.broadcast_to(a{name}, ({sizes}))")
        elif _is_kind(entry, MASK) and entry.ndim:
            for j in range(entry.ndim):
                plan.lines.append(f"    b{name}_{j} = np.broadcast_to(n{name}[{j}], ({sizes}))")
    return ndim


def _is_kind(entry: _Entry, kind: str) -> bool:
    return not isinstance(entry.kind, SliceSpec) and entry.kind == kind


# -- subscripts -------------------------------------------------------------------------------


def _source(plan: _Plan, ndim: int, probe: bool = False) -> str:
    """The subscript of ``x`` reading the block at position ``b0, b1, ...`` (``probe``: at an
    arbitrary position, for the shape of the blocks only)."""
    at = f"[{', '.join(f'b{t}' for t in range(ndim))}]" if ndim else "[()]"
    parts = []
    for entry in plan.entries:
        kind, name = entry.kind, (entry.inputs[0] if entry.inputs else None)
        if isinstance(kind, SliceSpec):
            parts.append(f"slice({', '.join(_bound(v) for v in entry.inputs)})")
        elif kind is None:
            parts.append("None")
        elif kind is Ellipsis:
            parts += ["slice(None, None, None)"] * len(entry.axes)
        elif kind == INT:
            parts.append(f"k{name}")
        elif kind == ARRAY:
            parts.append("0" if probe else (f"b{name}{at}" if ndim else f"a{name}[()]"))
        else:  # a mask: one index per axis it reads
            parts += ["0" if probe else f"b{name}_{j}{at}" for j in range(entry.ndim)]
    if parts:
        return ", ".join(parts)
    # only a 0-d mask: the whole of x (numba takes no lone ellipsis)
    return "slice(None, None, None)" if plan.x_ndim else "()"


def _bound(value: str | None) -> str:
    return "None" if value is None else f"{value}[()]"


def _target(plan: _Plan, ndim: int) -> str:
    """The subscript of the result holding the block at position ``b0, b1, ...``."""
    block = [f"b{t}" for t in range(ndim)]
    lead = ["slice(None, None, None)"] * plan.before if plan.adjacent else []
    if not block and not lead:  # the whole result (numba takes no lone ellipsis)
        return "()" if plan.basic == 0 else "slice(None, None, None)"
    return ", ".join([*lead, *block, "..."])


def _result_shape(plan: _Plan, x: str, ndim: int) -> None:
    """Lines defining ``shape``, the shape of ``x[index]``: the blocks' shape (of a probe view)
    with the advanced block inserted."""
    sizes = "(" + "".join(f"B{t}, " for t in range(ndim)) + ")"
    if plan.basic == 0:  # no block dimension: nothing to probe (x may be empty)
        plan.lines.append(f"    shape = {sizes}")
        return
    plan.lines.append(f"    blocks = {x}[{_source(plan, ndim, probe=True)}].shape")
    if plan.adjacent:
        shape = f"blocks[:{plan.before}] + {sizes} + blocks[{plan.before}:]"
    else:
        shape = f"{sizes} + blocks"
    plan.lines.append(f"    shape = {shape}")


def _loop(plan: _Plan, ndim: int, body: str) -> None:
    """The flat loop over the positions of ``B`` running ``body`` (the last varies fastest)."""
    total = " * ".join(f"B{t}" for t in range(ndim)) or "1"
    plan.lines += [f"    for n in range({total}):", "        rest = n"]
    for t in range(ndim - 1, 0, -1):
        plan.lines += [f"        b{t} = rest % B{t}", f"        rest //= B{t}"]
    if ndim:
        plan.lines.append("        b0 = rest")
    plan.lines.append(f"        {body}")


# -- kernels ----------------------------------------------------------------------------------


def _common(idx_list, node: Apply, first: int) -> tuple[_Plan, int]:
    plan = _plan(idx_list, node, first)
    args = ", ".join(f"i{k}" for k in range(len(node.inputs)))
    plan.lines.append(f"def kernel({args}):")
    ndim = _broadcast(plan, _prepare(plan, "i0"))
    _result_shape(plan, "i0", ndim)
    return plan, ndim


def general_subtensor_kernel(op, node: Apply) -> Callable:
    """The kernel of ``AdvancedSubtensor`` for any index (see the module docstring)."""
    plan, ndim = _common(op.idx_list, node, 1)
    plan.lines.append("    out = np.empty(shape, dtype=i0.dtype)")
    _loop(plan, ndim, f"out[{_target(plan, ndim)}] = i0[{_source(plan, ndim)}]")
    plan.lines.append("    return out")
    return compile_source("\n".join(plan.lines) + "\n", "kernel", {})


def general_inc_subtensor_kernel(op, node: Apply) -> Callable:
    """The kernel of ``AdvancedIncSubtensor`` for any index (see the module docstring)."""
    plan, ndim = _common(op.idx_list, node, 2)
    plan.lines += _value_checks(op, node, ndim, plan.basic)
    plan.lines += ["    values = np.broadcast_to(i1, shape)", "    out = i0.copy()"]
    source, target = _source(plan, ndim), _target(plan, ndim)
    if op.set_instead_of_inc:
        body = f"out[{source}] = values[{target}]"
    elif op.ignore_duplicates:
        body = f"out[{source}] = i0[{source}] + values[{target}]"
    else:
        body = f"out[{source}] += values[{target}]"
    _loop(plan, ndim, body)
    plan.lines.append("    return out")
    return compile_source("\n".join(plan.lines) + "\n", "kernel", {})


def _value_checks(op, node: Apply, ndim: int, basic: int) -> list[str]:
    """ValueError where ``y`` does not fit the target shape, as ``check_runtime_value``: a
    dimension of ``y`` broadcasts only where its type says it has length 1."""
    y = node.inputs[1]
    lines = []
    for d, static in enumerate(y.type.shape):
        if static == 1:
            continue
        at = ndim + basic - (y.type.ndim - d)  # y's dimensions align with the target's last
        lines += [
            f"    if i1.shape[{d}] != shape[{at}]:",
            f"        raise ValueError('{op}: y of shape ' + str(i1.shape) + ' does not "
            "broadcast to the shape ' + str(shape) + ' of the indexed positions (length 1 "
            "broadcasts only where the type says so)')",
        ]
    return lines


def write_winners_kernel(op, node: Apply) -> Callable:
    """The kernel of ``WriteWinners``: each indexed position of ``x`` records the number of
    the last write into it (writes numbered in NumPy's order, the one of the loop), and a
    write wins where its number is the one recorded."""
    plan, ndim = _common(op.idx_list, node, 1)
    source, target = _source(plan, ndim), _target(plan, ndim)
    plan.lines += [
        "    ids = np.empty(shape, dtype=np.int64)",
        "    numbers = ids.reshape(ids.size)",
        "    for q in range(numbers.size):",
        "        numbers[q] = q",
        "    slots = np.full(i0.shape, -1, dtype=np.int64)",
    ]
    _loop(plan, ndim, f"slots[{source}] = ids[{target}]")
    plan.lines.append("    out = np.empty(shape, dtype=np.bool_)")
    _loop(plan, ndim, f"out[{target}] = slots[{source}] == ids[{target}]")
    plan.lines.append("    return out")
    return compile_source("\n".join(plan.lines) + "\n", "kernel", {})
