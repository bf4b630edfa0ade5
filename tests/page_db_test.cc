#include "crawlrank/page_db.h"

#include <gtest/gtest.h>
#include <lmdb.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include "base/coding.h"
#include "child_process.h"
#include "page_db/page_db_impl.h"
#include "testutil.h"

namespace crawlrank {
namespace {

using testing::TempDir;

CrawledPage Page(std::string url, std::vector<std::string> links, int64_t time_ms = 1000,
                 uint64_t hash = 1) {
  CrawledPage page;
  page.url = std::move(url);
  page.crawl_time_ms = time_ms;
  page.content_hash = hash;
  for (auto& l : links) page.links.push_back(Link{std::move(l), 0.f});
  return page;
}

using testing::Fast;

std::set<std::string> LinkUrls(const PageDb& db, std::string_view url) {
  auto snapshot = db.NewSnapshot();
  EXPECT_TRUE(snapshot.ok());
  auto record = snapshot->FindUrl(url);
  EXPECT_TRUE(record.ok()) << record.status().ToString();
  std::set<std::string> out;
  if (!record.ok()) return out;
  auto links = snapshot->Links(record->id);
  EXPECT_TRUE(links.ok()) << links.status().ToString();
  if (!links.ok()) return out;
  for (uint32_t id : *links) out.insert(snapshot->FindId(id)->url);
  return out;
}

TEST(PageDbTest, AddAssignsIdsInDiscoveryOrderAndStoresLinks) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  ASSERT_OK(db->Add(Page("http://a.com/", {"http://a.com/x", "http://b.com/"})));
  ASSERT_OK(db->Add(Page("http://b.com/", {"http://a.com/", "http://c.com/"})));

  ASSERT_OK_AND_ASSIGN(PageRecord a, db->FindUrl("HTTP://A.COM"));
  ASSERT_OK_AND_ASSIGN(PageRecord ax, db->FindUrl("http://a.com/x"));
  ASSERT_OK_AND_ASSIGN(PageRecord b, db->FindUrl("http://b.com/"));
  ASSERT_OK_AND_ASSIGN(PageRecord c, db->FindUrl("http://c.com/"));
  EXPECT_EQ(a.id, 0u);
  EXPECT_EQ(ax.id, 1u);
  EXPECT_EQ(b.id, 2u);
  EXPECT_EQ(c.id, 3u);
  // Depth and discovered-from come from the first discovery.
  EXPECT_EQ(a.depth, 0u);
  EXPECT_EQ(b.depth, 1u);
  EXPECT_EQ(b.discovered_from, a.fingerprint);
  EXPECT_EQ(c.depth, 2u);
  EXPECT_EQ(c.discovered_from, b.fingerprint);
  EXPECT_EQ(a.fingerprint, UrlFingerprint("http://a.com/"));

  EXPECT_EQ(LinkUrls(*db, "http://a.com/"),
            (std::set<std::string>{"http://a.com/x", "http://b.com/"}));
  ASSERT_OK_AND_ASSIGN(Snapshot snap, db->NewSnapshot());
  EXPECT_EQ(snap.counters().pages, 4u);
  EXPECT_EQ(snap.counters().crawled_pages, 2u);
  EXPECT_EQ(snap.counters().edges, 4u);
  EXPECT_OK(db->Check());
}

TEST(PageDbTest, RecrawlCountsCrawlsAndChanges) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  ASSERT_OK(db->Add(Page("http://a.com/", {}, 1000, 7)));
  ASSERT_OK(db->Add(Page("http://a.com/", {}, 2000, 7)));  // same content
  ASSERT_OK(db->Add(Page("http://a.com/", {}, 3000, 8)));  // changed
  ASSERT_OK(db->Add(Page("http://a.com/", {}, 4000, 8)));  // same again
  ASSERT_OK_AND_ASSIGN(PageRecord a, db->FindUrl("http://a.com/"));
  EXPECT_EQ(a.n_crawls, 4u);
  EXPECT_EQ(a.n_changes, 1u);
  EXPECT_EQ(a.first_crawl_ms, 1000);
  EXPECT_EQ(a.last_crawl_ms, 4000);
  EXPECT_EQ(a.content_hash, 8u);
  ASSERT_OK_AND_ASSIGN(Snapshot snap, db->NewSnapshot());
  EXPECT_EQ(snap.counters().crawled_pages, 1u);
}

