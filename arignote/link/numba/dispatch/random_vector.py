"""Native vector-valued and index draws (``arignote/tensor/random/multivariate.py``).

As for the scalar draws (``dispatch/random.py``), a kernel gives exactly the numbers of the
op's ``perform`` (NumPy's) and the same next generator state. ``perform`` calls NumPy once per
batch entry in C order (``draw_batched``), or once for all of them where NumPy broadcasts
itself (``multinomial``), and NumPy's vector samplers loop over the batch entries in C order
too: a kernel loops over the batch shape in C order and draws one core vector per entry with
NumPy's algorithm (``dispatch/random_samplers.py``, ``dispatch/random_picks.py``).

A kernel checks the parameters conservatively (a margin on NumPy's sum tolerances) and hands
anything it does not accept, empty draws included, to ``perform`` in object mode, which
raises NumPy's error or draws NumPy's numbers.

``multivariate_normal`` is in ``random_mvnormal.py``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import numba
from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import (
    compile_source,
    numba_funcify,
    objmode_kernel,
)
from arignote.link.numba.dispatch.random import _KernelWriter, copy_rng
from arignote.link.numba.dispatch.random_picks import (
    distinct_indices,
    weighted_distinct_indices,
    weighted_indices,
)
from arignote.link.numba.dispatch.random_samplers import (
    categorical_cdf,
    dirichlet_into,
    multinomial_into,
    mvhg_choices,
    mvhg_count_into,
    mvhg_marginals_into,
    search_right,
    shuffled_range,
)
from arignote.tensor.random.multivariate import (
    CategoricalRV,
    ChoiceRV,
    DirichletRV,
    MultinomialRV,
    MultivariateHypergeometricRV,
    PermutationRV,
    PermutedRV,
)
from arignote.tensor.random.type import is_none_const
from numba.np.random.generator_core import next_double

_jit = numba.njit(error_model="numpy", cache=False)

# -- parameter checks (True: the native draw is NumPy's; False: perform decides) --------------


@_jit
def _all_positive(values):
    return bool(np.all(np.isfinite(values) & (values > 0)))


@_jit
def _all_non_negative(values):
    return bool(np.all(values >= 0))


@_jit
def _rows(values):
    """``values`` as a C-contiguous 2-d array of its last-axis vectors."""
    return np.ascontiguousarray(values).reshape((-1, values.shape[-1]))


@_jit
def _multinomial_ok(pvals):
    """NumPy: every p in [0, 1] and each row's sum but the last at most 1 + 1e-12 (Kahan
    summed there: a margin of 1e-13 covers the rounding of a plain sum)."""
    if pvals.shape[-1] == 0:
        return False
    for row in _rows(pvals):
        total = 0.0
        for j in range(row.shape[0]):
            if not (row[j] >= 0 and row[j] <= 1):
                return False
            if j < row.shape[0] - 1:
                total += row[j]
        if total > 1.0 + 1e-12 - 1e-13:
            return False
    return True


@_jit
def _probabilities_ok(p, atol):
    """``Generator.choice``'s checks on p (finite, non-negative, summing to 1 within atol,
    with a margin for NumPy's other summation order)."""
    if p.shape[-1] == 0:
        return False
    for row in _rows(p):
        total = 0.0
        for v in row:
            if not (np.isfinite(v) and v >= 0):
                return False
            total += v
        if abs(total - 1.0) > atol - 1e-12:
            return False
    return True


@_jit
def _row_cdfs(p):
    """The normalised cumulative sums of every last-axis vector of ``p``, shaped as ``p``."""
    rows = _rows(p)
    cdfs = np.empty(rows.shape)
    for i in range(rows.shape[0]):
        cdfs[i] = categorical_cdf(rows[i])
    return cdfs.reshape(p.shape)


@_jit
def _mvhg_ok(colors, nsample, limit):
    """multivariate_hypergeometric's checks: colors >= 0 summing below ``limit`` (NumPy's
    for the marginals, a memory bound for the count method), 0 <= int(nsample) <= total."""
    rows = _rows(colors)
    counts = np.ascontiguousarray(nsample).ravel()
    for i in range(rows.shape[0]):
        total = 0
        for c in rows[i]:
            if c < 0:
                return False
            total += np.int64(c)
        n = counts[i]
        if not (np.isfinite(n) and n >= 0 and total < limit and np.int64(n) <= total):
            return False
    return True


def _atol(dtype: str) -> float:
    """Generator.choice's tolerance on the sum of p (wider for a low-precision float p)."""
    atol = float(np.sqrt(np.finfo(np.float64).eps))
    if np.issubdtype(dtype, np.floating):
        atol = max(atol, float(np.sqrt(np.finfo(dtype).eps)))
    return atol


