"""What the Scrapy scheduler and the Frontera backend share: the reader of their settings and
of CRAWLRANK_OPTIONS (crawlrank._settings; each front end raises its errors, word for word, as
its own settings error), and crawlrank._frontend's buffer of crawl reports, rank at close and
stored configuration."""

from __future__ import annotations

import importlib.util

import pytest

pytestmark = pytest.mark.needs_crawlrank

UNKNOWN = "CRAWLRANK_OPTIONS: unknown scheduler option 'no_such' (see crawlrank.SchedulerOptions)"
# What each field takes is said from its default (crawlrank.SchedulerOptions(), the values
# of include/crawlrank/scheduler.h); pybind11's own message lists C++ signatures instead.
BAD_TYPES = [
    ({"lease_ms": "long"}, "CRAWLRANK_OPTIONS['lease_ms']='long': expected an integer "
                           "(the default is 600000)"),
    ({"max_retries": -1}, "CRAWLRANK_OPTIONS['max_retries']=-1: expected an integer >= 0 "
                          "(the default is 3)"),
    ({"revisit_share": "a fifth"}, "CRAWLRANK_OPTIONS['revisit_share']='a fifth': expected a "
                                   "number (the default is 0.2)"),
    ({"revisits": "yes"}, "CRAWLRANK_OPTIONS['revisits']='yes': expected True or False "
                          "(the default is False)"),
    ({"allowed_schemes": "https"}, "CRAWLRANK_OPTIONS['allowed_schemes']='https': expected a "
                                   "list of strings (the default is ['http', 'https'])"),
]


@pytest.fixture(scope="module")
def fe():
    pytest.importorskip("crawlrank")
    import crawlrank._frontend

    return crawlrank._frontend


@pytest.fixture(scope="module")
def st():
    pytest.importorskip("crawlrank")
    import crawlrank._settings

    return crawlrank._settings


# ---- the options reader


def test_options_are_set_over_the_base(st):
    import crawlrank

    base = crawlrank.SchedulerOptions(delay_ms=5, lease_ms=7)
    options = st.scheduler_options({"lease_ms": 1234, "score": "opic"}, base=base)
    assert options is base
    assert (options.delay_ms, options.lease_ms, options.score) == (5, 1234, "opic")
    assert st.scheduler_options({}).lease_ms == crawlrank.SchedulerOptions().lease_ms


def test_an_unknown_option_is_named(st):
    with pytest.raises(st.OptionsError) as error:
        st.scheduler_options({"lease_ms": 1, "no_such": 1})
    assert str(error.value) == UNKNOWN
    for name in ("_private", 3):  # not a field either
        with pytest.raises(st.OptionsError, match="unknown scheduler option"):
            st.scheduler_options({name: 1})


@pytest.mark.parametrize("options, message", BAD_TYPES)
def test_a_value_of_the_wrong_type_is_named_with_what_the_field_takes(st, options, message):
    with pytest.raises(st.OptionsError) as error:
        st.scheduler_options(options)
    assert str(error.value) == message


def test_a_name_crawlrank_refuses_keeps_crawlrank_s_reason(st):
    with pytest.raises(st.OptionsError) as error:
        st.scheduler_options({"score": "fancy"}, setting="MY_SETTING")
    assert str(error.value).startswith("MY_SETTING['score']='fancy': score mode \"fancy\": "
                                       "expected one of ")


def test_the_setting_holds_a_dict_or_a_json_object(st):
    assert st.options_dict(None) == {} and st.options_dict("") == {}
    assert st.options_dict({"lease_ms": 1}) == {"lease_ms": 1}
    assert st.options_dict('{"max_pages": 25}') == {"max_pages": 25}  # scrapy crawl -s
    with pytest.raises(st.OptionsError) as error:
        st.options_dict(["lease_ms"])
    assert str(error.value) == ("CRAWLRANK_OPTIONS=['lease_ms']: expected a dict of "
                                "crawlrank.SchedulerOptions fields")
    with pytest.raises(st.OptionsError, match=r"^OLD='\{max_pages': not a JSON object \("):
        st.options_dict("{max_pages", "OLD")


