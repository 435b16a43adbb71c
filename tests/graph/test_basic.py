"""The IR of the graph-structures document: Variable, Constant, Apply, traversal, cloning."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.graph.basic import (
    Apply,
    Constant,
    Variable,
    ancestors,
    applys_between,
    clone,
    clone_get_equiv,
    equal_computations,
    explicit_graph_inputs,
    graph_inputs,
    io_toposort,
    orphans_between,
    toposort,
    vars_between,
)
from tests.graph.toy import add, const, mul, neg, split, toy, var


def test_Apply_sets_owner_and_index_of_outputs():
    x, y = var("x"), var("y")
    out = Variable(toy)
    assert out.owner is None
    node = Apply(add, [x, y], [out])
    assert out.owner is node and out.index == 0
    assert node.inputs == [x, y] and node.outputs == [out]


def test_Apply_refuses_an_output_owned_by_another_node():
    x = var("x")
    node = Apply(neg, [x], [Variable(toy)])
    with pytest.raises(ValueError, match="belongs to another node"):
        Apply(neg, [x], [node.outputs[0]])


def test_Apply_refuses_non_variable_inputs():
    with pytest.raises(TypeError, match="input 1 must be a Variable"):
        Apply(add, [var(), 3.0], [Variable(toy)])


def test_Variable_fields_and_str():
    x = var("x")
    assert (x.type, x.owner, x.index, x.name) == (toy, None, None, "x")
    assert str(x) == "x"
    y = add(x, x)
    assert str(y) == "add.0"
    assert str(var()) == "<Toy(float)>"


def test_Variable_name_must_be_a_string():
    with pytest.raises(TypeError, match="name must be a string"):
        Variable(toy, name=3)


def test_Constant_data_is_immutable_and_owner_stays_none():
    c = const(2.0)
    assert c.data == 2.0
    with pytest.raises(AttributeError, match="immutable"):
        c.data = 3.0
    with pytest.raises(ValueError, match="cannot have an owner"):
        c.owner = Apply(neg, [var()], [Variable(toy)])


def test_Constant_data_is_filtered_by_its_type():
    with pytest.raises(TypeError):
        Constant(toy, "not a number")


def test_Constant_equality_by_value():
    assert const(2.0).equals(const(2.0))
    assert not const(2.0).equals(const(3.0))
    assert const(2.0).signature() == const(2.0).signature()


def test_default_output_single_and_multiple():
    x = var("x")
    node = split.make_node(x)
    with pytest.raises(ValueError, match="2 outputs"):
        node.default_output()
    single = neg.make_node(x)
    assert single.default_output() is single.outputs[0]


def test_ancestors_and_graph_inputs_are_left_first():
    x, y, z = var("x"), var("y"), var("z")
    e = add(x, mul(y, z))
    assert graph_inputs([e]) == [x, y, z]
    assert next(iter(ancestors([e]))) is e
    assert set(vars_between([y], [e])) >= {e, y, x}


def test_graph_inputs_with_blockers_stop_the_walk():
    x, y = var("x"), var("y")
    middle = mul(x, y)
    e = neg(middle)
    # as in PyTensor: only ownerless variables are inputs, so the computed blocker is not
    assert graph_inputs([e], blockers=[middle]) == []
    assert graph_inputs([mul(e, y)], blockers=[middle]) == [y]


def test_explicit_graph_inputs_skip_constants():
    x = var("x")
    e = add(x, 2.0)
    assert explicit_graph_inputs([e]) == [x]
    assert len(orphans_between([x], [e])) == 1


def test_explicit_graph_inputs_skip_shared_variables_and_take_one_variable():
    # PyTensor's documented use: list(explicit_graph_inputs(z)) are the inputs of function
    x = pt.dvector("x")
    z = x * arignote.shared(np.ones(2), name="s") + 2.0
    assert explicit_graph_inputs(z) == [x]
    np.testing.assert_array_equal(arignote.function(explicit_graph_inputs(z), z)([1, 2]), [3, 4])


def test_io_toposort_orders_producers_first():
    x, y = var("x"), var("y")
    a = mul(x, y)
    b = neg(a)
    c = add(a, b)
    order = io_toposort([x, y], [c])
    assert order == [a.owner, b.owner, c.owner]
    assert applys_between([x, y], [c]) == order
    assert toposort([c]) == order


def test_io_toposort_respects_orderings_and_detects_cycles():
    x = var("x")
    a, b = neg(x), mul(x, x)
    c = add(a, b)
    order = io_toposort([x], [c], orderings={a.owner: [b.owner]})
    assert order.index(b.owner) < order.index(a.owner)
    with pytest.raises(ValueError, match="cycle"):
        io_toposort([x], [c], orderings={a.owner: [c.owner]})


def test_io_toposort_is_deterministic_and_linear_on_deep_graphs():
    x = var("x")
    e = x
    for _ in range(5000):  # deeper than Python's recursion limit
        e = neg(e)
    order = io_toposort([x], [e])
    assert len(order) == 5000 and order[0].inputs[0] is x


def test_clone_copies_the_graph_between_inputs_and_outputs():
    x, y = var("x"), var("y")
    e = add(x, mul(y, 2.0))
    (nx, ny), (ne,) = clone([x, y], [e])
    assert nx is not x and ne is not e
    assert ne.owner.inputs[0] is nx
    assert equal_computations([e], [ne], [x, y], [nx, ny])


def test_clone_get_equiv_maps_nodes_and_variables():
    x = var("x")
    e = neg(x)
    equiv = clone_get_equiv([x], [e], copy_inputs=False)
    assert equiv[x] is x
    assert equiv[e.owner].outputs[0] is equiv[e]


def test_equal_computations_distinguishes_structure_and_constants():
    x, y = var("x"), var("y")
    assert equal_computations([add(x, 1.0)], [add(x, 1.0)])
    assert not equal_computations([add(x, 1.0)], [add(x, 2.0)])
    assert not equal_computations([add(x, y)], [add(y, x)])
    assert not equal_computations([add(x, y)], [mul(x, y)])
    assert equal_computations([add(x, y)], [add(y, x)], [x, y], [y, x])


def test_graphs_pickle():
    x = var("x")
    e = add(x, neg(x))
    e2 = pickle.loads(pickle.dumps(e))
    assert str(e2.owner.op) == "add"
    assert e2.owner.inputs[0] is e2.owner.inputs[1].owner.inputs[0]
