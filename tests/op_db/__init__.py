"""The op database (see core.py); each module registers the entries of one op family."""

import tests.op_db.alloc
import tests.op_db.extra_ops
import tests.op_db.join
import tests.op_db.pad
import tests.op_db.reduction
import tests.op_db.reshape
import tests.op_db.shape
from tests.op_db import elemwise, indexing
from tests.op_db import random as _random
from tests.op_db.core import REGISTRY, Directive, OpInfo, Sample, register

__all__ = ["REGISTRY", "Directive", "OpInfo", "Sample", "register"]
