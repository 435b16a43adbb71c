"""Programs on which the differential harness found differences, replayed (issue 17).

Each failed before its fix (or before its deliberate difference was listed with a reason); the
comment says which. They run without PyTensor; the PyTensor-only ones are in
``test_pytensor_defects.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

import arignote
import arignote.tensor as pt
from arignote.tensor import linalg
from tests.differential.compare import check_program, describe
from tests.differential.programs import Program, Step

PROGRAMS = [
    # minimize_scalar of a boolean (zero) curvature: the op-db problem was unbounded below
    Program(
        steps=(
            Step(
                entry="optimize.minimize_scalar",
                sample=1,
                variant="bool",
                feeds=(),
                shapes="runtime",
            ),
        ),
        grad_of=None,
    ),
    Program(
        steps=(
            Step(entry="max_and_argmax", sample=1, variant="plain", feeds=(-1,), shapes="runtime"),
            Step(entry="factorial", sample=7, variant="0len", feeds=(5,), shapes="full"),
        ),
        grad_of=4,
    ),
    Program(
        steps=(
            Step(entry="join", sample=3, variant="plain", feeds=(-1,), shapes="ones"),
            Step(entry="svd", sample=3, variant="plain", feeds=(4,), shapes="ones"),
        ),
        grad_of=3,
    ),
    Program(
        steps=(
            Step(entry="broadcast_shape", sample=3, variant="plain", feeds=(), shapes="runtime"),
            Step(entry="take_along_axis", sample=1, variant="plain", feeds=(5, 4), shapes="ones"),
        ),
        grad_of=None,
    ),
    Program(
        steps=(
            Step(entry="bincount", sample=1, variant="0len", feeds=(), shapes="runtime"),
            Step(entry="angle", sample=2, variant="0last", feeds=(0,), shapes="ones"),
            Step(entry="sin", sample=5, variant="plain", feeds=(3, 2, 2), shapes="ones"),
        ),
        grad_of=None,
    ),
    Program(
        steps=(
            Step(entry="round_modes", sample=0, variant="plain", feeds=(-1,), shapes="runtime"),
            Step(entry="qr", sample=3, variant="0len", feeds=(5, -1, -1), shapes="full"),
        ),
        grad_of=2,
    ),
    Program(
        steps=(
            Step(entry="SegmentSum", sample=0, variant="bool", feeds=(-1, -1), shapes="runtime"),
            Step(entry="cho_solve", sample=7, variant="plain", feeds=(), shapes="full"),
        ),
        grad_of=1,
    ),
    Program(
        steps=(
            Step(entry="argmax", sample=2, variant="plain", feeds=(-1, -1), shapes="ones"),
            Step(entry="factorial", sample=7, variant="0last", feeds=(4, 3), shapes="runtime"),
            Step(entry="betaln", sample=4, variant="plain", feeds=(), shapes="runtime"),
        ),
        grad_of=6,
    ),
    Program(
        steps=(
            Step(entry="solve", sample=3, variant="plain", feeds=(-1, -1), shapes="runtime"),
            Step(entry="conj", sample=4, variant="bool", feeds=(4,), shapes="runtime"),
        ),
        grad_of=7,
    ),
    Program(
        steps=(
            Step(entry="broadcast_shape", sample=6, variant="0len", feeds=(), shapes="runtime"),
            Step(entry="eigvalsh", sample=3, variant="plain", feeds=(5, 5), shapes="runtime"),
        ),
        grad_of=None,
    ),
    Program(
        steps=(
            Step(entry="fmod", sample=6, variant="0d", feeds=(), shapes="ones"),
            Step(entry="factorial", sample=3, variant="0last", feeds=(3,), shapes="ones"),
            Step(entry="factorial", sample=4, variant="plain", feeds=(0, 2, 3), shapes="full"),
            Step(entry="eig", sample=2, variant="plain", feeds=(1,), shapes="full"),
        ),
        grad_of=None,
    ),
    Program(
        steps=(
            Step(entry="min", sample=6, variant="plain", feeds=(-1,), shapes="ones"),
            Step(
                entry="round_half_away_from_zero",
                sample=7,
                variant="plain",
                feeds=(5, 5, 6),
                shapes="runtime",
            ),
            Step(entry="zeros_like[dtype]", sample=5, variant="plain", feeds=(0,), shapes="full"),
            Step(entry="where", sample=1, variant="plain", feeds=(5,), shapes="ones"),
        ),
        grad_of=None,
    ),
    Program(
        steps=(Step(entry="cho_solve", sample=7, variant="bool", feeds=(-1,), shapes="runtime"),),
        grad_of=1,
    ),
    Program(
        steps=(
            Step(
                entry="broadcast_arrays",
                sample=3,
                variant="plain",
                feeds=(-1, -1),
                shapes="runtime",
            ),
            Step(entry="beta", sample=1, variant="plain", feeds=(7, 2, 6), shapes="full"),
        ),
        grad_of=2,
    ),
    Program(
        steps=(Step(entry="bincount", sample=1, variant="0len", feeds=(), shapes="ones"),),
        grad_of=None,
    ),
    Program(
        steps=(
            Step(entry="broadcast_arrays", sample=0, variant="plain", feeds=(), shapes="runtime"),
        ),
        grad_of=None,
    ),
    Program(
        steps=(
            Step(
                entry="broadcast_shape",
                sample=0,
                variant="bool",
                feeds=(-1, -1, -1),
                shapes="runtime",
            ),
            Step(entry="and_", sample=7, variant="plain", feeds=(), shapes="ones"),
            Step(entry="squeeze", sample=3, variant="plain", feeds=(-1, 2), shapes="ones"),
            Step(entry="sqr", sample=3, variant="plain", feeds=(), shapes="runtime"),
        ),
        grad_of=2,
    ),
    Program(
        steps=(
            Step(entry="complex", sample=5, variant="bool", feeds=(-1, -1, -1), shapes="ones"),
            Step(entry="matmul", sample=2, variant="plain", feeds=(7, -1), shapes="ones"),
            Step(entry="clip", sample=0, variant="0d", feeds=(), shapes="ones"),
            Step(entry="full_like", sample=1, variant="bool", feeds=(1, 3), shapes="runtime"),
        ),
        grad_of=None,
    ),
    Program(
        steps=(
            Step(entry="isfinite", sample=2, variant="plain", feeds=(-1, -1, -1), shapes="runtime"),
            Step(entry="eq", sample=2, variant="int", feeds=(5, 0, 4), shapes="full"),
            Step(entry="squeeze", sample=6, variant="0len", feeds=(1,), shapes="runtime"),
        ),
        grad_of=None,
    ),
    Program(
        steps=(
            Step(entry="stack", sample=2, variant="int", feeds=(-1,), shapes="ones"),
            Step(entry="logsumexp", sample=7, variant="bool", feeds=(3, 7), shapes="full"),
        ),
        grad_of=7,
    ),
    # from the second long run (seed 2027)
    Program(
        steps=(
            Step(entry="any", sample=1, variant="0len", feeds=(-1,), shapes="ones"),
            Step(entry="flip", sample=6, variant="0len", feeds=(5, 2, 0), shapes="full"),
            Step(entry="cho_solve", sample=2, variant="bool", feeds=(1,), shapes="ones"),
            Step(entry="tanh", sample=4, variant="plain", feeds=(2, 7), shapes="runtime"),
        ),
        grad_of=None,
    ),
    Program(
        steps=(
            Step(entry="block_diag", sample=4, variant="plain", feeds=(-1, -1), shapes="runtime"),
            Step(entry="eye", sample=5, variant="int", feeds=(-1, 2), shapes="runtime"),
            Step(entry="softplus", sample=0, variant="bool", feeds=(-1, 3), shapes="full"),
            Step(entry="var", sample=7, variant="0last", feeds=(2, 3, 1), shapes="ones"),
        ),
        grad_of=None,
    ),
    Program(
        steps=(
            Step(entry="cast", sample=5, variant="plain", feeds=(), shapes="full"),
            Step(entry="take", sample=7, variant="plain", feeds=(), shapes="ones"),
        ),
        grad_of=6,
    ),
    Program(
        steps=(
            Step(entry="cho_solve", sample=1, variant="bool", feeds=(-1, -1), shapes="runtime"),
            Step(entry="xlog1py", sample=7, variant="int", feeds=(6, 1), shapes="runtime"),
            Step(entry="gammaln", sample=1, variant="0len", feeds=(-1, 7), shapes="ones"),
            Step(entry="divmod", sample=1, variant="0d", feeds=(), shapes="full"),
        ),
        grad_of=3,
    ),
    Program(
        steps=(Step(entry="cho_solve", sample=5, variant="bool", feeds=(), shapes="full"),),
        grad_of=None,
    ),
    Program(
        steps=(Step(entry="cho_solve", sample=5, variant="bool", feeds=(-1, -1), shapes="full"),),
        grad_of=None,
    ),
    Program(
        steps=(
            Step(entry="cholesky", sample=4, variant="plain", feeds=(-1, -1, -1), shapes="runtime"),
            Step(entry="softplus", sample=7, variant="bool", feeds=(7, 2, 3), shapes="runtime"),
            Step(entry="repeat", sample=0, variant="plain", feeds=(4, 0), shapes="full"),
            Step(entry="min", sample=5, variant="bool", feeds=(2, 5), shapes="runtime"),
        ),
        grad_of=2,
    ),
    Program(
        steps=(
            Step(
                entry="clip_open_bound",
                sample=7,
                variant="0last",
                feeds=(-1, -1, -1),
                shapes="full",
            ),
            Step(entry="erf", sample=4, variant="plain", feeds=(2,), shapes="runtime"),
            Step(entry="cho_solve", sample=3, variant="bool", feeds=(1, 6), shapes="full"),
            Step(entry="expm1", sample=2, variant="plain", feeds=(5,), shapes="runtime"),
        ),
        grad_of=6,
    ),
    Program(
        steps=(
            Step(entry="complex", sample=6, variant="0last", feeds=(-1, -1), shapes="ones"),
            Step(entry="slogdet", sample=4, variant="plain", feeds=(1,), shapes="full"),
            Step(entry="softplus", sample=6, variant="bool", feeds=(3,), shapes="full"),
            Step(entry="exp", sample=5, variant="int", feeds=(2, -1), shapes="runtime"),
        ),
        grad_of=7,
    ),
    Program(
        steps=(
            Step(entry="eig", sample=4, variant="plain", feeds=(-1,), shapes="runtime"),
            Step(entry="qr", sample=2, variant="0len", feeds=(), shapes="runtime"),
        ),
        grad_of=6,
    ),
    Program(
        steps=(
            Step(entry="eigvalsh", sample=5, variant="plain", feeds=(), shapes="ones"),
            Step(entry="solve_triangular", sample=7, variant="bool", feeds=(3, 0), shapes="full"),
            Step(entry="erf", sample=2, variant="plain", feeds=(), shapes="runtime"),
            Step(entry="erfinv", sample=1, variant="plain", feeds=(), shapes="ones"),
        ),
        grad_of=5,
    ),
    Program(
        steps=(
            Step(entry="erf", sample=4, variant="0len", feeds=(-1, -1, -1), shapes="runtime"),
            Step(entry="solve_triangular", sample=7, variant="bool", feeds=(), shapes="ones"),
        ),
        grad_of=5,
    ),
    Program(
        steps=(
            Step(entry="fliplr", sample=5, variant="plain", feeds=(-1,), shapes="ones"),
            Step(entry="matmul", sample=2, variant="int", feeds=(7, -1, 7), shapes="runtime"),
            Step(entry="logaddexp", sample=2, variant="0len", feeds=(1, 7, 5), shapes="ones"),
            Step(entry="exp2", sample=7, variant="plain", feeds=(1, -1, 3), shapes="ones"),
        ),
        grad_of=7,
    ),
    Program(
        steps=(
            Step(entry="float_power", sample=7, variant="0last", feeds=(), shapes="ones"),
            Step(
                entry="solve_triangular", sample=7, variant="bool", feeds=(-1, 3), shapes="runtime"
            ),
        ),
        grad_of=1,
    ),
    Program(
        steps=(
            Step(entry="gcd", sample=4, variant="plain", feeds=(-1, -1), shapes="full"),
            Step(entry="solve", sample=4, variant="int", feeds=(), shapes="full"),
            Step(entry="factorial_exact", sample=2, variant="plain", feeds=(2, 7), shapes="full"),
            Step(entry="fmod", sample=1, variant="plain", feeds=(3, 5, 0), shapes="ones"),
        ),
        grad_of=7,
    ),
    Program(
        steps=(
            Step(
                entry="getitem[advanced1]",
                sample=4,
                variant="plain",
                feeds=(-1, -1, -1),
                shapes="runtime",
            ),
            Step(entry="qr", sample=1, variant="0len", feeds=(), shapes="runtime"),
            Step(entry="i0", sample=2, variant="0d", feeds=(1, 5), shapes="runtime"),
        ),
        grad_of=1,
    ),
    Program(
        steps=(
            Step(
                entry="getitem[symbolic_slice]", sample=5, variant="int", feeds=(), shapes="runtime"
            ),
            Step(
                entry="solve_triangular",
                sample=3,
                variant="bool",
                feeds=(-1, 4, 6),
                shapes="runtime",
            ),
            Step(entry="sigmoid", sample=6, variant="0last", feeds=(0, 0, 4), shapes="runtime"),
            Step(entry="diag", sample=4, variant="0last", feeds=(5,), shapes="full"),
        ),
        grad_of=6,
    ),
    Program(
        steps=(
            Step(entry="log", sample=1, variant="plain", feeds=(-1,), shapes="full"),
            Step(entry="minimum", sample=0, variant="0d", feeds=(0,), shapes="full"),
            Step(entry="bincount", sample=1, variant="0len", feeds=(0, 5, 5), shapes="full"),
            Step(entry="arccos", sample=0, variant="0last", feeds=(5,), shapes="full"),
        ),
        grad_of=None,
    ),
    Program(
        steps=(
            Step(entry="log10", sample=4, variant="0last", feeds=(-1,), shapes="ones"),
            Step(entry="sigmoid", sample=0, variant="plain", feeds=(5, 5, 7), shapes="ones"),
            Step(entry="softplus", sample=2, variant="bool", feeds=(2, 1), shapes="runtime"),
            Step(entry="isclose", sample=6, variant="bool", feeds=(5, 4, 4), shapes="full"),
        ),
        grad_of=4,
    ),
    Program(
        steps=(
            Step(entry="matmul", sample=2, variant="plain", feeds=(), shapes="runtime"),
            Step(entry="std", sample=0, variant="plain", feeds=(1, -1), shapes="full"),
            Step(entry="block_diag", sample=6, variant="plain", feeds=(), shapes="full"),
            Step(entry="atleast_1d", sample=3, variant="plain", feeds=(), shapes="full"),
        ),
        grad_of=None,
    ),
    Program(
        steps=(
            Step(entry="matmul", sample=3, variant="plain", feeds=(-1,), shapes="runtime"),
            Step(entry="pinv", sample=4, variant="int", feeds=(6, 2, 4), shapes="ones"),
            Step(entry="round_modes", sample=1, variant="0d", feeds=(4,), shapes="ones"),
            Step(entry="pow", sample=4, variant="plain", feeds=(0,), shapes="runtime"),
        ),
        grad_of=None,
    ),
    Program(
        steps=(
            Step(entry="matmul", sample=5, variant="plain", feeds=(-1, -1), shapes="runtime"),
            Step(entry="factorial", sample=1, variant="0d", feeds=(0, 4, -1), shapes="ones"),
            Step(entry="isclose", sample=5, variant="bool", feeds=(3,), shapes="full"),
            Step(entry="cho_solve", sample=7, variant="bool", feeds=(6, 3), shapes="full"),
        ),
        grad_of=4,
    ),
    Program(
        steps=(
            Step(entry="softplus", sample=0, variant="bool", feeds=(-1, -1), shapes="runtime"),
            Step(entry="expm1", sample=4, variant="int", feeds=(6, 5), shapes="ones"),
            Step(entry="real", sample=4, variant="plain", feeds=(0, 4, 1), shapes="ones"),
            Step(entry="expm1", sample=2, variant="plain", feeds=(), shapes="ones"),
        ),
        grad_of=2,
    ),
    Program(
        steps=(
            Step(entry="softplus", sample=1, variant="bool", feeds=(), shapes="ones"),
            Step(entry="getitem[basic]", sample=2, variant="plain", feeds=(1, 6), shapes="full"),
            Step(entry="bincount", sample=0, variant="bool", feeds=(2,), shapes="runtime"),
        ),
        grad_of=3,
    ),
    Program(
        steps=(
            Step(entry="softplus", sample=4, variant="bool", feeds=(), shapes="full"),
            Step(entry="max[int]", sample=5, variant="plain", feeds=(3,), shapes="full"),
            Step(
                entry="shape_padleft", sample=1, variant="0last", feeds=(3, 1, 3), shapes="runtime"
            ),
        ),
        grad_of=None,
    ),
    Program(
        steps=(Step(entry="softplus", sample=4, variant="bool", feeds=(), shapes="ones"),),
        grad_of=6,
    ),
    Program(
        steps=(
            Step(entry="softplus", sample=4, variant="bool", feeds=(-1, -1, -1), shapes="runtime"),
            Step(entry="atleast_2d", sample=1, variant="int", feeds=(), shapes="ones"),
        ),
        grad_of=None,
    ),
    Program(
        steps=(Step(entry="squeeze", sample=6, variant="0len", feeds=(), shapes="runtime"),),
        grad_of=0,
    ),
    Program(
        steps=(
            Step(entry="sin", sample=2, variant="0d", feeds=(), shapes="ones"),
            Step(entry="logit", sample=4, variant="bool", feeds=(6,), shapes="ones"),
            Step(entry="complex", sample=6, variant="plain", feeds=(6, 5), shapes="runtime"),
        ),
        grad_of=4,
    ),
    # found by the sweep of the entries that landed beside the harness (issue 17, point 3)
    # zero-length batch of a Blockwise gradient: core shape (0, 0) instead of (3, 3)
    Program(steps=(Step(entry="Blockwise[inv]", sample=0, variant="0len"),), grad_of=0),
    Program(steps=(Step(entry="Blockwise[dot]", sample=1, variant="0len"),), grad_of=0),
    # batched_dot of two boolean matrices: int64 (a sum) instead of NumPy's bool
    Program(steps=(Step(entry="batched_dot", sample=1, variant="bool"),)),
    # max_pool_2d_same_size of booleans: "Cannot cast ufunc 'add' output ... to bool"
    Program(steps=(Step(entry="max_pool_2d_same_size", sample=0, variant="bool"),)),
    # nan_to_num of inf: a cost of 4e307 that finite differences cannot resolve (harness)
    Program(steps=(Step(entry="nan_to_num", sample=0, variant="plain"),), grad_of=0),
    # chi2sf below its support (x < 0): NaN (gammaincc's) instead of SciPy's 1
    Program(
        steps=(
            Step(entry="ifelse", sample=1, variant="plain", feeds=(-1, -1), shapes="ones"),
            Step(entry="nnet.hard_sigmoid", sample=4, variant="plain", shapes="runtime"),
            Step(entry="chi2sf", sample=6, variant="plain", feeds=(4, 4), shapes="runtime"),
        ),
    ),
    # the gradient of qr(mode="complete") of a tall matrix of run-time shape: "shapes not
    # aligned" before, now the deliberate refusal qr-complete-gradient-tall
    Program(
        steps=(
            Step(entry="sqrt", sample=4, variant="int", feeds=(-1, -1), shapes="runtime"),
            Step(entry="norm", sample=6, variant="int", feeds=(7, -1, 7), shapes="runtime"),
            Step(entry="qr", sample=2, variant="0last", feeds=(5,), shapes="runtime"),
        ),
        grad_of=6,
    ),
    # found by the 20,000-program run of seed 17 after lu, lu_factor and lu_solve landed:
    # switch(c, a, a) -> a dropped c's run-time shape check: FAST_RUN returned a value where
    # the unrewritten graph raises (c of run-time length 1 against a's 4)
    Program(
        steps=(
            Step(entry="imag", sample=4, variant="int", feeds=(-1, -1), shapes="ones"),
            Step(entry="switch", sample=1, variant="plain", feeds=(-1, 0, 0), shapes="runtime"),
        ),
    ),
    # linear algebra of booleans: float64 as numpy.linalg (deliberate, every linalg op now)
    Program(steps=(Step(entry="lu", sample=5, variant="bool", shapes="full"),)),
    Program(steps=(Step(entry="lu_factor", sample=0, variant="bool"),)),
    Program(steps=(Step(entry="ordqz", sample=0, variant="bool"),)),
    # lu_solve of an integer or boolean right-hand side: refused when built (TypeError from
    # SolveTriangular) where scipy.linalg.lu_solve computes in float64
    Program(steps=(Step(entry="lu_solve", sample=0, variant="int"),)),
    Program(steps=(Step(entry="lu_solve", sample=1, variant="bool"),)),
    # interp with repeated abscissae (booleans): 0/0 = NaN where NumPy takes fp at the point
    Program(steps=(Step(entry="interp", sample=4, variant="bool"),)),
    Program(steps=(Step(entry="interp", sample=3, variant="bool"),)),
    # xlogx of booleans was float64 (float16 as log's), and the reference cast to int/bool
    Program(steps=(Step(entry="xlogx", sample=1, variant="bool"),)),
    Program(steps=(Step(entry="xlogx", sample=3, variant="int"),)),
    # smallest(v, v, w) as min(stack): both copies of the tied v got the whole cotangent
    Program(
        steps=(
            Step(entry="exp", sample=0, variant="plain", shapes="full"),
            Step(entry="smallest", sample=3, variant="plain", feeds=(1, 3), shapes="ones"),
        ),
        grad_of=5,
    ),
    # a later step read SegmentSum's boolean sum as NumPy's int64 one (2 where arignote has
    # True): the op_db reference now keeps the dtype as the op does (segment-sum-keeps-dtype)
    Program(
        steps=(
            Step(entry="SegmentSum", sample=4, variant="bool", feeds=(-1, -1), shapes="runtime"),
            Step(entry="gcd", sample=6, variant="plain", feeds=(4,), shapes="ones"),
        ),
    ),
    # lu_solve of a singular boolean matrix: LinAlgError from its triangular solves where
    # scipy.linalg.lu_solve (LAPACK getrs) and PyTensor return inf/nan
    Program(
        steps=(
            Step(entry="iround", sample=6, variant="0len", feeds=(-1,), shapes="full"),
            Step(entry="lu_solve", sample=6, variant="bool", feeds=(4,), shapes="runtime"),
            Step(entry="lstsq", sample=5, variant="int", feeds=(2,), shapes="full"),
            Step(entry="log", sample=6, variant="0len", feeds=(6,), shapes="runtime"),
        ),
        grad_of=5,
    ),
    # FAST_RUN never finished compiling: the destroy handler vetoed ifelse's view
    # (cond_make_inplace), undoing it re-queued the node, and the rewrite was tried forever
    Program(
        steps=(
            Step(entry="norm", sample=2, variant="0last", feeds=(-1,), shapes="ones"),
            Step(entry="ifelse", sample=1, variant="plain", feeds=(-1, 6), shapes="full"),
            Step(entry="ptp", sample=5, variant="int", feeds=(7, -1, 0), shapes="runtime"),
            Step(
                entry="nnet.sigmoid_binary_crossentropy",
                sample=4,
                variant="plain",
                feeds=(1, 6),
                shapes="full",
            ),
        ),
        grad_of=3,
    ),
    # softplus of booleans (float16, small-integer-exp-float16) read by a later step: the
    # reference computed it in float64, so i1 of it differed at float16's precision
    Program(
        steps=(
            Step(entry="Print", sample=0, variant="bool", feeds=(-1,), shapes="full"),
            Step(entry="softplus", sample=4, variant="bool", feeds=(4, 5), shapes="full"),
            Step(entry="jv", sample=1, variant="0len", feeds=(), shapes="ones"),
            Step(entry="i1", sample=1, variant="0d", feeds=(4, 5, 4), shapes="runtime"),
        ),
        grad_of=4,
    ),
    # seed 17, program 1402: nan_to_num(betainc(a, b, |x|)) with |x| > 1 is the constant 0, but
    # its gradient was 0 * NaN = NaN (nan_to_num's switch sent a zero, betainc's derivative in
    # x is NaN outside [0, 1]); the elementwise chain rule now keeps the switch's mask around
    Program(
        steps=(
            Step(entry="abs", sample=4, variant="0len", feeds=(-1, -1, -1), shapes="runtime"),
            Step(entry="betainc", sample=6, variant="0len", feeds=(6, 6), shapes="ones"),
            Step(entry="nan_to_num[values]", sample=6, variant="plain", feeds=(1,), shapes="full"),
            Step(entry="owens_t", sample=5, variant="0last", feeds=(1, 0), shapes="full"),
        ),
        grad_of=4,
    ),
    # seed 17, program 18365: owens_t(h, 0) / owens_t(h, 0) is 0 / 0 = NaN in NumPy and 1 in
    # FAST_RUN, whose "cancel" rewrite makes x / x 1 (as PyTensor's does): listed as the
    # deliberate difference cancel-common-factors
    Program(
        steps=(
            Step(entry="owens_t", sample=1, variant="int", feeds=(), shapes="ones"),
            Step(entry="true_div", sample=4, variant="plain", feeds=(0, 4, 7), shapes="full"),
            Step(entry="mean[int]", sample=0, variant="bool", feeds=(0, 4), shapes="runtime"),
            Step(entry="lu", sample=2, variant="plain", feeds=(), shapes="ones"),
        ),
        grad_of=None,
    ),
]


@pytest.mark.parametrize("program", PROGRAMS, ids=[f"p{i}" for i in range(len(PROGRAMS))])
def test_program_has_no_unexplained_difference(program):
    outcome = check_program(program, with_pytensor=False)
    assert outcome.skipped is None, outcome.skipped
    assert not outcome.unexplained, describe(outcome)


@pytest.mark.parametrize("fn", [pt.largest, pt.smallest], ids=["largest", "smallest"])
def test_a_repeated_argument_of_largest_or_smallest_is_differentiated_once(fn):
    v, w = pt.dvector("v"), pt.dvector("w")
    g = arignote.function([v, w], arignote.grad(fn(v, v, w).sum(), v))
    # w never wins: the result is v itself, whose gradient is 1 (not 2)
    far = np.full(3, -1e3 if fn is pt.largest else 1e3)
    np.testing.assert_array_equal(g(np.array([0.5, 1.0, 2.0]), far), np.ones(3))


def test_switch_with_equal_branches_keeps_the_conditions_shape_check():
    c, a = pt.matrix("c", dtype="int64"), pt.dmatrix("a")
    fn = arignote.function([c, a], pt.switch(c, a, a), mode="FAST_RUN")
    np.testing.assert_array_equal(fn(np.ones((3, 4), "int64"), np.eye(3, 4)), np.eye(3, 4))
    with pytest.raises(ValueError, match="Runtime broadcasting is not allowed"):
        fn(np.ones((3, 1), "int64"), np.eye(3, 4))


def test_lu_solve_takes_integer_and_boolean_right_hand_sides():
    a, b = pt.matrix("a", dtype="int64"), pt.matrix("b", dtype="bool")
    x = linalg.lu_solve(linalg.lu_factor(a), b)
    assert x.type.dtype == "float64"
    got = arignote.function([a, b], x)(np.array([[3, 1], [1, 2]]), np.eye(2, dtype=bool))
    np.testing.assert_allclose(got, np.linalg.inv([[3.0, 1], [1, 2]]))


def test_interp_at_repeated_abscissae_takes_numpys_values():
    x, xp, fp = pt.dvector("x"), pt.dvector("xp"), pt.dvector("fp")
    fn = arignote.function([x, xp, fp], pt.interp(x, xp, fp))
    args = (np.array([-1.0, 0, 0.5, 1, 2]), np.array([0.0, 0, 1, 1]), np.array([5.0, 6, 7, 8]))
    np.testing.assert_array_equal(fn(*args), np.interp(*args))  # [5, 6, 6.5, 8, 8]


@pytest.mark.parametrize(
    "dtype, expected",
    [("bool", "float16"), ("int8", "float16"), ("int16", "float32"), ("int64", "float64")],
)
def test_xlogx_of_discrete_inputs_has_the_dtype_of_their_log(dtype, expected):
    x = pt.vector("x", dtype=dtype)
    y = pt.xlogx.xlogx(x)
    assert y.type.dtype == expected == pt.log(x).type.dtype
    got = arignote.function([x], y)(np.array([0, 1, 1], dtype=dtype))
    np.testing.assert_array_equal(got, np.zeros(3, expected))


@pytest.mark.parametrize("trans", [0, 1])
def test_lu_solve_of_a_singular_matrix_gives_lapacks_inf_and_nan(trans):
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    fn = arignote.function([a, b], linalg.lu_solve(linalg.lu_factor(a), b, trans=trans))
    singular = np.array([[0.0, 0, 0], [1, 2, 0], [0, 3, 1]])
    rhs = np.arange(1.0, 7.0).reshape(3, 2)
    with np.errstate(all="ignore"), pytest.warns(scipy.linalg.LinAlgWarning):
        expected = scipy.linalg.lu_solve(scipy.linalg.lu_factor(singular), rhs, trans=trans)
    got = fn(singular, rhs)
    assert not np.all(np.isfinite(got))
    np.testing.assert_array_equal(got, expected)


MODES = ["FAST_COMPILE", "FAST_RUN", arignote.Mode(linker="vm", optimizer=None)]


@pytest.mark.parametrize("mode", MODES, ids=["FAST_COMPILE", "FAST_RUN", "no_rewrites"])
def test_gradient_through_nan_to_num_of_an_undefined_value_is_zero(mode):
    # betainc(2, 3, x) is NaN for x > 1 and so is its derivative in x: nan_to_num makes the
    # function the constant 0 there, whose gradient is 0 (as PyTensor's FAST_RUN gives); inside
    # [0, 1] the gradient is betainc's derivative x (1 - x)^2 / B(2, 3) = 12 x (1 - x)^2
    x = pt.dvector("x")
    cost = pt.nan_to_num(pt.betainc(2.0, 3.0, x)).sum()
    fn = arignote.function([x], arignote.grad(cost, x), mode=mode)
    got = fn(np.array([1.5, 0.5, 2.0, 0.25]))
    np.testing.assert_allclose(got, [0.0, 12 * 0.5 * 0.25, 0.0, 12 * 0.25 * 0.75**2])


@pytest.mark.parametrize("mode", MODES, ids=["FAST_COMPILE", "FAST_RUN", "no_rewrites"])
def test_gradient_through_the_branch_where_did_not_take_is_zero(mode):
    # where(x > 0, log(x), where(x < -1, -3 x, sqrt(x + 1))): log's derivative 1/x is inf at
    # 0 and log(x) is NaN below, sqrt(x + 1) is NaN below -1: the branches not taken
    # contribute 0, in the outer switch and in the nested one
    x = pt.dvector("x")
    inner = pt.switch(pt.lt(x, -1.0), -3.0 * x, pt.sqrt(x + 1.0))
    cost = pt.switch(pt.gt(x, 0.0), pt.log(x), inner).sum()
    fn = arignote.function([x], arignote.grad(cost, x), mode=mode)
    got = fn(np.array([0.0, -2.0, 4.0, -0.5]))
    np.testing.assert_allclose(got, [0.5, -3.0, 0.25, 0.5 / np.sqrt(0.5)])


def test_cancellation_of_x_over_x_is_deliberate_and_can_be_excluded():
    x = pt.dvector("x")
    values = np.array([0.0, 2.0, np.inf])
    fast = arignote.function([x], x / x, mode="FAST_RUN")
    np.testing.assert_array_equal(fast(values), [1.0, 1.0, 1.0])  # PyTensor's FAST_RUN too
    kept = arignote.function([x], x / x, mode=arignote.get_mode("FAST_RUN").excluding("cancel"))
    np.testing.assert_array_equal(kept(values), [np.nan, 1.0, np.nan])  # NumPy's values
