"""Random graphs over the whole op database, run on every execution path and compared.

A :class:`Graph` is plain data (entry names and small integers), so Hypothesis shrinks it and a
shrunk failure is pasted into ``test_fuzz_regressions.py`` as printed. Each :class:`Piece`
applies one op_db entry (any of them: elementwise, reductions, indexing, shapes, dots, scan,
ifelse, OpFromGraph, random draws from a constant generator with a fixed seed) to one of its
samples; an argument may be fed by an earlier piece's output of the same shape and dtype, and
each output goes through one of the ``FINISHES`` (identity, elementwise, a reduction, a
reversed view, a transpose, a dot). The graph's value on the VM without rewrites (every op's
``perform``) is the reference; every path must agree with it, raise where it raises, or be a
backend that says it has no conversion for an op (JAX's ``UnsupportedOpError``, counted apart).
The documented limits of a path, not counted as mismatches, are the sets below with their
reasons: ``OWN_GENERATOR``, ``UNINITIALIZED``, ``NAN_FOR_LINALG_ERROR`` and
``VALUES_FOR_PARAMETER_ERROR`` (JAX's samplers cannot raise on parameter values).
"""

from __future__ import annotations

import warnings
import zlib
from dataclasses import dataclass, field

import numpy as np

import arignote
import arignote.tensor as pt
from arignote.compile.debugmode import DebugMode
from arignote.compile.mode import Mode
from arignote.tensor.random.op import RandomVariable
from tests.op_db import REGISTRY
from tests.op_db.core import cast_sample

try:  # the JAX backend is optional: the path is skipped (with a reason) without jax
    import jax  # noqa: F401

    HAVE_JAX = True
except ImportError:  # pragma: no cover - depends on the environment
    HAVE_JAX = False

INFOS = {info.name: info for info in REGISTRY}
NAMES = tuple(sorted(INFOS))
REFERENCE = "no_rewrites"
PATHS = {
    REFERENCE: Mode(linker="vm", optimizer=None),
    "FAST_COMPILE": "FAST_COMPILE",
    "FAST_RUN": "FAST_RUN",
    "vm": Mode(linker="vm", optimizer="fast_run"),
    "py_linker": Mode(linker="py", optimizer="fast_run"),
    "NUMBA": "NUMBA",
    "JAX": "JAX",
    # the samples reach NaN on purpose (domains' edges): DebugMode checks all but finiteness
    "DebugMode": DebugMode(check_isfinite=False),
}
if not HAVE_JAX:  # pragma: no cover
    del PATHS["JAX"]

#: What happens to each output of a piece: ``(name, applies(ndim, dtype kind), build)``.
FINISHES = (
    ("id", lambda nd, k: True, lambda o: o),
    ("tanh", lambda nd, k: k == "f", lambda o: pt.tanh(o) * 2 + 1),
    ("sum0", lambda nd, k: nd >= 1 and k in "fiu", lambda o: o.sum(axis=0)),
    ("max", lambda nd, k: k in "fiu", lambda o: o.max()),
    ("reverse", lambda nd, k: nd >= 1, lambda o: o[::-1]),
    ("T", lambda nd, k: nd >= 2, lambda o: o.T),
    ("gram", lambda nd, k: nd == 2 and k == "f", lambda o: pt.dot(o, o.T)),
    ("where", lambda nd, k: k == "f", lambda o: pt.switch(o > 0, o, -o)),
)
FINISH_NAMES = tuple(name for name, *_ in FINISHES)


@dataclass(frozen=True)
class Piece:
    """One op_db entry on one of its samples; ``feed`` picks an earlier output for an argument
    of the same shape and dtype (negative: none), ``finish`` what each output goes through."""

    entry: str
    sample: int = 0
    feed: int = -1
    finish: str = "id"


@dataclass(frozen=True)
class Graph:
    pieces: tuple[Piece, ...]


@dataclass
class Built:
    inputs: list = field(default_factory=list)
    values: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    rtol: float = 1e-7
    atol: float = 1e-10


@dataclass
class Mismatch:
    path: str
    detail: str

    def __str__(self) -> str:
        return f"{self.path}: {self.detail}"


@dataclass
class Outcome:
    graph: Graph
    skipped: str | None = None
    mismatches: list[Mismatch] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)  # paths with no conversion of an op

    def describe(self) -> str:
        return "\n".join([repr(self.graph)] + [f"  {m}" for m in self.mismatches])


# -- building -----------------------------------------------------------------------------------


def _sample(piece: Piece):
    info = INFOS[piece.entry]
    samples = info.samples(np.random.default_rng(zlib.crc32(info.name.encode())))
    return info, cast_sample(samples[piece.sample % len(samples)], info.dtypes[0])


def _argument(built: Built, arg, position: int, sample, earlier: list, feed: int):
    """The symbolic argument: an earlier output of the same shape and dtype, or a new input."""
    if position in sample.static or not isinstance(arg, np.ndarray):
        return arg
    fits = [v for v, val in earlier if val.shape == arg.shape and val.dtype == arg.dtype]
    if feed >= 0 and fits:
        return fits[feed % len(fits)]
    shape = tuple(1 if n == 1 else None for n in arg.shape)  # length 1 stays broadcastable
    var = pt.tensor(dtype=arg.dtype, shape=shape, name=f"x{len(built.inputs)}")
    built.inputs.append(var)
    built.values.append(arg)
    return var


