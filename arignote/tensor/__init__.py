"""Symbolic tensors: types, NumPy-like operations, and their rewrites.

``import arignote.tensor as pt`` gives the NumPy-style vocabulary: ``pt.matrix("x")``,
``pt.exp(x)``, ``x.sum(axis=0)``, ``pt.dot(x, w)``... Each op family lives in its own module
and lists its public names in ``__all__``; they are all re-exported here.
"""

import arignote.tensor.linalg as linalg  # pt.linalg: numpy.linalg and scipy.linalg functions
from arignote.graph.basic import Apply, Constant, Variable

# Loaded before the families: importing the module binds pt.einsum to it, and the star import
# of products below must rebind the name to the function.
from arignote.tensor import einsum as _einsum_module
from arignote.tensor import rewriting
from arignote.tensor import type as _type_module

# The op families, one module each (their __all__ lists what they export).
from arignote.tensor.alloc import *
from arignote.tensor.basic import (
    NotScalarConstantError,
    as_tensor_variable,
    constant,
    get_scalar_constant_value,
    make_vector,
    scalar_from_tensor,
    tensor_from_scalar,
)
from arignote.tensor.blas import *
from arignote.tensor.blockwise import *
from arignote.tensor.combine import *
from arignote.tensor.derived import *
from arignote.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from arignote.tensor.extra_ops import *
from arignote.tensor.gradient_ops import *
from arignote.tensor.indexing_ops import *
from arignote.tensor.join import *
from arignote.tensor.math import *
from arignote.tensor.pad import *
from arignote.tensor.products import *
from arignote.tensor.ravel import *
from arignote.tensor.reduction import *
from arignote.tensor.reshape import *
from arignote.tensor.shape import *
from arignote.tensor.sharedvar import TensorSharedVariable
from arignote.tensor.sort import *
from arignote.tensor.special import *
from arignote.tensor.special_functions import *
from arignote.tensor.subtensor import *  # with the advanced indexing ops
from arignote.tensor.type import TensorType, tensor
from arignote.tensor.variable import TensorConstant, TensorVariable

# The type constructors: scalar, vector, matrix, ..., their b/w/i/l/f/d/c/z variants and plurals.
globals().update(_type_module.constructors())

# Random variables live in their own namespace: pt.random.normal, pt.random.RandomStream.
from arignote.tensor import random

as_tensor = as_tensor_variable
newaxis = None  # numpy.newaxis: x[:, pt.newaxis] inserts a length-1 dimension

# Theano-era names kept so that Theano programs run: T.nnet (activations, cross-entropies,
# conv2d), T.conv (convolutions), T.signal.pool / T.signal.downsample (pooling).
from arignote.tensor import conv, nnet, raw_random, shared_randomstreams, signal
from arignote.tensor.extra_op_classes import (
    Bartlett,
    FillDiagonal,
    FillDiagonalOffset,
    bartlett_,
    fill_diagonal_,
    fill_diagonal_offset_,
)

# Names PyTensor keeps in tensor.basic / tensor.math / ... bound there too (see module_paths).
from arignote.tensor.module_paths import bind_pytensor_paths as _bind_pytensor_paths
from arignote.tensor.prod_without_zeros import (
    MulWithoutZeros,
    ProdWithoutZeros,
    mul_without_zeros,
)

# PyTensor's slice values (type_other) and tensor.basic helpers
from arignote.tensor.slices import MakeSlice, NoneSliceConst, SliceType, make_slice, slicetype
from arignote.tensor.static_shape import infer_static_shape, transfer

_bind_pytensor_paths(globals())

# PyTensor's tensor namespace also holds these
from numpy import e, euler_gamma, inf, nan, pi  # (Python floats)

from arignote.graph.op import Op

# PyTensor 3's reshaping helpers and interpolation; the xlogx module
# PyTensor's module paths for its exceptions and functional helpers, and NumPy's constants,
# which pytensor.tensor re-exports (``pt.pi``)
from arignote.tensor import exceptions, functional, xlogx
from arignote.tensor.interpolate import interp, interpolate1d
from arignote.tensor.packing import join_dims, pack, split_dims, unpack
from arignote.tensor.random.type import NoneConst, none_type_t
from arignote.tensor.type import (
    complex_matrix_types,
    complex_scalar_types,
    complex_types,
    complex_vector_types,
    float_matrix_types,
    float_scalar_types,
    float_types,
    float_vector_types,
    int_matrix_types,
    int_scalar_types,
    int_types,
    int_vector_types,
    values_eq_approx_always_true,
)