TEST(PageDbTest, LinkScoreIsTheMaxOverInLinks) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  for (auto [source, score] :
       {std::pair{"http://s1.com/", 0.3f}, {"http://s2.com/", 0.7f}, {"http://s3.com/", 0.5f}}) {
    CrawledPage page = Page(source, {});
    page.links.push_back(Link{"http://t.com/", score});
    ASSERT_OK(db->Add(page));
  }
  ASSERT_OK_AND_ASSIGN(PageRecord t, db->FindUrl("http://t.com/"));
  EXPECT_FLOAT_EQ(t.link_score, 0.7f);  // not the first (Aduana defect 7), the max
  // The writer's mirror survives a reopen: a lower score still does not win.
  db.reset();
  ASSERT_OK_AND_ASSIGN(db, PageDb::Open(dir.Sub("db"), Fast()));
  CrawledPage page = Page("http://s4.com/", {});
  page.links.push_back(Link{"http://t.com/", 0.6f});
  ASSERT_OK(db->Add(page));
  EXPECT_FLOAT_EQ(db->FindUrl("http://t.com/")->link_score, 0.7f);
  page.links[0].score = 0.9f;
  ASSERT_OK(db->Add(page));
  EXPECT_FLOAT_EQ(db->FindUrl("http://t.com/")->link_score, 0.9f);
}

TEST(PageDbTest, LinksAreASetWithSelfLinksAndRecrawlReplacesThem) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  ASSERT_OK(db->Add(Page("http://a.com/", {"http://b.com/", "http://B.com:80/", "http://a.com/#top",
                                           "http://b.com/"})));
  EXPECT_EQ(LinkUrls(*db, "http://a.com/"),
            (std::set<std::string>{"http://a.com/", "http://b.com/"}));
  EXPECT_EQ(db->NewSnapshot()->counters().edges, 2u);
  ASSERT_OK(db->Add(Page("http://a.com/", {"http://c.com/"})));
  EXPECT_EQ(LinkUrls(*db, "http://a.com/"), (std::set<std::string>{"http://c.com/"}));
  EXPECT_EQ(db->NewSnapshot()->counters().edges, 1u);
  ASSERT_OK(db->Add(Page("http://a.com/", {})));
  EXPECT_TRUE(LinkUrls(*db, "http://a.com/").empty());
  EXPECT_EQ(db->NewSnapshot()->counters().edges, 0u);
  EXPECT_OK(db->Check());
}

TEST(PageDbTest, BadLinksAreReportedAndSkippedBadPagesFailTheBatch) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  AddReport report;
  ASSERT_OK(
      db->Add(Page("http://a.com/", {"mailto:x@y.z", "http://ok.com/", "relative/path"}), &report));
  ASSERT_EQ(report.rejected_links.size(), 2u);
  EXPECT_EQ(report.rejected_links[0].url, "mailto:x@y.z");
  EXPECT_NE(report.rejected_links[0].reason.message().find("scheme"), std::string::npos);
  EXPECT_EQ(LinkUrls(*db, "http://a.com/"), (std::set<std::string>{"http://ok.com/"}));

  const std::vector<CrawledPage> batch = {Page("http://new.com/", {"http://other.com/"}),
                                          Page("ftp://bad.com/", {})};
  const Status status = db->AddBatch(batch);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("ftp://bad.com/"), std::string::npos) << status.message();
  // All or nothing: the good page of the failed batch is not there either.
  EXPECT_EQ(db->FindUrl("http://new.com/").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(db->NewSnapshot()->counters().pages, 2u);  // a.com and ok.com
  // And the writer's mirror was rolled back: the next page gets the next id.
  ASSERT_OK(db->Add(Page("http://new.com/", {})));
  EXPECT_EQ(db->FindUrl("http://new.com/")->id, 2u);
  EXPECT_OK(db->Check());
}

TEST(PageDbTest, DataSurvivesReopenAndTheWriterResumes) {
  TempDir dir;
  {
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
    ASSERT_OK(db->Add(Page("http://a.com/", {"http://b.com/"})));
  }
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  ASSERT_OK(db->Add(Page("http://c.com/", {"http://b.com/", "http://d.com/"})));
  EXPECT_EQ(db->FindUrl("http://b.com/")->id, 1u);  // resolved, not re-created
  EXPECT_EQ(db->FindUrl("http://d.com/")->id, 3u);
  EXPECT_OK(db->Check());
}

