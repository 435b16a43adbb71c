"""Printing graphs: ``debugprint`` (a tree with ids), ``pp``/``pprint`` (one expression),
``Print`` (print values at run time), ``pydotprint`` (Graphviz drawings), ``html`` (an
interactive view in one self-contained HTML file)."""

from arignote.printing.debug import debugprint, dprint
from arignote.printing.drawing import GraphvizNotFoundError, graph_to_dot, pydotprint
from arignote.printing.html import html
from arignote.printing.pretty import pp, pprint
from arignote.printing.print_op import Print

__all__ = [
    "GraphvizNotFoundError",
    "Print",
    "debugprint",
    "dprint",
    "graph_to_dot",
    "html",
    "pp",
    "pprint",
    "pydotprint",
]
