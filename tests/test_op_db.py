"""Generic tests generated from the op database (tests/op_db): every entry, sample and dtype."""

from __future__ import annotations

import copy
import importlib
import pickle
import zlib

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.compile.mode import Mode
from arignote.gradient import Lop, Rop, grad
from arignote.graph.basic import Constant, ancestors, io_toposort
from arignote.tensor.alloc import BroadcastLength
from arignote.tensor.basic import MakeVector
from arignote.testing import InferShapeTester, verify_grad
from tests.op_db import REGISTRY
from tests.op_db.core import cast_sample
from tests.op_db.second_order import SECOND_ORDER

NO_REWRITES = Mode(linker="vm", optimizer=None)


def _cases():
    for info in REGISTRY:
        rng = np.random.default_rng(zlib.crc32(info.name.encode()))
        for index, sample in enumerate(info.samples(rng)):
            label = sample.name or str(index)
            for dtype in info.dtypes:
                yield pytest.param(
                    info, cast_sample(sample, dtype), dtype, id=f"{info.name}-{label}-{dtype}"
                )


CASES = list(_cases())


def _apply_directive(request, info, test, dtype, sample):
    directive = info.directive_for(test, dtype, sample.name)
    if directive is None:
        return
    if directive.kind == "skip":
        pytest.skip(directive.reason)
    request.applymarker(pytest.mark.xfail(reason=directive.reason, strict=True))


def _symbolic(sample):
    """Symbolic inputs for the non-static args (static length-1 dims stay broadcastable)."""
    symbols, values, call_args = [], [], []
    for position, arg in enumerate(sample.args):
        if position in sample.static or not isinstance(arg, np.ndarray):
            call_args.append(arg)
            continue
        var = pt.tensor(
            dtype=arg.dtype,
            shape=tuple(1 if s == 1 else None for s in arg.shape),
            name=f"x{position}",
        )
        symbols.append(var)
        values.append(arg)
        call_args.append(var)
    return symbols, values, call_args


def _outputs(result):
    return list(result) if isinstance(result, (list, tuple)) else [result]


def _check_values(info, actual, expected, dtype):
    rtol = info.rtol if info.rtol is not None else (1e-4 if dtype == "float32" else 1e-7)
    atol = info.atol if info.atol is not None else (1e-5 if dtype == "float32" else 1e-10)
    for a, e in zip(_outputs(actual), _outputs(expected)):
        e = np.asarray(e)
        assert np.shape(a) == e.shape, f"shape {np.shape(a)} != reference {e.shape}"
        if e.dtype.kind in "fc":
            np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
        else:
            np.testing.assert_array_equal(a, e)


def _run(info, sample, mode):
    symbols, values, call_args = _symbolic(sample)
    outputs = _outputs(info.build(*call_args, **sample.kwargs))
    fn = arignote.function(symbols, outputs, mode=mode, on_unused_input="ignore")
    return fn(*values), outputs


@pytest.mark.parametrize(("info", "sample", "dtype"), CASES)
def test_perform_matches_ref(request, info, sample, dtype):
    _apply_directive(request, info, "perform", dtype, sample)
    actual, _ = _run(info, sample, NO_REWRITES)
    _check_values(info, actual, info.ref(*sample.args, **sample.kwargs), dtype)


@pytest.mark.parametrize(("info", "sample", "dtype"), CASES)
def test_fast_run_matches_ref(request, info, sample, dtype):
    _apply_directive(request, info, "perform", dtype, sample)
    actual, outputs = _run(info, sample, "FAST_RUN")
    _check_values(info, actual, info.ref(*sample.args, **sample.kwargs), dtype)
    for out, value in zip(outputs, actual):
        assert np.dtype(out.type.dtype) == np.asarray(value).dtype


# Ops that legitimately compute lengths in a shape graph (integer arithmetic on lengths).
SHAPE_ARITHMETIC = (pt.Elemwise, pt.DimShuffle, MakeVector, pt.Shape, pt.Shape_i, BroadcastLength)


def _ops_that_must_vanish(info, symbols, outputs) -> tuple:
    """The entry's ``op_class`` and every other op class of the value graph, except the
    shape arithmetic: none of them may be needed to compute the outputs' shapes."""
    declared = info.op_class if isinstance(info.op_class, tuple) else (info.op_class,)
    in_graph = {type(node.op) for node in io_toposort(symbols, outputs)}
    others = {c for c in in_graph if not issubclass(c, SHAPE_ARITHMETIC)}
    return tuple({c for c in declared if c is not None} | others)


