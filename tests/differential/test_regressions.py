"""Programs on which the differential harness found differences, replayed (issue 17).

Each failed before its fix (or before its deliberate difference was listed with a reason); the
comment says which. They run without PyTensor; the PyTensor-only ones are in
``test_pytensor_defects.py``.
"""

from __future__ import annotations

import pytest

from tests.differential.compare import check_program, describe
from tests.differential.programs import Program, Step

PROGRAMS = [
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
]


@pytest.mark.parametrize("program", PROGRAMS, ids=[f"p{i}" for i in range(len(PROGRAMS))])
def test_program_has_no_unexplained_difference(program):
    outcome = check_program(program, with_pytensor=False)
    assert outcome.skipped is None, outcome.skipped
    assert not outcome.unexplained, describe(outcome)
