"""PyTensor's module of tensor exceptions (``pytensor.tensor.exceptions``).

The classes are defined where they are raised; this module gathers them at PyTensor's path so
that ``from pytensor.tensor.exceptions import NotScalarConstantError`` keeps working.
"""

from __future__ import annotations

from arignote.tensor.basic import NotScalarConstantError  # noqa: F401 (served here)
from arignote.tensor.shape_feature import ShapeError  # noqa: F401 (served here)


class AdvancedIndexingError(TypeError):
    """An index that advanced indexing cannot take (PyTensor's class of that name)."""


# (no __all__: as in PyTensor, the classes stay out of the arignote.tensor namespace)
