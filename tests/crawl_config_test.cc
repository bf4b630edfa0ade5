// The crawl's stored configuration (crawlrank/crawl_config.h, PageDb::ReadConfig and
// WriteConfig) and the scope it carries (SchedulerOptions::scope): values written out by
// hand, merges worked out by the rules in the header, scopes checked host by host.
#include "crawlrank/crawl_config.h"

#include <filesystem>
#include <set>

#include "crawlrank/crawler.h"
#include "crawlrank/scheduler.h"
#include "testutil.h"

namespace crawlrank {
namespace {

using testing::Fast;
using testing::TempDir;

TEST(CrawlConfigTest, ListsRoundTripIncludingEmptyAndOneEmptyItem) {
  EXPECT_EQ(JoinConfigList({}), "");
  EXPECT_EQ(JoinConfigList({"a", "b"}), "a\nb");
  EXPECT_EQ(SplitConfigList(""), std::vector<std::string>{});
  EXPECT_EQ(SplitConfigList("a\nb"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(SplitConfigList(JoinConfigList({""})), std::vector<std::string>{""});
  EXPECT_EQ(SplitConfigList(JoinConfigList({"x", ""})), (std::vector<std::string>{"x", ""}));
}

TEST(CrawlConfigTest, SchedulerKeysAreWrittenAsTextAndReadBack) {
  SchedulerOptions o;
  o.score = ScoreMode::kOpic;
  o.scope = CrawlScope::kSameDomain;
  o.scope_hosts = {"python.org", "example.com"};
  o.deny = {"/private/", "\\.pdf$"};
  o.max_pages = 500;
  o.max_depth = 4;
  o.delay_ms = 0;
  o.per_host = 3;
  o.retry_ms = 2500;
  o.max_retries = 7;
  o.revisits = true;
  o.min_revisit_ms = 7'200'000;
  ASSERT_OK_AND_ASSIGN(StoredConfig config, SchedulerConfig(o));
  EXPECT_EQ(config.at("score"), "opic");
  EXPECT_EQ(config.at("scope"), "same-domain");
  EXPECT_EQ(config.at("scope_hosts"), "python.org\nexample.com");
  EXPECT_EQ(config.at("deny"), "/private/\n\\.pdf$");
  EXPECT_EQ(config.at("allow"), "");
  EXPECT_EQ(config.at("max_pages"), "500");
  EXPECT_EQ(config.at("delay_ms"), "0");
  EXPECT_EQ(config.at("per_host"), "3");
  EXPECT_EQ(config.at("revisit_ms"), "7200000");
  EXPECT_EQ(config.at("host_key"), "host");
  std::set<std::string> keys;
  for (const auto& [key, value] : config) keys.insert(key);
  EXPECT_EQ(keys,
            std::set<std::string>(SchedulerConfigKeys().begin(), SchedulerConfigKeys().end()));

  SchedulerOptions back;
  ASSERT_OK(ApplySchedulerConfig(config, &back));
  EXPECT_EQ(back.score, ScoreMode::kOpic);
  EXPECT_EQ(back.scope, CrawlScope::kSameDomain);
  EXPECT_EQ(back.scope_hosts, o.scope_hosts);
  EXPECT_EQ(back.deny, o.deny);
  EXPECT_TRUE(back.allow.empty());
  EXPECT_EQ(back.max_pages, 500u);
  EXPECT_EQ(back.max_depth, 4u);
  EXPECT_EQ(back.delay_ms, 0);
  EXPECT_EQ(back.per_host, 3u);
  EXPECT_EQ(back.retry_ms, 2500);
  EXPECT_EQ(back.max_retries, 7u);
  EXPECT_TRUE(back.revisits);
  EXPECT_EQ(back.min_revisit_ms, 7'200'000);
}

TEST(CrawlConfigTest, AKeyThatDoesNotParseIsNamedWithItsValue) {
  SchedulerOptions o;
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"delay_ms", "-5"},
                                                        {"max_pages", "12x"},
                                                        {"score", "best"},
                                                        {"scope", "planet"},
                                                        {"per_host", "99999999999"},
                                                        {"host_key", "street"}}) {
    const Status status = ApplySchedulerConfig({{key, value}}, &o);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << key;
    EXPECT_NE(status.message().find(key + " = \"" + value + "\""), std::string::npos)
        << status.ToString();
  }
  // Keys the scheduler does not know (the crawler's, a newer build's) are left alone.
  EXPECT_OK(ApplySchedulerConfig({{"user_agent", "x"}, {"future_key", "1"}}, &o));
  SchedulerOptions newline;
  newline.deny = {"a\nb"};
  EXPECT_EQ(SchedulerConfig(newline).status().code(), StatusCode::kInvalidArgument);
}

TEST(CrawlConfigTest, GivenOptionsOverrideStoredOnesAndTheChangesAreListed) {
  const StoredConfig stored = {{"delay_ms", "1000"}, {"deny", "a\nb"}, {"max_pages", "50"}};
  const StoredConfig given = {
      {"delay_ms", "0"}, {"deny", "c"}, {"max_depth", "3"}, {"max_pages", "50"}};
  std::vector<ConfigChange> changes;
  const StoredConfig merged = MergeConfig(stored, given, &changes);
  EXPECT_EQ(
      merged,
      (StoredConfig{{"delay_ms", "0"}, {"deny", "c"}, {"max_depth", "3"}, {"max_pages", "50"}}));
  ASSERT_EQ(changes.size(), 3u);  // max_pages was given with its stored value: no change
  EXPECT_EQ(changes[0].key, "delay_ms");
  EXPECT_EQ(changes[0].stored, std::optional<std::string>("1000"));
  EXPECT_EQ(changes[1].key, "deny");
  EXPECT_EQ(changes[2].key, "max_depth");
  EXPECT_EQ(changes[2].stored, std::nullopt);
  EXPECT_EQ(DescribeChanges(changes), "delay_ms 1000 -> 0; deny a, b -> c; max_depth (unset) -> 3");
}

TEST(CrawlConfigTest, AScopeGivenAnewDropsTheHostsOfTheOldOne) {
  const StoredConfig stored = {{"scope", "same-host"}, {"scope_hosts", "docs.python.org"}};
  std::vector<ConfigChange> changes;
  StoredConfig merged = MergeConfig(stored, {{"scope", "same-domain"}}, &changes);
  EXPECT_EQ(merged, (StoredConfig{{"scope", "same-domain"}}));
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[1].key, "scope_hosts");
  EXPECT_EQ(changes[1].given, "");
  // The same scope given again keeps them; hosts given with a new scope replace them.
  EXPECT_EQ(MergeConfig(stored, {{"scope", "same-host"}}), stored);
  merged = MergeConfig(stored, {{"scope", "same-domain"}, {"scope_hosts", "python.org"}});
  EXPECT_EQ(merged.at("scope_hosts"), "python.org");
}