TEST(PageDbTest, RandomGraphStreamsBackExactly) {
  const uint32_t seed = 424242;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  const int n = 500;
  auto url = [](int i) {
    return "http://h" + std::to_string(i % 17) + ".com/p" + std::to_string(i);
  };
  std::map<std::string, std::set<std::string>> expected;
  std::vector<CrawledPage> batch;
  for (int i = 0; i < n; ++i) {
    CrawledPage page = Page(url(i), {});
    const int degree = static_cast<int>(rng() % 12);
    for (int j = 0; j < degree; ++j) {
      const std::string target = url(static_cast<int>(rng() % n));
      page.links.push_back(Link{target, 0.f});
      expected[url(i)].insert(target);
    }
    batch.push_back(std::move(page));
    if (batch.size() == 64 || i == n - 1) {
      ASSERT_OK(db->AddBatch(batch));
      batch.clear();
    }
  }
  ASSERT_OK_AND_ASSIGN(Snapshot snap, db->NewSnapshot());
  std::map<std::string, std::set<std::string>> actual;
  uint64_t edges = 0;
  int64_t previous = -1;
  EdgeCursor cursor = snap.Edges();
  for (; cursor.Valid(); cursor.Next()) {
    EXPECT_GT(static_cast<int64_t>(cursor.source()), previous) << "sources in id order";
    previous = cursor.source();
    const std::string source = snap.FindId(cursor.source())->url;
    for (uint32_t t : cursor.targets()) actual[source].insert(snap.FindId(t)->url);
    edges += cursor.targets().size();
  }
  ASSERT_OK(cursor.status());
  std::erase_if(expected, [](const auto& kv) { return kv.second.empty(); });
  EXPECT_EQ(actual, expected);
  EXPECT_EQ(edges, snap.counters().edges);
  EXPECT_OK(db->Check());
}

// Everything a snapshot shows, as comparable values.
struct Contents {
  std::vector<PageRecord> pages;
  std::vector<std::pair<uint32_t, std::vector<uint32_t>>> links;
  PageDbCounters counters;
};

Contents ReadAll(const PageDb& db) {
  Contents c;
  auto snapshot = db.NewSnapshot();
  EXPECT_TRUE(snapshot.ok());
  if (!snapshot.ok()) return c;
  c.counters = snapshot->counters();
  EXPECT_OK(snapshot->ForEachPage([&](const PageRecord& r) {
    c.pages.push_back(r);
    return Status::Ok();
  }));
  for (EdgeCursor e = snapshot->Edges(); e.Valid(); e.Next()) {
    c.links.emplace_back(e.source(), std::vector<uint32_t>(e.targets().begin(), e.targets().end()));
  }
  return c;
}

TEST(PageDbTest, CompactedCopyHoldsTheSameDataInFewerPages) {
  const uint32_t seed = 777;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  TempDir dir;
  PageDbOptions options = Fast();
  options.fingerprint_batch = 100;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), options));
  auto url = [](uint32_t i) {
    return "http://h" + std::to_string(i % 13) + ".org/" + std::to_string(i);
  };
  // Pages crawled in random order, so link blocks grow in place and leaves split.
  for (int round = 0; round < 40; ++round) {
    std::vector<CrawledPage> batch;
    for (int k = 0; k < 50; ++k) {
      const uint32_t i = rng() % 3000;
      std::vector<std::string> links;
      for (int j = 0; j < 20; ++j) links.push_back(url((i + rng() % 200) % 3000));
      batch.push_back(Page(url(i), links));
    }
    ASSERT_OK(db->AddBatch(batch));
  }
  const Contents before = ReadAll(*db);
  ASSERT_OK_AND_ASSIGN(PageDbInfo info, db->Info());

  ASSERT_OK(db->CompactTo(dir.Sub("copy")));
  PageDbOptions reading;
  reading.read_only = true;
  ASSERT_OK_AND_ASSIGN(auto copy, PageDb::Open(dir.Sub("copy"), reading));
  ASSERT_OK(copy->Check());
  const Contents after = ReadAll(*copy);
  EXPECT_EQ(after.pages, before.pages);
  EXPECT_EQ(after.links, before.links);
  EXPECT_EQ(after.counters.edges, before.counters.edges);
  ASSERT_OK_AND_ASSIGN(PageDbInfo packed, copy->Info());
  EXPECT_LT(packed.links_bytes, info.links_bytes);
  EXPECT_LT(packed.file_bytes, info.file_bytes);
  // The copy is a full PageDB: a writer can take it over.
  copy.reset();
  ASSERT_OK_AND_ASSIGN(auto writer, PageDb::Open(dir.Sub("copy"), options));
  ASSERT_OK(writer->Add(Page("http://new.org/", {url(1)})));
  ASSERT_OK(writer->Check());

  EXPECT_EQ(db->CompactTo(dir.Sub("copy")).code(), StatusCode::kAlreadyExists);
}

