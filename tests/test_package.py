"""Properties of the package as a whole."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import scrapy_simdedup

UNSAFE_MODULES = {"pickle", "cPickle", "_pickle", "marshal", "shelve", "dill", "cloudpickle"}
PACKAGE = Path(scrapy_simdedup.__file__).parent


def _imported_modules(source: str) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "__import__":
            found.update(str(a.value) for a in node.args if isinstance(a, ast.Constant))
    return found


def test_nothing_is_ever_unpickled() -> None:
    """Stores hold bytes and JSON only: a shared Redis or a copied folder cannot run code."""
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 20
    for module in modules:
        unsafe = _imported_modules(module.read_text("utf-8")) & UNSAFE_MODULES
        assert not unsafe, f"{module.relative_to(PACKAGE)} imports {sorted(unsafe)}"


def test_the_check_sees_an_import() -> None:
    assert _imported_modules("import pickle\nfrom shelve import open") == {"pickle", "shelve"}


def test_the_core_never_imports_scrapy() -> None:
    core = [PACKAGE / name for name in ("fingerprint", "index", "url", "judges", "audit")]
    for module in (path for folder in core for path in folder.rglob("*.py")):
        imported = _imported_modules(module.read_text("utf-8"))
        assert "scrapy" not in imported, f"{module.relative_to(PACKAGE)} imports scrapy"


def test_the_package_names_load_on_first_use() -> None:
    """Every re-exported name and every submodule is there when asked for, and not before
    (the fingerprint helper process imports only what fingerprints need)."""
    probe = (
        "import sys, scrapy_simdedup as s; "
        "before = 'scrapy_simdedup.index.opening' in sys.modules; "
        "missing = [n for n in s.__all__ if getattr(s, n, None) is None]; "
        "print(before, missing, s.errors.StoreError.__name__, hasattr(s, 'nothing'))"
    )
    found = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    ).stdout.split()
    assert found == ["False", "[]", "StoreError", "False"], found
