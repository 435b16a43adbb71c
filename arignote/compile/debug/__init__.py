"""``pytensor.compile.debug``'s paths: DebugMode, NanGuardMode, MonitorMode and profiling
under one package."""

from arignote.compile.debug import debugmode, monitormode, nanguardmode, profiling

__all__ = ["debugmode", "monitormode", "nanguardmode", "profiling"]
