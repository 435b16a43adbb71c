"""``DebugMode``: compile as usual, then check every op against its contract on every call.

Each call of a function compiled with ``mode="DebugMode"`` (or ``DebugMode(...)``):

1. Runs a *reference* evaluation: every node's ``perform`` (``debug_perform`` when the op
   defines one, as the Op contract describes), each on private copies of its inputs, and checks
   for each node that

   - its outputs are valid values of their types (dtype, number of dimensions, static shape)
     and, with ``check_isfinite``, contain no NaN or infinity unless one of its inputs already
     did (:class:`InvalidValueError`: the node that creates a NaN is named, not the ones that
     pass it on);
   - it changed no input it does not list in ``destroy_map`` (:class:`BadDestroyMap`);
   - it returned no output sharing memory with an input unless ``view_map``/``destroy_map``
     says so (:class:`BadViewMap`);
   - ``infer_shape`` gives the shapes the outputs really have (:class:`BadInferShape`);
   - ``perform`` gives the same values when its output cells hold preallocated arrays of
     the right dtype but the wrong shape or any strides, as the Op contract allows
     (:class:`BadThunkOutput` naming the kind of preallocation).

2. Runs the function's graph as compiled (the linker's thunks) and checks that every value
   matches the reference (:class:`BadThunkOutput`).

3. Checks the rewrites: every replacement a rewrite made during compilation is evaluated on
   the call's inputs, old and new graph, and must agree (:class:`BadOptimization` names the
   rewrite); the graph as it was before rewriting must give the same outputs too.

An op may list outputs in ``uninitialized_outputs`` (``AllocEmpty``: ``np.empty``): their
values are whatever the memory held, so they are never compared; the reference goes on with
the compiled run's value, so that the nodes computing from it are still checked, and the
rewrite checks leave out the variables that depend on such values.

Every error names the Apply node (or the rewrite) at fault. The function returns the compiled
linker's results, so it computes exactly what it would in another mode, much more slowly.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np

from arignote.compile.aliasing import view_root, views_of
from arignote.compile.mode import Mode, register_mode
from arignote.graph.basic import Apply, Constant, Variable, ancestors, clone_get_equiv
from arignote.graph.destroyhandler import DestroyHandler
from arignote.graph.features import Feature, InconsistencyError
from arignote.graph.fg import FunctionGraph, MissingInputError
from arignote.graph.op import Op
from arignote.graph.rewriting.trace import RewriteTrace
from arignote.graph.shared import describe_value
from arignote.graph.utils import MethodNotDefined
from arignote.link.basic import Linker, Runner, raise_with_op
from arignote.link.vm import VMLinker, VMRunner
from arignote.tensor.type import TensorType

PREALLOCATION_KINDS = (
    "previous",
    "c_contiguous",
    "f_contiguous",
    "strided",
    "negative_strides",
    "wrong_size",
)


# -- errors ---------------------------------------------------------------------------------


class DebugModeError(Exception):
    """A check of DebugMode failed."""


class BadThunkOutput(DebugModeError):
    """Two computations of the same node disagree (linker vs reference, or preallocation)."""

    def __init__(self, node: Apply, output: int, kind: str, expected: Any, got: Any) -> None:
        self.node, self.output, self.kind = node, output, kind
        self.expected, self.got = expected, got
        super().__init__(
            f"{node.op} computed a different value for output {output} of {node} ({kind}): "
            f"expected {_summary(expected)}, got {_summary(got)}"
        )


class BadOptimization(DebugModeError):
    """A rewrite replaced a variable by one with a different value."""

    def __init__(self, reason: str, old: Variable, new: Variable, old_value, new_value) -> None:
        self.reason, self.old, self.new = reason, old, new
        self.old_value, self.new_value = old_value, new_value
        super().__init__(
            f"The rewrite {reason!r} replaced {old} by {new}, which has another value: "
            f"{_summary(old_value)} before, {_summary(new_value)} after"
        )


class BadDestroyMap(DebugModeError):
    """An op changed an input it does not declare in ``destroy_map``."""

    def __init__(self, node: Apply, input_index: int, before: Any, after: Any) -> None:
        self.node, self.input_index = node, input_index
        super().__init__(
            f"{node.op} changed its input {input_index} ({node.inputs[input_index]}) in {node} "
            f"without declaring it in destroy_map (declared: {dict(node.op.destroy_map)}): "
            f"{_summary(before)} became {_summary(after)}"
        )


class BadViewMap(DebugModeError):
    """An op returned an output aliasing an input without declaring it in ``view_map``."""

    def __init__(self, node: Apply, output: int, input_index: int) -> None:
        self.node, self.output, self.input_index = node, output, input_index
        super().__init__(
            f"Output {output} of {node.op} in {node} shares memory with input {input_index} "
            f"({node.inputs[input_index]}), but the op declares no view (view_map: "
            f"{dict(node.op.view_map)}, destroy_map: {dict(node.op.destroy_map)})"
        )


class BadInferShape(DebugModeError):
    """``infer_shape`` disagrees with the shape of an output."""

    def __init__(self, node: Apply, output: int, inferred: tuple, actual: tuple) -> None:
        self.node, self.output, self.inferred, self.actual = node, output, inferred, actual
        super().__init__(
            f"{node.op}.infer_shape says output {output} of {node} has shape {inferred}, but "
            f"perform returned shape {actual}"
        )


class InvalidValueError(DebugModeError):
    """An op returned a value that its output type does not allow (or a NaN/inf)."""

    def __init__(self, node: Apply, output: int, value: Any, reason: str) -> None:
        self.node, self.output, self.value = node, output, value
        super().__init__(
            f"{node.op} returned an invalid value for output {output} of {node} (type "
            f"{node.outputs[output].type}): {reason}; got {_summary(value)}"
        )


def _summary(value: Any) -> str:
    if isinstance(value, np.ndarray) and value.size > 8:
        return f"{describe_value(value)} (first values {value.reshape(-1)[:4]})"
    if isinstance(value, np.ndarray):
        return f"{describe_value(value)} {value!r}"
    return repr(value)


# -- value helpers ---------------------------------------------------------------------------


def _nonfinite(value: Any) -> bool:
    """Whether ``value`` is a float or complex array holding a NaN or an infinity."""
    if not isinstance(value, (np.ndarray, np.generic)) or value.dtype.kind not in "fc":
        return False
    return not bool(np.all(np.isfinite(value)))


def _copy(value: Any) -> Any:
    return value.copy() if isinstance(value, np.ndarray) else copy.deepcopy(value)


def _identical(a: Any, b: Any) -> bool:
    """Exactly the same contents (NaN equal to NaN): used to detect changed inputs."""
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    try:
        return bool(a == b)
    except Exception:
        return a is b


def _unchanged(var: Variable, before: Any, after: Any) -> bool:
    """Whether an input value kept its contents (arrays exactly, NaN included; else the type's
    own equality, e.g. the state of a random generator)."""
    if isinstance(before, np.ndarray) or isinstance(after, np.ndarray):
        return _identical(before, after)
    values_eq = getattr(var.type, "values_eq", None)
    try:
        return bool(values_eq(before, after)) if values_eq is not None else before == after
    except Exception:
        return _identical(before, after)


def _may_share(var: Variable, out: Any, inp: Any) -> bool:
    if isinstance(out, np.ndarray) and isinstance(inp, np.ndarray):
        return bool(np.may_share_memory(out, inp))
    if out is None or inp is None or isinstance(out, np.ndarray) != isinstance(inp, np.ndarray):
        return False
    may_share = getattr(var.type, "may_share_memory", None)
    return bool(may_share(out, inp)) if may_share is not None else out is inp


def _close(var: Variable, a: Any, b: Any) -> bool:
    compare = getattr(var.type, "values_eq_approx", None)
    if compare is None:
        return _identical(a, b)
    try:
        return bool(compare(a, b))
    except (TypeError, ValueError):
        return False


def _garbage_like(value: np.ndarray, shape: tuple, order: str = "C") -> np.ndarray:
    """An array of ``value``'s dtype and ``shape`` filled with values no op should produce."""
    filler: Any
    if value.dtype.kind in "fc":
        filler = np.nan
    elif value.dtype.kind == "b":
        filler = True
    else:
        filler = np.iinfo(value.dtype).max
    return np.full(shape, filler, dtype=value.dtype, order=order)


