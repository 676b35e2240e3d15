"""The LevelDB binding, imported here and nowhere else.

plyvel has no wheels past CPython 3.12, so newer interpreters install its maintained fork
plyvel-next (the same API, LevelDB bundled, import name ``plyvel_next``; chosen by
environment markers in ``pyproject.toml``). Both write the same LevelDB files, so a folder
written under one opens under the other (``tests/test_leveldb_binding.py``).
"""

from __future__ import annotations

try:
    import plyvel
except ImportError:
    try:
        import plyvel_next as plyvel
    except ImportError:
        raise ImportError(
            "scrapy-simdedup's LevelDB store needs a LevelDB binding: pip install plyvel "
            "(CPython up to 3.12) or plyvel-next (3.12 and newer), or reinstall "
            "scrapy-simdedup, which picks the right one"
        ) from None

BINDING: str = plyvel.__name__
"""Which binding is in use: ``plyvel`` or ``plyvel_next``."""

__all__ = ["BINDING", "plyvel"]
