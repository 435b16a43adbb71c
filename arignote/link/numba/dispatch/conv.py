"""Native convolution kernels (``arignote/tensor/conv/abstract_conv.py``): im2col and BLAS.

As in the NumPy kernels, everything is a correlation of ``(batch, channels, *spatial)``
images with ``(filters, channels / groups, *taps)`` kernels, spatially flipped first for a
true convolution (``filter_flip``). Per group:

* ``AbstractConv``: the columns ``cols[(n, o), (c, t)] = x_pad[n, c, o * s + t * d]`` (zero
  outside the image) times the kernel matrix, ``out = cols @ w^T``;
* ``AbstractConv_gradWeights``: ``dw = gy @ cols`` (then flipped back);
* ``AbstractConv_gradInputs``: ``dcols = gy^T @ w``, scattered back to the image positions
  (col2im; positions in the padding are dropped).

The products go to BLAS through ``np.dot``; the loops filling and scattering the columns are
generated for the node's number of spatial dimensions. Unshared kernels (one per output
position) are direct loops, in :mod:`.conv_unshared`.
"""

from __future__ import annotations

from collections.abc import Callable

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import NotNative, compile_source, numba_funcify
from arignote.tensor.conv.abstract_conv import (
    AbstractConv,
    AbstractConv_gradInputs,
    AbstractConv_gradWeights,
    BaseAbstractConv,
)


def _spatial(k: int, name: str) -> str:
    return ", ".join(f"{name}{d}" for d in range(k))


def _product(k: int, name: str) -> str:
    return " * ".join(f"{name}{d}" for d in range(k))


def _flat(k: int, first: str, index: str, length: str) -> str:
    """Row-major flat index of ``(first, index0, index1, ...)`` over lengths ``length{d}``."""
    expr = first
    for d in range(k):
        expr = f"({expr}) * {length}{d} + {index}{d}"
    return expr


def _header(op: BaseAbstractConv, kern_shape: str) -> list[str]:
    """Lines setting strides ``s{d}``, dilations ``dl{d}``, taps ``K{d}`` and the padding
    before each axis ``pb{d}`` and in all ``pt{d}`` (from the kernel's taps)."""
    lines = []
    for d in range(op.convdim):
        lines.append(f"    s{d} = {op.subsample[d]}")
        lines.append(f"    dl{d} = {op.filter_dilation[d]}")
        lines.append(f"    K{d} = {kern_shape.format(d=d)}")
        mode = op.border_mode
        if mode == "valid":
            before, total = "0", "0"
        elif mode == "full":
            before, total = f"dl{d} * (K{d} - 1)", f"2 * dl{d} * (K{d} - 1)"
        elif mode == "half":
            before, total = f"dl{d} * (K{d} // 2)", f"2 * dl{d} * (K{d} // 2)"
        else:
            before, total = str(mode[d][0]), str(mode[d][0] + mode[d][1])
        lines.append(f"    pb{d} = {before}")
        lines.append(f"    pt{d} = {total}")
    return lines


def _tap(op: BaseAbstractConv, d: int) -> str:
    """The kernel index read for tap ``t{d}`` (flipped for a true convolution)."""
    return f"K{d} - 1 - t{d}" if op.filter_flip else f"t{d}"


def _window_loops(k: int, depth: int) -> tuple[list[str], str]:
    """Loops over output positions ``o{d}``, channels ``c`` and taps ``t{d}`` with the image
    position ``i{d}``; the condition that it lies inside the image."""
    pad = "    " * depth
    lines = [f"{pad}{'    ' * d}for o{d} in range(O{d}):" for d in range(k)]
    lines.append(f"{pad}{'    ' * k}for c in range(Cg):")
    for d in range(k):
        lines.append(f"{pad}{'    ' * (k + 1 + d)}for t{d} in range(K{d}):")
    inner = pad + "    " * (2 * k + 1)
    for d in range(k):
        lines.append(f"{inner}i{d} = o{d} * s{d} + t{d} * dl{d} - pb{d}")
    inside = " and ".join(f"0 <= i{d} < H{d}" for d in range(k))
    return lines, inside


def _check_groups(op: BaseAbstractConv, channels: str, kern_channels: str, filters: str) -> list:
    name = type(op).__name__
    return [
        f"    if {channels} != {kern_channels} * {op.num_groups} or {filters} % {op.num_groups}:",
        f"        raise ValueError('{name}: channels and filters do not fit "
        f"num_groups={op.num_groups}')",
    ]