def preallocated(kind: str, value: Any, previous: Any) -> Any:
    """An output-cell content for preallocation ``kind``, or None when it does not apply."""
    if not isinstance(value, np.ndarray):
        return None
    shape = value.shape
    if kind == "previous":
        return previous if isinstance(previous, np.ndarray) else None
    if kind == "c_contiguous":
        return _garbage_like(value, shape)
    if kind == "f_contiguous":
        return _garbage_like(value, shape, order="F") if value.ndim > 1 else None
    if kind == "strided":
        if value.ndim == 0:
            return None
        big = _garbage_like(value, tuple(2 * s for s in shape))
        return big[tuple(slice(None, None, 2) for _ in shape)]
    if kind == "negative_strides":
        # (a 0-d array has no strides to reverse; indexing it with () would give a scalar)
        if value.ndim == 0:
            return None
        return _garbage_like(value, shape)[tuple(slice(None, None, -1) for _ in shape)]
    if kind == "wrong_size":
        return _garbage_like(value, tuple(s + 1 for s in shape)) if value.ndim else None
    raise ValueError(f"Unknown preallocation kind {kind!r}; known: {PREALLOCATION_KINDS}")


# -- recording the rewrites ----------------------------------------------------------------------


class DebugRecorder(RewriteTrace):
    """Keeps the graph as it was before rewriting, and every replacement made since."""

    def on_attach(self, fgraph: FunctionGraph) -> None:
        equiv = clone_get_equiv(fgraph.inputs, fgraph.outputs)
        self.original = FunctionGraph(
            [equiv[v] for v in fgraph.inputs], [equiv[v] for v in fgraph.outputs], clone=False
        )
        fgraph.debug_recorder = self

    def clone(self) -> DebugRecorder:
        return DebugRecorder()


