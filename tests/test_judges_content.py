"""The content judge without a crawler: real LevelDB folders and the memory store."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks import portal
from benchmarks.corpora import english_articles
from scrapy_simdedup.fingerprint.block import NEAR_BITS
from scrapy_simdedup.fingerprint.blocks import text_blocks
from scrapy_simdedup.fingerprint.chrome import without_chrome
from scrapy_simdedup.fingerprint.simhash import hamming_distance, simhash
from scrapy_simdedup.index.handle import SimHashIndex
from scrapy_simdedup.index.opening import open_index
from scrapy_simdedup.judges.content import ContentJudge
from tests.support import reprints
from tests.support.stores import index_location

ARTICLE, OTHER, THIRD = english_articles(3000)[:3]
REPRINT = "Reprinted: " + ARTICLE + "\nEdited by Jane Smith."
ADDED_PARAGRAPH = (
    "A note from the maintainers: the behaviour described here changed in the last release, "
    "and older interpreters still raise the previous exception in these cases."
)


@pytest.fixture(params=["leveldb", "memory"])
def index(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SimHashIndex]:
    location = tmp_path / "pages" if request.param == "leveldb" else "memory"
    with open_index(location) as opened:
        yield opened


def test_a_new_page_is_stored_and_its_copy_named(index: SimHashIndex) -> None:
    judge = ContentJudge(index)
    first = judge.judge(ARTICLE, "https://a.example/story")
    assert (first.original, first.copy, first.found_by) == (None, False, None)
    copy = judge.judge(REPRINT, "https://b.example/copy")
    assert copy.copy and copy.original == "https://a.example/story"
    assert copy.found_by == "simhash"
    assert copy.confirmation is not None and copy.confirmation.similarity >= 0.8
    assert len(index) == 1  # the copy is not stored


def test_the_same_text_is_found_by_its_exact_hash(index: SimHashIndex) -> None:
    judge = ContentJudge(index)
    judge.judge(ARTICLE, "https://a.example/story")
    verdict = judge.judge("  " + ARTICLE.replace(" ", "\n  "), "https://b.example/story")
    assert (verdict.original, verdict.found_by, verdict.distance) == (
        "https://a.example/story",
        "exact",
        0,
    )


def test_a_revisit_is_never_a_copy(index: SimHashIndex) -> None:
    judge = ContentJudge(index)
    judge.judge(ARTICLE, "https://a.example/story")
    again = ContentJudge(index)  # a later run
    for text in (ARTICLE, ARTICLE + " One more sentence."):
        verdict = again.judge(text, "https://a.example/story")
        assert verdict.revisit and not verdict.copy


def test_a_short_text_is_compared_by_its_exact_hash_only(index: SimHashIndex) -> None:
    judge = ContentJudge(index)
    assert judge.judge("Home", "https://a.example/").exact_fallback
    verdict = judge.judge("Home", "https://b.example/")
    assert verdict.copy and verdict.original == "https://a.example/"  # by the shortcut
    assert not judge.judge("Contact", "https://c.example/").copy


def test_a_different_page_is_kept(index: SimHashIndex) -> None:
    judge = ContentJudge(index)
    judge.judge(ARTICLE, "https://a.example/1")
    assert not judge.judge(OTHER, "https://a.example/2").copy
    assert len(index) == 2


def test_explain_decides_as_judge_does_and_writes_nothing(index: SimHashIndex) -> None:
    judge = ContentJudge(index)
    judge.judge(ARTICLE, "https://a.example/story")
    size = len(index)
    explained = judge.explain(REPRINT)
    assert explained.copy and explained.original == "https://a.example/story"
    new = judge.explain(THIRD, "https://a.example/third")
    assert new.original is None
    assert len(index) == size
    assert index.exact_owner(judge.exact_hash(THIRD)) is None
    assert index.document("https://a.example/third") is None
    assert judge.judge(THIRD, "https://a.example/third").original is None  # as explained


def test_explain_follows_the_sentence_path(tmp_path: Path) -> None:
    # An edited copy whose SimHash lands over k bits away is met through its sentences,
    # by the crawl and by explain alike.
    from pydoc_data.topics import topics

    other, original = topics["typesseq"], topics["typesseq-mutable"]
    copy = original.replace(" the ", " this ", 1) + "\n\nNote from the mirror team."
    seed = next(s for s in range(5000) if _far(original, copy, s))
    with open_index(tmp_path / "pages", seed=seed) as index:
        judge = ContentJudge(index)
        judge.judge(other, "https://a.example/typesseq")
        judge.judge(original, "https://a.example/mutable")
        explained = judge.explain(copy, "https://b.example/mutable")
        assert (explained.original, explained.found_by) == (
            "https://a.example/mutable",
            "sentences",
        )
        judged = judge.judge(copy, "https://b.example/mutable")
        assert (judged.original, judged.found_by) == ("https://a.example/mutable", "sentences")
        assert index.document("https://b.example/mutable") is None


def _far(original: str, copy: str, seed: int) -> bool:
    """More than k bits apart as the judge fingerprints them (chrome lines left out)."""
    first, second = without_chrome(original), without_chrome(copy)
    return hamming_distance(simhash(first, seed=seed), simhash(second, seed=seed)) > 3


def test_release_forgets_a_page_stored_in_this_run(index: SimHashIndex) -> None:
    judge = ContentJudge(index)
    judge.judge(ARTICLE, "https://a.example/story")
    assert judge.release("https://a.example/story")
    assert len(index) == 0
    assert index.exact_owner(judge.exact_hash(ARTICLE)) is None
    assert not judge.release("https://a.example/story")
    assert not judge.judge(REPRINT, "https://b.example/copy").copy  # nothing blocks it


def test_release_leaves_pages_of_earlier_runs(index: SimHashIndex) -> None:
    ContentJudge(index).judge(ARTICLE, "https://a.example/story")
    assert not ContentJudge(index).release("https://a.example/story")
    assert len(index) == 1


def test_a_page_without_a_key_is_keyed_by_its_text(index: SimHashIndex) -> None:
    judge = ContentJudge(index)
    verdict = judge.judge(ARTICLE, None)
    assert verdict.key.startswith("text:") and verdict.original is None
    assert judge.judge(ARTICLE, None).repeated_key  # in this run: a copy
    assert ContentJudge(index).judge(ARTICLE, None).revisit  # in a later one


def test_a_second_page_with_one_key_in_one_run_is_a_copy(index: SimHashIndex) -> None:
    judge = ContentJudge(index)
    judge.judge(ARTICLE, "https://a.example/story")
    again = judge.judge(OTHER, "https://a.example/story")
    assert again.copy and again.repeated_key and again.original == "https://a.example/story"
    judge.release("https://a.example/story")  # a later pipeline dropped the first
    assert not judge.judge(ARTICLE, "https://a.example/story").copy


def test_a_cut_reprint_first_then_the_full_original_keeps_both(index: SimHashIndex) -> None:
    lines = ARTICLE.split("\n")
    cut = "\n".join(lines[: len(lines) * 4 // 5])  # the reprint cuts the last fifth
    judge = ContentJudge(index)
    assert not judge.judge(cut, "https://portal.example/reprint").copy
    full = judge.judge(ARTICLE, "https://news.example/original")
    assert not full.copy  # it carries what the reprint cut
    if full.confirmation is not None:
        assert full.confirmation.contains > full.confirmation.contained
        assert full.confirmation.direction == "stored_in_page"


def test_an_unconfirmed_candidate_is_named_with_its_distance(index: SimHashIndex) -> None:
    # 0.97: found by its sentences (SimHash far, under about 1 seed in 900) the edit's
    # similarity came out at 0.953, a copy at 0.95
    # A word in 60 edited is no new content; the paragraph added is.
    judge = ContentJudge(index, confirm_similarity=0.97)
    judge.judge(ARTICLE, "https://a.example/story")
    words = ARTICLE.split(" ")
    edited = " ".join("banana" if at % 60 == 7 else word for at, word in enumerate(words))
    edited += "\n" + ADDED_PARAGRAPH
    verdict = judge.judge(edited, "https://b.example/story")
    assert (verdict.copy, verdict.unconfirmed, verdict.original) == (False, True, None)
    assert verdict.adds_content
    assert verdict.candidate == "https://a.example/story"
    assert verdict.found_by in ("simhash", "sentences")
    assert verdict.distance == hamming_distance(
        index.fingerprint_text(ARTICLE).simhash or 0, index.fingerprint_text(edited).simhash or 0
    )
    assert verdict.confirmation is not None
    assert 0.5 < verdict.confirmation.similarity < 0.97
    # the paragraph, and at most a short edited sentence not told from a new one (under 2
    # seeds of 60, one of 6-7 words)
    assert 0 <= verdict.confirmation.novel_words - len(ADDED_PARAGRAPH.split()) <= 10
    assert verdict.confirmation.length_ratio > 0.9  # "banana" replaced stop words too


@pytest.mark.parametrize(
    "edit",
    [
        lambda text: "Reprinted: A Guide To The Language\n" + text,
        lambda text: text + "\nEdited by Jane Smith.",
        lambda text: "Reprinted: A Guide To The Language\n" + text + "\nEdited by Jane Smith.",
    ],
    ids=["retitled", "editor-line", "both"],
)
def test_a_retitled_or_signed_reprint_is_still_a_copy(index: SimHashIndex, edit: Any) -> None:
    judge = ContentJudge(index)
    judge.judge(ARTICLE, "https://news.example/original")
    verdict = judge.judge(edit(ARTICLE), "https://portal.example/reprint")
    assert verdict.copy and verdict.original == "https://news.example/original"
    assert verdict.confirmation is not None
    assert verdict.confirmation.direction == "page_in_stored"


FERRY = (
    "Harbour ferry timetable changes for the winter season announced",
    "The harbour authority announced on Monday that the winter timetable for the island "
    "ferries will start two weeks earlier than usual, after a survey of passengers found "
    "that most trips in November carried fewer than twenty people.",
    "Ferries to the northern islands will run twice a day instead of four times, and the "
    "late crossing on Fridays will be kept for commuters, the authority said, adding that "
    "the summer service would return in April as before.",
)
OPENING = (
    "I take this ferry every week to visit my mother, so this news from the harbour "
    "authority matters a lot to me and to my family this winter."
)


@pytest.mark.parametrize("words", [16, 20, 26])
def test_a_blog_opening_before_a_quoted_story_is_no_new_title(
    index: SimHashIndex, words: int
) -> None:
    # A blog quotes a short story whole (its title left out), between an opening of its
    # own and an 11-word closing. At 30 words a "new title", the opening added nothing,
    # and the post was dropped as the story's copy.
    body = FERRY[1:]
    opening = " ".join(OPENING.split()[:words]).rstrip(",.") + "."
    closing = "Let us hope the Friday boat stays on schedule this time."
    judge = ContentJudge(index)
    judge.judge("\n".join(FERRY), "https://news.example/ferry")
    verdict = judge.judge("\n".join([opening, *body, closing]), "https://blog.example/ferry")
    assert not verdict.copy
    assert verdict.confirmation is not None and verdict.confirmation.novel_words >= words
    # Under a new title of its own, the story is still the copy.
    reprint = judge.judge(
        "\n".join(["Ferries cut back for the winter", *body]), "https://portal.example/f"
    )
    assert reprint.copy and reprint.original == "https://news.example/ferry"


def test_siblings_beside_a_long_shared_text_are_no_copies_of_each_other(
    index: SimHashIndex,
) -> None:
    # Two models of one product line: a long series text (not yet known as the template)
    # and, each, a name and a pitch the other lacks: 5% of the page is 85 words, each has
    # about 30 of its own. A reprint that also lost its old title lacks a few words only.
    first = (
        "Aurora 13 laptop for students. The lightest model we make weighs one kilogram and "
        "fits in any bag. Its battery lasts a full day of lectures and a long train ride home.\n"
    )
    second = (
        "Aurora 17 Studio workstation. A desktop replacement with a colour accurate screen "
        "for video editors. It drives three external monitors and renders long films fast.\n"
    )
    judge = ContentJudge(index)
    assert not judge.judge(first + ARTICLE, "https://shop.example/13").copy
    sibling = judge.judge(second + ARTICLE, "https://shop.example/17")
    assert not sibling.copy and sibling.adds_content
    assert sibling.confirmation is not None and sibling.confirmation.lacking_words >= 20
    reprint = judge.judge("Reprinted on a portal\n" + ARTICLE, "https://portal.example/17")
    assert reprint.copy  # it lacks the first model's name and pitch, and adds nothing
    # (its first line takes the place of the model's name: a new title, no new content)
    assert reprint.confirmation is not None and reprint.confirmation.novel_words <= 4
    # (a short sentence may pass for an edit of another by chance, under some seeds)
    assert 20 <= reprint.confirmation.lacking_words <= len(first.split())


def _shop_pages() -> list[tuple[str, str]]:
    from scrapy_simdedup.fingerprint.pagetext import page_text
    from tests.support.shop import shop_pages

    pages = []
    for look, base in (("shop", "https://shop.example"), ("mirror", "https://mirror.example")):
        for path, markup in shop_pages(look).items():
            text = page_text(markup)
            if path != "/":
                pages.append((base + path, text.split("\n", 1)[0] + "\n" + text))
    return pages


@pytest.mark.parametrize("seed", range(12))
def test_a_shared_delivery_block_makes_no_product_a_copy(seed: int) -> None:
    # Sixty products share a 400-word block inside their content; in any order and with
    # any store seed, each product is kept once and each true copy (a second URL on the
    # shop, the mirror's page) is dropped as a copy of the same product.
    import random

    from tests.support.shop import PRODUCTS, product_of

    pages = _shop_pages()
    random.Random(seed).shuffle(pages)
    with open_index("memory", seed=seed) as index:
        judge = ContentJudge(index)
        kept: list[int] = []
        for url, text in pages:
            verdict = judge.judge(text, url)
            if verdict.copy:
                assert verdict.original is not None
                assert product_of(verdict.original) == product_of(url), verdict
            else:
                kept.append(product_of(url))
    assert sorted(kept) == list(range(PRODUCTS))


@pytest.mark.parametrize("seed", range(8))
def test_story_gone_notices_listing_other_links_are_one_page(seed: int) -> None:
    # A news site answers 200 "this story is no longer available" for four stories, each
    # notice followed by links to the next ten stories printed as their paths. Kept apart
    # for their links (1 run of 2 in random orders), the notices passed for pages of
    # their own, and a mirror's story at their paths was skipped on them and lost.
    from scrapy_simdedup.fingerprint.pagetext import page_text
    from tests.support import urlsites

    site = urlsites.mirror_with_soft_404s()["original"]
    paths = sorted(site.pages)
    random.Random(seed).shuffle(paths)
    with open_index("memory", seed=seed) as index:
        judge = ContentJudge(index)
        kept = []
        for path in paths:
            text = page_text(urlsites.render("original", path, site.pages[path]))
            verdict = judge.judge(text, "https://news.example" + path)
            if not verdict.copy:
                kept.append(site.pages[path].content)
    assert sorted(kept) == sorted(site.distinct())  # one notice, every story


def test_pages_that_differ_only_by_the_one_address_they_lead_to_are_both_kept(
    index: SimHashIndex,
) -> None:
    # A "you are leaving our site" page per outbound link, on one template: each is about
    # its address (a list of addresses is chrome; one alone is not).
    judge = ContentJudge(index)
    notice = (
        "You are now leaving the Example Bank website. The site you are going to is run by "
        "another company, whose privacy and security policies differ from ours. We are not "
        "responsible for its content, its products or its services. Continue to:\n"
    )
    first = judge.judge(notice + "https://vendor-a.example/shoes/123", "https://bank.example/out/1")
    second = judge.judge(notice + "https://other-b.example/tax/guide", "https://bank.example/out/2")
    assert not first.copy and not second.copy, second


def test_template_blocks_find_no_candidates_and_are_counted_in_the_store(tmp_path: Path) -> None:
    from scrapy_simdedup.fingerprint.pagetext import page_text
    from tests.support.shop import shop_pages

    pages = shop_pages("shop")
    with open_index(tmp_path / "pages") as index:
        judge = ContentJudge(index)
        for number in range(5):
            judge.judge(page_text(pages[f"/p/{number}"]), f"https://shop.example/p/{number}")
    with open_index(tmp_path / "pages") as index:  # a later run knows the template
        judge = ContentJudge(index)
        done = judge.fingerprinted(page_text(pages["/p/9"]))
        templates = judge.templates(done, "https://shop.example/p/9")
        assert len(templates.own) >= 20  # the delivery block's sentences
        skipped = templates.skipped_sentences
        assert judge.sentence_candidates(done, "https://shop.example/p/9", skipped) == []
        assert not judge.explain(page_text(pages["/p/9"]), "https://shop.example/p/9").copy


def test_two_items_with_one_key_fingerprinted_at_once_are_one_page(index: SimHashIndex) -> None:
    # Both passed the shortcut before either was decided (the helper process had them).
    judge = ContentJudge(index)
    key = "https://a.example/story"
    exact = judge.exact_hash(ARTICLE)
    assert judge.shortcut(exact, key) is None and judge.shortcut(exact, key) is None
    done = judge.fingerprinted(ARTICLE, exact)
    assert not judge.decide(done, key).copy
    assert judge.decide(done, key).repeated_key


def test_a_long_sentence_with_one_word_changed_is_an_edit_under_every_seed(tmp_path: Path) -> None:
    """One word changed in a sentence of 34 words moves its SimHash 13-14 bits under a few
    seeds in a thousand, beyond word sets' reach; between the same two sentences on both
    pages it is still an edit, and the reprint a copy (CI kept such a reprint twice)."""
    rng = random.Random(3)
    vocabulary = reprints.vocabulary()

    def sentence(words: int) -> str:
        return " ".join(rng.choice(vocabulary) for _ in range(words)).capitalize() + "."

    lines = [sentence(18), sentence(20), sentence(34), sentence(19), sentence(21)]
    edited = list(lines)
    words = edited[2].split()
    words[10] = "different"
    edited[2] = " ".join(words)
    original, copy = "\n".join(lines), "\n".join(edited)

    def moved(seed: int) -> int:
        return (
            text_blocks(original, seed)[2].simhash ^ text_blocks(copy, seed)[2].simhash
        ).bit_count()

    seed = next(s for s in range(5000) if moved(s) > NEAR_BITS)
    with open_index(tmp_path / "pages", seed=seed) as index:
        judge = ContentJudge(index)
        judge.judge(original, "https://a.example/1")
        verdict = judge.judge(copy, "https://b.example/1")
    assert verdict.copy, verdict.confirmation


def test_a_revisited_page_whose_text_changed_owns_its_new_sentences(
    kind: str, tmp_path: Path
) -> None:
    """A later run stores the page's new text under its URL (the look-up moves it, on a
    shared store without claiming); a reprint of the new text that only shared sentences
    find is still a copy of it, on every store."""
    with open_index(index_location(kind, tmp_path)) as index:
        old, _ = reprints.pairs(1)[0]
        ContentJudge(index).judge(old, "https://a.example/page")
        seed = index.seed
        new, reprint = next(
            (text, copy)
            for text, copy in reprints.pairs(40)[1:]
            if _far(text, copy, seed) and _far(old, text, seed)
        )
        later = ContentJudge(index)  # the next run
        assert later.judge(new, "https://a.example/page").original is None  # new text
        stored = index.document("https://a.example/page")
        assert stored is not None and stored.fingerprint == simhash(new, seed=seed)
        verdict = later.judge(reprint, "https://b.example/reprint")
        assert (verdict.copy, verdict.original) == (True, "https://a.example/page")
        assert verdict.found_by == "sentences"


def test_a_new_page_is_stored_in_two_atomic_writes(
    index: SimHashIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its record, tables and sentences in one batch, then its template counts with its
    exact entry (last: never an exact entry without its page). Each store write is a
    write to LevelDB's log; four of them per page cost the crawl's process measurably."""
    judge = ContentJudge(index)
    judge.judge(OTHER, "https://a.example/other")
    store = index._open().store
    batches: list[set[bytes]] = []
    write = store.write

    def counted(puts: Any, deletes: Any = ()) -> None:
        batches.append({key[:1] for key in puts})
        write(puts, deletes)

    monkeypatch.setattr(store, "write", counted)
    verdict = judge.judge(ARTICLE, "https://a.example/story")
    assert verdict.original is None
    assert len(batches) == 2
    assert {b"d", b"t", b"s"} <= batches[0] and b"x" not in batches[0]
    assert batches[1] >= {b"b", b"x"}
    assert judge.shortcut(judge.exact_hash(ARTICLE), "https://b.example/x") is not None