def _finish(name: str, out):
    _, applies, build = FINISHES[FINISH_NAMES.index(name)]
    if not hasattr(out.type, "ndim") or not applies(out.type.ndim, np.dtype(out.type.dtype).kind):
        return out
    return build(out)


def build(graph: Graph) -> Built:
    """Inputs, their values and outputs of ``graph``; ``earlier`` outputs get their reference
    values as the graph grows, so that feeding can match them by shape and dtype."""
    built, earlier = Built(), []
    for piece in graph.pieces:
        info, sample = _sample(piece)
        args = [
            _argument(built, a, p, sample, earlier, piece.feed) for p, a in enumerate(sample.args)
        ]
        result = info.build(*args, **sample.kwargs)
        results = result if isinstance(result, list | tuple) else [result]
        outs = [_finish(piece.finish, o) for o in results]
        built.outputs += outs
        values = _evaluate(built, outs, PATHS[REFERENCE])
        earlier += [(o, np.asarray(v)) for o, v in zip(outs, values) if hasattr(o.type, "ndim")]
        _widen_tolerance(built, info, sample)
    return built


def _widen_tolerance(built: Built, info, sample) -> None:
    single = any(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in sample.args)
    built.rtol = max(built.rtol, info.rtol or (1e-4 if single else 0))
    built.atol = max(built.atol, info.atol or (1e-5 if single else 0))


def _evaluate(built: Built, outputs: list, mode) -> list:
    fn = arignote.function(built.inputs, outputs, mode=mode, on_unused_input="ignore")
    return [np.asarray(v) for v in fn(*[v.copy() for v in built.values])]


# -- running and comparing ----------------------------------------------------------------------


def _run(built: Built, path: str):
    """The results on ``path`` (or the exception), after checking no input was changed."""
    given = [v.copy() for v in built.values]
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn = arignote.function(
                built.inputs, built.outputs, mode=PATHS[path], on_unused_input="ignore"
            )
            result = [np.array(v) for v in fn(*given)]
    except Exception as err:
        return err
    for position, (before, after) in enumerate(zip(built.values, given)):
        if not np.array_equal(before, after, equal_nan=before.dtype.kind in "fc"):
            return AssertionError(f"input {position} was modified")
    return result


def _unsupported(err: BaseException) -> bool:
    """A backend saying it has no conversion for an op, or (JAX) that it needs a shape when it
    compiles that only the input values give: documented limits, not wrong results."""
    return type(err).__name__ in ("UnsupportedOpError", "DynamicShapeError")


#: Paths whose random draws come from their own generator (``jax.random``): only the shapes
#: and dtypes of a graph with draws are compared there.
OWN_GENERATOR = {"JAX"}
#: Entries whose values are uninitialized memory (``np.empty``): only shapes and dtypes are
#: compared (DebugMode itself skips the values ops declare uninitialized).
UNINITIALIZED = {"empty", "empty_like"}


def _difference(got, expected, built: Built, values: bool = True) -> str | None:
    if got.shape != expected.shape:
        return f"shape {got.shape} != {expected.shape}"
    if got.dtype != expected.dtype:
        return f"dtype {got.dtype} != {expected.dtype}"
    if not values:
        return None
    if expected.dtype.kind in "fc":
        single = np.result_type(got, expected) in (np.float32, np.complex64)
        rtol, atol = (
            (max(built.rtol, 1e-4), max(built.atol, 1e-5)) if single else (built.rtol, built.atol)
        )
        close = np.isclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    else:
        close = got == expected
    if np.all(close):
        return None
    where = tuple(int(i) for i in np.argwhere(~np.asarray(close))[0]) if got.ndim else ()
    return f"at {where}: {got[where]!r} != {expected[where]!r}"


#: Paths whose compiled code cannot raise on values: where the reference raises NumPy's
#: LinAlgError for NaN or infinity in a matrix (SVD, pinv, lstsq), they give NaN results.
NAN_FOR_LINALG_ERROR = {"JAX"}


def _nan_for_linalg_error(path: str, got, expected) -> bool:
    if path not in NAN_FOR_LINALG_ERROR or not isinstance(expected, np.linalg.LinAlgError):
        return False
    return any(g.dtype.kind in "fc" and np.isnan(g).any() for g in got)


#: Paths whose compiled code cannot raise on values: where the reference raises a random
#: variable's ``ValueError`` on its parameters' values (``triangular`` with mode > right,
#: ``t`` with scale <= 0, ...), their samplers, which check nothing, return numbers.
VALUES_FOR_PARAMETER_ERROR = {"JAX"}


def _values_for_parameter_error(path: str, expected) -> bool:
    node = getattr(expected, "__arignote_node__", None)  # the node the VM says raised it
    return (
        path in VALUES_FOR_PARAMETER_ERROR
        and isinstance(expected, ValueError)
        and isinstance(getattr(node, "op", None), RandomVariable)
    )