# -- the per-node checks -------------------------------------------------------------------------


def _uses_perform(op: Any) -> bool:
    return type(op).perform is not Op.perform or hasattr(op, "debug_perform")


class NodeChecker:
    """Runs one node's reference computation and checks the op's contract on it.

    The reference is the op's ``perform`` (``debug_perform`` when it has one); an op with its
    own ``make_thunk`` and no ``perform`` is computed by the kernel the linker built for it
    (once per compiled function: an inner graph is never compiled during a call).
    """

    def __init__(self, node: Apply, fgraph: FunctionGraph, mode: DebugMode, kernel) -> None:
        self.node = node
        self.mode = mode
        op = node.op
        self.by_perform = _uses_perform(op)
        self.perform = (
            (getattr(op, "debug_perform", None) or op.perform) if self.by_perform else kernel
        )
        self.destroyed = {i for ins in getattr(op, "destroy_map", {}).values() for i in ins}
        self.aliases = {
            out: set(getattr(op, "view_map", {}).get(out, ()))
            | set(getattr(op, "destroy_map", {}).get(out, ()))
            for out in range(len(node.outputs))
        }
        self.shape_fn = _shape_evaluator(node, fgraph) if mode.check_infer_shape else None
        self.previous: list[Any] = [None] * len(node.outputs)
        self.uninitialized = set(getattr(op, "uninitialized_outputs", ()))

    def run(self, values: list[Any]) -> list[Any]:
        """The node's outputs from ``values`` (left untouched), after checking the contract."""
        node = self.node
        inputs = [_copy(v) for v in values]
        outputs = self._compute(inputs, [[None] for _ in node.outputs])
        self._check_inputs(values, inputs)
        self._check_views(inputs, outputs)
        self._check_outputs(outputs, values)
        if self.shape_fn is not None and all(v is not None for v in values):
            self._check_shapes(values, outputs)
        if self.by_perform:
            self._check_preallocated(values, outputs)
        self.previous = outputs
        return outputs

    def _compute(self, inputs: list[Any], cells: list[list]) -> list[Any]:
        node = self.node
        try:
            self.perform(node, inputs, cells)
        except Exception as err:
            storage = {v: [x] for v, x in zip(node.inputs, inputs)}
            raise_with_op(None, node, err, storage)
        return [cell[0] for cell in cells]

    def _check_inputs(self, before: list[Any], after: list[Any]) -> None:
        for i, (var, old, new) in enumerate(zip(self.node.inputs, before, after)):
            if i not in self.destroyed and not _unchanged(var, old, new):
                raise BadDestroyMap(self.node, i, old, new)

    def _check_views(self, inputs: list[Any], outputs: list[Any]) -> None:
        for j, (var, out) in enumerate(zip(self.node.outputs, outputs)):
            for i, inp in enumerate(inputs):
                if i not in self.aliases[j] and _may_share(var, out, inp):
                    raise BadViewMap(self.node, j, i)

    def _check_outputs(self, outputs: list[Any], inputs: list[Any]) -> None:
        # A NaN or infinity is blamed on the node that creates it: a node passing on (or viewing)
        # non-finite values it received is not at fault, so NaN-containing inputs stay legal.
        blame_nonfinite = self.mode.check_isfinite and not any(_nonfinite(v) for v in inputs)
        for j, (var, value) in enumerate(zip(self.node.outputs, outputs)):
            if value is None:
                raise InvalidValueError(self.node, j, value, "perform left the output cell empty")
            try:
                var.type.filter(value, strict=True)
            except (TypeError, ValueError) as err:
                raise InvalidValueError(self.node, j, value, str(err)) from err
            if blame_nonfinite and _nonfinite(value):
                raise InvalidValueError(
                    self.node, j, value, "it produced NaN or infinity from finite inputs"
                )

    def _check_shapes(self, values: list[Any], outputs: list[Any]) -> None:
        inferred = self.shape_fn(values)
        for j, (shape, value) in enumerate(zip(inferred, outputs)):
            if shape is None or not hasattr(value, "shape"):
                continue
            if tuple(int(s) for s in shape) != tuple(value.shape):
                raise BadInferShape(self.node, j, tuple(int(s) for s in shape), value.shape)

    def _check_preallocated(self, values: list[Any], reference: list[Any]) -> None:
        for kind in self.mode.check_preallocated_output:
            cells = [[preallocated(kind, ref, prev)] for ref, prev in zip(reference, self.previous)]
            if all(cell[0] is None for cell in cells):
                continue
            inputs = [_copy(v) for v in values]
            try:
                outputs = self._compute(inputs, cells)
            except Exception as err:
                raise BadThunkOutput(
                    self.node, 0, f"output storage preallocated: {kind}", reference[0], err
                ) from err
            for j, (var, ref, got) in enumerate(zip(self.node.outputs, reference, outputs)):
                valid = var.type.is_valid_value(got) if got is not None else False
                garbage = j in self.uninitialized  # (any values are right)
                if not valid or not (garbage or _close(var, ref, got)):
                    raise BadThunkOutput(
                        self.node, j, f"output storage preallocated: {kind}", ref, got
                    )


