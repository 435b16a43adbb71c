"""The op database (see core.py); each module registers the entries of one op family.

One ``import`` line per family module, so that adding a family never edits another's line.
"""

import tests.op_db.alloc
import tests.op_db.blas
import tests.op_db.blockwise
import tests.op_db.combine
import tests.op_db.control_flow
import tests.op_db.conv
import tests.op_db.derived
import tests.op_db.elemwise
import tests.op_db.extra_op_classes
import tests.op_db.extra_ops
import tests.op_db.fft
import tests.op_db.indexing
import tests.op_db.jax_ops
import tests.op_db.join
import tests.op_db.linalg
import tests.op_db.linalg_more
import tests.op_db.matrix_equations
import tests.op_db.mrg
import tests.op_db.nnet
import tests.op_db.optimize
import tests.op_db.packing
import tests.op_db.pad
import tests.op_db.pool
import tests.op_db.printing
import tests.op_db.products
import tests.op_db.random
import tests.op_db.random_scipy
import tests.op_db.ravel
import tests.op_db.reduction
import tests.op_db.reshape
import tests.op_db.scan
import tests.op_db.shape
import tests.op_db.slices
import tests.op_db.special
import tests.op_db.special_more
import tests.op_db.without_zeros
from tests.op_db.core import REGISTRY, Directive, OpInfo, Sample, register

__all__ = ["REGISTRY", "Directive", "OpInfo", "Sample", "register"]
