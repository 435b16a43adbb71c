"""Edge-case samples derived from every op_db entry: 0-d and zero-length versions of its samples.

``test_op_db_edges.py`` runs them: where NumPy's reference accepts the derived arguments and the
graph builds, the compiled function must run, return arrays of the declared types, and agree
with the reference.
"""

from __future__ import annotations

import numpy as np

from tests.op_db.core import OpInfo, Sample

# Entries left out of the sweeps, and why.
EXEMPT = {
    "Assert": "a check raises on inputs its condition refuses; the identity reference cannot",
    "CheckAndRaise": "a check raises on inputs its condition refuses; the identity reference "
    "cannot",
    "empty": "uninitialized values",
    "empty_like": "uninitialized values",
    "wrap_jax": "the entry fixes its input shapes (specify_shape): wrap_jax needs static shapes",
}

# (entry, derived sample name): the derived arguments are invalid for arignote, for the reason
# given, although the NumPy reference accepts them. For the first ones below the derived
# arguments are no valid call at all (the reference accepts them only because it never looks
# at them): arignote raises, as it should.
ZERO_WIDTH_KERNEL = (
    "the kernels cut to width 0 are for the sample's output positions, an input of width 0 "
    "gives one column: arignote raises naming both shapes (the reference loop never reads them)"
)
NOT_SQUARE = (
    "A and B cut to (0, n) or (n, 0) are not square: arignote raises; SciPy checks squareness "
    "only of non-empty matrices"
)
ILL_SHAPED_BODY = (
    "the non-sequences cut to length 0 no longer fit the step function (u of (0, 4) against "
    "rows of 3; w of 0 against rows of 3): the reference loop runs it on no step and never "
    "notices; arignote's rewrites hoist dot(x, u) out of the loop (it raises), map's output "
    "takes the rows' length (0, 3) where the reference's reshape says (0, 0)"
)

NOT_SQUARE_LU = (
    "a (0, n) or (n, 0) matrix is not square: arignote's LU ops (as PyTensor's) take square "
    "matrices and refuse it at run time, where SciPy factors rectangular ones"
)

REFUSED = {
    ("lu", "plain-0len"): NOT_SQUARE_LU,
    ("lu", "plain-0last"): NOT_SQUARE_LU,
    ("lu", "p_indices-0len"): NOT_SQUARE_LU,
    ("lu", "p_indices-0last"): NOT_SQUARE_LU,
    ("lu", "permute_l-0len"): NOT_SQUARE_LU,
    ("lu", "permute_l-0last"): NOT_SQUARE_LU,
    ("lu", "batched-0last"): NOT_SQUARE_LU,
    ("lu_factor", "plain-0len"): NOT_SQUARE_LU,
    ("lu_factor", "plain-0last"): NOT_SQUARE_LU,
    ("lu_solve", "matrix-0len"): NOT_SQUARE_LU,
    ("lu_solve", "matrix-0last"): NOT_SQUARE_LU,
    ("lu_solve", "transposed-vector-0len"): NOT_SQUARE_LU,
    ("conv2d[unshared]", "valid-0last"): ZERO_WIDTH_KERNEL,
    ("conv2d[unshared]", "half-stride-corr-0last"): ZERO_WIDTH_KERNEL,
    ("solve_sylvester", "3x2-0len"): NOT_SQUARE,
    ("solve_sylvester", "3x2-0last"): NOT_SQUARE,
    ("scan[rnn]", "rnn-0len"): ILL_SHAPED_BODY,
    ("map", "-0len"): ILL_SHAPED_BODY,
    ("foldr", "-0len"): "a0 cut to length 0 no longer fits the rows of 2 of x: the fold of no "
    "step returns it, but its gradient fails on the mismatch (the valid fold of zero steps is "
    "tested in tests/differential/test_edge_regressions.py)",
    (
        "Assert",
        "matrix-0d",
    ): "the entry's check requires a non-empty first axis: raising is its job",
    (
        "Assert",
        "matrix-0len",
    ): "the entry's check requires a non-empty first axis: raising is its job",
    (
        "Assert",
        "vector-0d",
    ): "the entry's check requires a non-empty first axis: raising is its job",
    (
        "Assert",
        "vector-0len",
    ): "the entry's check requires a non-empty first axis: raising is its job",
    (
        "Assert",
        "vector-0last",
    ): "the entry's check requires a non-empty first axis: raising is its job",
    (
        "CheckAndRaise",
        "matrix-0d",
    ): "the entry's check requires a non-empty first axis: raising is its job",
    (
        "CheckAndRaise",
        "matrix-0len",
    ): "the entry's check requires a non-empty first axis: raising is its job",
    (
        "CheckAndRaise",
        "vector-0d",
    ): "the entry's check requires a non-empty first axis: raising is its job",
    (
        "CheckAndRaise",
        "vector-0len",
    ): "the entry's check requires a non-empty first axis: raising is its job",
    (
        "CheckAndRaise",
        "vector-0last",
    ): "the entry's check requires a non-empty first axis: raising is its job",
    ("AllocDiag", "wide-0len"): "the sample's static offset and shape need a diagonal of 3",
    ("AllocDiag", "wide-0last"): "the sample's static offset and shape need a diagonal of 3",
    ("AllocDiag", "batched-0last"): "the sample's static offset and shape need a diagonal of 3",
    ("split", "uneven-0len"): "the split lengths sum to 6, not 0",
    ("split", "empty-piece-0last"): "the split lengths sum to 5, not 0",
    ("split", "symbolic-0last"): "the split lengths sum to 7, not 0",
    ("pinv", "hermitian-0len"): "hermitian=True needs a square matrix; (0, 4) is not",
    ("pinv", "hermitian-0last"): "hermitian=True needs a square matrix; (4, 0) is not",
    ("einsum", "ii->i-0len"): "'ii' needs a square operand; (0, 4) is not",
    ("specify_shape", "3x4-0len"): "the declared length 3 is checked at run time",
    ("specify_broadcastable", "1x4x1-0len"): "the declared length 1 is checked at run time",
    ("specify_broadcastable", "1x4x1-0last"): "the declared length 1 is checked at run time",
}


def _derive(sample: Sample, suffix: str, convert) -> Sample | None:
    args, changed = [], False
    for position, arg in enumerate(sample.args):
        if isinstance(arg, np.ndarray) and position not in sample.static and arg.ndim > 0:
            arg, changed = convert(arg), True
        args.append(arg)
    if not changed:
        return None
    return Sample(tuple(args), sample.kwargs, f"{sample.name}-{suffix}", sample.static)


def zero_d(sample: Sample) -> Sample | None:
    """Every array argument replaced by its first element, as a 0-d array."""
    return _derive(sample, "0d", lambda a: np.asarray(a.reshape(-1)[0] if a.size else a.sum()))


def zero_length_first(sample: Sample) -> Sample | None:
    """Every array argument cut to length 0 along its first dimension."""
    return _derive(sample, "0len", lambda a: a[:0])


def zero_length_last(sample: Sample) -> Sample | None:
    """Every array argument cut to length 0 along its last dimension."""
    return _derive(sample, "0last", lambda a: a[..., :0])


DERIVATIONS = {"0d": zero_d, "0len": zero_length_first, "0last": zero_length_last}


def swept(info: OpInfo) -> bool:
    return info.name not in EXEMPT and not info.name.startswith("random.")
