"""Optimisation and root finding inside a graph (PyTensor's ``pytensor.tensor.optimize``).

``minimize(objective, x)`` returns the ``x`` at which ``objective`` is smallest, and
``root(equations, x)`` the ``x`` at which ``equations`` vanish, as symbolic variables, together
with SciPy's success flag. The ops keep a private copy of the objective's graph (an inner
graph whose inputs are ``x`` and the *parameters*: every other variable the objective uses)
and run SciPy's optimisers (``scipy.optimize.minimize``, ``minimize_scalar``, ``root``,
``root_scalar``) at run time, the inner function (with its gradient and Hessian when asked)
being what SciPy calls. A compiled function compiles that inner function once, in
``make_thunk``, with the outer function's mode; ``perform`` evaluates the inner graph node by
node (the reference, used by constant folding, DebugMode and the Numba object-mode fallback).

Gradients of the solution with respect to the parameters come from the implicit function
theorem. The solution ``x*(θ)`` satisfies ``F(x*(θ), θ) = 0``, where ``F`` is the system of
equations (``root``) or the gradient of the objective (``minimize``, which vanishes at a
minimum). Differentiating, ``J_x dx* + J_θ dθ = 0``, so for an output gradient ``g``

    dL/dθ = -J_θᵀ J_x⁻ᵀ g = -∂/∂θ [ F(x*, θ) · λ ],   with   J_xᵀ λ = g,

one linear solve (``J_x`` is the Hessian for ``minimize``) and one vector-Jacobian product,
never the Jacobian with respect to the parameters. The gradient with respect to the starting
point is zero (the solution does not depend on it, where the solver converges).

Like PyTensor's, this module is reached as ``arignote.tensor.optimize`` (it sits above the
tensor layer since it compiles functions and differentiates graphs).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import scipy.optimize

from arignote.autodiff import grad
from arignote.autodiff.connection import graph_connection_pattern
from arignote.compile.builders import _evaluate, _structure_key
from arignote.compile.function import function
from arignote.compile.mode import get_mode, linking_mode
from arignote.gradient import jacobian
from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.grad_types import is_disconnected, is_null
from arignote.graph.op import Op, StoredInnerGraph, inner_function_thunk
from arignote.graph.replace import clone_replace, graph_replace
from arignote.graph.traversal import ancestors, graph_inputs, truncated_graph_inputs
from arignote.scalar.basic import get_scalar_type
from arignote.tensor.basic import as_tensor_variable, atleast_2d
from arignote.tensor.join import concatenate
from arignote.tensor.linalg import solve
from arignote.tensor.math import zeros_like
from arignote.tensor.reshape import flatten, reshape
from arignote.tensor.type import TensorType

__all__ = ["minimize", "minimize_scalar", "root", "root_scalar"]

_log = logging.getLogger(__name__)


class LRUCache1:
    """A cache of one entry for a function ``fn(x, *args) -> sequence`` (value, gradient, ...).

    SciPy asks for the value, the gradient and the Hessian at the same ``x`` in separate calls;
    the inner function computes them together, so the cache answers the second and third
    calls from the first. ``args`` are assumed fixed during one optimisation.

    Parameters
    ----------
    fn
        The function; a compiled function's first input dtype is what ``x`` is cast to
        (SciPy hands float64 whatever the problem's dtype).
    copy_x
        Keep a copy of ``x`` (``scipy.optimize.root`` changes its array in place, which would
        make every call look like a hit).
    """

    def __init__(self, fn: Callable, copy_x: bool = False) -> None:
        self.fn = fn
        self.copy_x = copy_x
        maker = getattr(fn, "maker", None)
        inputs = getattr(getattr(maker, "fgraph", None), "inputs", None)
        self.dtype = inputs[0].type.dtype if inputs else None
        self.last_x: np.ndarray | None = None
        self.last_result: Any = None
        self.clear_cache()

    def __call__(self, x: Any, *args: Any) -> Any:
        x = np.asarray(x, dtype=self.dtype)
        if self.last_result is not None and np.array_equal(x, self.last_x):
            self.cache_hits += 1
            return self.last_result
        self.cache_misses += 1
        self.last_x = x.copy() if self.copy_x else x
        self.last_result = self.fn(x, *args)
        return self.last_result

    def value(self, x: Any, *args: Any) -> Any:
        """The first output (the objective, or the equations)."""
        self.value_calls += 1
        return self(x, *args)[0]

    def grad(self, x: Any, *args: Any) -> Any:
        """The second output (the gradient, or the Jacobian)."""
        self.grad_calls += 1
        return self(x, *args)[1]

    def value_and_grad(self, x: Any, *args: Any) -> Any:
        """The first two outputs (what SciPy's ``jac=True`` expects of ``fun``)."""
        self.value_and_grad_calls += 1
        return tuple(self(x, *args)[:2])

    def hess(self, x: Any, *args: Any) -> Any:
        """The last output (the Hessian, or the second derivative)."""
        self.hess_calls += 1
        return self(x, *args)[-1]

    def report(self) -> None:
        """Log the call and cache counts (at INFO level)."""
        _log.info("Value and Grad calls: %d", self.value_and_grad_calls)
        _log.info("Hess Calls: %d", self.hess_calls)
        _log.info("Hits: %d", self.cache_hits)
        _log.info("Misses: %d", self.cache_misses)

    def clear_cache(self) -> None:
        """Forget the cached entry and reset the counts."""
        self.last_x = None
        self.last_result = None
        self.cache_hits = self.cache_misses = 0
        self.value_calls = self.grad_calls = self.value_and_grad_calls = self.hess_calls = 0


# -- the parameters of an objective and the packing of several variables --------------------


def _find_optimization_parameters(objective: Variable, x: Variable) -> list[Variable]:
    """The variables besides ``x`` that ``objective`` needs (cut as close to it as possible),
    less those computed from constants alone."""

    def constant_only(var: Variable) -> bool:
        if isinstance(var, Constant):
            return True
        return var.owner is not None and all(isinstance(v, Constant) for v in graph_inputs([var]))

    return [
        v for v in truncated_graph_inputs([objective], [x]) if v is not x and not constant_only(v)
    ]


def _static_shape(x: Variable) -> tuple:
    """``x``'s shape: static lengths where known (so that unpacking does not make ``x`` a
    parameter of the objective), symbolic ones otherwise."""
    if all(s is not None for s in x.type.shape):
        return tuple(int(s) for s in x.type.shape)
    return tuple(x.shape[i] for i in range(x.ndim))


def _unpack(packed: Variable, shapes: Sequence[tuple], dtypes: Sequence[str]) -> list[Variable]:
    """The pieces of a vector made by :func:`pack_inputs_of_objective`, in their shapes."""
    pieces, start = [], 0
    for shape, dtype in zip(shapes, dtypes):
        size = int(np.prod(shape)) if all(isinstance(s, int) for s in shape) else _prod(shape)
        piece = packed[start : start + size]
        pieces.append(reshape(piece, shape, ndim=len(shape)).astype(dtype))
        start = start + size
    return pieces


def _prod(shape: Sequence) -> Any:
    size = 1
    for length in shape:
        size = size * length
    return size


def pack_inputs_of_objective(
    objective: Variable, x: Variable | Sequence[Variable]
) -> tuple[Variable, list[tuple] | None, Variable]:
    """One vector in place of several variables to optimise (SciPy works on one vector).

    Parameters
    ----------
    objective
        The graph of the objective (or of the equations).
    x
        A variable, or a list of them.

    Returns
    -------
    packed, shapes, objective
        With one variable of at most one dimension, ``(x, None, objective)`` unchanged.
        Otherwise ``packed`` is the concatenation of the flattened variables (a graph of
        them, so that their values are the starting point), ``shapes`` their shapes, and
        ``objective`` rewritten to read each variable back from ``packed``.
    """
    xs = list(x) if isinstance(x, (list, tuple)) else [x]
    if len(xs) == 1 and xs[0].ndim <= 1:
        return xs[0], None, objective
    shapes = [_static_shape(v) for v in xs]
    packed = concatenate([flatten(v, ndim=1) for v in xs])
    pieces = _unpack(packed, shapes, [v.type.dtype for v in xs])
    return packed, shapes, graph_replace(objective, dict(zip(xs, pieces)), strict=False)


def _unpacked(solution: Variable, x: Any, shapes: list[tuple] | None) -> Any:
    if shapes is None:
        return solution
    return _unpack(solution, shapes, [v.type.dtype for v in x])


# -- the ops ---------------------------------------------------------------------------------


class ScipyWrapperOp(Op, StoredInnerGraph):
    """What the four optimisation ops share: a private inner graph ``(x, *params) ->
    [function, derivatives...]``, the two outputs (solution and success flag), the compiled
    inner function of each outer function, and gradients through the implicit function."""

    is_minimization = True
    _settings: tuple[str, ...] = ("method",)

    def _set_graph(self, inputs: list[Variable], outputs: list[Variable]) -> None:
        # the inner graph, built on the private copy made by _private_copy
        self._inputs, self._outputs = inputs, outputs
        self._key = _structure_key(self._inputs, self._outputs)
        self._fn = self._fn_wrapped = None  # PyTensor's attribute names; never set here

    # -- the inner graph ---------------------------------------------------------------------

    @property
    def fn(self) -> Any:
        """The inner graph compiled on its own (in the default mode)."""
        return self._compile(None)

    @property
    def fn_wrapped(self) -> LRUCache1:
        """:attr:`fn` behind a one-entry cache, as SciPy calls it."""
        return LRUCache1(self.fn)

    def clone(self) -> ScipyWrapperOp:
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin._set_graph(*_private_copy(self._inputs, self._outputs))
        return twin

    def _implicit(self) -> Variable:
        """``F`` of the inner graph, vanishing at the solution."""
        f = self._outputs[0]
        return grad(f, self._inputs[0]) if self.is_minimization else f

    # -- identity ----------------------------------------------------------------------------

    def _identity(self) -> tuple:
        settings = tuple(getattr(self, name) for name in self._settings)
        return (type(self), self._key, settings, repr(sorted(self.optimizer_kwargs.items())))

    def __eq__(self, other: object) -> bool:
        return self is other or (
            isinstance(other, ScipyWrapperOp) and self._identity() == other._identity()
        )

    def __hash__(self) -> int:
        return hash(self._identity())

    def __str__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)}" for name in self._settings)
        return f"{type(self).__name__}({shown})"

    # -- the node ----------------------------------------------------------------------------

    def make_node(self, *inputs: Any) -> Apply:
        if len(inputs) != len(self._inputs):
            raise TypeError(
                f"{type(self).__name__} takes {len(self._inputs)} inputs, got {len(inputs)}"
            )
        inputs = [
            v if isinstance(v, Variable) else as_tensor_variable(v, dtype=inner.type.dtype)
            for v, inner in zip(inputs, self._inputs)
        ]
        for var, inner in zip(inputs, self._inputs):
            if var.type != inner.type:
                raise TypeError(
                    f"{type(self).__name__}: input {var} has type {var.type}, expected {inner.type}"
                )
        success = get_scalar_type("bool")("success")
        return Apply(self, inputs, [self._inputs[0].type(), success])

    def infer_shape(self, fgraph, node, input_shapes):
        return [input_shapes[0], ()]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        # the success flag is never differentiable; the solution depends on what F does
        pattern = graph_connection_pattern(self._inputs, [self._implicit()])
        return [[row[0], False] for row in pattern]

    # -- running -----------------------------------------------------------------------------

    def _compile(self, mode: Any) -> Any:
        chosen = mode if mode is not None else get_mode(None)
        fn = function(self._inputs, self._outputs, mode=chosen, on_unused_input="ignore")
        fn.trust_input = True
        return fn

    def perform(self, node: Apply, inputs: list, output_storage: list) -> None:
        # The reference: the inner graph evaluated node by node at each point SciPy asks for.
        def evaluate(*values: Any) -> list:
            return _evaluate(self._inputs, self._outputs, list(values))

        self._solve(evaluate, inputs, output_storage)

    def make_thunk(self, node, storage_map, compute_map, no_recycling, impl=None):
        fn = self._compile(linking_mode())  # once per outer compiled function

        def perform(node: Apply, inputs: list, output_storage: list) -> None:
            self._solve(fn, inputs, output_storage)

        return inner_function_thunk(node, storage_map, compute_map, perform, fn)

    def _solve(self, fn: Callable, inputs: list, output_storage: list) -> None:
        x0, *args = inputs
        x0 = np.asarray(x0)

        def at(x: Any, *params: Any) -> list:
            # SciPy hands float64 vectors (or Python floats): back to x's dtype and shape
            values = fn(np.asarray(x, dtype=x0.dtype).reshape(x0.shape), *params)
            return self._for_scipy(list(values))

        cache = LRUCache1(at, copy_x=True)
        cache.dtype = x0.dtype
        # each op calls its own SciPy routine
        solution, success = self._run(cache, x0, tuple(args))  # type: ignore[attr-defined]
        output_storage[0][0] = np.asarray(solution, dtype=x0.dtype).reshape(x0.shape)
        output_storage[1][0] = np.bool_(success)

    def _for_scipy(self, values: list) -> list:
        """The inner function's values in the forms SciPy expects."""
        return [values[0].item() if values[0].ndim == 0 else values[0].ravel(), *values[1:]]

    # -- derivatives -------------------------------------------------------------------------

    def L_op(self, inputs, outputs, output_grads):
        x, *args = inputs
        x_star, g = outputs[0], output_grads[0]
        if is_disconnected(g):
            return [zeros_like(x), *(zeros_like(a) for a in args)]
        replace = dict(zip(self._inputs, [x_star, *args]))
        f = graph_replace(self._implicit(), replace, strict=False)
        lam = self._adjoint(f, x_star, g)
        # λ and x* are values here: differentiate F · λ through θ alone
        vjps = grad(
            (f * lam).sum(),
            args,
            consider_constant=[x_star, lam],
            disconnected_inputs="ignore",
            return_disconnected="disconnected",
            null_gradients="return",
        )
        return [zeros_like(x), *(v if is_disconnected(v) or is_null(v) else -v for v in vjps)]

    def _adjoint(self, f: Variable, x_star: Variable, g: Variable) -> Variable:
        """λ with ``J_xᵀ λ = g`` (``J_x`` = dF/dx at the solution)."""
        if x_star.ndim == 0:
            return g / grad(f, x_star, consider_constant=[x_star])
        j = jacobian(f, x_star, vectorize=getattr(self, "use_vectorized_jac", False))
        return solve(j.T, g)

    def R_op(self, inputs, eval_points):
        # dx* = -J_x⁻¹ (J_θ dθ): the tangent of F along dθ at fixed x*, then one solve
        _, *args = inputs
        x_star = self(*inputs)[0]
        f = graph_replace(self._implicit(), dict(zip(self._inputs, [x_star, *args])), strict=False)
        pairs = [(a, e) for a, e in zip(args, eval_points[1:]) if e is not None]
        if not pairs:
            return [None, None]
        tangent = sum(_jvp(f, a, e, x_star) for a, e in pairs)
        if x_star.ndim == 0:
            return [-tangent / grad(f, x_star, consider_constant=[x_star]), None]
        j = jacobian(f, x_star, vectorize=getattr(self, "use_vectorized_jac", False))
        return [-solve(j, tangent), None]