def _articles(language: str, count: int) -> list[portal.Article]:
    """Real articles: People's Daily (Chinese) or Language Reference topics (English)."""
    if language == "chinese":
        return portal.chinese_news(count)
    found = []
    for text in english_articles(3000):
        parts = [" ".join(p.split()) for p in text.split("\n\n") if len(p.split()) >= 12]
        if len(parts) >= 6:
            found.append(portal.Article(text.split("\n")[0], tuple(parts[:10]), chinese=False))
    return found[:count]


def _words(lines: list[str]) -> int:
    """Words as a page's blocks count them: a CJK character is one, and a sentence of fewer
    than four words between two longer ones (a footnote mark, "[2].") is none."""
    return sum(block.words for block in text_blocks("\n".join(lines), 0))


@pytest.mark.parametrize("language", ["chinese", "english"])
def test_containment_both_ways_counts_what_a_line_diff_shows(
    index: SimHashIndex, language: str
) -> None:
    # A cut reprint after its full original adds nothing: a copy, lacking what was cut.
    # The full original after its cut reprint adds what was cut: kept. Both counts are the
    # words of the paragraphs cut, as a diff of the two texts shows them.
    rng = random.Random(3)
    judge = ContentJudge(index)
    for n, article in enumerate(_articles(language, 4)):
        cut = portal.cut(article.paragraphs, rng)
        gone = [p for p in article.paragraphs if p not in cut]
        full_key, cut_key = f"https://news.example/{n}", f"https://portal.example/{n}"
        shortened = "\n".join((article.title, *cut))
        if n % 2:
            judge.judge(article.text, full_key)
            verdict = judge.judge(shortened, cut_key)
            assert verdict.copy and verdict.original == full_key
            assert verdict.confirmation is not None
            assert verdict.confirmation.lacking_words == _words(gone)
            assert verdict.confirmation.novel_words == 0
        else:
            judge.judge(shortened, cut_key)
            verdict = judge.judge(article.text, full_key)
            assert not verdict.copy and verdict.adds_content
            assert verdict.confirmation is not None
            assert verdict.confirmation.novel_words == _words(gone)
            assert verdict.confirmation.lacking_words == 0


