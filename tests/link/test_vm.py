"""The Python VM: program, frames, freeing, lazy evaluation, callbacks, profiling, errors."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote import function
from arignote.config import config
from arignote.graph.basic import Apply
from arignote.graph.fg import FunctionGraph
from arignote.graph.op import Op
from arignote.link.vm import VMLinker, VMRunner


@pytest.fixture(autouse=True)
def _vm_only():
    """These tests look inside the VM runner: the default linker's tiering is tested apart."""
    with config.change_flags(linker="vm"):
        yield


class Counting(Op):
    """x + 1, counting its calls."""

    __props__ = ("tag",)

    def __init__(self, tag: str = "") -> None:
        self.tag = tag
        self.calls = 0

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        self.calls += 1
        output_storage[0][0] = inputs[0] + 1

    def infer_shape(self, fgraph, node, input_shapes):
        return input_shapes


class LazySwitch(Op):
    """``a if cond else b``, asking only for the branch it needs (a lazy thunk)."""

    __props__ = ()

    def make_node(self, cond, a, b):
        cond, a, b = (pt.as_tensor_variable(v) for v in (cond, a, b))
        return Apply(self, [cond, a, b], [a.type()])

    def make_thunk(self, node, storage_map, compute_map, no_recycling, impl=None):
        cells = [storage_map[v] for v in node.inputs]
        done = [compute_map[v] for v in node.inputs]
        out, out_done = storage_map[node.outputs[0]], compute_map[node.outputs[0]]

        def thunk():
            if not done[0][0]:
                return [0]
            branch = 1 if cells[0][0] else 2
            if not done[branch][0]:
                return [branch]
            out[0] = cells[branch][0].copy()
            out_done[0] = True
            return []

        thunk.lazy = True
        return thunk

    def infer_shape(self, fgraph, node, input_shapes):
        return [input_shapes[1]]


class Fails(Counting):
    def perform(self, node, inputs, output_storage):
        raise ValueError("deliberate failure")


class WithDebug(Counting):
    def debug_perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] + 100


def _link(outputs, inputs, **kwargs) -> VMRunner:
    fgraph = FunctionGraph(inputs, outputs, clone=False)
    return VMLinker(**kwargs).accept(fgraph).make_runner()


@pytest.fixture(params=["generated", "loop"])
def generated(request):
    """Run a test with the generated code and with the interpreted loop."""
    return request.param == "generated"


def _ready(runner: VMRunner, generated: bool) -> VMRunner:
    if generated:
        runner.generate()
        assert runner.run == runner.generated.function
    return runner


def test_vm_runs_nodes_in_order_and_frees_intermediates(generated):
    x = pt.dvector("x")
    mid = Counting("a")(x)
    out = Counting("b")(mid)
    runner = _ready(_link([out], [x], allow_gc=True), generated)
    assert [n.op.tag for n in runner.order] == ["a", "b"]
    np.testing.assert_array_equal(runner.run([np.zeros(2)])[0], [2.0, 2.0])
    frame = runner.run_frame([np.zeros(2)])
    assert frame[runner.program.slot_of[mid]] is None  # freed once its last user ran
    kept = _link([out], [x], allow_gc=False)
    frame = kept.run_frame([np.zeros(2)])
    np.testing.assert_array_equal(frame[kept.program.slot_of[mid]], [1.0, 1.0])


def test_program_slots_inputs_first_and_constants_in_the_template():
    x = pt.dvector("x")
    out = x * 2.0 + 1.0
    program = _link([out], [x]).program
    assert program.slot_of[x] == 0 and program.n_inputs == 1
    constants = [v for v in program.slot_of if isinstance(v, pt.TensorConstant)]
    assert constants and all(program.template[program.slot_of[c]] is c.data for c in constants)
    frame = program.new_frame([np.ones(1)])
    assert frame is not program.template and program.template[0] is None


def test_lazy_vm_computes_only_the_needed_branch():
    cond = pt.lscalar("cond")
    x = pt.dvector("x")
    left_op, right_op = Counting("left"), Counting("right")
    out = LazySwitch()(cond, left_op(x), right_op(x))
    f = function([cond, x], out, mode="FAST_COMPILE")
    assert f.runner.lazy
    np.testing.assert_array_equal(f(1, np.zeros(2)), [1.0, 1.0])
    assert (left_op.calls, right_op.calls) == (1, 0)
    f(0, np.zeros(2))
    assert (left_op.calls, right_op.calls) == (1, 1)
    for _ in range(VMRunner.WARMUP_CALLS + 1):
        f(0, np.zeros(2))
    assert f.runner.generated is None  # lazy programs stay on the demand-driven loop


