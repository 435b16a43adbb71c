"""Loops over graphs.

``arignote.scan(fn, sequences=..., outputs_info=..., ...)`` builds a loop (this package is
callable: calling it calls :func:`arignote.scan.basic.scan`); ``map``, ``reduce``, ``foldl``
and ``foldr`` are common forms of it; ``until`` stops a loop early. The op is
:class:`arignote.scan.op.Scan`. ``IndexMap``/``index_map`` evaluate one graph for every index
of a range (used by ``jacobian`` and ``hessian``).
"""

import sys
import types

from arignote.scan import basic, checkpoints, op, rewriting, utils, views
from arignote.scan.basic import scan
from arignote.scan.checkpoints import scan_checkpoints
from arignote.scan.gradient import scan_grad, scan_rop  # registers the derivatives
from arignote.scan.index_map import IndexMap, index_map
from arignote.scan.op import Scan, ScanInfo
from arignote.scan.utils import until
from arignote.scan.views import foldl, foldr, map, reduce


class _CallableModule(types.ModuleType):
    """The ``arignote.scan`` package, callable as ``arignote.scan(fn, ...)`` (as in PyTensor,
    where the package and the function share the name)."""

    def __call__(self, *args, **kwargs):
        return scan(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

__all__ = [
    "IndexMap",
    "Scan",
    "ScanInfo",
    "basic",
    "checkpoints",
    "foldl",
    "foldr",
    "index_map",
    "map",
    "op",
    "reduce",
    "rewriting",
    "scan",
    "scan_checkpoints",
    "scan_grad",
    "scan_rop",
    "until",
    "utils",
    "views",
]