def test_the_scrapy_scheduler_raises_the_same_messages(fe):
    pytest.importorskip("scrapy")
    from scrapy.exceptions import NotConfigured
    from scrapy.settings import Settings

    from crawlrank.scrapy import SchedulerSettings

    def error_of(options):
        settings = SchedulerSettings.from_settings(Settings({"CRAWLRANK_OPTIONS": options}))
        with pytest.raises(NotConfigured) as error:
            settings.scheduler_options()
        return str(error.value)

    assert error_of({"no_such": 1}) == UNKNOWN
    for options, message in BAD_TYPES:
        assert error_of(options) == message
    with pytest.raises(NotConfigured, match="expected a dict"):
        SchedulerSettings.from_settings(Settings({"CRAWLRANK_OPTIONS": '["lease_ms"]'}))


def test_the_frontera_backend_raises_the_same_messages(fe):
    if importlib.util.find_spec("frontera") is None:
        pytest.skip("Frontera is not on the path (CRAWLRANK_FRONTERA_DIR)")
    from frontera.settings import Settings

    from crawlrank.frontera import BackendSettings, SettingsError

    def error_of(options):
        with pytest.raises(SettingsError) as error:
            BackendSettings.from_settings(Settings(attributes={"CRAWLRANK_OPTIONS": options}))
        return str(error.value)

    assert error_of({"no_such": 1}) == UNKNOWN
    for options, message in BAD_TYPES:
        assert error_of(options) == message


def test_the_readers_name_the_setting_and_what_it_takes(st):
    assert st.integer(1)("4", "N") == 4 and st.integer(0)(0, "N") == 0
    for value, expected in (("x", "an integer"), (2.5, "an integer"), (True, "an integer"),
                            (0, "an integer >= 1")):
        with pytest.raises(st.OptionsError) as error:
            st.integer(1)(value, "N")
        assert str(error.value) == f"N={value!r}: expected {expected}"
    assert st.number(0.0)("0.5", "X") == 0.5
    for reader, value, bounds in ((st.number(0.0), -1, ">= 0"),
                                  (st.number(0.0, inclusive=False), 0, "> 0"),
                                  (st.number(0.0, inclusive=False, below=1.0), 1, "in (0, 1)"),
                                  (st.number(0.0), float("nan"), ">= 0")):
        with pytest.raises(st.OptionsError) as error:
            reader(value, "X")
        assert str(error.value) == f"X={value!r}: expected a number {bounds}"
    # Seconds and rates as milliseconds, rounded (0.57 s is not 569 ms); a positive duration
    # is never 0 ms.
    assert st.seconds_as_ms()(0.57, "S") == 570 and st.seconds_as_ms()(0, "S") == 0
    assert st.seconds_as_ms(positive=True)(0.0001, "S") == 1
    with pytest.raises(st.OptionsError, match=r"^S=0: expected a number > 0$"):
        st.seconds_as_ms(positive=True)(0, "S")
    assert (st.rate_as_ms(4, "R"), st.rate_as_ms("0.25", "R")) == (250, 4000)
    with pytest.raises(st.OptionsError, match=r"^C='x': expected one of a, b$"):
        st.choice("a", "b")("x", "C")
    assert st.path(b"db", "P") == "db" and st.path("", "P") == ""
    with pytest.raises(st.OptionsError, match=r"^P=3: expected a directory path$"):
        st.path(3, "P")