_HELPERS = {
    "copy_rng": copy_rng,
    "all_positive": _all_positive,
    "all_non_negative": _all_non_negative,
    "multinomial_ok": _multinomial_ok,
    "probabilities_ok": _probabilities_ok,
    "row_cdfs": _row_cdfs,
    "dirichlet_into": dirichlet_into,
    "multinomial_into": multinomial_into,
    "search_right": search_right,
    "mvhg_ok": _mvhg_ok,
    "mvhg_choices": mvhg_choices,
    "mvhg_count_into": mvhg_count_into,
    "mvhg_marginals_into": mvhg_marginals_into,
    "shuffled_range": shuffled_range,
    "distinct_indices": distinct_indices,
    "weighted_indices": weighted_indices,
    "weighted_distinct_indices": weighted_distinct_indices,
}


def _compile(node: Apply, source: str, **extra) -> Callable:
    namespace = {"slow": objmode_kernel(node), **_HELPERS, **extra}
    namespace["DT"] = np.dtype(node.outputs[1].type.dtype).type
    return compile_source(source, "kernel", namespace)


# -- batched core draws: dirichlet, multinomial, categorical ----------------------------------


class _BatchWriter(_KernelWriter):
    """Writes a kernel looping over the batch shape (``size``, or the broadcast of the
    parameters' batch shapes) and drawing one core vector (or index) per entry."""

    def __init__(self, op, node: Apply) -> None:
        super().__init__(op, node)
        self.ndim = node.outputs[1].type.ndim - op.ndim_supp  # the batch dimensions
        self.cores = list(op.ndims_params)
        self.transform: dict[int, str] = {}  # parameter -> an expression replacing it
        self.setup: list[str] = []  # lines run once before the draws

    def _shape(self) -> None:
        for d in range(self.ndim):
            self._line(f"n{d} = size[{d}]" if self.has_size else f"n{d} = 1")
            if self.has_size:
                self._line(f"if n{d} < 0:")
                self._line("ok = False", 2)
        for param, var, core in zip(self.params, self.node.inputs[2:], self.cores):
            batch = var.type.ndim - core
            if batch > self.ndim:
                self._line("ok = False")  # more batch dimensions than size: NumPy refuses
                continue
            for j in range(batch):
                self._dimension(param, j, self.ndim - batch + j, var.type.shape[j])

    def _broadcast(self, k: int) -> str:
        """The parameter ``k`` broadcast to the batch shape (its core dimensions kept)."""
        var, core = self.node.inputs[2 + k], self.cores[k]
        value = self.transform.get(k, f"p{k}")
        if not self.ndim:
            return value
        batch = "".join(f"n{d}, " for d in range(self.ndim))
        tail = "".join(f"p{k}.shape[{var.type.ndim - core + c}], " for c in range(core))
        return f"np.broadcast_to({value}, ({batch}{tail}))"

    def _entry(self, k: int) -> str:
        """The core value of parameter ``k`` at the batch entry ``idx``."""
        if self.ndim:
            return f"b{k}[idx]"
        return f"b{k}[()]" if self.cores[k] == 0 else f"b{k}"

    def source(
        self, checks: list[str], draw: str, supp: str, work: str, late: tuple[str, ...] = ()
    ) -> str:
        """``checks``: conditions on ``p0, p1, ...`` (``late``: on the broadcast ``b0, b1,
        ...``); ``draw``: one core draw into ``{cell}`` (``{0}``, ``{1}``...: the core
        parameters); ``supp``: the core shape's entries; ``work``: the dtype drawn in."""
        args = ", ".join(["rng", "size", *self.params])
        self.lines = [f"def kernel({args}):", "    ok = True"]
        self._shape()
        count = " * ".join(f"n{d}" for d in range(self.ndim)) or "1"
        self._checks([f"{count} > 0", *checks])
        for k in range(len(self.params)):
            self._line(f"b{k} = {self._broadcast(k)}")
        self._checks(list(late))
        if not self.op.inplace:
            self._line("rng = copy_rng(rng)")
        self._line("bitgen = rng.bit_generator")
        for line in self.setup:
            self._line(line)
        self._body(draw, supp, work)
        return "\n".join(self.lines) + "\n"

    def _checks(self, checks: list[str]) -> None:
        for check in checks:
            self._line(f"if ok and not ({check}):")
            self._line("ok = False", 2)
        self._line("if not ok:")
        self._line(f"return slow(rng, size, {''.join(p + ', ' for p in self.params)})", 2)

    def _body(self, draw: str, supp: str, work: str) -> None:
        batch = "".join(f"n{d}, " for d in range(self.ndim))
        self._line(f"out = np.zeros(({batch}{supp}), {work})")
        entries = [self._entry(k) for k in range(len(self.params))]
        cell = "out[idx]" if self.ndim else ("out[()]" if not supp else "out")
        if self.ndim:
            self._line(f"for idx in np.ndindex({self._shape_tuple()}):")
            self._line(draw.format(*entries, cell=cell), 2)
        else:
            self._line(draw.format(*entries, cell=cell))
        self._line("return rng, out.astype(DT)" if work != "DT" else "return rng, out")


