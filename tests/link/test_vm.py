"""The Python VM: order, freeing intermediates, lazy evaluation, callbacks, errors, thunks."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote import function
from arignote.graph.basic import Apply
from arignote.graph.fg import FunctionGraph
from arignote.graph.op import Op
from arignote.link.basic import perform_thunk
from arignote.link.vm import VM, CallbackVM, GeneratedVM, LazyVM, ProfilingVM, VMLinker


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


def _link(outputs, inputs, **kwargs):
    fgraph = FunctionGraph(inputs, outputs, clone=False)
    return VMLinker(**kwargs).accept(fgraph).make_all()


@pytest.fixture(params=["generated", "loop"])
def vm_kind(request, monkeypatch):
    """Run a test with the generated VM and with the plain loop VM."""
    if request.param == "loop":
        monkeypatch.setattr(GeneratedVM, "MAX_NODES", 0)
    return GeneratedVM if request.param == "generated" else VM


def test_vm_runs_nodes_in_order_and_frees_intermediates(vm_kind):
    x = pt.dvector("x")
    mid = Counting("a")(x)
    out = Counting("b")(mid)
    vm, ins, outs, _, order, storage, _ = _link([out], [x], allow_gc=True)
    assert type(vm) is vm_kind and [n.op.tag for n in order] == ["a", "b"]
    ins[0][0] = np.zeros(2)
    vm()
    np.testing.assert_array_equal(outs[0][0], [2.0, 2.0])
    assert storage[mid][0] is None  # freed once its last user ran
    vm, ins, outs, _, _, storage, _ = _link([out], [x], allow_gc=False)
    ins[0][0] = np.zeros(2)
    vm()
    np.testing.assert_array_equal(storage[mid][0], [1.0, 1.0])


def test_lazy_vm_computes_only_the_needed_branch():
    cond = pt.lscalar("cond")
    x = pt.dvector("x")
    left_op, right_op = Counting("left"), Counting("right")
    out = LazySwitch()(cond, left_op(x), right_op(x))
    f = function([cond, x], out, mode="FAST_COMPILE")
    assert isinstance(f.vm, LazyVM)
    np.testing.assert_array_equal(f(1, np.zeros(2)), [1.0, 1.0])
    assert (left_op.calls, right_op.calls) == (1, 0)
    f(0, np.zeros(2))
    assert (left_op.calls, right_op.calls) == (1, 1)


def test_callback_vm_calls_hooks_around_every_node():
    x = pt.dvector("x")
    out = Counting("b")(Counting("a")(x))
    seen = []
    vm, ins, *_ = _link(
        [out],
        [x],
        callback=lambda node, storage_map, **kw: seen.append(("after", node.op.tag)),
        callback_input=lambda node, storage_map, **kw: seen.append(("before", node.op.tag)),
    )
    assert isinstance(vm, CallbackVM)
    ins[0][0] = np.zeros(1)
    vm()
    assert seen == [("before", "a"), ("after", "a"), ("before", "b"), ("after", "b")]


def test_profiling_vm_measures_each_node():
    x = pt.dvector("x")
    out = Counting("b")(Counting("a")(x))
    fgraph = FunctionGraph([x], [out], clone=False)
    vm = VMLinker().accept(fgraph, profile=True).make_thunk()[0]
    assert isinstance(vm, ProfilingVM)
    vm.storage_map[x][0] = np.zeros(3)
    vm()
    vm()
    assert vm.call_counts == [2, 2]
    assert all(t > 0 for t in vm.call_times)
    assert vm.output_bytes == [24, 24]
    assert vm.last_shapes[0] == ([(3,)], [(3,)])


def test_errors_name_the_node_its_inputs_and_where_it_was_created(vm_kind):
    x = pt.dvector("x")
    out = Fails("bad")(Counting("ok")(x))
    f = function([x], out)
    assert type(f.vm) is vm_kind
    with pytest.raises(ValueError, match="deliberate failure") as info:
        f(np.zeros(4))
    message = str(info.value)
    assert "Apply node that caused the error: Fails" in message
    assert "Toposort index: 1" in message
    assert "Inputs shapes: [(4,)]" in message
    assert "test_vm.py" in message  # where the node was created


@pytest.mark.parametrize("n_inputs", [1, 2, 3, 4])
def test_perform_thunk_for_every_arity(n_inputs):
    xs = [pt.dvector(f"x{i}") for i in range(n_inputs)]
    total = xs[0]
    for x in xs[1:]:
        total = total + x
    node = total.owner if n_inputs > 1 else Counting()(xs[0]).owner
    storage = {v: [np.full(2, float(i + 1))] for i, v in enumerate(node.inputs)}
    storage[node.outputs[0]] = [np.full(2, -1.0)]
    computed = {v: [False] for v in storage}
    thunk = perform_thunk(node, storage, computed, no_recycling={node.outputs[0]})
    thunk()
    expected = sum(range(1, len(node.inputs) + 1)) if n_inputs > 1 else 2.0
    np.testing.assert_array_equal(storage[node.outputs[0]][0], [expected, expected])
    assert thunk.lazy is False and thunk.inputs == [storage[v] for v in node.inputs]
    assert computed[node.outputs[0]] == [True]


def test_no_recycling_outputs_start_from_an_empty_cell():
    class ReusesCell(Counting):
        def perform(self, node, inputs, output_storage):
            seen.append(output_storage[0][0] is None)
            output_storage[0][0] = inputs[0] + 1

    seen: list = []
    x = pt.dvector("x")
    node = ReusesCell()(x).owner
    storage = {x: [np.zeros(1)], node.outputs[0]: [np.zeros(1)]}
    computed = {v: [False] for v in storage}
    perform_thunk(node, storage, computed, no_recycling={node.outputs[0]})()
    perform_thunk(node, storage, computed, no_recycling=set())()
    assert seen == [True, False]


def test_debug_impl_uses_debug_perform():
    x = pt.dvector("x")
    out = WithDebug()(x)
    vm, ins, outs, *_ = _link([out], [x], impl="debug")
    ins[0][0] = np.zeros(1)
    vm()
    assert outs[0][0][0] == 100.0
    vm, ins, outs, *_ = _link([out], [x])
    ins[0][0] = np.zeros(1)
    vm()
    assert outs[0][0][0] == 1.0


def test_linker_reaccepting_another_graph_gives_a_new_linker():
    x = pt.dvector("x")
    linker = VMLinker()
    first = linker.accept(FunctionGraph([x], [x + 1]))
    second = first.accept(FunctionGraph([x], [x * 2]))
    assert first is linker and second is not linker
    assert str(VMLinker(allow_gc=False)) == "vm_nogc"
    with pytest.raises(ValueError, match="accept"):
        VMLinker().make_all()


def test_generated_vm_is_straight_line_code_and_falls_back_for_big_graphs(monkeypatch):
    x = pt.dvector("x")
    out = Counting("b")(Counting("a")(x))
    vm = _link([out], [x], allow_gc=True)[0]
    assert vm.program is None  # generated only once warm
    vm.generate()
    source = vm.program.source
    assert source.startswith("def run():")
    assert source.count("perform") == 2 and "for " not in source
    assert source.count("[0] = None") == 1  # the intermediate, freed after its last use
    monkeypatch.setattr(GeneratedVM, "MAX_NODES", 1)
    assert type(_link([out], [x])[0]) is VM


@pytest.mark.parametrize("warm", [False, True])
def test_generated_vm_reports_the_failing_node_position(warm):
    x = pt.dvector("x")
    out = Counting("c")(Fails("bad")(Counting("a")(Counting("z")(x))))
    f = function([x], out)
    if warm:
        f.vm.generate()
    with pytest.raises(ValueError, match="Toposort index: 2") as info:
        f(np.zeros(1))
    assert str(info.value).count("Apply node that caused the error") == 1


def test_generated_vm_switches_to_the_program_after_warm_up():
    x = pt.dvector("x")
    op = Counting("a")
    f = function([x], op(op(x)) * 2)
    results = []
    for _ in range(GeneratedVM.WARMUP_CALLS + 2):
        results.append(f(np.ones(2)))
    assert f.vm.program is not None and f.vm.run == f.vm.program.run
    assert all((r == results[0]).all() for r in results)
    assert op.calls == 2 * len(results)


def test_custom_thunks_are_called_by_the_generated_vm():
    cond = pt.lscalar("cond")
    x = pt.dvector("x")
    node = LazySwitch()(cond, x, x).owner
    storage = {v: [None] for v in [*node.inputs, *node.outputs]}
    computed = {v: [True] for v in node.inputs} | {node.outputs[0]: [False]}
    thunk = node.op.make_thunk(node, storage, computed, [])
    thunk.lazy = False  # pretend it is an ordinary thunk to test the call line
    vm = GeneratedVM(None, [node], [thunk], storage, computed, None)
    vm.generate()
    assert "thunk" in vm.program.source
    storage[cond][0], storage[x][0] = np.array(1), np.ones(2)
    vm()
    np.testing.assert_array_equal(storage[node.outputs[0]][0], np.ones(2))


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
    for _ in range(GeneratedVM.WARMUP_CALLS + 4):
        assert warm(good) == pytest.approx(np.sqrt(np.exp(good) - 2).sum() + 9 * 2)
    assert warm.vm.program is not None and cold.vm.program is None
    loop_error = _error_text(lambda: cold(bad))
    assert "Apply node that caused the error: FailsOnNegative" in loop_error
    assert _error_text(lambda: warm(bad)) == loop_error  # generated __call__ and program
    assert _error_text(lambda: warm(x=bad)) == loop_error  # general call path
    assert warm.vm.program is not None
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
    results = [f(np.full(2, float(i))) for i in range(GeneratedVM.WARMUP_CALLS + 4)]
    assert f.vm.program is not None
    for i, (first, second) in enumerate(results):
        np.testing.assert_array_equal(first, [2.0 * i] * 2)
        np.testing.assert_array_equal(second, [6.0 * i + 1] * 2)
