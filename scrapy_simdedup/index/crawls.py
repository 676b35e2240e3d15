"""``CrawlRecord``: what one crawl did, shared by all its workers on a shared store (Redis).

Each worker knows its own fetches. On a shared store the others' matter too: a bet whose
counterpart another worker fetched and kept is settled (issue 35), a page another worker of
this crawl kept is a repeated key here, not a re-visit, and a request re-issued by one worker
must not be fetched again by another. So every worker of a crawl writes, per URL, one key
per event under the crawl's id (``keyspace.CRAWL_MARKS``):

* ``queued``: let into the crawl's scheduler (a queue the workers share, scrapy-redis's);
* ``fetched``: answered 2xx;
* ``failed``: sent to the downloader and brought no page of its own (an error, a non-2xx
  status, a redirect elsewhere, or another component ignored it): no longer on its way;
* ``judged``: its content verdict arrived (the value says whether it was barren: a copy of a
  page this crawl did not keep); until then a fetch is no evidence for the URL rules;
* ``kept``: its page is in the crawl's feed (judged new, or a re-visit);
* ``bet``: skipped on a bet (its value: the counterpart), until re-issued: a bet on another
  worker that relies on it is settled once that counterpart brought its page, as a chain
  of bets on one worker is;
* ``section``: a mirror pair's first evidence in a section (``claim_section``): the first
  worker there fetches the crawl's one sample of it;
* ``claimed``: on its way to the downloader (``claim_fetch``) or re-issued (``claim_reissue``),
  one atomic put-if-absent each: of the workers racing for a URL, one fetches it.

Which crawl: ``SIMDEDUP_CRAWL_ID`` when set; otherwise a worker that opens while another
worker's heartbeat is in the store joins that worker's crawl (``keyspace.CRAWL``), and one
that opens alone starts a new crawl. Reading the crawl and writing this worker's heartbeat
is one compare-and-set, so two workers starting together end in one crawl. A new crawl
deletes the marks of the one before. A worker killed with ``kill -9`` leaves its heartbeat
until a running worker finds it dead and buries it (``Heartbeats.sweep``); a run started
meanwhile continues that crawl (set ``SIMDEDUP_CRAWL_ID`` to start a new one).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

from scrapy_simdedup.errors import StoreError
from scrapy_simdedup.index import keyspace
from scrapy_simdedup.index.stores.atomic import GuardedWrite

if TYPE_CHECKING:
    from scrapy_simdedup.index.heartbeats import Heartbeats
    from scrapy_simdedup.index.stores.atomic import AtomicStore

QUEUED = b"q"
FETCHED = b"f"
JUDGED = b"j"
BARREN = b"b"  # a JUDGED value: a copy of a page this crawl did not keep
COPY_OF = b"o"  # judged a copy: of the page whose URL is the value
KEPT = b"k"
BET = b"p"
MAX_CHAIN = 8  # bets relying on bets, followed across workers (as ``url/bets.py`` does)
CLAIMED = b"r"
FAILED = b"x"
SECTION = b"s"
BEFORE = b"n"  # no URL after it: the URLs the index held at the crawl's start
_BY_FETCH = b"f"  # a claim's value: taken on the way to the downloader
_BY_REISSUE = b"r"  # taken by a re-issue
MAX_ATTEMPTS = 32
DELETE_BATCH = 1_000


@dataclass(frozen=True)
class Joined:
    """The crawl a worker is in; ``started``: this worker began it (no other was running);
    ``workers``: the other workers whose heartbeat it found."""

    record: CrawlRecord
    started: bool
    workers: int


class CrawlRecord:
    """One crawl's marks per URL on a shared store (see the module docstring)."""

    shared = True  # a ``url.peers.Peers``: other workers may share the crawl

    def __init__(self, store: AtomicStore, crawl_id: str) -> None:
        self.store = store
        self.crawl_id = crawl_id
        self._prefix = prefix_of(crawl_id)

    def queued(self, url: str) -> None:
        self.store.write({self._key(QUEUED, url): b""})

    def was_queued(self, url: str) -> bool:
        """Whether a worker of this crawl let ``url`` into the scheduler (it may have
        been fetched, or failed, since)."""
        return self.store.get(self._key(QUEUED, url)) is not None

    def queued_urls(self, host: str, limit: int) -> list[str]:
        """URLs of ``host`` any worker of this crawl let into the scheduler, at most
        ``limit`` (in key order): how much of a site the whole crawl knows, where one
        worker knows only the links it parsed. Raises ``StoreError``."""
        return self._urls_of(QUEUED, host, limit)

    def _urls_of(self, what: bytes, host: str, limit: int) -> list[str]:
        found: list[str] = []
        skip = len(self._prefix) + len(what)
        for scheme in ("http", "https"):
            start = self._key(what, f"{scheme}://{host}/")
            stop = self._key(what, f"{scheme}://{host}0")  # "0" follows "/"
            for key, _ in self.store.scan(start, stop):
                if len(found) >= limit:
                    return found
                found.append(key[skip:].decode("utf-8", "surrogatepass"))
        return found

    def fetched(self, url: str) -> None:
        self.store.write({self._key(FETCHED, url): b""})

    def failed(self, url: str) -> None:
        """``url`` was sent to the downloader and brought no page of its own."""
        self.store.write({self._key(FAILED, url): b""})

    def awaits_verdict(self, url: str) -> bool:
        """Whether a worker of this crawl fetched ``url`` (or the page a bet on it relies
        on) and its content verdict is not known yet: a bet relying on it stands for now
        (``brought``), and the verdict may still say the page was not what its path
        promised."""
        for _ in range(MAX_CHAIN):
            keys = [self._key(FETCHED, url), self._key(JUDGED, url), self._key(BET, url)]
            fetched, judged, bet = self.store.get_many(keys)
            if fetched is not None:
                return judged is None
            if bet is None:
                return False
            url = bet.decode("utf-8", "surrogatepass")
        return False

    def on_its_way(self, url: str) -> bool:
        """Whether a worker of this crawl has ``url``, or the page a bet on it relies on,
        on its way to the downloader now (claimed, neither answered 2xx nor failed): a bet
        relying on it settles once it comes, and another worker's idle need not re-issue
        it meanwhile."""
        for _ in range(MAX_CHAIN):
            keys = [self._key(CLAIMED, url), self._key(FETCHED, url), self._key(FAILED, url)]
            claimed, fetched, failed, bet = self.store.get_many([*keys, self._key(BET, url)])
            if claimed is not None:
                return fetched is None and failed is None
            if bet is None:
                return False
            url = bet.decode("utf-8", "surrogatepass")
        return False

    def requested_urls(self, host: str, limit: int) -> list[str]:
        """URLs of ``host`` any worker of this crawl sent to the downloader (fetched, on
        their way, or failed), at most ``limit`` (in key order). Raises ``StoreError``."""
        return self._urls_of(CLAIMED, host, limit)

    def was_fetched(self, url: str) -> bool:
        return self.store.get(self._key(FETCHED, url)) is not None

    def keep(self, url: str) -> bool:
        """Record ``url``'s page as kept in this crawl; False when a worker did before."""
        return not self.store.put_absent({self._key(KEPT, url): b""})

    def was_kept(self, url: str) -> bool:
        return self.store.get(self._key(KEPT, url)) is not None

    def released(self, url: str) -> None:
        """A later pipeline dropped ``url``'s item: its page is not in the feed after all,
        and settles no bet on its copies."""
        self.store.write({}, deletes=[self._key(KEPT, url)])

    def judged(self, url: str, *, barren: bool, original: str | None = None) -> None:
        """A worker has the content verdict on ``url``'s page: new (``original`` None) or
        a copy of ``original``; ``barren``: of a page this crawl did not keep (or not yet:
        its worker stores the page before it records it kept; a copy judged in between
        stays barren, since the page it matched may be an earlier crawl's text of a page
        fetched again, changed)."""
        mark = BARREN if barren else b""
        marks = {self._key(JUDGED, url): mark}
        if original is not None:
            marks[self._key(COPY_OF, url)] = original.encode("utf-8", "surrogatepass")
        self.store.write(marks)

    def judged_copy_of(self, url: str) -> str | None:
        """The page a worker of this crawl found ``url``'s page a copy of, or None (new,
        not judged)."""
        value = self.store.get(self._key(COPY_OF, url))
        return None if value is None else value.decode("utf-8", "surrogatepass")

    def was_judged(self, url: str) -> bool:
        """Whether a worker of this crawl has the content verdict on ``url``'s page."""
        return self.store.get(self._key(JUDGED, url)) is not None

    def bet(self, url: str, counterpart: str) -> None:
        """A worker skipped ``url`` on a bet relying on ``counterpart``."""
        self.store.write({self._key(BET, url): counterpart.encode("utf-8", "surrogatepass")})

    def bet_alone(self, url: str) -> str | None:
        """The counterpart of the bet a worker of this crawl skipped ``url`` on, when no
        worker let ``url`` into the scheduler or fetched it (no dupefilter saw it); else
        None."""
        keys = [self._key(BET, url), self._key(QUEUED, url), self._key(FETCHED, url)]
        bet, queued, fetched = self.store.get_many(keys)
        if bet is None or queued is not None or fetched is not None:
            return None
        return bet.decode("utf-8", "surrogatepass")

    def brought(self, url: str, *, judged_only: bool = False) -> bool:
        """Whether a worker of this crawl fetched ``url`` and its page (or the page it
        copies) is in this crawl's feed, as far as is known, or skipped it on a bet whose
        counterpart did: what settles a bet on it. ``judged_only``: a page fetched with no
        content verdict yet (or never: a response that yielded no item) brought nothing."""
        for _ in range(MAX_CHAIN):
            keys = [self._key(FETCHED, url), self._key(JUDGED, url), self._key(BET, url)]
            keys += [self._key(COPY_OF, url), self._key(KEPT, url)]
            fetched, judged, bet, copy_of, kept = self.store.get_many(keys)
            if fetched is not None:
                if judged is None or judged == BARREN:  # not judged yet: as on one worker
                    return judged is None and not judged_only
                if copy_of is None:  # new: kept, unless a later pipeline released it
                    return kept is not None
                # A copy: of a page in the feed, as long as it is (released, it is not).
                return self.was_kept(copy_of.decode("utf-8", "surrogatepass"))
            if bet is None:
                return False
            url = bet.decode("utf-8", "surrogatepass")
        return False

    def fetched_before(self, now: int) -> int:
        """URLs the index held when the crawl started: ``now`` for the first worker to ask
        (before it fetched anything), what that worker said for the others."""
        key = self._prefix + BEFORE
        present = self.store.put_absent({key: str(max(0, now)).encode("ascii")})
        try:
            return int(present.get(key, b"%d" % now))
        except ValueError:
            return now

    def claim_fetch(self, url: str) -> bool:
        """Claim ``url`` for a fetch on the way to the downloader; False when a re-issue
        claimed it first (it is fetched there). Two ordinary requests for one URL are the
        dupefilter's business: both pass here, as they would without the plugin."""
        present = self.store.put_absent({self._key(CLAIMED, url): _BY_FETCH})
        return present.get(self._key(CLAIMED, url), _BY_FETCH) == _BY_FETCH

    def claim_reissue(self, url: str) -> bool:
        """Claim ``url`` for a re-issue, sent past the dupefilter; False when a worker of
        this crawl fetched it, has it on its way to the downloader, or re-issued it."""
        if self.was_fetched(url):
            return False
        if self.store.put_absent({self._key(CLAIMED, url): _BY_REISSUE}):
            return False
        self.store.write({}, [self._key(BET, url)])  # its own fetch settles what relies on it
        return True

    def claim_section(self, hosts: tuple[str, str], section: str) -> bool:
        """Whether this worker is the first of the crawl with evidence of the mirror pair
        ``hosts`` in ``section`` (one atomic put-if-absent)."""
        key = self._key(SECTION, "\x00".join((*hosts, section)))
        return not self.store.put_absent({key: b""})

    def _key(self, what: bytes, url: str) -> bytes:
        return self._prefix + what + url.encode("utf-8", "surrogatepass")


