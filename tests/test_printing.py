"""debugprint, pprint and the DOT output of pydotprint."""

from __future__ import annotations

import arignote
import arignote.tensor as pt
from arignote.printing import debugprint, graph_to_dot, pprint, pydotprint


def test_debugprint_shares_ids_for_repeated_subgraphs():
    x = pt.dvector("x")
    e = pt.exp(x)
    text = debugprint(e + e, file="str")
    lines = text.splitlines()
    assert lines[0] == "Elemwise{add,no_inplace} [id A] ''"
    assert lines[1] == " |Elemwise{exp,no_inplace} [id B] ''"
    assert lines.count(" |Elemwise{exp,no_inplace} [id B] ''") == 2
    assert len(lines) == 4  # the second occurrence is not expanded again


def test_debugprint_of_a_function_shows_execution_order():
    x = pt.dvector("x")
    f = arignote.function([x], pt.exp(x).sum())
    lines = debugprint(f, file="str").splitlines()
    assert lines[0].endswith("   1") and lines[1].endswith("   0")


def test_debugprint_options():
    x = pt.dvector("x")
    y = (x * 2).sum()
    assert "TensorType(float64, (?,))" in debugprint(y, file="str", print_type=True)
    assert "[id" not in debugprint(y, file="str", ids="")
    assert len(debugprint(y, file="str", depth=1).splitlines()) == 1


def test_dprint_returns_the_stream(capsys):
    x = pt.dvector("x")
    arignote.dprint(x + 1)
    assert "Elemwise{add,no_inplace}" in capsys.readouterr().out


def test_pprint_infix():
    x, y = pt.dscalars("x", "y")
    assert pprint(x * 2 + pt.exp(y)) == "((x * 2.0) + exp(y))"


def test_pydotprint_writes_dot(tmp_path, capsys):
    a = pt.vector("a")
    b = a + a**10
    path = tmp_path / "graph.dot"
    pydotprint(b, outfile=str(path), var_with_name_simple=True)
    text = path.read_text()
    assert text.startswith("digraph G {") and '"a"' in text and "pow" in text
    assert "The output file is available at" in capsys.readouterr().out
    assert graph_to_dot(b).count("->") == 8
