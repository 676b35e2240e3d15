"""The shape of a URL value: what kind of thing it is, whatever its exact value.

Two URLs of one template differ in values of the same shape (``/item/17`` and
``/item/42`` are both ``num``); session ids are ``hex``, archive pages ``date``. Shapes let
the URL fingerprint and the learned rules see a template through its values.
"""

from __future__ import annotations

import re

_SHAPES = (
    ("num", re.compile(r"\d{1,7}")),
    ("date", re.compile(r"(?:19|20)\d\d(?:[-_/.]?[01]\d(?:[-_/.]?[0-3]\d)?)?")),
    ("uuid", re.compile(r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}", re.I)),
    ("hex", re.compile(r"(?=[a-z]*\d)(?=\d*[a-f])[0-9a-f]{8,}", re.I)),
    ("token", re.compile(r"(?=.*\d)(?=.*[a-z])[0-9a-z_-]{16,}", re.I)),
    ("num", re.compile(r"\d+")),
    ("word", re.compile(r"[a-z]+(?:[-_][a-z]+)*", re.I)),
)
_EXTENSION = re.compile(r"^(.+?)(\.[a-z0-9]{1,5})$", re.I)


def value_shape(value: str) -> str:
    """``num``, ``date``, ``uuid``, ``hex``, ``token``, ``word``, ``empty`` or ``other``.

    >>> [value_shape(v) for v in ("42", "2026-11", "9f86d081884c7d65", "price", "")]
    ['num', 'date', 'hex', 'word', 'empty']
    """
    if not value:
        return "empty"
    stem = _EXTENSION.sub(r"\1", value)
    for name, pattern in _SHAPES:
        if pattern.fullmatch(stem):
            return name
    return "other"


def is_variable(value: str) -> bool:
    """True for values that look generated (numbers, dates, ids), not chosen words."""
    return value_shape(value) not in ("word", "empty", "other")


def extension(segment: str) -> str:
    """``.html`` of ``page.html``; empty when there is none."""
    match = _EXTENSION.match(segment)
    return match.group(2).lower() if match else ""