@pytest.mark.parametrize(("info", "sample", "dtype"), CASES)
def test_infer_shape(request, info, sample, dtype):
    if not info.infer_shape:
        pytest.skip("no infer_shape check for this entry")
    _apply_directive(request, info, "infer_shape", dtype, sample)
    symbols, values, call_args = _symbolic(sample)
    outputs = _outputs(info.build(*call_args, **sample.kwargs))
    must_vanish = _ops_that_must_vanish(info, symbols, outputs)
    if not must_vanish:
        pytest.skip("the value graph is only shape arithmetic")
    tester = InferShapeTester()
    tester.setup_method()
    tester._compile_and_check(symbols, outputs, values, must_vanish, warn=False)


def _differentiable(sample):
    symbols, values, call_args = _symbolic(sample)
    wrt = [i for i, v in enumerate(values) if v.dtype.kind == "f"]
    return symbols, values, call_args, wrt


def _grad_function(info, sample, output_index):
    """``fun(*float_args)`` for verify_grad; other arguments are passed as plain values."""
    floats = [
        i
        for i, a in enumerate(sample.args)
        if i not in sample.static and isinstance(a, np.ndarray) and a.dtype.kind == "f"
    ]

    def fun(*xs):
        args = list(sample.args)
        for i, x in zip(floats, xs):
            args[i] = x
        return _outputs(info.build(*args, **sample.kwargs))[output_index]

    return fun, [sample.args[i] for i in floats]


@pytest.mark.parametrize(("info", "sample", "dtype"), CASES)
def test_grad(request, info, sample, dtype):
    if not info.grad:
        pytest.skip("not differentiable")
    _apply_directive(request, info, "grad", dtype, sample)
    _, _, call_args = _symbolic(sample)
    n_out = len(_outputs(info.build(*call_args, **sample.kwargs)))
    kwargs = {"rng": np.random.default_rng(0)}
    if info.grad_eps is not None:
        kwargs["eps"] = info.grad_eps
    if info.grad_tol is not None:
        kwargs["abs_tol"] = kwargs["rel_tol"] = info.grad_tol
    for output_index in range(n_out):
        fun, points = _grad_function(info, sample, output_index)
        if not points:
            pytest.skip("no floating-point input")
        verify_grad(fun, points, **kwargs)


def _second_order_function(fun, out_shape, k):
    """``xs -> d <c, fun(xs)> / d xs[k]`` for a fixed random ``c``: its Jacobian holds the
    second derivatives of ``fun`` (the Hessian blocks of input ``k`` with every input)."""
    weights = pt.constant(np.random.default_rng(3).uniform(0.5, 1.5, size=out_shape))

    def gradient(*xs):
        return grad((fun(*xs) * weights).sum(), xs[k], disconnected_inputs="ignore")

    return gradient


SECOND_ORDER_CASES = [
    case
    for case in CASES
    if case.values[0].grad
    and (case.values[0].second_order or case.values[0].name in SECOND_ORDER)
    and case.values[2] == "float64"
]


@pytest.mark.parametrize(("info", "sample", "dtype"), SECOND_ORDER_CASES)
def test_second_order(request, info, sample, dtype):
    """grad(grad): the gradient with respect to each input of <c, output>, for a fixed c,
    differentiated again and checked against finite differences (float64 only)."""
    if info.directive_for("grad", dtype, sample.name) is not None:
        pytest.skip("the first-order check of this sample is skipped or expected to fail")
    _apply_directive(request, info, "second_order", dtype, sample)
    expected = _outputs(info.ref(*sample.args, **sample.kwargs))
    kwargs = {"rng": np.random.default_rng(0)}
    if info.grad_eps is not None:
        kwargs["eps"] = info.grad_eps
    if info.grad_tol is not None:
        kwargs["abs_tol"] = kwargs["rel_tol"] = info.grad_tol
    checked = 0
    for output_index, value in enumerate(expected):
        fun, points = _grad_function(info, sample, output_index)
        if np.asarray(value).dtype.kind != "f":
            continue
        for k in range(len(points)):
            verify_grad(_second_order_function(fun, np.shape(value), k), points, **kwargs)
            checked += 1
    if not checked:
        pytest.skip("no floating-point input or output")


def test_second_order_names_are_entries():
    names = {info.name for info in REGISTRY if info.grad}
    assert names >= SECOND_ORDER, sorted(SECOND_ORDER - names)


def _float64_leaks(symbols, outputs, grads):
    """float64 variables of the gradient graph that depend on the (float32) data, other than
    those of the forward graph (a float64 index computation like linspace's is not a leak)."""
    forward = set(ancestors(outputs))
    data = {v for v in symbols if v.type.dtype == "float32"}
    leaks = []
    for node in io_toposort(symbols, grads):
        for out in node.outputs:
            if getattr(out.type, "dtype", None) != "float64" or out in forward:
                continue
            if data.intersection(ancestors([out], blockers=list(data))):
                leaks.append(f"{node.op} -> {out.type}")
    return leaks