def _shape_evaluator(node: Apply, fgraph: FunctionGraph) -> Callable | None:
    """``values -> output shapes`` from ``op.infer_shape``, or None if it cannot be built."""
    infer = getattr(node.op, "infer_shape", None)
    if infer is None:
        return None
    shape_vars: list[Variable] = []
    input_shapes = []
    for inp in node.inputs:
        if isinstance(inp.type, TensorType):
            dims = tuple(TensorType("int64", ())(f"{inp}.shape[{d}]") for d in range(inp.type.ndim))
            shape_vars.extend(dims)
            input_shapes.append(dims)
        else:
            input_shapes.append(None)
    try:
        shapes = infer(fgraph, node, input_shapes)
        return _compile_shapes(node, shape_vars, shapes)
    except (MethodNotDefined, NotImplementedError, MissingInputError, TypeError, ValueError):
        return None


def _compile_shapes(node: Apply, shape_vars: list[Variable], shapes: list) -> Callable:
    entries: list[Any] = []
    layout: list[list[int] | None] = []
    for shape in shapes:
        if shape is None:
            layout.append(None)
            continue
        layout.append([len(entries) + k for k in range(len(shape))])
        entries.extend(shape)
    symbolic = [e for e in entries if isinstance(e, Variable) and not isinstance(e, Constant)]
    value_inputs = [v for v in node.inputs if not isinstance(v, Constant)]
    evaluate = _evaluator(shape_vars + value_inputs, symbolic) if symbolic else None

    def shapes_of(values: list[Any]) -> list[tuple | None]:
        given = [np.asarray(s, dtype="int64") for s in _tensor_shapes(node, values)]
        # private copies, as _evaluator assumes: the shape graph may hold the node itself
        # (a Scan's mapped output shape), in place on an input the later checks still read
        nonconstant = [
            _copy(v) for var, v in zip(node.inputs, values) if not isinstance(var, Constant)
        ]
        computed = iter(evaluate(given + nonconstant) if evaluate else [])
        flat = [
            next(computed)
            if isinstance(e, Variable) and not isinstance(e, Constant)
            else (e.data if isinstance(e, Constant) else e)
            for e in entries
        ]
        return [None if ids is None else tuple(flat[k] for k in ids) for ids in layout]

    return shapes_of


