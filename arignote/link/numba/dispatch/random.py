"""Native random variables (``arignote/tensor/random/``): NumPy's numbers from native code.

Numba takes a ``numpy.random.Generator`` into native code and ports NumPy's samplers, so a
draw from a generator in a given state gives exactly NumPy's numbers and advances the same
state (the Python object's bit generator). A kernel draws one number per entry of the batch
shape, in C order, with the parameters broadcast to it: the order in which NumPy's
broadcasting loop calls the same sampler. Only the samplers checked to give NumPy's numbers
bit for bit are used (``tests/link/test_numba_random.py``); those numba lacks or draws
differently are NumPy's algorithms written natively (``random_samplers.py``,
``random_integers.py``), vector and index draws are in ``random_vector.py``.

The Python VM's ``perform`` validates parameters and shapes and raises NumPy's errors. A
kernel checks the same conditions (more strictly: non-finite parameters included) and, where
one fails, runs ``perform`` in object mode, which raises the error (or draws) exactly as the
VM does. A non-inplace op draws from a copy of its input generator (made in object mode),
as ``perform`` does; an inplace op advances the generator it is given. A non-inplace draw
whose generator was just made by another draw, or is a shared generator the function
replaces after the call, and is read by nothing else takes the inplace kernel
(:func:`drawing_form`), as the VM's in-place rewrite does: a chain of ``k`` draws copies at
most once, not ``k`` times.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

import numpy as np

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import (
    NotNative,
    SourceWriter,
    compile_source,
    numba_funcify,
    objmode_kernel,
    rng_numba_type,
)
from arignote.link.numba.dispatch.random_integers import (
    bounded_integer,
    integers_sampler,
    scalar_fill_call,
)
from arignote.link.numba.dispatch.random_samplers import SCALAR_SAMPLERS
from arignote.tensor.random.op import RandomVariable
from arignote.tensor.random.rewriting import destroyable_input
from arignote.tensor.random.type import copy_generator, is_none_const

# -- conditions on one parameter value ``{x}`` under which the native draw is NumPy's ---------

_ANY = "np.isfinite({x})"
_NON_NEGATIVE = "np.isfinite({x}) and {x} >= 0"
_POSITIVE = "np.isfinite({x}) and {x} > 0"
_UNIT = "{x} >= 0 and {x} <= 1"
_OPEN_UNIT = "{x} > 0 and {x} < 1"
_HALF_OPEN_UNIT = "{x} > 0 and {x} <= 1"
# poisson (and negative_binomial through it): NumPy refuses means near the int64 range
_POISSON = "np.isfinite({x}) and {x} >= 0 and {x} < 1e15"
# hypergeometric: NumPy refuses counts of 10**9 or more
_COUNT = "{x} >= 0 and {x} < 1000000000"
# a parameter NumPy cannot take (a float where it casts to int64 "safely" only): perform
# raises NumPy's TypeError
_REFUSED = "False"

#: name: (call on the generator, with ``x0, x1, ...`` the parameters as float64 numbers;
#: condition per parameter; a condition on all of them, or "")
_SAMPLERS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "normal": ("rng.normal(x0, x1)", (_ANY, _NON_NEGATIVE), ""),
    "uniform": ("rng.uniform(x0, x1)", (_ANY, _ANY), "np.isfinite(x1 - x0)"),
    "exponential": ("rng.exponential(x0)", (_NON_NEGATIVE,), ""),
    "gamma": ("rng.gamma(x0, x1)", (_NON_NEGATIVE, _NON_NEGATIVE), ""),
    "beta": ("rng.beta(x0, x1)", (_POSITIVE, _POSITIVE), ""),
    "f": ("rng.f(x0, x1)", (_POSITIVE, _POSITIVE), ""),
    "chisquare": ("rng.chisquare(x0)", (_POSITIVE,), ""),
    "noncentral_chisquare": (
        "rng.noncentral_chisquare(x0, x1)",
        (_POSITIVE, _NON_NEGATIVE),
        "",
    ),
    "noncentral_f": (
        "rng.noncentral_f(x0, x1, x2)",
        (_POSITIVE, _POSITIVE, _NON_NEGATIVE),
        "",
    ),
    "standard_cauchy": ("rng.standard_cauchy()", (), ""),
    "pareto": ("rng.pareto(x0)", (_POSITIVE,), ""),
    "weibull": ("rng.weibull(x0)", (_NON_NEGATIVE,), ""),
    "power": ("rng.power(x0)", (_POSITIVE,), ""),
    "laplace": ("rng.laplace(x0, x1)", (_ANY, _NON_NEGATIVE), ""),
    "logistic": ("rng.logistic(x0, x1)", (_ANY, _NON_NEGATIVE), ""),
    "lognormal": ("rng.lognormal(x0, x1)", (_ANY, _NON_NEGATIVE), ""),
    "rayleigh": ("rng.rayleigh(x0)", (_NON_NEGATIVE,), ""),
    "standard_t": ("rng.standard_t(x0)", (_POSITIVE,), ""),
    "triangular": ("rng.triangular(x0, x1, x2)", (_ANY, _ANY, _ANY), "x0 <= x1 <= x2 and x0 < x2"),
    "geometric": ("rng.geometric(x0)", (_HALF_OPEN_UNIT,), ""),
    "zipf": ("rng.zipf(x0)", ("np.isfinite({x}) and {x} > 1",), ""),
    "poisson": ("rng.poisson(x0)", (_POISSON,), ""),
    "negative_binomial": (
        "rng.negative_binomial(x0, x1)",
        (_POSITIVE, _HALF_OPEN_UNIT),
        "x0 * (1 - x1) / x1 < 1e15",
    ),
    "logseries": ("rng.logseries(x0)", (_OPEN_UNIT,), ""),
    "binomial": ("rng.binomial(x0, x1)", ("{x} >= 0", _UNIT), ""),
    # samplers numba lacks or draws differently (dispatch/random_samplers.py)
    "gumbel": ("gumbel_draw(rng.bit_generator, x0, x1)", (_ANY, _NON_NEGATIVE), ""),
    "wald": ("wald_draw(rng.bit_generator, x0, x1)", (_POSITIVE, _POSITIVE), ""),
    "vonmises": ("vonmises_draw(rng.bit_generator, x0, x1)", (_ANY, _NON_NEGATIVE), ""),
    "hypergeometric": (
        "hypergeometric_draw(rng.bit_generator, x0, x1, x2)",
        (_COUNT, _COUNT, _COUNT),
        "x0 + x1 >= x2",
    ),
    # derived distributions (``arignote/tensor/random/basic.py`` says how perform draws them)
    "bernoulli": ("rng.binomial(1, x0)", (_UNIT,), ""),
    "cauchy": ("x0 + x1 * rng.standard_cauchy()", (_ANY, _NON_NEGATIVE), ""),
    "halfcauchy": ("x0 + x1 * abs(rng.standard_cauchy())", (_ANY, _NON_NEGATIVE), ""),
    "halfnormal": ("x0 + x1 * abs(rng.standard_normal())", (_ANY, _NON_NEGATIVE), ""),
    # SciPy-module ops whose perform draws reproducibly (see _NUMPY_DRAWN)
    # np.divide: a gamma draw of 0 (from a subnormal shape) gives inf, as in NumPy, where
    # numba's "/" raises ZeroDivisionError (found by the path fuzzing)
    "invgamma": ("np.divide(1.0, rng.gamma(x0, 1.0 / x1))", (_POSITIVE, _POSITIVE), ""),
    "t": ("rng.standard_t(x0) * x2 + x1", (_POSITIVE, _ANY, _POSITIVE), ""),
    # methods taking the dtype of the draws (their float32 stream is its own)
    "standard_normal": ("rng.standard_normal(dtype=DT)", (), ""),
    "random": ("rng.random(dtype=DT)", (), ""),
    "standard_gamma": ("rng.standard_gamma(x0, dtype=DT)", (_NON_NEGATIVE,), ""),
}

#: Modules whose op classes draw with the sampler of their name (a subclass elsewhere, as the
#: SciPy-based ones, may draw otherwise).
_OWN_MODULES = ("arignote.tensor.random.op", "arignote.tensor.random.basic")

#: Ops of ``scipy_rvs`` whose draws are NumPy's arithmetic on NumPy draws: ``invgamma`` is
#: ``1 / Generator.gamma(shape, 1 / scale)``; SciPy's ``t.rvs`` is ``standard_t(df) * scale +
#: loc`` entry by entry (a positive scale: SciPy skips the draws when every scale is 0).
_NUMPY_DRAWN = {"InvGammaRV", "StudentTLocScaleRV"}

#: Parameters NumPy reads as integers (the others are read as float64).
_INTEGER_PARAMS = {"binomial": (0,), "integers": (0, 1), "hypergeometric": (0, 1, 2)}

#: Generator methods with no native sampler (every scalar one of NumPy has one now).
NOT_NATIVE: dict[str, str] = {}

_COPY_SOURCE = """\
def copy_rng(rng):
    with numba.objmode(fresh=generator):
        fresh = copy_generator(rng)
    return fresh
