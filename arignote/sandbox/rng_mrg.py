"""``MRG_RandomStreams``: Theano's MRG31k3p random streams (``theano.sandbox.rng_mrg``).

Each draw keeps its generator state, one MRG31k3p state per stream, in a shared int32 matrix;
``MRGUniform`` returns the next state with the uniform values, and that next state is the
shared variable's default update, so successive calls of a compiled function (and of a loop
body) draw new numbers. Draws are reproducible per seed. Every distribution is built from the
uniform draws by ordinary graph operations (Box-Muller for normals, inverse CDF for truncated
normals, comparisons with cumulative sums for multinomials, Gumbel top-k for choices without
replacement), so their shapes and their deterministic parts differentiate as usual.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import arignote.tensor as pt
from arignote.config import config
from arignote.graph.basic import Apply, Variable
from arignote.graph.grad_types import disconnected, grad_undefined
from arignote.graph.op import Op
from arignote.graph.shared import shared
from arignote.sandbox import mrg31k3p
from arignote.tensor.alloc import shape_entries, static_int
from arignote.tensor.type import tensor_type

MAX_STREAMS = 60 * 256  # Theano's cap on the number of streams of one draw
STATE_TYPE = tensor_type("int32", (None, 6))


class MRGUniform(Op):
    """``(next_state, u) = MRGUniform(dtype)(state, *size)``: uniform values in (0, 1) of
    shape ``size`` from the MRG31k3p streams ``state`` (an int32 ``(n_streams, 6)`` matrix)."""

    __props__ = ("dtype",)

    def __init__(self, dtype: str = "float64") -> None:
        if dtype not in ("float32", "float64"):
            raise ValueError(f"MRGUniform draws float32 or float64, not {dtype}")
        self.dtype = dtype

    def make_node(self, state: Any, *size: Any) -> Apply:
        state = pt.as_tensor_variable(state)
        if state.type.dtype != "int32" or state.type.ndim != 2:
            raise TypeError(
                f"MRGUniform: the state must be an int32 (n_streams, 6) matrix, got {state.type}"
            )
        size = shape_entries(list(size), "MRGUniform")
        out = tensor_type(self.dtype, tuple(static_int(s) for s in size))
        return Apply(self, [state, *size], [state.type(), out()])

    def perform(self, node, inputs, output_storage):
        state, *size = inputs
        if state.shape[1:] != (6,) or len(state) == 0:
            raise ValueError(f"MRGUniform: bad state shape {state.shape}")
        shape = tuple(int(s) for s in size)
        next_state, values = mrg31k3p.uniform(state, math.prod(shape), self.dtype)
        output_storage[0][0] = next_state
        output_storage[1][0] = values.reshape(shape)

    def infer_shape(self, fgraph, node, input_shapes):
        return [input_shapes[0], tuple(node.inputs[1:])]

    def connection_pattern(self, node):
        return [[True, True]] + [[False, False]] * (len(node.inputs) - 1)

    def grad(self, inputs, output_grads):
        why = "a random draw has no derivative with respect to the generator state"
        return [grad_undefined(self, 0, inputs[0], why)] + [disconnected() for _ in inputs[1:]]


def guess_n_streams(size: Any) -> int:
    """Theano's choice: one stream per 6 values, at most ``MAX_STREAMS`` (and that many when
    the size is only known when the function runs)."""
    lengths = [static_int(s) for s in size]
    if None in lengths:
        return MAX_STREAMS
    total = math.prod(lengths)
    return max(1, min(total // 6 if total > 6 else total, MAX_STREAMS))


def _seed_state(seed: Any) -> np.ndarray:
    """The first stream state from an int seed (all six entries, as Theano) or six ints."""
    if np.ndim(seed) == 0:
        seed = int(seed)
        if not 0 < seed < mrg31k3p.M2:
            raise ValueError(
                f"MRG_RandomStreams: an int seed must be in (0, {mrg31k3p.M2}), got {seed}"
            )
        return np.full(6, seed, dtype=np.int64)
    state = np.asarray(seed, dtype=np.int64)
    if state.shape != (6,) or np.any(state[:3] >= mrg31k3p.M1) or np.any(state[3:] >= mrg31k3p.M2):
        raise ValueError(
            f"MRG_RandomStreams: a state seed must be six ints below the moduli, got {seed!r}"
        )
    if not state[:3].any() or not state[3:].any():
        raise ValueError("MRG_RandomStreams: each half of a state seed needs a non-zero entry")
    return state


def _product(sizes: list) -> Any:
    total = sizes[0] if sizes else pt.constant(np.int64(1))
    for s in sizes[1:]:
        total = total * s
    return total


# Standard deviation of a standard normal truncated to [-2, 2]: truncated_normal divides its
# std by it, so that ``std`` is the deviation of the result (as Theano's does).
TRUNCATED_STD = 0.87962566103423978
_PHI_MINUS_2 = 0.022750131948179195  # the standard normal CDF at -2


class MRG_RandomStreams:
    """Symbolic random draws from MRG31k3p streams, reproducible for ``seed``.

    Parameters
    ----------
    seed : int or six ints, optional
        An int in ``(0, 2147462579)`` (all six state entries, as Theano) or a full state.

    Each method call makes a new shared state (``n_streams`` x 6, int32), advanced by its
    default update whenever a compiled function draws from it; the next call starts ``2^134``
    steps further, so the draws of different calls never overlap.
    """

    def __init__(self, seed: Any = 12345) -> None:
        self.default_instance_seed = seed
        self.set_rstate(seed)
        #: (shared state, its next value) for every draw made so far, in order.
        self.state_updates: list[tuple[Variable, Variable]] = []

    def set_rstate(self, seed: Any) -> None:
        """Restart the sequence of draw states from ``seed``."""
        self.rstate = _seed_state(seed)

    def inc_rstate(self) -> None:
        """Move the start of the next draw ``2^134`` steps ahead."""
        self.rstate = mrg31k3p.jump_draw(self.rstate)

    def get_substream_rstates(
        self, n_streams: int, dtype: Any = None, inc_rstate: bool = True
    ) -> np.ndarray:
        """The ``n_streams`` stream states of a new draw (each ``2^72`` steps after the last)."""
        states = mrg31k3p.stream_states(self.rstate, int(n_streams))
        if inc_rstate:
            self.inc_rstate()
        return states

    def seed(self, seed: Any = None) -> None:
        """Reset every state made so far as a new ``MRG_RandomStreams(seed)`` making the same
        calls would have them (None: this instance's own seed)."""
        self.set_rstate(self.default_instance_seed if seed is None else seed)
        for state, _ in self.state_updates:
            n_streams = len(state.get_value(borrow=True))
            state.set_value(self.get_substream_rstates(n_streams), borrow=True)

    def updates(self) -> list[tuple[Variable, Variable]]:
        """The ``(shared state, next state)`` pairs of the draws made so far."""
        return list(self.state_updates)

    def _sizes(self, size: Any, ndim: Any) -> list:
        if size is None:
            raise TypeError("MRG_RandomStreams needs a size (a tuple or a shape vector)")
        sizes = shape_entries(size, "MRG_RandomStreams")
        if ndim is not None and ndim != len(sizes):
            raise ValueError(f"MRG_RandomStreams: ndim={ndim} does not match size {size!r}")
        return sizes

    def _uniform01(self, sizes: list, dtype: str, nstreams: Any) -> Variable:
        n_streams = guess_n_streams(sizes) if nstreams is None else int(nstreams)
        state = shared(self.get_substream_rstates(n_streams), borrow=True)
        draw_dtype = "float64" if dtype == "float64" else "float32"
        next_state, u = MRGUniform(draw_dtype)(state, *sizes)
        state.default_update = next_state
        self.state_updates.append((state, next_state))
        return u

    def uniform(
        self,
        size: Any,
        low: Any = 0.0,
        high: Any = 1.0,
        ndim: Any = None,
        dtype: Any = None,
        nstreams: Any = None,
    ) -> Variable:
        """Uniform draws on ``(low, high)`` of shape ``size`` (dtype: floatX by default)."""
        dtype = _float_dtype(dtype, low, high)
        u = self._uniform01(self._sizes(size, ndim), dtype, nstreams)
        return pt.cast(u * (high - low) + low, dtype)

    def binomial(
        self,
        size: Any = None,
        n: int = 1,
        p: Any = None,
        ndim: Any = None,
        dtype: str = "int64",
        nstreams: Any = None,
    ) -> Variable:
        """Binomial draws (``n`` trials of probability ``p``), of shape ``size`` (default: that
        of ``p``): counts of uniform draws below ``p``."""
        p = pt.as_tensor_variable(p)
        size = p.shape if size is None else size
        sizes = self._sizes(size, ndim)
        u = self._uniform01(
            [pt.constant(np.int64(n)), *sizes] if n != 1 else sizes, _float_dtype(None, p), nstreams
        )
        hits = pt.lt(u, p)
        return pt.cast(hits if n == 1 else hits.sum(axis=0), dtype)

    def normal(
        self,
        size: Any,
        avg: Any = 0.0,
        std: Any = 1.0,
        ndim: Any = None,
        dtype: Any = None,
        nstreams: Any = None,
        truncate: bool = False,
    ) -> Variable:
        """Normal draws of mean ``avg`` and deviation ``std``, by the Box-Muller transform of
        pairs of uniforms (``truncate``: the normal restricted to ``avg +- 2 std``)."""
        dtype = _float_dtype(dtype, avg, std)
        sizes = self._sizes(size, ndim)
        total = _product(sizes)
        z = (
            self._truncated(total, dtype, nstreams)
            if truncate
            else self._box_muller(total, dtype, nstreams)
        )
        z = pt.reshape(z, sizes, ndim=len(sizes))
        return pt.cast(avg + std * z, dtype)

    def _box_muller(self, total: Any, dtype: str, nstreams: Any) -> Variable:
        half = (total + 1) // 2
        u = self._uniform01([2 * half], dtype, nstreams)
        radius = pt.sqrt(-2.0 * pt.log(u[:half]))
        angle = (2.0 * np.pi) * u[half:]
        return pt.concatenate([radius * pt.cos(angle), radius * pt.sin(angle)])[:total]

    def _truncated(self, total: Any, dtype: str, nstreams: Any) -> Variable:
        # inverse CDF on [Phi(-2), Phi(2)]: Phi^-1(q) = sqrt(2) erfinv(2 q - 1)
        u = self._uniform01([total], dtype, nstreams)
        q = _PHI_MINUS_2 + u * (1.0 - 2.0 * _PHI_MINUS_2)
        return np.sqrt(2.0) * pt.erfinv(2.0 * q - 1.0)

    def truncated_normal(
        self,
        size: Any,
        avg: Any = 0.0,
        std: Any = 1.0,
        ndim: Any = None,
        dtype: Any = None,
        nstreams: Any = None,
    ) -> Variable:
        """Normal draws restricted to two deviations around ``avg``, of deviation ``std``."""
        return self.normal(size, avg, std / TRUNCATED_STD, ndim, dtype, nstreams, truncate=True)

    def _categories(self, pvals: Variable, draws: Any, nstreams: Any) -> Variable:
        """``(draws, rows)`` category indices, one per uniform: the count of cumulative
        probabilities at or below it (clipped, in case they sum to slightly less than 1)."""
        rows, width = pvals.shape[0], pvals.shape[1]
        u = self._uniform01(
            [pt.as_tensor_variable(draws), rows], _float_dtype(None, pvals), nstreams
        )
        cdf = pt.cumsum(pvals, axis=1)
        index = pt.le(cdf.dimshuffle("x", 0, 1), u.dimshuffle(0, 1, "x")).sum(axis=2)
        return pt.minimum(index, width - 1)

    def multinomial(
        self,
        size: Any = None,
        n: int = 1,
        pvals: Any = None,
        ndim: Any = None,
        dtype: str = "int64",
        nstreams: Any = None,
    ) -> Variable:
        """One multinomial draw of ``n`` trials per row of the probability matrix ``pvals``:
        counts of the shape of ``pvals``."""
        pvals = _probability_matrix(pvals, "multinomial")
        if size is not None:
            raise ValueError(
                "MRG_RandomStreams.multinomial: size must be None (the shape is that of pvals)"
            )
        index = self._categories(pvals, n, nstreams)  # (n, rows)
        columns = pt.arange(pvals.shape[1])
        one_hot = pt.eq(index.dimshuffle(0, 1, "x"), columns.dimshuffle("x", "x", 0))
        return pt.cast(one_hot.sum(axis=0), dtype)

    def choice(
        self,
        size: Any = 1,
        a: Any = None,
        replace: bool = True,
        p: Any = None,
        ndim: Any = None,
        dtype: str = "int64",
        nstreams: Any = None,
    ) -> Variable:
        """``size`` category indices per row of the probability matrix ``p`` (``a``, if
        given, must be its number of columns): ``(rows, size)``. Without replacement, the
        ``size`` largest ``log p + Gumbel noise`` (the Gumbel top-k trick, distributed as
        drawing one at a time and renormalizing)."""
        p = _probability_matrix(p, "choice")
        if (
            a is not None
            and static_int(a) is not None
            and p.type.shape[1] not in (None, static_int(a))
        ):
            raise ValueError(
                f"MRG_RandomStreams.choice: a={a} differs from the {p.type.shape[1]} columns of p"
            )
        if replace:
            return pt.cast(self._categories(p, size, nstreams).T, dtype)
        u = self._uniform01(list(pt.shape_tuple(p)), _float_dtype(None, p), nstreams)
        keys = pt.log(p) - pt.log(-pt.log(u))
        return pt.cast(pt.argsort(-keys, axis=1)[:, :size], dtype)

    def multinomial_wo_replacement(
        self, size: Any = None, n: int = 1, pvals: Any = None, **kwargs: Any
    ) -> Variable:
        """Theano's older name of ``choice(size=n, replace=False, p=pvals)``."""
        return self.choice(size=n, replace=False, p=pvals, **kwargs)


def _float_dtype(dtype: Any, *values: Any) -> str:
    """``dtype``, else floatX widened by the float parameters (as Theano's upcast)."""
    if dtype is not None:
        return str(np.dtype(dtype))
    dtypes = [config.floatX] + [
        v.type.dtype for v in values if isinstance(v, Variable) and v.type.dtype.startswith("float")
    ]
    return str(np.result_type(*dtypes))


def _probability_matrix(pvals: Any, name: str) -> Variable:
    pvals = pt.as_tensor_variable(pvals)
    if pvals.type.ndim != 2:
        raise TypeError(
            f"MRG_RandomStreams.{name}: the probabilities must be a matrix, got {pvals.type}"
        )
    return pvals


__all__ = ["MRGUniform", "MRG_RandomStreams", "guess_n_streams"]
