"""``pytensor.compile.debug.debugmode``'s path for ``arignote.compile.debugmode``."""

from arignote.compile.debugmode import (
    BadDestroyMap,
    BadInferShape,
    BadOptimization,
    BadThunkOutput,
    BadViewMap,
    DebugMode,
    DebugModeError,
    InvalidValueError,
)
from arignote.config import config

__all__ = [
    "BadDestroyMap",
    "BadInferShape",
    "BadOptimization",
    "BadThunkOutput",
    "BadViewMap",
    "DebugMode",
    "DebugModeError",
    "InvalidValueError",
    "config",
]
