"""PyTensor 3's ``pytensor.tensor.functional``: ``vectorize`` (NumPy's ``np.vectorize`` for
symbolic functions, by ``Blockwise``) and ``vectorize_graph``."""

from __future__ import annotations

from arignote.graph.replace import vectorize_graph  # noqa: F401 (served here)
from arignote.tensor.blockwise import vectorize  # noqa: F401 (served here)

# (no __all__: ``vectorize`` is in arignote.tensor already, ``vectorize_graph`` in graph)
