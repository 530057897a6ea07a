"""numba's cache for this package, keyed on every file the package's compiled code comes from.

numba checks a cached function against its own source file only. The search inlines the rules
(``propagation``), the ordering and Philox (``gpu_sa.engine.rng``) from other files, so after an edit there it
would load stale machine code. This locator wraps whichever one numba would have chosen and adds to its
stamp the content of every file of the package and of ``gpu_sa/engine/rng.py``.
"""
from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from numba.core import caching

PACKAGE = Path(__file__).resolve().parent
SOURCES = sorted(PACKAGE.glob("*.py")) + [PACKAGE.parents[2] / "engine" / "rng.py"]


@functools.cache
def _stamp() -> str:
    digest = hashlib.sha256()
    for path in SOURCES:
        digest.update(path.read_bytes())
    return digest.hexdigest()


class PackageLocator(caching._CacheLocator):
    """numba's own locator for the function, with the package's stamp added to the file's."""

    def __init__(self, inner):
        self._inner = inner

    def ensure_cache_path(self):
        self._inner.ensure_cache_path()

    def get_cache_path(self):
        return self._inner.get_cache_path()

    def get_source_stamp(self):
        return self._inner.get_source_stamp(), _stamp()

    def get_disambiguator(self):
        return self._inner.get_disambiguator()

    @classmethod
    def from_function(cls, py_func, py_file):
        if Path(py_file).resolve().parent != PACKAGE:
            return None
        for locator in _IMPL._locator_classes:
            if locator is not cls and (inner := locator.from_function(py_func, py_file)) is not None:
                return cls(inner)
        return None


_IMPL = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl")  # numba >= 0.61 / 0.60
if PackageLocator not in _IMPL._locator_classes:
    _IMPL._locator_classes.insert(0, PackageLocator)
