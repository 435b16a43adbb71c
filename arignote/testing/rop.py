"""Checks of ``R_op``/``L_op``: the JVP against finite differences, the adjoint identity.

For an op (or graph) ``f`` at ``x``, with random ``v`` (shaped like the inputs) and ``u`` (shaped
like the outputs):

- ``Rop(f, x, v)`` must equal the central difference ``(f(x + eps v) - f(x - eps v)) / 2 eps``;
- ``<u, Rop(f, x, v)>`` must equal ``<Lop(f, x, u), v>`` (``J v`` and ``J^T u`` use the same J).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from arignote.autodiff import Lop, Rop
from arignote.compile import function
from arignote.config import config
from arignote.graph.basic import Apply, Variable
from arignote.graph.grad_types import grad_undefined
from arignote.graph.op import Op
from arignote.graph.replace import clone_replace
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.type import TensorType
from arignote.testing.gradcheck import (
    default_eps,
    default_tol,
    float_points,
    numeric_grad,
    symbolic_inputs,
)
from arignote.testing.seeds import fetch_seed

#: Tolerance of the adjoint identity (both sides are exact up to rounding), per dtype.
ADJOINT_TOL = {"float64": 1e-7, "float32": 1e-3, "float16": 5e-2}


class BreakRop(Op):
    """The identity, with an undefined gradient and no R-operator (None).

    Put between an input and a graph, it makes the graph non-differentiable: ``Rop`` through it
    must report a disconnected output (see :func:`check_nondiff_rop`).
    """

    __props__ = ()
    view_map = {0: [0]}

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0]

    def infer_shape(self, fgraph, node, input_shapes):
        return input_shapes

    def grad(self, inputs, output_grads):
        return [grad_undefined(self, 0, inputs[0], "BreakRop breaks differentiation on purpose.")]

    def R_op(self, inputs, eval_points):
        return [None]


break_op = BreakRop()


def _float_outputs(outputs: Sequence[Variable]) -> list[Variable]:
    return [o for o in outputs if getattr(o.type, "dtype", "").startswith("float")]


def _random_like(rng: np.random.Generator, value: Any) -> np.ndarray:
    value = np.asarray(value)
    return np.asarray(rng.standard_normal(value.shape), dtype=value.dtype)


def _numeric_jvp(out_fn: Callable, values: list, tangents: list, eps: float) -> list:
    """Central differences of every output along the direction ``tangents``."""

    def along(t: float) -> list:
        return [np.asarray(o, dtype="float64") for o in out_fn(*moved(t))]

    def moved(t: float) -> list:
        return [np.asarray(x + t * v, dtype=x.dtype) for x, v in zip(values, tangents)]

    above, below = along(eps), along(-eps)
    return [(a - b) / (2 * eps) for a, b in zip(above, below)]


def _dot(a: Any, b: Any) -> float:
    return float(np.sum(np.multiply(a, b, dtype="float64")))


def _assert_close(what: str, got: Any, expected: Any, abs_tol: float, rel_tol: float) -> None:
    got, expected = np.asarray(got, dtype="float64"), np.asarray(expected, dtype="float64")
    if got.shape != expected.shape:
        raise AssertionError(f"{what}: shape {got.shape}, expected {expected.shape}")
    abs_err, rel_err = numeric_grad.abs_rel_err(got, expected)
    bad = (abs_err > abs_tol) & (rel_err > rel_tol) | ~np.isfinite(abs_err)
    if np.any(bad):
        index = tuple(int(i) for i in np.unravel_index(int(np.argmax(bad)), bad.shape))
        raise AssertionError(
            f"{what} mismatch at {index}: got {got[index]!r}, expected {expected[index]!r} "
            f"(max abs. error {abs_err.max():.3g}, tolerance {abs_tol:g}; max rel. error "
            f"{rel_err.max():.3g}, tolerance {rel_tol:g})"
        )


def check_rop_lop_graph(
    outputs: Sequence[Variable],
    wrt: Sequence[Variable],
    values: Sequence[np.ndarray],
    rng: np.random.Generator,
    eps: float,
    abs_tol: float,
    rel_tol: float,
    mode: Any = None,
) -> None:
    """Check ``Rop``/``Lop`` of ``outputs`` with respect to the inputs ``wrt`` at ``values``.

    ``wrt`` must be all the (non-shared, non-constant) inputs the outputs need.
    """
    outputs = _float_outputs(outputs)
    if not outputs:
        raise ValueError("check_rop_lop needs at least one floating-point output")
    wrt, values = list(wrt), [np.array(v) for v in values]
    out_fn = function(wrt, outputs, mode=mode, on_unused_input="ignore")
    tangents = [_random_like(rng, x) for x in values]
    jvps = _check_jvp(out_fn, outputs, wrt, values, tangents, (eps, abs_tol, rel_tol), mode)
    cotangents = [_random_like(rng, o) for o in out_fn(*values)]
    _check_adjoint(outputs, wrt, values, tangents, jvps, cotangents, mode)


def _check_jvp(out_fn, outputs, wrt, values, tangents, tolerances, mode) -> list:
    """``J v`` by ``Rop`` against central differences; returns the ``Rop`` values."""
    eps, abs_tol, rel_tol = tolerances
    v_vars = [w.type() for w in wrt]
    jvp = Rop(outputs, wrt, v_vars, disconnected_outputs="ignore")
    jvp_fn = function(wrt + v_vars, jvp, mode=mode, on_unused_input="ignore")
    jvp_values = jvp_fn(*values, *tangents)
    numeric = _numeric_jvp(out_fn, values, tangents, eps)
    for k, (got, expected) in enumerate(zip(jvp_values, numeric)):
        _assert_close(f"Rop of output {k} vs finite differences", got, expected, abs_tol, rel_tol)
    return jvp_values


def _check_adjoint(outputs, wrt, values, tangents, jvp_values, cotangents, mode) -> None:
    """``<u, J v> == <J^T u, v>``, with ``J^T u`` from ``Lop``."""
    u_vars = [o.type() for o in outputs]
    vjp = Lop(outputs, wrt, u_vars, disconnected_inputs="ignore")
    vjp_fn = function(u_vars + wrt, vjp, mode=mode, on_unused_input="ignore")
    vjp_values = vjp_fn(*cotangents, *values)
    left = sum(_dot(u, j) for u, j in zip(cotangents, jvp_values))
    right = sum(_dot(g, v) for g, v in zip(vjp_values, tangents))
    tol = max(ADJOINT_TOL[np.asarray(x).dtype.name] for x in values)
    if not abs(left - right) <= tol * max(1.0, abs(left), abs(right)):
        raise AssertionError(
            f"Adjoint identity <u, Rop(v)> == <Lop(u), v> fails: {left!r} != {right!r} "
            f"(relative tolerance {tol:g})"
        )


def check_rop_lop(
    fun: Callable,
    pt: Sequence[Any],
    rng: np.random.Generator | None = None,
    eps: float | None = None,
    abs_tol: float | None = None,
    rel_tol: float | None = None,
    mode: Any = None,
) -> None:
    """Check the R-operator and the L-operator of ``fun`` at ``pt``.

    ``fun`` takes one symbolic tensor per entry of ``pt`` (floating-point arrays) and returns a
    tensor or a list of tensors. ``Rop`` along a random direction must match central finite
    differences (within ``abs_tol``/``rel_tol``, defaults as in :func:`verify_grad`), and
    ``<u, Rop(v)>`` must equal ``<Lop(u), v>`` for random ``u``, ``v``. Raises
    ``AssertionError`` saying which check failed, for which output and where.
    """
    points = float_points(pt, "check_rop_lop")
    rng = np.random.default_rng(fetch_seed()) if rng is None else rng
    inputs = symbolic_inputs(points)
    result = fun(*inputs)
    outputs = list(result) if isinstance(result, (list, tuple)) else [result]
    check_rop_lop_graph(
        [as_tensor_variable(o) for o in outputs],
        inputs,
        points,
        rng,
        default_eps(points) if eps is None else eps,
        default_tol(points) if abs_tol is None else abs_tol,
        default_tol(points) if rel_tol is None else rel_tol,
        mode,
    )


def check_nondiff_rop(y: Any, x: Any, v: Any) -> None:
    """Check that ``Rop(y, x, v)`` fails with ``ValueError``: for graphs that are not
    differentiable (an op whose ``R_op`` returns None, see :class:`BreakRop`)."""
    try:
        Rop(y, x, v)
    except ValueError:
        return
    raise AssertionError(f"Rop of {y} with respect to {x} should have raised ValueError")


class RopLopChecker:
    """Base class for tests of an op's ``R_op`` (the seed documents' ``RopLop_checker``).

    ``setup_method`` (also spelled ``setUp``) creates the inputs: ``self.x`` and ``self.v``
    (vectors of length ``self.in_shape``), ``self.mx`` and ``self.mv`` (matrices of shape
    ``self.mat_in_shape``, never square) and ``self.rng``. Build the op's output from
    ``self.x`` (or ``self.mx``); its other inputs must be shared variables or constants.
    """

    def setup_method(self) -> None:
        self.rng = np.random.default_rng(fetch_seed())
        self.x = TensorType(config.floatX, shape=(None,))("x")
        self.v = TensorType(config.floatX, shape=(None,))("v")
        self.in_shape = (5 + int(self.rng.integers(3)),)
        self.mx = TensorType(config.floatX, shape=(None, None))("mx")
        self.mv = TensorType(config.floatX, shape=(None, None))("mv")
        self.mat_in_shape = (5 + int(self.rng.integers(3)), 9 + int(self.rng.integers(3)))

    def setUp(self) -> None:  # the unittest spelling the seed documents use
        self.setup_method()

    @staticmethod
    def rtol() -> float:
        return 1e-4 if config.floatX == "float64" else 1e-2

    def check_nondiff_rop(self, y: Any, x: Any, v: Any) -> None:
        """``Rop(y, x, v)`` must raise ``ValueError`` (y is not differentiable in x)."""
        check_nondiff_rop(y, x, v)

    def check_rop_lop(self, y: Variable, out_shape: Sequence[int], check_nondiff_rop=True):
        """Check ``Rop``/``Lop`` of ``y``, built from ``self.x``, at a random point."""
        self._check(y, self.x, self.v, self.in_shape, out_shape, check_nondiff_rop)

    def check_mat_rop_lop(self, y: Variable, out_shape: Sequence[int], check_nondiff_rop=True):
        """Like :meth:`check_rop_lop` for ``y`` built from the matrix ``self.mx``."""
        self._check(y, self.mx, self.mv, self.mat_in_shape, out_shape, check_nondiff_rop)

    def _check(self, y, x, v, in_shape, out_shape, nondiff) -> None:
        value = np.asarray(self.rng.uniform(size=in_shape), dtype=x.type.dtype)
        got_shape = np.shape(function([x], y, on_unused_input="ignore")(value))
        if tuple(got_shape) != tuple(out_shape):
            raise AssertionError(f"the output has shape {got_shape}, not {tuple(out_shape)}")
        tol = self.rtol()
        check_rop_lop_graph([y], [x], [value], self.rng, default_eps([value]), tol, tol)
        if nondiff:
            self.check_nondiff_rop(clone_replace(y, replace={x: break_op(x)}), x, v)