def _integer_safe(var) -> bool:
    return np.can_cast(var.type.dtype, np.int64)


@numba_funcify.register(DirichletRV)
def _dirichlet(op: DirichletRV, node: Apply) -> Callable:
    writer = _BatchWriter(op, node)
    draw = "dirichlet_into(bitgen, {0}, {cell})"
    source = writer.source(["all_positive(p0)"], draw, "p0.shape[-1], ", "np.float64")
    return _compile(node, source)


@numba_funcify.register(MultinomialRV)
def _multinomial(op: MultinomialRV, node: Apply) -> Callable:
    writer = _BatchWriter(op, node)
    # NumPy 2 refuses (TypeError) a count it cannot cast to int64 safely: perform raises it
    checks = ["all_non_negative(p0)" if _integer_safe(node.inputs[2]) else "False"]
    checks.append("multinomial_ok(p1)")
    draw = "multinomial_into(bitgen, np.int64({0}), {1}, {cell})"
    source = writer.source(checks, draw, "p1.shape[-1], ", "np.int64")
    return _compile(node, source)


@numba_funcify.register(CategoricalRV)
def _categorical(op: CategoricalRV, node: Apply) -> Callable:
    writer = _BatchWriter(op, node)
    writer.transform[0] = "row_cdfs(p0)"
    checks = [f"probabilities_ok(p0, {_atol(node.inputs[2].type.dtype)!r})"]
    # the cumulative sums are computed once per probability vector, then broadcast
    draw = "{cell} = search_right({0}, next_double(bitgen))"
    source = writer.source(checks, draw, "", "np.int64")
    return _compile(node, source, next_double=next_double)


@numba_funcify.register(MultivariateHypergeometricRV)
def _multivariate_hypergeometric(op: MultivariateHypergeometricRV, node: Apply) -> Callable:
    colors, nsample = node.inputs[2:]
    writer = _BatchWriter(op, node)
    # NumPy refuses colors of a non-integer dtype, bool included (perform raises its error)
    integer = np.issubdtype(colors.type.dtype, np.integer) and _integer_safe(colors)
    checks = ["p0.shape[-1] > 0" if integer else "False"]
    limit = 1_000_000_000 if op.method == "marginals" else 2**31
    late = (f"mvhg_ok(b0, b1, {limit})",)
    core = "{0}.astype(np.int64), np.int64({1}), {cell}"
    if op.method == "marginals":
        draw = "mvhg_marginals_into(bitgen, " + core + ")"
    elif colors.type.ndim > 1 or nsample.type.ndim > 0:  # one NumPy call per batch entry
        draw = "mvhg_count_into(bitgen, " + core + ", mvhg_choices({0}.astype(np.int64)))"
    else:  # one NumPy call for all: the variates keep shuffling the same items
        writer.setup.append("shared = mvhg_choices(p0.astype(np.int64))")
        draw = "mvhg_count_into(bitgen, " + core + ", shared)"
    source = writer.source(checks, draw, "p0.shape[-1], ", "np.int64", late)
    return _compile(node, source)


# -- shuffles: permutation, permuted --------------------------------------------------------


def _along(ndim: int, axis: int, index: str) -> str:
    """The subscript selecting ``index`` along ``axis`` of an ``ndim``-d array."""
    parts = [":"] * ndim
    parts[axis] = index
    return ", ".join(parts)


@numba_funcify.register(PermutationRV)
def _permutation(op: PermutationRV, node: Apply) -> Callable:
    x = node.inputs[2]
    lines = ["def kernel(rng, size, p0):"]
    if x.type.ndim == 0:  # arange(x) shuffled; a huge x goes to perform (NumPy's MemoryError)
        lines += ["    if p0[()] > 2 ** 40:", "        return slow(rng, size, p0)"]
    if not op.inplace:
        lines.append("    rng = copy_rng(rng)")
    if x.type.ndim == 0:
        lines.append("    out = shuffled_range(rng.bit_generator, np.int64(p0[()]))")
    else:
        lines += [
            f"    order = shuffled_range(rng.bit_generator, p0.shape[{op.axis}])",
            "    out = np.empty_like(p0)",
            "    for i in range(order.shape[0]):",
            f"        out[{_along(x.type.ndim, op.axis, 'i')}] = "
            f"p0[{_along(x.type.ndim, op.axis, 'order[i]')}]",
        ]
    lines.append("    return rng, out.astype(DT)")
    return _compile(node, "\n".join(lines) + "\n")


