"""graph.traversal: walk_toposort, toposort_with_orderings and truncated_graph_inputs (the
cases of PyTensor's documentation of truncated_graph_inputs)."""

import pytest

import arignote.tensor as pt
from arignote.graph.traversal import (
    toposort,
    toposort_with_orderings,
    truncated_graph_inputs,
    walk_toposort,
)


def test_walk_toposort_puts_each_object_after_its_dependencies():
    deps = {"d": ["b", "c"], "b": ["a"], "c": ["a"], "a": []}
    order = list(walk_toposort(["d"], deps.get))
    assert order[0] == "a" and order[-1] == "d" and set(order) == set(deps)
    with pytest.raises(ValueError, match="cycles"):
        list(walk_toposort(["x"], {"x": ["y"], "y": ["x"]}.get))


def test_toposort_with_orderings_honours_the_extra_orderings():
    x = pt.dvector("x")
    a, b = pt.exp(x), pt.sin(x)
    out = a + b
    plain = list(toposort_with_orderings([out]))
    assert plain == toposort([out])
    # force sin before exp (as a destroy handler would for a reader and a destroyer)
    forced = list(toposort_with_orderings([out], orderings={a.owner: [b.owner]}))
    assert forced.index(b.owner) < forced.index(a.owner) and forced[-1] is out.owner
    # blockers stop the walk
    assert list(toposort_with_orderings([out], blockers=[a, b])) == [out.owner]


def test_truncated_graph_inputs_cases_of_the_documentation():
    x, y = pt.dscalar("x"), pt.dscalar("y")
    n = pt.exp(x)
    o = pt.sin(n)
    assert truncated_graph_inputs([o]) == [o]  # no ancestors to include
    assert truncated_graph_inputs([o], [n]) == [n]  # one ancestor to include
    c = pt.cos(n)
    assert set(truncated_graph_inputs([pt.sin(c)], [n, c])) == {n, c}  # both returned
    # an independent branch is returned whole, a disconnected ancestor is not
    m = pt.exp(y)
    assert set(truncated_graph_inputs([n * m + x], [x, pt.dscalar("z")])) == {x, m}
    # the ancestor to include that is an output adds itself
    assert truncated_graph_inputs([n], [n]) == [n]