class ScipyScalarWrapperOp(ScipyWrapperOp):
    """The base of the ops in one scalar variable (:class:`MinimizeScalarOp`,
    :class:`RootScalarOp`), as in PyTensor's class tree."""


class ScipyVectorWrapperOp(ScipyWrapperOp):
    """The base of the ops in a vector variable (:class:`MinimizeOp`, :class:`RootOp`), as in
    PyTensor's class tree."""


def _jvp(f: Variable, wrt: Variable, tangent: Variable, x_star: Variable) -> Variable:
    """``(∂f/∂wrt) · tangent`` with ``x_star`` held fixed, by the double-grad trick (a
    vector-Jacobian product is linear in its cotangent; differentiating it recovers J·v)."""
    u = f.type("u")
    vjp = grad((f * u).sum(), wrt, consider_constant=[x_star], disconnected_inputs="ignore")
    jvp = grad((vjp * tangent).sum(), u, disconnected_inputs="ignore")
    # u enters jvp only linearly and not at all in its value: substitute zeros for it
    return graph_replace(jvp, {u: zeros_like(f)}, strict=False)


def _private_copy(inputs: list, outputs: list) -> tuple[list, list]:
    """The graph from ``inputs`` to ``outputs`` on fresh inputs (the ops' own copy, on which
    derivatives are then taken, so that they reach nothing but these inputs)."""
    fresh = [v.type(v.name) for v in inputs]
    return fresh, clone_replace(outputs, replace=dict(zip(inputs, fresh)))


