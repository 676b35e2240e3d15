"""Main-content extractors on whole-page HTML: what each keeps of the article and of the chrome.

    python3 benchmarks/extractors.py [--count 40]

Issue 33: for HTML items, extract the main content before judging. The pages are built from
``portal.py`` and laid into the HTML a site really serves:

* **news** (Chinese and English): the portal's reprint as ``portal.reprint`` writes it
  ("typical": new title, a few characters changed, breadcrumb, "source / time / views" line,
  editor line, share bar, previous/next links, copyright and disclaimer), inside a page with a
  ``<head>``, a top bar, a logo and a menu, a "most read" sidebar naming other articles, a
  comment box and a footer of links. Half the pages use plain ``<div class=...>`` (as most
  Chinese portals do), half HTML5 landmarks (``<header>``, ``<nav>``, ``<aside>``, ...).
* **short**: the same with the first three paragraphs of the article only; **brief**: with
  its first two paragraphs only (a news flash).
* **product**: a shop's page whose content is a name, a description of 40 words and a spec
  table, among the shop's menu, "customers also viewed", reviews and footer.
* **docs**: a documentation page (standard-library docstrings) in a Sphinx-like layout,
  wrapped in a mirror's banner and footer (``portal.mirror_banner``).

Per extractor and kind of page: **recall**, the share of the content's words (title and
paragraphs; for products also the spec table) found in the extracted text; **chrome**, the
share of the chrome's words found there; **empty**, pages that gave fewer than 5 words;
**lost**, pages whose recall is below 50%. Words are English words and Chinese character
bigrams; a word counts for the content or the chrome only if the other side lacks it.
**ms**: the median CPU time per page (``time.process_time``), every extractor timed on the
same pages in the same run. ``page_text`` is the plugin's whole-page text today (it drops
``nav``/``header``/``footer``/``aside`` and their ARIA roles). Rows "→ fallback" apply the
rule proposed in the issue's notes: use the whole-page text when the extract has fewer than
``MIN_WORDS`` words or less than ``MIN_SHARE`` of the whole-page text's words.
"""

from __future__ import annotations

import argparse
import logging
import random
import re
import statistics
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import portal  # noqa: E402
from scrapy_simdedup.fingerprint.pagetext import page_text  # noqa: E402

MIN_WORDS = 20
MIN_SHARE = 0.25
_WORD = re.compile(r"[a-z0-9]+|[\u3400-\u9fff\uf900-\ufaff]+")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def words(text: str) -> Counter[str]:
    """English words (lower case) and Chinese character bigrams (a lone character as itself)."""
    found: Counter[str] = Counter()
    for run in _WORD.findall(text.lower()):
        if _CJK.match(run):
            found.update(run[i : i + 2] for i in range(max(1, len(run) - 1)))
        else:
            found[run] += 1
    return found


@dataclass
class Page:
    kind: str
    html: str
    content: list[str] = field(default_factory=list)
    chrome: list[str] = field(default_factory=list)


# ---- pages ----------------------------------------------------------------------------

_LABELS = {
    True: {
        "site": "环球资讯网", "top": "欢迎访问环球资讯网 登录 注册 设为首页 加入收藏 手机版",
        "menu": ["首页", "国内", "国际", "财经", "科技", "体育", "娱乐", "汽车", "房产", "视频"],
        "hot": "阅读排行", "comments": "网友评论", "post": "发表评论", "ad": "广告 招商热线",
        "said": ["说得好，支持一下！", "希望有关部门尽快落实到位。", "转发了，值得一读。"],
        "links": ["关于我们", "联系我们", "广告服务", "网站地图", "招聘信息", "投稿邮箱"],
    },
    False: {
        "site": "Global News Portal", "top": "Sign in Register Subscribe Newsletter Mobile app",
        "menu": ["Home", "World", "Business", "Markets", "Tech", "Sport", "Culture",
                 "Travel", "Opinion", "Video"],
        "hot": "Most read", "comments": "Reader comments", "post": "Post comment",
        "ad": "Advertisement Advertise with us",
        "said": ["Great piece, thanks for sharing this.", "I disagree with the second point.",
                 "Bookmarked for later reading."],
        "links": ["About us", "Contact", "Careers", "Sitemap", "Privacy policy", "Terms of use"],
    },
}  # fmt: skip