def prefix_of(crawl_id: str) -> bytes:
    return keyspace.CRAWL_MARKS + crawl_id.encode("ascii") + b"\x00"


def join_crawl(store: AtomicStore, heartbeats: Heartbeats, crawl_id: str | None = None) -> Joined:
    """Join the crawl of the workers running on ``store`` (or ``crawl_id``), or start one,
    writing this worker's first heartbeat in the same step. Raises ``StoreError`` when other
    workers keep changing the crawl."""
    for _ in range(MAX_ATTEMPTS):
        current = store.get(keyspace.CRAWL)
        others = heartbeats.others()
        if crawl_id is not None:
            wanted = crawl_id.encode("ascii")
        elif others and current is not None:
            wanted = current
        else:
            wanted = uuid.uuid4().hex.encode("ascii")
        key, beat = heartbeats.first_beat()
        joined = GuardedWrite({keyspace.CRAWL: wanted, key: beat}, expect={keyspace.CRAWL: current})
        if store.write_if(joined):
            started = wanted != current
            if started and current is not None and not others:
                forget_crawl(store, current.decode("ascii", "replace"))
            record = CrawlRecord(store, wanted.decode("ascii"))
            return Joined(record, started, len(others))
    raise StoreError(f"could not join the crawl on {store.location}: it kept changing")


def forget_crawl(store: AtomicStore, crawl_id: str) -> int:
    """Delete an ended crawl's marks; how many."""
    prefix = prefix_of(crawl_id)
    keys = store.keys([(prefix, keyspace.end(prefix))])
    for start in range(0, len(keys), DELETE_BATCH):
        store.write({}, keys[start : start + DELETE_BATCH])
    return len(keys)