def _is_tensor(var: Any) -> bool:
    return isinstance(var, Variable) and isinstance(var.type, TensorType)


def _check_inputs(name: str, x: Any, function_: Any, what: str, x_ndims: tuple) -> None:
    if not (_is_tensor(x) and x.ndim in x_ndims):
        kind = (
            "a scalar (0-dimensional)"
            if x_ndims == (0,)
            else ("a scalar or vector (0-or-1-dimensional)")
        )
        raise ValueError(f"The variable `x` must be {kind} tensor for {name}.")
    if not (_is_tensor(function_) and function_.ndim == 0):
        raise ValueError(f"The {what} must be a scalar (0-dimensional) tensor for {name}.")
    if x not in set(ancestors([function_])):
        raise ValueError(
            f"The variable `x` must be an input to the computational graph of the {what}."
        )


class MinimizeScalarOp(ScipyScalarWrapperOp):
    """``scipy.optimize.minimize_scalar`` of a graph in one scalar variable (see
    :func:`minimize_scalar`)."""

    def __init__(
        self,
        x: Variable,
        *args: Variable,
        objective: Variable,
        method: str,
        optimizer_kwargs: dict | None = None,
    ) -> None:
        _check_inputs("minimize_scalar", x, objective, "objective function", (0,))
        self.method = method
        self.optimizer_kwargs = dict(optimizer_kwargs or {})
        self._set_graph(*_private_copy([x, *args], [objective]))

    def _run(self, cache, x0, args):
        # minimize_scalar takes no starting point (a bracket or bounds come in the kwargs)
        result = scipy.optimize.minimize_scalar(
            cache.value, args=args, method=self.method, **self.optimizer_kwargs
        )
        return result.x, result.success