def check_cotangent(op: BaseAbstractConv, axis: int, length: str, what: str) -> list[str]:
    """ValueError where axis ``axis`` of the output gradient ``gy`` is not ``length`` (the
    image's batch length, the kernel's filter count): ``perform`` raises in its product, and
    an empty input would otherwise hide the mismatch (found by the hostile-input sweep)."""
    return [
        f"    if gy.shape[{axis}] != {length}:",
        f"        raise ValueError('{type(op).__name__}: the output gradient has ' + "
        f"str(gy.shape[{axis}]) + ' {what} where the others give ' + str({length}))",
    ]


def _columns(op: BaseAbstractConv, depth: int) -> list[str]:
    """Lines filling ``cols`` (rows: batch and output positions; columns: channel and taps)
    for group ``g`` from the image ``x``."""
    k = op.convdim
    loops, inside = _window_loops(k, depth + 1)
    pad = "    " * depth
    body = pad + "    " * (2 * k + 2)
    row = _flat(k, "n", "o", "O")
    col = _flat(k, "c", "t", "K")
    return [
        f"{pad}for n in range(N):",
        *loops,
        f"{body}value = 0.0",
        f"{body}if {inside}:",
        f"{body}    value = x[n, g * Cg + c, {_spatial(k, 'i')}]",
        f"{body}cols[{row}, {col}] = value",
    ]


def _image_lengths(k: int, array: str) -> list[str]:
    return [f"    H{d} = {array}.shape[{2 + d}]" for d in range(k)]


def _output_lengths(k: int, name: str) -> list[str]:
    lines = []
    for d in range(k):
        extent = f"dl{d} * (K{d} - 1) + 1"
        lines.append(f"    O{d} = (H{d} + pt{d} - ({extent})) // s{d} + 1")
        lines.append(f"    if O{d} < 1:")
        lines.append(f"        raise ValueError('{name}: the kernel is larger than the image')")
    return lines


#: Kernel factories of the unshared variants by op class, filled by :mod:`.conv_unshared`
#: (which builds on the helpers here).
UNSHARED: dict[type, Callable[[BaseAbstractConv, Apply], Callable]] = {}


def _reject_unshared(op: BaseAbstractConv) -> None:
    if op.unshared and type(op) not in UNSHARED:
        raise NotNative(type(op).__name__, "unshared kernels are not written natively")


@numba_funcify.register(AbstractConv)
def _conv(op: AbstractConv, node: Apply) -> Callable:
    _reject_unshared(op)
    if op.unshared:
        return UNSHARED[AbstractConv](op, node)
    k, dtype = op.convdim, node.outputs[0].type.dtype
    name = type(op).__name__
    lines = ["def kernel(x, w):", "    N = x.shape[0]", "    F = w.shape[0]", "    Cg = w.shape[1]"]
    lines += _check_groups(op, "x.shape[1]", "Cg", "F")
    lines += [f"    Fg = F // {op.num_groups}"]
    lines += _header(op, "w.shape[{d}+2]") + _image_lengths(k, "x") + _output_lengths(k, name)
    lines += [
        f"    P = {_product(k, 'O')}",
        f"    T = Cg * {_product(k, 'K')}",
        f"    out = np.empty((N, F, {_spatial(k, 'O')}), np.{dtype})",
        f"    cols = np.empty((N * P, T), np.{dtype})",
        f"    wmat = np.empty((T, Fg), np.{dtype})",
        "    oflat = out.reshape((N, F, P))",
        f"    for g in range({op.num_groups}):",
    ]
    lines += _columns(op, 2)
    lines += _kernel_loops(op, "wmat[{col}, f] = w[g * Fg + f, c, {taps}]", 2)
    lines += [
        "        res = np.dot(cols, wmat)",
        "        for n in range(N):",
        "            for p in range(P):",
        "                for f in range(Fg):",
        "                    oflat[n, g * Fg + f, p] = res[n * P + p, f]",
        "    return out",
    ]
    return compile_source("\n".join(lines) + "\n", "kernel", {})


def _kernel_loops(op: BaseAbstractConv, statement: str, depth: int) -> list[str]:
    """Loops over ``f``, ``c`` and taps running ``statement`` with ``{col}`` (the column of
    ``(c, t)``) and ``{taps}`` (the kernel's indices, flipped if needed) filled in."""
    k, pad = op.convdim, "    " * depth
    lines = [f"{pad}for f in range(Fg):", f"{pad}    for c in range(Cg):"]
    for d in range(k):
        lines.append(f"{pad}{'    ' * (2 + d)}for t{d} in range(K{d}):")
    taps = ", ".join(_tap(op, d) for d in range(k))
    body = statement.format(col=_flat(k, "c", "t", "K"), taps=taps)
    lines.append(f"{pad}{'    ' * (2 + k)}{body}")
    return lines


