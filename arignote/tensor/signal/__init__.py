"""``arignote.tensor.signal``: Theano's pooling modules, ``pool`` and the older ``downsample``.

A namespace of submodules (``pt.signal.pool.pool_2d``), not a family re-exported into
``arignote.tensor``.
"""

from arignote.tensor.signal import downsample, pool