def _links(texts: list[str], tag: str = "li") -> str:
    return "".join(f'<{tag}><a href="/x/{i}">{escape(t)}</a></{tag}>' for i, t in enumerate(texts))


def _ps(lines: tuple[str, ...] | list[str]) -> str:
    return "".join(f"<p>{escape(line)}</p>" for line in lines)


def news_page(
    article: portal.Article, others: list[portal.Article], rng: random.Random, html5: bool
) -> Page:
    """The portal's "typical" reprint of ``article`` laid into a whole news page."""
    lines = portal.reprint(article, others, "typical", rng).split("\n")
    crumb, info, title, *rest = lines
    body, (editor, share, previous, following, copyright, disclaimer) = rest[:-6], rest[-6:]
    label = _LABELS[article.chinese]
    hot = [a.title for a in rng.sample(others, min(8, len(others)))]
    said = rng.sample(label["said"], 2)
    tags = ("header", "nav", "main", "article", "aside", "footer") if html5 else ("div",) * 6
    header, nav, main, art, aside, footer = tags
    html = f"""<!DOCTYPE html><html><head><meta charset="utf-8">
<title>{escape(title)}_{label["site"]}</title>
<meta name="description" content="{escape(body[0][:60])}">
<link rel="stylesheet" href="/s/main.css"><script>var _hmt = _hmt || [];</script></head>
<body><div class="topbar">{escape(label["top"])}</div>
<{header} class="header"><div class="logo"><a href="/"><img src="/logo.png"
 alt="{label["site"]}"></a></div>
<{nav} class="menu"><ul>{_links(label["menu"])}</ul></{nav}>
<div class="search"><input type="text" name="q"><a class="btn" href="/s">Go</a></div></{header}>
<div class="crumb">{escape(crumb)}</div>
<div class="wrap"><{main} class="main_left"><{art} class="article">
<h1 class="title">{escape(title)}</h1><div class="info">{escape(info)}</div>
<div class="content" id="text">{_ps(body)}</div>
<div class="editor">{escape(editor)}</div>
<div class="share">{escape(share)}</div>
<div class="pagenav"><p><a href="/n/p">{escape(previous)}</a></p>
<p><a href="/n/n">{escape(following)}</a></p></div>
<div class="comment"><h3>{label["comments"]}</h3>
<div class="c-item"><span class="user">user_{rng.randint(100, 999)}</span><p>{said[0]}</p></div>
<div class="c-item"><span class="user">user_{rng.randint(100, 999)}</span><p>{said[1]}</p></div>
<textarea name="c"></textarea><a class="btn" href="#">{label["post"]}</a></div>
</{art}></{main}>
<{aside} class="main_right"><div class="hot"><h3>{label["hot"]}</h3>
<ul>{_links(hot)}</ul></div><div class="ad">{label["ad"]}</div></{aside}></div>
<{footer} class="footer"><div class="links">{_links(label["links"], "span")}</div>
<p class="copyright">{escape(copyright)}</p><p class="disclaimer">{escape(disclaimer)}</p>
</{footer}></body></html>"""
    chrome = [label["top"], *label["menu"], crumb, info, editor, share, previous, following,
              label["comments"], *said, label["post"], label["hot"], *hot, label["ad"],
              *label["links"], copyright, disclaimer]  # fmt: skip
    return Page("", html, [title, *body], chrome)