def test_callbacks_run_around_every_node(generated):
    x = pt.dvector("x")
    out = Counting("b")(Counting("a")(x))
    seen = []

    def after(node, storage_map, **kw):
        seen.append(("after", node.op.tag, storage_map[node.outputs[0]][0][0]))

    def before(node, storage_map, **kw):
        seen.append(("before", node.op.tag, storage_map[node.inputs[0]][0][0]))

    runner = _ready(_link([out], [x], callback=after, callback_input=before), generated)
    runner.run([np.zeros(1)])
    assert seen == [("before", "a", 0), ("after", "a", 1), ("before", "b", 1), ("after", "b", 2)]


def test_profiling_measures_each_node():
    x = pt.dvector("x")
    out = Counting("b")(Counting("a")(x))
    fgraph = FunctionGraph([x], [out], clone=False)
    runner = VMLinker().accept(fgraph, profile=True).make_runner()
    profiler = runner.profiler
    runner.run([np.zeros(3)])
    runner.run([np.zeros(3)])
    assert profiler.call_counts == [2, 2]
    assert all(t > 0 for t in profiler.call_times)
    assert profiler.output_bytes == [24, 24]
    assert profiler.last_shapes[0] == ([(3,)], [(3,)])


def test_errors_name_the_node_its_inputs_and_where_it_was_created(generated):
    x = pt.dvector("x")
    out = Fails("bad")(Counting("ok")(x))
    f = function([x], out)
    _ready(f.runner, generated)
    with pytest.raises(ValueError, match="deliberate failure") as info:
        f(np.zeros(4))
    message = str(info.value)
    assert "Apply node that caused the error: Fails" in message
    assert "Toposort index: 1" in message
    assert "Inputs shapes: [(4,)]" in message
    assert "test_vm.py" in message  # where the node was created


def test_every_call_gives_perform_fresh_output_cells(generated):
    class ReusesCell(Counting):
        def perform(self, node, inputs, output_storage):
            seen.append(output_storage[0][0] is None)
            output_storage[0][0] = inputs[0] + 1

    seen: list = []
    x = pt.dvector("x")
    runner = _ready(_link([ReusesCell()(x)], [x], allow_gc=False), generated)
    runner.run([np.zeros(1)])
    runner.run([np.zeros(1)])
    assert seen == [True, True]  # nothing from an earlier call reaches a later one


def test_debug_impl_uses_debug_perform():
    x = pt.dvector("x")
    out = WithDebug()(x)
    assert _link([out], [x], impl="debug").run([np.zeros(1)])[0][0] == 100.0
    assert _link([out], [x]).run([np.zeros(1)])[0][0] == 1.0


def test_linker_reaccepting_another_graph_gives_a_new_linker():
    x = pt.dvector("x")
    linker = VMLinker()
    first = linker.accept(FunctionGraph([x], [x + 1]))
    second = first.accept(FunctionGraph([x], [x * 2]))
    assert first is linker and second is not linker
    assert str(VMLinker(allow_gc=False)) == "vm_nogc"
    with pytest.raises(ValueError, match="accept"):
        VMLinker().make_runner()


def test_generated_code_is_generated_once_warm_and_not_for_big_graphs(monkeypatch):
    x = pt.dvector("x")
    out = Counting("b")(Counting("a")(x))
    runner = _link([out], [x], allow_gc=True)
    assert runner.generated is None  # generated only once warm
    runner.generate()
    code = runner.generated
    assert code.function is runner.run
    assert code.position_of(None) is None
    runner.generate()
    assert runner.generated is code  # once per runner
    monkeypatch.setattr(VMRunner, "MAX_NODES", 1)
    big = _link([out], [x])
    for _ in range(VMRunner.WARMUP_CALLS + 1):
        big.run([np.zeros(1)])
    assert big.generated is None and big.run == big.interpret


