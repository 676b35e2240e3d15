"""A generated shop: product pages that share a long delivery block inside their content.

Each product has its own name, price, SKU and 30-word description; every product page also
carries the same 400-word "Delivery & returns" block inside ``<main>``, where no text
extractor can tell it from content. Some products are listed under a second URL, and a
mirror serves every product under another template: those are the true copies.
"""

from __future__ import annotations

import html
import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import ThreadingHTTPServer

from tests.support.htmlsite import html_handler

PRODUCTS = 60
ALIASED = range(0, PRODUCTS, 6)  # products also served at /item?id=N: copies on the shop
_WORDS_TEXT = (
    "oak walnut steel linen wool cotton brass copper glass leather bamboo cedar maple "
    "slate marble velvet canvas pine ash birch clay stone rattan cork felt jute hemp "
    "silk resin chair table lamp shelf stool bench desk cabinet mirror rug vase bowl "
    "basket clock sofa bed crate tray frame hook rail drawer trunk bin cart screen "
    "easel ladder planter kettle soft sturdy light heavy narrow wide tall low round "
    "square curved straight polished rough matte glossy warm cool bright dark pale "
    "deep quiet bold simple ornate classic modern hand crafted woven turned carved "
    "folded stitched brushed oiled waxed painted dyed glazed holds fits stacks folds "
    "rolls hangs stands rests opens closes locks slides tilts swivels kitchen hallway "
    "bedroom study garden porch attic studio nursery office library cellar"
)
_WORDS = _WORDS_TEXT.split()
_DELIVERY_WORDS_TEXT = (
    "orders parcels courier delivery returns refund days working address signature "
    "tracking customer service warehouse dispatch collection damaged faulty "
    "replacement packaging original condition receipt weekend holidays postcode "
    "islands surcharge express standard free above threshold within notify email "
    "reference number label prepaid inspection"
)
_DELIVERY_WORDS = _DELIVERY_WORDS_TEXT.split()


def delivery_block(rng: random.Random) -> str:
    """About 400 words in 25 sentences: the same on every product page."""
    sentences = []
    for _ in range(25):
        words = [rng.choice(_DELIVERY_WORDS + _WORDS[:40]) for _ in range(16)]
        sentences.append(" ".join(words).capitalize() + ".")
    return " ".join(sentences)


def products(seed: int = 7) -> list[dict[str, str]]:
    """Sixty distinct products: name, price, SKU and a 30-word description each."""
    rng = random.Random(seed)
    made: list[dict[str, str]] = []
    names: set[str] = set()
    while len(made) < PRODUCTS:
        name = " ".join(w.capitalize() for w in rng.sample(_WORDS, 3))
        if name in names:
            continue
        names.add(name)
        description = " ".join(
            " ".join(rng.choice(_WORDS) for _ in range(10)).capitalize() + "." for _ in range(3)
        )
        made.append(
            {
                "name": name,
                "price": f"{rng.randrange(5, 900)}.{rng.randrange(100):02d}",
                "sku": f"SKU {rng.randrange(10**6, 10**7)}",
                "description": description,
            }
        )
    return made


def product_html(product: dict[str, str], delivery: str, look: str) -> str:
    chrome = "Mirror Mall: all goods mirrored" if look == "mirror" else "Home Goods Shop"
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{product['name']}</title>"
        f"</head><body><header>{chrome}</header><nav><a href='/'>Home</a></nav><main>"
        f"<h1>{html.escape(product['name'])}</h1><p>Price: {product['price']} EUR</p>"
        f"<p>{product['sku']}</p><p>{html.escape(product['description'])}</p>"
        f"<section><h2>Delivery &amp; returns</h2><p>{html.escape(delivery)}</p></section>"
        f"</main><footer>{chrome} 2026</footer></body></html>"
    )


def shop_pages(look: str, seed: int = 7) -> dict[str, str]:
    """Path -> HTML of one shop (``look``: "shop" or "mirror")."""
    catalogue = products(seed)
    delivery = delivery_block(random.Random(seed + 1))
    pages = {f"/p/{i}": product_html(p, delivery, look) for i, p in enumerate(catalogue)}
    links = [f"/p/{i}" for i in range(PRODUCTS)]
    if look == "shop":
        for i in ALIASED:
            pages[f"/item?id={i}"] = pages[f"/p/{i}"]
            links.append(f"/item?id={i}")
    listing = "".join(f"<li><a href='{link}'>{link}</a></li>" for link in links)
    pages["/"] = f"<!doctype html><html><body><nav><ul>{listing}</ul></nav></body></html>"
    return pages


def product_of(url: str) -> int:
    """The product a crawled URL shows (its number), whichever site and URL form."""
    return int(url.rsplit("/", 1)[1] if "/p/" in url else url.rsplit("=", 1)[1])


@contextmanager
def serve_shops(seed: int = 7) -> Iterator[dict[str, str]]:
    """The shop and its mirror on 127.0.0.1 until the block ends; yields look -> URL."""
    servers = {
        look: ThreadingHTTPServer(("127.0.0.1", 0), html_handler(shop_pages(look, seed)))
        for look in ("shop", "mirror")
    }
    threads = [threading.Thread(target=s.serve_forever, daemon=True) for s in servers.values()]
    for thread in threads:
        thread.start()
    try:
        yield {look: f"http://127.0.0.1:{s.server_address[1]}/" for look, s in servers.items()}
    finally:
        for server in servers.values():
            server.shutdown()
            server.server_close()
