"""``scrapy simdedup``: inspect, query, repair or reset a spider's index from the shell.

Registered through the ``scrapy.commands`` entry point, so it is loaded with every
``scrapy`` invocation: the index modules are imported only when it runs.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, ClassVar

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from scrapy_simdedup.config import SimDedupConfig
    from scrapy_simdedup.index.handle import SimHashIndex
    from scrapy_simdedup.index.location import StoreLocation
    from scrapy_simdedup.judges.confirmation import Confirmation
    from scrapy_simdedup.judges.verdict import Verdict

ACTIONS = ("check", "inspect", "query", "report", "repair", "reset")
MAX_LISTED = 20


class SimDedupCommand(ScrapyCommand):
    requires_project = False
    requires_crawler_process = False
    config: SimDedupConfig  # the SIMDEDUP_* settings, read when the command runs
    default_settings: ClassVar[dict[str, Any]] = {"LOG_ENABLED": False}

    def syntax(self) -> str:
        return "check|inspect|query|report|repair|reset [SPIDER] [options]"

    def short_desc(self) -> str:
        return "Inspect, query, repair or reset a scrapy-simdedup index; report on its verdicts"

    def long_desc(self) -> str:
        return (
            "Works on the index the SPIDER's crawls use (found from the project's "
            "SIMDEDUP_* settings and -s overrides, as scrapy crawl finds it), or on the one "
            "named by --index. check: whether the settings (the SPIDER's custom_settings "
            "included) are valid and turn the plugin on, where the index and the verdict log "
            "go. inspect: size, parameters and learned URL rules. query: the "
            "stored pages near --text (or --text-file), and what the URL middleware would "
            "do with --url. report: what the SPIDER's verdict log (SIMDEDUP_VERDICT_LOG, or "
            "--log FILE) says of its last crawl (--all: of every crawl in it): mirror hosts, "
            "the largest clusters, distances and similarities, the pages nearest the "
            "confirmation threshold, and suggested settings; --html FILE writes it as one "
            "self-contained page, with --feed FILE the pages' texts side by side. "
            "repair: salvage damaged files (the folder as it was is copied "
            "aside first) and re-validate every entry. reset --yes: delete the index and "
            "nothing else. Never run repair or reset while a crawl uses the index."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument("--index", metavar="LOCATION", help="an index folder or redis:// URL")
        parser.add_argument("--prefix", help="the Redis key prefix (default simdedup:SPIDER)")
        parser.add_argument("--text", help="query: a text to look up")
        parser.add_argument("--text-file", metavar="FILE", help="query: a UTF-8 file to look up")
        parser.add_argument("--url", action="append", default=[], help="query: a URL to judge")
        parser.add_argument(
            "--key", help="query: the text's page key (URL), so its host's template is known"
        )
        parser.add_argument("--verify", action="store_true", help="inspect: check every entry")
        parser.add_argument("--yes", action="store_true", help="reset: really delete the index")
        parser.add_argument("--log", metavar="FILE", help="report: the verdict log to read")
        parser.add_argument(
            "--all", action="store_true", help="report: every crawl in the log, not the last"
        )
        parser.add_argument(
            "--html", metavar="FILE", help="report: write one self-contained HTML page"
        )
        parser.add_argument(
            "--feed", metavar="FILE", help="report --html: the crawl's feed, to show the texts"
        )

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        from scrapy_simdedup.config import SimDedupConfig
        from scrapy_simdedup.errors import SimDedupError
        from scrapy_simdedup.scrapy_layer.checkreport import with_spider_settings
        from scrapy_simdedup.scrapy_layer.enabled import idle_plugin_warning

        if not args or args[0] not in ACTIONS or len(args) > 2:
            raise UsageError(f"give one action of {', '.join(ACTIONS)}, then the spider's name")
        action, spider = args[0], (args[1] if len(args) > 1 else None)
        try:
            assert self.settings is not None
            self.settings = with_spider_settings(self.settings, spider)
            self.config = SimDedupConfig.from_settings(self.settings)
            if action == "check":
                self._check(spider, opts)
                return
            warning = idle_plugin_warning(self.settings)
            if warning:  # SIMDEDUP_* settings set, but no component on
                print(f"scrapy simdedup: warning: {warning}", file=sys.stderr)
            if action == "report":
                self._report(spider, opts)
                return
            where = self._where(spider, opts)
            getattr(self, f"_{action}")(where, opts)
        except (SimDedupError, ValueError, OSError) as exc:
            print(f"scrapy simdedup {action}: {exc}", file=sys.stderr)
            self.exitcode = 1

    def _where(self, spider: str | None, opts: argparse.Namespace) -> StoreLocation:
        from dataclasses import replace

        from scrapy_simdedup.index.location import StoreLocation
        from scrapy_simdedup.scrapy_layer.state import index_location, redis_prefix

        assert self.settings is not None
        config = self.config
        if opts.index:
            prefix = opts.prefix or redis_prefix(config, spider or "default")
            return StoreLocation.parse(opts.index, prefix=prefix)
        if spider is None:
            raise UsageError("name the spider whose index to use, or give --index LOCATION")
        if config.store == "memory":
            raise UsageError("SIMDEDUP_STORE is 'memory': there is no stored index to open")
        jobdir = self.settings.get("JOBDIR")
        where = index_location(config, spider, jobdir)
        return replace(where, prefix=opts.prefix) if opts.prefix else where

    def _check(self, spider: str | None, opts: argparse.Namespace) -> None:
        from scrapy_simdedup.scrapy_layer.checkreport import check_lines

        assert self.settings is not None
        where = self._where(spider, opts) if spider is not None or opts.index else None
        lines, well = check_lines(self.settings, self.config, where, spider)
        print("\n".join(lines))
        if not well:
            self.exitcode = 1

    def _inspect(self, where: StoreLocation, opts: argparse.Namespace) -> None:
        from scrapy_simdedup.index.opening import open_stored_index

        with open_stored_index(where) as index:
            params = index.params
            print(f"index:      {index.location}")
            print(
                f"parameters: k={params.max_distance}, {index.design.describe()}, "
                f"tokenizer {params.tokenizer}, seed {params.seed:#010x}"
            )
            print(f"pages:      {len(index):,}")
            if opts.verify:
                found = index.verify(_progress("inspect --verify: content"))
                state = "consistent" if found.consistent else "INCONSISTENT: run repair"
                print(
                    f"verify:     {found.entries:,} table entries, {found.missing_entries:,} "
                    f"missing, {found.orphan_entries:,} stray: {state}"
                )
                if not found.consistent:
                    self.exitcode = 1
            _print_url_index(index)

    def _query(self, where: StoreLocation, opts: argparse.Namespace) -> None:
        from scrapy_simdedup.index.opening import open_stored_index

        text = opts.text
        if opts.text_file:
            with open(opts.text_file, encoding="utf-8", errors="replace") as file:
                text = file.read()
        if text is None and not opts.url:
            raise UsageError("query needs --text, --text-file or --url")
        with open_stored_index(where) as index:
            if text is not None:
                _print_text_query(index, text, self.config, opts.key)
            for url in opts.url:
                _print_url_query(index, url, self.config)

    def _report(self, spider: str | None, opts: argparse.Namespace) -> None:
        from pathlib import Path

        from scrapy_simdedup.scrapy_layer.checkreport import (
            find_verdict_log,
            report_lines,
            write_html_report,
        )

        path = find_verdict_log(self.config, spider, opts.log)
        if opts.feed and not opts.html:
            raise UsageError("--feed goes with --html FILE: the texts are shown in the HTML page")
        if opts.html:
            feed = Path(opts.feed) if opts.feed else None
            print(write_html_report(path, self.config, Path(opts.html), feed, every_crawl=opts.all))
            return
        print("\n".join(report_lines(path, self.config, every_crawl=opts.all)))

    def _repair(self, where: StoreLocation, opts: argparse.Namespace) -> None:
        from scrapy_simdedup.index.maintenance import repair_index

        report = repair_index(where, progress=_progress())
        print("\n".join(report.lines()))

    def _reset(self, where: StoreLocation, opts: argparse.Namespace) -> None:
        from scrapy_simdedup.index.maintenance import reset_index

        if not opts.yes:
            raise UsageError(f"reset deletes the index at {where}; add --yes to go ahead")
        if reset_index(where, progress=_progress()):
            print(f"deleted the index at {where}")
        else:
            print(f"there was no index at {where}; nothing was changed")


def _progress(label: str = "") -> Callable[[str], None]:
    """Progress lines of a long command, on stderr as they come."""
    prefix = f"{label} " if label else ""
    return lambda line: print(f"{prefix}{line}", file=sys.stderr, flush=True)


def _print_url_index(index: SimHashIndex) -> None:
    from scrapy_simdedup.index import keyspace
    from scrapy_simdedup.index.marks import FetchedMarks
    from scrapy_simdedup.url.learner import UrlLearner

    urls = index.stored_companion(keyspace.URL_INDEX)
    if urls is None:
        print("URLs:       none recorded (the URL middleware has not run on this index)")
        return
    fetched = len(urls) + len(FetchedMarks(urls))
    print(f"URLs:       {fetched:,} fetched (k={urls.design.max_distance})")
    learner = UrlLearner(urls.store, lambda url: False, probation=False)
    rules = learner.learned_rules()
    print(f"rules:      {len(rules):,} learned, {len(learner.rules()) - len(rules):,} in progress")
    for rule in rules[:MAX_LISTED]:
        print(f"  {rule.describe()}{rule.copy_note()}: {learner.estimate(rule)}")
    parked = sum(1 for _ in urls.store.scan(keyspace.PARKED, keyspace.end(keyspace.PARKED)))
    if parked:
        print(
            f"parked:     {parked:,} skipped requests of an unfinished crawl (the next re-issues)"
        )


def _print_text_query(
    index: SimHashIndex, text: str, config: SimDedupConfig, key: str | None
) -> None:
    """What the crawl's content judge would decide for ``text``, and why."""
    from scrapy_simdedup.judges.content import ContentJudge

    judge = ContentJudge(index, confirm_similarity=config.confirm_similarity)
    done = judge.fingerprinted(text)
    verdict = judge.judge(done, key, record=False)
    print(f"verdict: {describe_verdict(verdict)}")
    fingerprint, templates = done.fingerprint, judge.templates(done, key)
    if fingerprint.simhash is None:
        print("text: too short for a SimHash; compared by exact hash")
        return
    matches = index.query(fingerprint.simhash)
    print(f"text: SimHash {fingerprint.simhash:016x}, {len(matches)} stored pages within k")
    owner = index.exact_owner(fingerprint.exact)
    if owner:
        print(f"  exactly the text of {owner}: a copy, would be dropped")
    if not matches:
        matches = judge.sentence_candidates(done, key, templates.skipped_sentences)
        print(f"sentences: {len(matches)} stored pages share one of its longest sentences")
    for match in matches[:MAX_LISTED]:
        confirmation = judge.confirmation(done, match, templates)
        if confirmation.copy:
            said = "confirmed: a copy, would be dropped"
        elif confirmation.adds_content:
            said = f"adds {confirmation.novel_words} words of its own"
            if confirmation.lacking_words:
                said += f" and lacks {confirmation.lacking_words} of the stored page's"
            said += ": would be kept"
        elif not match.payload:
            said = "no sketch to confirm with: would be kept"
        else:
            said = f"not confirmed (similarity {confirmation.similarity:.2f}): would be kept"
        print(f"  {match.distance} bits  {match.key}  {said}")
        print(f"    {judged_words(confirmation)}")


