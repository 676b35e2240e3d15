"""Edits told from new sentences, by the sentences' hashes alone."""

from __future__ import annotations

import pytest

from benchmarks.corpora import chinese_paragraphs, english_articles
from scrapy_simdedup.fingerprint.blocks import text_blocks
from scrapy_simdedup.judges.edits import (
    edited_anywhere,
    joined,
    retitled,
    spare_sentences,
)

ARTICLE = english_articles(3000)[0]
LONG_ZH = next(p for p in chinese_paragraphs() if p.count("。") >= 3 and len(p) > 200)


def blocks(text: str) -> tuple:
    return text_blocks(text, seed=11)


def test_a_long_sentence_with_characters_changed_is_an_edit_and_another_is_not() -> None:
    first, second = LONG_ZH.split("。")[:2]
    changed = first[:10] + "某" + first[11:20] + "该" + first[21:]
    (original,), (edit,), (other,) = blocks(first), blocks(changed), blocks(second)
    assert edited_anywhere(edit, [original])
    assert not edited_anywhere(other, [original])


def test_two_sentences_joined_by_an_edited_full_stop_are_theirs() -> None:
    first, second, third = LONG_ZH.split("。")[:3]
    stored = blocks(f"{first}。{second}。{third}。")
    page = blocks(f"{first}某{second}。{third}。")
    spare = spare_sentences(stored, page)
    assert joined(page[0], stored, spare)
    assert not joined(page[1], stored, spare)  # the third, as it is: no join


def test_a_sentence_the_page_has_as_it_is_is_no_source_of_an_edit() -> None:
    stored = blocks("One sentence that both pages hold.\nAnother sentence here now.")
    page = blocks("One sentence that both pages hold.\nOne sentence that both pages hold.")
    assert spare_sentences(stored, page) == {stored[1].exact}


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("Reprinted: a new heading for it\n{body}", 0),  # the old title replaced
        ("{title}\n{body}", None),  # the same title
        ("A long new first paragraph that a reader would call content of its own, "
         "which goes on for well over thirty words so that it is no title at all, and "
         "says something the stored page never said about the matter.\n{body}", None),
    ],
)  # fmt: skip
def test_a_new_title_in_place_of_the_old_is_found(page: str, expected: int | None) -> None:
    title, body = "An old heading for this page\n", "\n".join(ARTICLE.split("\n")[2:])
    stored = blocks(title + body)
    mine = blocks(page.format(title=title.strip(), body=body))
    exacts = {block.exact for block in mine}
    assert retitled(mine, stored, frozenset(), exacts) == expected
