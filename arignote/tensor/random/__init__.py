"""Random variables: NumPy ``Generator`` draws as graph operations, and ``RandomStream``.

``import arignote.tensor.random as ptr``: ``ptr.normal(0, 1, size=(2, 3), rng=rng)`` is the
symbolic draw of ``rng.normal(0, 1, size=(2, 3))``. A draw's node returns the generator's next
state as well; a shared generator (``arignote.shared(np.random.default_rng(seed))``) advances
between calls of a compiled function through its ``default_update``, and
``RandomStream(seed)`` makes such generators for every draw.
"""

from arignote.tensor.random import rewriting
from arignote.tensor.random.basic import *
from arignote.tensor.random.multivariate import *
from arignote.tensor.random.op import RandomVariable, normalize_size_param
from arignote.tensor.random.type import (
    NoneConst,
    NoneTypeT,
    RandomGeneratorSharedVariable,
    RandomGeneratorType,
    random_generator_type,
)
from arignote.tensor.random.utils import RandomStream