class MinimizeOp(ScipyVectorWrapperOp):
    """``scipy.optimize.minimize`` of a graph in a scalar or vector variable (see
    :func:`minimize`), with the gradient (``jac``) and Hessian (``hess``) as inner outputs."""

    _settings = ("method", "jac", "hess", "hessp")

    def __init__(
        self,
        x: Variable,
        *args: Variable,
        objective: Variable,
        method: str,
        jac: bool = True,
        hess: bool = False,
        hessp: bool = False,
        use_vectorized_jac: bool = False,
        optimizer_kwargs: dict | None = None,
    ) -> None:
        _check_inputs("minimize", x, objective, "objective function", (0, 1))
        self.method, self.jac, self.hess, self.hessp = method, bool(jac), bool(hess), bool(hessp)
        self.use_vectorized_jac = use_vectorized_jac
        self.optimizer_kwargs = dict(optimizer_kwargs or {})
        inputs, outputs = _private_copy([x, *args], [objective])
        gradient = grad(outputs[0], inputs[0])
        if jac:
            outputs.append(gradient)
        if hess:
            h = jacobian(gradient, inputs[0], vectorize=use_vectorized_jac)
            outputs.append(atleast_2d(h))
        self._set_graph(inputs, outputs)

    def _for_scipy(self, values):
        shaped = [np.asarray(values[0]).item()]
        if self.jac:
            shaped.append(np.asarray(values[1]).ravel())
        return shaped + [np.asarray(v) for v in values[len(shaped) :]]

    def _run(self, cache, x0, args):
        result = scipy.optimize.minimize(
            fun=cache.value_and_grad if self.jac else cache.value,
            jac=self.jac,
            x0=x0.ravel(),
            args=args,
            hess=cache.hess if self.hess else None,
            method=self.method,
            **self.optimizer_kwargs,
        )
        return result.x, result.success


