"""What each copy the judge kept on real pages counted as new, seen when the stream met it.

    python3 benchmarks/kept_copies.py --sets DIR [--language en] [--half held-out]
                                      [--rows edited,cut] [--lines]

Replays ``realpages.py``'s streams as ``reprint_quality.py --sets`` judges them (the same
seeds, a real ContentSeenPipeline on a memory index) and, for each copy row's page that
was kept, compares it with its stored original the moment before its verdict: later
pages change the hosts' templates, so a comparison made after the stream says nothing
of the verdict. Per kept copy: the confirmation of its main content and of its stricter
reading (``fingerprint/stricter.py``): novel words, covers, similarity. ``--lines`` adds
the sentences counted as new (those no edit test matched), each with its words. Pick
what to work on by the classes these show, on the tuning half; report both halves.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

if TYPE_CHECKING:
    from benchmarks.realpages import RealCase
    from scrapy_simdedup.fingerprint.block import Block
    from scrapy_simdedup.judges.confirmation import Confirmation


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", required=True, help="a folder with clones of the real sets")
    parser.add_argument("--language", default="en", choices=("en", "zh"))
    parser.add_argument("--half", default="held-out", choices=("tune", "held-out"))
    parser.add_argument("--rows", default="chrome,edited,cut", help="copy rows, comma-separated")
    parser.add_argument("--lines", action="store_true", help="print the sentences counted new")
    parser.add_argument("--seed", type=int, default=1, help="as reprint_quality.py's --seed")
    args = parser.parse_args()

    from benchmarks.reprint_quality import fix_store_seeds

    fix_store_seeds(args.seed)
    from benchmarks import realpages
    from benchmarks.quality import Decider

    rows = set(args.rows.split(","))
    for language, half, stored, made in realpages.all_cases(args.sets):
        if (language, half) != (args.language, args.half):
            continue
        decider = Decider(3, 0.8)
        for page in stored:
            decider.keeps(page.url, page.html)
        kept = total = 0
        for case in made:
            if case.row not in rows:
                decider.keeps(case.url, case.html)
                continue
            total += 1
            found = _compared(decider, case) if case.original else None
            if decider.keeps(case.url, case.html) and found is not None:
                kept += 1
                _print(case, *found, lines=args.lines)
        decider.close()
        print(f"{kept} of {total} copies kept ({language}, {half}, {args.rows})")


_Novel = list[tuple[int, str]]


def _compared(
    decider: object, case: RealCase
) -> tuple[Confirmation, _Novel, Confirmation | None, _Novel]:
    """The case's main content and stricter reading, each confirmed against its original
    as the judge stands now, with the sentences counted new."""
    from itemadapter import ItemAdapter

    from scrapy_simdedup.fingerprint.stricter import stricter_text
    from scrapy_simdedup.itemtext import item_text
    from scrapy_simdedup.judges.content import _distance_to

    pipeline = decider.pipeline  # type: ignore[attr-defined]
    judge, config = pipeline.judge, pipeline.config
    found = item_text(
        ItemAdapter({"url": case.url, "text": case.html}), config.content_fields,
        config.max_text_chars, config.content_html, main=True,
    )  # fmt: skip
    original = judge.index.document(case.original)
    results: list[tuple[Confirmation | None, _Novel]] = []
    readings = ((found.text, found.outside), (stricter_text(found.page, found.text), ""))
    for text, outside in readings:
        if not text:
            results.append((None, []))
            continue
        done = judge.fingerprinted(text, outside=outside)
        match = _distance_to(original, done.fingerprint.simhash)
        with _NovelBlocks() as novel:
            confirmation = judge.confirmation(done, match, judge.templates(done, case.url))
        own = set(done.blocks.exacts)  # the stored page's side is compared too: left out
        mine = [block for block in novel if block.exact in own]
        results.append((confirmation, _with_text(mine, text, judge.index.seed)))
    (main_confirmation, main_novel), (strict, strict_novel) = results
    assert main_confirmation is not None
    return main_confirmation, main_novel, strict, strict_novel


class _NovelBlocks:
    """The blocks ``confirmation._edited`` found no edit for, while the block is open."""

    def __enter__(self) -> list[Block]:
        from scrapy_simdedup.judges import confirmation

        self.module, self.real, self.found = confirmation, confirmation._edited, []

        def spied(mine: tuple[Block, ...], at: int, *rest: object) -> bool:
            edited: bool = self.real(mine, at, *rest)  # type: ignore[arg-type]
            if not edited:
                self.found.append(mine[at])
            return edited

        confirmation._edited = spied  # type: ignore[assignment]
        return self.found

    def __exit__(self, *exc: object) -> None:
        self.module._edited = self.real  # type: ignore[method-assign]


def _with_text(blocks: list[Block], text: str, seed: int) -> _Novel:
    """Each block's words and its sentence (by its exact hash; "?" past the window)."""
    from scrapy_simdedup.fingerprint import blocks as packing
    from scrapy_simdedup.fingerprint.chrome import chrome_lines

    lines = text[: packing.MAX_BLOCK_CHARS].splitlines()
    sentences, _ = packing._head(lines, chrome_lines(lines), seed)
    by_hash = {packing._sentence_hash(s, seed): s for s in sentences.sentences}
    return [(block.words, by_hash.get(block.exact, "?")) for block in blocks]


def _print(
    case: RealCase, main: Confirmation, main_novel: _Novel, strict: Confirmation | None,
    strict_novel: _Novel, *, lines: bool,
) -> None:  # fmt: skip
    print(f"== {case.row} {case.url} (original {case.original})")
    for name, confirmation, novel in (("main", main, main_novel), ("strict", strict, strict_novel)):
        if confirmation is None:
            print(f"   {name}: no stricter text")
            continue
        print(
            f"   {name}: novel {confirmation.novel_words}, covers {confirmation.covers:.2f}, "
            f"similarity {confirmation.similarity:.2f}, template {confirmation.template_words}, "
            f"chrome {confirmation.chrome_words}, untested {confirmation.untested_words}"
        )
        for words, sentence in novel if lines else ():
            print(f"     + {words:3} {sentence[:140]!r}")


if __name__ == "__main__":
    main()
