"""Native kernels of ``UnravelIndex`` and ``RavelMultiIndex`` (``tensor/ravel.py``).

Both are integer arithmetic over the dims: in C order the last dimension varies fastest
(strides ``prod(dims[d+1:])``), in F order the first. The checks and their messages are
NumPy's (``np.unravel_index``, ``np.ravel_multi_index``), so the native and the Python VM
versions fail alike.
"""

from __future__ import annotations

from collections.abc import Callable

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import compile_source, numba_funcify
from arignote.tensor.ravel import RavelMultiIndex, UnravelIndex


def _fastest_first(order: str, ndims: int) -> range:
    """The dimensions from the fastest-varying one to the slowest."""
    return range(ndims - 1, -1, -1) if order == "C" else range(ndims)


@numba_funcify.register(UnravelIndex)
def _unravel_index(op: UnravelIndex, node: Apply) -> Callable:
    ndims = len(node.outputs)
    outs = [f"o{d}" for d in range(ndims)]
    # one division per dimension, fastest-varying first (unrolled: the count is static)
    steps = "".join(
        f"        length = np.int64(dims[{d}])\n"
        f"        o{d}.flat[k] = index % length\n"
        "        index //= length\n"
        for d in _fastest_first(op.order, ndims)
    )
    source = (
        "def kernel(indices, dims):\n"
        "    size = np.int64(1)\n"
        f"    for d in range({ndims}):\n"
        "        size *= np.int64(dims[d])\n"
        + "".join(f"    {o} = np.empty(indices.shape, dtype=np.int64)\n" for o in outs)
        + "    k = 0\n"
        "    for value in np.asarray(indices).flat:\n"
        "        index = np.int64(value)\n"
        "        if index < 0 or index >= size:\n"
        "            raise ValueError(\n"
        "                'index ' + str(index) + ' is out of bounds for array with size '\n"
        "                + str(size)\n"
        "            )\n" + steps + "        k += 1\n"
        f"    return ({''.join(o + ', ' for o in outs)})\n"
    )
    return compile_source(source, "kernel", {})


_FIXES = {
    "raise": (
        "if c < 0 or c >= length:\n"
        "            raise ValueError('invalid entry in coordinates array')"
    ),
    "wrap": "c = c % length",  # numba's % of integers is Python's (non-negative for length > 0)
    "clip": "c = min(max(c, np.int64(0)), length - 1)",
}


def _ravel_source(op: RavelMultiIndex, n: int) -> str:
    args = "".join(f"i{d}, " for d in range(n))
    # the coordinate of each dimension, scaled by its stride (unrolled, fastest first)
    steps = "".join(
        f"        length = np.int64(dims[{d}])\n"
        f"        c = np.int64(b{d}[idx])\n"
        f"        {_FIXES[op.mode]}\n"
        "        total += c * stride\n"
        "        stride *= length\n"
        for d in _fastest_first(op.order, n)
    )
    return (
        f"def kernel({args}dims):\n"
        f"    for d in range({n}):\n"
        "        if dims[d] == 0:\n"
        "            raise ValueError('cannot unravel if shape has zero entries (is empty).')\n"
        f"    shape = np.broadcast_shapes({''.join(f'i{d}.shape, ' for d in range(n))})\n"
        # one by one: numba broadcasts several arrays together only when their dtypes agree
        + "".join(f"    b{d} = np.broadcast_to(i{d}, shape)\n" for d in range(n))
        + "    out = np.empty(shape, dtype=np.int64)\n"
        "    k = 0\n"
        "    for idx in np.ndindex(shape):\n"
        "        total = np.int64(0)\n"
        "        stride = np.int64(1)\n" + steps + "        out.flat[k] = total\n"
        "        k += 1\n"
        "    return out\n"
    )


@numba_funcify.register(RavelMultiIndex)
def _ravel_multi_index(op: RavelMultiIndex, node: Apply) -> Callable:
    return compile_source(_ravel_source(op, len(node.inputs) - 1), "kernel", {})