class RootScalarOp(ScipyScalarWrapperOp):
    """``scipy.optimize.root_scalar`` of one equation in one scalar variable (see
    :func:`root_scalar`), with the first and second derivatives as inner outputs."""

    is_minimization = False
    _settings = ("method", "jac", "hess")

    def __init__(
        self,
        variables: Variable,
        *args: Variable,
        equation: Variable,
        method: str,
        jac: bool = False,
        hess: bool = False,
        optimizer_kwargs: dict | None = None,
    ) -> None:
        _check_inputs("root_scalar", variables, equation, "equation", (0,))
        if hess and not jac:
            raise ValueError(
                "Cannot set `hess=True` without `jac=True`: no method uses the second "
                "derivative without the first."
            )
        self.method, self.jac, self.hess = method, bool(jac), bool(hess)
        self.optimizer_kwargs = dict(optimizer_kwargs or {})
        inputs, outputs = _private_copy([variables, *args], [equation])
        if jac:
            outputs.append(grad(outputs[0], inputs[0]))
        if hess:
            outputs.append(grad(outputs[-1], inputs[0]))
        self._set_graph(inputs, outputs)

    def _for_scipy(self, values):
        return [np.asarray(v).item() for v in values]

    def _run(self, cache, x0, args):
        result = scipy.optimize.root_scalar(
            cache.value,
            args=args,
            method=self.method,
            x0=x0.item(),
            fprime=cache.grad if self.jac else None,
            fprime2=cache.hess if self.hess else None,
            **self.optimizer_kwargs,
        )
        return result.root, result.converged


