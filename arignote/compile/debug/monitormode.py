"""``pytensor.compile.debug.monitormode``'s path for ``arignote.compile.monitormode``."""

from arignote.compile.monitormode import MonitorMode, detect_nan, function_dump

__all__ = ["MonitorMode", "detect_nan", "function_dump"]
