"""The deliberate differences between arignote and NumPy or PyTensor, with their reasons.

This list is the single source: the differential harness explains differences with it, and
``docs/migration-differences.md`` publishes it (``test_deliberate.py`` checks that every entry
is on that page). An entry matches a difference by its kind, what it is against, the op_db
entries of the program and, where arignote raised, its error message.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import arignote
from arignote.compile.mode import get_mode


@dataclass(frozen=True)
class Deliberate:
    key: str  # short name, used in the harness's summaries and on the documentation page
    reason: str
    kinds: tuple[str, ...]  # value, shape, dtype, raises
    against: tuple[str, ...] = ("numpy", "pytensor")
    entries: tuple[str, ...] = ()  # the program uses one of these op_db entries ("": any)
    error: str | None = None  # a regular expression matching arignote's error message
    detail: str | None = None  # a regular expression matching the difference's description
    program: Callable[[Any], bool] | None = None  # a condition on the realized program
    modes: tuple[str, ...] = ()  # the arignote modes it applies to ("": all of them)

    def matches(self, diff, realized) -> bool:
        if diff.kind not in self.kinds or diff.against not in self.against:
            return False
        if self.modes and diff.mode not in self.modes:
            return False
        if self.program is not None and (realized is None or not self.program(realized)):
            return False
        if self.entries and not set(self.entries) & set(diff.entries):
            return False
        if self.detail is not None and re.search(self.detail, diff.detail) is None:
            return False
        return self.error is None or re.search(self.error, diff.error or "") is not None


# where the op_db entries of linear algebra are defined (their ops, or the functions they call)
_LINALG_MODULES = ("arignote.tensor.linalg", "tests.op_db.linalg", "tests.op_db.matrix_equations")


def _is_linalg(info) -> bool:
    owners = (info.op_class, info.build, getattr(info.build, "scalar_op", None))
    return any((getattr(o, "__module__", None) or "").startswith(_LINALG_MODULES) for o in owners)


def _small_discrete(value) -> bool:
    dtype = np.asarray(value).dtype
    return dtype.kind == "b" or (dtype.kind in "iu" and dtype.itemsize <= 2)


def linalg_of_small_types(realized) -> bool:
    """Whether a linear-algebra step of the program takes booleans or 8/16-bit integers."""
    table = {"in": realized.input_values, "val": [value for _, value in realized.values]}
    for info, _, specs, _ in realized.plan:
        args = [table[kind][k] for kind, k in specs if kind != "lit"]
        if _is_linalg(info) and any(_small_discrete(a) for a in args):
            return True
    return False


def _close(got, expected) -> bool:
    got, expected = np.asarray(got), np.asarray(expected)
    if got.shape != expected.shape:
        return False
    loose = np.result_type(got.dtype, expected.dtype) in (np.float16, np.float32, np.complex64)
    rtol, atol = (1e-3, 1e-4) if loose else (1e-6, 1e-8)
    with np.errstate(all="ignore"):
        return bool(np.all(np.isclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)))


def _agrees_with_numpy(realized, mode) -> bool:
    outputs = [realized.values[j][0] for j in realized.outputs]
    expected = [realized.values[j][1] for j in realized.outputs]
    fn = arignote.function(realized.inputs, outputs, mode=mode, on_unused_input="ignore")
    with np.errstate(all="ignore"):
        got = fn(*[v.copy() for v in realized.input_values])
    return all(_close(g, e) for g, e in zip(got, expected))


def cancellation_explains(realized) -> bool:
    """Whether FAST_RUN differs from NumPy's outputs and FAST_RUN without the "cancel"
    rewrites (``x * y / y -> x``) gives them: the difference is then the cancellation's
    (computed once per program)."""
    cached = getattr(realized, "cancellation_explains", None)
    if cached is None:
        fast_run = get_mode("FAST_RUN")
        try:
            cached = not _agrees_with_numpy(realized, fast_run) and _agrees_with_numpy(
                realized, fast_run.excluding("cancel")
            )
        except Exception:
            cached = False
        realized.cancellation_explains = cached
    return cached


# where rewriting made a number of NumPy's NaN (the only change cancellation can make)
_NUMBER_FOR_NAN = r"^output \d+: values differ: .* != np\.\w+\(\(?nan"

DELIBERATE: tuple[Deliberate, ...] = (
    Deliberate(
        "runtime-broadcasting",
        "A dimension broadcasts only where its static type says its length is 1 (PyTensor 3's "
        "rule, checked in every mode): a length that is 1 only at run time is an error against "
        "any other length, 0 included, where NumPy would broadcast. The gradient needs to know "
        "statically which dimensions to sum over. Use specify_broadcastable or a static shape.",
        kinds=("raises",),
        error=r"[Rr]untime broadcasting is not allowed|only dimensions of static length 1 may be "
        r"broadcast|does not declare that dimension broadcastable|Alloc: cannot broadcast a value"
        r"|batch dimensions of A .* and B .* do not match|batch dimensions of the inputs do not "
        r"match",
    ),
    Deliberate(
        "integer-rounding-dtype",
        "floor, ceil and trunc of integers keep the integer dtype, as NumPy 2 does; PyTensor "
        "returns float64.",
        kinds=("dtype",),
        against=("pytensor",),
        entries=("floor", "ceil", "trunc"),
    ),
    Deliberate(
        "squeeze-static",
        "squeeze() without axes removes the dimensions whose static length is 1, as PyTensor "
        "does: the output's rank must be known when the graph is built. NumPy also removes "
        "dimensions that have length 1 only at run time.",
        kinds=("shape",),
        against=("numpy",),
        entries=("squeeze",),
    ),
    Deliberate(
        "small-integer-exp-float16",
        "Elementwise functions of booleans and 8-bit integers (and softmax, log_softmax, "
        "logsumexp) compute in float16, the dtype NumPy's ufuncs give them; references built "
        "on scipy.special compute them in float64.",
        kinds=("dtype",),
        against=("numpy",),
        detail="dtype float16 != float64",
    ),
    Deliberate(
        "factorial-exact-int64",
        "factorial_exact computes in int64: above 20! it raises OverflowError, where SciPy's "
        "factorial(exact=True) returns Python integers.",
        kinds=("raises",),
        against=("numpy",),
        entries=("factorial_exact",),
        error="Python int too large to convert to C long",
    ),
    Deliberate(
        "bincount-empty-weights-dtype",
        "bincount with weights returns float64 (the dtype of a sum of weights) even when x is "
        "empty; NumPy returns int64 in that one case.",
        kinds=("dtype",),
        against=("numpy",),
        entries=("bincount",),
        detail="dtype float64 != int64",
    ),
    Deliberate(
        "complex-of-small-types",
        "complex(re, im) and complex_from_polar(abs, angle) of booleans and integers of 8 or "
        "16 bits are complex64 (the complex type of the float type NumPy gives them); the "
        "references re + 1j * im and abs * exp(1j * angle) are complex128.",
        kinds=("dtype",),
        against=("numpy",),
        entries=("complex", "complex_from_polar"),
        detail="dtype complex64 != complex128",
    ),
    Deliberate(
        "complex-of-infinite-parts",
        "complex(re, im) builds re + i im exactly, also when im is infinite; the reference "
        "re + 1j * im multiplies 1j by inf, which makes the real part NaN (0 * inf).",
        kinds=("value",),
        against=("numpy",),
        entries=("complex",),
        detail=r"inf.*!= .*nan",
    ),
    Deliberate(
        "factorial-of-nothing-dtype",
        "factorial of an empty array is float64, as for any other array; scipy.special's "
        "factorial returns int64 for empty integer arrays only.",
        kinds=("dtype",),
        against=("numpy",),
        entries=("factorial",),
        detail="dtype float64 != int64",
    ),
    Deliberate(
        "segment-sum-keeps-dtype",
        "SegmentSum (the op of repeat's gradient) keeps its input's dtype; NumPy's "
        "add.reduceat promotes booleans to int64.",
        kinds=("dtype",),
        against=("numpy",),
        entries=("SegmentSum",),
        detail="dtype bool != int64",
    ),
    Deliberate(
        "linalg-of-small-types",
        "Linear algebra of booleans and 8- or 16-bit integers computes in float64 (complex128), "
        "as numpy.linalg does, for every linear-algebra op; scipy.linalg's LAPACK wrappers and "
        "PyTensor pick float32 (complex64) for them.",
        kinds=("dtype",),
        detail=r"dtype (float64 != float32|complex128 != complex64)",
        program=linalg_of_small_types,
    ),
    Deliberate(
        "pooling-keeps-the-dtype",
        "Max and sum pooling (pool_2d, pool_3d, max_pool_2d_same_size) keep the input's dtype, "
        "as PyTensor's Pool does: the maximum of integers is an integer, and booleans pool to "
        "their logical or. The op database's NumPy references pad with -inf and compute in "
        "float64.",
        kinds=("dtype",),
        against=("numpy",),
        entries=(
            "pool_2d[max]",
            "pool_2d[sum]",
            "pool_3d",
            "downsample.max_pool_2d",
            "max_pool_2d_same_size",
        ),
        detail=r"dtype (bool|u?int\d+) != float64",
    ),
    Deliberate(
        "svd-full-gradient-non-square",
        "The gradient through U or Vh of svd(full_matrices=True) of a non-square matrix is "
        "undefined (its extra singular vectors are not unique): refused when the graph is built "
        "where the shape is known, a ValueError naming the cause when it runs otherwise; finite "
        "differences of LAPACK's arbitrary choice are no reference. Use full_matrices=False.",
        kinds=("raises",),
        entries=("svd",),
        error=r"svd\(full_matrices=True\): the gradient through U or Vh of a non-square",
    ),
    Deliberate(
        "qr-complete-gradient-tall",
        "The gradient of qr(mode='complete') of a matrix with more rows than columns is "
        "undefined (the extra columns of Q are not unique): refused when the graph is built "
        "where the shape is known, a ValueError naming the cause when it runs otherwise. "
        "mode='reduced' and mode='r' are differentiable for every shape.",
        kinds=("raises",),
        entries=("qr",),
        error=r"qr\(mode='complete'\): the gradient of a matrix with more rows than columns",
    ),
    Deliberate(
        "singular-matrix-equation",
        "solve_sylvester and solve_continuous_lyapunov raise LinAlgError ('Singular matrix') "
        "when the equation has no unique solution (A and -B share an eigenvalue): arignote "
        "solves its Kronecker form, a singular system. SciPy's Bartels-Stewart solver "
        "perturbs the coefficients instead and returns one solution among many, with a "
        "RuntimeWarning.",
        kinds=("raises",),
        entries=("solve_sylvester", "solve_continuous_lyapunov"),
        error=r"Singular matrix",
    ),
    Deliberate(
        "gradient-has-the-input-dtype",
        "A gradient has the dtype of the variable it is taken with respect to (float64 for a "
        "float64 input cast to float32 on the way); PyTensor gives it the dtype of the cast.",
        kinds=("dtype",),
        against=("pytensor",),
        entries=("cast", "astype"),
        detail=r"^gradient \d+: dtype float64 != float32",
    ),
    Deliberate(
        "cancel-common-factors",
        "FAST_RUN (and the default mode) cancel a factor that appears above and below a "
        "division, x * y / y -> x and x / x -> 1, as PyTensor's FAST_RUN does: exact for every "
        "y but 0, inf and NaN, where NumPy gives NaN and the rewritten graph a number. "
        'mode.excluding("cancel") keeps those NaNs.',
        kinds=("value", "modes"),
        against=("numpy", "modes"),
        detail=_NUMBER_FOR_NAN,
        program=cancellation_explains,
        modes=("FAST_RUN", "default", "py_linker"),
    ),
)

# Defects found by the harness and not fixed yet: reported, so that they stay visible, and
# explained here so that CI stays green meanwhile. Each names the regression test to write.
KNOWN_DEFECTS: tuple[Deliberate, ...] = ()


PYTENSOR_DIFFERS = "pytensor-differs-from-numpy"


def explain(diff, realized) -> str | None:
    """The key of the deliberate difference that explains ``diff``, or None.

    A difference with PyTensor where arignote agrees with NumPy (and, for gradients, with
    finite differences) is PyTensor's: it is explained as ``pytensor-differs-from-numpy``.
    """
    found = next((d.key for d in DELIBERATE + KNOWN_DEFECTS if d.matches(diff, realized)), None)
    if found is None and getattr(diff, "pytensor_differs_from_numpy", False):
        return PYTENSOR_DIFFERS
    return found
