"""Pages whose banner a spider joins to their last sentence (``tests/test_dated_lines.py``)."""

from __future__ import annotations

import html

from benchmarks.corpora import english_articles


def articles(count: int) -> list[list[str]]:
    """Real paragraphs (Language Reference topics), with no figures in their last one."""
    found = []
    for text in english_articles(3000):
        parts = [" ".join(p.split()) for p in text.split("\n\n") if len(p.split()) >= 12]
        if len(parts) >= 4 and not any(c.isdigit() for c in parts[-1]):
            found.append(parts[:6])
    assert len(found) >= count, "the corpus changed"
    return found[:count]


def banner(view: int) -> str:
    """A footer that changes on every request: a time and a visit counter."""
    return f"generated at 2026-11-{view % 28 + 1:02d} {view % 24:02d}:17, view #{view * 7919}"


def paragraphs(article: list[str], last: str | None = None) -> list[str]:
    """The article's paragraphs, the last ending in a colon (or ``last``): a banner joined
    after them joins that sentence."""
    return [*article[:-1], last if last is not None else article[-1].rstrip(".") + ":"]


def joined(article: list[str], view: int, last: str | None = None) -> str:
    """The text as such a spider makes it: the paragraphs and the banner, with spaces."""
    return " ".join([*paragraphs(article, last), banner(view)])


def apart(article: list[str], view: int) -> str:
    """A page whose last paragraph ends with a full stop: the banner is a sentence of its own."""
    return joined(article, view, last=article[-1])


def html_page(title: str, body: list[str], view: int) -> str:
    """The page a site serves: its paragraphs, then the banner in its footer."""
    ps = "".join(f"<p>{html.escape(p)}</p>\n" for p in body)
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"</head><body><h1>{html.escape(title)}</h1>\n{ps}"
        f"<footer><p class='gen'>{banner(view)}</p></footer></body></html>"
    )