def _compare(path: str, got, expected, built: Built, values: bool = True) -> list[Mismatch]:
    if isinstance(expected, BaseException):
        if isinstance(got, BaseException) or _nan_for_linalg_error(path, got, expected):
            return []
        if _values_for_parameter_error(path, expected):
            return []
        return [Mismatch(path, f"returns values where {REFERENCE} raises {expected!r}")]
    if isinstance(got, BaseException):
        return [Mismatch(path, f"raises {type(got).__name__}: {str(got).splitlines()[:1]}")]
    found = []
    for position, (g, e) in enumerate(zip(got, expected)):
        detail = _difference(g, e, built, values)
        if detail is not None:
            found.append(Mismatch(path, f"output {position}: {detail}"))
    return found


def _draws(graph: Graph) -> bool:
    return any(p.entry.startswith("random.") for p in graph.pieces)


def _uninitialized(graph: Graph) -> bool:
    return any(p.entry in UNINITIALIZED for p in graph.pieces)


def check_graph(graph: Graph, paths=tuple(PATHS)) -> Outcome:
    """Every path of ``paths`` against the VM without rewrites, on ``graph``."""
    outcome = Outcome(graph)
    built = _built(outcome)
    if built is None:
        return outcome
    expected = _run(built, REFERENCE)
    for path in paths:
        if path != REFERENCE:
            _record(outcome, path, _run(built, path), expected, built)
    return outcome


def _built(outcome: Outcome) -> Built | None:
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return build(outcome.graph)
    except Exception as err:  # the pieces do not make a graph (or the reference raises)
        outcome.skipped = f"{type(err).__name__}: {err}"
        return None


def _record(outcome: Outcome, path: str, got, expected, built: Built) -> None:
    """Compare one path's results (or exception) on ``outcome.graph`` and note the finding."""
    graph = outcome.graph
    if isinstance(got, BaseException) and _unsupported(got):
        outcome.unsupported.append(path)
        return
    values = not (_uninitialized(graph) or (path in OWN_GENERATOR and _draws(graph)))
    outcome.mismatches += _compare(path, got, expected, built, values)


# -- several graphs in one compiled function ----------------------------------------------------


def check_graphs(graphs, paths=tuple(PATHS)) -> list[Outcome]:
    """:func:`check_graph` of each of ``graphs``, with one compiled function per path for all
    of them: compiling dominates the cost of a fuzzed graph on the native and JAX backends.

    The graphs share no variable, so each one's outputs in the joint function must equal its
    reference alone. A graph whose reference raises or that draws random numbers (equal
    constant generators of two graphs could be merged into one) is checked alone; when the
    joint function raises or says it cannot convert an op, each graph is checked alone on that
    path; a graph mismatching in the joint function is checked alone too, and a mismatch seen
    only jointly is reported as such (it is still a wrong result of that path).
    """
    outcomes = [Outcome(graph) for graph in graphs]
    joint = []
    for position, outcome in enumerate(outcomes):
        built = _built(outcome)
        if built is None:
            continue
        expected = _run(built, REFERENCE)
        if isinstance(expected, BaseException) or _draws(outcome.graph):
            outcomes[position] = check_graph(outcome.graph, paths)
            continue
        joint.append((outcome, built, expected))
    if joint:
        merged = _merge([built for _, built, _ in joint])
        for path in paths:
            if path != REFERENCE:
                _check_jointly(joint, merged, path)
    return outcomes


def _merge(builds: list[Built]) -> Built:
    merged = Built()
    for built in builds:
        merged.inputs += built.inputs
        merged.values += built.values
        merged.outputs += built.outputs
    return merged


def _check_jointly(joint: list, merged: Built, path: str) -> None:
    got = _run(merged, path)
    start = 0
    for outcome, built, expected in joint:
        if len(joint) == 1 or isinstance(got, BaseException):
            _record(outcome, path, _run(built, path), expected, built)
            continue
        mine = got[start : start + len(built.outputs)]
        start += len(built.outputs)
        probe = Outcome(outcome.graph)
        _record(probe, path, mine, expected, built)
        if not probe.mismatches:
            continue
        before = len(outcome.mismatches)
        _record(outcome, path, _run(built, path), expected, built)
        if len(outcome.mismatches) == before and path not in outcome.unsupported:
            outcome.mismatches += [
                Mismatch(m.path, f"only compiled with other graphs: {m.detail}")
                for m in probe.mismatches
            ]


def random_graph(rng: np.random.Generator, max_pieces: int = 3) -> Graph:
    """A graph drawn with NumPy, from the distribution of the Hypothesis strategy."""
    pieces = tuple(
        Piece(
            entry=str(rng.choice(NAMES)),
            sample=int(rng.integers(0, 4)),
            feed=int(rng.integers(-1, 3)),
            finish=str(rng.choice(FINISH_NAMES)),
        )
        for _ in range(int(rng.integers(1, max_pieces + 1)))
    )
    return Graph(pieces)
