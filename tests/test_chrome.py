"""Page chrome: lines a portal or a mirror prints around any article, told from content."""

from __future__ import annotations

import pytest

from scrapy_simdedup.fingerprint.chrome import is_chrome, without_chrome


@pytest.mark.parametrize(
    "line",
    [
        "首页 > 新闻中心 > 国内新闻 > 正文",
        "来源：人民日报 时间：2026-03-04 12:00:01 浏览：3281次 作者：本报记者",
        "（责任编辑：王小明）",
        "分享到：微信 微博 QQ空间 复制链接",
        "上一篇：我国经济发展取得新成就",
        "Copyright © 2003-2026 环球资讯网 版权所有 京ICP备05012345号",
        "免责声明：本文转载自其他媒体，转载目的在于传递更多信息，并不代表本网赞同其观点和对其真实性负责。",
        "Home > News > World > Article",
        "Source: The Daily Reference | Published: 2026-03-04 12:00:01 | Views: 3,281",
        "Edited by Jane Smith for the web desk.",
        "Share this article: Facebook Twitter LinkedIn Email Print",
        "Previous article: The harbour reopens after three weeks",
        "Copyright 2003-2026 Global News Portal. All rights reserved.",
        "Disclaimer: This article is reprinted from other media. It does not mean that this "
        "site agrees with its views or is responsible for its authenticity.",
        "This page has been viewed 2255257 times.",
        "Posted by dave on 14 May",
        "Page generated 2026-08-25 14:30:41 in 391 ms, request 35bf992dc9e9c616.",
    ],
)
def test_chrome_lines_are_chrome(line: str) -> None:
    assert is_chrome(line)


@pytest.mark.parametrize(
    "line",
    [
        # A marker inside a paragraph is content: an article about copyright, an update with
        # a date and figures, a long Chinese paragraph naming its source.
        "The court ruled that copyright does not extend to facts, and the publisher appealed "
        "on Monday after a long hearing.",
        "Update 2026-11-27 10:00: the death toll rose to 3,000 and rescue teams reached the "
        "northern valley.",
        "据新华社北京１２月３１日电（记者罗玉文）来源于各地的统计表明，今年全国粮食总产量再创"
        "新高，农民人均纯收入比上年增长百分之四点六，农村经济保持了持续发展的良好势头。"
        "各地在抓好粮食生产的同时，大力发展多种经营和乡镇企业，增加了农民收入。",
        "/usr/bin/python3 runs the script, and the shebang line names it.",
        "See https://example.org/report for the full report of the inquiry.",
        "Next, the parser dispatches to the sub-parser named on the command line.",
        # Markers that start sentences of content too: chrome only in a short line.
        "Police said a video of the rescue, posted on social media late on Wednesday, "
        "showed a man carried from the water.",
        "Reply posted by dave on 14 May: same on Ubuntu 22.04, pinning 3.1 works for me too.",
        "Facebook and Twitter said they removed the accounts after the report on Monday.",
        "Last edited by ann: the fix is to pin the driver to 3.1 and restart the service.",
        "Residents views: the new bridge is welcome but the tolls are far too high for us.",
        "A page of digits: " + "1," * 20_000,
        "Photographs of the rescue by Anna Berg © will be shown at the town library from Monday.",
        "来源：水利局称，本次洪水共淹没房屋412间，37人被救出，另有两人下落不明。",
        "记者：张伟 现场报道，洪水已退去一半，居民开始返回家中清理。",
        "The meeting on 2026-11-27 drew 3,000 people to the square.",
        "",
    ],
)
def test_content_is_not_chrome(line: str) -> None:
    assert not is_chrome(line)


def test_without_chrome_keeps_the_article_and_a_page_of_chrome_alone() -> None:
    article = "The harbour reopens\nAfter three weeks of repairs the ferries left on time."
    page = f"Home > News > Local\n{article}\nEdited by Jane Smith.\nAll rights reserved."
    assert without_chrome(page) == article
    assert without_chrome(article) == article
    only_chrome = "Home > News\nAll rights reserved."
    assert without_chrome(only_chrome) == only_chrome  # never judged on nothing


@pytest.mark.parametrize(
    "line",
    [
        # One short line per kind of label: each is found (a label is looked for only in
        # lines holding one of a few words, case folded, which these must all pass).
        "来源：新华社", "稿源：本报", "发布时间 2026-11-27", "时间：10:00", "浏览：3281",
        "阅读 12", "点击: 5", "12 次浏览", "字号：大 中 小", "VIEWS: 3", "3,281 Views",
        "Viewed 12 times", "Visitor number 5", "Page Generated", "generated in 0.3 s",
        "Last Updated", "PUBLISHED: today", "Source: AP", "Updated: now", "责任编辑：王明",
        "编辑：李华", "作者：张三", "记者：赵四", "Editor: Jane",
        "Vİews: 3", "Edıtor: Ann",  # (a dotted capital I, a dotless i: as re folds them)
    ],
)  # fmt: skip
def test_each_kind_of_label_makes_a_short_line_chrome(line: str) -> None:
    assert is_chrome(line)


def test_a_list_of_addresses_is_chrome_and_a_lone_address_is_content() -> None:
    # Related links printed as their paths (two or more in a row) are navigation; a
    # page about one address ("you are leaving this site for ...") is about it.
    related = "\n".join(
        ["Story gone", "This story is no longer available.", "/story/19.html", "",
         "https://news.example.org/2026/11/27/bridge-reopens?ref=related",
         "www.example.org/about", "Back to the news"]
    )  # fmt: skip
    assert (
        without_chrome(related)
        == "Story gone\nThis story is no longer available.\n\nBack to the news"
    )
    leaving = "You are leaving our site for\nhttps://vendor-a.example/shoes/123\nContinue"
    assert without_chrome(leaving) == leaving