TEST(PageDbTest, SnapshotsAreIsolatedFromLaterWrites) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  ASSERT_OK(db->Add(Page("http://a.com/", {"http://b.com/"})));
  ASSERT_OK_AND_ASSIGN(Snapshot before, db->NewSnapshot());
  ASSERT_OK(db->Add(Page("http://c.com/", {"http://d.com/"})));
  EXPECT_EQ(before.counters().pages, 2u);
  EXPECT_EQ(before.FindUrl("http://c.com/").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(db->NewSnapshot()->counters().pages, 4u);
}

TEST(PageDbTest, MapGrowsByItself) {
  TempDir dir;
  PageDbOptions options = Fast();
  options.initial_map_size = 1 << 20;  // 1 MiB: fills within the first few thousand pages
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), options));
  std::vector<CrawledPage> batch;
  for (int i = 0; i < 20000; ++i) {
    batch.push_back(Page("http://grow.com/page/" + std::to_string(i),
                         {"http://grow.com/page/" + std::to_string(i + 1)}));
    if (batch.size() == 2000) {
      ASSERT_OK(db->AddBatch(batch));
      batch.clear();
    }
  }
  ASSERT_OK_AND_ASSIGN(PageDbInfo info, db->Info());
  EXPECT_GT(info.map_size, uint64_t{1} << 20);
  EXPECT_EQ(info.counters.pages, 20001u);
  EXPECT_EQ(info.counters.edges, 20000u);
  EXPECT_OK(db->Check());
}

TEST(PageDbTest, OneWriterManyReaders) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto writer, PageDb::Open(dir.Sub("db"), Fast()));
  ASSERT_OK(writer->Add(Page("http://a.com/", {})));
  PageDbOptions ro;
  ro.read_only = true;
  // In another process: a second writer is refused, a reader sees every commit.
  ASSERT_OK(writer->Add(Page("http://b.com/", {})));
  testing::Child other([&](int fd) {
    auto second = PageDb::Open(dir.Sub("db"), Fast());
    testing::Send(fd, !second.ok() && second.status().code() == StatusCode::kFailedPrecondition &&
                          second.status().message().find("writer.lock") != std::string::npos);
    auto reader = PageDb::Open(dir.Sub("db"), ro);
    testing::Send(fd, reader.ok() && (*reader)->FindUrl("http://a.com/").ok() &&
                          (*reader)->FindUrl("http://b.com/").ok());
    testing::Send(fd, reader.ok() && (*reader)->Add(Page("http://c.com/", {})).code() ==
                                         StatusCode::kFailedPrecondition);
  });
  EXPECT_EQ(other.Read(), 1u)
      << "a second writer process must get FailedPrecondition naming writer.lock";
  EXPECT_EQ(other.Read(), 1u) << "a reader process must see both pages";
  EXPECT_EQ(other.Read(), 1u) << "a read-only open must refuse writes";
  EXPECT_EQ(other.Wait(), 0);
}