def test_a_table_reads_the_first_setting_set_and_says_which_fields_are_given(st):
    table = {"delay_ms": (("MY_DELAY_MS", st.integer(0)), ("DELAY_S", st.seconds_as_ms())),
             "score": (("MY_SCORE", st.as_is),)}
    settings = {"DELAY_S": "1.5"}
    assert st.read_table(table, settings.get) == {"delay_ms": 1500}  # score: left out
    settings["MY_DELAY_MS"] = 20
    assert st.read_table(table, settings.get) == {"delay_ms": 20}
    assert st.given_fields(table, lambda name: name == "DELAY_S") == {"delay_ms"}
    options = st.table_options(table, {"delay_ms": 20, "score": None}, {"lease_ms": 7})
    assert (options.delay_ms, options.lease_ms) == (20, 7)
    # A value its field refuses is named by the field's setting; one CRAWLRANK_OPTIONS
    # overrides is not set at all.
    with pytest.raises(st.OptionsError) as error:
        st.table_options(table, {"score": 3}, {})
    assert str(error.value) == "MY_SCORE=3: expected a string (the default is 'blend')"
    assert st.table_options(table, {"score": 3}, {"score": "opic"}).score == "opic"


def test_both_front_ends_read_the_settings_they_share_alike(fe):
    pytest.importorskip("scrapy")
    if importlib.util.find_spec("frontera") is None:
        pytest.skip("Frontera is not on the path (CRAWLRANK_FRONTERA_DIR)")
    from frontera.settings import Settings as FronteraSettings
    from scrapy.exceptions import NotConfigured
    from scrapy.settings import Settings

    from crawlrank.frontera import BackendSettings, SettingsError
    from crawlrank.scrapy import SchedulerSettings

    shared = {"CRAWLRANK_URL_PROFILE": "rfc3986", "CRAWLRANK_DURABILITY": "sync",
              "CRAWLRANK_RANK_AT_CLOSE": "off", "DOWNLOAD_DELAY": "0.57",
              "CONCURRENT_REQUESTS_PER_DOMAIN": "3"}
    scrapy = SchedulerSettings.from_settings(Settings(shared))
    frontera = BackendSettings.from_settings(FronteraSettings(attributes=shared))
    for settings in (scrapy, frontera):
        assert (settings.url_profile, settings.durability, settings.rank_at_close) == (
            "rfc3986", "sync", False)
        options = settings.scheduler_options()
        assert (options.delay_ms, options.per_host) == (570, 3)
    for name, value, message in (
            ("CRAWLRANK_DURABILITY", "always", "expected one of sync, periodic, none"),
            ("CONCURRENT_REQUESTS_PER_DOMAIN", 0, "expected an integer >= 1"),
            ("DOWNLOAD_DELAY", -1, "expected a number >= 0")):
        expected = f"{name}={value!r}: {message}"
        with pytest.raises(NotConfigured) as error:
            SchedulerSettings.from_settings(Settings({name: value}))
        assert str(error.value) == expected
        with pytest.raises(SettingsError) as error:
            BackendSettings.from_settings(FronteraSettings(attributes={name: value}))
        assert str(error.value) == expected


# ---- the report buffer


@pytest.fixture()
def scheduler(tmp_path):
    import crawlrank

    with crawlrank.PageDb(str(tmp_path / "db")) as db:
        with crawlrank.Scheduler(db, crawlrank.SchedulerOptions(delay_ms=0)) as scheduler:
            yield db, scheduler


def test_the_buffer_writes_seeds_then_reports(fe, scheduler):
    import crawlrank

    db, core = scheduler
    buffer = fe.ReportBuffer(limit=2)
    assert not buffer and not buffer.full
    # A seed with its payload, and a report linking to it whose extra would give it another:
    # the seed is written first, so its payload wins.
    buffer.add_seeds([crawlrank.QueuedExtra("http://a.test/x", b"seed", 1)])
    buffer.add_report(crawlrank.CrawledPage("http://a.test/", [("http://a.test/x", 0.0)]), 0,
                      [crawlrank.QueuedExtra("http://a.test/x", b"link", 0)])
    assert buffer and buffer.seed_count == 1 and not buffer.full
    assert "http://a.test/" not in db  # nothing written before the flush
    assert buffer.flush(core) == []
    assert not buffer and buffer.seed_count == 0
    assert db.find_url("http://a.test/").crawled
    [request] = core.next(5)
    assert (request.url, request.payload, request.priority) == ("http://a.test/x", b"seed", 1)
    assert db.find_url("http://a.test/x").depth == 0
    buffer.add_report(crawlrank.CrawledPage("http://b.test/", []), 0)
    buffer.add_report(crawlrank.CrawledPage("http://c.test/", []), 0)
    assert buffer.full  # at its limit: the front end flushes
    assert buffer.flush(core) == [] and core.stats().crawled == 3


