"""Who may share memory with whom: views, in-place roots, reuse patterns, deep copies."""

from __future__ import annotations

import arignote.scalar as ps
import arignote.tensor as pt
from arignote.compile.aliasing import (
    destroyed_inputs,
    insert_deepcopy,
    protect_inputs,
    reuse_pattern,
    view_root,
    views_of,
)
from arignote.compile.ops import DeepCopyOp, ViewOp
from arignote.graph.fg import FunctionGraph
from arignote.tensor.elemwise import Elemwise

add_inplace = Elemwise(ps.add, inplace_pattern={0: 0})


def test_view_root_follows_views_and_in_place_outputs():
    x = pt.dvector("x")
    view = x.dimshuffle("x", 0)
    destroyed = add_inplace(view, view)
    assert view_root(view) is x
    assert view_root(destroyed) is x
    assert view_root(pt.exp(view)) is not x


def test_views_of_and_reuse_pattern():
    x = pt.dvector("x")
    e = pt.exp(x)
    view = e.dimshuffle("x", 0)
    other = pt.log(x)
    fgraph = FunctionGraph([x], [view, other], clone=False)
    assert views_of(fgraph, e) == {e, view}
    assert reuse_pattern(fgraph, [view]) == {e, view}
    assert reuse_pattern(fgraph, [x]) == set()  # inputs are never recycled anyway


def test_protect_inputs_copies_what_would_be_overwritten():
    x, y = pt.dvectors("x", "y")
    fgraph = FunctionGraph([x, y], [add_inplace(x, y), add_inplace(y, x)], clone=False)
    assert destroyed_inputs(fgraph) == {x, y}
    assert protect_inputs(fgraph, [True, False]) == 1  # only y is protected
    assert destroyed_inputs(fgraph) == {x}
    copies = [n for n in fgraph.apply_nodes if isinstance(n.op, DeepCopyOp)]
    assert [c.inputs[0] for c in copies] == [y]


def test_insert_deepcopy_rules():
    x = pt.dvector("x")
    e = pt.exp(x)
    fgraph = FunctionGraph([x], [x, e, e, pt.constant([1.0])], clone=False)
    insert_deepcopy(fgraph, [False] * 4, [False], [False], 4)
    kinds = [type(o.owner.op).__name__ if o.owner else "input" for o in fgraph.outputs]
    # the input, one of the two identical outputs, and the constant are copied
    assert kinds == ["DeepCopyOp", "DeepCopyOp", "Elemwise", "DeepCopyOp"]


def test_insert_deepcopy_borrowed_input_and_output_get_a_view():
    x = pt.dvector("x")
    fgraph = FunctionGraph([x], [x], clone=False)
    insert_deepcopy(fgraph, [True], [True], [False], 1)
    assert isinstance(fgraph.outputs[0].owner.op, ViewOp)