class RootOp(ScipyVectorWrapperOp):
    """``scipy.optimize.root`` of a system of equations in a scalar or vector variable (see
    :func:`root`), with the Jacobian (``jac``) as an inner output."""

    is_minimization = False
    _settings = ("method", "jac")

    def __init__(
        self,
        variables: Variable,
        *args: Variable,
        equations: Variable,
        method: str,
        jac: bool = True,
        optimizer_kwargs: dict | None = None,
        use_vectorized_jac: bool = False,
    ) -> None:
        if not _is_tensor(variables):
            raise ValueError("The variable `variables` must be a tensor for root.")
        if not _is_tensor(equations):
            raise ValueError("The equations must be a tensor for root.")
        if variables.ndim != equations.ndim:
            raise ValueError(
                "The variable `variables` must have the same number of dimensions as the "
                f"equations ({variables.ndim} and {equations.ndim})."
            )
        if variables not in set(ancestors([equations])):
            raise ValueError(
                "The variable `variables` must be an input to the computational graph of the "
                "equations."
            )
        self.method, self.jac = method, bool(jac)
        self.use_vectorized_jac = use_vectorized_jac
        self.optimizer_kwargs = dict(optimizer_kwargs or {})
        inputs, outputs = _private_copy([variables, *args], [equations])
        if jac:
            j = jacobian(outputs[0], inputs[0], vectorize=use_vectorized_jac)
            outputs.append(atleast_2d(j))
        self._set_graph(inputs, outputs)

    def _for_scipy(self, values):
        return [np.asarray(values[0]).ravel(), *(np.asarray(v) for v in values[1:])]

    def _run(self, cache, x0, args):
        result = scipy.optimize.root(
            fun=cache.value_and_grad if self.jac else cache.value,
            x0=x0.ravel(),
            args=args,
            method=self.method,
            jac=self.jac,
            **self.optimizer_kwargs,
        )
        return result.x, result.success


