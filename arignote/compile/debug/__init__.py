"""``pytensor.compile.debug``'s paths: DebugMode, NanGuardMode and profiling under one package."""

from arignote.compile.debug import debugmode, nanguardmode, profiling

__all__ = ["debugmode", "nanguardmode", "profiling"]