def judged_words(confirmation: Confirmation) -> str:
    """What the page's words were judged to be, against one stored page."""
    return (
        f"content {confirmation.content_words} words ({confirmation.novel_words} the stored "
        f"page lacks, {confirmation.covers:.0%} of its content held), chrome "
        f"{confirmation.chrome_words}, template {confirmation.template_words}, shown beside "
        f"the stored page's content {confirmation.shown_words}; the stored page has "
        f"{confirmation.lacking_words} content words this one lacks"
    )


def describe_verdict(verdict: Verdict) -> str:
    """One line a user can read: kept or dropped, against what, found how."""
    if verdict.revisit:
        return f"a re-visit of {verdict.original}: would be kept"
    if verdict.repeated_key:
        return f"a second item with key {verdict.key} in one crawl: would be dropped"
    if verdict.original is None:
        doubt = ""
        if verdict.unconfirmed and verdict.confirmation is not None:
            doubt = (
                f"; the nearest stored page, {verdict.candidate} ({verdict.distance} bits, "
                f"similarity {verdict.confirmation.similarity:.2f}), was not confirmed as a copy"
            )
        if verdict.adds_content:
            doubt = "; similar pages were found, but it adds words of its own"
        return f"new: would be kept{doubt}"
    found = {"exact": "the same text", "simhash": "SimHash", "sentences": "shared sentences"}
    how = found.get(verdict.found_by or "", verdict.found_by or "")
    detail = f"found by {how}, {verdict.distance} bits apart"
    if verdict.confirmation is not None:
        confirmation = verdict.confirmation
        detail += (
            f", similarity {confirmation.similarity:.2f}, {confirmation.contained:.0%} of it "
            "in the stored page"
        )
    return f"a copy of {verdict.original} ({detail}): would be dropped"