@pytest.mark.parametrize("language", ["chinese", "english"])
def test_a_reprint_in_a_portals_chrome_is_a_copy_and_its_chrome_is_named(
    index: SimHashIndex, language: str
) -> None:
    articles = _articles(language, 4)
    rng = random.Random(5)
    judge = ContentJudge(index)
    for n, article in enumerate(articles):
        judge.judge(article.text, f"https://news.example/{n}")
    for n, article in enumerate(articles):  # a portal met for the first time
        top, bottom = portal.portal_chrome(article, articles, rng)
        title = portal.new_title(article, rng)
        page = "\n".join([*top, title, *article.paragraphs, *bottom])
        verdict = judge.judge(page, f"https://portal.example/{n}")
        assert verdict.copy and verdict.original == f"https://news.example/{n}"
        judged = verdict.confirmation
        assert judged is not None
        # A new title in place of the old is no content; in place of none, its words.
        assert judged.novel_words <= _words([title])
        # Chrome, told by its lines on the first pages, then learned as the template too.
        assert judged.chrome_words + judged.template_words >= _words(top + bottom) * 0.8


@pytest.mark.parametrize("language", ["chinese", "english"])
def test_a_page_that_is_a_small_part_of_a_larger_one_is_kept(
    index: SimHashIndex, language: str
) -> None:
    # One article after a digest that carries it among others; two articles merged after
    # one of them (that one adds a whole article).
    articles = _articles(language, 4)
    judge = ContentJudge(index)
    digest = "\n".join(a.text for a in articles[:3])
    assert not judge.judge(digest, "https://news.example/digest").copy
    for n, article in enumerate(articles[:3]):
        verdict = judge.judge(article.text, f"https://news.example/{n}")
        assert not verdict.copy, (n, verdict.confirmation)
    merged = f"{articles[0].text}\n{articles[3].text}"
    verdict = judge.judge(merged, "https://portal.example/merged")
    assert not verdict.copy and verdict.adds_content
    assert verdict.confirmation is not None
    # (a sentence of one topic may pass for an edit of another's: a few words)
    added = _words(articles[3].text.split("\n"))
    assert added * 0.95 <= verdict.confirmation.novel_words <= added


