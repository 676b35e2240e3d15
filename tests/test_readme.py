"""README.md is the front door: its commands are the ones CI runs, and they work pasted in
order in one shell."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text("utf-8")
MAX_LINES = 250


def _blocks(text: str) -> list[str]:
    """The fenced code blocks of a Markdown text."""
    return [block.strip() for block in re.findall(r"^```[\w-]*\n(.*?)^```", text, re.S | re.M)]


def _test_command() -> str:
    found = [block for block in _blocks(README) if "python3 -m pytest" in block and "ruff" in block]
    assert len(found) == 1, found
    return found[0]


def test_the_readme_test_command_is_the_one_ci_runs() -> None:
    ci = (ROOT / ".ci" / "run").read_text("utf-8").splitlines()
    assert _test_command() in ci


def test_the_demo_command_leaves_the_shell_where_it_was() -> None:
    """Pasted in order, the test command runs next in the repository's root: the demo's
    ``cd`` happens in a subshell."""
    demo = next(block for block in _blocks(README) if "run_demo.py" in block)
    outside = re.sub(r"\([^()]*\)", "", demo)
    assert "cd " not in outside, demo
    assert "(cd demo_project && python3 run_demo.py)" in demo


def test_the_demo_project_uses_the_settings_the_readme_shows() -> None:
    settings = (ROOT / "demo_project" / "simdedup_demo" / "settings.py").read_text("utf-8")
    shown = next(block for block in _blocks(README) if "ITEM_PIPELINES" in block)
    for line in shown.splitlines():
        assert line.split("  #")[0].strip() in settings, line


def test_the_readme_is_short() -> None:
    assert len(README.splitlines()) <= MAX_LINES


def test_the_readme_links_point_to_pages_that_exist() -> None:
    for target in re.findall(r"\]\(((?:docs/)[^)#]+)", README):
        assert (ROOT / target).exists(), target