_SPECS = {
    True: ["型号", "颜色", "材质", "尺寸", "重量", "产地"],
    False: ["Model", "Colour", "Material", "Dimensions", "Weight", "Made in"],
}
_VALUES = {
    True: [["黑色", "银色", "深蓝"], ["不锈钢", "铝合金", "食品级塑料"], ["中国广东", "中国浙江"]],
    False: [["black", "silver", "navy"], ["stainless steel", "aluminium", "BPA-free plastic"],
            ["Portugal", "Vietnam", "Mexico"]],
}  # fmt: skip
_SHOP = {
    True: ("首页 家居 厨具 户外 数码 优惠 购物车 登录", "看了又看", "加入购物车 立即购买",
           "满99元包邮 七天无理由退货", "商品评价 好评率98%", "关于我们 售后服务 隐私政策 "
           "© 2026 优品商城 版权所有"),
    False: ("Home Kitchen Outdoor Electronics Deals Cart Sign in", "Customers also viewed",
            "Add to cart Buy now", "Free delivery over 50 Returns within 30 days",
            "Customer reviews 4.6 out of 5", "About Returns policy Privacy Contact "
            "© 2026 Example Shop Ltd"),
}  # fmt: skip


def product_page(article: portal.Article, others: list[portal.Article], rng: random.Random) -> Page:
    """A product: a name, 40 words of description and a spec table, in a shop's chrome."""
    chinese = article.chinese
    text = " ".join(article.paragraphs)
    description = text[:70] if chinese else " ".join(text.split()[:40])
    name = (article.title[:10] + "保温杯") if chinese else " ".join(text.split()[40:44]) + " kit"
    values = [f"SKU-{rng.randint(1000, 9999)}", *(rng.choice(v) for v in _VALUES[chinese][:2]),
              f"{rng.randint(5, 40)} x {rng.randint(5, 40)} cm", f"{rng.randint(100, 999)} g",
              rng.choice(_VALUES[chinese][2])]  # fmt: skip
    rows = "".join(
        f"<tr><th>{k}</th><td>{escape(v)}</td></tr>"
        for k, v in zip(_SPECS[chinese], values, strict=True)
    )
    menu, viewed, buy, delivery, reviews, foot = _SHOP[chinese]
    also = [("" if chinese else "Deluxe ") + a.title[:24] for a in rng.sample(others, 5)]
    price = f"¥{rng.randint(20, 900)}.00"
    html = f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>{escape(name)}</title>
</head><body><div class="top"><div class="logo"><img src="/l.png" alt="shop"></div>
<div class="nav">{_links(menu.split(), "span")}</div></div>
<div class="crumbs">{_links(menu.split()[:3], "span")}</div>
<div class="product"><div class="gallery"><img src="/p/1.jpg" alt=""></div>
<div class="detail"><h1>{escape(name)}</h1><div class="price">{price}</div>
<div class="desc"><p>{escape(description)}</p></div>
<table class="specs">{rows}</table>
<div class="buy"><button>{buy}</button></div><div class="ship">{delivery}</div></div></div>
<div class="side"><h3>{viewed}</h3><ul>{_links(also)}</ul></div>
<div class="reviews"><h3>{reviews}</h3></div>
<div class="foot">{escape(foot)}</div></body></html>"""
    content = [name, description, *_SPECS[chinese], *values]
    return Page("", html, content, [menu, viewed, *also, buy, delivery, reviews, foot])


def docs_page(document: str, others: list[str], index: int, rng: random.Random) -> Page:
    """A documentation page in a Sphinx-like layout, inside a mirror's banner and footer."""
    blocks = [" ".join(b.split()) for b in document.split("\n\n") if b.strip()]
    title, body = blocks[0][:80], blocks[1:13]
    banner, mirror_footer = portal.mirror_banner(rng, f"/d/{index}")
    toc = [o.split("\n", 1)[0][:60] for o in rng.sample(others, 6)]
    related = ["index", "modules", "next", "previous", "Python 3.14 Documentation"]
    foot = "© Copyright 2001-2026, Python Software Foundation. Created using Sphinx 8.2."
    html = f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>{escape(title)}</title>