def test_a_mirror_banner_with_a_counter_is_its_template_from_the_third_page(
    index: SimHashIndex,
) -> None:
    # No lexicon word in it: the banner is learned, its figures masked. A line with other
    # figures than the host's stored page has (a ticker's new count) is new text until it
    # is the host's template: the second copy is kept.
    articles = _articles("english", 6)
    judge = ContentJudge(index)
    for n, article in enumerate(articles):
        judge.judge(article.text, f"https://docs.example/{n}")
    kept = []
    for n, article in enumerate(articles):
        banner = (
            f"Snapshot {1000 + 37 * n} of this archive, taken 2026-0{n + 1}-1{n} 0{n}:1{n}:0{n} "
            f"by the archive service of Example Labs for its {400 + n} readers."
        )
        verdict = judge.judge(f"{banner}\n{article.text}", f"https://archive.example/{n}")
        if not verdict.copy:
            kept.append(n)
    assert kept == [0, 1]


VENUE = (
    "The Riverside Hall opened in 1932 and seats 2,400 people across the stalls and two "
    "balconies.\nDoors open one hour before the show, and the bar on the first floor serves "
    "drinks and light food until the interval.\nThe hall is a ten minute walk from the "
    "central station, and the car park on Mill Lane is free after six.\nWheelchair spaces "
    "can be booked by phone, and hearing loops are fitted in every part of the auditorium."
)
DRILL = (
    "The Acme cordless drill is built for tradespeople who work all day on site and need a "
    "tool that keeps going.\nIts brushless motor delivers steady torque in hardwood, steel "
    "and masonry, and the all-metal chuck holds bits firmly.\nEvery drill comes with two "
    "batteries, a fast charger and a hard carrying case with room for bits and screws."
)