@numba_funcify.register(AbstractConv_gradWeights)
def _conv_grad_weights(op: AbstractConv_gradWeights, node: Apply) -> Callable:
    _reject_unshared(op)
    if op.unshared:
        return UNSHARED[AbstractConv_gradWeights](op, node)
    k, dtype = op.convdim, node.outputs[0].type.dtype
    sizes = _spatial(k, "ks")
    lines = [
        f"def kernel(x, gy, {sizes}):",
        "    N = x.shape[0]",
        "    F = gy.shape[1]",
        f"    Cg = x.shape[1] // {op.num_groups}",
        f"    Fg = F // {op.num_groups}",
    ]
    lines += _check_groups(op, "x.shape[1]", "Cg", "F")
    lines += check_cotangent(op, 0, "N", "batch entries")
    lines += _header(op, "ks{d}[()]") + _image_lengths(k, "x")
    lines += [f"    O{d} = gy.shape[{2 + d}]" for d in range(k)]
    lines += [
        f"    P = {_product(k, 'O')}",
        f"    T = Cg * {_product(k, 'K')}",
        f"    out = np.empty((F, Cg, {_spatial(k, 'K')}), np.{dtype})",
        f"    cols = np.empty((N * P, T), np.{dtype})",
        f"    gmat = np.empty((Fg, N * P), np.{dtype})",
        "    gflat = np.ascontiguousarray(gy).reshape((N, F, P))",
        f"    for g in range({op.num_groups}):",
    ]
    lines += _columns(op, 2)
    lines += [
        "        for f in range(Fg):",
        "            for n in range(N):",
        "                for p in range(P):",
        "                    gmat[f, n * P + p] = gflat[n, g * Fg + f, p]",
        "        dw = np.dot(gmat, cols)",
    ]
    lines += _kernel_loops(op, "out[g * Fg + f, c, {taps}] = dw[f, {col}]", 2)
    lines.append("    return out")
    return compile_source("\n".join(lines) + "\n", "kernel", {})


@numba_funcify.register(AbstractConv_gradInputs)
def _conv_grad_inputs(op: AbstractConv_gradInputs, node: Apply) -> Callable:
    _reject_unshared(op)
    if op.unshared:
        return UNSHARED[AbstractConv_gradInputs](op, node)
    k, dtype = op.convdim, node.outputs[0].type.dtype
    sizes = _spatial(k, "hs")
    lines = [
        f"def kernel(w, gy, {sizes}):",
        "    N = gy.shape[0]",
        "    F = w.shape[0]",
        "    Cg = w.shape[1]",
        f"    Fg = F // {op.num_groups}",
    ]
    lines += _check_groups(op, f"Cg * {op.num_groups}", "Cg", "F")
    lines += check_cotangent(op, 1, "F", "channels")
    lines += _header(op, "w.shape[{d}+2]")
    lines += [f"    H{d} = hs{d}[()]" for d in range(k)]
    lines += [f"    O{d} = gy.shape[{2 + d}]" for d in range(k)]
    lines += [
        f"    P = {_product(k, 'O')}",
        f"    T = Cg * {_product(k, 'K')}",
        f"    out = np.zeros((N, Cg * {op.num_groups}, {_spatial(k, 'H')}), np.{dtype})",
        f"    gmat = np.empty((N * P, Fg), np.{dtype})",
        f"    wmat = np.empty((Fg, T), np.{dtype})",
        "    gflat = np.ascontiguousarray(gy).reshape((N, F, P))",
        f"    for g in range({op.num_groups}):",
        "        for n in range(N):",
        "            for f in range(Fg):",
        "                for p in range(P):",
        "                    gmat[n * P + p, f] = gflat[n, g * Fg + f, p]",
    ]
    lines += _kernel_loops(op, "wmat[f, {col}] = w[g * Fg + f, c, {taps}]", 2)
    lines.append("        dcols = np.dot(gmat, wmat)")
    loops, inside = _window_loops(k, 3)
    body = "    " * (3 + 2 * k + 1)
    lines += [
        "        for n in range(N):",
        *loops,
        f"{body}if {inside}:",
        f"{body}    out[n, g * Cg + c, {_spatial(k, 'i')}] += "
        f"dcols[{_flat(k, 'n', 'o', 'O')}, {_flat(k, 'c', 't', 'K')}]",
        "    return out",
    ]
    return compile_source("\n".join(lines) + "\n", "kernel", {})