def _tensor_shapes(node: Apply, values: list[Any]) -> list[int]:
    return [
        s
        for var, v in zip(node.inputs, values)
        if isinstance(var.type, TensorType)
        for s in np.shape(v)
    ]


def _evaluator(inputs: list[Variable], outputs: list[Variable]) -> Callable[[list], list]:
    """A plain (no rewrites, no checks) evaluation of ``outputs`` from ``inputs``."""
    fgraph = FunctionGraph(inputs, outputs, clone=True)
    if any(getattr(node.op, "destroy_map", None) for node in fgraph.apply_nodes):
        # (the inputs are private copies: all mutable) orders readers before in-place ops
        fgraph.attach_feature(DestroyHandler(range(len(fgraph.inputs))))
    return VMLinker(allow_gc=False).accept(fgraph).make_runner().interpret


# -- the linker ----------------------------------------------------------------------------------


class DebugRunner(Runner):
    """What a DebugMode function runs: reference run, compiled run, rewrite checks."""

    def __init__(self, linker: DebugLinker, vm: VMRunner) -> None:
        fgraph = linker.fgraph
        self.fgraph = fgraph
        self.mode = linker.mode
        self.vm = vm
        self.order = vm.order
        self.checkers = [
            NodeChecker(step.node, fgraph, linker.mode, step.kernel) for step in vm.steps
        ]
        self.comparable = _comparable_variables(fgraph)
        recorder = getattr(fgraph, "debug_recorder", None)
        self.rewrite_checks = (
            _rewrite_checks(fgraph, recorder) if self.mode.check_rewrites else None
        )

    def run(self, inputs: list[Any]) -> list[Any]:
        # A private copy of the inputs: the compiled run may overwrite mutable ones.
        private = [_copy(value) for value in inputs]
        frame = self.vm.run_frame(inputs)
        # The reference runs the nodes the compiled run computed: a lazy program skips the
        # branch an IfElse does not take, whose values may be invalid (the reason for the IfElse).
        reference = self._reference(private, frame)
        self._compare_with_reference(reference, frame)
        if self.rewrite_checks is not None:
            self.rewrite_checks(private, [reference[v] for v in self.fgraph.outputs])
        return self.vm.program.outputs_of(frame)

    def _reference(self, inputs: list[Any], frame: list) -> dict[Variable, Any]:
        values: dict[Variable, Any] = dict(zip(self.fgraph.inputs, [_copy(v) for v in inputs]))
        slot_of = self.vm.program.slot_of
        for checker in self.checkers:
            node = checker.node
            if self.vm.lazy and all(frame[slot_of[v]] is None for v in node.outputs):
                continue  # the lazy program did not compute this node
            args = [v.data if isinstance(v, Constant) else values.get(v) for v in node.inputs]
            for j, (var, value) in enumerate(zip(node.outputs, checker.run(args))):
                # uninitialized memory: the nodes after it compute from the compiled run's value
                garbage = j in checker.uninitialized and frame[slot_of[var]] is not None
                values[var] = _copy(frame[slot_of[var]]) if garbage else value
        return values

    def _compare_with_reference(self, reference: dict[Variable, Any], frame: list) -> None:
        slot_of = self.vm.program.slot_of
        for node in self.order:
            for j, var in enumerate(node.outputs):
                if var not in self.comparable or var not in reference:
                    continue  # (not computed: a lazy program skipped it)
                got = frame[slot_of[var]]
                if not var.type.is_valid_value(got):
                    reason = f"the compiled linker stored a value its type refuses ({got!r:.80})"
                    raise InvalidValueError(node, j, got, reason)
                if j in getattr(node.op, "uninitialized_outputs", ()):
                    continue  # (the reference took this very value)
                if not _close(var, reference[var], got):
                    raise BadThunkOutput(
                        node, j, "compiled linker vs reference perform", reference[var], got
                    )