def _print_url_query(index: SimHashIndex, url: str, config: SimDedupConfig) -> None:
    from scrapy_simdedup.errors import UrlNotCheckedError
    from scrapy_simdedup.url.judgewiring import judge_for_stored
    from scrapy_simdedup.url.parts import url_parts

    try:
        parts = url_parts(url)
    except UrlNotCheckedError as exc:
        print(f"url: {url[:200]}: never skipped, {exc}")
        return
    mode = "strict" if config.url_mode == "strict" else "adaptive"
    judge = judge_for_stored(index, mode=mode, min_evidence=config.url_min_evidence)
    if judge is None:
        print(f"url: {parts.url}: no URL index here; it would be fetched")
        return
    # One answer, what a crawl would do; a fetch by an earlier crawl is context, not a
    # verdict (such a URL is judged like any other).
    before = "fetched" if judge.was_fetched(parts.url) else "not fetched"
    decision = judge.decide(parts, tally=False)
    if decision.skip and decision.rule is not None:
        said = (
            f"{mode} mode would skip it ({decision.rule.describe()}) once its counterpart is "
            "fetched or queued in the crawl"
        )
    else:
        said = f"{mode} mode would fetch it (no rule skips it)"
    print(f"url: {parts.url}: {said}; {before} by an earlier crawl on this index")
