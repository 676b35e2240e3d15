"""Edits told from new sentences, by the sentences' hashes alone."""

from __future__ import annotations

import pytest

from benchmarks.corpora import chinese_paragraphs, english_articles
from scrapy_simdedup.fingerprint.blocks import text_blocks
from scrapy_simdedup.judges.edits import (
    MAX_PAIR_TESTS,
    SANDWICHED_BITS,
    Unmatched,
    edited,
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
    unmatched = Unmatched((original,), {original.exact})
    assert edited_anywhere(edit, unmatched)
    assert not edited_anywhere(other, unmatched)


def test_two_sentences_joined_by_an_edited_full_stop_are_theirs() -> None:
    first, second, third = LONG_ZH.split("。")[:3]
    stored = blocks(f"{first}。{second}。{third}。")
    page = blocks(f"{first}某{second}。{third}。")
    spare = spare_sentences(stored, page)
    assert joined(page[0], Unmatched(stored, spare))
    assert not joined(page[1], Unmatched(stored, spare))  # the third, as it is: no join


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
        ("I read this every week, so here is what the paper said about it this time, "
         "with my notes.\n{body}", None),  # an opening of 20 words: no title
        ("A new heading of fifteen words for the reprint of this page on another "
         "site\n{body}", 0),
    ],
)  # fmt: skip
def test_a_new_title_in_place_of_the_old_is_found(page: str, expected: int | None) -> None:
    title, body = "An old heading for this page\n", "\n".join(ARTICLE.split("\n")[2:])
    stored = blocks(title + body)
    mine = blocks(page.format(title=title.strip(), body=body))
    exacts = {block.exact for block in mine}
    assert retitled(mine, stored, frozenset(), exacts) == expected


def test_sentences_are_compared_with_those_of_about_their_length_within_a_bound() -> None:
    # Found by word counts, an edit is compared with its source only, among 256 sentences
    # of other lengths. Among MAX_PAIR_TESTS unlike sentences of its own length, the bound
    # is spent first: the sentence then counts as new (a page kept, never dropped for it).
    first = LONG_ZH.split("。")[0]
    changed = first[:10] + "某" + first[11:20] + "该" + first[21:]
    (original,), (edit,) = blocks(first), blocks(changed)
    slack = max(2, original.words // 5)
    others = [
        b
        for b in blocks("\n".join(english_articles(3000)[:60]))
        if abs(b.words - edit.words) > slack
    ][:256]
    assert len(others) == 256
    unmatched = Unmatched((*others, original), {b.exact for b in (*others, original)})
    assert edited_anywhere(edit, unmatched)
    assert MAX_PAIR_TESTS - unmatched.tests_left == 1

    unlike = [
        original._replace(exact=n, simhash=~edit.simhash & (2**64 - 1), wordset=0)
        for n in range(1, MAX_PAIR_TESTS + 1)
    ]
    crowded = Unmatched((*unlike, original), {b.exact for b in (*unlike, original)})
    assert not edited_anywhere(edit, crowded)
    assert crowded.tests_left == 0
    assert edited_anywhere(edit, Unmatched((*unlike[:-1], original), {original.exact}))


def test_two_short_sentences_at_one_place_are_told_by_their_words_not_their_simhash() -> None:
    # A shop's item pages: the same template lines, then one sentence of 20 words each.
    # These two come 15 bits apart in SimHash under seed 28 (the bound for long sentences
    # at one place is 16), and share few words: item 58 was dropped as item 13's copy.
    before = "Assignment statements are used to bind names to values here.\n"
    mine = blocks_under(28, before + ITEM_58)
    theirs = blocks_under(28, before + ITEM_13)
    assert (mine[-1].simhash ^ theirs[-1].simhash).bit_count() <= SANDWICHED_BITS
    assert not mine[-1].similar_words(theirs[-1])
    places = {block.exact: [at] for at, block in enumerate(theirs)}
    spare = spare_sentences(theirs, mine)
    assert not edited(mine, len(mine) - 1, theirs, places, spare)
    # One word edited in place is still an edit.
    edit = blocks_under(28, before + ITEM_13.replace("guarantees", "promises"))
    assert edited(edit, len(edit) - 1, theirs, places, spare_sentences(theirs, edit))


ITEM_58 = (
    "Vary failures flag file attached expressing resolution prefixed numeric kinds informal "
    "resource purpose itself varies constructing again skip free searches."
)
ITEM_13 = (
    "Individual languages executable hashed directly guarantees existed define canceled "
    "target from leaves appropriately recommended declare aliases inverse direct cleanup init."
)


def blocks_under(seed: int, text: str) -> tuple:
    return text_blocks(text, seed=seed)