@pytest.mark.parametrize(
    ("info", "sample", "dtype"), [c for c in CASES if c.values[2] == "float32"]
)
def test_grad_stays_float32(request, info, sample, dtype):
    """A float32 graph gets float32 gradients computed in float32 (no float64 on the way)."""
    if not info.grad or info.directive_for("grad", dtype, sample.name) is not None:
        pytest.skip("not differentiable, or the gradient check is skipped or expected to fail")
    _apply_directive(request, info, "grad_dtype", dtype, sample)
    symbols, _, call_args, wrt = _differentiable(sample)
    outputs = [
        o for o in _outputs(info.build(*call_args, **sample.kwargs)) if o.type.dtype == "float32"
    ]
    wrt_vars = [symbols[i] for i in wrt if symbols[i].type.dtype == "float32"]
    if not wrt_vars or not outputs:
        pytest.skip("no float32 input and output")
    cost = sum((o * np.float32(0.7)).sum() for o in outputs)
    grads = grad(cost, wrt_vars, disconnected_inputs="ignore", null_gradients="return")
    grads = [g for g in grads if getattr(g.type, "dtype", None) is not None]
    assert all(g.type.dtype == "float32" for g in grads)
    assert _float64_leaks(symbols, outputs, grads) == []


def _float_outputs(outputs):
    return [o for o in outputs if o.type.dtype.startswith(("float", "complex"))]


@pytest.mark.parametrize(("info", "sample", "dtype"), CASES)
def test_rop(request, info, sample, dtype):
    if not info.rop or not info.grad:
        pytest.skip("no R_op check for this entry")
    _apply_directive(request, info, "rop", dtype, sample)
    symbols, values, call_args, wrt = _differentiable(sample)
    outputs = _float_outputs(_outputs(info.build(*call_args, **sample.kwargs)))
    if not wrt or not outputs:
        pytest.skip("nothing to differentiate")
    rng = np.random.default_rng(1)
    tangents = [rng.normal(size=values[i].shape).astype(values[i].dtype) for i in wrt]
    eval_points = [symbols[i].type() for i in wrt]
    jvp = Rop(outputs, [symbols[i] for i in wrt], eval_points, disconnected_outputs="ignore")
    fn_jvp = arignote.function(symbols + eval_points, jvp, on_unused_input="ignore")
    fn_out = arignote.function(symbols, outputs, on_unused_input="ignore")
    eps = 1e-6 if dtype == "float64" else 3e-3
    shifted = [list(values), list(values)]
    for k, i in enumerate(wrt):
        shifted[0][i] = values[i] + eps * tangents[k]
        shifted[1][i] = values[i] - eps * tangents[k]
    above, below = fn_out(*shifted[0]), fn_out(*shifted[1])
    numeric = [(np.asarray(a, "float64") - b) / (2 * eps) for a, b in zip(above, below)]
    tol = 1e-4 if dtype == "float64" else 5e-2
    for got, expected in zip(fn_jvp(*values, *tangents), numeric):
        np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)


@pytest.mark.parametrize(("info", "sample", "dtype"), CASES)
def test_adjoint(request, info, sample, dtype):
    if not info.rop or not info.grad:
        pytest.skip("no R_op check for this entry")
    _apply_directive(request, info, "adjoint", dtype, sample)
    symbols, values, call_args, wrt = _differentiable(sample)
    outputs = _float_outputs(_outputs(info.build(*call_args, **sample.kwargs)))
    if not wrt or not outputs:
        pytest.skip("nothing to differentiate")
    rng = np.random.default_rng(2)
    wrt_vars = [symbols[i] for i in wrt]
    v_vars = [v.type() for v in wrt_vars]
    u_vars = [o.type() for o in outputs]
    jvp = Rop(outputs, wrt_vars, v_vars, disconnected_outputs="ignore")
    vjp = Lop(outputs, wrt_vars, u_vars, disconnected_inputs="ignore")
    fn = arignote.function(symbols + v_vars + u_vars, jvp + vjp, on_unused_input="ignore")
    out_values = arignote.function(symbols, outputs, on_unused_input="ignore")(*values)
    vs = [rng.normal(size=values[i].shape).astype(values[i].dtype) for i in wrt]
    us = [rng.normal(size=np.shape(o)).astype(np.asarray(o).dtype) for o in out_values]
    results = fn(*values, *vs, *us)
    jvps, vjps = results[: len(outputs)], results[len(outputs) :]
    left = sum(float(np.sum(u * j)) for u, j in zip(us, jvps))
    right = sum(float(np.sum(g * v)) for g, v in zip(vjps, vs))
    tol = 1e-6 if dtype == "float64" else 1e-2
    assert left == pytest.approx(right, rel=tol, abs=tol)