@numba_funcify.register(PermutedRV)
def _permuted(op: PermutedRV, node: Apply) -> Callable:
    ndim = node.inputs[2].type.ndim
    lines = ["def kernel(rng, size, p0):"]
    if not op.inplace:
        lines.append("    rng = copy_rng(rng)")
    lines.append("    x = np.ascontiguousarray(p0)")
    if op.axis is None:  # the flattened (C order) entries shuffled together
        lines += [
            "    flat = x.ravel()",
            "    order = shuffled_range(rng.bit_generator, flat.shape[0])",
            "    out = flat[order].reshape(x.shape)",
        ]
    else:  # each slice along axis shuffled in turn, the others in C order
        others = [d for d in range(ndim) if d != op.axis]
        rest = "".join(f"x.shape[{d}], " for d in others)
        subscript = [f"idx[{others.index(d)}]" if d != op.axis else "{}" for d in range(ndim)]
        at = ", ".join(subscript)
        lines += [
            "    out = np.empty_like(x)",
            f"    for idx in np.ndindex(({rest})):",
            f"        order = shuffled_range(rng.bit_generator, x.shape[{op.axis}])",
            "        for i in range(order.shape[0]):",
            f"            out[{at.format('i')}] = x[{at.format('order[i]')}]",
        ]
    lines.append("    return rng, out.astype(DT)")
    return _compile(node, "\n".join(lines) + "\n")


# -- choice --------------------------------------------------------------------------------


def _choice_picks(op: ChoiceRV, has_p: bool) -> list[str]:
    """Lines drawing ``picks``, the ``count`` flat indices below ``population``."""
    if op.replace and has_p:
        return ["    picks = weighted_indices(rng.bit_generator, p1, count)"]
    if op.replace:
        return ["    picks = rng.integers(0, population, size=count, dtype=np.int64)"]
    if has_p:
        return ["    picks = weighted_distinct_indices(rng.bit_generator, p1, count)"]
    return [f"    picks = distinct_indices(rng.bit_generator, population, count, {op.shuffle})"]


def _choice_checks(op: ChoiceRV, node: Apply, has_p: bool) -> list[str]:
    """Conditions for the native draw (else perform raises or draws): a non-empty draw from
    a non-empty population, valid probabilities, enough items without replacement."""
    a, p = node.inputs[2:]
    checks = ["count > 0", "population > 0"]
    if a.type.ndim == 0:
        checks.append("p0[()] <= 2 ** 40")
    if has_p:
        atol = _atol(p.type.dtype)
        checks += ["p1.shape[0] == population", f"probabilities_ok(p1, {atol!r})"]
    if not op.replace:
        checks.append("count <= population")
        if has_p:
            checks.append("np.count_nonzero(p1 > 0) >= count")
    return checks


@numba_funcify.register(ChoiceRV)
def _choice(op: ChoiceRV, node: Apply) -> Callable:
    a, p = node.inputs[2:]
    has_p = not is_none_const(p)
    batch = node.outputs[1].type.ndim - max(a.type.ndim - 1, 0)
    if is_none_const(node.inputs[1]):
        batch = 0  # one pick, shaped ()
    sizes = "".join(f"size[{d}], " for d in range(batch))
    lines = ["def kernel(rng, size, p0, p1):", f"    shape = ({sizes})", "    count = 1"]
    lines += [f"    count *= size[{d}]" for d in range(batch)]
    population = "np.int64(p0[()])" if a.type.ndim == 0 else f"p0.shape[{op.axis}]"
    lines.append(f"    population = {population}")
    for check in _choice_checks(op, node, has_p):
        lines += [f"    if not ({check}):", "        return slow(rng, size, p0, p1)"]
    if not op.replace:
        lines += ["    if count > population:", "        return slow(rng, size, p0, p1)"]
    if not op.inplace:
        lines.append("    rng = copy_rng(rng)")
    lines += _choice_picks(op, has_p)
    lines += _choice_take(op, a.type.ndim)
    return _compile(node, "\n".join(lines) + "\n")


def _choice_take(op: ChoiceRV, ndim: int) -> list[str]:
    """``a.take(picks, axis)`` shaped with the batch shape in place of ``axis``."""
    if ndim == 0:
        return ["    return rng, picks.reshape(shape).astype(DT)"]
    before = "".join(f"p0.shape[{d}], " for d in range(op.axis))
    after = "".join(f"p0.shape[{d}], " for d in range(op.axis + 1, ndim))
    return [
        f"    flat = np.empty(({before}count, {after}), DT)",
        "    for i in range(count):",
        f"        flat[{_along(ndim, op.axis, 'i')}] = p0[{_along(ndim, op.axis, 'picks[i]')}]",
        f"    return rng, flat.reshape(({before}) + shape + ({after}))",
    ]


__all__: list[str] = []