TEST(CrawlConfigTest, FormatShortensLongLists) {
  std::vector<std::string> hosts;
  for (int i = 0; i < 12; ++i) hosts.push_back("h" + std::to_string(i));
  const std::string text =
      FormatConfig({{"delay_ms", "0"}, {"scope_hosts", JoinConfigList(hosts)}});
  EXPECT_EQ(text,
            "delay_ms: 0\nscope_hosts: h0, h1, h2, h3, h4, h5, h6, h7, h8, h9, ... (12 items)\n");
}

TEST(CrawlConfigTest, ThePageDbStoresItWholeAndReadersSeeCommittedVersions) {
  TempDir dir;
  const std::string path = dir.Sub("db");
  {
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, Fast()));
    ASSERT_OK_AND_ASSIGN(StoredConfig empty, db->ReadConfig());
    EXPECT_TRUE(empty.empty());
    ASSERT_OK(db->WriteConfig({{"delay_ms", "0"}, {"scope_hosts", "a\nb"}}));
    ASSERT_OK_AND_ASSIGN(Snapshot before, db->NewSnapshot());
    ASSERT_OK(db->WriteConfig({{"max_pages", "9"}}));  // replaces, not merges
    ASSERT_OK_AND_ASSIGN(StoredConfig old, before.Config());
    EXPECT_EQ(old, (StoredConfig{{"delay_ms", "0"}, {"scope_hosts", "a\nb"}}));
    for (const auto& [key, value] :
         std::vector<std::pair<std::string, std::string>>{{"", "x"},
                                                          {"Delay", "1"},
                                                          {"a-b", "1"},
                                                          {std::string(65, 'k'), "1"},
                                                          {"nul", std::string("a\0b", 3)}}) {
      const Status refused = db->WriteConfig({{key, value}});
      EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument) << key;
    }
    ASSERT_OK_AND_ASSIGN(StoredConfig now, db->ReadConfig());
    EXPECT_EQ(now, (StoredConfig{{"max_pages", "9"}}));
  }
  PageDbOptions reading = Fast();
  reading.read_only = true;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, reading));
  ASSERT_OK_AND_ASSIGN(StoredConfig reopened, db->ReadConfig());
  EXPECT_EQ(reopened, (StoredConfig{{"max_pages", "9"}}));
  EXPECT_EQ(db->WriteConfig({}).code(), StatusCode::kFailedPrecondition);
  ASSERT_OK(db->Check());
  // A compacted copy keeps it.
  ASSERT_OK(db->CompactTo(dir.Sub("copy")));
  ASSERT_OK_AND_ASSIGN(auto copy, PageDb::Open(dir.Sub("copy"), reading));
  EXPECT_EQ(*copy->ReadConfig(), reopened);
}

