"""The generic graph IR: variables, apply nodes, ops, types, function graphs and rewriting."""

from arignote.graph.basic import (
    Apply,
    Constant,
    Node,
    Variable,
    ancestors,
    applys_between,
    clone,
    clone_get_equiv,
    equal_computations,
    explicit_graph_inputs,
    graph_inputs,
    io_toposort,
    toposort,
)
from arignote.graph.fg import FunctionGraph
from arignote.graph.op import Op
from arignote.graph.replace import (
    clone_replace,
    graph_replace,
    vectorize_graph,
    vectorize_node,
)
from arignote.graph.rewriting import (
    RewriteDatabaseQuery,
    graph_rewriter,
    node_rewriter,
    rewrite_graph,
)
from arignote.graph.type import Type

__all__ = [
    "Apply",
    "Constant",
    "FunctionGraph",
    "Node",
    "Op",
    "RewriteDatabaseQuery",
    "Type",
    "Variable",
    "ancestors",
    "applys_between",
    "clone",
    "clone_get_equiv",
    "clone_replace",
    "equal_computations",
    "explicit_graph_inputs",
    "graph_inputs",
    "graph_replace",
    "graph_rewriter",
    "io_toposort",
    "node_rewriter",
    "rewrite_graph",
    "toposort",
    "vectorize_graph",
    "vectorize_node",
]
