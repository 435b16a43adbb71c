"""debugprint, pprint and the DOT output of pydotprint."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

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


# -- pp / pprint: PyTensor's notation, on the forms of its tutorials ----------------------------


def test_pp_of_the_logistic_regression_tutorial():
    x, w, b = pt.dmatrix("x"), pt.dvector("w"), pt.dscalar("b")
    p_1 = 1 / (1 + pt.exp(-pt.dot(x, w) - b))
    prediction = p_1 > 0.5
    assert arignote.printing.pp(prediction) == (
        "gt((1.0 / (1.0 + exp(((-(x \\dot w)) - b)))), 0.5)"
    )


def test_pp_of_the_gradient_tutorial_shows_the_fill_seed():
    # PyTensor's tutorial: pp(grad(x ** 2, x)) starts from fill((x ** 2), 1.0)
    x = pt.dscalar("x")
    assert arignote.printing.pp(arignote.grad(x**2, x)).startswith("(fill((x ** 2.0), 1.0) * ")


def test_pp_of_a_compiled_gradient_is_the_rewritten_expression():
    x = pt.dscalar("x")
    f = arignote.function([x], arignote.grad(x**2, x))
    text = arignote.printing.pp(f.maker.fgraph.outputs[0])
    assert text in ("(x + x)", "(2.0 * x)")
    assert arignote.printing.pp(f) == text


@pytest.mark.parametrize(
    "build, expected",
    [
        (lambda a, b, m: pt.gt(a, b), "gt(a, b)"),
        (lambda a, b, m: a < b, "lt(a, b)"),
        (lambda a, b, m: (a * b).sum(), "sum((a * b), axis=None)"),
        (lambda a, b, m: m.sum(axis=0), "sum(m, axis=(0,))"),
        (lambda a, b, m: -a, "(-a)"),
        (lambda a, b, m: a - b / 2, "(a - (b / 2.0))"),
        (lambda a, b, m: pt.switch(a > 0, a, b), "switch(gt(a, 0.0), a, b)"),
        (lambda a, b, m: m.T, "m.T"),
        (lambda a, b, m: a[1:], "a[1:]"),
        (lambda a, b, m: m[0, ::2], "m[0, ::2]"),
        (lambda a, b, m: a**b, "(a ** b)"),
        (lambda a, b, m: a // b, "(a // b)"),
        (lambda a, b, m: abs(a), "|a|"),
        (lambda a, b, m: pt.cast(a, "float32"), "float32(a)"),
        (lambda a, b, m: pt.and_(a > 0, b > 0), "and(gt(a, 0.0), gt(b, 0.0))"),
        (lambda a, b, m: pt.set_subtensor(a[0], 1.0), "set_subtensor(a[0], 1.0)"),
        (lambda a, b, m: pt.inc_subtensor(a[1:], b[1:]), "inc_subtensor(a[1:], b[1:])"),
        (lambda a, b, m: pt.join(0, a, b), "join(0, a, b)"),
        (lambda a, b, m: pt.dot(m, a), "(m \\dot a)"),
        (lambda a, b, m: (a + b) + a, "((a + b) + a)"),
        (lambda a, b, m: pt.second(a, b), "fill(a, b)"),  # PyTensor's name for second
    ],
)
def test_pp_notation(build, expected):
    a, b = pt.dvectors("a", "b")
    m = pt.dmatrix("m")
    assert arignote.printing.pp(build(a, b, m)) == expected


def test_pp_uses_leaf_names_and_expands_named_intermediates():
    a, b = pt.dvectors("a", "b")
    c = a + b
    c.name = "c"
    assert arignote.printing.pp(c * 2) == "((a + b) * 2.0)"
    assert arignote.printing.pprint is arignote.printing.pp


# -- Print ----------------------------------------------------------------------------------------


def test_print_op_prints_at_run_time_and_returns_its_input(capsys):
    x = pt.dvector("x")
    y = arignote.printing.Print("x is")(x)
    f = arignote.function([x], y * 2)
    np.testing.assert_array_equal(f([1.0, 2.0]), [2.0, 4.0])
    assert capsys.readouterr().out == "x is __str__ = [1. 2.]\n"
    f([3.0, 4.0])
    assert capsys.readouterr().out == "x is __str__ = [3. 4.]\n"  # every call


def test_print_ops_print_in_graph_order(capsys):
    x = pt.dvector("x")
    first = arignote.printing.Print("first", attrs=("shape",))(x)
    second = arignote.printing.Print("second")(pt.exp(first))
    f = arignote.function([x], second.sum())
    assert f([0.0, 0.0]) == 2.0
    assert capsys.readouterr().out.splitlines() == [
        "first shape = (2,)",
        "second __str__ = [1. 1.]",
    ]


def test_print_op_global_fn_grad_and_folding():
    seen = []
    p = arignote.printing.Print("m", global_fn=lambda op, v: seen.append((op.message, v.copy())))
    x = pt.dvector("x")
    f = arignote.function([x], arignote.grad((p(x) ** 2).sum(), x))
    np.testing.assert_array_equal(f([1.0, 3.0]), [2.0, 6.0])
    assert seen[0][0] == "m" and list(seen[0][1]) == [1.0, 3.0]
    # a constant input is still printed at run time, not folded away at compile time
    seen.clear()
    g = arignote.function([], p(pt.as_tensor(np.ones(2))))
    g()
    g()
    assert len(seen) == 2
    assert p != arignote.printing.Print("other") and p == p


# -- debugprint options and inner graphs ----------------------------------------------------------


def test_debugprint_types_shapes_and_id_types():
    x = pt.dvector("x")
    y = pt.exp(x).sum()
    text = debugprint(y, file="str", print_type=True, print_shape=True, id_type="int")
    assert text.splitlines()[0] == (
        "Sum{acc_dtype=float64} [id 0] <TensorType(float64, ())> shape=() ''"
    )
    assert "shape=(?,)" in text
    assert "[id " + str(id(y.owner)) + "]" in debugprint(y, file="str", ids="id")
    with pytest.raises(ValueError):
        debugprint(y, file="str", id_type="roman")


def test_debugprint_stop_on_name_and_shared_ids():
    x = pt.dvector("x")
    e = pt.exp(x)
    e.name = "e"
    y = (e * 2).sum()
    stopped = debugprint(y, file="str", stop_on_name=True)
    assert "|x" not in stopped and "'e'" in stopped
    used, done = {}, {}
    first = debugprint(e, file="str", used_ids=used, done=done)
    second = debugprint(y, file="str", used_ids=used, done=done)
    assert first.splitlines()[0] == "Elemwise{exp,no_inplace} [id A] 'e'"
    assert "   |Elemwise{exp,no_inplace} [id A] 'e'" in second.splitlines()  # same id
    assert "x [id" not in second  # already expanded in the first call


def test_debugprint_memory_maps_op_info_and_storage():
    x = pt.dvector("x")
    w = arignote.shared(np.array([1.0, 2.0]), name="w")
    y = pt.set_subtensor(x[0], 5.0) * w
    f = arignote.function([x], y)
    text = debugprint(f, file="str", print_memory_map=True, print_op_info=True, print_storage=True)
    assert "d={0: [" in text  # an in-place op overwrites one of its inputs
    assert "{idx_list=" in text
    assert "w [id" in text and "[array([1., 2.])]" in text
    assert "d={" in debugprint(f, file="str", print_destroy_map=True)
    assert "d={" not in debugprint(f, file="str")
    # PyTensor 3's keyword; arignote records no assumptions, so the text is unchanged
    assert debugprint(f, file="str", print_assumptions=True) == debugprint(f, file="str")


def test_debugprint_shows_composite_inner_graphs():
    x, y = pt.dvectors("x", "y")
    f = arignote.function([x, y], pt.exp(x) * y + 1)
    lines = debugprint(f, file="str").splitlines()
    start = lines.index("Inner graphs:")
    inner = lines[start + 2 :]
    assert inner[0].startswith("Elemwise{Composite{")
    assert any(line.startswith(" >") and "exp" in line for line in inner)
    assert any("i0" in line for line in inner)
    assert "Inner graphs:" not in debugprint(f, file="str", print_inner_graphs=False)


def test_debugprint_shows_index_map_inner_graph():
    x = pt.dvector("x")
    j = arignote.gradient.jacobian(pt.exp(x), x)
    text = debugprint(j, file="str")
    assert "Inner graphs:" in text and "IndexMap" in text.split("Inner graphs:")[1]


# -- pydotprint -----------------------------------------------------------------------------------

needs_dot = pytest.mark.skipif(
    shutil.which("dot") is None, reason="Graphviz's dot program is not installed"
)


@needs_dot
@pytest.mark.parametrize("fmt, magic", [("png", b"\x89PNG"), ("svg", b"<"), ("pdf", b"%PDF")])
def test_pydotprint_draws_with_graphviz(tmp_path, fmt, magic):
    a = pt.vector("a")
    b = a + a**10
    path = tmp_path / f"graph.{fmt}"
    out = pydotprint(b, outfile=str(path), var_with_name_simple=True, print_output_file=False)
    assert out == str(path)
    data = path.read_bytes()
    assert data.lstrip().startswith(magic)
    if fmt == "svg":
        assert b"<svg" in data and b">a<" in data  # the simple name labels the input


@needs_dot
def test_pydotprint_of_a_function_and_return_image():
    x = pt.dvector("x")
    f = arignote.function([x], pt.exp(x) * 2)
    assert pydotprint(f, format="svg", return_image=True).lstrip().startswith(b"<")


def test_pydotprint_without_graphviz_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    x = pt.dvector("x")
    with pytest.raises(arignote.printing.GraphvizNotFoundError, match="apt-get install graphviz"):
        pydotprint(x * 2, outfile=str(tmp_path / "g.png"))
    pydotprint(x * 2, outfile=str(tmp_path / "g.dot"), print_output_file=False)  # still works
    assert (tmp_path / "g.dot").read_text().startswith("digraph G {")