# -- the functions ---------------------------------------------------------------------------


def minimize_scalar(
    objective: Variable,
    x: Variable,
    method: str = "brent",
    optimizer_kwargs: dict | None = None,
) -> tuple[Variable, Variable]:
    """Minimise a scalar function of one scalar variable (``scipy.optimize.minimize_scalar``).

    Parameters
    ----------
    objective
        A 0-d graph of ``x`` and of any parameters.
    x
        The 0-d variable to vary; its value is not used (SciPy's methods take a bracket or
        bounds through ``optimizer_kwargs`` instead of a starting point).
    method
        SciPy's method: ``"brent"`` (the default), ``"golden"`` or ``"bounded"``.
    optimizer_kwargs
        More arguments of ``scipy.optimize.minimize_scalar`` (``bounds``, ``bracket``,
        ``options``...).

    Returns
    -------
    solution, success
        The minimising ``x`` (the last point tried when the method did not converge) and
        SciPy's success flag (a boolean scalar). The solution is differentiable with respect
        to the parameters.

    Examples
    --------
    >>> import arignote
    >>> import arignote.tensor as pt
    >>> from arignote.tensor.optimize import minimize_scalar
    >>> x, a = pt.dscalar("x"), pt.dscalar("a")
    >>> x_star, success = minimize_scalar((x - a) ** 2 + 1, x)
    >>> f = arignote.function([x, a], [x_star, success])
    >>> value, ok = f(0.0, 3.0)
    >>> round(float(value), 6), bool(ok)
    (3.0, True)
    """
    objective = as_tensor_variable(objective)
    args = _find_optimization_parameters(objective, x)
    op = MinimizeScalarOp(
        x, *args, objective=objective, method=method, optimizer_kwargs=optimizer_kwargs
    )
    solution, success = op(x, *args)
    return solution, success


def minimize(
    objective: Variable,
    x: Variable | Sequence[Variable],
    method: str = "BFGS",
    jac: bool = True,
    hess: bool = False,
    use_vectorized_jac: bool = False,
    optimizer_kwargs: dict | None = None,
) -> tuple[Any, Variable]:
    """Minimise a scalar function of one or several variables (``scipy.optimize.minimize``).

    Parameters
    ----------
    objective
        A 0-d graph of ``x`` and of any parameters.
    x
        The variable to vary, or a list of them (of any shapes: they are packed into one
        vector for SciPy). Their values are the starting point.
    method
        SciPy's method (``"BFGS"`` by default, ``"L-BFGS-B"``, ``"Newton-CG"``, ...).
    jac, hess
        Give SciPy the gradient (symbolic, the default) and the Hessian (for the methods that
        use it: ``"Newton-CG"``, ``"trust-exact"``...).
    use_vectorized_jac
        Build the Hessian (and the Jacobian of the gradient) by vectorising the gradient
        graph instead of a loop over its elements: faster, more memory.
    optimizer_kwargs
        More arguments of ``scipy.optimize.minimize`` (``tol``, ``options``, ``bounds``...).

    Returns
    -------
    solution, success
        The minimising value of ``x`` (a list for a list), differentiable with respect to the
        parameters through the implicit function theorem, and SciPy's success flag.

    Examples
    --------
    >>> import numpy as np
    >>> import arignote
    >>> import arignote.tensor as pt
    >>> from arignote.tensor.optimize import minimize
    >>> x, a = pt.dvector("x"), pt.dvector("a")
    >>> x_star, success = minimize(((x - a) ** 2).sum(), x)
    >>> f = arignote.function([x, a], x_star)
    >>> np.round(f(np.zeros(2), np.array([1.0, -2.0])), 6)
    array([ 1., -2.])
    """
    objective = as_tensor_variable(objective)
    packed, shapes, objective = pack_inputs_of_objective(objective, x)
    args = _find_optimization_parameters(objective, packed)
    op = MinimizeOp(
        packed,
        *args,
        objective=objective,
        method=method,
        jac=jac,
        hess=hess,
        use_vectorized_jac=use_vectorized_jac,
        optimizer_kwargs=optimizer_kwargs,
    )
    solution, success = op(packed, *args)
    return _unpacked(solution, x, shapes), success


