"""``pytensor.tensor.einsum``'s path: the ``Einsum`` op and ``einsum`` (defined in ``products``)."""

from arignote.tensor.products import Einsum, einsum

__all__ = ["Einsum", "einsum"]