@pytest.mark.parametrize(
    "pages",
    [
        [  # an event's own first line on a venue's shared description (not a new title)
            f"{event}\n{VENUE}"
            for event in (
                "The Hollow Pines in concert, Friday 12 May at 8pm, tickets from 25 pounds",
                "Cardiff Philharmonic plays Mahler 5, Saturday 13 May at 7.30pm",
                "Stand-up night with Jo Kerr and guests, Sunday 14 May at 8pm",
            )
        ],
        [  # a product line: one description, the specs differ in their figures alone
            f"Acme Drill D{volts}0\n{DRILL}\nVoltage: {volts} V, max torque: {torque} Nm, "
            f"weight: {weight} kg, battery: {battery} Ah, price: {price} dollars"
            for volts, torque, weight, battery, price in (
                (12, 30, 1.1, 2.0, 89), (18, 60, 1.6, 4.0, 149), (36, 120, 2.4, 6.0, 329)
            )
        ],
        [  # a daily report: its one line of its own holds a date (counted with its figures
           # masked in the site's template from the third page on)
            f"On 2026-11-0{day} the high was {high} degrees and the low {low} degrees, with "
            f"winds of {wind} km/h from the north-west.\n{english_articles(3000)[5][:3000]}"
            for day, high, low, wind in ((1, 12, 5, 20), (2, 14, 6, 25), (3, 9, 2, 40),
                                         (4, 16, 8, 10))
        ],
    ],
    ids=["events", "product-line", "daily-report"],
)  # fmt: skip
def test_pages_of_one_site_sharing_a_description_are_all_kept(
    index: SimHashIndex, pages: list[str]
) -> None:
    # Seen in review: a short first line passed for a new title, and a spec line that
    # differs in its figures for an edit of another's, with no similarity needed.
    judge = ContentJudge(index)
    for n, text in enumerate(pages):
        verdict = judge.judge(text, f"https://site.example/page/{n}")
        assert not verdict.copy, (n, verdict.confirmation)


