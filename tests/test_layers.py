"""The two floors: a core that never imports Scrapy, and a Scrapy layer on top.

Fingerprints, URL features, the index and its stores, and the decisions themselves live in
the core; everything that imports Scrapy lives in ``scrapy_simdedup/scrapy_layer/``. The
public paths a Scrapy project names in its settings (``scrapy_simdedup.middleware``,
``.pipeline``, ``.addon``, ``.commands``) stay as one-line re-exports.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "scrapy_simdedup"
LAYER = PACKAGE / "scrapy_layer"
PUBLIC_PATHS = {"middleware.py", "pipeline.py", "addon.py", "commands.py"}


def _import_nodes(path: Path) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements of ``path`` that run (not those under ``if TYPE_CHECKING:``),
    anywhere in it; relative ones left out."""
    tree = ast.parse(path.read_text("utf-8"))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(child) for child in ast.walk(node))
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import) or (
            isinstance(node, ast.ImportFrom) and node.module and not node.level
        ):
            yield node


def _runtime_imports(path: Path) -> set[str]:
    """Modules ``path`` imports when it runs (not those under ``if TYPE_CHECKING:``)."""
    found = set()
    for node in _import_nodes(path):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        else:
            found.add(str(node.module))
    return found


def _core_modules() -> list[Path]:
    return [
        path
        for path in sorted(PACKAGE.rglob("*.py"))
        if LAYER not in path.parents
        and not (path.parent == PACKAGE and path.name in PUBLIC_PATHS | {"__init__.py"})
    ]


def test_no_core_module_imports_scrapy_or_the_scrapy_layer() -> None:
    offenders = {
        str(path.relative_to(PACKAGE)): sorted(
            name
            for name in _runtime_imports(path)
            if name == "scrapy"
            or name.startswith(("scrapy.", "scrapy_simdedup.scrapy_layer", "twisted"))
        )
        for path in _core_modules()
    }
    assert {path: names for path, names in offenders.items() if names} == {}
    assert len(offenders) > 40  # the walk found the core


SCRAPY_STATS = ("response_received_count", "item_scraped_count", "finish_reason")
"""Names of Scrapy's own stats: the Scrapy layer reads them and hands the core numbers."""


def test_no_core_module_reads_scrapys_own_stats() -> None:
    offenders = {
        str(path.relative_to(PACKAGE)): [name for name in SCRAPY_STATS if name in text]
        for path in _core_modules()
        if (text := path.read_text("utf-8"))
    }
    assert {path: names for path, names in offenders.items() if names} == {}


def test_the_public_paths_only_re_export_the_scrapy_layer() -> None:
    for name in sorted(PUBLIC_PATHS):
        imports = _runtime_imports(PACKAGE / name) - {"__future__"}
        assert imports == {f"scrapy_simdedup.scrapy_layer.{name[:-3]}"}, (name, imports)


def test_the_core_runs_in_a_process_without_scrapy() -> None:
    """Every core module imports with Scrapy made unimportable."""
    modules = [
        ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts) for path in _core_modules()
    ]
    code = (
        "import sys\n"
        "class Refuse:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'scrapy' or name.startswith(('scrapy.', 'twisted')):\n"
        "            raise ImportError('the core imported ' + name)\n"
        "sys.meta_path.insert(0, Refuse())\n"
        "import importlib\n"
        f"for module in {modules!r}:\n"
        "    importlib.import_module(module)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=PACKAGE.parent, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]


def test_only_the_index_asks_what_kind_of_store_it_is_on() -> None:
    """Outside ``index/`` a store is asked one question, ``shared`` (``shared_store``):
    whether several workers share it. No type or kind checks there (issue 59)."""
    kinds = ('.kind == "redis"', '.kind != "redis"')
    offenders = {
        str(path.relative_to(PACKAGE)): [
            line.strip()
            for line in path.read_text("utf-8").splitlines()
            if ("AtomicStore" in line and "isinstance(" in line) or any(k in line for k in kinds)
        ]
        for path in sorted(PACKAGE.rglob("*.py"))
        if PACKAGE / "index" not in path.parents
    }
    assert {path: lines for path, lines in offenders.items() if lines} == {}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported_modules(path: Path, modules: set[str]) -> set[str]:
    """The package's modules ``path`` imports when it runs, anywhere in it (a function's
    import too): ``from package import module`` names the module, not the package."""
    found: set[str] = set()
    for node in _import_nodes(path):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        else:
            named = {f"{node.module}.{alias.name}" for alias in node.names}
            found.update(named & modules or {str(node.module)})
    return {name for name in found if name in modules}


def test_no_module_of_the_package_imports_itself_through_others() -> None:
    # An import circle: no module can be understood, tested or moved without the others.
    paths = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph = {name: _imported_modules(path, set(paths)) - {name} for name, path in paths.items()}
    circles = []
    for start in sorted(graph):  # each module: can it reach itself?
        seen, todo = set(), list(graph[start])
        while todo:
            name = todo.pop()
            if name == start:
                circles.append(start)
                break
            if name not in seen:
                seen.add(name)
                todo.extend(graph[name])
    assert circles == []
    assert len(graph) > 100 and sum(map(len, graph.values())) > 200  # the walk found imports


MAX_MODULE_LINES = 500
MAX_CLASS_LINES = 400


def test_no_module_is_longer_than_a_reader_can_hold() -> None:
    # A module is one concept and a class one job (issue 59): past these sizes a newcomer
    # cannot find where a rule is decided, and the next change lands in the largest one.
    too_long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if source.count("\n") > MAX_MODULE_LINES:
            too_long.append(f"{path.relative_to(PACKAGE)}: {source.count(chr(10))} lines")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ClassDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_CLASS_LINES:
                    too_long.append(f"{path.relative_to(PACKAGE)}: class {node.name} {lines}")
    assert too_long == []
