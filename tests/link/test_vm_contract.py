"""The Python VM against the storage contract of the seeds: cells, compute_map, reuse, errors."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.compile.mode import Mode
from arignote.graph.basic import Apply
from arignote.graph.fg import FunctionGraph
from arignote.graph.op import Op
from arignote.link.vm import VMLinker

NO_REWRITES = Mode(optimizer=None)


class ReuseOutput(Op):
    """Adds one, reusing the output cell's array when its shape fits (as the contract allows)."""

    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        cell = output_storage[0]
        if isinstance(cell[0], np.ndarray) and cell[0].shape == x.shape:
            np.add(x, 1, out=cell[0])
        else:
            cell[0] = x + 1


def test_outputs_given_to_the_user_are_fresh_each_call():
    x = pt.dvector("x")
    f = arignote.function([x], ReuseOutput()(x), mode=NO_REWRITES)
    first = f(np.zeros(3))
    second = f(np.ones(3))
    np.testing.assert_array_equal(first, np.ones(3))  # not overwritten by the second call
    np.testing.assert_array_equal(second, np.full(3, 2.0))


def test_intermediates_live_until_the_end_of_the_call_without_gc():
    x = pt.dvector("x")
    middle = ReuseOutput()(x)
    f = arignote.function([x], middle * 2, mode=Mode(linker="vm_nogc", optimizer=None))
    frame = f.runner.run_frame([np.zeros(3)])
    kept = frame[f.runner.program.slot_of[f.maker.fgraph.outputs[0].owner.inputs[0]]]
    np.testing.assert_array_equal(kept, np.ones(3))
    np.testing.assert_array_equal(f(np.ones(3)), np.full(3, 4.0))
    np.testing.assert_array_equal(kept, np.ones(3))  # a later call never writes into it


def test_gc_frees_intermediates_after_their_last_use():
    x = pt.dvector("x")
    middle = pt.exp(x)
    f = arignote.function([x], middle * 2, mode=Mode(linker="vm", optimizer=None))
    frame = f.runner.run_frame([np.zeros(2)])
    assert frame[f.runner.program.slot_of[f.maker.fgraph.outputs[0].owner.inputs[0]]] is None


def test_error_in_a_thunk_names_the_node_types_and_shapes():
    class Fails(Op):
        __props__ = ()

        def make_node(self, x):
            return Apply(self, [pt.as_tensor_variable(x)], [pt.dvector()])

        def perform(self, node, inputs, output_storage):
            raise ValueError("boom")

    x = pt.dvector("x")
    f = arignote.function([x], Fails()(x), mode=NO_REWRITES)
    with pytest.raises(ValueError, match="boom") as info:
        f(np.zeros(4))
    message = str(info.value)
    assert "Apply node that caused the error: Fails(x)" in message
    assert "TensorType(float64, (?,))" in message and "(4,)" in message
    assert "test_vm_contract.py" in message  # where the user created it


def test_linker_makes_a_program_of_one_step_per_node():
    x = pt.dvector("x")
    fgraph = FunctionGraph([x], [pt.exp(x)])
    runner = VMLinker(allow_gc=False).accept(fgraph).make_runner()
    np.testing.assert_array_equal(runner.run([np.zeros(2)])[0], np.ones(2))
    (step,) = runner.steps
    assert step.node is fgraph.outputs[0].owner and step.inputs == (0,)
    assert runner.program.output_slots == step.outputs


def test_lazy_thunks_compute_only_what_is_asked():
    calls = []

    class Choose(Op):
        """choose(c, a, b): a lazy op that asks for only the branch it needs."""

        __props__ = ()

        def make_node(self, c, a, b):
            return Apply(self, [c, a, b], [a.type()])

        def make_thunk(self, node, storage_map, compute_map, no_recycling, impl=None):
            c, a, b = (storage_map[v] for v in node.inputs)
            done = [compute_map[v] for v in node.inputs]
            out, out_done = storage_map[node.outputs[0]], compute_map[node.outputs[0]]

            def thunk():
                if not done[0][0]:
                    return [0]
                branch = 1 if c[0] else 2
                if not done[branch][0]:
                    return [branch]
                out[0] = (a if c[0] else b)[0]
                out_done[0] = True
                return []

            thunk.lazy = True
            return thunk

    class Count(Op):
        __props__ = ("label",)

        def __init__(self, label):
            self.label = label

        def make_node(self, x):
            return Apply(self, [x], [x.type()])

        def perform(self, node, inputs, output_storage):
            calls.append(self.label)
            output_storage[0][0] = inputs[0]

    c, x = pt.bscalar("c"), pt.dscalar("x")
    out = Choose()(c, Count("a")(x), Count("b")(x))
    f = arignote.function([c, x], out, mode=NO_REWRITES)
    assert f(1, 2.0) == 2.0 and calls == ["a"]
    calls.clear()
    f(0, 3.0)
    assert calls == ["b"]