def test_a_report_crawlrank_refuses_leaves_the_others_written(fe, scheduler):
    import crawlrank

    db, core = scheduler
    buffer = fe.ReportBuffer(limit=64)
    buffer.add_report(crawlrank.CrawledPage("http://a.test/", []), 0)
    buffer.add_report(crawlrank.CrawledPage("not a url", []), 0)
    buffer.add_report(crawlrank.CrawledPage("http://b.test/", []), 0)
    [error] = buffer.flush(core)
    assert isinstance(error, crawlrank.InvalidArgumentError) and "not a url" in str(error)
    assert db.find_url("http://a.test/").crawled and db.find_url("http://b.test/").crawled
    assert not buffer and buffer.flush(core) == []


class FailingOnce:
    """A scheduler whose write named by `fail` fails once, as on a full disk; the others,
    and later ones, go to `core`."""

    def __init__(self, core, crawlrank):
        self.core, self.crawlrank, self.fail = core, crawlrank, None

    def _maybe_fail(self, call):
        if self.fail == call:
            self.fail = None
            raise self.crawlrank.ResourceExhaustedError("no space left on device")

    def add_seeds(self, seeds):
        self._maybe_fail("add_seeds")
        self.core.add_seeds(seeds)

    def crawled_batch(self, reports):
        self._maybe_fail("crawled_batch")
        self.core.crawled_batch(reports)


def test_a_write_that_fails_keeps_what_it_did_not_write_for_the_next_flush(fe, scheduler):
    import crawlrank

    db, core = scheduler
    buffer = fe.ReportBuffer(limit=64)
    buffer.add_seeds([crawlrank.QueuedExtra("http://s.test/", b"", 0)])
    buffer.add_report(crawlrank.CrawledPage("http://a.test/", []), 0)
    failing = FailingOnce(core, crawlrank)
    failing.fail = "add_seeds"
    with pytest.raises(crawlrank.ResourceExhaustedError):
        buffer.flush(failing)  # the seeds' write fails: nothing was written
    assert buffer and buffer.seed_count == 1 and "http://s.test/" not in db
    failing.fail = "crawled_batch"
    with pytest.raises(crawlrank.ResourceExhaustedError):
        buffer.flush(failing)  # the seeds pass, the reports' write fails
    assert buffer and buffer.seed_count == 0 and "http://s.test/" in db
    assert "http://a.test/" not in db
    assert buffer.flush(failing) == []  # space again: the report is written once
    assert not buffer and db.find_url("http://a.test/").crawled and core.stats().crawled == 1


# ---- the rank at close, and the options it and the re-ranks read


@pytest.mark.parametrize("score, ranked", [("pagerank", True), ("hits", True),
                                           ("link-score", False), ("opic", False)])
def test_rank_at_close_ranks_by_the_score_mode_or_not_at_all(fe, tmp_path, score, ranked):
    import crawlrank

    with crawlrank.PageDb(str(tmp_path / "db")) as db:
        with crawlrank.Scheduler(db, crawlrank.SchedulerOptions(score=score)) as scheduler:
            scheduler.add_seeds(["http://a.test/"])
            [request] = scheduler.next(1)
            scheduler.crawled(crawlrank.CrawledPage(request.url, ["http://a.test/1"]),
                              request.lease)
            seconds, _ = fe.rank_at_close(scheduler, db)
        assert seconds >= 0
        assert (tmp_path / "db" / "ranks" / f"{score}.rank").exists() == ranked
        # The display rank whatever the mode: what the shown lists use.
        display = db.load_rank("display")
        assert (display.graph.pages, display.graph.edges) == (2, 1)
        assert db.top(5) == [("http://a.test/", display.scores[0])]  # crawled 2xx only
        if ranked:
            rank = db.load_rank(score)
            assert (rank.graph.pages, rank.graph.edges, rank.graph.crawled_pages) == (2, 1, 1)