@pytest.mark.parametrize(("info", "sample", "dtype"), CASES)
def test_props_contract(request, info, sample, dtype):
    _apply_directive(request, info, "props", dtype, sample)
    symbols, _, call_args = _symbolic(sample)
    outputs = _outputs(info.build(*call_args, **sample.kwargs))
    for node in io_toposort(symbols, outputs):
        op = node.op
        twin = copy.copy(op)
        assert twin == op and hash(twin) == hash(op)
        restored = pickle.loads(pickle.dumps(op))
        assert restored == op and hash(restored) == hash(op)
        assert isinstance(str(op), str) and str(op)
        remade = op.make_node(*node.inputs)
        assert [o.type for o in remade.outputs] == [o.type for o in node.outputs]


@pytest.mark.parametrize(("info", "sample", "dtype"), CASES)
def test_constant_folding(request, info, sample, dtype):
    _apply_directive(request, info, "constant_folding", dtype, sample)
    args = [
        pt.constant(a) if isinstance(a, np.ndarray) and i not in sample.static else a
        for i, a in enumerate(sample.args)
    ]
    outputs = _outputs(info.build(*args, **sample.kwargs))
    fn = arignote.function([], outputs)
    _check_values(info, fn(), info.ref(*sample.args, **sample.kwargs), dtype)
    if info.op_class is not None:
        assert all(isinstance(o, Constant) or o.owner is not None for o in fn.maker.fgraph.outputs)


# -- coverage: every public name of the op families has an entry ---------------------------------

# The family modules whose public names (``__all__``) must each have an op_db entry.
COVERED_FAMILIES = (
    "reduction",
    "alloc",
    "join",
    "extra_ops",
    "pad",
    "shape",
    "reshape",
    "subtensor",
    "advanced_subtensor",
    "indexing_ops",
    "sort",
    "products",
    "linalg.decompositions",
    "linalg.inverse",
    "linalg.least_squares",
    "linalg.misc",
    "linalg.norms",
    "linalg.solve",
)

# Public names without their own entry, and why.
NO_ENTRY = {
    "BaseBlockDiagonal": "the base class of block-diagonal ops (never instantiated): its "
    "BlockDiagonal subclass has the block_diag entry",
    "normalize_axes": "a helper that normalizes axis arguments (no graph); tests/tensor/"
    "test_reduction.py",
    "SliceSpec": "the description of a slice inside Subtensor's props, not an op",
    "AddAlongAxis": "the gradient of take_along_axis: exercised by its grad/rop/adjoint tests "
    "and tests/tensor/test_indexing_ops.py::test_AddAlongAxis_accumulates_and_checks_values",
    "BincountLength": "bincount's shape (the op its infer_shape builds): "
    "tests/tensor/test_indexing_ops.py::test_bincount_shape_is_computed_without_counting",
    "UniqueCount": "unique's shape (the op its infer_shape builds): "
    "tests/tensor/test_sort.py::test_UniqueCount_props_and_value",
    "DiagonalBlocks": "the gradient of block_diag: exercised by its grad/rop/adjoint tests and "
    "tests/tensor/linalg/test_basic.py::test_DiagonalBlocks_is_the_adjoint_of_BlockDiagonal",
    "ExpmFrechet": "the gradient of expm: exercised by its grad/rop/adjoint tests and "
    "tests/tensor/linalg/test_misc.py::test_ExpmFrechet_matches_scipy",
}


def _covered() -> tuple[set[str], set[int], set[type]]:
    """Entry names (without their ``[variant]``), ids of their builders, and op classes."""
    names, builders, op_classes = set(), set(), set()
    for info in REGISTRY:
        names.add(info.name.split("[")[0])
        builders.add(id(info.build))
        declared = info.op_class if isinstance(info.op_class, tuple) else (info.op_class,)
        op_classes.update(c for c in declared if c is not None)
    return names, builders, op_classes


def _public_names():
    for family in COVERED_FAMILIES:
        module = importlib.import_module(f"arignote.tensor.{family}")
        for name in module.__all__:
            yield family, name, getattr(module, name)


def test_every_public_name_of_the_families_has_an_entry():
    names, builders, op_classes = _covered()
    missing = []
    for family, name, obj in _public_names():
        if name in NO_ENTRY:
            continue
        if isinstance(obj, type):
            covered = obj in op_classes  # an op: some entry checks that it leaves shape graphs
        else:  # a function, or another name for one (permute_dims is transpose)
            covered = name in names or getattr(obj, "__name__", None) in names
            covered = covered or id(obj) in builders
        if not covered:
            missing.append(f"{family}.{name}")
    assert not missing, f"no op_db entry (nor NO_ENTRY reason) for {missing}"


def test_no_entry_exemptions_are_current():
    public = {name for _, name, _ in _public_names()}
    assert set(NO_ENTRY) <= public, set(NO_ENTRY) - public