</head><body><div class="mirror-banner">{escape(banner)}</div>
<div class="related" role="navigation"><ul>{_links(related)}</ul></div>
<div class="document"><div class="body" role="main"><h1>{escape(title)}</h1>{_ps(body)}</div></div>
<div class="sphinxsidebar"><h3>Table of Contents</h3><ul>{_links(toc)}</ul>
<h3>Quick search</h3><input type="text" name="q"></div>
<div class="footer">{escape(foot)}</div><div class="mirror-footer">{escape(mirror_footer)}</div>
</body></html>"""
    chrome = [banner, *related, "Table of Contents", *toc, "Quick search", foot, mirror_footer]
    return Page("docs", html, [title, *body], chrome)


def pages(count: int) -> list[Page]:
    # stdlib_documents imports every top-level module on sys.path: not this script's siblings.
    here = str(Path(__file__).resolve().parent)
    sys.path[:] = [entry for entry in sys.path if str(Path(entry or ".").resolve()) != here]
    from benchmarks.quality import stdlib_documents

    rng = random.Random(33)
    built = []
    for language, articles in (("zh", portal.chinese_news(2 * count)),
                               ("en", portal.english_news(2 * count))):  # fmt: skip
        chosen = (("news", articles[:count], 12), ("short", articles[count:], 3),
                  ("brief", articles[count // 2 : count // 2 + count], 2))  # fmt: skip
        for kind, some, size in chosen:
            for i, whole in enumerate(some):
                article = portal.Article(whole.title, whole.paragraphs[:size], whole.chinese)
                page = news_page(article, articles, rng, html5=i % 2 == 1)
                page.kind = f"{kind} {language}"
                built.append(page)
        for article in articles[:count]:
            page = product_page(article, articles, rng)
            page.kind = f"product {language}"
            built.append(page)
    documents = [d for d in stdlib_documents() if len(d) >= 1500][: 2 * count]
    built += [docs_page(d, documents, i, rng) for i, d in enumerate(documents[:count])]
    return built


# ---- extractors -----------------------------------------------------------------------


def _trafilatura(**options: bool) -> Callable[[str], str]:
    import trafilatura

    def extract(html: str) -> str:
        text = trafilatura.extract(html, include_comments=False, include_tables=True, **options)
        return text or ""

    return extract


def _resiliparse(main_content: bool) -> Callable[[str], str]:
    from resiliparse.extract.html2text import extract_plain_text

    def extract(html: str) -> str:
        return str(extract_plain_text(html, main_content=main_content, comments=False,
                                      preserve_formatting=True))  # fmt: skip

    return extract


def _justext(html: str) -> str:
    import justext

    # No Chinese stoplist ships; jusText's language-independent mode (an empty stoplist,
    # stop-word thresholds 0) is what its command line does without one.
    if _CJK.search(html[html.find("<body") :][:4000]):
        found = justext.justext(html, frozenset(), stopwords_low=0, stopwords_high=0)
    else:
        found = justext.justext(html, justext.get_stoplist("English"))
    return "\n".join(p.text for p in found if not p.is_boilerplate)


def _readability(html: str) -> str:
    from lxml import html as lxml_html
    from readability import Document

    summary = Document(html).summary(html_partial=True)
    return str(lxml_html.fromstring(summary).text_content()) if summary.strip() else ""


EXTRACTORS: dict[str, Callable[[str], str]] = {
    "page_text (today)": page_text,
    "trafilatura": _trafilatura(),
    "trafilatura fast": _trafilatura(fast=True),
    "trafilatura fast recall": _trafilatura(fast=True, favor_recall=True),
    "trafilatura precision": _trafilatura(favor_precision=True),
    "resiliparse main": _resiliparse(True),
    "resiliparse all": _resiliparse(False),
    "justext": _justext,
    "readability-lxml": _readability,
}
FALLBACK = ("trafilatura fast", "resiliparse main", "justext", "readability-lxml")


def with_fallback(extracted: str, whole: str) -> str:
    """The extract, or the whole-page text when the extract is too small to be the content."""
    got, total = sum(words(extracted).values()), sum(words(whole).values())
    return whole if got < MIN_WORDS or got < MIN_SHARE * total else extracted


# ---- measuring ------------------------------------------------------------------------


@dataclass
class Tally:
    recall: list[float] = field(default_factory=list)
    chrome: list[float] = field(default_factory=list)
    empty: int = 0
    lost: int = 0
    cpu: list[float] = field(default_factory=list)

    def add(self, page: Page, text: str, cpu: float | None) -> None:
        content, chrome = words("\n".join(page.content)), words("\n".join(page.chrome))
        own = Counter({w: n for w, n in content.items() if w not in chrome})
        furniture = Counter({w: n for w, n in chrome.items() if w not in content})
        got = words(text)
        recall = _share(own, got)
        self.recall.append(recall)
        self.chrome.append(_share(furniture, got))
        self.empty += sum(got.values()) < 5
        self.lost += recall < 0.5
        if cpu is not None:
            self.cpu.append(cpu)


def _share(wanted: Counter[str], got: Counter[str]) -> float:
    total = sum(wanted.values())
    return sum(min(n, got[w]) for w, n in wanted.items()) / total if total else 1.0


def measure(built: list[Page]) -> dict[tuple[str, str], Tally]:
    """Every extractor on every page, interleaved, so that each sees the same machine."""
    tallies: dict[tuple[str, str], Tally] = {}
    for extract in EXTRACTORS.values():  # warm up: imports, lazy tables, compiled XPaths
        extract(built[0].html)
    for page in built:
        texts = {}
        for name, extract in EXTRACTORS.items():
            started = time.process_time()
            texts[name] = extract(page.html)
            cpu = 1000 * (time.process_time() - started)
            for kind in (page.kind, "all"):
                tallies.setdefault((name, kind), Tally()).add(page, texts[name], cpu)
        for name in FALLBACK:
            text = with_fallback(texts[name], texts["page_text (today)"])
            for kind in (page.kind, "all"):
                tallies.setdefault((f"{name} → fallback", kind), Tally()).add(page, text, None)
    return tallies


def table(tallies: dict[tuple[str, str], Tally], kinds: list[str]) -> Iterator[str]:
    names = list(dict.fromkeys(name for name, _ in tallies))
    head = "".join(f" | {kind:^19}" for kind in kinds)
    yield f"{'extractor':<36}{head} | {'ms':>5}"
    yield f"{'':<36}{' | recall chrome  e/l ' * len(kinds)} |"
    for name in names:
        cells = []
        for kind in kinds:
            t = tallies[(name, kind)]
            cells.append(f" | {statistics.mean(t.recall):6.3f} {statistics.mean(t.chrome):6.3f}"
                         f" {t.empty:>2}/{t.lost:<2}")  # fmt: skip
        cpu = [ms for kind in kinds for ms in tallies[(name, kind)].cpu]
        ms = f"{statistics.median(cpu):5.2f}" if cpu else "    -"
        yield f"{name:<36}{''.join(cells)} | {ms}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=40, help="pages of each kind")
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)  # trafilatura and readability log every short page
    warnings.simplefilter("ignore")
    built = pages(args.count)
    tallies = measure(built)
    kinds = list(dict.fromkeys(page.kind for page in built))
    print(f"{len(built)} pages, {args.count} of each kind; recall/chrome: mean share of words;")
    print("e/l: pages with an empty extract / with under half the content; ms: median CPU ms")
    print(f"fallback: whole-page text if < {MIN_WORDS} words or < {MIN_SHARE:.0%} of its words\n")
    chinese = [kind for kind in kinds if kind.endswith(" zh")]
    for group in (chinese, [k for k in kinds if k not in chinese], ["all"]):
        print("\n".join(table(tallies, group)), end="\n\n")


if __name__ == "__main__":
    main()
