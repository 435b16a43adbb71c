"""Every registered rewrite, seen firing and seen not firing (items 4-6 of the rewriting
issue first, in the issue's words; then the other rewrites of the library).

Each row names what the rewrite does, the registered rewrite, a graph on which the
``RewriteTrace`` must show it firing, and a graph where its condition fails and the trace
must not show it. Both graphs are also evaluated before and after rewriting on random inputs
(the autouse fixture of this directory), so every row is a numeric check too. A rewrite
registered without a row here makes ``test_every_registered_rewrite_has_a_row`` fail.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.compile.builders import OpFromGraph
from arignote.graph.rewriting.db import rewrites
from arignote.ifelse import IfElse, ifelse
from arignote.raise_op import assert_op
from arignote.tensor.blockwise import Blockwise
from arignote.tensor.gradient_ops import zero_grad
from arignote.tensor.linalg.inverse import MatrixInverse
from arignote.tensor.math import _cast_elemwise
from arignote.tensor.products import Dot
from arignote.tensor.shape import Shape_i
from tests.tensor.rewriting.utils import rewrite_traced

x, y = pt.dvectors("x y")
n = pt.lvector("n")
k = pt.lscalar("k")
m = pt.dmatrix("m")  # 3 x 4 in the numeric check (tests/tensor/rewriting/utils.SIZES)
col = pt.dcol("col")
labels = pt.lvector("labels")
# fixed shapes for products: a (3, 5) = p (3, 4) @ q (4, 5); u (3,), v (4,)
p = pt.tensor("p", dtype="float64", shape=(3, 4))
q = pt.tensor("q", dtype="float64", shape=(4, 5))
a = pt.tensor("a", dtype="float64", shape=(3, 5))
u = pt.tensor("u", dtype="float64", shape=(3,))
v = pt.tensor("v", dtype="float64", shape=(4,))
lp = pt.tensor("lp", dtype="int64", shape=(3, 4))
lq = pt.tensor("lq", dtype="int64", shape=(4, 5))
la = pt.tensor("la", dtype="int64", shape=(3, 5))
arow = pt.tensor("arow", dtype="float64", shape=(1, 5))
lu = pt.tensor("lu", dtype="int64", shape=(3,))
lv = pt.tensor("lv", dtype="int64", shape=(4,))

CANON = ("canonicalize",)
STABLE = ("canonicalize", "stabilize")
SPECIAL = ("canonicalize", "stabilize", "specialize", "uncanonicalize")
LABELS = {labels: np.array([0, 3, 1]), m: np.arange(12.0).reshape(3, 4) / 5}


@dataclass(frozen=True)
class Row:
    item: str  # the wording
    rewrite: str  # the registered name the trace reports
    fires: Callable  # a graph it rewrites
    skips: Callable  # a graph where its condition fails
    include: tuple = CANON
    domain: tuple = (-2.0, 2.0)
    values: dict | None = None
    exclude: tuple = ()


def _softmax_rows(matrix):
    return pt.softmax(matrix, axis=1)[pt.arange(labels.shape[0]), labels]


ROWS = [
    # -- item 4: canonicalization -----------------------------------------------------------
    Row("flatten add chains", "local_add_mul_canonical", lambda: (x + y) + x * 3, lambda: x + y),
    Row("flatten mul chains", "local_add_mul_canonical", lambda: (x * y) * 2, lambda: x * y),
    Row("sort commutative chains", "local_add_mul_canonical", lambda: y + x, lambda: x + y),
    Row(
        "combine constants",
        "local_add_mul_canonical",
        lambda: (x + 1) + 2,
        lambda: (1 + pt.ivector("i")) + x,  # mixed dtypes: left alone
    ),
    Row("x * 1", "canonicalize:mul(x, 1)", lambda: x * 1, lambda: x * 2),
    Row("x + 0", "canonicalize:add(x, 0)", lambda: x + 0, lambda: x + 1),
    Row("x - x (integers)", "canonicalize:sub(x, x)", lambda: n - n, lambda: x - x),
    Row(
        "x / x (only where safe: on request)",
        "canonicalize:true_div(x, x)",
        lambda: x / x,
        lambda: x / x,
        include=("canonicalize", "unsafe"),
        domain=(0.5, 2.0),
        # x / x -> 1 is also a cancellation, on by default since (x * y) / y -> x is (the
        # documents' example); without "cancel" only the unsafe rule can do it
        exclude=("cancel",),
    ),
    Row("--x", "canonicalize:neg(neg(x))", lambda: pt.neg(pt.neg(x)), lambda: -pt.exp(x)),
    Row(
        "exp(log(x))",
        "canonicalize:exp(log(x))",
        lambda: pt.exp(pt.log(x)),
        lambda: pt.exp(pt.log2(x)),
    ),
    Row(
        "log(exp(x))",
        "canonicalize:log(exp(x))",
        lambda: pt.log(pt.exp(x)),
        lambda: pt.log(pt.exp2(x)),
    ),
    Row("x ** 1", "canonicalize:pow(x, 1)", lambda: x**1, lambda: x**3),
    Row("x ** 0", "canonicalize:pow(x, 0)", lambda: x**0, lambda: x**y, domain=(0.5, 2.0)),
    Row("sqr form: x * x", "canonicalize:mul(x, x)", lambda: x * x, lambda: x * y),
    Row(
        "sqrt form: sqrt(x^2)",
        "canonicalize:sqrt(sqr(x))",
        lambda: pt.sqrt(pt.sqr(x)),
        lambda: pt.sqrt(pt.exp(x)),
    ),
    Row(
        "dimshuffle of dimshuffle",
        "local_dimshuffle_dimshuffle",
        lambda: m.dimshuffle(1, "x", 0).dimshuffle(2, 1, 0),
        lambda: m.dimshuffle(1, "x", 0),
    ),
    Row(
        "useless reshape",
        "local_useless_reshape",
        lambda: m.reshape(m.shape),
        lambda: m.reshape((m.shape[1], m.shape[0])),
    ),
    Row(
        "useless cast",
        "local_useless_cast",
        lambda: _cast_elemwise("float64")(x),
        lambda: _cast_elemwise("float32")(x),
    ),
    Row(
        "useless alloc",
        "local_useless_alloc",
        lambda: pt.alloc(m, m.shape[0], m.shape[1]),
        lambda: pt.alloc(x, 3, x.shape[0]),
    ),
    Row(
        "sum of sums",
        "local_reduce_of_reduce",
        lambda: m.sum(axis=0).sum(),
        lambda: m.sum(axis=0).max(),
    ),
    Row(
        "reductions over broadcast dimensions",
        "local_reduce_length_one_axes",
        lambda: col.sum(axis=1),
        lambda: col.sum(axis=0),
    ),
    Row(
        "dot with a statically known identity",
        "local_dot_identity",
        lambda: pt.dot(p, np.eye(4)),
        lambda: pt.dot(p, 2 * np.eye(4)),
    ),
    Row(
        "dot with statically known zeros",
        "local_dot_zeros",
        lambda: pt.dot(p, np.zeros((4, 2))),
        lambda: pt.dot(p, np.ones((4, 2))),
    ),
    Row(
        "subtensor of subtensor merging",
        "local_subtensor_of_subtensor",
        lambda: m[1:][0],
        lambda: m[k:][1:],  # a bound that may be negative: not provably the same
        values={k: np.array(1)},
    ),
    Row(
        "switch with constant condition",
        "local_switch_known_condition",
        lambda: pt.switch(1, x, y),
        lambda: pt.switch(pt.gt(x, 0), x, y),
    ),
    # -- item 5: stabilization -------------------------------------------------------------
    Row(
        "log(1 + x) -> log1p(x)",
        "stabilize:log(add(1, x))",
        lambda: pt.log(1 + x),
        lambda: pt.log(2 + x),
        STABLE,
        (-0.9, 0.9),
    ),
    Row(
        "exp(x) - 1 -> expm1(x)",
        "stabilize:sub(exp(x), 1)",
        lambda: pt.exp(x) - 1,
        lambda: pt.exp(x) - 2,
        STABLE,
    ),
    Row(
        "log(1 + exp(x)) -> softplus(x)",
        "stabilize:log1p(exp(x))",
        lambda: pt.log(1 + pt.exp(x)),
        lambda: pt.log(1 + pt.exp2(x)),
        STABLE,
    ),
    Row(
        "log(sigmoid(x)) -> -softplus(-x)",
        "stabilize:log(sigmoid(x))",
        lambda: pt.log(pt.sigmoid(x)),
        lambda: pt.log(pt.tanh(x)),
        STABLE,
        (0.1, 2.0),
    ),
    Row(
        "log(1 - sigmoid(x))",
        "stabilize:sub(1, sigmoid(x))",  # 1 - sigmoid(x) -> sigmoid(-x), then the rule above
        lambda: pt.log(1 - pt.sigmoid(x)),
        lambda: pt.log(1 - pt.tanh(x)),
        STABLE,
        (0.1, 0.9),
    ),
    Row(
        "log(softmax(x)) -> log_softmax(x)",
        "local_log_softmax",
        lambda: pt.log(pt.softmax(m, axis=1)),
        lambda: pt.log(pt.sigmoid(m)),
        STABLE,
    ),
    Row(
        "log(sum(exp(x))) -> logsumexp",
        "local_log_sum_exp",
        lambda: pt.log(pt.exp(m).sum(axis=1)),
        lambda: pt.log(pt.exp2(m).sum(axis=1)),
        STABLE,
    ),
    Row(
        "log(1 - exp(x)) -> log1mexp(x)",
        "stabilize:log1p(neg(exp(x)))",
        lambda: pt.log(1 - pt.exp(x)),
        lambda: pt.log(1 - pt.exp2(x)),
        STABLE,
        (-2.0, -0.1),
        exclude=("stabilize:sub(1, exp(x))",),  # which gets there through log(-expm1(x))
    ),
    Row(
        "cross-entropy of softmax (integer labels)",
        "local_log_of_selected_softmax",
        lambda: -pt.log(_softmax_rows(m)),
        lambda: -pt.log(pt.sigmoid(m)[pt.arange(labels.shape[0]), labels]),
        STABLE,
        values=LABELS,
    ),
    Row(
        "cross-entropy of softmax (one-hot labels)",
        "local_log_softmax",
        lambda: -(pt.dmatrix("onehot") * pt.log(pt.softmax(m, axis=1))).sum(axis=1),
        lambda: -(pt.dmatrix("onehot") * pt.log(pt.sigmoid(m))).sum(axis=1),
        STABLE,
    ),
    # -- item 6: specialization ------------------------------------------------------------
    Row("x ** 2 -> sqr", "specialize:pow(x, 2)", lambda: x**2, lambda: x**2.5, SPECIAL, (0.5, 2.0)),
    Row(
        "x ** 0.5 -> sqrt",
        "specialize:pow(x, 0.5)",
        lambda: x**0.5,
        lambda: x**0.25,
        SPECIAL,
        (0.5, 2.0),
    ),
    Row(
        "x ** -1 -> reciprocal",
        "specialize:pow(x, -1)",
        lambda: x**-1,
        lambda: n**-1.0,
        SPECIAL,
        (0.5, 2.0),
    ),
    Row(
        "x * 2 -> x + x (on request: the documents print 2 * x)",
        "uncanonicalize:mul(x, 2)",
        lambda: x * 2,
        lambda: x * 3,
        (*SPECIAL, "experimental"),
    ),
    Row(
        "sum over a single axis of size 1 removed",
        "local_reduce_length_one_axes",
        lambda: col.sum(axis=1),
        lambda: m.sum(axis=1),
        ("specialize",),
    ),
    Row(
        "dot(matrix, matrix) with scaling and addition -> gemm",
        "local_add_to_gemm_gemv",
        lambda: 2.0 * a + 3.0 * pt.dot(p, q),
        lambda: la + pt.dot(lp, lq),  # integers: no BLAS
        SPECIAL,
    ),
    Row(
        "dot(matrix, vector) plus a vector -> gemv",
        "local_add_to_gemm_gemv",
        lambda: u + pt.dot(p, v),
        lambda: arow + pt.dot(p, q),  # the sum broadcasts a row: gemm would write all of it
        SPECIAL,
    ),
    Row(
        "subtraction of a scaled product -> gemm",
        "local_sub_to_gemm_gemv",
        lambda: a - 0.5 * pt.dot(p, q),
        lambda: arow - pt.dot(p, q),
        SPECIAL,
    ),
]

INPLACE = ("inplace",)
FUSION = ("fusion",)

OTHER_ROWS = [
    # -- canonicalization beyond the list --------------------------------------------
    Row("x - 0", "canonicalize:sub(x, 0)", lambda: x - 0, lambda: x - 1),
    Row("x / 1", "canonicalize:true_div(x, 1)", lambda: x / 1, lambda: x / 2),
    Row("0 - x", "canonicalize:sub(0, x)", lambda: 0 - x, lambda: 1 - x),
    Row("x * -1", "canonicalize:mul(x, -1)", lambda: x * -1, lambda: x * -2),
    Row("x / -1", "canonicalize:true_div(x, -1)", lambda: x / -1, lambda: x / -2),
    Row("x + -y", "canonicalize:add(x, neg(y))", lambda: x + -y, lambda: x + pt.exp(y)),
    Row("x - -y", "canonicalize:sub(x, neg(y))", lambda: x - -y, lambda: x - pt.exp(y)),
    Row("-(x - y)", "canonicalize:neg(sub(x, y))", lambda: -(x - y), lambda: -(x + y)),
    Row("-x * -y", "canonicalize:mul(neg(x), neg(y))", lambda: -x * -y, lambda: -x * y),
    Row(
        "-x / -y",
        "canonicalize:true_div(neg(x), neg(y))",
        lambda: -x / -y,
        lambda: -x / y,
        domain=(0.5, 2.0),
    ),
    Row(
        "(x + y) - y",
        "canonicalize:sub(add(x, y), y)",
        lambda: (x + y) - y,
        lambda: (x + y) - x * 2,
    ),
    Row("(-x)^2", "canonicalize:sqr(neg(x))", lambda: pt.sqr(-x), lambda: pt.sqr(pt.exp(x))),
    Row("|-x|", "canonicalize:abs(neg(x))", lambda: abs(-x), lambda: abs(pt.exp(x))),
    Row("||x||", "canonicalize:abs(abs(x))", lambda: abs(abs(x)), lambda: abs(-pt.exp(x))),
    Row(
        "float x - x (on request)",
        "canonicalize:sub(x, x)#2",
        lambda: x - x,
        lambda: x - x,
        include=("canonicalize", "unsafe"),
    ),
    Row(
        "cast of a lossless cast",
        "local_cast_cast",
        lambda: pt.ivector("i").astype("int64").astype("float64"),
        lambda: x.astype("int32").astype("float64"),
    ),
    Row(
        "reshape of reshape",
        "local_reshape_reshape",
        lambda: m.reshape((4, 3)).reshape((2, 6)),
        lambda: m.T.reshape((2, 6)),
    ),
    Row(
        "useless dimshuffle",
        "local_useless_dimshuffle",
        lambda: pt.exp(m).dimshuffle(0, 1),
        lambda: m.T,
    ),
    Row(
        "dimshuffle lifted through elementwise ops",
        "local_dimshuffle_lift",
        lambda: pt.exp(m).T,
        lambda: [pt.exp(m).T, pt.exp(m)],  # exp(m) is needed as it is too
    ),
    Row(
        "reduction over every axis spelled axis=None",
        "local_reduce_all_axes",
        lambda: m.sum(axis=(0, 1)),
        lambda: m.sum(axis=0),
    ),
    Row(
        "dot with an identity: specify_shape removed when already known",
        "local_useless_specify_shape",
        lambda: pt.specify_shape(p, (3, 4)),
        lambda: pt.specify_shape(m, (3, None)),
    ),
    Row(
        "shape(x) -> make_vector of lengths",
        "local_shape_to_shape_i",
        lambda: pt.exp(m).shape,
        lambda: pt.exp(m).sum(),
    ),
    Row(
        "shape_i of an op output -> its inferred length",
        "local_shape_i_lift",
        lambda: Shape_i(1)(pt.exp(m)),
        lambda: Shape_i(1)(m),
    ),
    Row(
        "shape_i of a constant",
        "local_shape_i_of_constant",
        lambda: Shape_i(1)(pt.constant(np.zeros((2, 7)))),
        lambda: Shape_i(1)(m),
        exclude=("constant_folding",),  # folding would get there first
    ),
    Row(
        "make_vector(...)[i]",
        "local_make_vector_element",
        lambda: m.shape[1],
        lambda: m.shape[k],
        values={k: np.array(1)},
    ),
    Row(
        "zero_grad(x) -> x",
        "local_remove_gradient_view_op",
        lambda: zero_grad(x) * 2,
        lambda: x * 2,
    ),
    Row(
        "constant folding",
        "constant_folding",
        lambda: x + pt.exp(pt.constant(np.arange(4.0))),
        lambda: x + pt.exp(x),
    ),
    Row("merge", "merge", lambda: pt.exp(x) + pt.exp(x), lambda: pt.exp(x) + pt.exp(y)),
    # -- stabilization beyond the list -----------------------------------------------
    Row(
        "log(1 - x)",
        "stabilize:log(sub(1, x))",
        lambda: pt.log(1 - x),
        lambda: pt.log(2 - x),
        STABLE,
        (-0.9, 0.9),
    ),
    Row(
        "exp(x) + -1",
        "stabilize:add(exp(x), -1)",
        lambda: pt.exp(x) + np.float64(-1),
        lambda: pt.exp(x) + np.float64(-2),
        ("stabilize",),
    ),
    Row(
        "log1p(expm1(x))",
        "stabilize:log1p(expm1(x))",
        lambda: pt.log1p(pt.expm1(x)),
        lambda: pt.log1p(pt.exp(x)),
        STABLE,
    ),
    Row(
        "log1p(-sigmoid(x))",
        "stabilize:log1p(neg(sigmoid(x)))",
        lambda: pt.log1p(-pt.sigmoid(x)),
        lambda: pt.log1p(-pt.tanh(x)),
        STABLE,
        (0.1, 0.9),
    ),
    Row(
        "log(-expm1(x))",
        "stabilize:log(neg(expm1(x)))",
        lambda: pt.log(-pt.expm1(x)),
        lambda: pt.log(-pt.exp(x)),
        STABLE,
        (-2.0, -0.1),
    ),
    Row(
        "exp(x) / sum(exp(x)) -> softmax",
        "local_softmax_from_exp",
        lambda: pt.exp(m) / pt.exp(m).sum(axis=1, keepdims=True),
        lambda: pt.exp(m) / (pt.exp(m).sum(axis=1, keepdims=True) + 1),
        STABLE,
    ),
    # -- specialization beyond the list ----------------------------------------------
    Row(
        "1 / x -> reciprocal",
        "specialize:true_div(1, x)",
        lambda: 1 / x,
        lambda: 2 / x,
        SPECIAL,
        (0.5, 2.0),
    ),
    Row("x ** -2", "specialize:pow(x, -2)", lambda: x**-2, lambda: n**-2.0, SPECIAL, (0.5, 2.0)),
    Row(
        "x ** -0.5",
        "specialize:pow(x, -0.5)",
        lambda: x**-0.5,
        lambda: x**-0.25,
        SPECIAL,
        (0.5, 2.0),
    ),
    Row(
        "x ** n by squaring",
        "local_pow_integer_exponent",
        lambda: x**5,
        lambda: x**3.5,  # not an integer
        SPECIAL,
        (0.5, 1.5),
    ),
    Row(
        "a + alpha * outer(x, y) -> ger",
        "local_add_outer_to_ger",
        lambda: p + 2.0 * pt.outer(u, v),
        lambda: lp + pt.outer(lu, lv),  # integers: no BLAS
        SPECIAL,
    ),
    # -- fusion and in-place -----------------------------------------------------------------
    Row(
        "elementwise fusion",
        "elemwise_fusion",
        lambda: pt.exp(x) * 2 + y,
        lambda: pt.exp(x),
        FUSION,
    ),
    Row(
        "elementwise ops in place",
        "inplace_elemwise",
        lambda: pt.exp(pt.exp(x)),
        lambda: pt.exp(x),  # x is an input: protected
        INPLACE,
    ),
    Row(
        "gemm in place",
        "inplace_blas",
        lambda: pt.blas.gemm(pt.exp(a), 1.0, p, q, 1.0),
        lambda: pt.blas.gemm(a, 1.0, p, q, 1.0),
        INPLACE,
    ),
    Row(
        "set_subtensor into fresh memory",
        "inplace_subtensor",
        lambda: pt.set_subtensor(pt.zeros((3, 4))[1], x),
        lambda: pt.set_subtensor(m[1], x),
        INPLACE,
    ),
    # -- Blockwise (arignote.tensor.blockwise) -----------------------------------------------
    Row(
        "Blockwise without batch dimensions",
        "local_useless_blockwise",
        lambda: _blockwise_dot(m, pt.dmatrix("n43").T),
        lambda: _blockwise_dot(pt.dtensor3("t"), pt.dmatrix("n43").T),
    ),
    Row(
        "Blockwise of an op that batches itself",
        "local_blockwise_of_batching_op",
        lambda: _blockwise_inv(pt.tensor("sq", dtype="float64", shape=(2, 3, 3))),
        lambda: _blockwise_dot(pt.dtensor3("t"), pt.dmatrix("n43").T),
    ),
]
# -- conditionals and run-time checks (arignote.ifelse, arignote.raise_op) -------------------
positive = pt.gt(k, 0)
OTHER_ROWS += [
    Row(
        "ifelse on a constant condition",
        "local_ifelse_constant_condition",
        lambda: ifelse(pt.constant(True), x, pt.exp(y)),
        lambda: ifelse(positive, x, pt.exp(y)),
    ),
    Row(
        "ifelse with identical branches",
        "local_ifelse_identical_branches",
        lambda: ifelse(positive, [x, pt.exp(y)], [x, y]),
        lambda: ifelse(positive, x, y),
    ),
    Row(
        "ifelse inside an ifelse on the same condition",
        "local_ifelse_same_condition_inside",
        lambda: ifelse(positive, ifelse(positive, x, y), pt.exp(x)),
        lambda: ifelse(positive, ifelse(pt.lt(k, 2), x, y), pt.exp(x)),
    ),
    Row(
        "lift ifelse over elementwise ops",
        "local_lift_ifelse_through_elemwise",
        lambda: pt.exp(ifelse(positive, x, y)) * 2,
        lambda: (lambda e: pt.exp(e) + e)(ifelse(positive, x, y)),  # e has two users
    ),
    Row(
        "ifelse returns the then-branch value as a view",
        "cond_make_inplace",
        lambda: ifelse(positive, pt.exp(x), y),
        lambda: IfElse(1, as_view=True)(positive, pt.exp(x), y),
        INPLACE,
    ),
    Row(
        "merge ifelses on the same condition",
        "local_merge_ifelse_same_condition",
        lambda: ifelse(positive, x, y) + ifelse(positive, pt.exp(x), y),
        lambda: ifelse(positive, x, y) + ifelse(pt.lt(k, 2), pt.exp(x), y),
    ),
    Row(
        "remove checks proven true",
        "local_remove_useless_assert",
        lambda: assert_op(x, pt.constant(True), pt.lt(x.shape[0], 9)),
        lambda: assert_op(x, pt.lt(x.shape[0], 9)),
    ),
    Row(
        "remove every Assert (only on request)",
        "local_remove_all_assert",
        lambda: assert_op(x, pt.lt(x.shape[0], 9)),
        lambda: assert_op(x, pt.lt(x.shape[0], 9)),
        include=("canonicalize", "unsafe"),
    ),
    Row(
        "inline OpFromGraph(inline=True)",
        "inline_ofg_expansion",
        lambda: OpFromGraph([m], [pt.exp(m) * 2], inline=True)(x * m),
        lambda: OpFromGraph([m], [pt.exp(m) * 2])(x * m),
    ),
]


def _loop(fn, **kwargs):
    """The outputs of ``arignote.scan`` (imported here: the scan rows are the scan package's)."""
    return arignote.scan(fn, return_updates=False, **kwargs)


# -- scan (issue 9, point 3) -----------------------------------------------------------------
SCAN_ROWS = [
    Row(
        "scan: push out what depends only on non-sequences",
        "scan_pushout_nonseqs",
        lambda: _loop(lambda x_t, m: x_t * pt.exp(m).sum(), sequences=x, non_sequences=m),
        lambda: _loop(lambda x_t, m: (x_t * m).sum(), sequences=x, non_sequences=m),
    ),
    Row(
        "scan: push out elementwise work on sequence rows",
        "scan_pushout_seqs",
        lambda: _loop(lambda x_t, h: h + pt.exp(x_t), sequences=x, outputs_info=pt.constant(0.0)),
        lambda: _loop(lambda x_t, h: pt.exp(h) + x_t, sequences=x, outputs_info=pt.constant(0.0)),
    ),
    Row(
        "scan: drop unused outputs and inputs",
        "scan_remove_unused",
        lambda: _loop(lambda x_t, y_t: [x_t * 2, x_t + y_t], sequences=[x, y])[0],
        lambda: pt.add(*_loop(lambda x_t, y_t: [x_t * 2, x_t + y_t], sequences=[x, y])),
        exclude=("scan_pushout_seqs",),
    ),
    Row(
        "scan: merge loops over the same steps",
        "scan_merge",
        lambda: _loop(lambda x_t: x_t * 2, sequences=x) + _loop(pt.exp, sequences=x),
        lambda: _loop(lambda x_t: x_t * 2, sequences=x) + _loop(pt.exp, sequences=x[:-1]).sum(),
    ),
    Row(
        "scan: constant number of steps",
        "scan_constant_n_steps",
        lambda: _loop(lambda x_t, h: h * x_t, sequences=y, outputs_info=x, n_steps=1),
        lambda: _loop(lambda x_t, h: h * x_t, sequences=y, outputs_info=x, n_steps=2),
    ),
    Row(
        "scan: keep only the last states used",
        "scan_save_mem",
        lambda: _loop(lambda h: h * 2, outputs_info=x, n_steps=3)[-1],
        lambda: _loop(lambda h: h * 2, outputs_info=x, n_steps=3)[0],
        SPECIAL,
    ),
    Row(
        "scan: sum an accumulator after the loop",
        "scan_pushout_add",
        lambda: _loop(lambda m_t, acc: acc + pt.exp(m_t), sequences=m, outputs_info=y)[-1],
        lambda: _loop(lambda m_t, acc: acc * 0.5 + m_t, sequences=m, outputs_info=y)[-1],
        SPECIAL,
    ),
    Row(
        "scan: circular buffer in its initial value's memory",
        "scan_inplace",
        lambda: _loop(lambda h: h * 2, outputs_info=pt.exp(x), n_steps=3)[-1],
        lambda: _loop(lambda h: h * 2, outputs_info=x, n_steps=3)[-1],  # x is protected
        ("specialize", "inplace"),
    ),
]


def _blockwise_dot(left, right):
    return Blockwise(Dot(), "(m,k),(k,n)->(m,n)")(left, right)


def _blockwise_inv(value):
    return Blockwise(MatrixInverse(), "(m,m)->(m,m)")(value + 3 * pt.eye(3))


# -- numerical stability (issue 10): canonical forms, then the stabilizing rules ----------------
STAB = ("stabilize",)  # rules that also clean up after other stabilizing rules
POS = (0.5, 2.0)
OTHER_ROWS += [
    Row(
        "float functions of integers see a float input",
        "local_float_function_of_cast",
        lambda: pt.log(1 - pt.sigmoid(n)),
        lambda: pt.log(1 - pt.sigmoid(x)),
    ),
    Row(
        "products and quotients as one division",
        "local_mul_div_canonical",
        lambda: (x / y) / pt.exp(x) * 2,
        lambda: (2 * x) / y,
        domain=POS,
    ),
    Row(
        "(x * y) / y -> x (the graph-structures document)",
        "local_mul_div_cancel",
        lambda: (x * y) / y,
        lambda: (x * y) / pt.exp(y),
        domain=POS,
    ),
    Row(
        "sqrt(sum(v^2)) -> max|v| sqrt(sum((v / max|v|)^2))",
        "local_sqrt_sum_of_squares_reduced",
        lambda: pt.sqrt((m**2).sum(axis=1)),
        lambda: pt.sqrt((m**3).sum(axis=1)),
        STABLE,
    ),
    Row(
        "y * (g / y - z) -> g - y * z (the gradient of log(softmax(x)))",
        "local_distribute_to_cancel",
        lambda: pt.exp(x) * (y / pt.exp(x) - x),
        lambda: pt.exp(x) * (y / pt.exp(y) - x),
    ),
    Row(
        "a * b - a * c -> a * (b - c)",
        "local_factor_common",
        lambda: pt.exp(x) * y - pt.exp(x) * x,
        lambda: pt.exp(x) * y - pt.exp(y) * x,
        STABLE,
    ),
    Row(
        "sigmoid(x) - sigmoid(-x) -> tanh(x / 2)",
        "stabilize:sub(sigmoid(x), sigmoid(neg(x)))",
        lambda: pt.sigmoid(x) - pt.sigmoid(-x),
        lambda: pt.sigmoid(x) - pt.sigmoid(-y),
        STAB,
    ),
    Row(
        "sigmoid(-x) - sigmoid(x) -> -tanh(x / 2)",
        "stabilize:sub(sigmoid(neg(x)), sigmoid(x))",
        lambda: pt.sigmoid(-x) - pt.sigmoid(x),
        lambda: pt.sigmoid(-y) - pt.sigmoid(x),
        STAB,
    ),
    Row(
        "stable ratios: exp(x) / (1 + exp(x)) -> sigmoid(x)",
        "local_stable_ratio",
        lambda: pt.exp(x) / (1 + pt.exp(x)),
        lambda: pt.exp(x) / (2 + pt.exp(x)),
        STABLE,
    ),
    Row(
        "log(exp(x)) in stabilize",
        "stabilize:log(exp(x))",
        lambda: pt.log(pt.exp(x)),
        lambda: pt.log(pt.exp2(x)),
        STAB,
    ),
    Row(
        "log(exp(a) + exp(b)) -> logaddexp",
        "stabilize:log(add(exp(x), exp(y)))",
        lambda: pt.log(pt.exp(x) + pt.exp(y)),
        lambda: pt.log(pt.exp(x) + pt.exp2(y)),
        STABLE,
    ),
    Row(
        "log(exp(a) - exp(b)) -> a + log1mexp(b - a)",
        "stabilize:log(sub(exp(x), exp(y)))",
        lambda: pt.log(pt.exp(x + 3) - pt.exp(y)),
        lambda: pt.log(pt.exp(x + 3) - pt.exp2(y)),
        STABLE,
    ),
    Row(
        "log(expm1(x)) -> x + log1mexp(-x)",
        "stabilize:log(expm1(x))",
        lambda: pt.log(pt.expm1(x)),
        lambda: pt.log(pt.expm1(x) + 1e-3),
        STABLE,
        POS,
    ),
    Row(
        "1 - exp(x) -> -expm1(x)",
        "stabilize:sub(1, exp(x))",
        lambda: 1 - pt.exp(x),
        lambda: 2 - pt.exp(x),
        STABLE,
    ),
    Row(
        "expm1(x) + 1 -> exp(x)",
        "stabilize:add(expm1(x), 1)",
        lambda: pt.expm1(x) + 1,
        lambda: pt.expm1(x) + 2,
        STABLE,
    ),
    Row(
        "x - softplus(x)",
        "stabilize:sub(x, softplus(x))",
        lambda: x - pt.softplus(x),
        lambda: y - pt.softplus(x),
        STABLE,
    ),
    Row(
        "softplus(x) - x",
        "stabilize:sub(softplus(x), x)",
        lambda: pt.softplus(x) - x,
        lambda: pt.softplus(x) - y,
        STABLE,
    ),
    Row(
        "logit(sigmoid(x)) -> x",
        "stabilize:logit(sigmoid(x))",
        lambda: pt.logit(pt.sigmoid(x)),
        lambda: pt.logit(pt.sigmoid(x) * 0.5),
        STABLE,
    ),
    Row(
        "sigmoid(logit(x)) -> x",
        "stabilize:sigmoid(logit(x))",
        lambda: pt.sigmoid(pt.logit(x)),
        lambda: pt.sigmoid(pt.logit(x) * 2),
        STABLE,
        (0.1, 0.9),
    ),
    Row(
        "log(1 / x) -> -log(x)",
        "stabilize:log(true_div(1, x))",
        lambda: pt.log(1 / x),
        lambda: pt.log(2 / x),
        STAB,
        POS,
    ),
    Row(
        "1 - erf(x) -> erfc(x)",
        "stabilize:sub(1, erf(x))",
        lambda: 1 - pt.erf(x),
        lambda: 2 - pt.erf(x),
        STABLE,
    ),
    Row(
        "1 + erf(x) -> erfc(-x)",
        "stabilize:add(1, erf(x))",
        lambda: 1 + pt.erf(x),
        lambda: 2 + pt.erf(x),
        STABLE,
    ),
    Row(
        "erf(x) - 1 -> -erfc(x)",
        "stabilize:sub(erf(x), 1)",
        lambda: pt.erf(x) - 1,
        lambda: pt.erf(x) - 2,
        STABLE,
    ),
    Row(
        "1 - erfc(x) -> erf(x)",
        "stabilize:sub(1, erfc(x))",
        lambda: 1 - pt.erfc(x),
        lambda: 2 - pt.erfc(x),
        STABLE,
    ),
    Row(
        "erfc(x) - 1 -> -erf(x)",
        "stabilize:sub(erfc(x), 1)",
        lambda: pt.erfc(x) - 1,
        lambda: pt.erfc(x) - 2,
        STABLE,
    ),
    Row(
        "exp(x) - exp(-x) -> 2 sinh(x)",
        "stabilize:sub(exp(x), exp(neg(x)))",
        lambda: pt.exp(x) - pt.exp(-x),
        lambda: pt.exp(x) - pt.exp(-y),
        STABLE,
    ),
    Row(
        "exp(x) + exp(-x) -> 2 cosh(x)",
        "stabilize:add(exp(x), exp(neg(x)))",
        lambda: pt.exp(x) + pt.exp(-x),
        lambda: pt.exp(x) + pt.exp(-y),
        STABLE,
    ),
    Row(
        "1 - tanh(x)^2 -> 1 / cosh(x)^2 (the derivative of tanh)",
        "stabilize:sub(1, sqr(tanh(x)))",
        lambda: 1 - pt.sqr(pt.tanh(x)),
        lambda: 1 - pt.sqr(pt.sin(x)),
        STABLE,
    ),
    Row(
        "log(sqrt(x))",
        "stabilize:log(sqrt(x))",
        lambda: pt.log(pt.sqrt(x)),
        lambda: pt.log(pt.cbrt(x)),
        STABLE,
        POS,
    ),
    Row(
        "log(x^2) -> 2 log|x|",
        "stabilize:log(sqr(x))",
        lambda: pt.log(pt.sqr(x)),
        lambda: pt.log(pt.sqr(x) + 1),
        STABLE,
    ),
    Row(
        "sqrt(x ** 2) -> |x|",
        "stabilize:sqrt(pow(x, 2))",
        lambda: pt.sqrt(pt.pow(x, 2)),
        lambda: pt.sqrt(pt.pow(x, 4)),
        STAB,
    ),
    Row(
        "log(x + sqrt(x^2 + 1)) -> arcsinh(x)",
        "stabilize:log(add(x, hypot(1, x)))",
        lambda: pt.log(x + pt.sqrt(x**2 + 1)),
        lambda: pt.log(y + pt.sqrt(x**2 + 1)),
        STABLE,
    ),
    Row(
        "1 + x / hypot(1, x) -> (x + hypot(1, x)) / hypot(1, x) (the derivative of arcsinh)",
        "stabilize:add(1, true_div(x, hypot(1, x)))",
        lambda: 1 + x / pt.hypot(1.0, x),
        lambda: 1 + y / pt.hypot(1.0, x),
        STAB,
    ),
    Row(
        "log(cosh(x))",
        "local_log_cosh",
        lambda: pt.log(pt.cosh(x)),
        lambda: pt.log(pt.tanh(x) + 2),
        STABLE,
    ),
    Row(
        "log(sinh(x))",
        "local_log_sinh",
        lambda: pt.log(pt.sinh(x)),
        lambda: pt.log(pt.cosh(x) + pt.sinh(x)),
        STABLE,
        POS,
    ),
    Row(
        "log(erfc(x))",
        "local_log_erfc",
        lambda: pt.log(pt.erfc(x)),
        lambda: pt.log(pt.erf(x)),
        STABLE,
        POS,
    ),
    Row(
        "log(a * b / c)",
        "local_log_of_product",
        lambda: pt.log(x * y / (x + 3)),
        lambda: pt.log(x + y),
        STABLE,
    ),
    Row(
        "log(x ** p)", "local_log_of_power", lambda: pt.log(x**3), lambda: pt.log(x**y), STABLE, POS
    ),
    Row(
        "log(prod(v))",
        "local_log_of_prod",
        lambda: pt.log(pt.prod(x)),
        lambda: pt.log(pt.sum(x)),
        STABLE,
    ),
    Row(
        "sqrt(a^2 + b^2) -> hypot(a, b)",
        "local_sqrt_sum_of_squares",
        lambda: pt.sqrt(x**2 + y * y),
        lambda: pt.sqrt(x**2 + y),
        STABLE,
    ),
    Row(
        "fill of a scalar shape source",
        "local_useless_fill",
        lambda: pt.second(x.sum(), y),
        lambda: pt.second(x, y.sum()),
    ),
]

# Tested in their own areas (tests/tensor/random/test_rewriting.py).
ELSEWHERE = {"local_random_make_inplace"}

ALL_ROWS = ROWS + OTHER_ROWS + SCAN_ROWS
IDS = [f"{row.rewrite}[{row.item}]" for row in ALL_ROWS]


def test_every_row_names_a_registered_rewrite():
    missing = sorted({row.rewrite for row in ALL_ROWS} - set(rewrites.names()))
    assert not missing


def test_every_registered_rewrite_has_a_row():
    covered = {row.rewrite for row in ALL_ROWS} | ELSEWHERE
    assert sorted(set(rewrites.names()) - covered) == []


@pytest.mark.parametrize("row", ALL_ROWS, ids=IDS)
def test_rewrite_fires(row):
    _, fired = rewrite_traced(
        row.fires(), row.include, row.exclude, values=row.values, domain=row.domain
    )
    assert row.rewrite in fired, fired


@pytest.mark.parametrize("row", ALL_ROWS, ids=IDS)
def test_rewrite_does_not_fire_when_its_condition_fails(row):
    # the "unsafe" rows show the rule is off unless "unsafe" is asked for
    include = CANON if row.include == ("canonicalize", "unsafe") else row.include
    _, fired = rewrite_traced(
        row.skips(), include, row.exclude, values=row.values, domain=row.domain
    )
    assert row.rewrite not in fired, fired
