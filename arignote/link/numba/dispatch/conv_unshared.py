"""Native unshared convolutions: a separate kernel ``w[f, o]`` for every output position ``o``
(kernels of shape ``(F, *out, C / groups, *taps)``), and the two gradients.

No product is shared between output positions, so there are no columns to hand to BLAS: each
kernel is the direct loop over batch entries, filters, output positions, channels and taps
(the image position of a tap ``i = o * s + t * d - pad``, zero outside the image):

* ``AbstractConv``: ``out[n, f, o] += x[n, c, i] * w[f, o, c, t]``;
* ``AbstractConv_gradWeights``: ``dw[f, o, c, t] += gy[n, f, o] * x[n, c, i]``;
* ``AbstractConv_gradInputs``: ``dx[n, c, i] += gy[n, f, o] * w[f, o, c, t]``;

with ``c`` and ``f`` within one group, and the taps read (or written) flipped for a true
convolution (``filter_flip``), as the shared kernels of :mod:`.conv` do.
"""

from __future__ import annotations

from collections.abc import Callable

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import compile_source
from arignote.link.numba.dispatch.conv import (
    UNSHARED,
    _check_groups,
    _header,
    _image_lengths,
    _output_lengths,
    _spatial,
    _tap,
    _window_loops,
    check_cotangent,
)
from arignote.tensor.conv.abstract_conv import (
    AbstractConv,
    AbstractConv_gradInputs,
    AbstractConv_gradWeights,
    BaseAbstractConv,
)


def _positions_check(op: BaseAbstractConv, array: str, first: int) -> list[str]:
    """ValueError when the kernels' output positions (``array.shape[first:first + k]``) are
    not the output's ``O0, O1, ...``, as ``perform`` raises it."""
    lines = []
    for d in range(op.convdim):
        lines += [
            f"    if {array}.shape[{first + d}] != O{d}:",
            f"        raise ValueError('{type(op).__name__}: the unshared kernels are not for "
            "the output positions of the image')",
        ]
    return lines


def _loops(op: BaseAbstractConv, statement: str) -> list[str]:
    """Loops over groups, batch entries, filters of the group and the windows (positions,
    channels, taps), running ``statement`` where the tap lies inside the image."""
    k = op.convdim
    lines = [
        f"    for g in range({op.num_groups}):",
        "        for n in range(N):",
        "            for f in range(Fg):",
    ]
    loops, inside = _window_loops(k, 4)
    body = "    " * (4 + 2 * k + 1)
    return [*lines, *loops, f"{body}if {inside}:", f"{body}    {statement}"]


def _indices(op: BaseAbstractConv) -> tuple[str, str, str]:
    """The subscripts of the image (``x[n, channel, i]``), the output cotangent
    (``[n, filter, o]``) and the kernel (``[filter, o, channel, tap]``)."""
    k = op.convdim
    taps = ", ".join(_tap(op, d) for d in range(k))
    image = f"n, g * Cg + c, {_spatial(k, 'i')}"
    output = f"n, g * Fg + f, {_spatial(k, 'o')}"
    kernel = f"g * Fg + f, {_spatial(k, 'o')}, c, {taps}"
    return image, output, kernel


def _conv_unshared(op: AbstractConv, node: Apply) -> Callable:
    k, dtype = op.convdim, node.outputs[0].type.dtype
    image, output, kernel = _indices(op)
    lines = [
        "def kernel(x, w):",
        "    N = x.shape[0]",
        "    F = w.shape[0]",
        f"    Cg = w.shape[{1 + k}]",
    ]
    lines += _check_groups(op, "x.shape[1]", "Cg", "F")
    lines += [f"    Fg = F // {op.num_groups}"]
    lines += _header(op, f"w.shape[{{d}}+{2 + k}]") + _image_lengths(k, "x")
    lines += _output_lengths(k, type(op).__name__) + _positions_check(op, "w", 1)
    lines.append(f"    out = np.zeros((N, F, {_spatial(k, 'O')}), np.{dtype})")
    lines += _loops(op, f"out[{output}] += x[{image}] * w[{kernel}]")
    return compile_source("\n".join([*lines, "    return out"]) + "\n", "kernel", {})


def _conv_unshared_grad_weights(op: AbstractConv_gradWeights, node: Apply) -> Callable:
    k, dtype = op.convdim, node.outputs[0].type.dtype
    image, output, kernel = _indices(op)
    lines = [
        f"def kernel(x, gy, {_spatial(k, 'ks')}):",
        "    N = x.shape[0]",
        "    F = gy.shape[1]",
        f"    Cg = x.shape[1] // {op.num_groups}",
        f"    Fg = F // {op.num_groups}",
    ]
    lines += _check_groups(op, "x.shape[1]", "Cg", "F")
    lines += check_cotangent(op, 0, "N", "batch entries")
    lines += _header(op, "ks{d}[()]") + _image_lengths(k, "x")
    lines += _output_lengths(k, type(op).__name__) + _positions_check(op, "gy", 2)
    lines.append(f"    out = np.zeros((F, {_spatial(k, 'O')}, Cg, {_spatial(k, 'K')}), np.{dtype})")
    lines += _loops(op, f"out[{kernel}] += gy[{output}] * x[{image}]")
    return compile_source("\n".join([*lines, "    return out"]) + "\n", "kernel", {})


def _conv_unshared_grad_inputs(op: AbstractConv_gradInputs, node: Apply) -> Callable:
    k, dtype = op.convdim, node.outputs[0].type.dtype
    image, output, kernel = _indices(op)
    lines = [
        f"def kernel(w, gy, {_spatial(k, 'hs')}):",
        "    N = gy.shape[0]",
        "    F = w.shape[0]",
        f"    Cg = w.shape[{1 + k}]",
        f"    Fg = F // {op.num_groups}",
    ]
    lines += _check_groups(op, f"Cg * {op.num_groups}", "Cg", "F")
    lines += check_cotangent(op, 1, "F", "channels")
    lines += _header(op, f"w.shape[{{d}}+{2 + k}]")
    lines += [f"    H{d} = hs{d}[()]" for d in range(k)]
    lines += [f"    O{d} = gy.shape[{2 + d}]" for d in range(k)]
    lines += _positions_check(op, "w", 1)
    lines.append(f"    out = np.zeros((N, Cg * {op.num_groups}, {_spatial(k, 'H')}), np.{dtype})")
    lines += _loops(op, f"out[{image}] += gy[{output}] * w[{kernel}]")
    return compile_source("\n".join([*lines, "    return out"]) + "\n", "kernel", {})


UNSHARED.update(
    {
        AbstractConv: _conv_unshared,
        AbstractConv_gradWeights: _conv_unshared_grad_weights,
        AbstractConv_gradInputs: _conv_unshared_grad_inputs,
    }
)
