"""clone_replace and graph_replace."""

from __future__ import annotations

import pytest

from arignote.graph.basic import equal_computations
from arignote.graph.replace import clone_replace, graph_replace
from tests.graph.toy import add, mul, neg, var


def test_clone_replace_substitutes_and_leaves_the_original():
    x, y, z = var("x"), var("y"), var("z")
    e = add(x, mul(y, y))
    new = clone_replace(e, {y: z})
    assert equal_computations([new], [add(x, mul(z, z))])
    assert e.owner.inputs[1].owner.inputs[0] is y
    assert new.owner.inputs[0] is x  # unreplaced inputs are shared


def test_clone_replace_of_an_intermediate_variable():
    x, y = var("x"), var("y")
    middle = neg(x)
    e = add(middle, x)
    new = clone_replace([e], [(middle, y)])
    assert equal_computations(new, [add(y, x)])


def test_graph_replace_strict_requires_used_replacements():
    x, y, z = var("x"), var("y"), var("z")
    e = add(x, x)
    with pytest.raises(ValueError, match="not used"):
        graph_replace(e, {y: z})
    assert equal_computations([graph_replace(e, {x: z})], [add(z, z)])


def test_replacement_keys_must_be_variables():
    with pytest.raises(TypeError, match="Variables"):
        clone_replace(var(), {"x": var()})
