"""``DestroyHandler``: protected memory, one destroyer per value, readers ordered first."""

from __future__ import annotations

import pytest

from arignote.graph.basic import Apply
from arignote.graph.destroyhandler import DestroyHandler, can_destroy, view_root
from arignote.graph.features import InconsistencyError, ReplaceValidate
from arignote.graph.fg import FunctionGraph
from tests.graph.rewriting.toy import (
    ToyInplace,
    add,
    const,
    exp,
    inplace_incr,
    neg,
    variables,
    view,
)


def graph(outputs, inputs=None, mutable=()):
    fg = FunctionGraph(inputs=inputs, outputs=outputs, clone=False)
    fg.attach_feature(ReplaceValidate())
    fg.attach_feature(DestroyHandler(mutable))
    return fg


def test_view_root_follows_view_map_only():
    (x,) = variables("x")
    v = view(view(x))
    assert view_root(v) is x
    assert view_root(inplace_incr(x)) is not x  # a destroyer's output is new content


def test_destroying_an_intermediate_is_valid():
    (x,) = variables("x")
    fg = graph([inplace_incr(exp(x))])
    assert fg.validate()
    assert fg.orderings() == {}


def test_inputs_are_protected_unless_mutable():
    (x,) = variables("x")
    with pytest.raises(InconsistencyError, match="not declared mutable"):
        graph([inplace_incr(x)]).validate()
    with pytest.raises(InconsistencyError, match="not declared mutable"):
        graph([inplace_incr(view(x))]).validate()  # through a view
    assert graph([inplace_incr(x)], mutable=[x]).validate()
    assert graph([inplace_incr(x)], inputs=[x], mutable=[0]).validate()


def test_constants_are_protected():
    with pytest.raises(InconsistencyError, match="constant"):
        graph([inplace_incr(view(const(2.0)))]).validate()


def test_graph_outputs_cannot_be_destroyed():
    (x,) = variables("x")
    e = exp(x)
    with pytest.raises(InconsistencyError, match="output of the graph"):
        graph([e, inplace_incr(e)]).validate()


def test_two_destroyers_of_the_same_memory_are_refused():
    (x,) = variables("x")
    e = exp(x)
    with pytest.raises(InconsistencyError, match="two operations"):
        graph([add(inplace_incr(e), inplace_incr(view(e)))]).validate()


def test_chains_of_inplace_ops_are_valid():
    (x,) = variables("x")
    fg = graph([inplace_incr(inplace_incr(exp(x)))])
    assert fg.validate()


def test_readers_are_ordered_before_the_destroyer():
    (x,) = variables("x")
    e = exp(x)
    reader = neg(e)
    destroyed = inplace_incr(e)
    fg = graph([add(destroyed, reader)])
    orderings = fg.orderings()
    assert orderings == {destroyed.owner: [reader.owner]}
    order = fg.toposort()
    assert order.index(reader.owner) < order.index(destroyed.owner)


def test_reading_after_destruction_is_invalid():
    (x,) = variables("x")
    e = exp(x)
    destroyed = inplace_incr(e)
    late_reader = add(destroyed, e)  # needs e's old value after it was overwritten
    with pytest.raises(InconsistencyError, match="still needed"):
        graph([late_reader]).validate()


def test_invalid_replacements_are_undone():
    (x,) = variables("x")
    e = exp(x)
    out = add(neg(e), e)
    fg = graph([out])
    with pytest.raises(InconsistencyError):
        fg.replace_validate(fg.outputs[0].owner.inputs[0], inplace_incr(e))
    assert fg.outputs[0].owner.inputs[0].owner.op == neg
    assert not fg.destroy_handler.destroyers


def test_can_destroy_decides_locally():
    (x,) = variables("x")
    e = exp(x)
    single = neg(e)
    fg = graph([single])
    assert can_destroy(fg, single.owner, 0)
    assert not can_destroy(fg, fg.outputs[0].owner.inputs[0].owner, 0)  # exp reads input x
    shared = exp(x)
    first, second = neg(shared), add(shared, x)
    fg = graph([first, second])
    assert can_destroy(fg, first.owner, 0)  # second can run first
    dependent = exp(x)
    n = neg(dependent)
    fg = graph([add(n, dependent)])
    assert not can_destroy(fg, n.owner, 0)  # the add reads dependent after neg


def test_can_destroy_needs_a_destroy_handler():
    (x,) = variables("x")
    out = neg(exp(x))
    fg = FunctionGraph(outputs=[out], clone=False)
    assert not can_destroy(fg, out.owner, 0)


def test_clone_keeps_mutable_positions():
    (x,) = variables("x")
    fg = graph([inplace_incr(x)], inputs=[x], mutable=[0])
    copy = fg.clone()
    assert copy.destroy_handler.mutable == {copy.inputs[0]}
    assert copy.validate()


def test_destroyer_reading_its_victim_twice_is_invalid():
    class TwoInputInplace(ToyInplace):
        def make_node(self, a, b):
            return Apply(self, [a, b], [a.type()])

    (x,) = variables("x")
    e = exp(x)
    with pytest.raises(InconsistencyError, match="while overwriting it"):
        graph([TwoInputInplace()(e, e)]).validate()


def test_can_destroy_gives_up_on_values_with_many_uses():
    """An in-place pass asks this of every reader: a value read thousands of times (through
    views too) is left alone rather than scanned once per reader, which was quadratic."""
    (x,) = variables("x")
    e = exp(x)
    readers = [neg(view(e)) for _ in range(5)]
    first = neg(e)
    fg = graph([first, *readers])
    assert can_destroy(fg, first.owner, 0)  # 6 uses of e's memory (5 through views)
    assert can_destroy(fg, first.owner, 0, max_visits=11)
    assert not can_destroy(fg, first.owner, 0, max_visits=10)


class _OverwriteFirst(ToyInplace):
    """``a + b`` written into ``a``'s memory."""

    def make_node(self, a, b):
        return Apply(self, [a, b], [a.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] + inputs[1]


def test_cycles_through_two_destroyers_are_refused():
    """Each op overwrites what the other reads: no order runs both readers first."""
    (x,) = variables("x")
    a, b = exp(x), neg(x)
    overwrite = _OverwriteFirst()
    with pytest.raises(InconsistencyError, match="still needed"):
        graph([add(overwrite(a, b), overwrite(b, a))]).validate()


def test_validation_looks_only_downstream_of_destroyers(monkeypatch):
    """Validating a replacement must not cost a walk over the whole graph: only what
    depends on an in-place op can close a cycle."""
    import arignote.graph.destroyhandler as dh

    (x,) = variables("x")
    e = exp(x)
    chain = x
    for _ in range(200):
        chain = neg(chain)
    fg = graph([add(inplace_incr(e), neg(e)), chain])
    visited = []
    original = dh._successors
    monkeypatch.setattr(dh, "_successors", lambda n, c, b: visited.append(n) or original(n, c, b))
    assert fg.validate()
    assert 0 < len(visited) < 10