def test_what_a_long_page_adds_after_its_cut_version_is_seen(index: SimHashIndex) -> None:
    # A partial mirror cut a long reference page at 43,000 characters; crawled first, it
    # made the full page (66,000) a copy, and its last third was in no kept page. Past
    # the first 256 sentences, a sample chosen by the sentences' hashes is a block too.
    from scrapy_simdedup.fingerprint.blocks import MAX_BLOCKS, text_blocks

    full = "\n".join(english_articles(2000))[:66_000]
    cut = full[: full.rindex("\n", 0, 43_000)]
    assert len(text_blocks(cut, index.seed)) > MAX_BLOCKS  # the cut alone fills the window
    judge = ContentJudge(index)
    assert not judge.judge(cut, "https://partial.example/expressions").copy
    verdict = judge.judge(full, "https://docs.example/expressions")
    assert not verdict.copy and verdict.adds_content
    # The other way round, the cut version is its full page's copy.
    assert judge.judge(cut, "https://mirror.example/expressions").copy


@pytest.mark.parametrize("cut_at", [43_000, 100_000, 180_000])
def test_a_long_pages_sample_holds_its_cut_versions(cut_at: int) -> None:
    # The test above failed for one store seed in seven when the sample was the first 64
    # of one sentence in eight, full before the cut's end. Whatever the seed, the cut's
    # blocks are all the full page's (no word of the cut is new beside it), and up to
    # 100,000 characters the full page has 12 words of its own past the cut in its sample
    # (the sparser levels reach that far; further on, see docs/known-limits.md; with a
    # window of 256 blocks, 4 seeds in 40 missed them at 100,000).
    full = "\n".join(english_articles(6000))[: cut_at * 3 // 2]
    cut = full[: full.rindex("\n", 0, cut_at)]
    for seed in range(40):
        full_blocks = {block.exact: block for block in text_blocks(full, seed)}
        cut_blocks = {block.exact for block in text_blocks(cut, seed)}
        assert cut_blocks <= set(full_blocks), seed
        own = sum(full_blocks[exact].words for exact in set(full_blocks) - cut_blocks)
        assert cut_at > 100_000 or own >= 12, (seed, own)


def test_a_long_pages_own_ending_is_seen_beside_a_page_with_thousands_of_sentences_more() -> None:
    # Seen in review: a sample of the smallest hashes, compared up to the other page's
    # largest, dropped a long article with 150 comments of its own as a copy of the same
    # article stored with 10,000 others (its comments were past the stored page's reach).
    import re

    sentences = [
        s for a in english_articles(500) for line in a.splitlines()
        for s in re.split(r"(?<=\.)\s+", line.strip()) if len(s.split()) >= 8 and s.endswith(".")
    ]  # fmt: skip
    article = list(dict.fromkeys(sentences))[:300]
    vocabulary = sorted({w for s in sentences for w in re.findall(r"[a-z]{4,}", s)})

    def comments(count: int, seed: int) -> list[str]:
        rng = random.Random(seed)
        return [
            " ".join(rng.sample(vocabulary, rng.randint(4, 6))).capitalize() + "."
            for _ in range(count)
        ]

    def page(lines: list[str]) -> str:
        return "\n\n".join(" ".join(lines[n : n + 4]) for n in range(0, len(lines), 4))

    stored, other = page(article + comments(10_000, 1)), page(article + comments(150, 2))
    for seed in range(6):
        with open_index("memory", seed=seed) as index:
            judge = ContentJudge(index)
            assert not judge.judge(stored, "https://a.example/story").copy
            verdict = judge.judge(other, "https://b.example/story")
            assert not verdict.copy and verdict.adds_content, seed


def test_a_section_after_a_first_section_of_short_sentences_is_no_cut_reprint(
    index: SimHashIndex,
) -> None:
    # The Language Reference's "naming" topic is "execmodel" from its second section on,
    # two thirds of it; execmodel's first section is a paragraph of short sentences. On
    # another host it is a page of its own (a demo crawl dropped it as a cut reprint when
    # only long sentences counted before the first one held).
    from pydoc_data.topics import topics

    judge = ContentJudge(index)
    assert not judge.judge(topics["execmodel"], "https://docs.example/execmodel").copy
    verdict = judge.judge(topics["naming"], "https://mirror.example/naming")
    assert not verdict.copy
    assert verdict.confirmation is not None and 0.5 < verdict.confirmation.covers < 0.75


def test_a_page_with_fifty_candidates_confirms_a_few_and_finds_its_original(
    index: SimHashIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A templated shop: 90 item pages of 200 shared sentences and one sentence each, all
    # within a few bits of each other. An item's URL variant, one word edited, has them
    # all for SimHash candidates; it is confirmed against MAX_CONFIRMED of them at most,
    # its own item first (the shingles tell it from its siblings), and dropped.
    from scrapy_simdedup.judges import candidates, content

    template, vocabulary, own = _shop()
    judge = ContentJudge(index)
    for n, sentence in enumerate(own):
        assert not judge.judge(f"{template}\n{sentence}.", f"https://shop.example/item/{n}").copy
    variant = f"{template}\n{own[37].replace(own[37].split()[3], 'changed', 1)}."
    done = judge.fingerprinted(variant)
    assert done.fingerprint.simhash is not None
    assert len(done.blocks) > 200
    assert len(index.query(done.fingerprint.simhash)) >= 50  # the candidates, as built

    confirmed: list[str] = []
    real_confirm = content.confirm

    def counted(*args: Any, **kwargs: Any) -> Any:
        confirmed.append("one")
        return real_confirm(*args, **kwargs)

    monkeypatch.setattr(content, "confirm", counted)
    verdict = judge.judge(variant, "https://shop.example/item/37?session=9")
    assert verdict.copy and verdict.original == "https://shop.example/item/37"
    assert 1 <= len(confirmed) <= candidates.MAX_CONFIRMED
    # A distinct item of the same shop is kept, after MAX_CONFIRMED confirmations at most.
    confirmed.clear()
    other = " ".join(random.Random(99).sample(vocabulary, 20)).capitalize()
    assert not judge.judge(f"{template}\n{other}.", "https://shop.example/item/99").copy
    assert len(confirmed) <= candidates.MAX_CONFIRMED


def _shop() -> tuple[str, list[str], list[str]]:
    """A templated shop: 200 shared sentences, and 90 items' own sentences of 20 words drawn
    from the same vocabulary (the template, the vocabulary, the own sentences)."""
    import re

    sentences = [
        s for a in english_articles(6000) for line in a.splitlines()
        for s in re.split(r"(?<=\.)\s+", line) if len(s.split()) >= 8
    ]  # fmt: skip
    vocabulary = sorted({w for s in sentences for w in re.findall(r"[a-z]{4,}", s)})
    own = [" ".join(random.Random(n).sample(vocabulary, 20)).capitalize() for n in range(90)]
    return "\n".join(sentences[:200]), vocabulary, own


@pytest.mark.parametrize("seed", [87, 120])
def test_no_shop_item_is_taken_for_a_sibling_whose_sentence_is_near_by_chance(seed: int) -> None:
    # Under these store seeds two items' own sentences, unrelated, came close by chance:
    # word sets sharing 13 of 17 bits (seed 87), SimHashes 10 bits apart (seed 120). Each
    # sits after the same template line, so it read as the sibling's sentence edited in
    # place, and the item was dropped. Word sets and SimHash must now agree.
    template, _, own = _shop()
    with open_index("memory", seed=seed) as index:
        judge = ContentJudge(index)
        for n, sentence in enumerate(own):
            verdict = judge.judge(f"{template}\n{sentence}.", f"https://shop.example/item/{n}")
            assert not verdict.copy, (n, verdict.original, verdict.confirmation)


def _long_chapter() -> tuple[list[str], list[str]]:
    """A long Chinese chapter (about 270 blocks) and 90 links to other stories, as the
    main-content extract marks them (about 130 blocks): a portal's "more news" column."""
    from benchmarks.corpora import chinese_articles
    from scrapy_simdedup.fingerprint.linklines import LINK_MARK

    articles = chinese_articles(1500, limit=400)
    chapter = [line for text in articles[:8] for line in text.splitlines() if line.strip()]
    column = [LINK_MARK + text.split("。")[0] for text in articles[100:190]]
    return chapter, column


def test_a_long_chapter_reprinted_in_a_lighter_page_than_its_originals_is_its_copy(
    index: SimHashIndex,
) -> None:
    # One Chinese page in seven has more than 256 blocks. The original carries its site's
    # long column above the chapter, the reprint a menu line: with a window of 256 blocks
    # the original's held the chapter's first part in full and a sample of the rest, the
    # reprint's a larger part in full, which then seemed its own (kept, 130 sentences "new").
    from scrapy_simdedup.fingerprint.blocks import MAX_BLOCKS

    chapter, column = _long_chapter()
    original = "\n".join([*column, *chapter])
    reprint = "\n".join(["首页 新闻 财经 体育 娱乐 科技 汽车 房产 读书 教育", "长篇连载", *chapter])
    judge = ContentJudge(index)
    assert not judge.judge(original, "https://news.example.cn/chapter/1").copy
    verdict = judge.judge(reprint, "https://portal.example.cn/read/1")
    assert verdict.copy, verdict.confirmation
    # What such a reprint adds at the chapter's end is seen: it is kept.
    note = "编者按：本文转载时作者对第三部分的数据作了更正，并补充了两位受访者的最新说明。"
    added = judge.judge(f"{reprint}\n{note}", "https://other.example.cn/read/1")
    assert not added.copy and added.adds_content, added.confirmation
    assert 256 < len(text_blocks(original, index.seed)) <= MAX_BLOCKS  # the pages as built
