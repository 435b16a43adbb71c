"""PyTensor's type-level names: the Dense* aliases, the *_types tuples, the unsigned scalar
types and the HasDataType/HasShape mixins."""

import numpy as np

import arignote
import arignote.tensor as pt
from arignote.graph.type import HasDataType, HasShape
from arignote.scalar.basic import ScalarType
from arignote.tensor import type as tt
from arignote.tensor.math import variadic_add, variadic_mul
from arignote.tensor.variable import DenseTensorConstant, DenseTensorVariable


def test_dense_names_recognise_every_tensor():
    x = pt.dmatrix("x")
    assert isinstance(x.type, tt.DenseTensorType) and isinstance(x, DenseTensorVariable)
    assert isinstance(pt.constant(np.ones(2)), DenseTensorConstant)
    assert not isinstance(x, DenseTensorConstant) and not isinstance(
        pt.dscalar, DenseTensorVariable
    )
    dense = tt.DenseTensorType("float32", (None, 3))
    assert isinstance(dense, tt.DenseTensorType) and dense("y").type.shape == (None, 3)


def test_type_tuples_group_types_by_kind():
    assert pt.dscalar("s").type in tt.float_types and pt.lvector("v").type in tt.int_vector_types
    assert [t.dtype for t in tt.int_types] == ["int8", "int16", "int32", "int64"]
    assert [t.ndim for t in tt.complex_matrix_types] == [2, 2]
    assert tt.float_types == tt.float_scalar_types
    assert pt.dvector("v").type not in tt.float_types


def test_unsigned_scalars():
    u = tt.ubscalar("u")
    assert u.type.dtype == "uint8" and u.type.ndim == 0
    assert [t.dtype for t in (tt.uwscalar, tt.uiscalar, tt.ulscalar)] == [
        "uint16",
        "uint32",
        "uint64",
    ]
    assert arignote.function([u], u + 1)(np.uint8(254)) == 255


def test_has_data_type_and_shape_mixins():
    x = pt.fmatrix("x")
    assert isinstance(x.type, HasShape) and isinstance(x.type, HasDataType)
    assert isinstance(ScalarType("float64"), HasDataType)
    assert not isinstance(ScalarType("float64"), HasShape)


def test_variadic_add_and_mul_take_any_number_of_terms():
    x, y = pt.dscalars("x", "y")
    assert variadic_add().eval() == 0 and variadic_mul().eval() == 1
    assert variadic_add(x) is x and variadic_mul(y) is y
    f = arignote.function([x, y], [variadic_add(x, y, x), variadic_mul(x, y, 2.0)])
    assert [float(v) for v in f(3.0, 4.0)] == [10.0, 24.0]
