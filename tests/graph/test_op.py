"""The Op contract of the seed documents, method by method."""

from __future__ import annotations

import copy
import pickle

import pytest
from arignote.tensor.optimize import minimize_scalar

import arignote
import arignote.tensor as pt
from arignote.compile.builders import OpFromGraph
from arignote.graph.basic import Apply, Variable
from arignote.graph.op import Op, StoredInnerGraph, get_connection_pattern
from arignote.graph.utils import MethodNotDefined
from tests.graph.toy import ToyOp, ToyType, add, const, split, toy, var


class Scale(Op):
    """Multiplies by ``factor``: a minimal op with one prop."""

    __props__ = ("factor",)

    def __init__(self, factor):
        self.factor = factor

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = self.factor * inputs[0]


def run(node, values):
    """Run a node through its thunk with fresh storage; return the output values."""
    storage = {v: [value] for v, value in zip(node.inputs, values)}
    storage.update({v: [None] for v in node.outputs})
    computed = {v: [True] for v in node.inputs} | {v: [False] for v in node.outputs}
    thunk = node.op.make_thunk(node, storage, computed, no_recycling=[])
    thunk()
    assert all(computed[v][0] for v in node.outputs), "the thunk must set compute_map"
    return [storage[v][0] for v in node.outputs]


# -- __props__ ----------------------------------------------------------------------------


def test_props_generate_eq_hash_and_str():
    assert Scale(2) == Scale(2) and hash(Scale(2)) == hash(Scale(2))
    assert Scale(2) != Scale(3)
    assert str(Scale(2)) == "Scale{factor=2}"
    assert Scale(2)._props() == (2,) and Scale(2)._props_dict() == {"factor": 2}


def test_props_equality_requires_the_same_class():
    class OtherScale(Scale):
        pass

    assert OtherScale(2) != Scale(2)


def test_empty_props_make_instances_equal():
    class NoProps(Op):
        __props__ = ()

    assert NoProps() == NoProps() and str(NoProps()) == "NoProps"


def test_without_props_equality_is_identity():
    class Plain(Op):
        pass

    assert Plain() != Plain()


def test_props_must_be_a_tuple_of_names():
    with pytest.raises(TypeError, match="tuple of attribute names"):

        class Bad(Op):
            __props__ = ["a"]


def test_hash_never_changes_props_are_frozen_after_hashing():
    op = Scale(2)
    first = hash(op)
    with pytest.raises(AttributeError, match="immutable"):
        op.factor = 3
    assert hash(op) == first


def test_unhashable_props_raise_a_clear_error():
    with pytest.raises(TypeError, match="props must be hashable"):
        hash(Scale([1, 2]))


def test_ops_pickle_and_copy_keeping_equality_and_hash():
    op = ToyOp("add")
    hash(op)
    restored = pickle.loads(pickle.dumps(op))
    assert restored == op and hash(restored) == hash(op)
    assert copy.copy(op) == op and copy.deepcopy(op) == op


def test_custom_str_is_kept():
    assert str(add) == "add"


# -- make_node, __call__, default_output --------------------------------------------------


def test_call_returns_the_single_output():
    x = var("x")
    out = add(x, x)
    assert isinstance(out, Variable) and out.owner.op is add


def test_call_returns_a_list_for_several_outputs_and_return_list():
    outs = split(var())
    assert isinstance(outs, list) and len(outs) == 2
    assert isinstance(add(var(), var(), return_list=True), list)


def test_default_output_selects_the_returned_output():
    class FirstOfTwo(ToyOp):
        default_output = 1

    op = FirstOfTwo("two", nin=1, nout=2)
    out = op(var())
    assert out is out.owner.outputs[1]


def test_call_names_outputs():
    assert add(var(), var(), name="total").name == "total"


def test_make_node_is_reproducible_from_its_inputs():
    node = add.make_node(var("x"), var("y"))
    again = node.op.make_node(*node.inputs)
    assert again.op == node.op and again.inputs == node.inputs


def test_itypes_otypes_give_an_automatic_make_node():
    class Double(Op):
        __props__ = ()
        itypes = [toy]
        otypes = [toy]

        def perform(self, node, inputs, output_storage):
            output_storage[0][0] = 2 * inputs[0]

    node = Double().make_node(var())
    assert [o.type for o in node.outputs] == [toy]
    assert run(node, [3.0]) == [6.0]
    with pytest.raises(TypeError, match="takes 1 inputs"):
        Double().make_node(var(), var())
    with pytest.raises(TypeError, match="input 0 should have type"):
        Double().make_node(Variable(ToyType("int")))
    assert Double().make_node(4.0).inputs[0].data == 4.0  # raw values become constants


