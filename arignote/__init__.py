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
    ifelse,  # the module, callable like PyTensor's ``pytensor.ifelse``
    printing,
    raise_op,
    sandbox,  # Theano's sandbox.rng_mrg, reachable after `import arignote as theano`
    scan,
    tensor,
)
from arignote.compile import In, Mode, OpFromGraph, Out, function, get_mode, shared
from arignote.config import config
from arignote.gradient import Lop, Rop, grad
from arignote.graph.replace import clone_replace, graph_replace
from arignote.printing import debugprint as dprint
from arignote.scan import foldl, foldr, map, reduce
from arignote.tensor import sharedvar as _sharedvar

__version__ = "0.1.0"

__all__ = [
    "In",
    "Lop",
    "Mode",
    "OpFromGraph",
    "Out",
    "Rop",
    "clone_replace",
    "config",
    "dprint",
    "foldl",
    "foldr",
    "function",
    "get_mode",
    "grad",
    "gradient",
    "graph_replace",
    "ifelse",
    "printing",
    "raise_op",
    "scan",
    "shared",
]
# ``arignote.map`` and ``arignote.reduce`` exist (as in PyTensor) but stay out of ``__all__``:
# ``from arignote import *`` must not shadow the builtins.

# PyTensor 3's spellings at the top level
from arignote.compile.ops import wrap_py
from arignote.gradient import pullback, pushforward

__all__ += ["pullback", "pushforward", "wrap_py"]
# Saving without pickle (issue 14): a data-only, versioned format
from arignote.serialize import load, register_op_class, save

__all__ += ["load", "register_op_class", "save"]

import importlib as _importlib


def __getattr__(name: str):
    # ``arignote.wrap_jax`` lives in the JAX backend (only arignote.link.jax imports jax): it
    # is loaded on first access, so ``import arignote`` never imports jax.
    if name == "wrap_jax":
        return _importlib.import_module("arignote.link.jax.ops").wrap_jax
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# PyTensor's ``pytensor.tensor.optimize`` (SciPy's optimisers as ops): it sits above the tensor
# layer (it compiles and differentiates its inner graph), so it is served at that path here.
import sys as _sys

from arignote import optimize as _optimize

_sys.modules["arignote.tensor.optimize"] = _optimize
tensor.optimize = _optimize