CrawledPage Page(std::string url, std::vector<std::string> links) {
  CrawledPage page;
  page.url = std::move(url);
  page.crawl_time_ms = 1;
  page.http_status = 200;
  for (std::string& link : links) page.links.push_back(Link{std::move(link), 0});
  return page;
}

TEST(CrawlScopeTest, SameHostAndSameDomainDecideHostByHost) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  ASSERT_OK(db->Add(Page("http://docs.python.org/", {
                                                        "http://docs.python.org/a",
                                                        "http://DOCS.python.org./b",
                                                        "http://docs.python.org:8080/c",
                                                        "http://www.python.org/",
                                                        "http://python.org/",
                                                        "http://evilpython.org/",
                                                        "http://python.org.evil.com/",
                                                        "https://bugs.python.org/x",
                                                    })));
  const auto uncrawled = [&](CrawlScope scope, std::vector<std::string> hosts) {
    SchedulerOptions o;
    o.scope = scope;
    o.scope_hosts = std::move(hosts);
    Result<ScheduleView> view = Scheduler::Inspect(*db, o, 100, 0);
    EXPECT_OK(view.status());
    std::set<std::string> urls;
    for (const auto& page : view->next) urls.insert(page.url);
    return std::make_pair(urls, view->stats);
  };
  auto [same_host, host_stats] = uncrawled(CrawlScope::kSameHost, {"Docs.Python.org."});
  EXPECT_EQ(same_host,
            (std::set<std::string>{"http://docs.python.org/a", "http://docs.python.org./b",
                                   "http://docs.python.org:8080/c"}));
  EXPECT_EQ(host_stats.out_of_scope, 5u);
  EXPECT_EQ(host_stats.filtered, 0u);
  auto [same_domain, domain_stats] = uncrawled(CrawlScope::kSameDomain, {"python.org"});
  EXPECT_EQ(same_domain.size(), 6u);
  EXPECT_FALSE(same_domain.contains("http://evilpython.org/"));
  EXPECT_FALSE(same_domain.contains("http://python.org.evil.com/"));
  EXPECT_TRUE(same_domain.contains("https://bugs.python.org/x"));
  EXPECT_EQ(domain_stats.out_of_scope, 2u);
  // The hosts counted are those with a page in the scope.
  EXPECT_LT(domain_stats.hosts, uncrawled(CrawlScope::kAny, {}).second.hosts);
  // A scope without hosts is refused.
  SchedulerOptions empty;
  empty.scope = CrawlScope::kSameHost;
  EXPECT_EQ(Scheduler::Inspect(*db, empty, 1, 0).status().code(), StatusCode::kInvalidArgument);
}