def _comparable_variables(fgraph: FunctionGraph) -> set[Variable]:
    """Computed variables whose memory no in-place op overwrites later in the graph, and that
    are not computed from uninitialized memory so overwritten (the reference cannot see the
    values the compiled run had there)."""
    overwritten: set[Variable] = set()
    for node in fgraph.apply_nodes:
        for ins in getattr(node.op, "destroy_map", {}).values():
            for i in ins:
                overwritten |= views_of(fgraph, view_root(node.inputs[i]))
    tainted = {v for v in overwritten if not _initialized([v])}
    for node in fgraph.toposort():
        if any(v in tainted for v in node.inputs):
            tainted.update(node.outputs)
    return {
        var
        for node in fgraph.apply_nodes
        for var in node.outputs
        if var not in overwritten and var not in tainted
    }


def _rewrite_checks(fgraph: FunctionGraph, recorder: DebugRecorder | None) -> Callable | None:
    """Checks of the recorded replacements and of the unrewritten graph, as one callable."""
    if recorder is None:
        return None
    pairs = [
        (reason, old, new)
        for reason, old, new in recorder.events
        if reason not in ("insert_deepcopy", "protect_inputs")
        and _no_destroyers([old, new])
        and _initialized([old, new])
    ]
    evaluate_pairs = _try_evaluator(fgraph.inputs, [v for _, o, n in pairs for v in (o, n)])
    if evaluate_pairs is None:
        pairs = []
    original = recorder.original
    # outputs computed from uninitialized memory differ between two evaluations: left out
    kept = [k for k, var in enumerate(original.outputs) if _initialized([var])]
    evaluate_original = _try_evaluator(original.inputs, [original.outputs[k] for k in kept])
    outputs = [fgraph.outputs[k] for k in kept]

    def check(inputs: list[Any], results: list[Any]) -> None:
        if pairs:
            values = evaluate_pairs([_copy(v) for v in inputs])
            for k, (reason, old, new) in enumerate(pairs):
                before, after = values[2 * k], values[2 * k + 1]
                if not _close(old, before, after):
                    raise BadOptimization(reason, old, new, before, after)
        if evaluate_original is not None:
            expected = evaluate_original([_copy(v) for v in inputs])
            for var, exp, got in zip(outputs, expected, [results[k] for k in kept]):
                if not _close(var, exp, got):
                    raise BadOptimization("(the whole rewrite pipeline)", var, var, exp, got)

    return check


def _no_destroyers(variables: list[Variable]) -> bool:
    return not any(
        v.owner is not None and getattr(v.owner.op, "destroy_map", None)
        for v in ancestors(variables)
    )


def _initialized(variables: list[Variable]) -> bool:
    """Whether no value of ``variables`` depends on an op's uninitialized output."""
    return not any(
        v.owner is not None and v.index in getattr(v.owner.op, "uninitialized_outputs", ())
        for v in ancestors(variables)
    )


