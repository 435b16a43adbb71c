"""The op database (see core.py); each module registers the entries of one op family."""

from tests.op_db import elemwise
from tests.op_db import random as _random
from tests.op_db.core import REGISTRY, Directive, OpInfo, Sample, register

__all__ = ["REGISTRY", "Directive", "OpInfo", "Sample", "register"]