TEST(CrawlScopeTest, AFinishedScopedCrawlReadsAsFinishedFromTheStoredConfiguration) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  SchedulerOptions o;
  o.delay_ms = 0;
  o.scope = CrawlScope::kSameHost;
  o.scope_hosts = {"site.example"};
  ASSERT_OK_AND_ASSIGN(StoredConfig config, SchedulerConfig(o));
  ASSERT_OK(db->WriteConfig(config));
  {
    ASSERT_OK_AND_ASSIGN(auto s, Scheduler::Open(*db, o));
    ASSERT_OK(s->AddSeeds({"http://site.example/"}));
    for (int round = 0; round < 3; ++round) {
      ASSERT_OK_AND_ASSIGN(std::vector<Request> batch, s->Next(10));
      for (const Request& r : batch) {
        std::vector<std::string> links = {"http://other" + std::to_string(round) + ".example/"};
        if (round < 2) links.push_back("http://site.example/p" + std::to_string(round));
        CrawlReport report;
        report.page = Page(r.url, links);
        report.lease = r.lease;
        ASSERT_OK(s->Crawled(report));
      }
    }
    const SchedulerStats stats = s->GetStats();
    EXPECT_EQ(stats.crawled, 3u);
    EXPECT_EQ(stats.out_of_scope, 3u);
    EXPECT_EQ(stats.queued, 0u);
    EXPECT_TRUE(stats.finished);
    EXPECT_EQ(stats.hosts, 1u);
  }
  // A reader with the default options sees the other hosts as queued; with the stored
  // ones, the crawl as it was: finished.
  ASSERT_OK_AND_ASSIGN(ScheduleView plain, Scheduler::Inspect(*db, {}, 0, 0));
  EXPECT_EQ(plain.stats.queued, 3u);
  EXPECT_FALSE(plain.stats.finished);
  ASSERT_OK_AND_ASSIGN(SchedulerOptions stored, StoredSchedulerOptions(*db));
  ASSERT_OK_AND_ASSIGN(ScheduleView view, Scheduler::Inspect(*db, stored, 0, 0));
  EXPECT_EQ(view.stats.queued, 0u);
  EXPECT_EQ(view.stats.out_of_scope, 3u);
  EXPECT_TRUE(view.stats.finished);
  EXPECT_EQ(view.stats.hosts, 1u);
}