TEST(PageDbTest, OpenErrorsSayWhatIsWrong) {
  TempDir dir;
  PageDbOptions ro;
  ro.read_only = true;
  auto missing = PageDb::Open(dir.Sub("nope"), ro);
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("nope"), std::string::npos);

  { std::ofstream(dir.Sub("file")) << "x"; }
  auto file = PageDb::Open(dir.Sub("file"));
  EXPECT_EQ(file.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(file.status().message().find("not a directory"), std::string::npos);

  // An empty data.mdb is refused, unless the creation marker says a kill cut the PageDB's
  // creation short: then a writer creates it, and a reader says what happened.
  std::filesystem::create_directory(dir.Sub("empty"));
  { std::ofstream(dir.Sub("empty") + "/data.mdb"); }
  auto empty = PageDb::Open(dir.Sub("empty"));
  EXPECT_EQ(empty.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(empty.status().message().find("data.mdb is an empty file"), std::string::npos);
  { std::ofstream(dir.Sub("empty") + "/creating"); }
  PageDbOptions reading;
  reading.read_only = true;
  auto interrupted = PageDb::Open(dir.Sub("empty"), reading);
  EXPECT_NE(interrupted.status().message().find("creation was interrupted"), std::string::npos)
      << interrupted.status().ToString();
  {
    auto created = PageDb::Open(dir.Sub("empty"));
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    EXPECT_TRUE((*created)->Check().ok());
  }
  EXPECT_FALSE(std::filesystem::exists(dir.Sub("empty") + "/creating"));
  EXPECT_TRUE(PageDb::Open(dir.Sub("empty"), reading).ok());

  // A foreign LMDB environment is not a PageDB.
  std::filesystem::create_directory(dir.Sub("foreign"));
  {
    MDB_env* env;
    ASSERT_EQ(mdb_env_create(&env), 0);
    ASSERT_EQ(mdb_env_open(env, dir.Sub("foreign").c_str(), 0, 0644), 0);
    MDB_txn* txn;
    MDB_dbi dbi;
    ASSERT_EQ(mdb_txn_begin(env, nullptr, 0, &txn), 0);
    ASSERT_EQ(mdb_dbi_open(txn, nullptr, 0, &dbi), 0);
    MDB_val k{3, const_cast<char*>("key")}, v{3, const_cast<char*>("val")};
    ASSERT_EQ(mdb_put(txn, dbi, &k, &v, 0), 0);
    ASSERT_EQ(mdb_txn_commit(txn), 0);
    mdb_env_close(env);
  }
  for (bool read_only : {false, true}) {
    PageDbOptions options;
    options.read_only = read_only;
    auto foreign = PageDb::Open(dir.Sub("foreign"), options);
    EXPECT_EQ(foreign.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(foreign.status().message().find("not a crawlrank PageDB"), std::string::npos)
        << foreign.status().ToString();
  }
  { ASSERT_TRUE(PageDb::Open(dir.Sub("db"), Fast()).ok()); }
  PageDbOptions exclusive;
  exclusive.error_if_exists = true;
  EXPECT_EQ(PageDb::Open(dir.Sub("db"), exclusive).status().code(), StatusCode::kAlreadyExists);
}

// Rewrites one key of the `meta` table with raw LMDB.
void PutMeta(const std::string& path, std::string_view key, std::string_view value) {
  testing::PutRaw(path, "meta", key, value);
}

TEST(PageDbTest, UnknownFormatVersionIsRefusedClearly) {
  TempDir dir;
  { ASSERT_TRUE(PageDb::Open(dir.Sub("db"), Fast()).ok()); }
  const auto open_as = [&](uint32_t v) {
    std::string version;
    coding::PutFixed32(version, v);
    PutMeta(dir.Sub("db"), "format_version", version);
    return PageDb::Open(dir.Sub("db"), Fast()).status();
  };
  const Status newer = open_as(kPageDbFormatVersion + 1);
  EXPECT_EQ(newer.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(newer.message().find("format version " + std::to_string(kPageDbFormatVersion + 1) +
                                 " is newer"),
            std::string::npos)
      << newer.ToString();
  // Version 1 coded link lists as varints: refused, with the way to carry it over.
  const Status older = open_as(1);
  EXPECT_EQ(older.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(older.message().find("format version 1 is older"), std::string::npos)
      << older.ToString();
  EXPECT_NE(older.message().find("page_db_load"), std::string::npos) << older.ToString();
}

// Turns the version 3 DB at `path` into what format version 2 was: no scheduler tables.
void MakeVersion2(const std::string& path) {
  MDB_env* env;
  ASSERT_EQ(mdb_env_create(&env), 0);
  ASSERT_EQ(mdb_env_set_maxdbs(env, 8), 0);
  ASSERT_EQ(mdb_env_open(env, path.c_str(), 0, 0644), 0);
  MDB_txn* txn;
  ASSERT_EQ(mdb_txn_begin(env, nullptr, 0, &txn), 0);
  for (const char* table : {"schedule", "hosts", "payloads", "counters", "fetches", "progress"}) {
    MDB_dbi dbi;
    ASSERT_EQ(mdb_dbi_open(txn, table, 0, &dbi), 0);
    ASSERT_EQ(mdb_drop(txn, dbi, 1), 0);
  }
  ASSERT_EQ(mdb_txn_commit(txn), 0);
  mdb_env_close(env);
  std::string version;
  coding::PutFixed32(version, 2);
  PutMeta(path, "format_version", version);
}

TEST(PageDbTest, Version2IsReadAsItIsAndWrittenOnlyAfterAnUpgrade) {
  TempDir dir;
  const std::string path = dir.Sub("db");
  {
    auto db = PageDb::Open(path, Fast());
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Add(Page("http://a.example/", {"http://a.example/x"})).ok());
  }
  MakeVersion2(path);
  PageDbOptions reading = Fast();
  reading.read_only = true;
  {
    auto db = PageDb::Open(path, reading);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    EXPECT_EQ((*db)->Info()->format_version, 2u);
    EXPECT_EQ((*db)->Info()->counters.pages, 2u);
    EXPECT_TRUE((*db)->Check().ok());
  }
  const Status refused = PageDb::Open(path, Fast()).status();
  EXPECT_EQ(refused.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.message().find("format version 2 is older than this crawlrank"),
            std::string::npos)
      << refused.ToString();
  EXPECT_NE(refused.message().find("page_db_upgrade"), std::string::npos) << refused.ToString();
  PageDbOptions upgrade = Fast();
  upgrade.upgrade = true;
  {
    auto db = PageDb::Open(path, upgrade);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    EXPECT_EQ((*db)->Info()->format_version, kPageDbFormatVersion);
  }
  auto db = PageDb::Open(path, reading);
  ASSERT_TRUE(db.ok());
  EXPECT_EQ((*db)->Info()->format_version, kPageDbFormatVersion);
  EXPECT_EQ((*db)->FindUrl("http://a.example/x")->id, 1u);
  EXPECT_TRUE((*db)->Check().ok());
}

TEST(PageDbTest, UrlProfileIsFixedAtCreation) {
  TempDir dir;
  PageDbOptions options = Fast();
  options.url_profile = UrlProfile::kW3lib;
  { ASSERT_TRUE(PageDb::Open(dir.Sub("db"), options).ok()); }
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));  // asks for rfc3986
  EXPECT_EQ(db->url_profile(), UrlProfile::kW3lib);
  ASSERT_OK_AND_ASSIGN(PageDbInfo info, db->Info());
  EXPECT_EQ(info.url_profile, UrlProfile::kW3lib);
  EXPECT_EQ(info.format_version, kPageDbFormatVersion);
}

TEST(PageDbTest, RestoreRequiresTheNextIdAndAMatchingHash) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  PageRecord r;
  r.url = "http://a.com/";
  r.fingerprint = UrlFingerprint(r.url);
  r.id = 1;  // the next free id is 0
  WriteBatch batch;
  batch.RestorePage(r);
  EXPECT_EQ(db->Write(batch).code(), StatusCode::kInvalidArgument);
  r.id = 0;
  r.fingerprint ^= 1;
  batch.Clear();
  batch.RestorePage(r);
  EXPECT_EQ(db->Write(batch).code(), StatusCode::kInvalidArgument);
  r.fingerprint ^= 1;
  r.n_crawls = 2;
  r.first_crawl_ms = 5;
  batch.Clear();
  batch.RestorePage(r);
  batch.RestoreLinks(0, {0});
  ASSERT_OK(db->Write(batch));
  EXPECT_EQ(*db->FindId(0), r);
  EXPECT_EQ(db->NewSnapshot()->counters().crawled_pages, 1u);
  batch.Clear();
  batch.RestoreLinks(0, {7});
  EXPECT_EQ(db->Write(batch).code(), StatusCode::kInvalidArgument);
  EXPECT_OK(db->Check());
}

