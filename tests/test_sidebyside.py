"""Two texts side by side: differing words marked, chrome and template lines told apart."""

from __future__ import annotations

from scrapy_simdedup.audit.sidebyside import Line, side_by_side, template_lines


def _marked(lines: tuple[Line, ...]) -> list[str]:
    return [word for line in lines for word, differs in line.pieces if differs]


def test_only_the_words_that_differ_are_marked() -> None:
    shown = side_by_side("The river rose two metres overnight.", "The river rose three metres.")
    assert _marked(shown.left) == ["two", "overnight"]
    assert _marked(shown.right) == ["three"]
    assert not shown.cut


def test_chinese_is_compared_character_by_character() -> None:
    shown = side_by_side("今天北京下雨了", "今天上海下雨了")
    assert _marked(shown.left) == ["北", "京"]
    assert _marked(shown.right) == ["上", "海"]


def test_chrome_and_template_lines_are_told_from_content() -> None:
    text = "Home > News > World\nThe river rose two metres overnight in the towns.\nShop rules"
    shown = side_by_side(text, text, frozenset({"Shop rules"}))
    assert [line.kind for line in shown.left] == ["chrome", "content", "template"]
    assert not _marked(shown.left)


def test_template_lines_are_those_of_three_pages_of_a_host() -> None:
    texts = {
        f"http://a.example/{n}": f"Story {n} is about rivers.\nPosted 2026-11-0{n} 10:00"
        for n in range(1, 4)
    }
    texts["http://b.example/1"] = "Posted 2026-11-01 10:00"
    found = template_lines(texts)
    assert len(found["a.example"]) == 1  # the dated line, its figures masked
    assert found["b.example"] == frozenset()


def test_long_texts_are_cut() -> None:
    assert side_by_side("word " * 5_000, "word").cut


def test_a_menu_read_from_links_is_chrome_and_marks_are_not_shown() -> None:
    from scrapy_simdedup.fingerprint.linklines import MARKS, marked_lines

    left = marked_lines(
        '<p><a href="/">Home</a> | <a href="/n">News</a> | <a href="/s">Sport</a></p>\n'
        "<p>The ferry ran on time.</p>"
    )
    shown = side_by_side(left, "The ferry ran on time.")
    assert [line.kind for line in shown.left] == ["chrome", "content"]
    assert not any(word in MARKS for line in shown.left for word, _ in line.pieces)