TEST(CrawlScopeTest, TenThousandHostsCompileWhereAPatternWouldNot) {
  // std::regex refused the old alternation pattern somewhere past 5,000 hosts; a set takes
  // any number.
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  std::vector<std::string> links;
  SchedulerOptions o;
  o.scope = CrawlScope::kSameHost;
  for (int i = 0; i < 20'000; ++i) {
    const std::string host = "h" + std::to_string(i) + ".example";
    if (i % 2 == 0) o.scope_hosts.push_back(host);
    links.push_back("http://" + host + "/");
  }
  ASSERT_OK(db->Add(Page("http://h0.example/", links)));
  ASSERT_OK_AND_ASSIGN(ScheduleView view, Scheduler::Inspect(*db, o, 0, 0));
  EXPECT_EQ(view.stats.queued, 9'999u);  // the even hosts but h0, whose page is crawled
  EXPECT_EQ(view.stats.out_of_scope, 10'000u);
}

// The one resolution every front end runs (crawlrank crawl, crawlrank serve, Scrapy,
// Frontera): stored, given over it, and the line a person sees.
TEST(CrawlConfigTest, ResolveReadsMergesAndSaysWhatChanged) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  ASSERT_OK_AND_ASSIGN(ResolvedConfig fresh, ResolveConfig(*db, {{"delay_ms", "0"}}));
  EXPECT_TRUE(fresh.stored.empty());
  EXPECT_EQ(fresh.config, (StoredConfig{{"delay_ms", "0"}}));
  EXPECT_EQ(fresh.changes.size(), 1u);
  EXPECT_EQ(fresh.Line("db", "hint"), "");  // a new crawl: nothing to say
  ASSERT_OK(db->WriteConfig({{"delay_ms", "0"}, {"scope", "same-host"},
                             {"scope_hosts", "a.example"}}));
  ASSERT_OK_AND_ASSIGN(ResolvedConfig same, ResolveConfig(*db, {{"delay_ms", "0"}}));
  EXPECT_TRUE(same.changes.empty());
  EXPECT_EQ(same.Line("db", "an option given overrides it"),
            "resumed with the configuration stored in db (an option given overrides it)");
  ASSERT_OK_AND_ASSIGN(ResolvedConfig changed,
                       ResolveConfig(*db, {{"delay_ms", "250"}, {"scope", "any"}}));
  EXPECT_EQ(changed.config, (StoredConfig{{"delay_ms", "250"}, {"scope", "any"}}));
  EXPECT_EQ(changed.Line("db", "hint"),
            "changed the configuration stored in db: delay_ms 0 -> 250; scope same-host -> any; "
            "scope_hosts a.example -> (none)");
  ASSERT_OK_AND_ASSIGN(ResolvedConfig reset, ResolveConfig(*db, {{"max_pages", "9"}}, true));
  EXPECT_TRUE(reset.stored.empty());
  EXPECT_EQ(reset.config, (StoredConfig{{"max_pages", "9"}}));
  EXPECT_EQ(reset.Line("db", "hint"), "cleared the configuration stored in db");
}

TEST(CrawlerConfigTest, CrawlerKeysRoundTripAndOpenStoresWhatItRunsWith) {
  CrawlerOptions o;
  o.user_agent = "testbot/2";
  o.max_crawl_delay_ms = 5000;
  o.schedule.delay_ms = 0;
  o.schedule.per_host = 2;
  o.schedule.scope = CrawlScope::kSameHost;
  o.schedule.max_pages_per_host = 40;
  ASSERT_OK_AND_ASSIGN(StoredConfig config, CrawlerConfig(o));
  EXPECT_EQ(config.at("user_agent"), "testbot/2");
  EXPECT_EQ(config.at("max_crawl_delay_ms"), "5000");
  EXPECT_EQ(config.at("delay_ms"), "0");  // the scheduler's keys, under their stored names
  EXPECT_EQ(config.at("per_host"), "2");
  CrawlerOptions back;
  ASSERT_OK(ApplyCrawlerConfig(config, &back));
  EXPECT_EQ(back.user_agent, "testbot/2");
  EXPECT_EQ(back.max_crawl_delay_ms, 5000);
  EXPECT_EQ(back.schedule.delay_ms, 0);
  EXPECT_EQ(back.schedule.per_host, 2u);
  EXPECT_EQ(back.schedule.scope, CrawlScope::kSameHost);
  EXPECT_EQ(back.schedule.max_pages_per_host, 40u);
  // A politeness key other than the host (stored by a crawlrank serve --host-key domain)
  // is not the crawler's: it keeps robots.txt by host, and says so when given one.
  StoredConfig by_domain = config;
  by_domain["host_key"] = "domain";
  ASSERT_OK(ApplyCrawlerConfig(by_domain, &back));
  EXPECT_EQ(back.schedule.host_key, HostKeyMode::kHost);
  {
    TempDir elsewhere;
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(elsewhere.Sub("db"), Fast()));
    CrawlerOptions domain_keyed;
    domain_keyed.schedule.host_key = HostKeyMode::kRegisteredDomain;
    const Status refused = Crawler::Open(*db, domain_keyed).status();
    EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(refused.message().find("host_key"), std::string::npos) << refused.ToString();
  }

  // Open completes the scope's hosts from the seeds and stores them.
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  o.seeds = {"http://Site.Example/start"};
  o.allow_private = true;
  { ASSERT_OK_AND_ASSIGN(auto crawler, Crawler::Open(*db, o)); }
  ASSERT_OK_AND_ASSIGN(StoredConfig stored, db->ReadConfig());
  EXPECT_EQ(stored.at("scope"), "same-host");
  EXPECT_EQ(stored.at("scope_hosts"), "site.example");
  EXPECT_EQ(stored.at("user_agent"), "testbot/2");
  // A second run with the stored hosts and a new seed adds its host.
  CrawlerOptions resumed;
  ASSERT_OK(ApplyCrawlerConfig(stored, &resumed));
  resumed.seeds = {"http://two.example/"};
  { ASSERT_OK_AND_ASSIGN(auto crawler, Crawler::Open(*db, resumed)); }
  EXPECT_EQ(db->ReadConfig()->at("scope_hosts"), "site.example\ntwo.example");
}

