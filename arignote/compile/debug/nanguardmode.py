"""``pytensor.compile.debug.nanguardmode``'s path for ``arignote.compile.nanguardmode``."""

from arignote.compile.nanguardmode import (
    NanGuardError,
    NanGuardMode,
    contains_inf,
    contains_nan,
    flatten,
)
from arignote.config import config

__all__ = ["NanGuardError", "NanGuardMode", "config", "contains_inf", "contains_nan", "flatten"]
