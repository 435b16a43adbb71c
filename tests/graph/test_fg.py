"""FunctionGraph: clients, replacement, pruning, features, integrity, cloning."""

from __future__ import annotations

import pickle

import pytest

from arignote.graph.basic import Constant
from arignote.graph.features import Bookkeeper, Feature, InconsistencyError, ReplaceValidate
from arignote.graph.fg import FunctionGraph, MissingInputError
from tests.graph.toy import ToyType, add, const, mul, neg, var


def make_graph():
    x, y = var("x"), var("y")
    a = mul(x, y)
    out = add(a, neg(a))
    return FunctionGraph([x, y], [out], clone=False), x, y, a, out


def test_clients_list_uses_and_outputs():
    fg, x, y, a, out = make_graph()
    assert fg.clients[out] == [("output", 0)]
    users = {node.op.name for node, _ in fg.clients[a]}
    assert users == {"add", "neg"}
    for node, i in fg.clients[a]:
        assert node.inputs[i] is a
    assert a.clients is fg.clients[a]  # the graph-structures page's var.clients


def test_construction_clones_by_default():
    x = var("x")
    out = neg(x)
    fg = FunctionGraph([x], [out])
    assert fg.inputs[0] is not x and fg.outputs[0] is not out
    assert out.owner.inputs[0] is x  # the user's graph is untouched


def test_missing_input_is_reported():
    x, y = var("x"), var("y")
    with pytest.raises(MissingInputError, match="y"):
        FunctionGraph([x], [add(x, y)], clone=False)


def test_constants_are_not_inputs():
    with pytest.raises(TypeError, match="Constant"):
        FunctionGraph([const(1.0)], [neg(const(1.0))], clone=False)


def test_inputs_default_to_the_free_variables():
    x = var("x")
    fg = FunctionGraph(outputs=[add(x, 2.0)], clone=False)
    assert fg.inputs == [x]


def test_replace_rewires_every_client_and_prunes_dead_nodes():
    fg, x, y, a, out = make_graph()
    pruned = []

    class Recorder(Feature):
        def on_prune(self, fgraph, node, reason):
            pruned.append(node.op.name)

    fg.attach_feature(Recorder())
    b = add(x, y)
    fg.replace(a, b, reason="test")
    assert a not in fg.variables and a.owner not in fg.apply_nodes
    assert pruned == ["mul"]
    assert {n.op.name for n, _ in fg.clients[b]} == {"add", "neg"}
    fg.check_integrity()


def test_replace_rejects_incompatible_types():
    fg, x, y, a, out = make_graph()
    with pytest.raises(TypeError, match="incompatible"):
        fg.replace(a, ToyType("int")())


def test_replace_of_an_output():
    fg, x, y, a, out = make_graph()
    fg.replace(out, x)
    assert fg.outputs == [x] and fg.apply_nodes == set()
    assert ("output", 0) in fg.clients[x]
    fg.check_integrity()


def test_change_node_input_calls_features():
    fg, x, y, a, out = make_graph()
    events = []

    class Watcher(Feature):
        def on_change_input(self, fgraph, node, i, var, new_var, reason=None):
            events.append((i, var, new_var, reason))

        def on_import(self, fgraph, node, reason):
            events.append(("import", node.op.name, reason))

    fg.attach_feature(Watcher())
    events.clear()
    new = neg(y)
    fg.change_node_input(out.owner, 0, new, reason="why")
    assert ("import", "neg", "why") in events
    assert (0, a, new, "why") in events
    fg.check_integrity()


def test_on_attach_sees_existing_nodes_through_bookkeeping():
    fg, *_ = make_graph()
    seen = []

    class Counter(Bookkeeper):
        def on_import(self, fgraph, node, reason):
            seen.append(node.op.name)

    fg.attach_feature(Counter())
    assert sorted(seen) == ["add", "mul", "neg"]


def test_features_are_attached_once_and_removed():
    fg, *_ = make_graph()
    feature = ReplaceValidate()
    fg.attach_feature(feature)
    fg.attach_feature(feature)
    assert fg.features.count(feature) == 1
    fg.remove_feature(feature)
    assert feature not in fg.features and not hasattr(fg, "replace_validate")


def test_replace_validate_reverts_when_a_feature_objects():
    fg, x, y, a, out = make_graph()
    fg.attach_feature(ReplaceValidate())

    class Veto(Feature):
        def validate(self, fgraph):
            if any(n.op.name == "add" and n.inputs[0].owner is None for n in fgraph.apply_nodes):
                raise InconsistencyError("no add of an input")

    fg.attach_feature(Veto())
    with pytest.raises(InconsistencyError):
        fg.replace_validate(a, x)
    assert out.owner.inputs[0] is a  # undone
    fg.check_integrity()


def test_check_integrity_detects_corruption():
    fg, x, y, a, out = make_graph()
    fg.clients[a].append((out.owner, 1))
    with pytest.raises(AssertionError):
        fg.check_integrity()


def test_toposort_and_clone():
    fg, x, y, a, out = make_graph()
    order = fg.toposort()
    assert order[0] is a.owner and order[-1] is out.owner
    copy_, equiv = fg.clone_get_equiv()
    assert equiv[a] in copy_.variables and a not in copy_.variables
    copy_.check_integrity()


def test_remove_node_and_outputs():
    fg, x, y, a, out = make_graph()
    fg.add_output(a)
    fg.remove_output(0)
    assert fg.outputs == [a] and fg.clients[a][-1] == ("output", 0)
    fg.check_integrity()


def test_import_missing_adds_inputs():
    fg, x, y, a, out = make_graph()
    z = var("z")
    fg.replace(a, add(x, z), import_missing=True)
    assert z in fg.inputs


def test_fgraph_pickles_with_its_features():
    fg, *_ = make_graph()
    fg.attach_feature(ReplaceValidate())
    restored = pickle.loads(pickle.dumps(fg))
    restored.check_integrity()
    assert hasattr(restored, "replace_validate")
    assert isinstance(restored.outputs[0].owner.inputs[0].owner.inputs[0], type(fg.inputs[0]))


def test_constants_join_the_graph_without_being_inputs():
    x = var("x")
    fg = FunctionGraph([x], [add(x, 1.0)], clone=False)
    constants = [v for v in fg.variables if isinstance(v, Constant)]
    assert len(constants) == 1 and constants[0] not in fg.inputs


def test_str_writes_the_outputs_as_expressions():
    # PyTensor's format: a computed variable used twice is labelled *n the first time
    x, y = var("x"), var("y")
    n = neg(x)
    fg = FunctionGraph([x, y], [add(n, mul(n, y)), y])
    assert str(fg) == "FunctionGraph(add(*1 -> neg(x), mul(*1, y)), y)"
    assert repr(fg) == str(fg)
