"""Symbolic tensors: types, NumPy-like operations, and their rewrites.

``import arignote.tensor as pt`` gives the NumPy-style vocabulary: ``pt.matrix("x")``,
``pt.exp(x)``, ``x.sum(axis=0)``, ``pt.dot(x, w)``...
"""

from arignote.graph.basic import Apply, Constant, Variable
from arignote.tensor import type as _type_module
from arignote.tensor.basic import (
    NotScalarConstantError,
    as_tensor_variable,
    constant,
    get_scalar_constant_value,
    make_vector,
    scalar_from_tensor,
    tensor_from_scalar,
)
from arignote.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from arignote.tensor.math import *  # noqa: F403  (the NumPy-style function vocabulary)
from arignote.tensor.math import __all__ as _math_all
from arignote.tensor.reshape import Reshape, flatten, reshape
from arignote.tensor.shape import (
    Shape,
    Shape_i,
    SpecifyShape,
    shape,
    shape_padaxis,
    shape_padleft,
    shape_padright,
    specify_broadcastable,
    specify_shape,
)
from arignote.tensor.type import TensorType, tensor
from arignote.tensor.variable import TensorConstant, TensorVariable
from arignote.tensor import math as _math
from arignote.tensor import rewriting  # noqa: F401  (registers the tensor rewrites)

# The type constructors: scalar, vector, matrix, ..., their b/w/i/l/f/d/c/z variants and plurals.
_CONSTRUCTORS = [
    name
    for name, value in vars(_type_module).items()
    if isinstance(value, (_type_module.TensorConstructor, _type_module.TensorType))
    or (callable(value) and getattr(value, "__doc__", "") and "Several variables" in value.__doc__)
]
globals().update({name: getattr(_type_module, name) for name in _CONSTRUCTORS})

# Every public name of math.py, not only those in its __all__.
globals().update({k: v for k, v in vars(_math).items() if not k.startswith("_") and k not in globals()})

as_tensor = as_tensor_variable
