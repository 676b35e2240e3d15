"""The docs site builds with warnings as errors, and its references match the code: every
setting ``SimDedupConfig`` reads and every stats key ``stats.py`` defines is documented, and
no page names a setting or a key the code no longer has. Both lists come from the code."""

from __future__ import annotations

import ast
import inspect
import re
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from scrapy_simdedup import stats
from scrapy_simdedup.config import SimDedupConfig

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [*sorted(DOCS.glob("*.md")), *sorted(DOCS.glob("*.rst")), ROOT / "README.md"]
BUILD_SECONDS = 300
SETTINGS = {f"SIMDEDUP_{field.name.upper()}" for field in fields(SimDedupConfig)}
_KEY = re.compile(r"(?<![\w./-])simdedup/[a-z_]+(?:/[a-z_]+)*/?")


def _environment_names() -> set[str]:
    """``SIMDEDUP_*`` environment variables the tests and CI read: not settings."""
    read = re.compile(r"""environ(?:\.get)?[\[(]\s*["'](SIMDEDUP_\w+)["']""")
    names = set(re.findall(r"export (SIMDEDUP_\w+)", (ROOT / ".ci" / "run").read_text("utf-8")))
    for source in ROOT.joinpath("tests").rglob("*.py"):
        names.update(read.findall(source.read_text("utf-8")))
    return names


def _constant_keys() -> set[str]:
    return {
        value
        for name, value in vars(stats).items()
        if name.isupper() and isinstance(value, str) and value.startswith("simdedup/")
    }


def _family_functions() -> dict[str, str]:
    """Name of each ``stats.py`` function making a key from one reason -> the key's prefix."""
    found = {}
    for name, function in vars(stats).items():
        if not inspect.isfunction(function) or function.__module__ != stats.__name__:
            continue
        parameters = list(inspect.signature(function).parameters.values())
        if len(parameters) == 1 and parameters[0].annotation == "str":
            found[name] = function("")
    return found


def _literal_reasons() -> set[str]:
    """Keys the package makes from a literal reason: ``url_unchecked("store_error")``."""
    families = _family_functions()
    keys = set()
    for module in (ROOT / "scrapy_simdedup").rglob("*.py"):
        for node in ast.walk(ast.parse(module.read_text("utf-8"))):
            if not (isinstance(node, ast.Call) and node.args):
                continue
            called = node.func
            name = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
            argument = node.args[0]
            if name in families and isinstance(argument, ast.Constant):
                keys.add(families[name] + str(argument.value))
    return keys


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built as CI builds it: a warning fails the build."""
    out = tmp_path_factory.mktemp("docs") / "html"
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(DOCS),
         str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=BUILD_SECONDS, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def test_the_docs_build_without_warnings(built: Path) -> None:
    for page in ("index", "getting-started", "how-it-decides", "settings", "stats",
                 "verdict-log", "operations", "failure-modes", "benchmarks", "known-limits",
                 "api"):  # fmt: skip
        html = (built / f"{page}.html").read_text("utf-8")
        # reST handed to the Markdown parser shows up as text: "<p>.. py:class::"
        assert "<p>.. " not in html, page


def test_the_python_api_is_generated_from_docstrings(built: Path) -> None:
    api = (built / "api.html").read_text("utf-8")
    for name in (
        "scrapy_simdedup.ContentSeenPipeline",
        "scrapy_simdedup.simhash",
        "scrapy_simdedup.judges.content.ContentJudge.judge",
        "scrapy_simdedup.audit.html.html_report",
        "scrapy_simdedup.errors.StoreError",
    ):
        assert f'id="{name}"' in api, name


def test_every_setting_is_in_the_generated_reference(built: Path) -> None:
    reference = (built / "settings.html").read_text("utf-8")
    for name in SETTINGS:
        assert f'id="{name.lower().replace("_", "-")}"' in reference, name
    assert "Default:" in reference


def test_no_page_names_a_setting_the_code_does_not_read() -> None:
    allowed = SETTINGS | _environment_names()
    for page in PAGES:
        text = page.read_text("utf-8")
        named = set(re.findall(r"\bSIMDEDUP_[A-Z_]*[A-Z]\b", text))
        typos = set(re.findall(r"(SIMDEDUP_\w+)\s+is not a scrapy-simdedup setting", text))
        assert named - typos <= allowed, (page.name, named - typos - allowed)


def test_every_stats_key_is_in_the_stats_reference() -> None:
    reference = (DOCS / "stats.md").read_text("utf-8")
    for key in _constant_keys():
        assert f"`{key}`" in reference, key
    for name, prefix in _family_functions().items():
        assert re.search(rf"`{re.escape(prefix)}<\w+>`", reference), (name, prefix)
    for key in _literal_reasons():
        prefix, reason = key.rsplit("/", 1)
        row = next(line for line in reference.splitlines() if f"`{prefix}/<" in line)
        assert f"`{reason}`" in row, key


def test_no_page_names_a_retired_stats_key() -> None:
    known = _constant_keys()
    families = tuple(_family_functions().values())
    for page in PAGES:
        for key in _KEY.findall(page.read_text("utf-8")):
            if key.endswith("/"):  # an area or a family: simdedup/url/reissued/<why>
                assert any(k.startswith(key) for k in known) or key.startswith(families), key
            else:
                assert key in known or key.startswith(families), (page.name, key)