"""

copy_rng = compile_source(
    _COPY_SOURCE,
    "copy_rng",
    {"generator": rng_numba_type(), "copy_generator": copy_generator},
)


def drawing_form(fgraph: Any, node: Apply, fresh_inputs: Collection = ()) -> Apply:
    """The node whose kernel computes ``node`` in ``fgraph``: ``node`` itself, or, for a draw
    from a fresh generator (see the module docstring), its inplace form.

    ``fresh_inputs``: inputs of ``fgraph`` holding generators the caller made for it alone
    (a native loop's states, copied once before the loop).
    """
    if not isinstance(node.op, RandomVariable) or node.op.inplace:
        return node
    rng = node.inputs[0]
    source = rng.owner
    made_here = (
        source is not None
        and isinstance(source.op, RandomVariable)
        and not source.op.inplace  # its output is a copy, not a generator it was given
    )
    # an input the function replaces after the call (an updated shared generator): the VM's
    # in-place rewrite advances it in place too
    replaced = rng.owner is None and destroyable_input(fgraph, rng)
    fresh = (made_here or replaced or rng in fresh_inputs) and fgraph.clients.get(rng) == [
        (node, 0)
    ]
    return node.op.clone_with(inplace=True).make_node(*node.inputs) if fresh else node


@numba_funcify.register(RandomVariable)
def _random_variable(op: RandomVariable, node: Apply) -> Callable:
    call, conditions, joint = _sampler(op, node)
    writer = _KernelWriter(op, node)
    source = writer.source(call, conditions, joint)
    namespace = {
        "slow": objmode_kernel(node),
        "copy_rng": copy_rng,
        "DT": np.dtype(node.outputs[1].type.dtype).type,
        "bounded_integer": bounded_integer,
        **SCALAR_SAMPLERS,
    }
    return compile_source(source, "kernel", namespace)


def _sampler(op: RandomVariable, node: Apply) -> tuple[str, tuple[str, ...], str]:
    """The draw of one number for ``node`` (see :data:`_SAMPLERS`); raises ``NotNative``."""
    key = type(op).__name__
    if op.ndim_supp != 0 or any(op.ndims_params):
        raise NotNative(key, "vector-valued draws (core dimensions) are drawn by perform")
    known = op.name in _SAMPLERS or op.name in ("integers", "standard_exponential")
    own = type(op).__module__ in _OWN_MODULES or key in _NUMPY_DRAWN
    if not known or not own:
        raise NotNative(key, NOT_NATIVE.get(op.name, "no native sampler"))
    if op.name == "integers":
        return _integers(op, node)
    if op.name == "standard_exponential":
        return (f"rng.standard_exponential(dtype=DT, method='{op.method}')", (), "")
    call, conditions, joint = _SAMPLERS[op.name]
    integer = _INTEGER_PARAMS.get(op.name, ())
    refused = [k for k in integer if not _is_integer(node.inputs[2 + k])]
    if refused:  # NumPy 2 refuses float counts (a TypeError): perform raises it
        conditions = tuple(_REFUSED if k in refused else c for k, c in enumerate(conditions))
    return call, conditions, joint


def _is_integer(var: Any) -> bool:
    """Whether NumPy casts the parameter's dtype to int64 safely (uint64 it does not)."""
    return np.can_cast(var.type.dtype, np.int64)


def _integers(op: RandomVariable, node: Apply) -> tuple[str, tuple[str, ...], str]:
    """NumPy's two paths (see ``dispatch/random_integers.py``): one fill for 0-d bounds
    (numba's ``integers``; uint64 draws have no buffer, they are drawn entry by entry), the
    per-entry loop with one shared 32-bit buffer for array bounds."""
    array_bounds = any(p.type.ndim for p in node.inputs[2:])
    call, conditions, joint = integers_sampler(op, node, array_bounds)
    if array_bounds or op.dtype == "uint64":
        return call, conditions, joint
    return scalar_fill_call(op, node), conditions, joint


class _KernelWriter(SourceWriter):
    """Writes ``kernel(rng, size, *params) -> (rng, draw)`` for one node."""

    def __init__(self, op: RandomVariable, node: Apply) -> None:
        self.op, self.node = op, node
        self.params = [f"p{k}" for k in range(len(node.inputs) - 2)]
        self.ndim = node.outputs[1].type.ndim
        self.has_size = not is_none_const(node.inputs[1])
        self.lines: list[str] = []

    def source(self, call: str, conditions: tuple[str, ...], joint: str) -> str:
        args = ", ".join(["rng", "size", *self.params])
        self.lines = [f"def kernel({args}):", "    ok = True"]
        self._shape()
        self._param_checks(conditions)
        self._draws(call, joint)
        return "\n".join(self.lines) + "\n"

    # -- the batch shape: size, or the broadcast of the parameters' shapes --------------------

    def _shape(self) -> None:
        for d in range(self.ndim):
            self._line(f"n{d} = size[{d}]" if self.has_size else f"n{d} = 1")
            if self.has_size:
                self._line(f"if n{d} < 0:")
                self._line("ok = False", 2)
        for param, var in zip(self.params, self.node.inputs[2:]):
            offset = self.ndim - var.type.ndim
            for j in range(var.type.ndim):
                self._dimension(param, j, offset + j, var.type.shape[j])

    def _dimension(self, param: str, j: int, d: int, static: int | None) -> None:
        self._line(f"length = {param}.shape[{j}]")
        if self.has_size:  # NumPy: each parameter must broadcast to size
            self._line(f"if length != 1 and length != n{d}:")
            self._line("ok = False", 2)
            return
        self._line("if length != 1:")
        self._line(f"if n{d} != 1 and n{d} != length:", 2)
        self._line("ok = False", 3)
        self._line(f"n{d} = length", 2)
        if static != 1:  # a length 1 only at run time must not stretch (perform refuses it)
            self._line(f"if length == 1 and n{d} != 1:")
            self._line("ok = False", 2)

    def _shape_tuple(self) -> str:
        return "(" + "".join(f"n{d}, " for d in range(self.ndim)) + ")"

    # -- parameter conditions, then the draws --------------------------------------------------

    def _param_checks(self, conditions: tuple[str, ...]) -> None:
        for param, condition in zip(self.params, conditions):
            if condition == "True":
                continue
            self._line(f"for v in {param}.ravel():")
            self._line(f"if not ({condition.format(x='v')}):", 2)
            self._line("ok = False", 3)

    def _converted(self, k: int) -> str:
        integer = k in _INTEGER_PARAMS.get(self.op.name, ())
        # integers' float bounds are compared as floats, then truncated (random_integers.py)
        integer = integer and np.can_cast(self.node.inputs[2 + k].type.dtype, np.int64)
        return f"np.int64(b{k}[idx])" if integer else f"np.float64(b{k}[idx])"

    def _prologue(self, shape: str, joint: str) -> None:
        """The lines before any draw: refused or empty draws to perform (NumPy still checks
        the parameters of an empty draw), the parameters broadcast to ``shape`` (``b<k>``),
        the ``joint`` condition checked at every index, the generator copied unless in place."""
        self._line(f"if {' * '.join(f'n{d}' for d in range(self.ndim)) or '1'} == 0:")
        self._line("ok = False", 2)
        self._slow_unless_ok()
        for k, param in enumerate(self.params):
            self._line(f"b{k} = np.broadcast_to({param}, {shape})")
        if joint:
            self._loop(shape, f"if not ({joint}):", "ok = False")
            self._slow_unless_ok()
        if not self.op.inplace:
            self._line("rng = copy_rng(rng)")

    def _slow_unless_ok(self) -> None:
        self._line("if not ok:")
        self._line(f"return slow(rng, size, {''.join(p + ', ' for p in self.params)})", 2)

    def _draws(self, call: str, joint: str) -> None:
        shape = self._shape_tuple()
        self._prologue(shape, joint)
        if self.op.name == "integers":  # NumPy's 32-bit buffer, shared by the whole call
            self._line("ibuffer = np.zeros(2, np.uint64)")
        if self._scalar_fill():
            self._line("x0 = np.int64(p0[()])")  # int(): a float bound is truncated
            self._line("x1 = np.int64(p1[()])")
            self._line(f"out = {call[:-1]}, size={shape})")
            self._line("return rng, out")
            return
        self._line(f"out = np.empty({shape}, DT)")
        self._loop(shape, f"out[idx] = {call}")
        self._line("return rng, out")

    def _loop(self, shape: str, *body: str) -> None:
        self._line(f"for idx in np.ndindex({shape}):")
        for k in range(len(self.params)):
            self._line(f"x{k} = {self._converted(k)}", 2)
        for depth, text in enumerate(body):
            self._line(text, 2 + depth)

    def _scalar_fill(self) -> bool:
        """Integers with 0-d bounds: one fill of the whole draw, as NumPy's scalar path (small
        dtypes share one 32-bit buffer across the entries there)."""
        bounds = self.node.inputs[2:]
        fill = self.op.name == "integers" and self.op.dtype != "uint64"
        return fill and not any(p.type.ndim for p in bounds)


__all__ = ["NOT_NATIVE", "copy_rng", "drawing_form"]
