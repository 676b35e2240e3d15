"""The edits that turn a page into its copy elsewhere on the web, for tests and benchmarks."""

from __future__ import annotations

import random
from collections.abc import Iterator

EN_FOOTER = (
    "Copyright 2024 Example Mirror Network. All rights reserved. Privacy policy. Terms of use."
)
ZH_FOOTER = "版权所有 本网站 未经授权禁止转载 联系我们 广告服务"


def english_copies(text: str, rng: random.Random) -> Iterator[tuple[str, str]]:
    words = text.split(" ")
    i = rng.randrange(len(words))
    yield "changed word", " ".join([*words[:i], "banana", *words[i + 1 :]])
    yield "new title", "Reprinted: A Guide To The Language\n" + text
    yield "editor line", text + "\nEdited by Jane Smith."
    yield "added footer", text + "\n" + EN_FOOTER


def chinese_copies(text: str, rng: random.Random) -> Iterator[tuple[str, str]]:
    i = rng.randrange(len(text))
    yield "changed character", text[:i] + "某" + text[i + 1 :]
    yield "new title", "新华社消息：我国经济发展取得新成就\n" + text
    yield "editor line", text + "\n（责任编辑：王小明）"
    yield "added footer", text + "\n" + ZH_FOOTER