@pytest.mark.parametrize("warm", [False, True])
def test_generated_vm_reports_the_failing_node_position(warm):
    x = pt.dvector("x")
    out = Counting("c")(Fails("bad")(Counting("a")(Counting("z")(x))))
    f = function([x], out)
    if warm:
        f.runner.generate()
    with pytest.raises(ValueError, match="Toposort index: 2") as info:
        f(np.zeros(1))
    assert str(info.value).count("Apply node that caused the error") == 1


def test_generated_vm_switches_after_warm_up():
    x = pt.dvector("x")
    op = Counting("a")
    f = function([x], op(op(x)) * 2)
    results = []
    for _ in range(VMRunner.WARMUP_CALLS + 2):
        results.append(f(np.ones(2)))
    assert f.runner.generated is not None and f.runner.run == f.runner.generated.function
    assert all((r == results[0]).all() for r in results)
    assert op.calls == 2 * len(results)


class CellThunkDouble(Op):
    """2 * x through a thunk of its own that reads and writes its cells (no ``perform``)."""

    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def make_thunk(self, node, storage_map, compute_map, no_recycling, impl=None):
        source, target = storage_map[node.inputs[0]], storage_map[node.outputs[0]]
        done = compute_map[node.outputs[0]]

        def thunk():
            target[0] = source[0] * 2
            done[0] = True

        return thunk


def test_thunks_closing_over_cells_run_on_frames(generated):
    x = pt.dvector("x")
    runner = _ready(_link([CellThunkDouble()(x) + 1], [x]), generated)
    for value in (1.0, 5.0):
        np.testing.assert_array_equal(runner.run([np.full(2, value)])[0], [2 * value + 1] * 2)
    step = runner.steps[0]
    assert all(cell == [None] for cell in step.kernel.in_cells + step.kernel.out_cells)


class FailsOnNegative(Op):
    """sqrt that refuses negative values (a data-dependent failure)."""

    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        if (x < 0).any():
            raise ValueError("FailsOnNegative: negative value")
        output_storage[0][0] = np.sqrt(x)

    def infer_shape(self, fgraph, node, input_shapes):
        return input_shapes


def _error_text(call):
    with pytest.raises(ValueError) as info:
        call()
    return str(info.value)


def test_straight_line_program_after_warm_up_fails_like_the_loop():
    x = pt.dvector("x")
    out = FailsOnNegative()(pt.exp(x) - 2.0).sum() + (x * 3).sum()
    warm, cold = function([x], out, name="warm"), function([x], out, name="cold")
    good, bad = np.array([1.0, 2.0, 3.0]), np.array([1.0, -5.0, 3.0])
    for _ in range(VMRunner.WARMUP_CALLS + 4):
        assert warm(good) == pytest.approx(np.sqrt(np.exp(good) - 2).sum() + 9 * 2)
    assert warm.runner.generated is not None and cold.runner.generated is None
    loop_error = _error_text(lambda: cold(bad))
    assert "Apply node that caused the error: FailsOnNegative" in loop_error
    assert _error_text(lambda: warm(bad)) == loop_error  # fast call path, generated code
    assert _error_text(lambda: warm(x=bad)) == loop_error  # general call path
    assert warm.runner.generated is not None
    assert warm(good) == pytest.approx(cold(good))  # still usable after the failures


class ReusesItsOutputCell(Op):
    """2 * x written into the array its output cell holds when the shape fits (legal reuse)."""

    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        out = output_storage[0][0]
        if out is None or out.shape != x.shape:
            out = np.empty_like(x)
        np.multiply(x, 2, out=out)
        output_storage[0][0] = out

    def infer_shape(self, fgraph, node, input_shapes):
        return input_shapes


@pytest.mark.parametrize("allow_gc", [True, False])
def test_returned_outputs_survive_ops_that_reuse_their_cells(allow_gc):
    """Outputs handed to the user are never reused as scratch space, before or after warm-up."""
    x = pt.dvector("x")
    with arignote.config.change_flags(allow_gc=allow_gc):
        f = function([x], [ReusesItsOutputCell()(x), ReusesItsOutputCell()(x * 3) + 1])
    results = [f(np.full(2, float(i))) for i in range(VMRunner.WARMUP_CALLS + 4)]
    assert f.runner.generated is not None
    for i, (first, second) in enumerate(results):
        np.testing.assert_array_equal(first, [2.0 * i] * 2)
        np.testing.assert_array_equal(second, [6.0 * i + 1] * 2)
