"""``pytensor.compile.maker``'s path: ``function`` and ``FunctionMaker``."""

from arignote.compile.function import FunctionMaker, UnusedInputError, function

__all__ = ["FunctionMaker", "UnusedInputError", "function"]
