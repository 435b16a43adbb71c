"""Which kernels the OpenBLAS libraries of NumPy and SciPy chose for this CPU.

Both wheels bundle an OpenBLAS built for many CPUs that picks its kernels when it is loaded.
OpenBLAS 0.3.30/0.3.31 does not know AMD Zen 5 (family 0x1A) and takes its AVX2 "Haswell"
kernels there, half the width the CPU has; ``OPENBLAS_CORETYPE=SkylakeX`` (set before the
library loads) gives the AVX-512 ones. numba's ``np.dot`` calls SciPy's library.
"""

from __future__ import annotations

import ctypes
import importlib.util
from pathlib import Path

_SYMBOLS = ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename")


def blas_cores() -> str:
    """``"numpy Haswell, scipy Haswell"``: the kernel family of each bundled OpenBLAS."""
    found = []
    for package in ("numpy", "scipy"):
        spec = importlib.util.find_spec(package)
        libs = Path(spec.origin).parents[1] / f"{package}.libs" if spec and spec.origin else None
        for lib in sorted(libs.glob("*openblas*.so*")) if libs and libs.is_dir() else []:
            found.append(f"{package} {_corename(lib)}")
    return ", ".join(found) or "unknown"


def _corename(lib: Path) -> str:
    handle = ctypes.CDLL(str(lib))
    for symbol in _SYMBOLS:
        function = getattr(handle, symbol, None)
        if function is not None:
            function.restype = ctypes.c_char_p
            return function().decode()
    return "unknown"