// A batch applies its writes in the order they were added: a page restored after a crawled
// page takes the id after the pages that one created, and links may then name it.
TEST(PageDbTest, WriteBatchAppliesItsWritesInCallOrder) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  WriteBatch batch;
  batch.AddCrawled(CrawledPage{.url = "http://a.com/", .links = {{"http://b.com/"}}});  // ids 0, 1
  PageRecord c;
  c.url = "http://c.com/";
  c.fingerprint = UrlFingerprint(c.url);
  c.id = 2;
  batch.RestorePage(c);
  batch.RestoreLinks(2, {0, 1});
  batch.AddLinks("http://b.com/", {{"http://c.com/"}});
  ASSERT_OK(db->Write(batch));
  ASSERT_OK_AND_ASSIGN(auto snapshot, db->NewSnapshot());
  EXPECT_EQ(snapshot.counters().pages, 3u);
  EXPECT_EQ(snapshot.FindId(2)->url, "http://c.com/");
  EXPECT_EQ(*snapshot.Links(2), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(*snapshot.Links(1), (std::vector<uint32_t>{2}));
  EXPECT_EQ(snapshot.FindId(1)->n_crawls, 0u);  // AddLinks counts no crawl
  EXPECT_OK(db->Check());
}

// MergeLinks adds to the links a page has, whether stored by an earlier commit or written
// earlier in the same batch; AddLinks replaces them. Ids by hand: a 0, b 1, c 2, d 3, e 4.
TEST(PageDbTest, MergeLinksAddsToStoredAndBatchedLinksAndAddLinksReplaces) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  WriteBatch batch;
  batch.AddLinks("http://a.com/", {{"http://b.com/"}, {"http://c.com/"}});
  ASSERT_OK(db->Write(batch));
  batch.Clear();
  // Stored {1, 2} + {2, 3}; then, in the same batch, + {4, 1, 4}.
  batch.MergeLinks("http://a.com/", {{"http://c.com/"}, {"http://d.com/"}});
  batch.MergeLinks("http://a.com/", {{"http://e.com/"}, {"http://b.com/"}, {"http://e.com/"}});
  batch.MergeLinks("http://b.com/", {{"http://a.com/"}});  // a page with no links yet
  ASSERT_OK(db->Write(batch));
  {
    ASSERT_OK_AND_ASSIGN(auto snapshot, db->NewSnapshot());
    EXPECT_EQ(*snapshot.Links(0), (std::vector<uint32_t>{1, 2, 3, 4}));
    EXPECT_EQ(*snapshot.Links(1), (std::vector<uint32_t>{0}));
    EXPECT_EQ(snapshot.counters().edges, 5u);
    EXPECT_EQ(snapshot.counters().pages, 5u);
    EXPECT_EQ(snapshot.FindId(0)->n_crawls, 0u);  // MergeLinks counts no crawl
  }
  batch.Clear();
  batch.MergeLinks("http://a.com/", {{"http://a.com/"}});
  batch.AddLinks("http://a.com/", {{"http://d.com/"}});  // replaces the merged list
  ASSERT_OK(db->Write(batch));
  ASSERT_OK_AND_ASSIGN(auto snapshot, db->NewSnapshot());
  EXPECT_EQ(*snapshot.Links(0), (std::vector<uint32_t>{3}));
  EXPECT_EQ(snapshot.counters().edges, 2u);
  EXPECT_OK(db->Check());
}