def test_missing_make_node_and_perform_raise_method_not_defined():
    class Empty(Op):
        __props__ = ()

    with pytest.raises(MethodNotDefined, match="make_node"):
        Empty().make_node(var())
    node = Apply(Empty(), [var()], [var()])
    with pytest.raises(MethodNotDefined, match="perform"):
        run(node, [1.0])


# -- perform, storage cells, make_thunk ---------------------------------------------------


def test_default_thunk_wraps_perform_and_sets_compute_map():
    node = add.make_node(var(), var())
    assert run(node, [1.0, 2.0]) == [3.0]


def test_perform_gets_one_element_cells_that_may_hold_an_old_value():
    seen = []

    class Recorder(Op):
        __props__ = ()

        def make_node(self, x):
            return Apply(self, [x], [x.type()])

        def perform(self, node, inputs, output_storage):
            seen.append(list(output_storage[0]))
            output_storage[0][0] = inputs[0] + 1

    node = Recorder().make_node(var())
    storage = {node.inputs[0]: [1.0], node.outputs[0]: ["stale"]}
    computed = {node.inputs[0]: [True], node.outputs[0]: [False]}
    thunk = node.op.make_thunk(node, storage, computed, no_recycling=[])
    thunk()
    thunk()
    assert seen == [["stale"], [2.0]]  # the cell persists between calls
    no_recycle = node.op.make_thunk(node, storage, computed, no_recycling=[node.outputs[0]])
    no_recycle()
    assert seen[-1] == [None]  # outputs in no_recycling start from an empty cell


def test_overriding_make_thunk_replaces_perform():
    class ThunkOnly(Op):
        __props__ = ()

        def make_node(self, x):
            return Apply(self, [x], [x.type()])

        def make_thunk(self, node, storage_map, compute_map, no_recycling, impl=None):
            cell_in, cell_out = storage_map[node.inputs[0]], storage_map[node.outputs[0]]
            flag = compute_map[node.outputs[0]]

            def thunk():
                cell_out[0] = -cell_in[0]
                flag[0] = True

            return thunk

    assert run(ThunkOnly().make_node(var()), [5.0]) == [-5.0]


def test_debug_thunk_uses_debug_perform():
    class WithDebug(ToyOp):
        def debug_perform(self, node, inputs, output_storage):
            output_storage[0][0] = "debug"

    op = WithDebug("dbg", nin=1)
    node = op.make_node(var())
    storage = {node.inputs[0]: [1.0], node.outputs[0]: [None]}
    computed = {v: [False] for v in storage}
    op.make_thunk(node, storage, computed, [], impl="debug")()
    assert storage[node.outputs[0]][0] == "debug"


# -- optional methods and defaults --------------------------------------------------------


def test_do_constant_folding_defaults_to_true():
    assert add.do_constant_folding(None, add.make_node(const(1.0), const(2.0)))


def test_grad_L_op_R_op_defaults():
    x = var()
    with pytest.raises(MethodNotDefined, match="grad"):
        add.grad([x, x], [x])
    with pytest.raises(MethodNotDefined, match="grad"):
        add.L_op([x, x], [x], [x])  # L_op defaults to grad
    with pytest.raises(MethodNotDefined, match="R_op"):
        add.R_op([x, x], [None, None])


def test_connection_pattern_defaults_to_all_connected():
    node = split.make_node(var())
    assert get_connection_pattern(node) == [[True, True]]

    class HalfConnected(ToyOp):
        def connection_pattern(self, node):
            return [[True], [False]]

    node = HalfConnected("half").make_node(var(), var())
    assert get_connection_pattern(node) == [[True], [False]]


def test_destroy_and_view_maps_default_to_empty():
    assert add.destroy_map == {} and add.view_map == {}


def _ops_with_stored_inner_graphs():
    x = pt.dvector("x")
    ofg = OpFromGraph([x], [pt.exp(x) * 2.0])
    out, _ = arignote.scan(lambda x_t, h: h * x_t, sequences=x, outputs_info=pt.constant(1.0))
    scan_op = out.owner.inputs[0].owner.op
    a = pt.dscalar("a")
    minimum, _ = minimize_scalar((a - x.sum()) ** 2, a, method="brent")
    return [ofg, scan_op, minimum.owner.op]


def test_inner_graph_accessors_are_shared_and_fgraph_is_a_copy():
    # OpFromGraph, Scan and the optimisation ops take them from StoredInnerGraph
    for op in _ops_with_stored_inner_graphs():
        assert isinstance(op, StoredInnerGraph), type(op)
        assert op.inner_inputs is op._inputs and op.inner_outputs is op._outputs
        fgraph = op.fgraph
        assert len(fgraph.inputs) == len(op.inner_inputs)
        assert not set(fgraph.inputs) & set(op.inner_inputs)  # a copy: the op's own are left
        assert len(fgraph.outputs) == len(op.inner_outputs) and fgraph.apply_nodes
