"""graph.features FullHistory, HistoryEntry, NoOutputFromInplace, PreserveVariableAttributes and
graph.rewriting.basic SubstitutionNodeRewriter, walking_rewriter, inplace_graph_rewriter."""

import pickle

import pytest

import arignote.tensor as pt
from arignote.graph.destroyhandler import DestroyHandler
from arignote.graph.features import (
    FullHistory,
    HistoryEntry,
    InconsistencyError,
    NoOutputFromInplace,
    PreserveVariableAttributes,
    ReplaceValidate,
)
from arignote.graph.fg import FunctionGraph
from arignote.graph.rewriting.basic import (
    SubstitutionNodeRewriter,
    inplace_graph_rewriter,
    node_rewriter,
    walking_rewriter,
)
from arignote.printing import debugprint
from arignote.tensor.elemwise import Elemwise


def _text(fgraph):
    return debugprint(fgraph.outputs, file="str")


def test_full_history_steps_back_and_forth_through_a_rewrite():
    x = pt.dvector("x")
    fgraph = FunctionGraph([x], [pt.exp(pt.log(x)) + pt.exp(pt.log(x))], clone=False)
    history = FullHistory()
    fgraph.attach_feature(history)
    before = _text(fgraph)
    walking_rewriter("out_to_in", SubstitutionNodeRewriter(pt.add, pt.mul)).rewrite(fgraph)
    after = _text(fgraph)
    assert before != after and "mul" in after and "add" not in after
    assert len(history.fw) == 1 and isinstance(history.fw[0], HistoryEntry)
    assert _text(history.start()) == before
    assert history.prev() is fgraph and _text(fgraph) == before  # nothing before the start
    assert _text(history.next()) == after
    assert _text(history.goto(0)) == before and _text(history.end()) == after
    assert len(history.fw) == 1  # moving is not recorded
    with pytest.raises(ValueError, match="checkpoint"):
        history.goto(5)
    with pytest.raises(ValueError, match="already attached"):
        FunctionGraph([x], [x * 2], clone=False).attach_feature(history)


def test_history_entry_compares_and_pickles_with_its_reason_as_a_name():
    entry = HistoryEntry("output", 0, 3, reason=_text)
    assert entry == HistoryEntry("output", 0, 3, reason=_text)
    restored = pickle.loads(pickle.dumps(entry))
    assert restored.reason == "_text" and restored.i == 0 and restored.var == 3


def test_no_output_from_inplace_refuses_an_inplace_output():
    x = pt.dvector("x")
    out = pt.exp(x)
    fgraph = FunctionGraph([x], [out, pt.sin(x)], clone=False)
    fgraph.attach_feature(DestroyHandler(mutable_inputs=[0]))
    fgraph.attach_feature(ReplaceValidate())
    fgraph.attach_feature(NoOutputFromInplace([0]))
    inplace = Elemwise(out.owner.op.scalar_op, inplace_pattern={0: 0})(x)
    with pytest.raises(InconsistencyError, match="protected"):
        fgraph.replace_validate(out, inplace)
    assert fgraph.outputs[0] is out  # undone
    sine = fgraph.outputs[1]
    fgraph.replace_validate(sine, Elemwise(sine.owner.op.scalar_op, inplace_pattern={0: 0})(x))


def test_preserve_variable_attributes_keeps_the_name_and_the_nan_guard_tag():
    x = pt.dvector("x")
    y = pt.exp(x)
    y.name = "y"
    y.tag.nan_guard_mode_check = False
    fgraph = FunctionGraph([x], [y * 2], clone=False)
    fgraph.attach_feature(PreserveVariableAttributes())
    new = pt.exp(x + 0)
    fgraph.replace(y, new)
    assert new.name == "y" and new.tag.nan_guard_mode_check is False


def test_substitution_rewriter_transfers_tags_and_only_tracks_its_op():
    x, y = pt.dvectors("x", "y")
    out = x + y
    out.tag.note = "kept"
    rewriter = SubstitutionNodeRewriter(pt.add, pt.sub)
    assert rewriter.tracks() == [pt.add] and str(rewriter) == f"{pt.add} -> {pt.sub}"
    (new,) = rewriter.transform(None, out.owner)
    assert new.owner.op == pt.sub and new.tag.note == "kept"
    assert rewriter.transform(None, (x * y).owner) is False


def test_walking_rewriter_orders_and_names():
    @node_rewriter([pt.mul])
    def double_to_add(fgraph, node):
        return [node.inputs[0] + node.inputs[1]]

    x = pt.dvector("x")
    fgraph = FunctionGraph([x], [x * x * x], clone=False)
    walker = walking_rewriter("in_to_out", double_to_add)
    assert walker.order == "in_to_out"
    walker.rewrite(fgraph)
    assert "mul" not in _text(fgraph)
    with pytest.raises(ValueError, match="order"):
        walking_rewriter("sideways", double_to_add)


def test_inplace_graph_rewriter_attaches_a_destroy_handler():
    seen = []

    @inplace_graph_rewriter
    def look(fgraph):
        seen.append(fgraph.destroy_handler)

    x = pt.dvector("x")
    fgraph = FunctionGraph([x], [pt.exp(x)], clone=False)
    look.rewrite(fgraph)
    assert look.__name__ == "look" and isinstance(seen[0], DestroyHandler)
