"""``pytensor.compile.executor``'s path: the compiled ``Function`` (defined in ``compiled``)."""

from arignote.compile.compiled import Function

__all__ = ["Function"]
