"""URL SimHash: weighted structural features, so that bit distance means something.

Seed 003 weighs host 4, path 3, params 2, fragment and scheme 0.5. Then the host outvotes
everything else in a URL without a query: every URL of one host gets one fingerprint, and a
mirror's copy of a page (another host) is far away. Here the host is not a feature at all
(it is the scope within which URLs are compared), and each component gives several
comparable features:

* each path segment by position and value (weight 3) and by position and shape (2);
* the number of segments and the last segment's extension (1 each);
* each query parameter's name (2), name=value (1.5) and name:shape (1);
* the scheme (0.5). Fragments are dropped by canonicalisation: they never reach a server.

So ``/about`` and ``/products/42/reviews`` are far apart, ``/item/17`` and ``/item/42``
close, and a URL with an extra session id is a few bits from the URL without it.
"""

from __future__ import annotations

from functools import lru_cache

from scrapy_simdedup.fingerprint.simhash import DEFAULT_SEED, simhash_weights
from scrapy_simdedup.url.parts import UrlParts
from scrapy_simdedup.url.shapes import extension, value_shape

SEGMENT_VALUE = 3.0
SEGMENT_SHAPE = 2.0
STRUCTURE = 1.0
PARAM_NAME = 2.0
PARAM_VALUE = 1.5
PARAM_SHAPE = 1.0
SCHEME = 0.5


def url_features(parts: UrlParts) -> dict[str, float]:
    """Feature -> weight for the URL fingerprint (see the module docstring)."""
    features: dict[str, float] = {
        f"scheme:{parts.scheme}": SCHEME,
        f"depth:{len(parts.segments)}": STRUCTURE,
    }
    for position, segment in enumerate(parts.segments):
        features[f"p{position}={segment}"] = SEGMENT_VALUE
        features[f"p{position}:{value_shape(segment)}"] = SEGMENT_SHAPE
    if parts.segments:
        features[f"ext:{extension(parts.segments[-1])}"] = STRUCTURE
    for name, value in parts.params:
        features[f"k:{name}"] = PARAM_NAME
        features[f"k:{name}={value}"] = PARAM_VALUE
        features[f"k:{name}:{value_shape(value)}"] = PARAM_SHAPE
    return features


def url_simhash(parts: UrlParts, seed: int = DEFAULT_SEED) -> int:
    """The 64-bit SimHash of ``url_features(parts)``, hashed with the store's ``seed``."""
    return simhash_weights(url_features(parts), seed=seed)


def path_template(parts: UrlParts) -> str:
    """Host and path with generated values replaced by their shape: ``h/calendar/{date}``.

    Words stay literal (``/docs/{word}`` would merge every page of a docs site); numbers,
    dates and ids become ``{shape}``. Query parameters are not part of it.
    """
    shaped = []
    for segment in parts.segments:
        shape = value_shape(segment)
        shaped.append(segment if shape in ("word", "other", "empty") else f"{{{shape}}}")
    return parts.host + "/" + "/".join(shaped)


@lru_cache(maxsize=4096)
def section_template(parts: UrlParts) -> str:
    """``path_template`` without its last segment: ``h/forum/thread/`` for any thread.

    The scope of a parameter rule: ``?page=`` that changes nothing on ``/article/{int}``
    says nothing about ``/forum/thread/{int}``. Remembered for the latest URLs: a request
    is checked against each of its host's parameter rules, one section per rule.
    """
    template = path_template(parts)
    return template[: template.rfind("/") + 1]
