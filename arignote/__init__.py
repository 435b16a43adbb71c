"""arignote: define, differentiate, rewrite and compile expressions over arrays as graphs.

>>> import arignote
>>> import arignote.tensor as pt
>>> x = pt.dvector("x")
>>> f = arignote.function([x], (x ** 2).sum())
>>> float(f([1.0, 2.0]))
5.0
"""

from arignote import (
    compile,
    gradient,
    printing,
    tensor,
)
from arignote.compile import In, Mode, Out, function, get_mode, shared
from arignote.config import config
from arignote.gradient import Lop, Rop, grad
from arignote.graph.replace import clone_replace, graph_replace
from arignote.printing import debugprint as dprint
from arignote.tensor import sharedvar as _sharedvar

__version__ = "0.1.0"

__all__ = [
    "In",
    "Lop",
    "Mode",
    "Out",
    "Rop",
    "clone_replace",
    "config",
    "dprint",
    "function",
    "get_mode",
    "grad",
    "gradient",
    "graph_replace",
    "printing",
    "shared",
]

# PyTensor 3's spellings at the top level
from arignote.compile.ops import wrap_py
from arignote.gradient import pullback, pushforward

__all__ += ["pullback", "pushforward", "wrap_py"]