def test_flags_read_as_settings_give_them(st):
    for value in (True, 1, "1", "true", "Yes", " on "):
        assert st.flag(value, "S") is True, value
    for value in (False, 0, "0", "false", "NO", "off"):
        assert st.flag(value, "S") is False, value
    for value in ("maybe", 2, None, 0.5):
        with pytest.raises(st.OptionsError, match=r"^S=.*: expected True or False$"):
            st.flag(value, "S")


def test_the_graph_growth_trigger_is_an_option_on_by_default(st, tmp_path):
    import crawlrank

    default = crawlrank.SchedulerOptions()
    assert (default.rerank_graph_growth, default.rerank_min_graph_growth) == (0.02, 10)
    options = st.scheduler_options({"rerank_graph_growth": 0.05, "rerank_min_graph_growth": 7})
    assert (options.rerank_graph_growth, options.rerank_min_graph_growth) == (0.05, 7)
    with crawlrank.PageDb(str(tmp_path / "db")) as db:
        with pytest.raises(crawlrank.InvalidArgumentError, match="rerank_graph_growth"):
            crawlrank.Scheduler(db, crawlrank.SchedulerOptions(rerank_graph_growth=-1.0))


# ---- the stored configuration (docs/crawler.md, "Stored configuration")


def test_resolve_config_resumes_what_is_stored_and_stores_what_is_given(fe, tmp_path):
    import crawlrank

    lines = []

    def log(message, *args):
        lines.append(message % args)

    path = str(tmp_path / "db")
    with crawlrank.PageDb(path) as db:
        first = crawlrank.SchedulerOptions(delay_ms=0, scope="same-host",
                                           scope_hosts=["a.example"], deny=["/x/"])
        fe.resolve_config(db, first, {"delay_ms", "scope", "scope_hosts", "deny"},
                          log)
        assert lines == []  # nothing was stored
        stored = db.config()
        assert stored["delay_ms"] == "0" and stored["scope"] == "same-host"
        assert stored["scope_hosts"] == "a.example" and stored["deny"] == "/x/"
        # Nothing given: the stored values come back over the front end's defaults.
        resumed = fe.resolve_config(db, crawlrank.SchedulerOptions(), set(), log)
        assert (resumed.delay_ms, resumed.scope, resumed.scope_hosts,
                resumed.deny) == (0, "same-host", ["a.example"], ["/x/"])
        assert lines == [f"crawlrank: resumed with the configuration stored in {path} "
                         "(settings given this run override it)"]
        # Given: overrides, is stored, and one line names the change.
        given = fe.resolve_config(db, crawlrank.SchedulerOptions(delay_ms=250),
                                  {"delay_ms"}, log)
        assert given.delay_ms == 250 and given.scope == "same-host"
        assert lines[-1] == (f"crawlrank: changed the configuration stored in {path}: "
                             "delay_ms 0 -> 250")
        assert db.config()["delay_ms"] == "250"
        # A key only another front end writes (the crawler's user agent) stays stored.
        db.write_config({**db.config(), "user_agent": "bot/1"})
        fe.resolve_config(db, crawlrank.SchedulerOptions(), set(), log)
        assert db.config()["user_agent"] == "bot/1"


def test_a_stored_value_that_does_not_parse_is_named(fe, tmp_path):
    import crawlrank

    with crawlrank.PageDb(str(tmp_path / "db")) as db:
        db.write_config({"delay_ms": "soon"})
        with pytest.raises(crawlrank.InvalidArgumentError, match='delay_ms = "soon"'):
            fe.resolve_config(db, crawlrank.SchedulerOptions(), set(), print)
        with pytest.raises(crawlrank.InvalidArgumentError, match="Delay"):
            db.write_config({"Delay": "1"})


