"""The disk cache of native code: ``python -m arignote.cache info`` and ``... clear``.

``info`` prints where the cache is, how many compiled graphs it holds, their total size and
the size bound (``config.cache_size_mb``, least recently used entries are evicted beyond it);
``clear`` removes every entry. The location is ``config.cache_dir``, else
``$ARIGNOTE_CACHE_DIR``, else the user cache directory (see
:mod:`arignote.link.numba.cache`). Importing this module imports numba.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from typing import Any

from arignote.link.numba.cache import cache_dir, clear, entries, evict, info

_USAGE = "usage: python -m arignote.cache {info,clear}"


def describe(summary: dict[str, Any]) -> str:
    """The text ``python -m arignote.cache info`` prints for ``info()``'s summary."""
    last = summary["last_used"]
    when = "never" if last is None else time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(last))
    return "\n".join(
        [
            f"directory:  {summary['directory']}",
            f"entries:    {summary['entries']}",
            f"size:       {summary['bytes'] / 2**20:.2f} MiB",
            f"bound:      {summary['bound_bytes'] / 2**20:.0f} MiB (config.cache_size_mb)",
            f"last used:  {when}",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: ``info`` or ``clear``; returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["info"]:
        sys.stdout.write(describe(info()) + "\n")
        return 0
    if args == ["clear"]:
        sys.stdout.write(f"removed {clear()} entries from {cache_dir()}\n")
        return 0
    sys.stderr.write(_USAGE + "\n")
    return 2


__all__ = ["cache_dir", "clear", "describe", "entries", "evict", "info", "main"]

if __name__ == "__main__":
    sys.exit(main())
