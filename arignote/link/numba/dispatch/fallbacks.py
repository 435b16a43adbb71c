"""The one registry of ops that run their ``perform`` in object mode under the Numba backend.

Keys are op class names (for elementwise ops and reductions: the scalar op class), values the
reason. ``tests/link/test_numba_op_db.py`` fails on any object-mode node of the op database
whose key is not here, and on a key no entry needs any more, so the list is exact.

Loops and inner graphs (``Scan``, ``IndexMap``, ``OpFromGraph``) have no key: they are always
native, and an inner node of theirs without a native kernel runs in object mode inside the
native loop, reported under that node's own key (``basic.InnerObjectMode``). A graph holding a
value native code cannot take (float16, a slice made by ``make_slice`` and returned as is),
inner graphs included, runs on the VM as a whole, so such ops have no key either.
"""

from __future__ import annotations

from arignote.link.numba.dispatch.scipy_special import COMPLEX_CALLS, COMPLEX_CALLS_REASON

_COMPLEX_SPECIAL = ["Erf", "Erfc", "Erfcx", "Gamma", "Psi"]

FALLBACKS: dict[str, str] = {
    # scalar ops inside Elemwise (the whole elementwise node falls back)
    # SciPy's complex erf, erfc, erfcx, gamma and psi where numba's convention for passing
    # C complex values by value is not verified (dispatch/scipy_special.py)
    **({} if COMPLEX_CALLS else dict.fromkeys(_COMPLEX_SPECIAL, COMPLEX_CALLS_REASON)),
    **dict.fromkeys(
        ["RFFTOp", "IRFFTOp"],
        "numba has no FFT (np.fft is not supported in nopython mode): perform in object mode",
    ),
    "DefaultGeneratorMakerOp": "makes a Python Generator object: perform in object mode",
    "JAXOp": "a wrapped JAX function (wrap_jax): runs through jax.jit, not numba",
    "Print": "its point is calling global_fn (by default Python's print of the value's "
    "attributes), an arbitrary Python callable: perform runs in object mode, the value "
    "passes through unchanged",
    # tensor.optimize: the solvers are SciPy's Python routines calling back into the graph
    **dict.fromkeys(
        ["MinimizeOp", "MinimizeScalarOp", "RootOp", "RootScalarOp"],
        "calls SciPy's optimisers (scipy.optimize.minimize, minimize_scalar, root, "
        "root_scalar), Python code that numba cannot compile: runs perform in object mode",
    ),
}