TEST(CrawlConfigTest, CommittedVersion4DbIsReadThenUpgradedWithAnEmptyConfiguration) {
  // tests/data/format-v4.db: a scoped crawl written by the crawlrank of commit 0ad8c7b
  // (README there).
  TempDir dir;
  const std::string path = testing::CopyCommittedDb(dir, 4);
  PageDbOptions reading = Fast();
  reading.read_only = true;
  PageDbCounters before;
  {
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, reading));
    EXPECT_EQ(db->Info()->format_version, 4u);
    ASSERT_OK(db->Check());
    ASSERT_OK_AND_ASSIGN(StoredConfig config, db->ReadConfig());
    EXPECT_TRUE(config.empty());
    before = db->Info()->counters;
  }
  const Status refused = PageDb::Open(path, Fast()).status();
  EXPECT_EQ(refused.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.message().find("page_db_upgrade"), std::string::npos) << refused.ToString();
  EXPECT_NE(refused.message().find("configuration"), std::string::npos) << refused.ToString();
  PageDbOptions upgrade = Fast();
  upgrade.upgrade = true;
  {
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, upgrade));
    EXPECT_EQ(db->Info()->format_version, kPageDbFormatVersion);
    EXPECT_TRUE(db->ReadConfig()->empty());
    ASSERT_OK(db->WriteConfig({{"scope", "same-host"}}));
  }
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, reading));
  EXPECT_EQ(db->Info()->format_version, kPageDbFormatVersion);
  ASSERT_OK(db->Check());
  EXPECT_EQ(*db->ReadConfig(), (StoredConfig{{"scope", "same-host"}}));
  const PageDbCounters after = db->Info()->counters;
  EXPECT_EQ(after.pages, before.pages);
  EXPECT_EQ(after.crawled_pages, before.crawled_pages);
  EXPECT_EQ(after.edges, before.edges);
}

}  // namespace
}  // namespace crawlrank

namespace crawlrank {
namespace {

// Issue #42 renamed four SchedulerOptions fields after their stored keys and kept the keys:
// a configuration an older crawlrank stored (tests/data/format-v5.db, written by the
// crawlrank of its README's commit) resolves unchanged, to the values it was stored with.
TEST(CrawlConfigTest, AConfigurationStoredByAnOlderVersionIsReadUnchanged) {
  TempDir dir;
  const std::string path = testing::CopyCommittedDb(dir, 5);
  PageDbOptions reading = Fast();
  reading.read_only = true;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, reading));
  ASSERT_OK_AND_ASSIGN(const ResolvedConfig resolved, ResolveConfig(*db, {}));
  EXPECT_TRUE(resolved.changes.empty());
  EXPECT_EQ(resolved.config, resolved.stored);
  EXPECT_EQ(resolved.Line(path, "hint"),
            "resumed with the configuration stored in " + path + " (hint)");
  SchedulerOptions options;
  ASSERT_OK(ApplySchedulerConfig(resolved.config, &options));
  EXPECT_EQ(options.score, ScoreMode::kPageRank);
  EXPECT_EQ(options.delay_ms, 0);
  EXPECT_EQ(options.per_host, 1u);
  EXPECT_EQ(options.max_pages, 4u);
  EXPECT_EQ(options.max_retries, 3u);
  EXPECT_TRUE(options.allow.empty() && options.deny.empty());
  CrawlerOptions crawler;
  ASSERT_OK(ApplyCrawlerConfig(resolved.config, &crawler));
  EXPECT_EQ(crawler.max_crawl_delay_ms, 60'000);
  // Written back by this version, the keys and values are the same.
  ASSERT_OK_AND_ASSIGN(const StoredConfig again, SchedulerConfig(options));
  for (const auto& [key, value] : again) {
    if (resolved.stored.contains(key)) {
      EXPECT_EQ(value, resolved.stored.at(key)) << key;
    }
  }
}

}  // namespace
}  // namespace crawlrank
