"""Random variables: NumPy ``Generator`` draws as graph operations, and ``RandomStream``.

``import arignote.tensor.random as ptr``: ``ptr.normal(0, 1, size=(2, 3), rng=rng)`` is the
symbolic draw of ``rng.normal(0, 1, size=(2, 3))``. A draw's node returns the generator's next
state as well; a shared generator (``arignote.shared(np.random.default_rng(seed))``) advances
between calls of a compiled function through its ``default_update``, and
``RandomStream(seed)`` makes such generators for every draw.
"""

# PyTensor keeps the multivariate draws in random.basic and normalize_size_param in
# random.utils; arignote defines them in multivariate / op, so bind them at those paths too.
from arignote.tensor.random import basic as _basic
from arignote.tensor.random import multivariate as _multivariate
from arignote.tensor.random import rewriting
from arignote.tensor.random import utils as _utils
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

for _name in _multivariate.__all__:
    setattr(_basic, _name, getattr(_multivariate, _name))
_utils.normalize_size_param = normalize_size_param

# PyTensor 3: ptr.rng(), ptr.shared_rng(), and draw methods on generator variables
from arignote.tensor.random import variable
from arignote.tensor.random.basic import NegativeBinomialRV as NegBinomialRV
from arignote.tensor.random.basic import negative_binomial as nbinom

_basic.nbinom, _basic.NegBinomialRV = nbinom, NegBinomialRV  # PyTensor's names, in basic too
# distributions drawn through scipy.stats (and invgamma), at PyTensor's paths
from arignote.tensor.random import scipy_rvs as _scipy_rvs
from arignote.tensor.random.scipy_rvs import *
from arignote.tensor.random.variable import rng, shared_rng

for _name in _scipy_rvs.__all__:  # and basic.stats: scipy.stats, at first use
    setattr(_basic, _name, getattr(_scipy_rvs, _name))