def test_inspect_reads_the_schedule_with_the_stored_configuration(fe, tmp_path):
    import crawlrank

    with crawlrank.PageDb(str(tmp_path / "db")) as db:
        db.add(crawlrank.CrawledPage("http://a.example/", ["http://a.example/x",
                                                           "http://b.example/"]))
        assert crawlrank.Scheduler.inspect(db)["stats"]["queued"] == 2
        db.write_config({"scope": "same-host", "scope_hosts": "a.example"})
        stats = crawlrank.Scheduler.inspect(db)["stats"]
        assert stats["queued"] == 1 and stats["out_of_scope"] == 1
        # Options given replace the stored ones; keyword fields go over the stored ones.
        assert crawlrank.Scheduler.inspect(
            db, options=crawlrank.SchedulerOptions())["stats"]["queued"] == 2
        assert crawlrank.Scheduler.inspect(db, scope="any")["stats"]["queued"] == 2


def test_a_stored_pattern_re2_refuses_is_named_not_dropped(fe, tmp_path):
    import crawlrank

    with crawlrank.PageDb(str(tmp_path / "db")) as db:
        db.write_config({"allow": "/docs/\n/(?<=x)y"})
        with pytest.raises(crawlrank.InvalidArgumentError,
                           match=r'configuration key allow: URL pattern "/\(\?<=x\)y"'):
            fe.resolve_config(db, crawlrank.SchedulerOptions(), set(), print)
        # Given again, the list replaces the stored one.
        given = fe.resolve_config(db, crawlrank.SchedulerOptions(allow=["/docs/"]),
                                  {"allow"}, print)
        assert given.allow == ["/docs/"]
        assert db.config()["allow"] == "/docs/"
    with pytest.raises(crawlrank.InvalidArgumentError, match=r"deny URL pattern \"\(\?=a\)\""):
        crawlrank.Scheduler.inspect(crawlrank.PageDb(str(tmp_path / "db")),
                                    options=crawlrank.SchedulerOptions(deny=["(?=a)"]))


# ---- why a crawl had nothing to do


def test_nothing_to_crawl_says_why(fe, tmp_path):
    """The reason each front end logs when a crawl hands out no page, for the states a
    PageDB can be in: empty, all crawled, out of scope, max_pages reached."""
    import crawlrank

    def why(path, seeds=(), crawl=0, **fields):
        with crawlrank.PageDb(str(tmp_path / path)) as db, \
                crawlrank.Scheduler(db, delay_ms=0, per_host=8,
                                    **fields) as core:
            core.add_seeds(list(seeds))
            for request in core.next(crawl):
                core.crawled(crawlrank.CrawledPage(request.url, []), request.lease)
            return fe.nothing_to_crawl(core.stats())

    assert why("empty") == "it is empty (no seeds)"
    assert why("done", ["http://a.test/", "http://a.test/b"], crawl=2) == \
        "all 2 pages are crawled"
    assert why("scoped", ["http://a.test/", "http://b.test/"], crawl=1, scope="same-host",
               scope_hosts=["a.test"]) == "its 1 page is crawled; 1 out of scope"
    assert why("limit", ["http://a.test/", "http://a.test/b", "http://a.test/c"], crawl=1,
               max_pages=1) == "max_pages is reached, with 2 pages still queued"


def test_an_old_field_name_given_overrides_the_stored_value_as_the_new_one_does(fe, tmp_path):
    """CRAWLRANK_OPTIONS may still name a field by its name before issue #42 (min_delay_ms
    for delay_ms): given so, it overrides the stored configuration like the new name."""
    import warnings

    import crawlrank

    with crawlrank.PageDb(str(tmp_path / "db")) as db:
        fe.resolve_config(db, crawlrank.SchedulerOptions(delay_ms=1000), {"delay_ms"},
                          lambda *args: None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            options = crawlrank.SchedulerOptions(min_delay_ms=0)
        resolved = fe.resolve_config(db, options, {"min_delay_ms"}, lambda *args: None)
        assert resolved.delay_ms == 0
        assert db.config()["delay_ms"] == "0"