def _try_evaluator(inputs: list[Variable], outputs: list[Variable]) -> Callable | None:
    if not outputs:
        return None
    try:
        return _evaluator(list(inputs), list(outputs))
    except (MissingInputError, InconsistencyError, TypeError, ValueError):
        return None


class DebugLinker(Linker):
    """Links a graph for DebugMode: the compiled program wrapped in a :class:`DebugRunner`."""

    def __init__(self, mode: DebugMode) -> None:
        self.mode = mode
        self.fgraph = None
        self.no_recycling: list = []

    def clone(self, allow_gc: bool | None = None) -> DebugLinker:
        return DebugLinker(self.mode)

    def make_runner(self) -> DebugRunner:
        inner = VMLinker(allow_gc=False).accept(self._graph(), self.no_recycling)
        return DebugRunner(self, inner.make_runner())


_VM_NAMES = ("vm", "vm_nogc", "cvm", "py")


class DebugMode(Mode):
    """A mode that checks every op against its contract on every call (see the module doc).

    Parameters
    ----------
    optimizer
        The rewrite pipeline (default "fast_run"), whose every replacement is checked.
    check_isfinite
        Report a node producing NaN or infinite values from finite inputs (inputs holding NaN
        are legal: only the node creating non-finite values is at fault).
    check_preallocated_output
        Preallocation kinds tried on every node's output cells: any of "previous",
        "c_contiguous", "f_contiguous", "strided", "negative_strides", "wrong_size".
    check_infer_shape
        Compare each op's ``infer_shape`` with the real output shapes.
    check_rewrites
        Evaluate every recorded rewrite replacement and the unrewritten graph.
    stability_patience, check_c_code, check_py_code, require_matching_strides
        PyTensor's other keyword arguments, accepted so that its programs run: arignote has
        no C code to check (every node runs its Python ``perform``, which is always checked),
        reruns no node for stability and compares values whatever their strides. None for
        ``check_isfinite`` or ``check_preallocated_output`` means their defaults.
    """

    def __init__(
        self,
        optimizer: Any = "fast_run",
        check_isfinite: bool | None = True,
        check_preallocated_output: tuple | list | None = PREALLOCATION_KINDS,
        check_infer_shape: bool = True,
        check_rewrites: bool = True,
        linker: Any = None,
        include: tuple = (),
        exclude: tuple = (),
        require: tuple = (),
        *,
        stability_patience: int | None = None,
        check_c_code: bool | None = None,
        check_py_code: bool | None = None,
        require_matching_strides: int | None = None,
    ) -> None:
        if check_py_code is False:
            raise ValueError("DebugMode always checks the Python implementations (perform)")
        check_isfinite = True if check_isfinite is None else check_isfinite
        if check_preallocated_output is None:
            check_preallocated_output = PREALLOCATION_KINDS
        if not (linker is None or linker in _VM_NAMES or isinstance(linker, VMLinker)):
            raise ValueError(
                f"DebugMode checks the Python VM against the reference and cannot use the "
                f"linker {linker!r}; leave linker=None"
            )
        super().__init__("vm", optimizer, include, exclude, require)
        unknown = set(check_preallocated_output) - set(PREALLOCATION_KINDS)
        if unknown:
            raise ValueError(
                f"Unknown preallocation kinds {sorted(unknown)}; known: {PREALLOCATION_KINDS}"
            )
        self.check_isfinite = check_isfinite
        self.check_preallocated_output = tuple(check_preallocated_output)
        self.check_infer_shape = check_infer_shape
        self.check_rewrites = check_rewrites

    @property
    def linker(self) -> DebugLinker:
        return DebugLinker(self)

    def fgraph_features(self) -> list[Feature]:
        return [DebugRecorder()] if self.check_rewrites else []

    def __str__(self) -> str:
        return f"DebugMode(optimizer={self.optimizer_spec})"

    __repr__ = __str__


register_mode("DebugMode", DebugMode)
register_mode("DEBUG_MODE", DebugMode)
