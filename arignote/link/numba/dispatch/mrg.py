"""Native kernel of ``MRGUniform`` (``arignote/sandbox/rng_py``): the MRG31k3p recurrence
of :mod:`arignote.sandbox.mrg31k3p`, one value at a time.

Value ``i`` comes from stream ``i % n_streams`` (its next step), as in the NumPy version, so a
sequential loop over ``i`` gives the same numbers and the same next state. Products stay below
``2^53`` in int64 (each factor below ``2^31``, multipliers below ``2^23``).
"""

from __future__ import annotations

from collections.abc import Callable

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import BY_NAME, compile_source

# The recurrence's constants (``arignote.sandbox.mrg31k3p``, a layer above this one):
# x1[n] = (2^22 x1[n-2] + (2^7 + 1) x1[n-3]) mod m1, x2[n] = (2^15 x2[n-1] + (2^15 + 1) x2[n-3])
# mod m2; tests/link compare the draws with the sandbox's NumPy version.
M1, M2 = 2147483647, 2147462579
A12, A13, A21, A23 = 1 << 22, (1 << 7) + 1, 1 << 15, (1 << 15) + 1
# u = z / (m1 + 1) in float64; in float32 the float32 z times Theano's float32 constant (the
# largest value must round below 1)
_SCALE = {
    "float64": f"np.float64(z) * {1.0 / (M1 + 1)!r}",
    "float32": "np.float32(z) * np.float32(4.6566126e-10)",
}


def _source(dtype: str, nsizes: int) -> str:
    sizes = "".join(f"s{k}, " for k in range(nsizes))
    shape = "(" + "".join(f"np.int64(s{k}[()]), " for k in range(nsizes)) + ")"
    return (
        f"def kernel(state, {sizes}):\n"
        "    if state.shape[1] != 6 or state.shape[0] == 0:\n"
        "        raise ValueError(\n"
        "            'MRGUniform: bad state shape (' + str(state.shape[0]) + ', '\n"
        "            + str(state.shape[1]) + ')'\n"
        "        )\n"
        f"    shape = {shape}\n"
        "    n = np.int64(1)\n"
        "    for length in shape:\n"
        "        n *= length\n"
        "    if n < 0:\n"
        "        raise ValueError('negative dimensions are not allowed')\n"
        "    states = state.astype(np.int64)\n"
        "    streams = states.shape[0]\n"
        f"    values = np.empty(n, dtype=np.{dtype})\n"
        "    for i in range(n):\n"
        "        s = states[i % streams]\n"
        f"        y1 = ({A12} * s[1] + {A13} * s[2]) % {M1}\n"
        "        s[2] = s[1]\n"
        "        s[1] = s[0]\n"
        "        s[0] = y1\n"
        f"        y2 = ({A21} * s[3] + {A23} * s[5]) % {M2}\n"
        "        s[5] = s[4]\n"
        "        s[4] = s[3]\n"
        "        s[3] = y2\n"
        f"        z = (y1 - y2) % {M1}\n"
        "        if z == 0:\n"
        f"            z = {M1}\n"
        f"        values[i] = {_SCALE[dtype]}\n"
        "    return states.astype(np.int32), values.reshape(shape)\n"
    )


def _mrg_uniform(op, node: Apply) -> Callable:
    return compile_source(_source(op.dtype, len(node.inputs) - 1), "kernel", {})


BY_NAME["arignote.sandbox.rng_mrg.MRGUniform"] = _mrg_uniform