// AddCrawledMergingLinks counts a crawl and adds to the page's links; AddCrawled replaces
// them. Ids by hand: a 0, b 1, c 2.
TEST(PageDbTest, AddCrawledMergingLinksKeepsTheLinksThePageHas) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  WriteBatch batch;
  batch.MergeLinks("http://a.com/", {{"http://b.com/"}});
  batch.AddCrawledMergingLinks({.url = "http://a.com/", .http_status = 200});
  batch.AddCrawledMergingLinks(
      {.url = "http://a.com/", .http_status = 200, .links = {{"http://c.com/"}}});
  ASSERT_OK(db->Write(batch));
  {
    ASSERT_OK_AND_ASSIGN(auto snapshot, db->NewSnapshot());
    EXPECT_EQ(*snapshot.Links(0), (std::vector<uint32_t>{1, 2}));
    EXPECT_EQ(snapshot.FindId(0)->n_crawls, 2u);
    EXPECT_EQ(snapshot.counters().crawled_pages, 1u);
  }
  batch.Clear();
  batch.AddCrawled({.url = "http://a.com/", .http_status = 200});
  ASSERT_OK(db->Write(batch));
  ASSERT_OK_AND_ASSIGN(auto snapshot, db->NewSnapshot());
  EXPECT_TRUE(snapshot.Links(0)->empty());
  EXPECT_OK(db->Check());
}

// Returns how many of pages 0..pages-1 (URLs from `url`) a fresh snapshot of `db` fails
// to find by URL, by hash or by id, plus one if it finds an absent URL.
template <typename UrlFn>
uint32_t CountLookupFailures(const PageDb& db, int pages, UrlFn url) {
  auto snapshot = db.NewSnapshot();
  if (!snapshot.ok() || snapshot->counters().pages != static_cast<uint64_t>(pages)) return 1000000;
  uint32_t failures = 0;
  for (int i = 0; i < pages; ++i) {
    auto by_url = snapshot->FindUrl(url(i));
    auto by_hash = snapshot->Find(UrlFingerprint(url(i)));
    if (!by_url.ok() || !by_hash.ok() || by_url->url != url(i) || !(*by_hash == *by_url)) {
      ++failures;
      continue;
    }
    auto by_id = snapshot->FindId(by_url->id);
    if (!by_id.ok() || !(*by_id == *by_url)) ++failures;
  }
  if (snapshot->FindUrl("http://h0.com/absent").status().code() != StatusCode::kNotFound) {
    ++failures;
  }
  if (snapshot->FindId(static_cast<uint32_t>(pages)).status().code() != StatusCode::kNotFound) {
    ++failures;
  }
  return failures;
}