def root_scalar(
    equation: Variable,
    variable: Variable,
    method: str = "secant",
    jac: bool = False,
    hess: bool = False,
    optimizer_kwargs: dict | None = None,
) -> tuple[Variable, Variable]:
    """Find a root of one equation in one scalar variable (``scipy.optimize.root_scalar``).

    Parameters
    ----------
    equation
        A 0-d graph of ``variable`` and of any parameters; the result makes it zero.
    variable
        The 0-d variable to vary; its value is the starting point.
    method
        SciPy's method (``"secant"`` by default, ``"newton"`` with ``jac=True``, ``"halley"``
        with ``jac=True, hess=True``, or a bracketing method with ``bracket`` in
        ``optimizer_kwargs``).
    jac, hess
        Give SciPy the first and second derivatives (computed symbolically).
    optimizer_kwargs
        More arguments of ``scipy.optimize.root_scalar`` (``bracket``, ``xtol``...).

    Returns
    -------
    solution, success
        The root (the last point tried when the method did not converge), differentiable with
        respect to the parameters, and SciPy's ``converged`` flag.

    Examples
    --------
    >>> import arignote
    >>> import arignote.tensor as pt
    >>> from arignote.tensor.optimize import root_scalar
    >>> x, a = pt.dscalar("x"), pt.dscalar("a")
    >>> x_star, success = root_scalar(x**2 - a, x, method="newton", jac=True)
    >>> f = arignote.function([x, a], x_star)
    >>> round(float(f(1.0, 2.0)), 10)
    1.4142135624
    """
    equation = as_tensor_variable(equation)
    args = _find_optimization_parameters(equation, variable)
    op = RootScalarOp(
        variable,
        *args,
        equation=equation,
        method=method,
        jac=jac,
        hess=hess,
        optimizer_kwargs=optimizer_kwargs,
    )
    solution, success = op(variable, *args)
    return solution, success


def root(
    equations: Variable,
    variables: Variable | Sequence[Variable],
    method: str = "hybr",
    jac: bool = True,
    use_vectorized_jac: bool = False,
    optimizer_kwargs: dict | None = None,
) -> tuple[Any, Variable]:
    """Find a root of a system of equations (``scipy.optimize.root``).

    Parameters
    ----------
    equations
        A graph of ``variables`` (and of any parameters) with as many dimensions as
        ``variables``; the result makes every element zero.
    variables
        The variable to vary, or a list of them (packed into one vector for SciPy); their
        values are the starting point.
    method
        SciPy's method (``"hybr"`` by default, ``"lm"``, ``"krylov"``...).
    jac
        Give SciPy the Jacobian (computed symbolically; the default).
    use_vectorized_jac
        Build the Jacobian by vectorising the graph instead of a loop over its rows.
    optimizer_kwargs
        More arguments of ``scipy.optimize.root`` (``tol``, ``options``).

    Returns
    -------
    solution, success
        The root (a list for a list), differentiable with respect to the parameters, and
        SciPy's success flag.

    Examples
    --------
    >>> import numpy as np
    >>> import arignote
    >>> import arignote.tensor as pt
    >>> from arignote.tensor.optimize import root
    >>> x, a = pt.dvector("x"), pt.dvector("a")
    >>> x_star, success = root(x**3 - a, x)
    >>> f = arignote.function([x, a], x_star)
    >>> np.round(f(np.ones(2), np.array([8.0, 27.0])), 6)
    array([2., 3.])
    """
    equations = as_tensor_variable(equations)
    packed, shapes, equations = pack_inputs_of_objective(equations, variables)
    args = _find_optimization_parameters(equations, packed)
    op = RootOp(
        packed,
        *args,
        equations=equations,
        method=method,
        jac=jac,
        optimizer_kwargs=optimizer_kwargs,
        use_vectorized_jac=use_vectorized_jac,
    )
    solution, success = op(packed, *args)
    return _unpacked(solution, variables, shapes), success
