"""``pytensor.compile.debug.profiling``'s path for ``arignote.compile.profiling``."""

from arignote.compile.profiling import ProfileStats
from arignote.config import config

__all__ = ["ProfileStats", "config"]