// Other processes find a page through the on-disk fingerprint table, or, for pages newer
// than its last batch, by a scan; the writer through its index. All must agree.
TEST(PageDbTest, EveryReaderFindsEveryPageAcrossFingerprintBatches) {
  TempDir dir;
  PageDbOptions options = Fast();
  options.fingerprint_batch = 10;
  auto url = [](int i) { return "http://h" + std::to_string(i % 3) + ".com/" + std::to_string(i); };
  int pages = 0;
  auto add = [&](PageDb& db, int n) {
    for (int k = 0; k < n; ++k, ++pages) ASSERT_OK(db.Add(Page(url(pages), {})));
  };
  // Counts the failures of a read-only open in another process.
  auto reader_failures = [&] {
    testing::Child reader([&](int fd) {
      PageDbOptions reading;
      reading.read_only = true;
      auto db = PageDb::Open(dir.Sub("db"), reading);
      testing::Send(fd, db.ok() ? CountLookupFailures(**db, pages, url) : 1000000);
    });
    return reader.Read();
  };
  {
    ASSERT_OK_AND_ASSIGN(auto writer, PageDb::Open(dir.Sub("db"), options));
    add(*writer, 25);  // two batches of 10 filed, 5 pages after them
    EXPECT_EQ(CountLookupFailures(*writer, pages, url), 0u);
    EXPECT_EQ(reader_failures(), 0u);
    // A snapshot taken before more pages arrive does not see them.
    ASSERT_OK_AND_ASSIGN(Snapshot before, writer->NewSnapshot());
    add(*writer, 3);
    EXPECT_EQ(before.FindUrl(url(26)).status().code(), StatusCode::kNotFound);
    EXPECT_EQ(before.Find(UrlFingerprint(url(26))).status().code(), StatusCode::kNotFound);
    EXPECT_EQ(reader_failures(), 0u);
  }
  // A reopened writer rebuilds its list of unfiled pages and files them with the next batch.
  ASSERT_OK_AND_ASSIGN(auto writer, PageDb::Open(dir.Sub("db"), options));
  add(*writer, 4);
  ASSERT_OK(writer->Check());
  EXPECT_EQ(CountLookupFailures(*writer, pages, url), 0u);
  EXPECT_EQ(reader_failures(), 0u);
}

// The writer files new pages once they number the batch option or a quarter of the pages
// filed already, whichever is more, so filing the whole DB takes a logarithmic number of
// passes over the table rather than one per batch.
TEST(PageDbTest, FingerprintFilingBatchGrowsWithTheTable) {
  TempDir dir;
  PageDbOptions options = Fast();
  options.fingerprint_batch = 10;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), options));
  const PageDbImpl& impl = PageDbInternals::Of(*db);
  std::vector<uint64_t> filed_at;  // page counts at which a batch was filed
  uint64_t indexed = 0;
  for (int i = 0; i < 240; ++i) {
    ASSERT_OK(db->Add(Page("http://h.org/" + std::to_string(i), {})));
    if (impl.writer.indexed_pages != indexed) {
      indexed = impl.writer.indexed_pages;
      filed_at.push_back(indexed);
    }
  }
  // By hand: 10 at a time up to 50 (a quarter of 40 is 10); then a quarter of what is
  // filed: 50 + 12, 62 + 15, 77 + 19, 96 + 24, 120 + 30, 150 + 37, 187 + 46.
  EXPECT_EQ(filed_at, (std::vector<uint64_t>{10, 20, 30, 40, 50, 62, 77, 96, 120, 150, 187, 233}));
  ASSERT_OK(db->Check());
}

TEST(PageDbTest, FingerprintCollisionsAreReportedNeverMerged) {
  // A true 64-bit XXH3 collision is out of reach, so plant one in the writer's index:
  // "http://a.com/" hashes to a fingerprint already held by "http://b.com/".
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  ASSERT_OK(db->Add(Page("http://b.com/", {})));
  {
    PageDbImpl& impl = PageDbInternals::Of(*db);
    std::lock_guard lock(impl.write_mutex);
    impl.index.Insert(UrlFingerprint("http://a.com/"), 0, UrlCheck("http://b.com/"));
  }
  AddReport report;
  ASSERT_OK(db->Add(Page("http://c.com/", {"http://a.com/"}), &report));
  ASSERT_EQ(report.rejected_links.size(), 1u);
  EXPECT_EQ(report.rejected_links[0].reason.code(), StatusCode::kAlreadyExists);
  EXPECT_NE(report.rejected_links[0].reason.message().find("collides with \"http://b.com/\""),
            std::string::npos)
      << report.rejected_links[0].reason.message();
  EXPECT_TRUE(LinkUrls(*db, "http://c.com/").empty());
  const Status own = db->Add(Page("http://a.com/", {}));
  EXPECT_EQ(own.code(), StatusCode::kAlreadyExists) << own.ToString();
  ASSERT_OK_AND_ASSIGN(PageDbInfo info, db->Info());
  EXPECT_EQ(info.counters.pages, 2u) << "a.com must not have been merged or added";
  ASSERT_OK_AND_ASSIGN(PageRecord b, db->FindUrl("http://b.com/"));
  EXPECT_EQ(b.id, 0u);
}

}  // namespace
}  // namespace crawlrank
